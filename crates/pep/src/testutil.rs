//! Packets for the proxies' unit tests: a server at 10.0.0.9:5000, a
//! station at 10.0.0.2:20000, the AP at 10.0.0.1.
use wifitcp_core::{FlowId, PacketId, SimTime};
use wifitcp_net::{AgentCtx, Arrival};
use wifitcp_wire::ip::PROTO_TCP;
use wifitcp_wire::{Ipv4Addr, Ipv4Header, Packet, TcpFlags, TcpHeader, Transport};

pub const SERVER: Ipv4Addr = Ipv4Addr::new(10, 0, 0, 9);
pub const STA: Ipv4Addr = Ipv4Addr::new(10, 0, 0, 2);
pub const AP: Ipv4Addr = Ipv4Addr::new(10, 0, 0, 1);
pub const FWD: Arrival = Arrival { node: 0, local: false };
pub const LOCAL: Arrival = Arrival { node: 1, local: true };

pub fn sides() -> crate::Sides {
    crate::Sides::new(vec![STA])
}

/// A TCP packet from the server (`down`) or from the station.
fn tcp(down: bool, seq: u32, ack: u32, flags: u8, len: u32) -> Packet {
    let (src, dst, sp, dp) = if down { (SERVER, STA, 5000, 20000) } else { (STA, SERVER, 20000, 5000) };
    let h = TcpHeader {
        src_port: sp,
        dst_port: dp,
        seq,
        ack,
        flags: TcpFlags(flags),
        window: 65535,
        options: Default::default(),
    };
    Packet::new_tcp(PacketId(0), FlowId(0), SimTime::ZERO, Ipv4Header::new(src, dst, PROTO_TCP), h, len)
}
/// A data segment from the server to the station.
pub fn data(seq: u32, len: u32) -> Packet {
    tcp(true, seq, 1, TcpFlags::ACK, len)
}
/// The server's SYN-ACK (initial sequence number `isn`).
pub fn synack(isn: u32) -> Packet {
    tcp(true, isn, 1, TcpFlags::SYN | TcpFlags::ACK, 0)
}
/// A pure ACK from the station.
pub fn ack(ack: u32) -> Packet {
    tcp(false, 1, ack, TcpFlags::ACK, 0)
}
/// The TCP sequence numbers of the emitted TCP packets, and the number of
/// emitted UDP packets.
pub fn emitted(ctx: &mut AgentCtx) -> (Vec<u32>, usize) {
    let mut seqs = Vec::new();
    let mut udp = 0;
    for p in ctx.take_emitted() {
        match &p.l4 {
            Transport::Tcp(h) => seqs.push(h.seq),
            Transport::Udp(_) => udp += 1,
        }
    }
    (seqs, udp)
}
pub fn t(ms: f64) -> SimTime {
    SimTime::from_secs_f64(ms / 1e3)
}

//! Packet builders for the unit tests of this crate.
#![cfg(test)]
use crate::disc::{Dropped, QueueDisc, Queued};
use std::net::Ipv4Addr;
use wifitcp_core::{DropReason, FlowId, PacketId, SimTime};
use wifitcp_wire::ip::{PROTO_TCP, PROTO_UDP};
use wifitcp_wire::{Ipv4Header, Packet, SackBlock, TcpFlags, TcpHeader, TcpOptions, UdpHeader};

static NEXT_ID: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
fn next_id() -> PacketId {
    PacketId(NEXT_ID.fetch_add(1, std::sync::atomic::Ordering::Relaxed))
}

/// Server `10.0.1.<flow>:80` to station `10.0.0.<flow>:5000+flow` direction.
fn tcp(flow: u32, seq: u32, ackno: u32, flags: u8, payload: u32) -> Packet {
    let ip = Ipv4Header::new(Ipv4Addr::new(10, 0, 1, flow as u8), Ipv4Addr::new(10, 0, 0, flow as u8), PROTO_TCP);
    let t = TcpHeader {
        src_port: 80,
        dst_port: 5000 + flow as u16,
        seq,
        ack: ackno,
        flags: TcpFlags(flags),
        window: 65535,
        options: TcpOptions::default(),
    };
    Packet::new_tcp(next_id(), FlowId(flow), SimTime::ZERO, ip, t, payload)
}

/// A pure ACK of flow `flow` acknowledging `ackno`.
pub fn ack(flow: u32, ackno: u32) -> Packet {
    tcp(flow, 1, ackno, TcpFlags::ACK, 0)
}
/// A 1460-byte data segment of flow `flow`.
pub fn data(flow: u32, seq: u32) -> Packet {
    tcp(flow, seq, 1, TcpFlags::ACK, 1460)
}
/// A data segment with `len` payload bytes.
pub fn data_len(flow: u32, seq: u32, len: u32) -> Packet {
    tcp(flow, seq, 1, TcpFlags::ACK, len)
}
pub fn syn(flow: u32) -> Packet {
    tcp(flow, 0, 0, TcpFlags::SYN, 0)
}
pub fn udp(flow: u32, len: u32) -> Packet {
    let ip = Ipv4Header::new(Ipv4Addr::new(10, 0, 1, flow as u8), Ipv4Addr::new(10, 0, 0, flow as u8), PROTO_UDP);
    Packet::new_udp(next_id(), FlowId(flow), SimTime::ZERO, ip, UdpHeader { src_port: 9, dst_port: 9 }, len)
}
pub fn with_flags(mut p: Packet, f: u8) -> Packet {
    let t = p.tcp_mut().unwrap();
    t.flags = t.flags.with(f);
    p
}
pub fn with_sack(mut p: Packet, blocks: &[(u32, u32)]) -> Packet {
    p.tcp_mut().unwrap().options.sack = blocks.iter().map(|&(l, r)| SackBlock { left: l, right: r }).collect();
    p
}
pub fn with_ts(mut p: Packet, tsval: u32) -> Packet {
    p.tcp_mut().unwrap().options.timestamps = Some((tsval, 1));
    p
}
pub fn q(p: Packet) -> Queued {
    Queued::new(p, 0, 0)
}
pub fn q_to(p: Packet, dest: u32) -> Queued {
    Queued::new(p, dest, 0)
}
pub fn q_class(p: Packet, class: u32) -> Queued {
    Queued::new(p, 0, class)
}
pub fn ms(x: u64) -> SimTime {
    SimTime::from_millis(x)
}
pub fn us(x: u64) -> SimTime {
    SimTime::from_micros(x)
}
pub fn ack_of(p: &Packet) -> u32 {
    p.tcp().unwrap().ack
}
pub fn count(d: &Dropped, r: DropReason) -> usize {
    d.iter().filter(|(_, x)| *x == r).count()
}
/// Dequeue everything currently ready.
pub fn drain(qd: &mut dyn QueueDisc, now: SimTime, dropped: &mut Dropped) -> Vec<Queued> {
    let mut out = Vec::new();
    while let Some(x) = qd.dequeue(now, dropped) {
        out.push(x);
    }
    out
}

/// A standing queue that grows 0.2 ms per packet: one packet of flow 1
/// enqueued every 1 ms and one dequeue every 1.2 ms, for 1 s (packet k
/// waits 0.2 k ms). Returns every drop, the instant (us) of the dequeue
/// that made the first, and the instant of the next dequeue due.
pub fn overload(d: &mut dyn QueueDisc) -> (Dropped, Option<u64>, u64) {
    let mut dr = Vec::new();
    let (mut ta, mut ts, mut i) = (0u64, 0u64, 0u32);
    let mut first = None;
    while ta < 1_000_000 {
        if ta <= ts {
            d.enqueue(us(ta), q(data(1, i)), &mut dr);
            i += 1;
            ta += 1000;
        } else {
            d.dequeue(us(ts), &mut dr);
            if first.is_none() && !dr.is_empty() {
                first = Some(ts);
            }
            ts += 1200;
        }
    }
    (dr, first, ts)
}

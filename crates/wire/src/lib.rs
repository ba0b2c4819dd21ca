//! Packet formats.
//!
//! Every packet carries its real IPv4 and TCP/UDP header fields (addresses,
//! ports, byte sequence numbers, flags, window, options), so queue
//! disciplines, proxies, pcap output and emulation see what real packets
//! carry. Payload bytes are not stored, only their length; `to_bytes` renders
//! a real datagram with zero-filled payload and valid checksums.
//!
//! Invariants: `Packet::ip_len()` equals `to_bytes().len()`; TCP options are
//! padded to a multiple of 4 bytes and never exceed 40 bytes.
//!
//! Besides the simulator's types ([`Packet`] and the header structs, which
//! the simulator uses on its hot path), the crate has:
//! - [`codec`]: checked views over bytes and `Repr`s with `parse`/`emit` for
//!   802.11 (data, QoS data, Ack, RTS, CTS, BlockAck, BlockAckReq, Beacon,
//!   CF-Poll, CF-End), radiotap, LLC/SNAP, Ethernet, IPv4, TCP (all options)
//!   and UDP; malformed bytes give a `codec::Error`, never a panic;
//! - [`sim_bytes`]: a simulated [`Packet`] as real bytes (datagram, 802.11
//!   data frame with FCS, Ethernet frame) and back;
//! - [`pcap`]: pcap files per link type and [`pcap::PcapTap`], the per-run
//!   tap writing one file per interface. To plug it into a run loop:
//!   `PcapTap::create(dir)?` once; `tap.wlan_data(now, iface, &radio, &hop,
//!   &packet)` / `tap.wlan_control(now, iface, &radio, &control)` at each
//!   802.11 transmission start; `tap.wired(now, iface, src, dst, &packet)`
//!   at each wired transmission; `tap.finish()?` at the end. Every call
//!   returns `io::Result` (unwritable directory, full disk). docs/wire.md
//!   has the details.
//!
//! None of the codec, conversion or pcap code runs unless a tap is created.

pub mod codec;
pub mod ip;
pub mod packet;
pub mod pcap;
pub mod sim_bytes;
pub mod tcp;
pub mod udp;
pub mod wifi_frame;

pub use ip::{Ecn, Ipv4Header};
pub use packet::{Packet, Transport};
pub use std::net::Ipv4Addr;
pub use tcp::{SackBlock, TcpFlags, TcpHeader, TcpOptions};
pub use udp::UdpHeader;

/// One's-complement sum over 16-bit words (RFC 1071), folded.
pub(crate) fn csum_add(mut acc: u32, data: &[u8]) -> u32 {
    let mut chunks = data.chunks_exact(2);
    for c in &mut chunks {
        acc += u16::from_be_bytes([c[0], c[1]]) as u32;
    }
    if let [b] = chunks.remainder() {
        acc += (*b as u32) << 8;
    }
    acc
}

pub(crate) fn csum_finish(mut acc: u32) -> u16 {
    while acc > 0xffff {
        acc = (acc & 0xffff) + (acc >> 16);
    }
    !(acc as u16)
}

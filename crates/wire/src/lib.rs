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

pub mod codec;
pub mod ip;
pub mod packet;
pub mod pcap;
pub mod sim_bytes;
pub mod tcp;
pub mod udp;
pub mod wifi_frame;

pub use ip::Ipv4Header;
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

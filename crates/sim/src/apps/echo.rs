//! Echo (RFC 862 over UDP): the responder that answers ping's requests,
//! and the sockets by which a node's UDP ports reach applications.
//!
//! Building a ping flow (`crate::world`, build) binds the responder to
//! the echo port of the flow's destination and a [`UdpSocket::Ping`] to
//! the source's port; a datagram for a port with no socket is a sink's
//! (its flow's delivery, as RFC 863 discard). The responder answers each
//! request with a reply of the same size from the echo port to the
//! request's source port, carrying the request's send time (ping(8)
//! carries it in the echoed data); at the source the reply gives the flow
//! a round-trip time. It is not a `traffic.pattern`: it exists only as the
//! far end of a ping flow.
use wifitcp_core::PacketId;
use wifitcp_wire::ip::PROTO_UDP;
use wifitcp_wire::{Ipv4Header, Packet, UdpHeader};

/// The echo service's port (RFC 862).
pub const PORT: u16 = 7;

/// The discard service's port (RFC 863): the destination port of every
/// datagram that is not an echo request.
pub const DISCARD_PORT: u16 = 9;

/// What a UDP port of a node is bound to (`topology::Node::udp`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UdpSocket {
    /// The echo responder: each datagram is a request, delivered, and
    /// answered with [`reply`].
    Echo,
    /// A ping source: each datagram is an echo reply, which gives its flow
    /// a round-trip time.
    Ping,
}

/// The responder's reply to `request` (UDP header `h`), as a new packet
/// `id` of the same flow, size and send time.
pub fn reply(id: PacketId, request: &Packet, h: &UdpHeader) -> Packet {
    // (the reply keeps the request's TOS octet, as Linux's echo replies do)
    let ip = Ipv4Header { tos: request.ip.tos, ..Ipv4Header::new(request.ip.dst, request.ip.src, PROTO_UDP) };
    let udp = UdpHeader { src_port: PORT, dst_port: h.src_port };
    Packet::new_udp(id, request.flow, request.created, ip, udp, request.payload_len)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::Ipv4Addr;
    use wifitcp_core::{FlowId, SimTime};

    #[test]
    fn a_reply_swaps_ends_and_keeps_size_and_send_time() {
        let (a, b) = (Ipv4Addr::new(10, 0, 0, 2), Ipv4Addr::new(10, 0, 0, 1));
        let h = UdpHeader { src_port: 10_003, dst_port: PORT };
        let sent = SimTime::from_millis(5);
        let req = Packet::new_udp(PacketId(4), FlowId(3), sent, Ipv4Header::new(a, b, PROTO_UDP), h.clone(), 56);
        let r = reply(PacketId(9), &req, &h);
        assert_eq!((r.id, r.flow, r.created, r.payload_len), (PacketId(9), FlowId(3), sent, 56));
        assert_eq!((r.ip.src, r.ip.dst), (b, a));
        assert!(
            matches!(&r.l4, wifitcp_wire::Transport::Udp(u) if *u == UdpHeader { src_port: PORT, dst_port: 10_003 })
        );
    }
}

//! A header rewriter as an agent: it sees every TCP packet the node
//! forwards (not those addressed to the node itself) and may rewrite it in
//! place; it never consumes or drops one.
use wifitcp_core::SimTime;
use wifitcp_net::{Agent, AgentCtx, Arrival, Verdict};
use wifitcp_queue::PacketRewriter;
use wifitcp_wire::Packet;

pub struct RewriterAgent {
    inner: Box<dyn PacketRewriter>,
}

impl RewriterAgent {
    pub fn new(inner: Box<dyn PacketRewriter>) -> Self {
        RewriterAgent { inner }
    }
}

impl Agent for RewriterAgent {
    fn kind(&self) -> &'static str {
        self.inner.kind()
    }

    fn on_packet(&mut self, now: SimTime, at: Arrival, pkt: &mut Packet, _ctx: &mut AgentCtx) -> Verdict {
        if !at.local && pkt.tcp().is_some() {
            self.inner.rewrite(now, pkt);
        }
        Verdict::Pass
    }

    fn report(&self) -> Option<(&'static str, serde_json::Value)> {
        let c = self.inner.counters();
        Some(("window_rewrites", serde_json::json!({"seen": c.seen, "rewritten": c.rewritten})))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use wifitcp_queue::{build_rewriter, QdiscConfig};

    #[test]
    fn rewrites_forwarded_tcp_only() {
        let cfg: QdiscConfig = serde_json::from_str(r#"{"kind": "pilosof"}"#).unwrap();
        let mut a = RewriterAgent::new(build_rewriter(&cfg, 50).unwrap().unwrap());
        let ip = wifitcp_wire::Ipv4Header::new(
            std::net::Ipv4Addr::new(10, 0, 0, 1),
            std::net::Ipv4Addr::new(10, 0, 1, 1),
            wifitcp_wire::ip::PROTO_TCP,
        );
        let h = wifitcp_wire::TcpHeader {
            src_port: 5000,
            dst_port: 80,
            seq: 1,
            ack: 1,
            flags: wifitcp_wire::TcpFlags(wifitcp_wire::TcpFlags::ACK),
            window: 65535,
            options: Default::default(),
        };
        let mut p = Packet::new_tcp(wifitcp_core::PacketId(1), wifitcp_core::FlowId(0), SimTime::ZERO, ip, h, 0);
        let mut ctx = AgentCtx::default();
        let local = Arrival { node: 0, local: true };
        assert_eq!(a.on_packet(SimTime::ZERO, local, &mut p, &mut ctx), Verdict::Pass);
        assert_eq!(a.inner.counters().seen, 0, "a packet for the node itself is not the rewriter's");
        let fwd = Arrival { node: 0, local: false };
        assert_eq!(a.on_packet(SimTime::ZERO, fwd, &mut p, &mut ctx), Verdict::Pass);
        assert_eq!(a.inner.counters().seen, 1);
        assert!(!ctx.has_emitted());
        assert_eq!(a.report().unwrap().0, "window_rewrites");
    }
}

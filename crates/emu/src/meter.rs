//! Flows as the emulator sees them at the MAC: every TCP or UDP 5-tuple
//! whose packets the simulated network delivered to an external node.
//!
//! Goodput of a TCP flow counts each byte of sequence space once: the
//! advance of the highest sequence number delivered (retransmissions and
//! reordering add nothing), in the measured window (after the warm-up). UDP counts delivered
//! payload bytes. A flow's name is `proto:src:sport>dst:dport` with node
//! names.
use serde_json::{json, Value};
use std::collections::BTreeMap;
use wifitcp_core::SimTime;
use wifitcp_wire::tcp::TcpFlags;
use wifitcp_wire::{Packet, Transport};

#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug)]
struct Key {
    tcp: bool,
    src: u32,
    dst: u32,
    sport: u16,
    dport: u16,
}

#[derive(Default, Debug)]
struct Flow {
    packets: u64,
    bytes: u64,
    /// Highest sequence number delivered (TCP), once one was.
    hi: Option<u32>,
    first: Option<SimTime>,
    last: SimTime,
}

#[derive(Default)]
pub struct Meter {
    flows: BTreeMap<Key, Flow>,
}

impl Meter {
    /// Count packet `p`, delivered at `at` (bytes only in [`warmup`,
    /// `until`)).
    pub fn delivered(&mut self, p: &Packet, at: SimTime, warmup: SimTime, until: SimTime) {
        let (tcp, sport, dport) = match &p.l4 {
            Transport::Tcp(t) => (true, t.src_port, t.dst_port),
            Transport::Udp(u) => (false, u.src_port, u.dst_port),
        };
        if !tcp && sport == 0 && dport == 0 {
            return; // another protocol (see frames.rs)
        }
        let k = Key { tcp, src: p.ip.src.into(), dst: p.ip.dst.into(), sport, dport };
        let f = self.flows.entry(k).or_default();
        f.packets += 1;
        f.first.get_or_insert(at);
        f.last = at;
        let counts = at >= warmup && at < until;
        match &p.l4 {
            Transport::Tcp(t) => {
                let syn = t.flags.has(TcpFlags::SYN) as u32;
                let end = t.seq.wrapping_add(syn).wrapping_add(p.payload_len);
                match f.hi {
                    None => f.hi = Some(end),
                    Some(hi) => {
                        let adv = end.wrapping_sub(hi) as i32;
                        if adv > 0 {
                            f.hi = Some(end);
                            if counts {
                                f.bytes += adv as u64;
                            }
                        }
                    }
                }
                if f.hi.is_some() && counts && f.packets == 1 {
                    f.bytes += p.payload_len as u64;
                }
            }
            Transport::Udp(_) => {
                if counts {
                    f.bytes += p.payload_len as u64;
                }
            }
        }
    }

    /// The flows carrying data (at least `min_bytes` after the warm-up),
    /// as result JSON, with goodput over `secs`; `name_of` names an address.
    pub fn json(&self, secs: f64, min_bytes: u64, name_of: &dyn Fn(u32) -> String) -> Vec<Value> {
        self.flows
            .iter()
            .filter(|(_, f)| f.bytes >= min_bytes)
            .map(|(k, f)| {
                let (src, dst) = (name_of(k.src), name_of(k.dst));
                let proto = if k.tcp { "tcp" } else { "udp" };
                json!({
                    "name": format!("{proto}:{src}:{}>{dst}:{}", k.sport, k.dport),
                    "kind": proto, "src": src, "dst": dst,
                    "src_port": k.sport, "dst_port": k.dport,
                    "goodput_mbps": f.bytes as f64 * 8.0 / secs / 1e6,
                    "bytes_delivered": f.bytes,
                    "packets_delivered": f.packets,
                    "first_s": f.first.map(|t| t.as_secs_f64()),
                    "last_s": f.last.as_secs_f64(),
                })
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::Ipv4Addr;
    use wifitcp_core::{FlowId, PacketId};
    use wifitcp_wire::ip::PROTO_TCP;
    use wifitcp_wire::{Ipv4Header, TcpHeader};

    fn seg(seq: u32, len: u32) -> Packet {
        let ip = Ipv4Header::new(Ipv4Addr::new(10, 0, 0, 2), Ipv4Addr::new(10, 0, 0, 3), PROTO_TCP);
        let h = TcpHeader {
            src_port: 1,
            dst_port: 2,
            seq,
            ack: 0,
            flags: TcpFlags(TcpFlags::ACK),
            window: 0,
            options: Default::default(),
        };
        Packet::new_tcp(PacketId(0), FlowId(0), SimTime::ZERO, ip, h, len)
    }

    #[test]
    fn retransmissions_and_reordering_count_once() {
        let mut m = Meter::default();
        let t = SimTime::from_millis(1);
        for (s, l) in [(0, 100), (100, 100), (100, 100), (300, 100), (200, 100), (400, 0)] {
            m.delivered(&seg(s, l), t, SimTime::ZERO, SimTime::NEVER);
        }
        let j = m.json(1.0, 1, &|a| Ipv4Addr::from(a).to_string());
        assert_eq!(j.len(), 1);
        assert_eq!(j[0]["bytes_delivered"], 400);
        assert_eq!(j[0]["packets_delivered"], 6);
    }
}

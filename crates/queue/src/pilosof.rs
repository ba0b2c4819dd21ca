//! Advertised-window rewriting at the AP (Pilosof, Ramjee, Raz, Shavitt &
//! Sinha, Infocom 2003), as used as a baseline in paper 001 section IV:
//! "changing the advertised window field in the ACK packets to
//! floor(B/n_act) through the AP (B is the buffer size)".
//!
//! This is not a queue discipline: the AP's queue stays drop-tail. It is a
//! [`PacketRewriter`] the simulator applies to every TCP packet the AP
//! forwards, **in both directions**, before the packet enters the next
//! queue. The window that limits a data sender is in the ACKs travelling
//! towards that sender: for uplink flows (stations to wired servers, the
//! scenario of paper 001) those are the server's ACKs the AP relays
//! *downlink*; for downlink flows they are the stations' ACKs the AP relays
//! *uplink* to the wired side. Applying the rewriter at the forwarding step
//! rather than inside one interface queue covers both.
//!
//! Rules and assumptions:
//! - n_act: TCP connections (either direction counts once) with a packet
//!   forwarded within `active_thresh` (default 500 ms, the activity
//!   definition of paper 001 section III; Pilosof's own estimator is not
//!   described in paper 001).
//! - Target window: `floor(B / n_act)` packets (at least 1 so that no flow
//!   is stalled by a zero window when n_act > B), times the MSS the
//!   packet's sender announced in its SYN (the largest segment its peer
//!   sends), or `default_mss` if no SYN was seen.
//! - Window scaling (RFC 7323 section 2.3): if both SYNs carried the window
//!   scale option, the field of a segment is in units of 2^shift, shift
//!   being the scale its sender announced. The field becomes
//!   `ceil(bytes / 2^shift)` so that the window admits the whole number of
//!   packets; SYN segments (whose window is never scaled) are not modified.
//! - The field is only ever lowered: `min(original, target)`, so the
//!   receiver's own flow control is never overridden.
//! - Only segments with the ACK flag are rewritten.
use crate::config::{check, positive_ms, ConfigError, QdiscKind};
use crate::disc::QueueDisc;
use crate::droptail::DropTail;
use crate::tcpack::{ConnKey, FlowKey};
use serde::Serialize;
use std::collections::BTreeMap;
use wifitcp_core::schema::B::In;
use wifitcp_core::schema::{r, PKTS, TIMER_MS};
use wifitcp_core::{RngStream, SimDur, SimTime};
use wifitcp_wire::{Packet, TcpFlags};

/// Counters of a rewriter.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct RewriteCounters {
    /// TCP packets inspected.
    pub seen: u64,
    /// Packets whose window field was lowered.
    pub rewritten: u64,
}

/// A stateful in-place packet transformer applied by the simulator where a
/// node forwards packets.
pub trait PacketRewriter: Send {
    fn kind(&self) -> &'static str;
    /// Inspect and possibly modify `pkt`; returns whether it was modified.
    fn rewrite(&mut self, now: SimTime, pkt: &mut Packet) -> bool;
    fn counters(&self) -> &RewriteCounters;
}

wifitcp_core::config_table! {
    /// `kind = "pilosof"`: a drop-tail queue plus advertised-window
    /// rewriting of the TCP packets the node forwards.
    #[serde(deny_unknown_fields)]
    pub struct PilosofConfig {
        /// B of floor(B / n_act).
        #[key(range = PKTS, unit = "packets", default = "the interface capacity")]
        pub buffer: Option<u32> = None,
        /// MSS if no SYN was seen.
        #[key(range = r(In(64.0), In(65495.0)), unit = "bytes")]
        pub mss: u32 = 1460,
        /// Activity window for n_act.
        #[key(range = TIMER_MS, unit = "ms")]
        pub active_thresh_ms: f64 = 500.0,
    }
}

impl QdiscKind for PilosofConfig {
    fn build(&self, _: &'static str, capacity: usize, _: &mut RngStream) -> Result<Box<dyn QueueDisc>, ConfigError> {
        Ok(Box::new(DropTail::new(capacity)))
    }

    fn rewriter(&self, capacity: usize) -> Result<Option<Box<dyn PacketRewriter>>, ConfigError> {
        let buffer = self.buffer.unwrap_or(capacity as u32);
        check(buffer > 0, "buffer", "must be positive")?;
        check(self.mss > 0, "mss", "must be positive")?;
        Ok(Some(Box::new(Pilosof::new(PilosofParams {
            buffer,
            default_mss: self.mss,
            active_thresh: positive_ms("active_thresh_ms", self.active_thresh_ms)?,
        }))))
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct PilosofParams {
    /// B: the AP buffer in packets.
    pub buffer: u32,
    pub default_mss: u32,
    pub active_thresh: SimDur,
}

#[derive(Clone, Debug, Default)]
struct Side {
    mss: Option<u16>,
    wscale: Option<u8>,
    syn_seen: bool,
}

#[derive(Clone, Debug, Default)]
struct Conn {
    last_seen: SimTime,
    sides: [Side; 2],
}

pub struct Pilosof {
    p: PilosofParams,
    conns: BTreeMap<ConnKey, Conn>,
    counters: RewriteCounters,
}

impl Pilosof {
    pub fn new(p: PilosofParams) -> Self {
        assert!(p.buffer > 0 && p.default_mss > 0);
        Pilosof { p, conns: BTreeMap::new(), counters: RewriteCounters::default() }
    }

    /// Active connections at `now`.
    pub fn n_act(&self, now: SimTime) -> u32 {
        self.conns.values().filter(|c| now.saturating_since(c.last_seen) <= self.p.active_thresh).count() as u32
    }

    /// Window in packets each flow is allowed at `now`: floor(B / n_act).
    pub fn window_packets(&self, now: SimTime) -> u32 {
        (self.p.buffer / self.n_act(now).max(1)).max(1)
    }

    /// Forget connections idle for longer than ten activity windows (they
    /// are not active and their SYN options are no longer needed).
    fn prune(&mut self, now: SimTime) {
        let horizon = self.p.active_thresh * 10;
        self.conns.retain(|_, c| now.saturating_since(c.last_seen) <= horizon);
    }
}

impl PacketRewriter for Pilosof {
    fn kind(&self) -> &'static str {
        "pilosof"
    }
    fn rewrite(&mut self, now: SimTime, pkt: &mut Packet) -> bool {
        let Some(key) = FlowKey::of(pkt) else { return false };
        self.counters.seen += 1;
        if self.counters.seen & 4095 == 0 {
            self.prune(now);
        }
        let (ck, side) = key.connection();
        let t = pkt.tcp().expect("TCP");
        let conn = self.conns.entry(ck).or_default();
        conn.last_seen = now;
        if t.flags.has(TcpFlags::SYN) {
            let s = &mut conn.sides[side];
            s.syn_seen = true;
            s.mss = t.options.mss;
            s.wscale = t.options.window_scale;
            return false;
        }
        if !t.flags.has(TcpFlags::ACK) {
            return false;
        }
        let me = &conn.sides[side];
        let peer = &conn.sides[1 - side];
        let shift = match (me.wscale, peer.wscale) {
            (Some(s), Some(_)) if me.syn_seen && peer.syn_seen => s.min(14) as u32,
            _ => 0,
        };
        let mss = me.mss.map(u32::from).unwrap_or(self.p.default_mss);
        let bytes = self.window_packets(now) as u64 * mss as u64;
        let field = bytes.div_ceil(1u64 << shift).min(u16::MAX as u64) as u16;
        let t = pkt.tcp_mut().expect("TCP");
        if field < t.window {
            t.window = field;
            self.counters.rewritten += 1;
            true
        } else {
            false
        }
    }
    fn counters(&self) -> &RewriteCounters {
        &self.counters
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::*;

    fn pil(buffer: u32) -> Pilosof {
        Pilosof::new(PilosofParams { buffer, default_mss: 1460, active_thresh: SimDur::from_millis(500) })
    }

    #[test]
    fn window_is_buffer_over_active_flows() {
        let mut r = pil(50);
        // three active connections: floor(50/3) = 16 packets = 23360 bytes
        for f in 1..=3 {
            let mut p = ack(f, 1000);
            r.rewrite(ms(f as u64), &mut p);
        }
        let mut p = ack(1, 2000);
        assert!(r.rewrite(ms(10), &mut p));
        assert_eq!(p.tcp().unwrap().window, 16 * 1460);
        assert_eq!(r.window_packets(ms(10)), 16);
        // after 500 ms of silence from flows 2 and 3 only flow 1 counts
        let mut p = ack(1, 3000);
        r.rewrite(ms(600), &mut p);
        assert_eq!(r.n_act(ms(600)), 1);
        // 50 packets * 1460 > 65535: the unscaled field stays at its original
        assert_eq!(p.tcp().unwrap().window, 65535);
        assert_eq!(r.counters().rewritten, 3);
    }

    #[test]
    fn window_scale_and_mss_from_syns() {
        let mut r = pil(20);
        let mut s1 = syn(1);
        s1.tcp_mut().unwrap().options.window_scale = Some(7);
        s1.tcp_mut().unwrap().options.mss = Some(1000);
        // the reverse direction's SYN (SYN-ACK)
        let mut s2 = syn(1);
        std::mem::swap(&mut s2.ip.src, &mut s2.ip.dst);
        {
            let t = s2.tcp_mut().unwrap();
            std::mem::swap(&mut t.src_port, &mut t.dst_port);
            t.options.window_scale = Some(2);
            t.flags = t.flags.with(TcpFlags::ACK);
        }
        r.rewrite(ms(0), &mut s1);
        r.rewrite(ms(0), &mut s2);
        assert_eq!(s1.tcp().unwrap().window, 65535, "SYNs untouched");
        // same direction as s1: shift 7, MSS 1000; one connection -> 20 pkts
        let mut p = ack(1, 5000);
        assert!(r.rewrite(ms(1), &mut p));
        assert_eq!(p.tcp().unwrap().window, (20 * 1000u32).div_ceil(128) as u16);
    }

    #[test]
    fn never_raises_a_window_and_ignores_udp() {
        let mut r = pil(50);
        let mut p = ack(1, 1000);
        p.tcp_mut().unwrap().window = 100;
        assert!(!r.rewrite(ms(0), &mut p));
        assert_eq!(p.tcp().unwrap().window, 100);
        let mut u = udp(1, 100);
        assert!(!r.rewrite(ms(0), &mut u));
        assert_eq!(r.counters().seen, 1);
    }

    #[test]
    fn more_flows_than_buffer_gives_one_packet() {
        let mut r = pil(2);
        for f in 1..=5 {
            r.rewrite(ms(0), &mut ack(f, 1));
        }
        assert_eq!(r.window_packets(ms(0)), 1);
    }
}

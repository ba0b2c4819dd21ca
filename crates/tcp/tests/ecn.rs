//! ECN end to end between two connections (RFC 3168 6.1, RFC 8257 3.2):
//! negotiation, ECT on new data only, the receiver's echo, the sender's
//! once-per-window reduction without retransmission, and CWR.
use std::collections::VecDeque;
use wifitcp_core::{SimDur, SimTime};
use wifitcp_tcp::{Connection, Ecn, EcnMode, Reno, Segment, TcpConfig};
use wifitcp_wire::TcpFlags;

const ONE_WAY: SimDur = SimDur::from_millis(10);

struct Link {
    a: Connection,
    b: Connection,
    now: SimTime,
    /// In flight: (arrival, to b?, segment, codepoint on arrival).
    wire: VecDeque<(SimTime, bool, Segment, Ecn)>,
    /// Every segment sent: (at, from a?, segment).
    log: Vec<(SimTime, bool, Segment)>,
    /// Data segments a->b, by send order (1-based), that a queue marks CE.
    mark: Vec<u64>,
    /// Data segments a->b, by send order (1-based), that are lost.
    drop: Vec<u64>,
    data_sent: u64,
}

impl Link {
    fn new(ca: TcpConfig, cb: TcpConfig, bytes: u64) -> Link {
        let mut a = Connection::connect(SimTime::ZERO, ca, Box::new(Reno::new()), 40_000, 80, 1000);
        a.send(bytes);
        let b = Connection::listen(cb, Box::new(Reno::new()), 80, 5000);
        Link {
            a,
            b,
            now: SimTime::ZERO,
            wire: VecDeque::new(),
            log: Vec::new(),
            mark: Vec::new(),
            drop: Vec::new(),
            data_sent: 0,
        }
    }
    fn pump(&mut self) {
        while let Some(s) = self.a.poll_transmit(self.now) {
            let mut cp = s.ecn;
            if s.payload_len > 0 {
                self.data_sent += 1;
                if self.mark.contains(&self.data_sent) {
                    assert_ne!(cp, Ecn::NotEct, "only ECT packets are marked");
                    cp = Ecn::Ce;
                }
            }
            self.log.push((self.now, true, s.clone()));
            if s.payload_len > 0 && self.drop.contains(&self.data_sent) {
                continue;
            }
            self.wire.push_back((self.now + ONE_WAY, true, s, cp));
        }
        while let Some(s) = self.b.poll_transmit(self.now) {
            self.log.push((self.now, false, s.clone()));
            let cp = s.ecn;
            self.wire.push_back((self.now + ONE_WAY, false, s, cp));
        }
    }
    fn run(&mut self, until: SimTime) {
        self.pump();
        loop {
            let next = [self.wire.front().map(|w| w.0), self.a.next_wakeup(), self.b.next_wakeup()]
                .into_iter()
                .flatten()
                .min();
            let Some(t) = next.filter(|&t| t <= until) else { break };
            self.now = t;
            while self.wire.front().is_some_and(|w| w.0 <= t) {
                let (_, to_b, s, cp) = self.wire.pop_front().unwrap();
                let c = if to_b { &mut self.b } else { &mut self.a };
                c.on_segment_ecn(t, &s.header, s.payload_len, cp);
            }
            if self.a.next_wakeup().is_some_and(|w| w <= t) {
                self.a.on_timer(t);
            }
            if self.b.next_wakeup().is_some_and(|w| w <= t) {
                self.b.on_timer(t);
            }
            self.pump();
        }
    }
}

fn cfg(ecn: EcnMode) -> TcpConfig {
    TcpConfig { ecn, delayed_ack: None, recv_buffer: wifitcp_tcp::RecvBuffer::Bytes(1 << 20), ..Default::default() }
}

#[test]
fn off_by_default_nothing_is_ect_and_no_flags() {
    let mut l = Link::new(TcpConfig::default(), TcpConfig::default(), 100_000);
    l.run(SimTime::from_secs(5));
    assert!(l.b.delivered_bytes() >= 100_000);
    for (_, _, s) in &l.log {
        assert_eq!(s.ecn, Ecn::NotEct);
        assert!(!s.header.flags.has(TcpFlags::ECE) && !s.header.flags.has(TcpFlags::CWR));
    }
}

#[test]
fn negotiation_syn_and_syn_ack_and_ect_on_new_data_only() {
    let mut l = Link::new(cfg(EcnMode::Classic), cfg(EcnMode::Classic), 50_000);
    l.run(SimTime::from_secs(5));
    let syn = &l.log[0].2;
    assert!(syn.header.flags.has(TcpFlags::SYN | TcpFlags::ECE) && syn.header.flags.has(TcpFlags::CWR));
    assert_eq!(syn.ecn, Ecn::NotEct, "RFC 3168 6.1.1: SYN is Not-ECT");
    let sa = l.log.iter().find(|(_, a, s)| !a && s.header.flags.has(TcpFlags::SYN)).unwrap();
    assert!(sa.2.header.flags.has(TcpFlags::ECE) && !sa.2.header.flags.has(TcpFlags::CWR));
    assert_eq!(sa.2.ecn, Ecn::NotEct);
    for (_, from_a, s) in &l.log[1..] {
        let want = if *from_a && s.payload_len > 0 { Ecn::Ect0 } else { Ecn::NotEct };
        assert_eq!(s.ecn, want, "new data ECT(0); pure ACKs Not-ECT (6.1.4)");
    }
    // One side off: not negotiated, nothing ECT.
    let mut l = Link::new(cfg(EcnMode::Classic), cfg(EcnMode::Off), 20_000);
    l.run(SimTime::from_secs(5));
    let sa = l.log.iter().find(|(_, a, s)| !a && s.header.flags.has(TcpFlags::SYN)).unwrap();
    assert!(!sa.2.header.flags.has(TcpFlags::ECE));
    assert!(l.log.iter().all(|(_, _, s)| s.ecn == Ecn::NotEct));
}

#[test]
fn classic_mark_halves_once_without_retransmission_and_sends_cwr() {
    let mut l = Link::new(cfg(EcnMode::Classic), cfg(EcnMode::Classic), 400_000);
    // Two marks in the same window, then one much later.
    l.mark = vec![30, 31, 120];
    l.run(SimTime::from_secs(20));
    assert!(l.b.delivered_bytes() >= 400_000);
    let st = l.a.stats();
    assert_eq!(st.segments_retransmitted, 0, "a mark is no loss");
    assert_eq!(st.fast_retransmits + st.timeouts, 0);
    assert_eq!(st.ecn_reductions, 2, "once per window for marks 30/31, once for 120");
    assert_eq!(l.b.stats().ce_received, 3);
    // ECE persists on the receiver's ACKs until CWR arrives.
    let cwr: Vec<SimTime> = l
        .log
        .iter()
        .filter(|(_, a, s)| *a && s.payload_len > 0 && s.header.flags.has(TcpFlags::CWR))
        .map(|x| x.0)
        .collect();
    assert_eq!(cwr.len(), 2, "CWR once after each reduction");
    let first_ece = l.log.iter().find(|(_, a, s)| !a && s.header.flags.has(TcpFlags::ECE) && s.payload_len == 0);
    assert!(first_ece.is_some());
    let ece_after_cwr = l
        .log
        .iter()
        .filter(|(t, a, s)| {
            !a && *t > cwr[0] + ONE_WAY && *t < cwr[0] + ONE_WAY + ONE_WAY && s.header.flags.has(TcpFlags::ECE)
        })
        .count();
    assert_eq!(ece_after_cwr, 0, "CWR clears the echo (6.1.3)");
    // The reduction: ssthresh half the flight (RFC 5681 eq. (4)).
    assert!(l.a.ssthresh() < 1 << 20);
}

/// A mark, then a loss: (ECN reductions, fast retransmits, final ssthresh).
fn mark_then_drop(drop: Vec<u64>) -> (u64, u64, u64) {
    let mut l = Link::new(cfg(EcnMode::Classic), cfg(EcnMode::Classic), 400_000);
    l.mark = vec![30];
    l.drop = drop;
    l.run(SimTime::from_secs(20));
    assert!(l.b.delivered_bytes() >= 400_000);
    let st = l.a.stats();
    (st.ecn_reductions, st.fast_retransmits, l.a.ssthresh())
}

#[test]
fn a_loss_in_the_window_a_mark_answered_reduces_nothing_more() {
    // RFC 3168 6.1.2: one reduction for the dropped and CE-marked packets
    // of one window of data.
    let (_, _, marked_only) = mark_then_drop(vec![]);
    // Segment 32 left before the echo of 30 came back: the same window.
    let (ecn, fr, ss) = mark_then_drop(vec![32]);
    assert_eq!((ecn, fr), (1, 1));
    assert_eq!(ss, marked_only, "the loss keeps the mark's ssthresh");
    // Segment 200 left long after the reduction: a new window, a new halving.
    let (ecn, fr, ss) = mark_then_drop(vec![200]);
    assert_eq!((ecn, fr), (1, 1));
    assert!(ss < marked_only, "{ss} against {marked_only}");
}

#[test]
fn accurate_echo_marks_exactly_the_marked_segments() {
    let mut l = Link::new(cfg(EcnMode::Accurate), cfg(EcnMode::Accurate), 200_000);
    l.mark = vec![20, 21, 22, 60];
    l.run(SimTime::from_secs(20));
    // Without delayed ACKs, one ACK per data segment: ECE on exactly the
    // ACKs of the four marked segments.
    let ece = l.log.iter().filter(|(_, a, s)| !a && s.payload_len == 0 && s.header.flags.has(TcpFlags::ECE)).count();
    let ece = ece - 1; // the SYN-ACK's
    assert_eq!(ece, 4);
    assert_eq!(l.a.stats().ece_received, 4);
    // 20 and 21 were in flight together (one reduction); 22 left after
    // that reduction, so its mark is a new window's (RFC 3168 6.1.2); 60.
    assert_eq!(l.a.stats().ecn_reductions, 3);
}

#[test]
fn accurate_echo_with_delayed_acks_flushes_on_state_change() {
    let mut ca = cfg(EcnMode::Accurate);
    let mut cb = cfg(EcnMode::Accurate);
    ca.delayed_ack = Some(Default::default());
    cb.delayed_ack = Some(Default::default());
    let mut l = Link::new(ca, cb, 200_000);
    l.mark = vec![21];
    l.run(SimTime::from_secs(20));
    // Segment 21 follows an odd unacknowledged 20 or not; either way the
    // receiver never acknowledges a marked and an unmarked segment with
    // one ACK: the ACKed bytes of ECE ACKs are exactly one segment.
    let st = l.a.stats();
    assert_eq!(st.ece_received, 1);
    assert_eq!(l.b.stats().ce_received, 1);
}

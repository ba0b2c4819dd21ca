//! Acceptance tests of the TCP layer: RFC behaviour of loss
//! recovery, timers, handshake, delayed ACKs, windows, and byte-stream
//! integrity, on the deterministic harness in `harness/`.
mod harness;

use harness::{Dir, Harness, Rule, Setup};
use wifitcp_core::{SimDur, SimTime};
use wifitcp_tcp::{DelayedAck, InitialWindow, LossKind, RecoveryVariant, RecvBuffer, TcpConfig, TcpState};
use wifitcp_wire::TcpFlags;

const M: u64 = 1000;
const RTT: SimDur = SimDur::from_millis(40);
use RecoveryVariant::{NewReno, Reno, Sack, Tahoe};

fn cfg(v: RecoveryVariant) -> TcpConfig {
    TcpConfig {
        mss: M as u32,
        recovery: v,
        trace: true,
        recv_buffer: RecvBuffer::Bytes(1 << 20),
        ..TcpConfig::default()
    }
}

fn setup(v: RecoveryVariant) -> Setup {
    Setup { cfg_a: cfg(v), cfg_b: TcpConfig { trace: false, ..cfg(v) }, ..Setup::default() }
}

fn secs(s: u64) -> SimTime {
    SimTime::from_secs(s)
}

/// Run until `b` has received `n` bytes; assert it did.
fn deliver(h: &mut Harness, n: u64, deadline: SimTime) {
    let ok = h.run_until(deadline, |h| h.b.delivered_bytes() >= n);
    assert!(ok, "only {} of {n} bytes delivered by {:?}", h.b.delivered_bytes(), h.now);
    assert_eq!(h.b.delivered_bytes(), n);
    h.b.check_stream_integrity().unwrap();
    h.a.check_stream_integrity().unwrap();
}

fn established(h: &mut Harness) {
    assert!(h.run_until(secs(30), |h| h.a.state() == TcpState::Established && h.b.state() == TcpState::Established));
}

/// Times of `a`'s retransmitted data segments.
fn rtx_times(h: &Harness) -> Vec<SimTime> {
    h.data_log().filter(|e| e.rtx).map(|e| e.t).collect()
}

/// Arrival time at `a` of the first ACK covering stream offset `off`.
fn acked_at(h: &Harness, off: u64) -> SimTime {
    h.log
        .iter()
        .filter(|e| {
            e.dir == Dir::BtoA && e.arrival.is_some() && h.off_a(e.hdr.ack) >= off && h.off_a(e.hdr.ack) < 1 << 31
        })
        .map(|e| e.arrival.unwrap())
        .min()
        .expect("offset acknowledged")
}

#[test]
fn transfer_completes_without_loss_for_every_variant() {
    for v in [Tahoe, Reno, NewReno, Sack] {
        let mut s = setup(v);
        s.rate_bps = Some(10_000_000);
        let mut h = s.build();
        let n = 1_000_000;
        h.a.send(n);
        h.a.close(h.now);
        deliver(&mut h, n, secs(60));
        assert!(h.run_until(secs(60), |h| h.b.peer_closed()));
        h.b.close(h.now);
        assert!(h.run_until(secs(200), |h| h.a.state() == TcpState::Closed && h.b.state() == TcpState::Closed));
        let st = h.a.stats();
        assert!(h.a.all_acked());
        assert_eq!((st.segments_retransmitted, st.timeouts, st.fast_retransmits), (0, 0, 0), "{v:?}");
        assert_eq!(st.bytes_sent, n);
        assert_eq!(h.b.dup_bytes_received(), 0);
    }
}

/// One loss: exactly one fast retransmit, one halving (ssthresh =
/// FlightSize / 2, RFC 5681 eq. (4)), no RTO.
#[test]
fn one_loss_one_fast_retransmit_one_halving() {
    for (v, lt) in [(Reno, true), (NewReno, true), (Sack, true), (Reno, false), (NewReno, false), (Sack, false)] {
        let mut s = setup(v);
        s.cfg_a.limited_transmit = lt;
        let mut h = s.build();
        h.rule(Dir::AtoB, Rule::NthData(50));
        h.a.send(300 * M);
        deliver(&mut h, 300 * M, secs(60));
        let st = h.a.stats();
        assert_eq!(st.fast_retransmits, 1, "{v:?}");
        assert_eq!(st.timeouts, 0, "{v:?}");
        assert_eq!(st.segments_retransmitted, 1, "{v:?}");
        assert_eq!(st.loss_events.len(), 1);
        let ev = st.loss_events[0];
        assert_eq!(ev.kind, LossKind::FastRetransmit);
        // FlightSize at the third duplicate ACK, from the wire log; the two
        // Limited Transmit segments are excluded (RFC 5681 3.2 step 2).
        let t = rtx_times(&h)[0];
        let out = h.outstanding_before(h.first_rtx_index().unwrap());
        let expect_flight = if lt { out - 2 * M } else { out };
        assert_eq!(ev.flight, expect_flight, "{v:?} lt={lt}");
        assert_eq!(ev.ssthresh, (expect_flight / 2).max(2 * M));
        // After recovery cwnd is ssthresh (one halving), then grows.
        let after: Vec<_> =
            st.cwnd_trace.iter().filter(|c| c.time >= t).skip_while(|c| c.ssthresh != ev.ssthresh).collect();
        assert!(after.iter().any(|c| c.cwnd == ev.ssthresh), "{v:?}: cwnd deflated to ssthresh");
        assert!(after.iter().all(|c| c.ssthresh == ev.ssthresh), "{v:?}: halved once");
    }
}

/// Two losses in one window: NewReno repairs both in one recovery (a fast
/// retransmit and a partial-ACK retransmit) without RTO. Classic Reno leaves
/// fast recovery on the first (partial) ACK, so the second hole costs it a
/// second fast retransmit (second halving) or a timeout.
#[test]
fn two_losses_newreno_partial_ack_vs_reno() {
    let run = |v| {
        let mut h = setup(v).build();
        h.rule(Dir::AtoB, Rule::NthData(50));
        h.rule(Dir::AtoB, Rule::NthData(53));
        h.a.send(300 * M);
        deliver(&mut h, 300 * M, secs(120));
        h
    };
    let h = run(NewReno);
    let st = h.a.stats();
    assert_eq!(st.fast_retransmits, 1);
    assert_eq!(st.partial_ack_retransmits, 1);
    assert_eq!(st.timeouts, 0);
    assert_eq!(st.segments_retransmitted, 2);
    assert_eq!(st.loss_events.len(), 1, "one halving");

    let h = run(Reno);
    let st = h.a.stats();
    let halvings = st.loss_events.len();
    eprintln!(
        "Reno, two losses: {} fast retransmits, {} timeouts, {} halvings",
        st.fast_retransmits, st.timeouts, halvings
    );
    assert!(st.timeouts >= 1 || halvings >= 2, "Reno needs an RTO or two halvings");
    assert!(st.fast_retransmits >= 1);
}

/// SACK (RFC 6675) repairs four holes of one window in one recovery episode,
/// all retransmissions within one RTT, without RTO; NewReno needs one RTT
/// per hole.
#[test]
fn sack_repairs_several_holes_in_one_rtt() {
    let holes = [50u64, 52, 54, 56];
    let run = |v| {
        let mut h = setup(v).build();
        for n in holes {
            h.rule(Dir::AtoB, Rule::NthData(n));
        }
        h.a.send(400 * M);
        deliver(&mut h, 400 * M, secs(120));
        h
    };
    let h = run(Sack);
    let st = h.a.stats();
    assert_eq!((st.fast_retransmits, st.timeouts, st.segments_retransmitted), (1, 0, 4));
    let r = rtx_times(&h);
    let span = *r.last().unwrap() - r[0];
    assert!(span <= RTT, "SACK retransmissions span {span:?}");
    // the last hole is acknowledged about one RTT after the first rtx
    let last_hole_end = h.data_log().filter(|e| e.dropped).map(|e| h.off_a(e.hdr.seq) + e.len as u64).max().unwrap();
    let sack_repair = acked_at(&h, last_hole_end) - r[0];
    assert!(sack_repair <= RTT * 2, "SACK repair took {sack_repair:?}");

    let h = run(NewReno);
    let st = h.a.stats();
    assert_eq!((st.fast_retransmits, st.partial_ack_retransmits, st.timeouts), (1, 3, 0));
    let r = rtx_times(&h);
    let newreno_repair = acked_at(&h, last_hole_end) - r[0];
    assert!(newreno_repair >= RTT * 3, "NewReno needs one RTT per hole: {newreno_repair:?}");
    assert!(sack_repair < newreno_repair);
}

/// Tahoe: after three duplicate ACKs, cwnd = 1 SMSS and slow start again
/// (+1 SMSS per ACK), no fast recovery.
#[test]
fn tahoe_returns_to_slow_start() {
    let mut h = setup(Tahoe).build();
    h.rule(Dir::AtoB, Rule::NthData(50));
    h.a.send(300 * M);
    deliver(&mut h, 300 * M, secs(60));
    let st = h.a.stats();
    assert_eq!((st.fast_retransmits, st.timeouts), (1, 0));
    let ev = st.loss_events[0];
    assert_eq!(ev.cwnd_after, M);
    assert_eq!(ev.ssthresh, (ev.flight / 2).max(2 * M));
    let after: Vec<u64> = st
        .cwnd_trace
        .iter()
        .skip_while(|c| !(c.time == ev.time && c.cwnd == M && c.ssthresh == ev.ssthresh))
        .map(|c| c.cwnd)
        .take(5)
        .collect();
    assert_eq!(after, vec![M, 2 * M, 3 * M, 4 * M, 5 * M], "slow start from one segment");
    assert!(!st.cwnd_trace.iter().any(|c| c.time >= ev.time && c.cwnd == ev.ssthresh + 3 * M), "no fast recovery");
}

/// RFC 6298 (5.5): successive RTOs double (with min RTO), the backoff is kept
/// until a valid RTT sample (Karn) and then reset.
#[test]
fn successive_rtos_double_and_reset() {
    for min_rto in [SimDur::from_secs(1), SimDur::from_millis(200)] {
        let mut s = setup(NewReno);
        s.cfg_a.min_rto = min_rto;
        // every RTT sample is one path RTT (40 ms), so the base RTO is the
        // floor in both cases
        s.cfg_b.delayed_ack = None;
        let mut h = s.build();
        established(&mut h);
        h.rule(Dir::AtoB, Rule::Offset { off: 0, times: 3 });
        h.rule(Dir::AtoB, Rule::Offset { off: 2 * M, times: 1 });
        h.a.send(M);
        deliver(&mut h, M, secs(60));
        let t: Vec<SimTime> = h.data_log().map(|e| e.t).collect();
        let gaps: Vec<SimDur> = t.windows(2).map(|w| w[1] - w[0]).collect();
        assert_eq!(gaps, vec![min_rto, min_rto * 2, min_rto * 4]);
        assert_eq!(h.a.stats().timeouts, 3);
        // the ACK of a retransmission gives no sample: backoff kept
        // a segment sent once and acknowledged resets it
        assert!(h.run_until(secs(60), |h| h.a.all_acked()));
        assert_eq!(h.a.rto(), min_rto * 8);
        assert_eq!(h.a.rto_backoff(), 3);
        h.a.send(M);
        deliver(&mut h, 2 * M, secs(120));
        assert!(h.run_until(secs(120), |h| h.a.all_acked()));
        assert_eq!(h.a.rto(), min_rto);
        assert_eq!(h.a.rto_backoff(), 0);
        // the next loss is retransmitted after the base RTO again
        let t_send = h.now;
        h.a.send(M);
        deliver(&mut h, 3 * M, secs(180));
        let r = rtx_times(&h);
        assert_eq!(*r.last().unwrap() - t_send, min_rto);
    }
}

/// RFC 6298 (2.1), (5.5): a lost SYN is retransmitted after 1 s, then 2 s
/// later; afterwards IW = 1 segment (RFC 5681 3.1) and RTO = 3 s (RFC 6298
/// section 5).
#[test]
fn handshake_syn_loss_backoff() {
    let mut h = setup(NewReno).build();
    h.rule(Dir::AtoB, Rule::Syn(2));
    established(&mut h);
    let syns: Vec<SimTime> =
        h.log.iter().filter(|e| e.dir == Dir::AtoB && e.hdr.flags.has(TcpFlags::SYN)).map(|e| e.t).collect();
    assert_eq!(syns, vec![secs(0), secs(1), secs(3)]);
    assert_eq!(h.a.stats().syn_retransmits, 2);
    assert_eq!(h.a.cwnd(), M, "IW is one segment after a SYN loss");
    assert_eq!(h.a.rto(), SimDur::from_secs(3));
    assert_eq!(h.b.cwnd(), 4 * M, "b's SYN-ACK was not retransmitted: RFC 5681 IW (4 segments for SMSS <= 1095)");
    h.a.send(20 * M);
    deliver(&mut h, 20 * M, secs(30));
}

/// A lost SYN-ACK: both ends recover, the passive end uses IW = 1 segment.
#[test]
fn handshake_syn_ack_loss() {
    let mut h = setup(NewReno).build();
    h.rule(Dir::BtoA, Rule::Syn(1));
    established(&mut h);
    assert_eq!(h.b.stats().syn_retransmits + h.a.stats().syn_retransmits, 2);
    assert_eq!(h.b.cwnd(), M);
    h.b.send(10 * M);
    h.a.send(10 * M);
    assert!(h.run_until(secs(30), |h| h.a.delivered_bytes() == 10 * M && h.b.delivered_bytes() == 10 * M));
}

/// RFC 1122 4.2.3.2 / RFC 5681 4.2: every second segment is acknowledged at
/// once; a lone segment after 200 ms.
#[test]
fn delayed_ack_every_second_segment_and_timer() {
    for delack in [Some(DelayedAck::default()), None] {
        let mut s = setup(NewReno);
        s.cfg_a.initial_window = InitialWindow::Segments(10);
        s.cfg_b.delayed_ack = delack;
        s.rate_bps = Some(10_000_000);
        let mut h = s.build();
        established(&mut h);
        let before = h.acks_b().count();
        h.a.send(10 * M);
        deliver(&mut h, 10 * M, secs(10));
        h.run_to(secs(2));
        let acks = h.acks_b().count() - before;
        assert_eq!(acks, if delack.is_some() { 5 } else { 10 });
        h.a.send(M);
        deliver(&mut h, 11 * M, secs(10));
        h.run_to(secs(4));
        let data = h.data_log().last().unwrap().clone();
        let ack = h.acks_b().last().unwrap().clone();
        assert_eq!(h.off_a(ack.hdr.ack), 11 * M);
        let wait = ack.t - data.arrival.unwrap();
        assert_eq!(wait, if delack.is_some() { SimDur::from_millis(200) } else { SimDur::ZERO });
    }
}

/// The advertised window bounds the data in flight.
#[test]
fn receiver_window_limits_in_flight() {
    for v in [Reno, Sack] {
        let mut s = setup(v);
        s.cfg_b.recv_buffer = RecvBuffer::Segments(8);
        let mut h = s.build();
        h.a.send(200 * M);
        let mut max_out = 0;
        let ok = h.run_until(secs(60), |h| {
            max_out = max_out.max(h.a.outstanding());
            h.b.delivered_bytes() == 200 * M
        });
        assert!(ok);
        assert_eq!(max_out, 8 * M, "{v:?}");
        assert_eq!(h.a.stats().max_flight, 8 * M);
        // 200 segments at 8 per RTT: about 25 RTTs
        assert!(h.now < SimTime::ZERO + RTT * 30, "{:?}", h.now);
        // and with a loss, the window still bounds what is outstanding
        let mut s = setup(v);
        s.cfg_b.recv_buffer = RecvBuffer::Segments(8);
        let mut h = s.build();
        h.rule(Dir::AtoB, Rule::NthData(20));
        h.a.send(100 * M);
        let mut max_out = 0;
        h.run_until(secs(60), |h| {
            max_out = max_out.max(h.a.outstanding());
            h.b.delivered_bytes() == 100 * M
        });
        assert!(max_out <= 8 * M);
        h.b.check_stream_integrity().unwrap();
    }
}

/// Zero window: the sender stops, probes (RFC 9293 3.8.6.1), and resumes
/// after the application reads, even if the window update is lost.
#[test]
fn zero_window_persist_and_window_update_loss() {
    let mut s = setup(NewReno);
    s.cfg_b.recv_buffer = RecvBuffer::Segments(8);
    s.cfg_b.auto_consume = false;
    let mut h = s.build();
    h.a.send(30 * M);
    h.run_to(secs(5));
    assert_eq!(h.b.delivered_bytes(), 8 * M);
    assert_eq!(h.a.peer_window(), 0);
    assert!(h.a.stats().window_probes >= 1);
    h.rule(Dir::BtoA, Rule::AcksAfter { from: h.now, n: 1 });
    let ok = loop {
        let now = h.now;
        h.b.read(now, u64::MAX);
        if h.b.delivered_bytes() == 30 * M {
            break true;
        }
        if !h.step(secs(120)) {
            break false;
        }
    };
    assert!(ok, "delivered {}", h.b.delivered_bytes());
    h.b.check_stream_integrity().unwrap();
}

/// FIN in both directions, TIME-WAIT, and CLOSED at both ends.
#[test]
fn orderly_close_both_directions() {
    let mut s = setup(NewReno);
    s.cfg_a.time_wait = SimDur::from_secs(1);
    let mut h = s.build();
    h.a.send(50 * M);
    h.a.close(h.now);
    assert!(h.run_until(secs(30), |h| h.b.peer_closed()));
    assert_eq!(h.b.state(), TcpState::CloseWait);
    h.b.send(5 * M);
    h.b.close(h.now);
    assert!(h.run_until(secs(30), |h| h.a.state() == TcpState::TimeWait));
    assert_eq!(h.a.delivered_bytes(), 5 * M);
    assert!(h.run_until(secs(30), |h| h.a.state() == TcpState::Closed && h.b.state() == TcpState::Closed));
    assert!(!h.a.aborted() && !h.b.aborted());
}

/// Random loss in both directions (data and ACKs, handshake and FINs
/// included): every byte is delivered exactly once, in order, for every
/// variant, with assorted options.
#[test]
fn byte_stream_integrity_under_random_loss() {
    let n = 120 * M + 337;
    let mut runs = 0;
    for v in [Tahoe, Reno, NewReno, Sack] {
        for p in [0.01, 0.05, 0.1, 0.2] {
            for seed in 0..25u64 {
                let mut s = setup(v);
                s.cfg_a.timestamps = seed % 2 == 0;
                s.cfg_b.timestamps = seed % 3 != 0;
                s.cfg_b.delayed_ack = if seed % 4 == 1 { None } else { Some(DelayedAck::default()) };
                s.cfg_a.min_rto = SimDur::from_millis(200);
                s.cfg_b.recv_buffer = RecvBuffer::Segments(if seed % 2 == 0 { 16 } else { 64 });
                s.rate_bps = Some(20_000_000);
                s.isn_a = (seed as u32).wrapping_mul(0x9e37_79b9);
                let mut h = s.build();
                h.random_loss(Dir::AtoB, seed, p);
                h.random_loss(Dir::BtoA, seed, p);
                h.a.send(n);
                h.a.close(h.now);
                let ok = h.run_until(secs(3_000), |h| h.b.peer_closed() && h.a.all_acked());
                assert!(ok, "{v:?} p={p} seed={seed}: delivered {} state {:?}", h.b.delivered_bytes(), h.a.state());
                assert_eq!(h.b.delivered_bytes(), n, "{v:?} p={p} seed={seed}");
                h.b.check_stream_integrity().unwrap_or_else(|e| panic!("{v:?} p={p} seed={seed}: {e}"));
                h.a.check_stream_integrity().unwrap();
                runs += 1;
            }
        }
    }
    assert_eq!(runs, 400);
}

/// Sequence numbers wrap around 2^32 in both directions.
#[test]
fn sequence_wraparound() {
    let mut s = setup(Sack);
    s.isn_a = u32::MAX - 20_000;
    s.isn_b = u32::MAX;
    s.cfg_a.timestamps = true;
    s.cfg_b.timestamps = true;
    let mut h = s.build();
    h.random_loss(Dir::AtoB, 7, 0.03);
    h.a.send(500 * M);
    h.b.send(30 * M);
    assert!(h.run_until(secs(300), |h| h.b.delivered_bytes() == 500 * M && h.a.delivered_bytes() == 30 * M));
    h.b.check_stream_integrity().unwrap();
    h.a.check_stream_integrity().unwrap();
    assert!(h.a.stats().segments_retransmitted > 0);
}

/// Same inputs, same outputs, byte for byte.
#[test]
fn deterministic() {
    let run = || {
        let mut s = setup(Sack);
        s.rate_bps = Some(5_000_000);
        s.queue_limit = Some(10);
        let mut h = s.build();
        h.random_loss(Dir::AtoB, 99, 0.02);
        h.a.send(300 * M);
        deliver(&mut h, 300 * M, secs(120));
        h.log.iter().map(|e| (e.t, e.dir, e.hdr.clone(), e.len, e.dropped)).collect::<Vec<_>>()
    };
    assert_eq!(run(), run());
}

/// A drop-tail bottleneck: every variant completes, loses packets to the
/// queue, and keeps the link reasonably busy (buffer = bandwidth-delay
/// product, so AIMD without timeouts would keep it nearly full).
#[test]
fn bottleneck_with_drop_tail_queue() {
    for v in [Tahoe, Reno, NewReno, Sack] {
        let mut s = setup(v);
        s.rate_bps = Some(2_000_000);
        s.queue_limit = Some(10);
        let mut h = s.build();
        let n = 2_000_000;
        h.a.send(n);
        deliver(&mut h, n, secs(120));
        let st = h.a.stats();
        let goodput = n as f64 * 8.0 / h.now.as_secs_f64();
        eprintln!(
            "{v:?}: {:.2} Mbit/s, {} queue drops, {} fast rtx, {} RTOs, {} rtx segs",
            goodput / 1e6,
            h.ab.queue_drops,
            st.fast_retransmits,
            st.timeouts,
            st.segments_retransmitted
        );
        assert!(h.ab.queue_drops > 0);
        assert!(st.fast_retransmits > 0);
        assert!(goodput > 0.7 * 2e6 * 1000.0 / 1040.0, "{v:?} goodput {goodput}");
    }
}

/// Every congestion controller in the crate drives the connection correctly
/// through the trait (integrity under loss with SACK recovery).
#[test]
fn all_controllers_through_the_trait() {
    use wifitcp_tcp::cc::{compound::Compound, cubic::Cubic, vegas::Vegas};
    use wifitcp_tcp::{CongestionControl, Connection, Reno};
    let makers: Vec<fn() -> Box<dyn CongestionControl>> =
        vec![|| Box::new(Reno::new()), || Box::new(Cubic::default()), || Box::new(Vegas::default()), || {
            Box::new(Compound::default())
        }];
    for make in makers {
        let mut s = setup(Sack);
        s.rate_bps = Some(5_000_000);
        s.queue_limit = Some(20);
        let mut h = s.build();
        h.a = Connection::connect(SimTime::ZERO, cfg(Sack), make(), harness::PORT_A, harness::PORT_B, h.isn_a);
        h.random_loss(Dir::AtoB, 3, 0.01);
        h.a.send(1_000 * M);
        deliver(&mut h, 1_000 * M, secs(300));
        eprintln!("{}: done at {:?}, {} rtx", h.a.cc_name(), h.now, h.a.stats().segments_retransmitted);
    }
}

/// With timestamps (RFC 7323), the ACK of a retransmitted segment is a
/// valid RTT sample, so the RTO backoff ends at once (no Karn ambiguity).
#[test]
fn timestamps_sample_retransmissions() {
    let mut s = setup(NewReno);
    s.cfg_a.timestamps = true;
    s.cfg_b.timestamps = true;
    s.cfg_b.delayed_ack = None;
    let mut h = s.build();
    established(&mut h);
    assert_eq!(h.a.smss(), 1000 - 12, "RFC 6691: data reduced by the 12-byte option");
    h.rule(Dir::AtoB, Rule::Offset { off: 0, times: 2 });
    h.a.send(500);
    deliver(&mut h, 500, secs(30));
    assert!(h.run_until(secs(30), |h| h.a.all_acked()));
    assert_eq!(h.a.stats().timeouts, 2);
    assert_eq!(h.a.rto_backoff(), 0);
    assert_eq!(h.a.rto(), SimDur::from_secs(1));
    let srtt = h.a.srtt().unwrap();
    assert!(srtt >= RTT - SimDur::from_millis(1) && srtt <= RTT + SimDur::from_millis(1), "{srtt:?}");
}

/// SACK blocks on the wire: at most 4, at most 3 with timestamps (RFC 2018
/// section 3), the first one holding the segment that triggered the ACK.
#[test]
fn sack_blocks_on_the_wire() {
    for ts in [false, true] {
        let mut s = setup(Sack);
        s.cfg_a.timestamps = ts;
        s.cfg_b.timestamps = ts;
        s.rate_bps = Some(10_000_000);
        let mut h = s.build();
        for n in [30u64, 32, 34, 36, 38] {
            h.rule(Dir::AtoB, Rule::NthData(n));
        }
        h.a.send(200 * M);
        deliver(&mut h, 200 * M, secs(60));
        let max = h.acks_b().map(|e| e.hdr.options.sack.len()).max().unwrap();
        assert_eq!(max, if ts { 3 } else { 4 });
        // each ACK's first block holds the out-of-order data segment that
        // triggered it
        let mut checked = 0;
        for ack in h.acks_b().filter(|e| !e.hdr.options.sack.is_empty()) {
            let last_data = h.log.iter().rfind(|e| e.dir == Dir::AtoB && e.len > 0 && e.arrival == Some(ack.t));
            if let Some(d) = last_data {
                let b = ack.hdr.options.sack[0];
                let (l, r) = (h.off_a(b.left), h.off_a(b.right));
                let (ds, de) = (h.off_a(d.hdr.seq), h.off_a(d.hdr.seq) + d.len as u64);
                if ds >= h.off_a(ack.hdr.ack) {
                    assert!(l <= ds && de <= r, "first SACK block [{l},{r}) misses [{ds},{de})");
                    checked += 1;
                }
            }
        }
        assert!(checked >= 10, "only {checked} ACKs checked");
    }
}

/// Window scaling (RFC 7323): a 1 MB buffer is usable only when both ends
/// agree; otherwise the window stays at 65535 bytes.
#[test]
fn window_scaling_negotiation() {
    for (wa, wb) in [(true, true), (true, false), (false, true)] {
        let mut s = setup(Sack);
        s.cfg_a.window_scaling = wa;
        s.cfg_b.window_scaling = wb;
        s.cfg_b.recv_buffer = if wb { RecvBuffer::Bytes(1 << 20) } else { RecvBuffer::Bytes(65_535) };
        s.cfg_a.recv_buffer = if wa { RecvBuffer::Bytes(1 << 20) } else { RecvBuffer::Bytes(65_535) };
        let mut h = s.build();
        h.a.send(3_000 * M);
        let mut max_out = 0;
        h.run_until(secs(60), |h| {
            max_out = max_out.max(h.a.outstanding());
            h.b.delivered_bytes() == 3_000 * M
        });
        if wa && wb {
            assert!(h.a.peer_window() > 65_535 && h.a.peer_window() <= (1 << 20));
            assert!(max_out > 65_535);
        } else {
            assert!(h.a.peer_window() <= 65_535);
            assert!(max_out <= 65_535);
        }
    }
}

/// MSS negotiation (RFC 9293 3.7.1): the sender uses the smaller MSS.
#[test]
fn mss_negotiation() {
    let mut s = setup(NewReno);
    s.cfg_a.mss = 1460;
    s.cfg_b.mss = 536;
    let mut h = s.build();
    h.a.send(20_000);
    deliver(&mut h, 20_000, secs(10));
    assert_eq!(h.a.smss(), 536);
    assert_eq!(h.b.smss(), 536);
    assert!(h.data_log().all(|e| e.len <= 536));
}

/// RFC 5681 4.1: after an idle period longer than the RTO, cwnd restarts
/// from the initial window.
#[test]
fn restart_window_after_idle() {
    let mut h = setup(NewReno).build();
    h.a.send(100 * M);
    deliver(&mut h, 100 * M, secs(10));
    assert!(h.run_until(secs(10), |h| h.a.all_acked()));
    assert!(h.a.cwnd() > 20 * M);
    h.run_to(h.now + SimDur::from_secs(5));
    h.a.send(10 * M);
    h.step(secs(100));
    assert_eq!(h.a.cwnd(), 4 * M, "RW = min(IW, cwnd)");
    deliver(&mut h, 110 * M, secs(30));
}

/// Data in both directions at once, with loss both ways: ACKs ride on data
/// segments, and both streams arrive intact.
#[test]
fn bidirectional_transfer_under_loss() {
    for v in [NewReno, Sack] {
        for seed in 0..6u64 {
            let mut s = setup(v);
            s.rate_bps = Some(10_000_000);
            s.cfg_b.trace = true;
            let mut h = s.build();
            h.random_loss(Dir::AtoB, seed, 0.03);
            h.random_loss(Dir::BtoA, seed + 100, 0.03);
            h.a.send(300 * M);
            h.b.send(200 * M);
            let ok = h.run_until(secs(600), |h| h.b.delivered_bytes() == 300 * M && h.a.delivered_bytes() == 200 * M);
            assert!(ok, "{v:?} seed {seed}");
            h.a.check_stream_integrity().unwrap();
            h.b.check_stream_integrity().unwrap();
        }
    }
}

/// A retransmission lost during SACK recovery ends in an RTO. The pipe
/// rule (RFC 6675) has meanwhile sent new data past the holes, so
/// `snd_max - snd_una` is far above the data in the network; the RTO's
/// ssthresh (RFC 5681 eq. 4, FlightSize = what is in the network) must
/// not exceed the one the fast retransmit chose for the same loss, for
/// every controller (a CUBIC download collapsed into repeated timeouts
/// when it did).
#[test]
fn rto_during_sack_recovery_does_not_raise_ssthresh() {
    use wifitcp_tcp::cc::{compound::Compound, cubic::Cubic, vegas::Vegas};
    use wifitcp_tcp::{CongestionControl, Connection, Reno};
    let makers: Vec<fn() -> Box<dyn CongestionControl>> =
        vec![|| Box::new(Reno::new()), || Box::new(Cubic::default()), || Box::new(Vegas::default()), || {
            Box::new(Compound::default())
        }];
    for make in makers {
        let mut s = setup(Sack);
        s.rate_bps = Some(10_000_000);
        let mut h = s.build();
        h.a = Connection::connect(SimTime::ZERO, cfg(Sack), make(), harness::PORT_A, harness::PORT_B, h.isn_a);
        // Lose segment 60 and two of its retransmissions, and a few more
        // segments of the window so that SACK recovery has several holes.
        h.rule(Dir::AtoB, Rule::Offset { off: 60 * M, times: 3 });
        for n in [64u64, 70, 75] {
            h.rule(Dir::AtoB, Rule::Offset { off: n * M, times: 1 });
        }
        h.a.send(2_000 * M);
        deliver(&mut h, 2_000 * M, secs(300));
        let st = h.a.stats();
        let name = h.a.cc_name();
        let fr = st.loss_events.iter().find(|e| e.kind == LossKind::FastRetransmit).expect("fast retransmit");
        let rto = st.loss_events.iter().find(|e| e.kind == LossKind::Timeout).expect("a timeout");
        assert!(rto.time > fr.time);
        assert!(
            rto.ssthresh <= fr.ssthresh,
            "{name}: RTO ssthresh {} above the fast retransmit's {} (flight {} at the RTO, {} at the fast retransmit)",
            rto.ssthresh,
            fr.ssthresh,
            rto.flight,
            fr.flight
        );
    }
}

/// The same class of error without SACK: the fast retransmission of a
/// Reno or NewReno recovery is lost, no partial ACK comes, and every
/// duplicate ACK inflates cwnd by one SMSS and releases a new segment
/// (RFC 5681 3.2 step 4, RFC 6582 3.2 step 2) until the RTO. By then
/// `snd_max - snd_una` holds the whole receive window, almost all of it
/// reported as received by those duplicate ACKs; the RTO's ssthresh (RFC
/// 5681 eq. 4, FlightSize = what is in the network) must not exceed the
/// fast retransmit's, for every controller.
#[test]
fn rto_during_newreno_recovery_does_not_raise_ssthresh() {
    use wifitcp_tcp::cc::{compound::Compound, cubic::Cubic, vegas::Vegas};
    use wifitcp_tcp::{CongestionControl, Connection, Reno as RenoCc};
    let makers: Vec<fn() -> Box<dyn CongestionControl>> =
        vec![|| Box::new(RenoCc::new()), || Box::new(Cubic::default()), || Box::new(Vegas::default()), || {
            Box::new(Compound::default())
        }];
    for v in [Reno, NewReno] {
        for make in makers.iter() {
            let mut s = setup(v);
            s.rate_bps = Some(10_000_000);
            let mut h = s.build();
            h.a = Connection::connect(SimTime::ZERO, cfg(v), make(), harness::PORT_A, harness::PORT_B, h.isn_a);
            // Segment 60 and its fast retransmission are lost.
            h.rule(Dir::AtoB, Rule::Offset { off: 60 * M, times: 2 });
            h.a.send(3_000 * M);
            deliver(&mut h, 3_000 * M, secs(300));
            let st = h.a.stats();
            let name = h.a.cc_name();
            let fr = st.loss_events.iter().find(|e| e.kind == LossKind::FastRetransmit).expect("fast retransmit");
            let rto = st.loss_events.iter().find(|e| e.kind == LossKind::Timeout).expect("a timeout");
            assert!(rto.time > fr.time);
            assert!(
                rto.ssthresh <= fr.ssthresh,
                "{v:?} {name}: RTO ssthresh {} above the fast retransmit's {} (flight {} at the RTO, {} at the \
                 fast retransmit)",
                rto.ssthresh,
                fr.ssthresh,
                rto.flight,
                fr.flight
            );
        }
    }
}

/// Vegas with Brakmo & Peterson's loss response (section 3.1, as ns-2's
/// Agent/TCP/Vegas), on an application-limited sender (one segment every
/// 30 ms, RTT 40 ms), where duplicate ACKs come slowly: a lost segment is
/// resent on the first duplicate ACK that finds it older than the
/// fine-grained timeout, the window is cut by a quarter, and a second loss
/// of the same window is resent on the first new ACK after the
/// retransmission with no second cut. The default (Reno's response, as
/// ns-3 and Linux) waits for three duplicates and halves.
#[test]
fn vegas_brakmo_loss_response() {
    use wifitcp_tcp::cc::vegas::{Vegas, VegasConfig, VegasLoss};
    use wifitcp_tcp::Connection;
    let run_with = |loss: VegasLoss, holes: &[u64], twice: Option<u64>| {
        let mut s = setup(Reno);
        // every RTT sample one path RTT (no delayed-ACK wait)
        s.cfg_b.delayed_ack = None;
        let mut h = s.build();
        let cc = Vegas::new(VegasConfig { loss_response: loss, ..VegasConfig::default() });
        let mut c = cfg(Reno);
        c.limited_transmit = false;
        h.a = Connection::connect(SimTime::ZERO, c, Box::new(cc), harness::PORT_A, harness::PORT_B, h.isn_a);
        for &n in holes {
            h.rule(Dir::AtoB, Rule::NthData(n));
        }
        if let Some(off) = twice {
            h.rule(Dir::AtoB, Rule::Offset { off, times: 2 });
        }
        established(&mut h);
        for _ in 0..200 {
            h.a.send(M);
            let t = h.now + SimDur::from_millis(30);
            h.run_to(t);
        }
        deliver(&mut h, 200 * M, secs(120));
        h
    };
    let run = |loss: VegasLoss, holes: &[u64]| run_with(loss, holes, None);
    // Delay from the lost segment's first transmission to its resend.
    let rtx_delay = |h: &Harness| {
        let first = h.data_log().find(|e| e.dropped).unwrap();
        let rtx = h.data_log().find(|e| e.rtx && e.hdr.seq == first.hdr.seq).unwrap();
        rtx.t - first.t
    };
    let b = run(VegasLoss::Brakmo, &[100]);
    let st = b.a.stats();
    assert_eq!((st.fast_retransmits, st.timeouts), (1, 0));
    let ev = st.loss_events[0];
    let before = st.cwnd_trace.iter().rfind(|c| c.time <= ev.time && c.ssthresh != ev.ssthresh).unwrap().cwnd;
    assert_eq!(ev.ssthresh, (before - before / 4).max(2 * M), "a quarter off the window");
    let r = run(VegasLoss::Reno, &[100]);
    let (db, dr) = (rtx_delay(&b), rtx_delay(&r));
    // Brakmo: the first duplicate, the next segment's 30 ms + one RTT;
    // Reno: the third, 90 ms + one RTT.
    assert!(db <= SimDur::from_millis(75), "brakmo resent after {db:?}");
    assert!(dr >= SimDur::from_millis(125), "reno resent after {dr:?}");
    let st = r.a.stats();
    assert_eq!(st.loss_events[0].ssthresh, (st.loss_events[0].flight / 2).max(2 * M), "halved");

    // Two consecutive segments lost: the second is resent on the new ACK
    // that follows the first resend (fine-grained check), one window cut;
    // Reno's response needs a second fast retransmit.
    let b = run(VegasLoss::Brakmo, &[100, 101]);
    let st = b.a.stats();
    assert_eq!((st.timeouts, st.segments_retransmitted, st.fine_grained_retransmits), (0, 2, 1));
    assert_eq!(st.loss_events.len(), 1, "one window cut");
    let r = run(VegasLoss::Reno, &[100, 101]);
    let st = r.a.stats();
    assert_eq!(st.fine_grained_retransmits, 0);
    assert!(st.loss_events.len() >= 2 || st.timeouts > 0, "{:?}", st.loss_events);

    // A segment and its fast retransmission lost: the duplicate ACKs that
    // follow find the retransmission older than the (doubled) fine-grained
    // timeout and resend it; no coarse timeout, one window cut. Reno's
    // response waits for the RTO.
    let b = run_with(VegasLoss::Brakmo, &[], Some(100 * M));
    let st = b.a.stats();
    assert_eq!((st.timeouts, st.segments_retransmitted), (0, 2), "{:?}", st.loss_events);
    assert_eq!(st.loss_events.len(), 1, "one window cut");
    let r = run_with(VegasLoss::Reno, &[], Some(100 * M));
    assert_eq!(r.a.stats().timeouts, 1);
}

/// Vegas with Brakmo & Peterson's loss response on a bulk sender, two
/// consecutive segments lost: the first is fast-retransmitted, the new ACK
/// its resend brings ends Reno's recovery and the fine-grained check on it
/// resends the second. That resend is the second segment's fast
/// retransmit: the duplicate ACKs still on their way (for segments sent
/// before it) inflate the window and start no further retransmission of
/// it (RFC 5681 3.2 step 4), so each lost segment is sent twice, with one
/// window cut and no timeout.
#[test]
fn vegas_brakmo_no_second_fast_retransmit_after_fine_grained_resend() {
    use wifitcp_tcp::cc::vegas::{Vegas, VegasConfig, VegasLoss};
    use wifitcp_tcp::Connection;
    for v in [Reno, NewReno] {
        let mut s = setup(v);
        s.rate_bps = Some(10_000_000);
        s.cfg_b.delayed_ack = None;
        let mut h = s.build();
        let cc = Vegas::new(VegasConfig { loss_response: VegasLoss::Brakmo, ..VegasConfig::default() });
        h.a = Connection::connect(SimTime::ZERO, cfg(v), Box::new(cc), harness::PORT_A, harness::PORT_B, h.isn_a);
        h.rule(Dir::AtoB, Rule::Offset { off: 300 * M, times: 1 });
        h.rule(Dir::AtoB, Rule::Offset { off: 301 * M, times: 1 });
        h.a.send(1_000 * M);
        deliver(&mut h, 1_000 * M, secs(60));
        let lost: Vec<u32> = h.data_log().filter(|e| e.dropped).map(|e| e.hdr.seq).collect();
        assert_eq!(lost.len(), 2);
        let sends = |seq: u32| h.data_log().filter(|e| e.hdr.seq == seq).count();
        let st = h.a.stats();
        assert_eq!(
            (sends(lost[0]), sends(lost[1]), st.timeouts, st.fine_grained_retransmits),
            (2, 2, 0, 1),
            "{v:?}: {:?}",
            st.loss_events
        );
        assert_eq!(st.loss_events.len(), 1, "{v:?}: one window cut");
    }
}

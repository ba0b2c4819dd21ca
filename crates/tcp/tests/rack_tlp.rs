//! RACK-TLP (RFC 8985, `tcp.rack_tlp`) on the deterministic harness: what
//! it repairs without a retransmission timeout that RFC 6675 alone cannot,
//! and that it keeps the byte stream intact under random loss.
mod harness;

use harness::{Dir, Harness, Rule, Setup};
use wifitcp_core::{SimDur, SimTime};
use wifitcp_tcp::{DelayedAck, RecoveryVariant, RecvBuffer, TcpConfig};

const M: u64 = 1000;
/// The harness's round trip (20 ms each way).
const RTT: SimDur = SimDur::from_millis(40);

fn setup(rack: bool) -> Setup {
    let cfg = TcpConfig {
        mss: M as u32,
        recovery: RecoveryVariant::Sack,
        rack_tlp: rack,
        trace: true,
        recv_buffer: RecvBuffer::Bytes(1 << 20),
        ..TcpConfig::default()
    };
    Setup { cfg_a: cfg.clone(), cfg_b: TcpConfig { trace: false, ..cfg }, ..Setup::default() }
}

fn secs(s: u64) -> SimTime {
    SimTime::from_secs(s)
}

fn deliver(h: &mut Harness, n: u64) -> SimTime {
    assert!(h.run_until(secs(120), |h| h.b.delivered_bytes() >= n), "only {} of {n}", h.b.delivered_bytes());
    h.b.check_stream_integrity().unwrap();
    h.now
}

/// Segment 60 is lost, and so is its fast retransmission. RFC 6675 cannot
/// see a lost retransmission: the RTO (1 s minimum) repairs it. RACK sees
/// that segments sent after the retransmission were SACKed and resends it
/// about one RTT later, without a timeout and without a second reduction.
#[test]
fn rack_repairs_a_lost_retransmission_without_a_timeout() {
    let run = |rack| {
        let mut h = setup(rack).build();
        h.rule(Dir::AtoB, Rule::Offset { off: 60 * M, times: 2 });
        h.a.send(400 * M);
        let end = deliver(&mut h, 400 * M);
        (h, end)
    };
    let (h, end_plain) = run(false);
    let st = h.a.stats();
    assert_eq!((st.fast_retransmits, st.timeouts), (1, 1), "RFC 6675 alone needs the RTO");
    let (h, end_rack) = run(true);
    let st = h.a.stats();
    assert_eq!((st.fast_retransmits, st.timeouts), (1, 0), "RACK repairs it in recovery");
    assert!(st.rack_marked_lost >= 1);
    let rtx: Vec<SimTime> = h.data_log().filter(|e| e.rtx).map(|e| e.t).collect();
    assert_eq!(rtx.len(), 2, "the segment is sent three times in all: {rtx:?}");
    let gap = rtx[1] - rtx[0];
    assert!(gap >= RTT && gap < RTT * 2, "RACK resends one RTT (+ reordering window 0) later: {gap:?}");
    // (the RTO, 1 s after the last cumulative ACK before the hole, ends
    // the plain transfer 360 ms after RACK's)
    assert!(end_rack + SimDur::from_millis(300) < end_plain, "{end_rack:?} vs {end_plain:?}");
}

/// The last two segments of a transfer are lost: no later segment can
/// produce duplicate ACKs. Without TLP the RTO repairs them; with TLP a
/// probe (the last segment again) about 2 SRTT after the last
/// transmission draws a SACK, RACK marks the other one lost, and one
/// recovery repairs both long before the RTO.
#[test]
fn tlp_repairs_a_tail_loss_without_a_timeout() {
    let n = 100 * M;
    let run = |rack| {
        let mut h = setup(rack).build();
        // no delayed ACK: the probe's SACK comes back at once
        h.b = wifitcp_tcp::Connection::listen(
            TcpConfig { delayed_ack: None, ..setup(rack).cfg_b },
            Box::new(wifitcp_tcp::Reno::new()),
            harness::PORT_B,
            h.isn_b,
        );
        h.rule(Dir::AtoB, Rule::Offset { off: 98 * M, times: 1 });
        h.rule(Dir::AtoB, Rule::Offset { off: 99 * M, times: 1 });
        h.a.send(n);
        let end = deliver(&mut h, n);
        (h, end)
    };
    let (h, end_plain) = run(false);
    assert_eq!(h.a.stats().timeouts, 1);
    let (h, end_rack) = run(true);
    let st = h.a.stats();
    assert_eq!((st.timeouts, st.tlp_probes), (0, 1), "{st:?}");
    assert!(end_rack + SimDur::from_millis(500) < end_plain, "{end_rack:?} vs {end_plain:?}");
    // the probe goes out 2 SRTT after the last transmission (SRTT = the
    // harness's 40 ms plus serialisation: between 2 and 3 RTT)
    let last_new = h.data_log().filter(|e| !e.rtx).map(|e| e.t).max().unwrap();
    let probe = h.data_log().filter(|e| e.rtx).map(|e| e.t).min().unwrap();
    let wait = probe - last_new;
    assert!(wait >= RTT * 2 && wait <= RTT * 3, "PTO {wait:?}");
}

/// The byte stream arrives whole and in order with RACK-TLP under random
/// loss in both directions, with and without delayed ACKs and timestamps.
#[test]
fn byte_stream_integrity_under_random_loss_with_rack_tlp() {
    let n = 120 * M + 337;
    for p in [0.01, 0.05, 0.1, 0.2] {
        for seed in 0..25u64 {
            let mut s = setup(true);
            s.cfg_a.timestamps = seed % 2 == 0;
            s.cfg_b.timestamps = seed % 3 != 0;
            s.cfg_b.delayed_ack = if seed % 4 == 1 { None } else { Some(DelayedAck::default()) };
            s.cfg_a.min_rto = SimDur::from_millis(200);
            s.cfg_b.recv_buffer = RecvBuffer::Segments(if seed % 2 == 0 { 16 } else { 64 });
            s.rate_bps = Some(20_000_000);
            let mut h = s.build();
            h.random_loss(Dir::AtoB, seed, p);
            h.random_loss(Dir::BtoA, seed, p);
            h.a.send(n);
            h.a.close(h.now);
            let ok = h.run_until(secs(3_000), |h| h.b.peer_closed() && h.a.all_acked());
            assert!(ok, "p={p} seed={seed}: delivered {}", h.b.delivered_bytes());
            assert_eq!(h.b.delivered_bytes(), n, "p={p} seed={seed}");
            h.b.check_stream_integrity().unwrap_or_else(|e| panic!("p={p} seed={seed}: {e}"));
        }
    }
}

/// Under 5 % random loss RACK-TLP needs fewer timeouts than RFC 6675
/// alone over the same loss patterns (it repairs lost retransmissions and
/// tail losses in recovery).
#[test]
fn rack_tlp_needs_fewer_timeouts_under_random_loss() {
    let timeouts = |rack| {
        let mut total = 0;
        for seed in 0..20u64 {
            let mut s = setup(rack);
            s.cfg_a.min_rto = SimDur::from_millis(200);
            s.rate_bps = Some(20_000_000);
            let mut h = s.build();
            h.random_loss(Dir::AtoB, seed, 0.05);
            h.a.send(300 * M);
            deliver(&mut h, 300 * M);
            total += h.a.stats().timeouts;
        }
        total
    };
    let (plain, rack) = (timeouts(false), timeouts(true));
    assert!(rack * 2 < plain, "timeouts: RFC 6675 {plain}, RACK-TLP {rack}");
}

use super::*;
use crate::mac::frame::FrameKind;
use wifitcp_core::{PacketId, SimDur, SimTime};

fn us(x: u64) -> SimTime {
    SimTime::ZERO + SimDur::from_micros(x)
}

#[test]
fn a_wait_times_out_unless_a_reception_starts_in_time() {
    // 802.11a: ACK timeout = SIFS 16 + slot 9 + aRxPHYStartDelay 25 = 50 us.
    let (timeout, rxstart) = (SimDur::from_micros(50), SimDur::from_micros(25));
    let mut w = ResponseWait::after(us(100), FrameKind::Ack, timeout);
    assert_eq!(w.timer(), Some(us(150)));
    assert!(w.times_out(us(150)) && !w.times_out(us(149)));
    // Energy at SIFS: the ACK's PHY-RXSTART at 141 us, within the timeout.
    w.energy(us(116), rxstart);
    assert_eq!(w.timer(), None, "the wait now lasts until the reception ends");
    assert!(w.accepts(FrameKind::Ack) && !w.accepts(FrameKind::Cts));
    // A later frame during the same reception does not change the verdict.
    w.energy(us(149), rxstart);
    assert!(!w.late);
    // Energy arriving 26 us after the deadline less the delay: too late.
    let mut w = ResponseWait::after(us(100), FrameKind::Cts, timeout);
    w.energy(us(126), rxstart);
    assert!(w.late && !w.accepts(FrameKind::Cts));
    let mut w = ResponseWait::after(us(100), FrameKind::Cts, timeout);
    w.energy(us(125), rxstart);
    assert!(w.accepts(FrameKind::Cts), "PHY-RXSTART exactly at the deadline counts");
}

#[test]
fn the_receive_cache_tells_duplicates_from_wrapped_sequence_numbers() {
    let mut c = RxCache::default();
    assert_eq!(c.receive(3, 7, false, PacketId(1)), RxVerdict::New);
    assert_eq!(c.receive(3, 7, true, PacketId(1)), RxVerdict::Duplicate);
    // Same number without the Retry bit: a new MPDU (10.3.2.14).
    assert_eq!(c.receive(3, 7, false, PacketId(2)), RxVerdict::New);
    // Retry bit, same number, another packet: the 12-bit counter wrapped.
    assert_eq!(c.receive(3, 7, true, PacketId(9)), RxVerdict::FalseDuplicate);
    // Per transmitter.
    assert_eq!(c.receive(0, 7, true, PacketId(9)), RxVerdict::New);
    // The highest sequence number and a large id, each in its own bits.
    let big = PacketId((1 << 51) + 4095);
    assert_eq!(c.receive(5, 4095, false, big), RxVerdict::New);
    assert_eq!(c.receive(5, 4095, true, big), RxVerdict::Duplicate);
    assert_eq!(c.receive(5, 4095, true, PacketId(big.0 + 1)), RxVerdict::FalseDuplicate);
    assert_eq!(c.receive(5, 4094, true, PacketId(big.0 + 1)), RxVerdict::New);
}

#[test]
fn rts_cts_durations_and_threshold() {
    let (sifs, cts, data, ack) =
        (SimDur::from_micros(16), SimDur::from_micros(28), SimDur::from_micros(248), SimDur::from_micros(28));
    let d = rts_duration(sifs, cts, data, ack);
    assert_eq!(d, SimDur::from_micros(3 * 16 + 28 + 248 + 28));
    assert_eq!(cts_duration(d, sifs, cts), SimDur::from_micros(2 * 16 + 248 + 28));
    assert_eq!(rts_duration(sifs, cts, data, SimDur::ZERO), SimDur::from_micros(2 * 16 + 28 + 248));
    assert!(needs_rts(1501, 1500, true) && !needs_rts(1500, 1500, true) && !needs_rts(1501, 1500, false));
    assert!(!needs_rts(65535, RTS_OFF, true));
    // VHT/HE A-MPDUs exceed 65535 octets; the threshold 65535 still means off.
    assert!(
        !needs_rts(1_000_000, RTS_OFF, true) && !needs_rts(70_000, 65_536, true) && needs_rts(70_000, 65_534, true)
    );
    assert!(answers_rts(us(10), us(10)) && !answers_rts(us(11), us(10)));
}

/// A data frame of MPDUs carrying MSDUs `ids` (taken: the receiver's copy
/// is gone), with ack policy `ack` and FCS outcomes `ok`.
fn data(ids: &[u64], ack: crate::mac::AckPolicy, ok: &[bool]) -> crate::mac::Frame {
    use crate::mac::{Frame, MacAddr, Mpdu, MpduBody, Mpdus};
    let mpdu = |(&id, &fcs_ok): (&u64, &bool)| Mpdu {
        seq: id as u16,
        retry: false,
        tid: 0,
        ack,
        bytes: 1536,
        body: MpduBody::Taken(PacketId(id)),
        fcs_ok,
    };
    let v: Vec<Mpdu> = ids.iter().zip(ok).map(mpdu).collect();
    let mpdus = if v.len() == 1 { Mpdus::one(v.into_iter().next().unwrap()) } else { Mpdus::many(v) };
    Frame {
        mu: None,
        kind: FrameKind::QosData,
        ta: MacAddr(0),
        ra: MacAddr(1),
        duration: SimDur::ZERO,
        seq: 0,
        retry: false,
        mpdu_bytes: 1536 * ids.len() as u32,
        rate: crate::phy::Rate(0),
        airtime: SimDur::from_micros(300),
        contended: true,
        mpdus,
    }
}

#[test]
fn a_no_ack_msdu_is_lost_exactly_when_its_mpdu_does_not_reach_the_receiver() {
    use crate::mac::{AckPolicy, MacOutput};
    use wifitcp_core::DropReason;
    let lost = |out: &[MacOutput]| -> Vec<u64> {
        out.iter()
            .map(|o| match o {
                MacOutput::Dropped(id, DropReason::NoAckLost) => id.0,
                o => panic!("unexpected {o:?}"),
            })
            .collect()
    };
    let mut r = Receipts::default();
    let mut out = Vec::new();
    r.verdict(&data(&[1], AckPolicy::NoAck, &[true]), true, &mut out);
    assert!(out.is_empty(), "a received No Ack MSDU is not lost");
    r.verdict(&data(&[2], AckPolicy::NoAck, &[true]), false, &mut out);
    assert_eq!(lost(&out), [2], "a PPDU its receiver did not get loses its MSDU");
    out.clear();
    // An aggregate of No Ack MPDUs: only the MPDU whose FCS failed is lost.
    r.verdict(&data(&[3, 4, 5], AckPolicy::NoAck, &[true, false, true]), true, &mut out);
    assert_eq!(lost(&out), [4]);
    out.clear();
    // Acknowledged MPDUs are never the verdict's to drop: the exchange retries them.
    r.verdict(&data(&[6], AckPolicy::Normal, &[false]), false, &mut out);
    assert!(out.is_empty());
}

#[test]
fn a_discard_at_the_retry_limit_says_whether_the_receiver_had_the_msdu() {
    use crate::mac::{AckPolicy, MacOutput};
    use wifitcp_core::DropReason;
    let mut r = Receipts::default();
    let mut out = Vec::new();
    // MSDU 7 reached its receiver (its ACK was lost), MSDU 8 never did.
    r.verdict(&data(&[7], AckPolicy::Normal, &[true]), true, &mut out);
    r.verdict(&data(&[8], AckPolicy::Normal, &[false]), false, &mut out);
    assert!(matches!(r.discard(PacketId(7)), MacOutput::DiscardedAfterReceipt(PacketId(7))));
    assert!(matches!(r.discard(PacketId(8)), MacOutput::Dropped(PacketId(8), DropReason::RetryLimit)));
    // Block Ack: every MPDU of an aggregate that got through is logged, the
    // last MSDU alone would not do.
    r.verdict(&data(&[10, 11, 12], AckPolicy::BlockAck, &[true, false, true]), true, &mut out);
    assert!(r.reached(PacketId(10)) && r.reached(PacketId(12)) && !r.reached(PacketId(11)));
    // The log of a station that keeps several outstanding is bounded.
    for id in 100..100 + SEVERAL as u64 {
        r.verdict(&data(&[id], AckPolicy::BlockAck, &[true]), true, &mut out);
    }
    assert!(!r.reached(PacketId(10)) && r.reached(PacketId(100)));
    assert!(out.is_empty());
}

#[test]
fn a_limit_counts_attempts_and_a_cts_restarts_only_the_short_count() {
    let (short, long) = (RetryLimit(7), RetryLimit(4));
    let mut r = RetryCounts::default();
    // Six failed RTS attempts, then a CTS: the short count starts over.
    for _ in 0..6 {
        assert!(!r.fail(Count::Short, short, long));
    }
    r.cts_received();
    assert_eq!(r.counts(), (0, 0));
    assert!(!r.any());
    // Data after the CTS fails: the long count is not reset by later CTSs,
    // the fourth failure is the fourth attempt, and the limit.
    for i in 1..=3 {
        assert!(!r.fail(Count::Long, short, long));
        r.cts_received();
        assert_eq!(r.counts(), (0, i));
    }
    assert!(r.fail(Count::Long, short, long), "dot11LongRetryLimit 4: four attempts");
    // Without RTS/CTS the seventh failure discards (dot11ShortRetryLimit 7).
    let mut r = RetryCounts::default();
    let discards: Vec<bool> = (0..7).map(|_| r.fail(Count::Short, short, long)).collect();
    assert_eq!(discards, [false, false, false, false, false, false, true]);
    assert!(RetryLimit(1).reached(1) && !RetryLimit(2).reached(1));
}

fn frame(kind: FrameKind, mpdus: usize, ack: crate::mac::frame::AckPolicy) -> crate::mac::frame::Frame {
    use crate::mac::frame::{Frame, MacAddr, Mpdu, MpduBody, Mpdus};
    let m = |seq| Mpdu { seq, retry: false, tid: 0, ack, bytes: 100, body: MpduBody::Empty, fcs_ok: false };
    let mpdus = match mpdus {
        0 => Mpdus::none(),
        1 => Mpdus::one(m(0)),
        n => Mpdus::many((0..n as u16).map(m).collect()),
    };
    Frame {
        mu: None,
        kind,
        ta: MacAddr(1),
        ra: MacAddr(0),
        duration: SimDur::from_micros(44),
        seq: 0,
        retry: false,
        mpdu_bytes: 100,
        rate: crate::phy::Rate(54_000),
        airtime: SimDur::from_micros(40),
        contended: true,
        mpdus,
    }
}

#[test]
fn what_follows_a_frame_is_read_from_its_kind_and_ack_policy() {
    use crate::mac::frame::AckPolicy::{BlockAck, NoAck, Normal};
    assert_eq!(After::of(&frame(FrameKind::Rts, 0, Normal)), After::Await(FrameKind::Cts));
    assert_eq!(After::of(&frame(FrameKind::BlockAckReq, 0, Normal)), After::Await(FrameKind::BlockAck));
    assert_eq!(After::of(&frame(FrameKind::Data, 1, Normal)), After::Await(FrameKind::Ack));
    // An A-MPDU under Normal Ack is the implicit BlockAckReq (10.25.6.4).
    assert_eq!(After::of(&frame(FrameKind::QosData, 4, Normal)), After::Await(FrameKind::BlockAck));
    assert_eq!(After::of(&frame(FrameKind::QosData, 1, NoAck)), After::NoAckDone);
    assert_eq!(After::of(&frame(FrameKind::QosData, 1, BlockAck)), After::Block);
    for k in [FrameKind::Ack, FrameKind::Cts, FrameKind::BlockAck, FrameKind::QosNull, FrameKind::QosCfPoll] {
        assert_eq!(After::of(&frame(k, 0, Normal)), After::Nothing, "{k:?}");
    }
    assert!(After::NoAckDone.frees_medium() && !After::Block.frees_medium());
}

#[test]
fn a_sequence_waits_protects_and_keeps_its_timer() {
    let (timeout, rxstart, sifs) = (SimDur::from_micros(50), SimDur::from_micros(25), SimDur::from_micros(16));
    let mut s: Sequence<crate::mac::frame::Frame> = Sequence::default();
    assert!(!s.under_way() && s.timer() == SimTime::NEVER);
    // An RTS protecting a data frame: its Duration covers CTS, data, ACK.
    let data = frame(FrameKind::Data, 1, crate::mac::frame::AckPolicy::Normal);
    let rts = rts_for(&data, sifs, SimDur::from_micros(28), crate::phy::Rate(6_000), SimDur::from_micros(52));
    assert_eq!(rts.duration, SimDur::from_micros(16 * 3 + 28 + 40 + 28));
    assert!(rts.contended);
    let rts = s.protect(data, rts);
    assert!(s.protected().is_some_and(|f| !f.contended), "the data frame after a CTS is not contended");
    s.started(After::of(&rts));
    assert!(s.under_way() && s.timer() == SimTime::NEVER);
    assert_eq!(s.ended(us(100), timeout), After::Await(FrameKind::Cts));
    assert_eq!(s.timer(), us(150));
    assert_eq!(s.times_out(us(150)), Some(FrameKind::Cts));
    // The CTS's energy at SIFS: no timeout while it is received.
    s.energy(us(116), rxstart);
    assert_eq!((s.timer(), s.times_out(us(150))), (SimTime::NEVER, None));
    assert!(s.reception_ended_without_response());
    s.cts_arrived(us(160), sifs);
    assert!(s.protected().is_none() && s.awaiting().is_none());
    assert_eq!(s.timer(), us(176));
    assert!(s.take_due(us(175)).is_none());
    let f = s.take_due(us(176)).expect("the protected frame is due SIFS after the CTS");
    assert_eq!((f.kind, s.timer()), (FrameKind::Data, SimTime::NEVER));
    // A failed exchange drops the protected frame once.
    let rts = s.protect(f, rts);
    s.started(After::of(&rts));
    s.ended(us(300), timeout);
    s.close();
    assert!(s.drop_protected() && !s.drop_protected());
    assert!(!s.under_way());
}

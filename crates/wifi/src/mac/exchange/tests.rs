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
    assert!(answers_rts(us(10), us(10)) && !answers_rts(us(11), us(10)));
}

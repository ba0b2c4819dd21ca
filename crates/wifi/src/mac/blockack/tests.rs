use super::*;
use proptest::prelude::*;

#[test]
fn sequence_number_order_wraps() {
    assert!(sn_lt(4095, 0));
    assert!(sn_lt(10, 11));
    assert!(!sn_lt(11, 10));
    assert!(!sn_lt(0, 2048));
    assert_eq!(sn_add(4095, 2), 1);
    assert_eq!(sn_dist(4090, 3), 9);
}

#[test]
fn in_order_mpdus_pass_up_at_once() {
    let mut r = Recipient::new(0, 8);
    for sn in 0..5u16 {
        assert_eq!(r.on_mpdu(sn, sn), vec![sn]);
    }
    assert_eq!(r.block_ack(), (5, Bitmap::from_u64(0)));
}

#[test]
fn a_hole_holds_later_mpdus_until_the_retransmission() {
    let mut r = Recipient::new(0, 8);
    assert!(r.on_mpdu(1, 1).is_empty());
    assert!(r.on_mpdu(2, 2).is_empty());
    // Bit 0 (SN 0) missing, bits 1 and 2 set.
    assert_eq!(r.block_ack(), (0, Bitmap::from_u64(0b110)));
    assert_eq!(r.on_mpdu(0, 0), vec![0, 1, 2]);
    // A retransmitted copy of something passed up is a duplicate.
    assert!(r.on_mpdu(1, 1).is_empty());
    assert_eq!(r.duplicates, 1);
}

#[test]
fn block_ack_req_gives_up_on_a_hole() {
    let mut r = Recipient::new(4094, 8);
    assert!(r.on_mpdu(4095, 1).is_empty());
    assert!(r.on_mpdu(0, 2).is_empty());
    assert_eq!(r.on_bar(4095), vec![1, 2]);
    assert_eq!(r.skipped, 1);
    assert_eq!(r.win_start(), 1);
    // A BAR behind the window changes nothing.
    assert!(r.on_bar(4000).is_empty());
    assert_eq!(r.win_start(), 1);
}

#[test]
fn an_mpdu_beyond_the_window_moves_it() {
    let mut r = Recipient::new(0, 4);
    assert!(r.on_mpdu(1, 1).is_empty());
    // SN 5 > WinEndB = 3: the window becomes 2..5; SN 0 is skipped, 1
    // passed up; 5 is buffered behind the holes at 2..4.
    assert_eq!(r.on_mpdu(5, 5), vec![1]);
    assert_eq!(r.win_start(), 2);
    assert_eq!(r.block_ack(), (2, Bitmap::from_u64(0b1000)));
}

#[test]
fn a_256_mpdu_window_uses_the_whole_bitmap() {
    // An HE agreement of 256 MPDUs: SN 4090..4095 and 0..249 (wrapping),
    // SN 150 and the last one lost; the recipient's bitmap has bits 0-255
    // but those two, and the originator retries exactly those.
    let mut o = Originator::new(4090, 256, 3);
    let mut r: Recipient<u16> = Recipient::new(4090, 256);
    let mut sns = Vec::new();
    for i in 0..256u16 {
        sns.push(o.accept(i).unwrap());
    }
    assert!(!o.can_accept());
    let mut up = 0;
    for &sn in &sns {
        o.sent(sn);
        if sn != 150 && sn != 249 {
            up += r.on_mpdu(sn, sn).len();
        }
    }
    let (ssn, bm) = r.block_ack();
    assert_eq!(ssn, 150);
    assert_eq!(up, 156);
    let mut full = Bitmap::default();
    for i in 0..256 {
        full.set(i);
    }
    assert!(!bm.bit(0) && bm.bit(1) && bm.bit(98) && !bm.bit(99) && !bm.bit(256));
    assert_eq!(bm.count_ones(), 98);
    let out = o.on_block_ack(4090, full);
    assert_eq!(out.acked.len(), 256);
    let mut o2 = Originator::new(4090, 256, 3);
    for i in 0..256u16 {
        let sn = o2.accept(i).unwrap();
        o2.sent(sn);
    }
    // The originator's view of the recipient's answer: bits relative to 4090.
    let mut bits = Bitmap::default();
    for (i, &sn) in sns.iter().enumerate() {
        if sn != 150 && sn != 249 {
            bits.set(i as u16);
        }
    }
    let out = o2.on_block_ack(4090, bits);
    assert_eq!((out.acked.len(), out.to_retry), (254, 2));
    assert_eq!(o2.pending().map(|(sn, _)| sn).collect::<Vec<_>>(), vec![150, 249]);
}

#[test]
fn originator_window_and_retries() {
    let mut o = Originator::new(0, 4, 2);
    for i in 0..4 {
        assert_eq!(o.accept(i), Ok(i));
    }
    assert_eq!(o.accept(9), Err(9));
    for sn in 0..4 {
        o.sent(sn);
    }
    // SN 1 and 3 lost.
    let out = o.on_block_ack(0, Bitmap::from_u64(0b0101));
    assert_eq!(out.acked, vec![0, 2]);
    assert_eq!(out.to_retry, 2);
    assert_eq!(o.win_start(), 1);
    assert_eq!(o.pending().map(|(sn, _)| sn).collect::<Vec<_>>(), vec![1, 3]);
    assert!(o.can_accept());
    // Second attempt times out: both reach the retry limit.
    o.sent(1);
    o.sent(3);
    let out = o.on_timeout();
    assert_eq!(out.dropped, vec![1, 3]);
    assert_eq!(o.take_bar(), Some(4));
    assert_eq!(o.take_bar(), None);
}

/// One agreement under random MPDU and BlockAck loss: the recipient passes
/// up items in order, each once; everything acknowledged is passed up;
/// nothing is lost without the originator dropping it.
fn run(win: u16, retry: u32, per_mpdu_loss: &[bool], ba_loss: &[bool], n_items: u32) {
    let mut o = Originator::new(4090, win, retry);
    let mut r = Recipient::new(4090, win);
    let (mut next, mut up, mut acked, mut dropped) = (0u32, Vec::new(), Vec::new(), Vec::new());
    let mut k = 0usize;
    for round in 0..(4 * n_items as usize + 8) {
        if let Some(ssn) = o.take_bar() {
            up.extend(r.on_bar(ssn));
        }
        while next < n_items && o.can_accept() {
            o.accept(next).unwrap();
            next += 1;
        }
        let batch: Vec<(u16, u32)> = o.pending().map(|(sn, &x)| (sn, x)).collect();
        if batch.is_empty() {
            break;
        }
        for &(sn, x) in &batch {
            o.sent(sn);
            let lost = per_mpdu_loss[k % per_mpdu_loss.len()];
            k += 1;
            if !lost {
                up.extend(r.on_mpdu(sn, x));
            }
        }
        let out = if ba_loss[round % ba_loss.len()] {
            o.on_timeout()
        } else {
            let (ssn, bm) = r.block_ack();
            o.on_block_ack(ssn, bm)
        };
        acked.extend(out.acked);
        dropped.extend(out.dropped);
    }
    // Flush what the recipient still holds (as a final BAR would).
    if let Some(ssn) = o.take_bar() {
        up.extend(r.on_bar(ssn));
    }
    up.extend(r.on_bar(sn_add(r.win_start(), win)));
    assert!(up.windows(2).all(|w| w[0] < w[1]), "out of order or twice: {up:?}");
    for a in &acked {
        assert!(up.contains(a), "acked {a} never passed up");
    }
    for x in 0..next {
        let outstanding = !acked.contains(&x) && !dropped.contains(&x);
        assert!(up.contains(&x) || dropped.contains(&x) || outstanding, "{x} lost");
    }
    assert_eq!(acked.len() + dropped.len() + o.outstanding(), next as usize);
}

proptest! {
    #[test]
    fn random_loss_keeps_order_and_conservation(
        win in 1u16..=64,
        retry in 1u32..=7,
        mpdu in proptest::collection::vec(proptest::bool::weighted(0.3), 1..50),
        ba in proptest::collection::vec(proptest::bool::weighted(0.2), 1..10),
        n in 1u32..300,
    ) {
        run(win, retry, &mpdu, &ba, n);
    }
}

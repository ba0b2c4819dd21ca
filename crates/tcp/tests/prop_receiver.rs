//! Property test (proptest, with shrinking) of the TCP receive side: a
//! byte stream cut into segments arrives with random loss, duplication,
//! reordering and re-segmented retransmissions, with the application
//! reading at random; then the sender repairs what is missing, in order.
//! Whatever the arrival pattern, the receiver must deliver exactly the
//! stream, once, in order (RFC 9293 3.10.7.4 segment acceptance and
//! 3.4 reassembly; RFC 2018 SACK blocks above the cumulative point).
use proptest::prelude::*;
use wifitcp_core::SimTime;
use wifitcp_tcp::recv::Receiver;

#[derive(Clone, Debug)]
enum Arrival {
    /// Segment `k` of the original cut (modulo their number).
    Segment(usize),
    /// Bytes [stream offset, + len) as a retransmission cut differently.
    Range(u64, u64),
    /// The application reads up to this many bytes.
    Read(u64),
}

fn arrival() -> impl Strategy<Value = Arrival> {
    prop_oneof![
        6 => (0usize..1000).prop_map(Arrival::Segment),
        2 => (0u64..60_000, 1u64..4000).prop_map(|(s, l)| Arrival::Range(s, l)),
        1 => (0u64..20_000).prop_map(Arrival::Read),
    ]
}

fn check(total: u64, mss: u64, buf: u64, auto: bool, arrivals: &[Arrival]) -> Result<(), TestCaseError> {
    let mut rx = Receiver::new(buf, mss as u32, auto, None);
    rx.window();
    let n_seg = total.div_ceil(mss) as usize;
    let seg = |k: usize| -> (u64, u64) {
        let s = 1 + k as u64 * mss;
        (s, mss.min(1 + total - s))
    };
    let mut read = 0u64;
    let mut last_nxt = rx.rcv_nxt();
    let now = SimTime::ZERO;
    let mut deliver = |rx: &mut Receiver, start: u64, len: u64, read: &mut u64| -> Result<(), TestCaseError> {
        let end = (start + len).min(1 + total);
        if end <= start {
            return Ok(());
        }
        let fin = end == 1 + total;
        rx.on_data(now, start, end - start, fin);
        prop_assert!(rx.rcv_nxt() >= last_nxt, "rcv_nxt moved back");
        last_nxt = rx.rcv_nxt();
        prop_assert!(rx.delivered_bytes() <= total);
        for (l, r) in rx.sack_blocks(4) {
            prop_assert!(l > rx.rcv_nxt() && l < r, "SACK block ({l}, {r}) not above rcv_nxt {}", rx.rcv_nxt());
        }
        if !auto {
            prop_assert_eq!(rx.delivered_bytes(), *read + rx.unread());
        }
        rx.check_stream_integrity().map_err(TestCaseError::fail)?;
        rx.window();
        Ok(())
    };
    for a in arrivals {
        match *a {
            Arrival::Segment(k) => {
                let (s, l) = seg(k % n_seg);
                deliver(&mut rx, s, l, &mut read)?;
            }
            Arrival::Range(s, l) => deliver(&mut rx, 1 + s % total, l, &mut read)?,
            Arrival::Read(m) => {
                if !auto {
                    read += rx.read(m).0;
                    rx.window();
                }
            }
        }
    }
    // Repair: the sender retransmits from the cumulative point, the
    // application reads everything.
    let mut guard = 0;
    while !rx.fin_consumed() {
        if !auto {
            read += rx.read(u64::MAX).0;
        }
        rx.window();
        let s = rx.rcv_nxt();
        deliver(&mut rx, s, mss, &mut read)?;
        guard += 1;
        prop_assert!(guard <= total + 100, "no progress at {s}");
    }
    if !auto {
        read += rx.read(u64::MAX).0;
        prop_assert_eq!(read, total);
    }
    prop_assert_eq!(rx.delivered_bytes(), total);
    prop_assert_eq!(rx.rcv_nxt(), total + 2, "data and FIN consumed");
    prop_assert_eq!(rx.ooo_bytes(), 0);
    rx.check_stream_integrity().map_err(TestCaseError::fail)?;
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn receiver_delivers_the_stream_once_in_order(
        total in 1u64..60_000,
        mss in prop_oneof![Just(536u64), Just(1460), 1u64..3000],
        buf in prop_oneof![Just(65_535u64), 3000u64..200_000],
        auto in any::<bool>(),
        arrivals in proptest::collection::vec(arrival(), 0..300),
    ) {
        check(total, mss, buf, auto, &arrivals)?;
    }
}

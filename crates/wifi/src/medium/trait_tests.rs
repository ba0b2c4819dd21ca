//! The medium driven by a MAC that is not the DCF: a point-coordinator-like
//! sender that transmits an A-MPDU PIFS after the medium turns idle,
//! without contention, and a receiver that answers each aggregate with a
//! BlockAck after SIFS. Checks that the medium needs nothing of the DCF
//! (no bystander capability, other frame kinds), that the MSDUs reach the
//! receiver as owned packets taken from the frame, and that an aggregate's
//! MPDUs get their own error outcomes with the probability `Bss::judge`
//! states.
use super::*;
use crate::mac::{AckPolicy, FrameKind, MacCounters, Mpdu, MpduBody, Mpdus};
use crate::phy::{PhyConfig, PhyStandard, PhyTiming};
use wifitcp_core::{EventQueue, FlowId, SimDur};
use wifitcp_wire::ip::PROTO_UDP;
use wifitcp_wire::{Ipv4Addr, Ipv4Header, UdpHeader};

const MPDUS: usize = 4;
const MPDU_BYTES: u32 = 1000;

fn pkt(id: u64) -> Packet {
    let ip = Ipv4Header::new(Ipv4Addr::new(10, 0, 0, 1), Ipv4Addr::new(10, 0, 0, 2), PROTO_UDP);
    Packet::new_udp(PacketId(id), FlowId(0), SimTime::ZERO, ip, UdpHeader { src_port: 1, dst_port: 2 }, 964)
}

struct Toy {
    addr: MacAddr,
    timing: PhyTiming,
    /// Sender: when it sends its next aggregate; receiver: when it sends
    /// its BlockAck.
    at: SimTime,
    next_id: u64,
    /// Receiver: the bitmap of the last aggregate.
    bitmap: crate::mac::blockack::Bitmap,
    /// Sender: MPDUs acknowledged by BlockAcks, aggregates sent.
    acked: u64,
    sent: u64,
    counters: MacCounters,
}

impl Toy {
    fn new(addr: u32) -> Toy {
        let timing = PhyTiming::from_config(&PhyConfig::new(PhyStandard::Dot11a, 54.0)).unwrap();
        let pifs = timing.sifs + timing.slot; // 10.3.2.3.4
        let at = if addr == 0 { SimTime::ZERO + pifs } else { SimTime::NEVER };
        Toy {
            addr: MacAddr(addr),
            timing,
            at,
            next_id: 0,
            bitmap: Default::default(),
            acked: 0,
            sent: 0,
            counters: MacCounters::default(),
        }
    }
    fn aggregate(&mut self) -> Frame {
        let mpdus: Vec<Mpdu> = (0..MPDUS)
            .map(|i| {
                self.next_id += 1;
                Mpdu {
                    seq: i as u16,
                    retry: false,
                    tid: 0,
                    ack: AckPolicy::Normal,
                    bytes: MPDU_BYTES,
                    body: MpduBody::Msdu(crate::mac::Msdu::new(pkt(self.next_id))),
                    fcs_ok: false,
                }
            })
            .collect();
        let bytes = MPDU_BYTES * MPDUS as u32;
        Frame {
            mu: None,
            kind: FrameKind::QosData,
            ta: self.addr,
            ra: MacAddr(1),
            duration: SimDur::ZERO,
            seq: 0,
            retry: false,
            mpdu_bytes: bytes,
            rate: self.timing.data_rate,
            airtime: self.timing.data_time(bytes),
            contended: false,
            mpdus: Mpdus::many(mpdus),
        }
    }
}

impl Mac for Toy {
    fn addr(&self) -> MacAddr {
        self.addr
    }
    fn timing(&self) -> &PhyTiming {
        &self.timing
    }
    fn demand(&self) -> Option<Demand> {
        None
    }
    fn give_msdu(&mut self, _: SimTime, _: Packet, _: MacAddr, _: &mut impl MacSink) {
        unreachable!("the toy MAC makes its own MSDUs")
    }
    fn on_cca(&mut self, _: SimTime, _: bool, _: &mut impl MacSink) {}
    fn idle_may_emit(&self) -> bool {
        false
    }
    fn on_rx_end(&mut self, now: SimTime, f: &mut Frame, ok: bool, out: &mut impl MacSink) {
        if f.ra != self.addr {
            return;
        }
        match f.kind {
            FrameKind::QosData => {
                self.bitmap = Default::default();
                for (i, m) in f.mpdus.as_mut_slice().iter_mut().enumerate() {
                    if m.fcs_ok {
                        self.bitmap.set(i as u16);
                        out.push(MacOutput::Deliver { from: f.ta, pkt: m.take_msdu().expect("an MSDU") });
                    }
                }
                assert_eq!(ok, self.bitmap != Default::default(), "the PPDU is received iff some MPDU is");
                if ok {
                    self.at = now + self.timing.sifs;
                }
            }
            FrameKind::BlockAck => {
                let Some(MpduBody::BlockAck { bitmap, .. }) = f.mpdus.first().map(|m| &m.body) else {
                    panic!("a BlockAck without its bitmap")
                };
                self.acked += bitmap.count_ones() as u64;
                self.at = now + self.timing.sifs + self.timing.slot;
            }
            k => panic!("unexpected {k:?}"),
        }
    }
    // Acknowledged MPDUs only, never discarded: nothing to settle.
    fn on_verdict(&mut self, _: SimTime, _: &Frame, _: bool, _: &mut impl MacSink) {}
    fn on_tx_end(&mut self, now: SimTime, _: &mut impl MacSink) {
        if self.addr.0 == 0 {
            // No BlockAck within the timeout: next aggregate after it.
            self.at = now + self.timing.ack_timeout() + self.timing.sifs + self.timing.slot;
        }
    }
    fn on_wake(&mut self, now: SimTime, out: &mut impl MacSink) {
        assert_eq!(now, self.at);
        self.at = SimTime::NEVER;
        let f = if self.addr.0 == 0 {
            self.sent += 1;
            self.aggregate()
        } else {
            Frame {
                mu: None,
                kind: FrameKind::BlockAck,
                ta: self.addr,
                ra: MacAddr(0),
                duration: SimDur::ZERO,
                seq: 0,
                retry: false,
                mpdu_bytes: 32,
                rate: self.timing.control_rate,
                airtime: self.timing.tx_time(32, self.timing.control_rate),
                contended: false,
                mpdus: Mpdus::one(Mpdu {
                    seq: 0,
                    retry: false,
                    tid: 0,
                    ack: AckPolicy::Normal,
                    bytes: 32,
                    body: MpduBody::BlockAck { tid: 0, start_seq: 0, bitmap: Box::new(self.bitmap) },
                    fcs_ok: false,
                }),
            }
        };
        out.push(MacOutput::StartTx(f));
    }
    fn next_wakeup(&self) -> SimTime {
        self.at
    }
    fn held(&self) -> impl Iterator<Item = &Packet> {
        std::iter::empty()
    }
    fn counters(&self) -> MacCounters {
        self.counters.clone()
    }
}

#[test]
fn a_non_dcf_mac_sends_aggregates_with_per_mpdu_outcomes() {
    let per = 0.5;
    let errors = FixedPer { uplink: vec![0.0; 2], downlink: vec![0.0, per], is_ap: vec![true, false] };
    let mut bss = Bss::new(vec![Toy::new(0), Toy::new(1)], Box::new(errors), RngStream::derive(7, "medium"));
    let mut q = EventQueue::new();
    let mut out = Vec::new();
    bss.reschedule_all(&mut out);
    let mut delivered = 0u64;
    let mut ids = std::collections::HashSet::new();
    let end = SimTime::from_micros(2_000_000);
    loop {
        for o in out.drain(..) {
            match o {
                BssOutput::Wake { at } => {
                    q.push(at, u32::MAX);
                }
                BssOutput::TxEnd { id, n, at } => {
                    for id in BssOutput::tx_ids(id, n) {
                        q.push(at, id);
                    }
                }
                BssOutput::Deliver { sta, from, pkt } => {
                    assert_eq!((sta, from), (1, 0));
                    assert!(ids.insert(pkt.id), "an MSDU delivered twice");
                    delivered += 1;
                }
                o => panic!("unexpected {o:?}"),
            }
        }
        let Some((now, ev)) = q.pop() else { break };
        if now > end {
            break;
        }
        if ev == u32::MAX {
            bss.wake(now, &mut out);
        } else {
            bss.tx_end(now, ev, &mut out);
        }
    }
    let (tx, rx) = (&bss.macs[0], &bss.macs[1]);
    assert!(tx.sent > 1000, "{} aggregates", tx.sent);
    // Every MPDU delivered was acknowledged, unless its BlockAck was the
    // one still due at the end.
    assert!(tx.acked <= delivered && delivered - tx.acked <= MPDUS as u64);
    let _ = rx;
    // Each of the 4 equal MPDUs gets through with probability
    // (1 - per)^(1/4) = 0.8409; 4 * sent draws: 3 sigma is about 0.01.
    let expect = (1.0 - per).powf(0.25);
    let got = delivered as f64 / (tx.sent * MPDUS as u64) as f64;
    assert!((got - expect).abs() < 0.015, "MPDU success {got:.4}, expected {expect:.4}");
    // Grouping needs the bystander capability: off, whatever was asked.
    bss.set_grouping(true);
    assert!(!bss.grouping);
}

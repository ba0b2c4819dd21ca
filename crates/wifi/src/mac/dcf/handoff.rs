//! What a point coordination function (`mac::pcf`) needs of the DCF it
//! runs beside (10.4: a CF-pollable station and the point coordinator keep
//! the DCF for the contention period): lend the MSDU in service to a
//! contention-free exchange and take it back, receive a data frame without
//! answering it with an ACK (in the CFP the answer is a CF-Ack piggybacked
//! on the next frame, 10.4.4.1), and reset the NAV at a CF-End (10.4.3.3).
//!
//! Invariants: an MSDU lent out keeps its sequence number and Retry state
//! (so the receiver's duplicate filter, 10.3.2.14, works across the CFP and
//! the CP); the DCF lends only while no frame exchange of its own is under
//! way; the receive path shares the DCF's duplicate cache.
use super::{Dcf, DcfParams, InService, Service};
use crate::mac::exchange::Count;
use crate::mac::frame::{AckPolicy, Frame, FrameKind, MacAddr, MacSink, Mpdu, MpduBody, Mpdus};
use crate::phy::PhyTiming;
use wifitcp_core::{PacketId, SimDur, SimTime};
use wifitcp_wire::Packet;

/// An MSDU taken out of the DCF for a contention-free exchange.
#[derive(Debug)]
pub struct Withdrawn(InService);

impl Withdrawn {
    pub fn id(&self) -> PacketId {
        self.0.pkt.id
    }
    pub fn ra(&self) -> MacAddr {
        self.0.ra
    }
    pub fn packet(&self) -> &Packet {
        &self.0.pkt
    }
    pub fn mpdu_bytes(&self) -> u32 {
        self.0.mpdu_bytes
    }
    /// A data frame of kind `kind` carrying the MSDU at the PHY's data rate
    /// (no rate control in the CFP; 802.11n: one MPDU in an HT-mixed PPDU), with Duration `duration`; marks the
    /// MSDU as sent (later frames of it carry the Retry bit, 9.2.4.1.6).
    pub fn frame(&mut self, ta: MacAddr, kind: FrameKind, t: &PhyTiming, duration: SimDur) -> Frame {
        let c = &mut self.0;
        let rate = t.data_rate;
        let f = Frame {
            mu: None,
            kind,
            ta,
            ra: c.ra,
            duration,
            seq: c.seq,
            retry: c.data_sent,
            mpdu_bytes: c.mpdu_bytes,
            rate,
            airtime: t.data_ppdu_time(c.mpdu_bytes),
            contended: false,
            mpdus: Mpdus::one(Mpdu {
                seq: c.seq,
                retry: c.data_sent,
                tid: 0,
                ack: AckPolicy::Normal,
                bytes: c.mpdu_bytes,
                body: MpduBody::Msdu(c.pkt.clone()),
                fcs_ok: false,
            }),
        };
        c.data_sent = true;
        c.data_attempts += 1;
        f
    }
    /// A contention-free attempt of it failed (against the short count:
    /// no RTS/CTS in a CFP); true if it is to be discarded.
    pub fn failed(&mut self, p: &DcfParams) -> bool {
        self.0.retry.fail(Count::Short, p.short_limit(), p.long_limit())
    }
}

impl Dcf {
    /// Whether a frame exchange of the DCF is under way (its frame on the
    /// air, a response awaited or scheduled).
    pub fn in_exchange(&self) -> bool {
        self.seq.under_way()
    }

    /// Lend the MSDU in service to a contention-free exchange (none while
    /// an exchange of the DCF is under way). The backoff is kept.
    pub fn withdraw(&mut self) -> Option<Withdrawn> {
        if self.in_exchange() {
            return None;
        }
        self.cur.take().map(Withdrawn)
    }

    /// Take back an MSDU lent by `withdraw` (its contention-free exchange
    /// failed): it contends again, with a backoff drawn if none is pending.
    pub fn restore(&mut self, w: Withdrawn) {
        assert!(self.cur.is_none(), "restore while an MSDU is in service");
        self.cur = Service::Busy(w.0);
        if self.bo.slots().is_none() {
            self.bo.redraw(&mut self.rng);
        }
        self.bo.set_count_from(None);
        self.resume();
    }

    /// A CF-End (10.4.3.3): the NAV set for the CFP ends now. Called from
    /// the frame's `on_rx_end`, before the medium's idle indication.
    pub fn clear_nav(&mut self, now: SimTime) {
        self.cs.nav_end = self.cs.nav_end.min(now);
    }

    /// The DCF's data rate (the PHY's; contention-free frames use it).
    pub fn timing_ref(&self) -> &PhyTiming {
        &self.p.timing
    }

    /// Receive the MSDU of a data frame addressed to us without answering
    /// (10.4.4.1: in the CFP the acknowledgement is a CF-Ack on the next
    /// frame): the duplicate filter of 10.3.2.14, then delivery. `f` must
    /// be a correctly received data frame addressed to this station.
    pub fn accept_cf_data(&mut self, f: &mut Frame, out: &mut impl MacSink) {
        let Some(m) = f.mpdus.first_mut() else { return };
        let Some(id) = m.msdu_id() else { return };
        let (seq, retry) = (m.seq, m.retry);
        // As in `rx_data`: the receive cache, then delivery.
        self.deliver_unless_duplicate(f, seq, retry, id, out);
    }
}

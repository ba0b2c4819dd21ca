//! [`AnyMac`]: the MAC of one station of a scenario's cell, whichever kind
//! it is (the DCF; the HCF's EDCA with BlockAck; an AP with beacons and,
//! under PCF, the point coordinator; a CF-pollable station).
//!
//! The medium is generic over its MAC type; a scenario's cell is a
//! `Bss<AnyMac>`, so that one cell may mix kinds (a point coordinator at
//! the AP and DCF stations, say). Each call is one `match` on the variant,
//! then the variant's own (inlined) method: adding a MAC is one variant and
//! one arm per method here.
//!
//! Invariants: `AnyMac` adds no behaviour; every method is exactly the
//! variant's.
use super::api::{Bystander, Demand, Mac};
use super::dcf::{Dcf, MacCounters};
use super::frame::{Frame, MacAddr, MacSink};
use super::hcf::Hcf;
use super::pcf::{CfStation, Coordinator};
use crate::phy::PhyTiming;
use wifitcp_core::SimTime;
use wifitcp_wire::Packet;

/// One station's MAC, of any kind. The DCF is held inline (the common
/// case: no indirection on the hot path), the others boxed.
#[allow(clippy::large_enum_variant)]
pub enum AnyMac {
    /// The distributed coordination function (10.3).
    Dcf(Dcf),
    /// EDCA with QoS Data, TXOPs and immediate BlockAck (10.22.2, 10.25).
    Hcf(Box<Hcf>),
    /// An AP: its DCF, beacons, and the point coordinator if a CFP is
    /// configured (`mac::pcf::Coordinator`).
    Ap(Box<Coordinator>),
    /// A CF-pollable station (`mac::pcf::CfStation`).
    CfSta(Box<CfStation>),
}

/// Call `$body` with `$m` bound to the variant's MAC.
macro_rules! each {
    ($self:expr, $m:ident => $body:expr) => {
        match $self {
            AnyMac::Dcf($m) => $body,
            AnyMac::Hcf(b) => {
                let $m = &**b;
                $body
            }
            AnyMac::Ap(b) => {
                let $m = &**b;
                $body
            }
            AnyMac::CfSta(b) => {
                let $m = &**b;
                $body
            }
        }
    };
}

/// `each!` for `&mut self`.
macro_rules! each_mut {
    ($self:expr, $m:ident => $body:expr) => {
        match $self {
            AnyMac::Dcf($m) => $body,
            AnyMac::Hcf(b) => {
                let $m = &mut **b;
                $body
            }
            AnyMac::Ap(b) => {
                let $m = &mut **b;
                $body
            }
            AnyMac::CfSta(b) => {
                let $m = &mut **b;
                $body
            }
        }
    };
}

impl AnyMac {
    /// The DCF, if this station runs one.
    #[inline]
    pub fn as_dcf(&self) -> Option<&Dcf> {
        match self {
            AnyMac::Dcf(d) => Some(d),
            AnyMac::Ap(c) => Some(c.dcf()),
            AnyMac::CfSta(s) => Some(s.dcf()),
            AnyMac::Hcf(_) => None,
        }
    }
    #[inline]
    pub fn as_dcf_mut(&mut self) -> Option<&mut Dcf> {
        match self {
            AnyMac::Dcf(d) => Some(d),
            AnyMac::Ap(c) => Some(c.dcf_mut()),
            AnyMac::CfSta(s) => Some(s.dcf_mut()),
            AnyMac::Hcf(_) => None,
        }
    }
    /// The HCF, if this station runs one.
    #[inline]
    pub fn as_hcf(&self) -> Option<&Hcf> {
        match self {
            AnyMac::Hcf(h) => Some(h),
            _ => None,
        }
    }
    /// The point coordinator / beaconing AP, if this member is one.
    pub fn as_ap(&self) -> Option<&Coordinator> {
        match self {
            AnyMac::Ap(c) => Some(c),
            _ => None,
        }
    }
    /// The scenario name of the kind (`mac.kind`).
    pub fn kind(&self) -> &'static str {
        match self {
            AnyMac::Dcf(_) => "dcf",
            AnyMac::Hcf(_) => "edca",
            AnyMac::Ap(c) if c.has_cfp() => "pcf",
            AnyMac::Ap(_) => "dcf",
            AnyMac::CfSta(_) => "pcf",
        }
    }
}

impl From<Hcf> for AnyMac {
    fn from(h: Hcf) -> Self {
        AnyMac::Hcf(Box::new(h))
    }
}

impl From<Coordinator> for AnyMac {
    fn from(c: Coordinator) -> Self {
        AnyMac::Ap(Box::new(c))
    }
}

impl From<CfStation> for AnyMac {
    fn from(s: CfStation) -> Self {
        AnyMac::CfSta(Box::new(s))
    }
}

impl From<Dcf> for AnyMac {
    fn from(d: Dcf) -> Self {
        AnyMac::Dcf(d)
    }
}

impl Mac for AnyMac {
    #[inline]
    fn addr(&self) -> MacAddr {
        each!(self, m => m.addr())
    }
    #[inline]
    fn timing(&self) -> &PhyTiming {
        each!(self, m => Mac::timing(m))
    }
    #[inline]
    fn demand(&self) -> Option<Demand> {
        each!(self, m => Mac::demand(m))
    }
    #[inline]
    fn give_msdu(&mut self, now: SimTime, pkt: Packet, ra: MacAddr, out: &mut impl MacSink) {
        match self {
            AnyMac::Dcf(d) => Mac::give_msdu(d, now, pkt, ra, out),
            _ => self.give_msdu_other(now, pkt, ra, out),
        }
    }
    #[inline]
    fn on_cca(&mut self, now: SimTime, busy: bool, out: &mut impl MacSink) {
        match self {
            AnyMac::Dcf(d) => Mac::on_cca(d, now, busy, out),
            _ => self.on_cca_other(now, busy, out),
        }
    }
    #[inline]
    fn idle_may_emit(&self) -> bool {
        each!(self, m => Mac::idle_may_emit(m))
    }
    #[inline]
    fn on_rx_end(&mut self, now: SimTime, f: &mut Frame, ok: bool, out: &mut impl MacSink) {
        match self {
            AnyMac::Dcf(d) => Mac::on_rx_end(d, now, f, ok, out),
            _ => self.on_rx_end_other(now, f, ok, out),
        }
    }
    #[inline]
    fn on_tx_end(&mut self, now: SimTime, out: &mut impl MacSink) {
        match self {
            AnyMac::Dcf(d) => Mac::on_tx_end(d, now, out),
            _ => self.on_tx_end_other(now, out),
        }
    }
    #[inline]
    fn on_wake(&mut self, now: SimTime, out: &mut impl MacSink) {
        match self {
            AnyMac::Dcf(d) => Mac::on_wake(d, now, out),
            _ => self.on_wake_other(now, out),
        }
    }
    #[inline]
    fn next_wakeup(&self) -> SimTime {
        each!(self, m => Mac::next_wakeup(m))
    }
    fn held(&self) -> impl Iterator<Item = &Packet> {
        let it: Box<dyn Iterator<Item = &Packet> + '_> = each!(self, m => Box::new(Mac::held(m)));
        it
    }
    #[inline]
    fn counters(&self) -> &MacCounters {
        each!(self, m => Mac::counters(m))
    }
    #[inline]
    fn eifs_after_collision(&self) -> bool {
        each!(self, m => Mac::eifs_after_collision(m))
    }
    #[inline]
    fn bystander(&self) -> Option<&dyn Bystander> {
        each!(self, m => Mac::bystander(m))
    }
    #[inline]
    fn bystander_mut(&mut self) -> Option<&mut dyn Bystander> {
        each_mut!(self, m => Mac::bystander_mut(m))
    }
}

/// The variants other than the DCF, out of line: the DCF's calls (every
/// station of an a/b/g cell) stay inlined into the medium as when the DCF
/// was the only MAC, and the other kinds cost one call more.
impl AnyMac {
    #[inline(never)]
    fn give_msdu_other(&mut self, now: SimTime, pkt: Packet, ra: MacAddr, out: &mut impl MacSink) {
        each_mut!(self, m => Mac::give_msdu(m, now, pkt, ra, out))
    }
    #[inline(never)]
    fn on_cca_other(&mut self, now: SimTime, busy: bool, out: &mut impl MacSink) {
        each_mut!(self, m => Mac::on_cca(m, now, busy, out))
    }
    #[inline(never)]
    fn on_rx_end_other(&mut self, now: SimTime, f: &mut Frame, ok: bool, out: &mut impl MacSink) {
        each_mut!(self, m => Mac::on_rx_end(m, now, f, ok, out))
    }
    #[inline(never)]
    fn on_tx_end_other(&mut self, now: SimTime, out: &mut impl MacSink) {
        each_mut!(self, m => Mac::on_tx_end(m, now, out))
    }
    #[inline(never)]
    fn on_wake_other(&mut self, now: SimTime, out: &mut impl MacSink) {
        each_mut!(self, m => Mac::on_wake(m, now, out))
    }
}

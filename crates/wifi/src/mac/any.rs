//! [`AnyMac`]: the MAC of one station of a scenario's cell, whichever kind
//! it is (the DCF; the HCF's EDCA with BlockAck; an AP with beacons and,
//! under PCF, the point coordinator; a CF-pollable station).
//!
//! The medium is generic over its MAC type; a scenario's cell is a
//! `Bss<AnyMac>`, so that one cell may mix kinds (a point coordinator at
//! the AP and DCF stations, say). Each call is one `match` on the variant,
//! then the variant's own (inlined) method: adding a MAC is one variant and
//! one arm per method here, or none: a MAC that is not on a hot path goes
//! in [`AnyMac::Boxed`] as a trait object ([`DynMac`], which every [`Mac`]
//! is), at the cost of one indirect call per input.
//!
//! Invariants: `AnyMac` adds no behaviour; every method is exactly the
//! variant's.
use super::api::{Bystander, Demand, Mac};
use super::dcf::{Dcf, MacCounters};
use super::frame::{Frame, MacAddr, MacSink};
use super::hcf::Hcf;
use super::pcf::{CfStation, Coordinator};
use crate::phy::PhyTiming;
use std::any::Any;
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
    /// Any other MAC, behind a trait object, with its scenario name
    /// (`AnyMac::boxed`).
    Boxed { kind: &'static str, mac: Box<dyn DynMac> },
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
            AnyMac::Boxed { mac, .. } => {
                let $m = &**mac;
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
            AnyMac::Boxed { mac, .. } => {
                let $m = &mut **mac;
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
            AnyMac::Boxed { mac, .. } => {
                let a: &dyn Any = &**mac;
                a.downcast_ref::<Dcf>()
                    .or_else(|| a.downcast_ref::<Coordinator>().map(Coordinator::dcf))
                    .or_else(|| a.downcast_ref::<CfStation>().map(CfStation::dcf))
            }
        }
    }
    #[inline]
    pub fn as_dcf_mut(&mut self) -> Option<&mut Dcf> {
        match self {
            AnyMac::Dcf(d) => Some(d),
            AnyMac::Ap(c) => Some(c.dcf_mut()),
            AnyMac::CfSta(s) => Some(s.dcf_mut()),
            AnyMac::Hcf(_) => None,
            AnyMac::Boxed { mac, .. } => {
                let a: &mut dyn Any = &mut **mac;
                if a.is::<Dcf>() {
                    a.downcast_mut::<Dcf>()
                } else if a.is::<Coordinator>() {
                    a.downcast_mut::<Coordinator>().map(Coordinator::dcf_mut)
                } else {
                    a.downcast_mut::<CfStation>().map(CfStation::dcf_mut)
                }
            }
        }
    }
    /// The HCF, if this station runs one.
    #[inline]
    pub fn as_hcf(&self) -> Option<&Hcf> {
        match self {
            AnyMac::Hcf(h) => Some(h),
            AnyMac::Boxed { mac, .. } => (&**mac as &dyn Any).downcast_ref(),
            _ => None,
        }
    }
    /// The point coordinator / beaconing AP, if this member is one.
    pub fn as_cf_sta(&self) -> Option<&CfStation> {
        match self {
            AnyMac::CfSta(s) => Some(s),
            AnyMac::Boxed { mac, .. } => (&**mac as &dyn Any).downcast_ref(),
            _ => None,
        }
    }
    pub fn as_ap(&self) -> Option<&Coordinator> {
        match self {
            AnyMac::Ap(c) => Some(c),
            AnyMac::Boxed { mac, .. } => (&**mac as &dyn Any).downcast_ref(),
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
            AnyMac::Boxed { kind, .. } => kind,
        }
    }

    /// `mac` behind a trait object, as the MAC of scenario kind `kind`.
    pub fn boxed(kind: &'static str, mac: impl Mac + 'static) -> AnyMac {
        AnyMac::Boxed { kind, mac: Box::new(mac) }
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
    fn on_rx_start(&mut self, now: SimTime) {
        each_mut!(self, m => Mac::on_rx_start(m, now))
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
    fn on_verdict(&mut self, now: SimTime, f: &Frame, received: bool, out: &mut impl MacSink) {
        match self {
            AnyMac::Dcf(d) => Mac::on_verdict(d, now, f, received, out),
            _ => self.on_verdict_other(now, f, received, out),
        }
    }
    #[inline]
    fn lend_msdus(&self, f: &mut Frame) {
        match self {
            AnyMac::Dcf(d) => Mac::lend_msdus(d, f),
            _ => self.lend_msdus_other(f),
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
    fn counters(&self) -> MacCounters {
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
    fn take_tb_share(&mut self, now: SimTime, out: &mut impl MacSink) -> Option<super::mu_frame::TbShare> {
        match self {
            AnyMac::Hcf(h) => Mac::take_tb_share(&mut **h, now, out),
            _ => None,
        }
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
    fn on_verdict_other(&mut self, now: SimTime, f: &Frame, received: bool, out: &mut impl MacSink) {
        each_mut!(self, m => Mac::on_verdict(m, now, f, received, out))
    }
    #[inline(never)]
    fn lend_msdus_other(&self, f: &mut Frame) {
        each!(self, m => Mac::lend_msdus(m, f))
    }
    #[inline(never)]
    fn on_wake_other(&mut self, now: SimTime, out: &mut impl MacSink) {
        each_mut!(self, m => Mac::on_wake(m, now, out))
    }
}

/// [`Mac`] as a trait object: `Mac` takes generic sinks and returns an
/// opaque iterator, so it cannot be one; `DynMac` takes `&mut dyn MacSink`
/// and boxes the iterator. Every `Mac` is a `DynMac` (the blanket impl
/// below), and `dyn DynMac` is a `Mac` again, which is how
/// [`AnyMac::Boxed`] joins the dispatch macros. Each method is exactly
/// the `Mac` method of the same name.
pub trait DynMac: Any {
    fn dyn_addr(&self) -> MacAddr;
    fn dyn_timing(&self) -> &PhyTiming;
    fn dyn_demand(&self) -> Option<Demand>;
    fn dyn_give_msdu(&mut self, now: SimTime, pkt: Packet, ra: MacAddr, out: &mut dyn MacSink);
    fn dyn_on_cca(&mut self, now: SimTime, busy: bool, out: &mut dyn MacSink);
    fn dyn_on_rx_start(&mut self, now: SimTime);
    fn dyn_idle_may_emit(&self) -> bool;
    fn dyn_on_rx_end(&mut self, now: SimTime, f: &mut Frame, ok: bool, out: &mut dyn MacSink);
    fn dyn_on_tx_end(&mut self, now: SimTime, out: &mut dyn MacSink);
    fn dyn_on_verdict(&mut self, now: SimTime, f: &Frame, received: bool, out: &mut dyn MacSink);
    fn dyn_lend_msdus(&self, f: &mut Frame);
    fn dyn_on_wake(&mut self, now: SimTime, out: &mut dyn MacSink);
    fn dyn_next_wakeup(&self) -> SimTime;
    fn dyn_held(&self) -> Box<dyn Iterator<Item = &Packet> + '_>;
    fn dyn_counters(&self) -> MacCounters;
    fn dyn_eifs_after_collision(&self) -> bool;
    fn dyn_bystander(&self) -> Option<&dyn Bystander>;
    fn dyn_bystander_mut(&mut self) -> Option<&mut dyn Bystander>;
}

/// A `&mut dyn MacSink` as a `MacSink` (the generic methods of `Mac` take
/// a sized sink).
struct DynSink<'a>(&'a mut dyn MacSink);

impl MacSink for DynSink<'_> {
    #[inline]
    fn push(&mut self, o: super::MacOutput) {
        self.0.push(o);
    }
}

impl<M: Mac + Any> DynMac for M {
    fn dyn_addr(&self) -> MacAddr {
        Mac::addr(self)
    }
    fn dyn_timing(&self) -> &PhyTiming {
        Mac::timing(self)
    }
    fn dyn_demand(&self) -> Option<Demand> {
        Mac::demand(self)
    }
    fn dyn_give_msdu(&mut self, now: SimTime, pkt: Packet, ra: MacAddr, out: &mut dyn MacSink) {
        Mac::give_msdu(self, now, pkt, ra, &mut DynSink(out))
    }
    fn dyn_on_cca(&mut self, now: SimTime, busy: bool, out: &mut dyn MacSink) {
        Mac::on_cca(self, now, busy, &mut DynSink(out))
    }
    fn dyn_on_rx_start(&mut self, now: SimTime) {
        Mac::on_rx_start(self, now)
    }
    fn dyn_idle_may_emit(&self) -> bool {
        Mac::idle_may_emit(self)
    }
    fn dyn_on_rx_end(&mut self, now: SimTime, f: &mut Frame, ok: bool, out: &mut dyn MacSink) {
        Mac::on_rx_end(self, now, f, ok, &mut DynSink(out))
    }
    fn dyn_on_tx_end(&mut self, now: SimTime, out: &mut dyn MacSink) {
        Mac::on_tx_end(self, now, &mut DynSink(out))
    }
    fn dyn_on_verdict(&mut self, now: SimTime, f: &Frame, received: bool, out: &mut dyn MacSink) {
        Mac::on_verdict(self, now, f, received, &mut DynSink(out))
    }
    fn dyn_lend_msdus(&self, f: &mut Frame) {
        Mac::lend_msdus(self, f)
    }
    fn dyn_on_wake(&mut self, now: SimTime, out: &mut dyn MacSink) {
        Mac::on_wake(self, now, &mut DynSink(out))
    }
    fn dyn_next_wakeup(&self) -> SimTime {
        Mac::next_wakeup(self)
    }
    fn dyn_held(&self) -> Box<dyn Iterator<Item = &Packet> + '_> {
        Box::new(Mac::held(self))
    }
    fn dyn_counters(&self) -> MacCounters {
        Mac::counters(self)
    }
    fn dyn_eifs_after_collision(&self) -> bool {
        Mac::eifs_after_collision(self)
    }
    fn dyn_bystander(&self) -> Option<&dyn Bystander> {
        Mac::bystander(self)
    }
    fn dyn_bystander_mut(&mut self) -> Option<&mut dyn Bystander> {
        Mac::bystander_mut(self)
    }
}

impl Mac for dyn DynMac {
    fn addr(&self) -> MacAddr {
        self.dyn_addr()
    }
    fn timing(&self) -> &PhyTiming {
        self.dyn_timing()
    }
    fn demand(&self) -> Option<Demand> {
        self.dyn_demand()
    }
    fn give_msdu(&mut self, now: SimTime, pkt: Packet, ra: MacAddr, out: &mut impl MacSink) {
        self.dyn_give_msdu(now, pkt, ra, out)
    }
    fn on_cca(&mut self, now: SimTime, busy: bool, out: &mut impl MacSink) {
        self.dyn_on_cca(now, busy, out)
    }
    fn on_rx_start(&mut self, now: SimTime) {
        self.dyn_on_rx_start(now)
    }
    fn idle_may_emit(&self) -> bool {
        self.dyn_idle_may_emit()
    }
    fn on_rx_end(&mut self, now: SimTime, f: &mut Frame, ok: bool, out: &mut impl MacSink) {
        self.dyn_on_rx_end(now, f, ok, out)
    }
    fn on_tx_end(&mut self, now: SimTime, out: &mut impl MacSink) {
        self.dyn_on_tx_end(now, out)
    }
    fn on_verdict(&mut self, now: SimTime, f: &Frame, received: bool, out: &mut impl MacSink) {
        self.dyn_on_verdict(now, f, received, out)
    }
    fn lend_msdus(&self, f: &mut Frame) {
        self.dyn_lend_msdus(f)
    }
    fn on_wake(&mut self, now: SimTime, out: &mut impl MacSink) {
        self.dyn_on_wake(now, out)
    }
    fn next_wakeup(&self) -> SimTime {
        self.dyn_next_wakeup()
    }
    fn held(&self) -> impl Iterator<Item = &Packet> {
        self.dyn_held()
    }
    fn counters(&self) -> MacCounters {
        self.dyn_counters()
    }
    fn eifs_after_collision(&self) -> bool {
        self.dyn_eifs_after_collision()
    }
    fn bystander(&self) -> Option<&dyn Bystander> {
        self.dyn_bystander()
    }
    fn bystander_mut(&mut self) -> Option<&mut dyn Bystander> {
        self.dyn_bystander_mut()
    }
}

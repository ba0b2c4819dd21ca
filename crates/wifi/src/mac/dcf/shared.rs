//! What every DCF built from one set of parameters shares: the
//! parameters, and the constants derived from them that each access, each
//! freeze and each new backoff reads (the slot time and the counting
//! rule, the IFS, the control frames of the PHY's data rate).
//!
//! One copy per `[mac]` table of a cell (behind an `Arc`), not one per
//! station: in a cell of thousands of stations a station's MAC is rarely
//! in the nearest cache, while this shared copy, read by every station,
//! stays there, and each station's MAC is a cache line smaller.
//!
//! Invariants: everything but `params` is a function of `params`, computed
//! once in [`DcfShared::new`].
use super::params::DcfParams;
use crate::mac::access::{CountRule, IfsTimes, Slotting};
use crate::phy::{PhyTiming, Rate};
use std::sync::Arc;
use wifitcp_core::SimDur;
use wifitcp_wire::wifi_frame::{ACK_LEN, CTS_LEN, RTS_LEN};

/// The parameters of the DCFs of a cell built from one `[mac]` table, with
/// their derived constants (module docs). Reads as its [`DcfParams`].
#[derive(Debug)]
pub struct DcfShared {
    params: DcfParams,
    /// The slot time and the DCF's counting rule (10.3.4.3).
    pub(super) slotting: Slotting,
    /// DIFS and EIFS (10.3.2.3).
    pub(super) ifs: IfsTimes,
    /// The control frames that go with data frames at the PHY's data rate
    /// (the rate of every data frame without rate control).
    air: ControlAirtimes,
}

impl DcfShared {
    pub fn new(params: DcfParams) -> DcfShared {
        let t = &params.timing;
        let rule = if params.busy_slot_counts { CountRule::DcfBusySlotCounts } else { CountRule::Dcf };
        DcfShared {
            slotting: Slotting::new(t.slot, rule),
            ifs: IfsTimes { difs: t.difs, eifs: t.eifs },
            air: ControlAirtimes::new(t, t.data_rate),
            params,
        }
    }

    /// The control frames that go with data frames at `data` (those of
    /// the PHY's data rate kept, any other rate's computed).
    #[inline(always)]
    pub(super) fn air(&self, data: Rate) -> ControlAirtimes {
        if data == self.air.data {
            self.air
        } else {
            ControlAirtimes::new(&self.params.timing, data)
        }
    }

    /// The airtime of an ACK (`cts`: a CTS) sent at `rate`.
    #[inline]
    pub(super) fn response_time(&self, cts: bool, rate: Rate) -> SimDur {
        match (rate == self.air.rate, cts) {
            (true, false) => self.air.ack,
            (true, true) => self.air.cts,
            (false, false) => self.params.timing.tx_time(ACK_LEN, rate),
            (false, true) => self.params.timing.tx_time(CTS_LEN, rate),
        }
    }
}

impl std::ops::Deref for DcfShared {
    type Target = DcfParams;
    fn deref(&self) -> &DcfParams {
        &self.params
    }
}

impl From<DcfParams> for Arc<DcfShared> {
    fn from(p: DcfParams) -> Arc<DcfShared> {
        Arc::new(DcfShared::new(p))
    }
}

/// The control frames that go with data frames of one rate: their rate
/// (`PhyTiming::response_rate`, 10.6.6.5.2) and airtimes. The RTS goes at
/// the rate of the CTS it asks for.
#[derive(Clone, Copy, Debug)]
pub(super) struct ControlAirtimes {
    /// The data rate they go with.
    pub data: Rate,
    pub rate: Rate,
    pub ack: SimDur,
    pub cts: SimDur,
    pub rts: SimDur,
}

impl ControlAirtimes {
    fn new(t: &PhyTiming, data: Rate) -> ControlAirtimes {
        let rate = t.response_rate(data);
        let (ack, cts, rts) = if rate == t.control_rate {
            (t.ack_time(), t.cts_time(), t.rts_time())
        } else {
            let air = |len| t.tx_time(len, rate);
            (air(ACK_LEN), air(CTS_LEN), air(RTS_LEN))
        };
        ControlAirtimes { data, rate, ack, cts, rts }
    }
}

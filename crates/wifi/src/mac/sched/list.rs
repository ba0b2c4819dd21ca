//! A polling list served in order: each listed station once per service
//! period (the HCF's polled TXOPs), or round after round until the period
//! ends (the PCF's contention-free period, 10.4.4.1).
use super::{Grant, PollList, PollScheduler, Usage};
use crate::mac::frame::MacAddr;
use wifitcp_core::{SimDur, SimTime};

/// How many grants a listed station gets per service period.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rounds {
    /// At most one (the HCF: a TXOP each, the next period goes on).
    Once,
    /// Round after round until the coordinator ends the period (the PCF:
    /// it polls until the CFP's time runs out or a round moves nothing).
    UntilEnd,
}

/// Grants of `txop` to the stations of a [`PollList`] (round robin over
/// every station, or the activity list), continuing where the last period
/// stopped.
pub struct ListScheduler {
    list: PollList,
    txop: SimDur,
    rounds: Rounds,
    /// Grants left in the current service period.
    left: usize,
}

impl ListScheduler {
    /// One grant of `txop` per listed station per period.
    pub fn new(list: PollList, txop: SimDur) -> ListScheduler {
        ListScheduler { list, txop, rounds: Rounds::Once, left: 0 }
    }

    /// CF-Polls (grants of one frame exchange: `txop` zero) round after
    /// round until the period ends.
    pub fn cycling(list: PollList) -> ListScheduler {
        ListScheduler { list, txop: SimDur::ZERO, rounds: Rounds::UntilEnd, left: usize::MAX }
    }

    /// The list (results, tests).
    pub fn list(&self) -> &PollList {
        &self.list
    }
}

impl PollScheduler for ListScheduler {
    fn begin(&mut self, now: SimTime) {
        self.list.refresh(now);
        self.left = match self.rounds {
            Rounds::Once => self.list.len(),
            Rounds::UntilEnd => usize::MAX,
        };
    }

    fn next(&mut self, _now: SimTime) -> Option<Grant> {
        if self.left == 0 {
            return None;
        }
        self.list.next().map(|sta| Grant { sta, txop: self.txop })
    }

    fn done(&mut self, _now: SimTime, _g: Grant, _u: Usage) {
        self.left = self.left.saturating_sub(1);
        self.list.advance();
    }

    fn prefer(&mut self, sta: MacAddr) {
        self.list.start_at(sta);
    }

    fn observe(&mut self, now: SimTime, sta: MacAddr, bytes: u32) {
        self.list.observe(now, sta, bytes);
    }

    fn listed(&self) -> usize {
        self.list.len()
    }

    fn joins_leaves(&self) -> (u64, u64) {
        (self.list.joins, self.list.leaves)
    }
}

//! A polling list served in order, one grant per listed station per service
//! period.
use super::{Grant, PollScheduler, Usage};
use crate::mac::frame::MacAddr;
use crate::mac::pcf::PollList;
use wifitcp_core::{SimDur, SimTime};

/// Grants of `txop` to the stations of a [`PollList`] (round robin over
/// every station, or the activity list), each at most once per service
/// period, continuing where the last period stopped.
pub struct ListScheduler {
    list: PollList,
    txop: SimDur,
    /// Grants left in the current service period.
    left: usize,
}

impl ListScheduler {
    pub fn new(list: PollList, txop: SimDur) -> ListScheduler {
        ListScheduler { list, txop, left: 0 }
    }
}

impl PollScheduler for ListScheduler {
    fn begin(&mut self, now: SimTime) {
        self.list.refresh(now);
        self.left = self.list.len();
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

//! The queue-discipline trait, the queued-item wrapper and the counters every
//! discipline keeps.
//!
//! Ledger invariant (checked by [`QueueCounters::balances`] and by the
//! property tests of every discipline):
//!
//! ```text
//! counters.enqueued == counters.dequeued + counters.dropped_total() + len()
//! ```
//!
//! `enqueued` counts every packet *offered* to `enqueue`, including those the
//! discipline refuses at once; every packet that leaves other than through
//! `dequeue` is pushed into the caller's `dropped` vector with a typed
//! [`DropReason`] and counted in `dropped`.
use crate::occupancy::Occupancy;
use serde::Serialize;
use wifitcp_core::{DropReason, SimDur, SimTime};
use wifitcp_wire::Packet;

/// Packets a discipline discarded during one call, with their reasons.
pub type Dropped = Vec<(Packet, DropReason)>;

/// A packet waiting in a discipline.
#[derive(Clone, Debug, PartialEq)]
pub struct Queued {
    pub pkt: Packet,
    /// Set by the discipline to `now` on `enqueue` (the caller's value is
    /// overwritten), so sojourn times are always measured from entry.
    pub enqueued_at: SimTime,
    /// Next-hop station index on a WLAN interface (an AP serves many);
    /// 0 on a station. Used by per-station scheduling (airtime fairness).
    pub dest: u32,
    /// Buffer-sharing class (VBS, paper 004 section V), set by the caller
    /// from the scenario (a station or a group of stations such as an SNR
    /// class). Ignored by other disciplines.
    pub class: u32,
    /// `pkt`'s IPv4 datagram length, taken once when it is queued: a
    /// discipline reads it at every enqueue, dequeue and count. (What a
    /// discipline may change in a queued packet, its ECN field or its
    /// ACK's window, leaves the length as it is.)
    bytes: u32,
}

impl Queued {
    pub fn new(pkt: Packet, dest: u32, class: u32) -> Self {
        let bytes = pkt.ip_len();
        Queued { pkt, enqueued_at: SimTime::ZERO, dest, class, bytes }
    }
    /// Bytes this item occupies in a buffer: the IPv4 datagram length.
    #[inline]
    pub fn size(&self) -> u64 {
        debug_assert_eq!(self.bytes, self.pkt.ip_len(), "a queued packet's length changed");
        self.bytes as u64
    }
}

/// Packets a discipline discarded, by reason in the order of
/// [`DropReason::ALL`].
///
/// Held as a boxed array allocated at the first drop, and as nothing
/// before: most queues never drop (a saturated station's is fed on demand),
/// and a thousand-station cell would otherwise keep twelve zero counters in
/// every one of them. Reads see zero for every reason until then; it
/// serialises as the array of every reason's count.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DropCounts(Option<Box<[u64; DropReason::ALL.len()]>>);

impl DropCounts {
    /// Packets dropped for reason `r`.
    pub fn get(&self, r: DropReason) -> u64 {
        self.0.as_ref().map_or(0, |c| c[reason_index(r)])
    }
    /// Packets dropped for any reason.
    pub fn total(&self) -> u64 {
        self.0.as_ref().map_or(0, |c| c.iter().sum())
    }
    /// Count one drop for reason `r`.
    fn add(&mut self, r: DropReason) {
        self.0.get_or_insert_with(Box::default)[reason_index(r)] += 1;
    }
}

impl Serialize for DropCounts {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        DropReason::ALL.map(|r| self.get(r)).serialize(s)
    }
}

/// Counters kept by every discipline. Use [`QueueCounters::dropped`] to
/// read one reason's drops.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct QueueCounters {
    /// Packets offered to `enqueue` (accepted or not).
    pub enqueued: u64,
    pub enqueued_bytes: u64,
    /// Pure TCP ACKs among the offered packets.
    pub enqueued_pure_acks: u64,
    /// Packets handed out by `dequeue`.
    pub dequeued: u64,
    pub dequeued_bytes: u64,
    /// Packets that left by any other way, by reason.
    pub dropped_by_reason: DropCounts,
    pub dropped_bytes: u64,
    /// Packets whose headers a discipline modified in place (none of the
    /// disciplines here do; the Pilosof rewriter counts in its own counters).
    pub rewritten: u64,
    /// ECT packets an AQM marked CE instead of dropping (RFC 3168 section
    /// 5); left out of the serialized counters while zero.
    #[serde(skip_serializing_if = "is_zero")]
    pub ce_marked: u64,
}

fn is_zero(x: &u64) -> bool {
    *x == 0
}

fn reason_index(r: DropReason) -> usize {
    DropReason::ALL.iter().position(|x| *x == r).expect("reason in ALL")
}

impl QueueCounters {
    pub fn dropped(&self, r: DropReason) -> u64 {
        self.dropped_by_reason.get(r)
    }
    pub fn dropped_total(&self) -> u64 {
        self.dropped_by_reason.total()
    }
    /// ACKs removed as redundant (reason `AckFiltered`).
    pub fn filtered(&self) -> u64 {
        self.dropped(DropReason::AckFiltered)
    }
    /// Share of all offered packets that were filtered as redundant ACKs
    /// (the quantity of paper 000 Fig. 9); 0 if nothing was offered.
    pub fn filtered_share(&self) -> f64 {
        if self.enqueued == 0 {
            0.0
        } else {
            self.filtered() as f64 / self.enqueued as f64
        }
    }
    /// The ledger invariant for a discipline currently holding `len` packets.
    pub fn balances(&self, len: usize) -> bool {
        self.enqueued == self.dequeued + self.dropped_total() + len as u64
    }
    pub(crate) fn offered(&mut self, q: &Queued) {
        self.enqueued += 1;
        self.enqueued_bytes += q.size();
        if q.pkt.is_pure_tcp_ack() {
            self.enqueued_pure_acks += 1;
        }
    }
    pub(crate) fn sent(&mut self, q: &Queued) {
        self.dequeued += 1;
        self.dequeued_bytes += q.size();
    }
    /// Count a drop and hand the packet to the caller's ledger.
    pub(crate) fn drop_pkt(&mut self, dropped: &mut Dropped, pkt: Packet, r: DropReason) {
        self.dropped_by_reason.add(r);
        self.dropped_bytes += pkt.ip_len() as u64;
        dropped.push((pkt, r));
    }
}

/// A queue discipline: a sans-I/O state machine driven by the simulator.
///
/// Contract:
/// - `now` never decreases across calls.
/// - `enqueue` takes ownership; the packet is either held or pushed into
///   `dropped` (possibly with other, older packets it displaced).
/// - `dequeue` returns the next packet to transmit, or `None`. A discipline
///   may hold packets that are not yet eligible for transmission (the
///   Keceli control queue): then `dequeue` returns `None` while `len() > 0`
///   and `ready_len()` tells how many packets `dequeue` could hand out now;
///   the caller must call `on_timer` at `next_wakeup()`.
/// - `on_airtime(dest, airtime)` reports the medium time a transmission to
///   or from station `dest` used (airtime fairness); others ignore it.
pub trait QueueDisc: Send {
    /// The configuration `kind` this discipline was built from.
    fn kind(&self) -> &'static str;
    fn enqueue(&mut self, now: SimTime, item: Queued, dropped: &mut Dropped);
    fn dequeue(&mut self, now: SimTime, dropped: &mut Dropped) -> Option<Queued>;
    /// Packets held, including any not yet eligible for transmission.
    fn len(&self) -> usize;
    /// Bytes held (IPv4 datagram lengths).
    fn bytes(&self) -> u64;
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Packets `dequeue` could hand out without waiting for a timer (an
    /// AQM may still drop some of them at dequeue).
    fn ready_len(&self) -> usize {
        self.len()
    }
    /// Whether it holds no packet and asking it for one (`dequeue`,
    /// `dequeue_for`) would return `None` and change nothing, whenever
    /// asked: an empty plain FIFO. A caller may then skip asking (a
    /// saturated station's empty queue is asked once per packet, and in a
    /// cell of thousands its state is rarely in the caches). Default:
    /// false (an AQM's state may move at every dequeue, empty or not).
    fn idle(&self) -> bool {
        false
    }
    /// Earliest instant at which `on_timer` has work, if any.
    fn next_wakeup(&self) -> Option<SimTime> {
        None
    }
    /// Whether `next_wakeup` can ever be `Some`; a caller asks only a
    /// discipline that says yes (it would otherwise ask after every
    /// packet). Default: false; a discipline that overrides `next_wakeup`
    /// says true (the conformance test fails one that has a wake-up
    /// while it says false).
    fn timed(&self) -> bool {
        false
    }
    fn on_timer(&mut self, _now: SimTime, _dropped: &mut Dropped) {}
    /// Airtime of a data frame to or from station `dest` (see
    /// `uses_airtime`).
    fn on_airtime(&mut self, _dest: u32, _airtime: SimDur) {}
    /// Whether the discipline needs `on_airtime` reports (the medium then
    /// reports every data frame's airtime; otherwise it skips them).
    fn uses_airtime(&self) -> bool {
        false
    }
    fn counters(&self) -> &QueueCounters;
    /// The ACK filter's counters by reason, for a discipline that filters
    /// ACKs as paper 000 does (`ack-first`); `None` otherwise.
    fn ack_filter(&self) -> Option<crate::ack_first::AckFilterStats> {
        None
    }
    /// Occupancy summary and bounded time series (see [`Occupancy`]).
    fn occupancy(&self) -> &Occupancy;
    /// The next packet `dequeue_for(ra, tid)` would hand out, for a MAC
    /// that serves one receiver (next-hop station index, `Queued::dest`)
    /// or traffic identifier at a time (`None`: any). Every packet has TID
    /// 0 until packets carry a user priority. Default: no per-receiver
    /// view (`None`); drop-tail and ack-first search their FIFOs (a point
    /// coordinator polling one station, `mac::pcf`).
    fn peek_for(&self, _ra: Option<u32>, _tid: Option<u8>) -> Option<&Queued> {
        None
    }
    /// Dequeue the next packet for receiver `ra` and traffic identifier
    /// `tid` (`None`: any). Default: `dequeue` when neither is named, and
    /// nothing otherwise (see `peek_for`).
    fn dequeue_for(&mut self, now: SimTime, ra: Option<u32>, tid: Option<u8>, dropped: &mut Dropped) -> Option<Queued> {
        if ra.is_none() && tid.is_none() {
            self.dequeue(now, dropped)
        } else {
            None
        }
    }
}

/// The plain FIFO dequeue of `fifo_accessors!(with_dequeue)`: the head,
/// counted, with the occupancy updated.
#[inline(never)]
pub(crate) fn fifo_dequeue(
    now: SimTime,
    fifo: &mut crate::droptail::Fifo,
    counters: &mut QueueCounters,
    occ: &mut Occupancy,
) -> Option<Queued> {
    let x = fifo.pop()?;
    counters.sent(&x);
    occ.update(now, fifo.len(), fifo.bytes());
    Some(x)
}

/// The first packet of a FIFO for receiver `ra` and TID `tid` (`None`:
/// any), in FIFO order among theirs (`fifo_accessors!(with_per_receiver)`).
pub(crate) fn fifo_peek_for(fifo: &crate::droptail::Fifo, ra: Option<u32>, tid: Option<u8>) -> Option<&Queued> {
    fifo.first_for(ra, tid).map(|i| &fifo.q[i])
}

/// Take [`fifo_peek_for`]'s packet out, counted, with the occupancy
/// updated.
pub(crate) fn fifo_dequeue_for(
    now: SimTime,
    ra: Option<u32>,
    tid: Option<u8>,
    fifo: &mut crate::droptail::Fifo,
    counters: &mut QueueCounters,
    occ: &mut Occupancy,
) -> Option<Queued> {
    let x = fifo.remove(fifo.first_for(ra, tid)?)?;
    counters.sent(&x);
    occ.update(now, fifo.len(), fifo.bytes());
    Some(x)
}

/// The accessors every FIFO-backed discipline shares: `len` and `bytes` of
/// `self.fifo`, and `self.counters` and `self.occ`; `(with_dequeue)` adds the
/// plain FIFO dequeue.
macro_rules! fifo_accessors {
    // the FIFO's dequeue, and per-receiver access in FIFO order among one
    // receiver's (and TID's) packets (a point coordinator or an AP polling
    // one station)
    (with_per_receiver) => {
        fn peek_for(&self, ra: Option<u32>, tid: Option<u8>) -> Option<&$crate::disc::Queued> {
            $crate::disc::fifo_peek_for(&self.fifo, ra, tid)
        }
        fn dequeue_for(
            &mut self,
            now: wifitcp_core::SimTime,
            ra: Option<u32>,
            tid: Option<u8>,
            _: &mut $crate::disc::Dropped,
        ) -> Option<$crate::disc::Queued> {
            $crate::disc::fifo_dequeue_for(now, ra, tid, &mut self.fifo, &mut self.counters, &mut self.occ)
        }
        $crate::disc::fifo_accessors!(with_dequeue);
    };
    (with_dequeue) => {
        fn dequeue(
            &mut self,
            now: wifitcp_core::SimTime,
            _dropped: &mut $crate::disc::Dropped,
        ) -> Option<$crate::disc::Queued> {
            // (an empty queue returns before the work's registers are saved:
            // a saturated station asks its empty queue once per packet)
            if self.fifo.is_empty() {
                return None;
            }
            $crate::disc::fifo_dequeue(now, &mut self.fifo, &mut self.counters, &mut self.occ)
        }
        fn idle(&self) -> bool {
            self.fifo.is_empty()
        }
        $crate::disc::fifo_accessors!();
    };
    () => {
        fn len(&self) -> usize {
            self.fifo.len()
        }
        fn bytes(&self) -> u64 {
            self.fifo.bytes()
        }
        fn counters(&self) -> &$crate::disc::QueueCounters {
            &self.counters
        }
        fn occupancy(&self) -> &$crate::occupancy::Occupancy {
            &self.occ
        }
    };
}
pub(crate) use fifo_accessors;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::*;

    #[test]
    fn default_per_receiver_access_serves_any_and_refuses_a_named_receiver() {
        // CoDel keeps the trait's defaults (drop-tail and ack-first serve
        // a named receiver, see their tests).
        let mut d = crate::codel::Codel::new(10, crate::codel::CodelParams::default());
        let mut dr = Vec::new();
        d.enqueue(ms(0), q(data(1, 1)), &mut dr);
        d.enqueue(ms(0), q(data(1, 2)), &mut dr);
        assert!(d.peek_for(None, None).is_none());
        assert!(d.dequeue_for(ms(1), Some(0), None, &mut dr).is_none());
        assert!(d.dequeue_for(ms(1), None, Some(0), &mut dr).is_none());
        assert_eq!(d.len(), 2, "a refused request takes nothing");
        assert!(d.dequeue_for(ms(1), None, None, &mut dr).is_some());
        assert_eq!(d.len(), 1);
    }
}

//! The run loop's events and their encoding in one `u64`, and the owners
//! of timer-registry keys.
use wifitcp_core::SimTime;

/// An event of the run loop.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Ev {
    /// Cell `cell`'s medium wakes up.
    BssWake { cell: u16 },
    /// A transmission of cell `cell` ends (`Bss` ids are u32, unique among
    /// the frames on the air of one cell).
    TxEnd { id: u32, cell: u16 },
    /// Flow `fi` starts: its source's first firing (a saturated source's
    /// only one; a UDP source that fires again re-arms its timer key), a
    /// TCP flow's client opens. One event queued when the world is built,
    /// no timer key: a key is 28 bytes of the registry's tables, and a
    /// campus's flows mostly start once.
    FlowStart { fi: u32 },
    /// A component's wake-up from the timer registry (traffic sources,
    /// TCP connections, link directions, queue disciplines, agents); `gen`
    /// tells a current one from stale ones (see `wifitcp_net::timers`).
    Timer { key: u32, gen: u16 },
    /// Statistics sampling of the flows of partition `part` (the flows
    /// whose destination it holds; every flow in a world of one partition:
    /// `kernel.rs`, "Same-instant order").
    Sample { part: u16 },
    /// A packet given to `World::inject` is due (the next of the ingress
    /// queue, which is in time order).
    Ingress,
}

/// An [`Ev`] as the queue stores it: one non-zero `u64` (kind in the low
/// byte, from 1; a u32 field in bits 8..40; a u16 or u8 field in bits
/// 40..56; in the top byte, for a `TxEnd` or a `FlowStart`, how many
/// events of a run follow it: the ends of frames `id + 1` on of the same
/// cell and instant, or the starts of flows `fi + 1` on at the same
/// instant, under the tie-break keys reserved after its own:
/// `Kernel::push_run`). A scalar moves
/// through the queue and the run loop as one register, and the queue's
/// `(instant, event)` pairs as two: an enum with a one-byte tag was
/// copied through the stack in overlapping pieces whose reloads missed
/// store forwarding (about a tenth of R2's run time).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct EvCode(pub(super) std::num::NonZeroU64);

/// Where [`EvCode`]'s fields start: the u32 field, the u16 or u8 field,
/// and the count of a run's events that follow (the kind is the low byte).
const A_AT: u32 = 8;
const B_AT: u32 = 40;
const MORE_AT: u32 = 56;

impl Ev {
    #[inline(always)]
    pub(super) fn code(self) -> EvCode {
        let (kind, a, b): (u64, u32, u16) = match self {
            Ev::BssWake { cell } => (1, 0, cell),
            Ev::TxEnd { id, cell } => (2, id, cell),
            Ev::FlowStart { fi } => (3, fi, 0),
            Ev::Timer { key, gen } => (6, key, gen),
            Ev::Sample { part } => (7, 0, part),
            Ev::Ingress => (8, 0, 0),
        };
        EvCode(std::num::NonZeroU64::new(kind | (a as u64) << A_AT | (b as u64) << B_AT).expect("kind is non-zero"))
    }
}

/// The most events one [`EvCode`] holds: itself and the 255 its top byte
/// can count.
pub(super) const MAX_RUN: u32 = 256;

impl EvCode {
    /// `first` and the `more` events after it (at most `MAX_RUN - 1`): the
    /// ends of frames `id + 1`, `id + 2`, ... of the same cell (ids wrap),
    /// or the starts of flows `fi + 1`, `fi + 2`, ...
    #[inline(always)]
    pub(super) fn run(first: Ev, more: u32) -> EvCode {
        debug_assert!(more < MAX_RUN, "more events than a code holds");
        debug_assert!(more == 0 || matches!(first, Ev::TxEnd { .. } | Ev::FlowStart { .. }), "a run of {first:?}");
        EvCode(first.code().0 | (more as u64) << MORE_AT)
    }

    /// The events of its run that follow this one (zero but for `run`).
    #[inline(always)]
    pub(super) fn more(self) -> u32 {
        (self.0.get() >> MORE_AT) as u32
    }

    /// The code of the rest of a run, of a code with `more() > 0`: the
    /// next frame end or flow start, one fewer after it. Computed in
    /// place, not decoded and coded again (at 5,000 saturated stations
    /// most events are frame ends of a run): the u32 field one up
    /// (a frame id wraps; a flow index stays below the flows' count,
    /// `continued_by`), the top byte one down, the kind and the cell kept.
    #[inline]
    pub(super) fn next_in_run(self) -> EvCode {
        debug_assert!(self.more() > 0, "the last event of its run");
        debug_assert!(matches!(self.ev(), Ev::TxEnd { .. } | Ev::FlowStart { .. }), "a run of {:?}", self.ev());
        let v = self.0.get();
        let a = ((v >> A_AT) as u32).wrapping_add(1);
        let v = (v & !(u64::from(u32::MAX) << A_AT)) | u64::from(a) << A_AT;
        EvCode(std::num::NonZeroU64::new(v - (1 << MORE_AT)).expect("kind is non-zero"))
    }

    /// Whether `next`, pushed right after the events of this code, is the
    /// next event of its run (`Kernel::push_events`).
    #[inline]
    pub(super) fn continued_by(self, next: Ev) -> bool {
        self.more() + 1 < MAX_RUN
            && match (self.ev(), next) {
                (Ev::TxEnd { id, cell }, Ev::TxEnd { id: n, cell: c }) => {
                    c == cell && n == id.wrapping_add(self.more() + 1)
                }
                (Ev::FlowStart { fi }, Ev::FlowStart { fi: n }) => fi.checked_add(self.more() + 1) == Some(n),
                _ => false,
            }
    }

    /// The events it stands for, in order: itself, and for `run` the
    /// events that follow it.
    pub(super) fn events(self) -> impl Iterator<Item = Ev> {
        std::iter::successors(Some(self), |c| (c.more() > 0).then(|| c.next_in_run())).map(EvCode::ev)
    }

    #[inline(always)]
    pub(super) fn ev(self) -> Ev {
        let v = self.0.get();
        let (a, b) = ((v >> A_AT) as u32, (v >> B_AT) as u16);
        match v & 0xff {
            1 => Ev::BssWake { cell: b },
            2 => Ev::TxEnd { id: a, cell: b },
            3 => Ev::FlowStart { fi: a },
            6 => Ev::Timer { key: a, gen: b },
            7 => Ev::Sample { part: b },
            _ => Ev::Ingress,
        }
    }
}

const _: () = assert!(std::mem::size_of::<Option<(SimTime, EvCode)>>() == 16);

/// The component behind a timer key.
#[derive(Debug, Clone, Copy)]
pub(super) enum TimerOwner {
    /// Flow `fi`'s UDP source fires again (its datagrams after the first,
    /// `Ev::FlowStart`).
    Flow(usize),
    /// TCP flow `fi` stops (`traffic.stop_s`), at its sender: an event of
    /// the sender's own, armed when the world is built.
    FlowStop(usize),
    /// The next packet of link `link`'s direction `dir` (0: a to b)
    /// reaches the far end.
    Link { link: usize, dir: usize },
    /// TCP endpoint `ep`'s retransmission or delayed-ACK timer (armed
    /// lazily: see `TimerRegistry::arm_earliest`).
    Tcp(usize),
    /// The queue discipline of BSS member `sta`.
    Qdisc(usize),
    /// Agent `k` of node `node`.
    Agent { node: usize, k: usize },
    /// Station `sta`'s roaming check, or the end of its hand-off
    /// (`world/roam.rs`).
    Roam(usize),
}

/// A [`TimerOwner`] as the kernel's table of owners holds it: the kind and
/// two 32-bit indices, 12 bytes where the enum takes 24 (the table has a
/// key per timed component: a UDP source that fires again, a TCP
/// endpoint, a queue discipline that asks for wake-ups).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct PackedOwner {
    kind: u8,
    a: u32,
    b: u32,
}

impl PackedOwner {
    // the kinds, one per `TimerOwner` variant
    const FLOW: u8 = 0;
    const FLOW_STOP: u8 = 1;
    const LINK: u8 = 2;
    const TCP: u8 = 3;
    const QDISC: u8 = 4;
    const AGENT: u8 = 5;
    const ROAM: u8 = 6;

    pub(super) fn pack(o: TimerOwner) -> PackedOwner {
        let idx = |x: usize| u32::try_from(x).expect("an index below 2^32");
        let (kind, a, b) = match o {
            TimerOwner::Flow(fi) => (Self::FLOW, fi, 0),
            TimerOwner::FlowStop(fi) => (Self::FLOW_STOP, fi, 0),
            TimerOwner::Link { link, dir } => (Self::LINK, link, dir),
            TimerOwner::Tcp(ep) => (Self::TCP, ep, 0),
            TimerOwner::Qdisc(sta) => (Self::QDISC, sta, 0),
            TimerOwner::Agent { node, k } => (Self::AGENT, node, k),
            TimerOwner::Roam(sta) => (Self::ROAM, sta, 0),
        };
        PackedOwner { kind, a: idx(a), b: idx(b) }
    }

    #[inline(always)]
    pub(super) fn unpack(self) -> TimerOwner {
        let (a, b) = (self.a as usize, self.b as usize);
        match self.kind {
            Self::FLOW => TimerOwner::Flow(a),
            Self::FLOW_STOP => TimerOwner::FlowStop(a),
            Self::LINK => TimerOwner::Link { link: a, dir: b },
            Self::TCP => TimerOwner::Tcp(a),
            Self::QDISC => TimerOwner::Qdisc(a),
            Self::AGENT => TimerOwner::Agent { node: a, k: b },
            _ => TimerOwner::Roam(a),
        }
    }

    /// Whether it is a TCP endpoint's timer (armed lazily).
    #[inline(always)]
    pub(super) fn is_tcp(self) -> bool {
        self.kind == Self::TCP
    }
}

#[cfg(test)]
mod tests {
    use super::Ev;

    #[test]
    fn event_codes_round_trip() {
        let all = [
            Ev::BssWake { cell: 0 },
            Ev::BssWake { cell: 63 },
            Ev::TxEnd { id: 0, cell: 0 },
            Ev::TxEnd { id: u32::MAX, cell: u16::MAX },
            Ev::FlowStart { fi: 0 },
            Ev::FlowStart { fi: u32::MAX },
            Ev::Timer { key: 99_999, gen: u16::MAX },
            Ev::Timer { key: 0, gen: 0 },
            Ev::Sample { part: 0 },
            Ev::Sample { part: 9 },
            Ev::Ingress,
        ];
        for e in all {
            assert_eq!(e.code().ev(), e);
            assert_eq!(e.code().more(), 0);
            assert_eq!(e.code().events().collect::<Vec<_>>(), vec![e]);
        }
    }

    #[test]
    fn timer_owners_round_trip_packed_in_12_bytes() {
        use super::{PackedOwner, TimerOwner};
        let big = u32::MAX as usize;
        let all = [
            TimerOwner::Flow(big),
            TimerOwner::FlowStop(7),
            TimerOwner::Link { link: 3, dir: 1 },
            TimerOwner::Tcp(0),
            TimerOwner::Qdisc(9_999),
            TimerOwner::Agent { node: 12, k: 2 },
            TimerOwner::Roam(big),
        ];
        for o in all {
            let p = PackedOwner::pack(o);
            assert_eq!(format!("{:?}", p.unpack()), format!("{o:?}"));
            assert_eq!(p.is_tcp(), matches!(o, TimerOwner::Tcp(_)));
        }
        assert_eq!(std::mem::size_of::<PackedOwner>(), 12);
    }

    #[test]
    fn frame_end_runs_walk_their_ids() {
        use super::{EvCode, MAX_RUN};
        let c = EvCode::run(Ev::TxEnd { id: u32::MAX - 1, cell: 7 }, 3);
        assert_eq!(c.ev(), Ev::TxEnd { id: u32::MAX - 1, cell: 7 });
        assert_eq!(c.more(), 3);
        let ids: Vec<Ev> = c.events().collect();
        let want: Vec<Ev> = [u32::MAX - 1, u32::MAX, 0, 1].map(|id| Ev::TxEnd { id, cell: 7 }).to_vec();
        assert_eq!(ids, want);
        let mut walked = vec![c.ev()];
        let mut k = c;
        while k.more() > 0 {
            k = k.next_in_run();
            walked.push(k.ev());
        }
        assert_eq!(walked, want);
        let full = EvCode::run(Ev::TxEnd { id: 5, cell: u16::MAX }, MAX_RUN - 1);
        assert_eq!((full.ev(), full.more()), (Ev::TxEnd { id: 5, cell: u16::MAX }, MAX_RUN - 1));
        assert!(!full.continued_by(Ev::TxEnd { id: 5 + MAX_RUN, cell: u16::MAX }), "a code holds at most MAX_RUN");
        assert!(c.continued_by(Ev::TxEnd { id: 2, cell: 7 }));
        assert!(!c.continued_by(Ev::TxEnd { id: 2, cell: 8 }));
        assert!(!c.continued_by(Ev::TxEnd { id: 3, cell: 7 }));
    }

    #[test]
    fn flow_start_runs_walk_their_flows() {
        use super::EvCode;
        let c = EvCode::run(Ev::FlowStart { fi: 10 }, 2);
        let want: Vec<Ev> = [10, 11, 12].map(|fi| Ev::FlowStart { fi }).to_vec();
        assert_eq!(c.events().collect::<Vec<_>>(), want);
        assert_eq!(c.next_in_run().events().collect::<Vec<_>>(), want[1..]);
        assert!(c.continued_by(Ev::FlowStart { fi: 13 }));
        assert!(!c.continued_by(Ev::FlowStart { fi: 12 }));
        assert!(!c.continued_by(Ev::TxEnd { id: 13, cell: 0 }));
        let last = EvCode::run(Ev::FlowStart { fi: u32::MAX }, 0);
        assert!(!last.continued_by(Ev::FlowStart { fi: 0 }), "flow indices do not wrap");
        assert!(!Ev::BssWake { cell: 0 }.code().continued_by(Ev::BssWake { cell: 0 }));
    }
}

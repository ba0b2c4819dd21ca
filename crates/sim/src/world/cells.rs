//! Cells: the WLAN side of the world.
//!
//! [`Cells`] holds one cell per channel (a `Bss` with a MAC for every WLAN
//! member, and its outputs not yet handled), the presence table the cells'
//! gates share, the transmit queue discipline of every member's WLAN
//! interface with its timer, and the saturated sources of every member
//! (fed in round robin when the MAC is ready and the queue is empty).
//!
//! Per event: a cell's wake-up or end of transmission runs its medium
//! (`wake`, `tx_end`); then `drain_outputs` handles every output the cells
//! emitted, in emission order: wake-ups and transmission ends become
//! events, deliveries go to the nodes (`Nodes::receive`, or counted at
//! once for a plain node's datagram), drops go to the ledger, a ready MAC
//! is fed (`feed`) from its queue discipline or a saturated source.
//!
//! Cells: one `Bss` per channel (`wlan.ap_channels`; one cell when every
//! AP shares a channel, the default). With several cells and no roaming,
//! a cell holds MACs for its own members only, numbered in node id order
//! (`members.rs`: the map from node ids to cells and indices; `Cells`
//! takes and gives node ids and translates at its edges). With roaming
//! every cell has a MAC for every WLAN member (member index = node id),
//! but a member takes part only in the cell of its WLAN interface
//! (`Node::wlan.cell`): only that cell's MAC is fed from the member's
//! queue, and a gate on each cell's error model fails every frame from or
//! to a member that is not in the cell (a radio on another channel hears
//! nothing of it). Idle MACs of absent members never transmit: nothing
//! feeds them.
//!
//! Invariants: `presence` is `Some` iff roaming is on, and then agrees
//! with every member's `Node::wlan.cell` (`ABSENT` for `DETACHED`); `map`
//! is `Some` iff there are several cells and no roaming; an output is
//! handled once, in the order its cell emitted it; packets a queue
//! discipline drops are in `dropped` only until the next `flush_drops`.
use super::flows::Flows;
use super::kernel::{Kernel, NO_TIMER};
use super::members::{MemberMap, NodeTap};
use super::nodes::Nodes;
use super::queues::Queues;
use super::shape::{General, Shape};
use super::Ev;
use crate::topology::{Hop, DETACHED};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;
use wifitcp_core::{DropReason, RngStream, SimTime};
use wifitcp_net::TimerKey;
use wifitcp_queue::Queued;
use wifitcp_wifi::mac::{AnyMac, Dcf, Demand, Frame, Mac, MacAddr, MacCounters};
use wifitcp_wifi::medium::{Bss, BssOutput, FrameErrorModel, FrameTap};
use wifitcp_wifi::phy::PhyStandard;
use wifitcp_wire::Packet;

/// Room for a cell's outputs of one call (a few: a wake-up, a frame's
/// end, a delivery and the next MSDU's request; more grow the list).
const OUTPUTS_RESERVED: usize = 8;

/// One channel's collision domain and its outputs not yet handled.
pub(super) struct Cell {
    bss: CellBss,
    out: Vec<BssOutput>,
}

impl Cell {
    /// A cell of medium `bss` (a `Bss<Dcf>` if every MAC is a plain DCF).
    /// (A wake-up at which every member finds the medium idle, the start
    /// of a run (10.3.4.2), starts a frame of each: their ends are one
    /// output, `BssOutput::TxEnd`.)
    pub(super) fn new(bss: Bss<AnyMac>) -> Cell {
        let out = Vec::with_capacity(OUTPUTS_RESERVED);
        Cell { bss: CellBss::specialise(bss), out }
    }
}

/// A cell's medium, by the MACs it holds: a cell whose every member runs
/// a plain DCF (every a/b/g scenario without beacons, PCF or EDCA) is a
/// `Bss<Dcf>`, so the medium's calls into the MAC are resolved at compile
/// time and inlined; any other cell is a `Bss<AnyMac>` (one `match` on the
/// MAC kind per call). The choice is made once, when the cell is built;
/// both behave identically (`AnyMac` adds no behaviour), the `Bss<Dcf>`
/// only costs fewer instructions per event.
enum CellBss {
    Dcf(Bss<Dcf>),
    Any(Bss<AnyMac>),
}

/// Evaluate `$body` with `$b` bound to the cell's `Bss`, whichever its MAC
/// type (one branch per call; none in the code for a shape of plain DCF
/// cells, `shape.rs`).
macro_rules! with_bss {
    ($shape:expr, $cell:expr, $b:ident => $body:expr) => {
        match $cell {
            CellBss::Dcf($b) => $body,
            CellBss::Any($b) => {
                if $shape.dcf() {
                    unreachable!("a medium of AnyMac in a world of plain DCF cells");
                }
                $body
            }
        }
    };
}

impl CellBss {
    /// The cell's medium as built, a `Bss<Dcf>` if every MAC is a plain DCF.
    fn specialise(bss: Bss<AnyMac>) -> CellBss {
        if bss.macs.iter().all(|m| matches!(m, AnyMac::Dcf(_))) {
            CellBss::Dcf(bss.map_macs(|m| match m {
                AnyMac::Dcf(d) => d,
                _ => unreachable!("checked: every MAC is a DCF"),
            }))
        } else {
            CellBss::Any(bss)
        }
    }

    /// The cell's medium with its MACs as `AnyMac` (for the metrics).
    fn into_any(self) -> Bss<AnyMac> {
        match self {
            CellBss::Dcf(b) => b.map_macs(AnyMac::Dcf),
            CellBss::Any(b) => b,
        }
    }
}

/// Which cell each WLAN member is in (`u32::MAX`: none, while it scans),
/// shared by the cells (which move members) and their gates.
pub(super) type Presence = Arc<[AtomicU32]>;

/// `Presence` value of a member in no cell.
const ABSENT: u32 = u32::MAX;

/// A cell's error model behind a gate: a frame whose transmitter or
/// receiver is not in this cell fails (success probability 0: a radio
/// tuned to another channel, or scanning, neither sends on this channel
/// nor receives from it). Frames among present members get the wrapped
/// model's answer unchanged. In a cell that holds only its own members
/// (`members.rs`) every member is present, and the gate shows the wrapped
/// model node ids instead of the cell's indices.
pub(super) struct CellGate {
    inner: Box<dyn FrameErrorModel>,
    cell: u32,
    /// `None`: every member of the cell is present.
    presence: Option<Presence>,
    /// Node id of each index of the cell (`None`: the index is the node
    /// id).
    nodes: Option<Arc<[u32]>>,
    /// The wrapped model's `may_hit_control_frames`.
    inner_hits_control: bool,
    /// The wrapped model's `may_hit_data_frames`.
    inner_hits_data: bool,
}

impl CellGate {
    /// `inner` gated for cell `cell` by `presence`.
    pub(super) fn new(inner: Box<dyn FrameErrorModel>, cell: u32, presence: Presence) -> CellGate {
        CellGate::with(inner, cell, Some(presence), None)
    }

    /// `inner` for a cell whose index `l` is member `nodes[l]`, each
    /// always present.
    pub(super) fn renumbered(inner: Box<dyn FrameErrorModel>, cell: u32, nodes: Arc<[u32]>) -> CellGate {
        CellGate::with(inner, cell, None, Some(nodes))
    }

    /// The gate, with what the inner model says it can hit taken once.
    fn with(
        inner: Box<dyn FrameErrorModel>,
        cell: u32,
        presence: Option<Presence>,
        nodes: Option<Arc<[u32]>>,
    ) -> CellGate {
        let (inner_hits_control, inner_hits_data) = (inner.may_hit_control_frames(), inner.may_hit_data_frames());
        CellGate { inner, cell, presence, nodes, inner_hits_control, inner_hits_data }
    }

    /// Whether both ends of a frame are in this cell.
    fn present(&self, ta: MacAddr, ra: MacAddr) -> bool {
        let Some(p) = &self.presence else { return true };
        let here = |a: MacAddr| p.get(a.0 as usize).is_none_or(|c| c.load(Ordering::Relaxed) == self.cell);
        here(ta) && here(ra)
    }

    /// A frame's ends as node ids for the inner model, or the (header,
    /// MPDUs) success parts the gate decides alone: (1, 0) when an end is
    /// not in this cell (no header draw, every MPDU lost), (1, 1) for a
    /// control frame when the inner model spares control frames (what the
    /// medium assumes of such a model).
    fn gate(&self, ta: MacAddr, ra: MacAddr, f: &Frame) -> Result<(MacAddr, MacAddr), (f64, f64)> {
        let (ta, ra) = (self.node(ta), self.node(ra));
        if !self.present(ta, ra) {
            return Err((1.0, 0.0));
        }
        if !self.inner_hits_control && !f.kind.carries_msdus() {
            return Err((1.0, 1.0));
        }
        Ok((ta, ra))
    }

    /// The node id of the cell's address `a` (unchanged if not a member).
    #[inline(always)]
    fn node(&self, a: MacAddr) -> MacAddr {
        match &self.nodes {
            None => a,
            Some(n) => n.get(a.0 as usize).map_or(a, |&g| MacAddr(g)),
        }
    }
}

impl FrameErrorModel for CellGate {
    fn success_prob(&mut self, now: SimTime, ta: MacAddr, ra: MacAddr, f: &Frame, rng: &mut RngStream) -> f64 {
        match self.gate(ta, ra, f) {
            Ok((ta, ra)) => self.inner.success_prob(now, ta, ra, f, rng),
            Err((header, mpdus)) => header * mpdus,
        }
    }
    fn ppdu_success_parts(
        &mut self,
        now: SimTime,
        ta: MacAddr,
        ra: MacAddr,
        f: &Frame,
        rng: &mut RngStream,
    ) -> (f64, f64) {
        match self.gate(ta, ra, f) {
            Ok((ta, ra)) => self.inner.ppdu_success_parts(now, ta, ra, f, rng),
            Err(parts) => parts,
        }
    }
    fn ru_success_parts(
        &mut self,
        now: SimTime,
        ta: MacAddr,
        ra: MacAddr,
        f: &Frame,
        ru: wifitcp_wifi::phy::ppdu::RuLink,
        rng: &mut RngStream,
    ) -> (f64, f64) {
        match self.gate(ta, ra, f) {
            Ok((ta, ra)) => self.inner.ru_success_parts(now, ta, ra, f, ru, rng),
            Err(parts) => parts,
        }
    }
    fn success_prob_with_interference(
        &mut self,
        now: SimTime,
        ta: MacAddr,
        ra: MacAddr,
        f: &Frame,
        ru: Option<wifitcp_wifi::phy::ppdu::RuLink>,
        chunks: &[(u64, f64)],
        rng: &mut RngStream,
    ) -> f64 {
        let (ta, ra) = (self.node(ta), self.node(ra));
        if !self.present(ta, ra) {
            return 0.0;
        }
        self.inner.success_prob_with_interference(now, ta, ra, f, ru, chunks, rng)
    }
    fn header_prob_with_interference(
        &mut self,
        now: SimTime,
        ta: MacAddr,
        ra: MacAddr,
        f: &Frame,
        ru: Option<wifitcp_wifi::phy::ppdu::RuLink>,
        chunks: &[(u64, f64)],
        rng: &mut RngStream,
    ) -> f64 {
        let (ta, ra) = (self.node(ta), self.node(ra));
        if !self.present(ta, ra) {
            return 0.0;
        }
        self.inner.header_prob_with_interference(now, ta, ra, f, ru, chunks, rng)
    }
    fn mean_rx_dbm(&self, ta: MacAddr, ra: MacAddr) -> Option<f64> {
        self.inner.mean_rx_dbm(self.node(ta), self.node(ra))
    }
    fn may_hit_control_frames(&self) -> bool {
        self.inner_hits_control
    }
    /// A gate with presence fails a frame with an absent end.
    fn may_hit_data_frames(&self) -> bool {
        self.presence.is_some() || self.inner_hits_data
    }
    fn position_of(&mut self, now: SimTime, i: usize) -> Option<wifitcp_wifi::channel::Position> {
        let i = self.node(MacAddr(i as u32)).0 as usize;
        self.inner.position_of(now, i)
    }
}

pub(super) struct Cells {
    /// One cell per channel, each with its outputs not yet handled: cell
    /// 0 (AP 0's channel, the only one in most scenarios) inline, the
    /// others after it (see `cell`).
    cell0: Cell,
    more_cells: Vec<Cell>,
    /// Cells that may have outputs not yet handled, one bit per cell
    /// (with several cells, set whenever a cell's medium is called with
    /// its `out`, `mark`): `drain_outputs` visits these, not every cell.
    dirty: Dirty,
    /// Cell of each WLAN member as the cells' gates see it (only with
    /// roaming, or several cells that each hold every member; see
    /// `CellGate`).
    presence: Option<Presence>,
    /// With several cells and no roaming, each cell holds MACs only for
    /// its own members: where each member is (`members.rs`); `None`: a
    /// member's index in every cell is its node id.
    map: Option<MemberMap>,
    /// Transmit queue discipline of each WLAN member's interface.
    wq: Queues,
    /// Timer key of each member's queue discipline (`NO_TIMER` if it is
    /// not timed).
    wq_timer: Vec<TimerKey>,
    /// Whether each member's queue discipline is idle (`QueueDisc::idle`):
    /// asking it for a packet would return nothing and change nothing, so
    /// `feed` does not (kept by `note_queue` after every call that can
    /// change what it holds).
    wq_idle: Vec<bool>,
    /// Whether each member's queue discipline can have a wake-up
    /// (`QueueDisc::timed`; a drop-tail queue has none, and no timer key).
    wq_timed: Vec<bool>,
    /// Class of each WLAN member as seen by the AP's queue discipline
    /// (read only: one table shared by the partitions of a run).
    ap_class: Arc<[u32]>,
    /// Saturated UDP flows by sending WLAN member (`Sat`; 16 bytes per
    /// member: a partition holds a slot for every member).
    saturated: Vec<Sat>,
    /// Packets a queue discipline just discarded (see `flush_drops`).
    dropped: Vec<(Packet, DropReason)>,
    /// Standard of the PHY (for the capture's radiotap headers).
    standard: PhyStandard,
}

impl Cells {
    /// The cells (cell 0 first), with the queue disciplines of the members
    /// and their timer keys.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn new(
        cells: Vec<Cell>,
        presence: Option<Presence>,
        map: Option<MemberMap>,
        wq: Queues,
        wq_timer: Vec<TimerKey>,
        ap_class: Arc<[u32]>,
        standard: PhyStandard,
    ) -> Cells {
        let mut c = Cells::finished(cells, presence, map, wq, ap_class, standard);
        // (the run loop's per-member tables)
        c.wq_idle = c.wq.iter().map(|q| q.idle()).collect();
        c.wq_timed = c.wq.iter().map(|q| q.timed()).collect();
        c.saturated = (0..c.wq.len()).map(|_| Sat::None).collect();
        c.wq_timer = wq_timer;
        c
    }

    /// The cells (cell 0 first) with the members' queue disciplines, as
    /// they are finished (`World::finish_with`) but not run: the run
    /// loop's per-member tables (saturated sources, the queues' idle and
    /// timed flags, timer keys) empty. `new` fills them; the cells merged
    /// back from a run's partitions are only finished, so that the end of
    /// a run allocates nothing per member for them.
    fn finished(
        mut cells: Vec<Cell>,
        presence: Option<Presence>,
        map: Option<MemberMap>,
        wq: Queues,
        ap_class: Arc<[u32]>,
        standard: PhyStandard,
    ) -> Cells {
        let more_cells = cells.split_off(1);
        let cell0 = cells.pop().expect("at least one cell");
        Cells {
            dirty: Dirty::new(more_cells.len() + 1),
            cell0,
            more_cells,
            presence,
            map,
            wq,
            wq_timer: Vec::new(),
            wq_idle: Vec::new(),
            wq_timed: Vec::new(),
            ap_class,
            saturated: Vec::new(),
            dropped: Vec::new(),
            standard,
        }
    }

    /// Whether this is one cell of plain DCFs holding every member at its
    /// node id, without presence gates (`shape.rs`, `OneDcfCell`).
    pub(super) fn one_dcf_cell(&self) -> bool {
        self.more_cells.is_empty()
            && self.map.is_none()
            && self.presence.is_none()
            && matches!(self.cell0.bss, CellBss::Dcf(_))
    }

    /// The member map, if the cells have one (never in the code for a
    /// one-cell shape, `shape.rs`).
    #[inline(always)]
    fn map(&self, shape: impl Shape) -> Option<&MemberMap> {
        shape.general(self.map.as_ref())
    }

    /// The presence table, if there is one (roaming; never in the code for
    /// a one-cell shape).
    #[inline(always)]
    fn presence(&self, shape: impl Shape) -> Option<&Presence> {
        shape.general(self.presence.as_ref())
    }

    /// Whether there are cells besides cell 0 (never in the code for a
    /// one-cell shape).
    #[inline(always)]
    fn several_cells(&self, shape: impl Shape) -> bool {
        !shape.one_cell() && !self.more_cells.is_empty()
    }

    /// Cell `c`.
    #[inline(always)]
    fn cell(&self, shape: impl Shape, c: usize) -> &Cell {
        if shape.one_cell() || c == 0 {
            &self.cell0
        } else {
            &self.more_cells[c - 1]
        }
    }

    /// Cell `c`, to change.
    #[inline(always)]
    fn cell_mut(&mut self, shape: impl Shape, c: usize) -> &mut Cell {
        if shape.one_cell() || c == 0 {
            &mut self.cell0
        } else {
            &mut self.more_cells[c - 1]
        }
    }

    /// Every cell, in index order.
    fn cells_mut(&mut self) -> impl Iterator<Item = &mut Cell> {
        std::iter::once(&mut self.cell0).chain(self.more_cells.iter_mut())
    }

    /// The cell that holds member `node`'s MAC in use (cell 0 when every
    /// cell holds every member and there is one cell), and its index there.
    #[inline(always)]
    fn at(&self, shape: impl Shape, node: usize) -> (usize, usize) {
        match self.map(shape) {
            None => (0, node),
            Some(m) => (m.cell(node), m.local(node)),
        }
    }

    /// Member `node`'s slot in the per-member tables (`wq`, `wq_timer`,
    /// `saturated`): its node id but in a partition (`MemberMap::slot`).
    #[inline(always)]
    fn slot(&self, shape: impl Shape, node: usize) -> usize {
        match self.map(shape) {
            None => node,
            Some(m) => m.slot(node),
        }
    }

    /// Member `node`'s index in cell `c` (which must hold it).
    #[inline(always)]
    fn local(&self, shape: impl Shape, node: usize) -> usize {
        match self.map(shape) {
            None => node,
            Some(m) => m.local(node),
        }
    }

    /// The node id of index `l` of cell `c`.
    #[inline(always)]
    fn node(&self, shape: impl Shape, c: usize, l: usize) -> usize {
        match self.map(shape) {
            None => l,
            Some(m) => m.node(c, l),
        }
    }

    /// Where WLAN member `i` is at `now`, if the channel has positions.
    pub(super) fn position_of(&mut self, now: SimTime, i: usize) -> Option<wifitcp_wifi::channel::Position> {
        let shape = General;
        let (c, l) = self.at(shape, i);
        let cell = self.cell_mut(shape, c);
        with_bss!(shape, &mut cell.bss, b => b.position_of(now, l))
    }

    /// Packets in WLAN member `i`'s transmit queue.
    pub(super) fn queue_len(&self, i: usize) -> usize {
        self.wq.get(self.slot(General, i)).len()
    }

    /// WLAN member `i`'s MAC counters, summed over the cells.
    pub(super) fn counters(&self, i: usize) -> MacCounters {
        let shape = General;
        if self.map.is_some() {
            let (c, l) = self.at(shape, i);
            return with_bss!(shape, &self.cell(shape, c).bss, b => b.macs[l].counters());
        }
        let mut sum = MacCounters::default();
        for c in std::iter::once(&self.cell0).chain(&self.more_cells) {
            with_bss!(shape, &c.bss, b => sum.add(&b.macs[i].counters()));
        }
        sum
    }

    /// Number of WLAN members.
    pub(super) fn members(&self) -> usize {
        self.map.as_ref().map_or(self.wq.len(), |m| m.nodes())
    }

    pub(super) fn standard(&self) -> PhyStandard {
        self.standard
    }

    /// Cell `c`'s medium wakes up.
    #[inline(always)]
    pub(super) fn wake(&mut self, shape: impl Shape, now: SimTime, c: usize) {
        self.mark(shape, c);
        let c = self.cell_mut(shape, c);
        with_bss!(shape, &mut c.bss, b => b.wake(now, &mut c.out))
    }

    /// Transmission `id` of cell `c` ends.
    #[inline(always)]
    pub(super) fn tx_end(&mut self, shape: impl Shape, now: SimTime, id: u32, c: usize) {
        self.mark(shape, c);
        let c = self.cell_mut(shape, c);
        with_bss!(shape, &mut c.bss, b => b.tx_end(now, id, &mut c.out))
    }

    /// Note that cell `c`'s medium is called with its `out` (the dirty
    /// set is read only with several cells: with one, `drain_outputs`
    /// drains cell 0 after every event).
    #[inline(always)]
    fn mark(&mut self, shape: impl Shape, c: usize) {
        if self.several_cells(shape) {
            self.dirty.set(c);
        }
    }

    /// Handle every output of the cells, in emission order within each
    /// cell, including the outputs emitted while handling earlier ones.
    /// With one cell (the usual case) this is one pass by index over its
    /// outputs; with several, passes in index order over the cells marked
    /// dirty (a cell marked while a pass is under way is drained in that
    /// pass if its index is higher, in the next pass otherwise) until none
    /// is left: the order of a scan of every cell per pass, at a cost
    /// independent of the number of cells.
    #[inline(always)]
    pub(super) fn drain_outputs(&mut self, shape: impl Shape, k: &mut Kernel, nodes: &mut Nodes, flows: &mut Flows) {
        if !self.several_cells(shape) {
            self.drain_cell(shape, k, nodes, flows, 0);
            return;
        }
        let mut from = 0;
        while let Some(c) = self.dirty.next_from(from) {
            if !self.cell(shape, c).out.is_empty() {
                self.drain_cell(shape, k, nodes, flows, c);
            }
            self.dirty.clear(c);
            from = c + 1;
        }
    }

    /// Handle every output of cell `c`. The `Bss` only appends to its
    /// `out`, so one pass by index sees them all in emission order (an
    /// output emitted while handling output k comes after every output
    /// emitted before it); the vector is cleared once at the end, so no
    /// output is moved. Always inlined into the run loop (once per event;
    /// profile-guided builds otherwise keep it out of line).
    #[inline(always)]
    fn drain_cell(&mut self, shape: impl Shape, k: &mut Kernel, nodes: &mut Nodes, flows: &mut Flows, c: usize) {
        let mut i = 0;
        while i < self.cell(shape, c).out.len() {
            self.handle_output(shape, k, nodes, flows, c, i);
            i += 1;
        }
        self.cell_mut(shape, c).out.clear();
    }

    /// Handle output `i` of cell `c` (its fields are copied out first, a
    /// delivery's packet handle moved out, leaving a wake-up at `NEVER` that
    /// nothing reads: handling it may append to `out`).
    #[inline(always)]
    fn handle_output(
        &mut self,
        shape: impl Shape,
        k: &mut Kernel,
        nodes: &mut Nodes,
        flows: &mut Flows,
        c: usize,
        i: usize,
    ) {
        let now = k.now();
        let cell = c as u16;
        match self.cell(shape, c).out[i] {
            BssOutput::Wake { at } => {
                k.push(shape, at, Ev::BssWake { cell });
            }
            BssOutput::TxEnd { id, n, at } => {
                k.push_tx_ends(shape, at, id, cell, n);
            }
            BssOutput::Deliver { sta, .. } => {
                let sta = self.node(shape, c, sta as usize);
                let BssOutput::Deliver { pkt, .. } =
                    std::mem::replace(&mut self.cell_mut(shape, c).out[i], BssOutput::Wake { at: SimTime::NEVER })
                else {
                    unreachable!()
                };
                if let Some(t) = &k.trace {
                    t.packet(now, sta, "wlan", "receive", &pkt, None);
                }
                // A UDP datagram of a flow for a plain node is only counted;
                // anything else is received (forwarded, handed to its
                // application or TCP endpoint, or dropped: an injected
                // packet of no flow).
                if nodes.counts_on_arrival(sta, &pkt) && flows.has(pkt.flow.idx()) {
                    flows.datagram_arrived(k, &pkt);
                } else {
                    nodes.receive(shape, k, self, flows, sta, std::rc::Rc::unwrap_or_clone(pkt));
                }
            }
            BssOutput::Dropped { sta, id, reason } => {
                let sta = self.node(shape, c, sta as usize);
                if let Some(t) = &k.trace {
                    t.row(now, sta, "wlan", "drop", id.0, None, None, Some(reason));
                }
                nodes.mac_dropped(sta, reason);
                k.ledger.drop(id, reason)
            }
            BssOutput::DiscardedAfterReceipt { .. } => k.ledger.late_drops += 1,
            // (the MAC of an absent member is never fed)
            BssOutput::Ready { sta } => {
                let sta = self.node(shape, c, sta as usize);
                if self.presence(shape).is_none() || nodes.topo().cell_of(sta) == c {
                    self.feed(shape, k, nodes, flows, sta)
                }
            }
            BssOutput::Airtime { sta, peer, airtime } => {
                let (sta, peer) = (self.node(shape, c, sta as usize), self.node(shape, c, peer as usize));
                // Airtime fairness at the AP (mac80211 style): charge the
                // station for frames sent to it and received from it.
                if nodes.topo().is_ap(sta) {
                    let s = self.slot(shape, sta);
                    if let Some(q) = self.wq.built_mut(s) {
                        q.on_airtime(peer as u32, airtime);
                    }
                } else if nodes.topo().is_ap(peer) {
                    let s = self.slot(shape, peer);
                    if let Some(q) = self.wq.built_mut(s) {
                        q.on_airtime(sta as u32, airtime);
                    }
                }
            }
        }
    }

    /// The MAC of `sta` can take a frame: give it the next packet of its
    /// queue discipline (for the receiver and traffic identifier it asks
    /// for, if it names them), or a fresh packet from a saturated source.
    pub(super) fn feed(&mut self, shape: impl Shape, k: &mut Kernel, nodes: &mut Nodes, flows: &mut Flows, sta: usize) {
        let now = k.now();
        // (one cell and no roaming: every member is in cell 0)
        // (roaming implies a presence table: one test for the plain case)
        let gated = self.presence(shape).is_some();
        let (c, l) = if gated { (nodes.topo().cell_of(sta), sta) } else { self.at(shape, sta) };
        if c == DETACHED {
            return; // scanning: the queue waits for the new AP
        }
        let Some(mut demand) = with_bss!(shape, &self.cell(shape, c).bss, b => b.demand(l)) else { return };
        if let (Some(ra), Some(_)) = (demand.ra, self.map(shape)) {
            demand.ra = Some(MacAddr(self.node(shape, c, ra.0 as usize) as u32));
        }
        let item = if gated && nodes.roaming() {
            self.dequeue_roaming(shape, k, nodes, flows, sta, demand)
        } else {
            self.dequeue_wlan(shape, now, sta, demand)
        };
        self.flush_drops(k, sta);
        if let Some(it) = item {
            if let Some(t) = &k.trace {
                t.packet(now, sta, "wlan", "dequeue", &it.pkt, None);
            }
            self.mark(shape, c);
            let ra = self.local(shape, it.dest as usize);
            let cell = self.cell_mut(shape, c);
            with_bss!(shape, &mut cell.bss, b => b.give_msdu(now, l, it.pkt, ra, &mut cell.out));
            self.qdisc_timer(shape, k, sta);
            return;
        }
        // (`ready_len` has no side effect: test the cheap conditions first.)
        let slot = self.slot(shape, sta);
        if matches!(self.saturated[slot], Sat::None) || (!self.wq_idle[slot] && self.wq.get(slot).ready_len() > 0) {
            return;
        }
        let active = |f: &SatFlow| flows.udp_active(f.fi as usize, now);
        let f = match &mut self.saturated[slot] {
            Sat::None => return,
            // The usual single flow: `Many` with one entry, its state in
            // place (in a cell of thousands, every pointer followed here
            // is a cache miss).
            Sat::One(f) => {
                if !active(f) {
                    return;
                }
                *f
            }
            // Round robin over the station's active saturated flows (no
            // allocation: this runs once per saturated packet).
            Sat::Many(m) => {
                let Saturated { list, cursor } = &mut **m;
                let n_active = list.iter().filter(|f| active(f)).count();
                if n_active == 0 {
                    return;
                }
                *cursor = (*cursor + 1) % n_active;
                list.iter().copied().filter(|f| active(f)).nth(*cursor).expect("counted")
            }
        };
        let (fi, hop) = (f.fi as usize, f.hop);
        let p = flows.saturated_datagram(k, fi, f.msdu_bytes);
        if let Some(t) = &k.trace {
            t.packet(now, sta, "wlan", "dequeue", &p, None);
        }
        match hop {
            Hop::Wlan { ra } => {
                let ra = ra as usize;
                let ra = if gated && nodes.roaming() {
                    if nodes.topo().is_station(sta) {
                        nodes.topo().ap_of(sta) // (its AP since the last hand-off)
                    } else if nodes.left_ap(sta, ra) {
                        // an AP's source for a station that left it: over the wire
                        return nodes.send_from(shape, k, self, flows, sta, p);
                    } else {
                        ra
                    }
                } else {
                    ra
                };
                self.mark(shape, c);
                let ra = self.local(shape, ra);
                let cell = self.cell_mut(shape, c);
                with_bss!(shape, &mut cell.bss, b => b.give_msdu(now, l, p, ra, &mut cell.out))
            }
            _ => nodes.send_from(shape, k, self, flows, sta, p),
        }
    }

    /// [`Cells::dequeue_wlan`] with roaming: frames an AP still queues for
    /// a station that has left it are dropped or forwarded
    /// (`Nodes::left_behind`), and a station's frames queued before a
    /// hand-off go to its new AP.
    #[inline(never)]
    fn dequeue_roaming(
        &mut self,
        shape: impl Shape,
        k: &mut Kernel,
        nodes: &mut Nodes,
        flows: &mut Flows,
        sta: usize,
        demand: Demand,
    ) -> Option<Queued> {
        loop {
            let mut it = self.dequeue_wlan(shape, k.now(), sta, demand)?;
            if nodes.left_ap(sta, it.dest as usize) {
                nodes.left_behind(shape, k, self, flows, sta, it);
                continue;
            }
            if nodes.topo().is_station(sta) {
                it.dest = nodes.topo().ap_of(sta) as u32;
            }
            return Some(it);
        }
    }

    /// The next packet of `sta`'s queue discipline for what its MAC asks.
    #[inline(always)]
    fn dequeue_wlan(&mut self, shape: impl Shape, now: SimTime, sta: usize, demand: Demand) -> Option<Queued> {
        let s = self.slot(shape, sta);
        if self.wq_idle[s] {
            return None;
        }
        let it = if demand == Demand::ANY {
            self.wq.get_mut(s).dequeue(now, &mut self.dropped)
        } else {
            self.wq.get_mut(s).dequeue_for(now, demand.ra.map(|a| a.0), demand.tid, &mut self.dropped)
        };
        self.note_queue(s);
        it
    }

    /// After a call that can change what slot `s`'s queue discipline
    /// holds: whether it is now idle (`wq_idle`).
    #[inline(always)]
    fn note_queue(&mut self, s: usize) {
        self.wq_idle[s] = self.wq.get(s).idle();
    }

    /// Queue `p` at member `sta`'s WLAN interface for member `ra`, and
    /// feed its MAC if it is ready.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn enqueue(
        &mut self,
        shape: impl Shape,
        k: &mut Kernel,
        nodes: &mut Nodes,
        flows: &mut Flows,
        sta: usize,
        p: Packet,
        ra: usize,
    ) {
        let class = if nodes.topo().is_ap(sta) { self.ap_class[ra] } else { 0 };
        if let Some(t) = &k.trace {
            t.packet(k.now(), sta, "wlan", "enqueue", &p, None);
        }
        let s = self.slot(shape, sta);
        self.wq.get_mut(s).enqueue(k.now(), Queued::new(p, ra as u32, class), &mut self.dropped);
        self.note_queue(s);
        self.flush_drops(k, sta);
        self.feed(shape, k, nodes, flows, sta);
        self.qdisc_timer(shape, k, sta);
    }

    /// The queue discipline of `sta` wakes up.
    #[inline(always)]
    pub(super) fn qdisc_fires(
        &mut self,
        shape: impl Shape,
        k: &mut Kernel,
        nodes: &mut Nodes,
        flows: &mut Flows,
        sta: usize,
    ) {
        let s = self.slot(shape, sta);
        self.wq.get_mut(s).on_timer(k.now(), &mut self.dropped);
        self.note_queue(s);
        self.flush_drops(k, sta);
        self.feed(shape, k, nodes, flows, sta);
        self.qdisc_timer(shape, k, sta);
    }

    /// The packets the queue discipline of `sta` just discarded.
    #[inline]
    fn flush_drops(&mut self, k: &mut Kernel, sta: usize) {
        if self.dropped.is_empty() {
            return; // the common case, three times per forwarded packet
        }
        if let Some(t) = &k.trace {
            for (p, r) in &self.dropped {
                t.packet(k.now(), sta, "wlan", "drop", p, Some(*r));
            }
        }
        for (p, r) in self.dropped.drain(..) {
            k.ledger.drop(p.id, r);
        }
    }

    /// Arm the timer of `sta`'s queue discipline for its next wake-up.
    pub(super) fn qdisc_timer(&mut self, shape: impl Shape, k: &mut Kernel, sta: usize) {
        let s = self.slot(shape, sta);
        if !self.wq_timed[s] {
            return;
        }
        k.arm(shape, self.wq_timer[s], self.wq.get(s).next_wakeup());
    }

    /// Member `sta` is now in `cell` (or `DETACHED`), for the gates.
    pub(super) fn set_presence(&self, sta: usize, cell: usize) {
        if let Some(p) = &self.presence {
            p[sta].store(if cell == DETACHED { ABSENT } else { cell as u32 }, Ordering::Relaxed);
        }
    }

    /// Member `sta` sends saturated flow `fi` (MSDUs of `msdu_bytes`),
    /// whose first hop is `hop`.
    pub(super) fn add_saturated(&mut self, sta: usize, fi: usize, hop: Hop, msdu_bytes: u32) {
        let s = self.slot(General, sta);
        let f = SatFlow { fi: fi as u32, hop, msdu_bytes };
        self.saturated[s] = match std::mem::take(&mut self.saturated[s]) {
            Sat::None => Sat::One(f),
            Sat::One(g) => Sat::Many(Box::new(Saturated { list: vec![g, f], cursor: 0 })),
            Sat::Many(mut m) => {
                m.list.push(f);
                Sat::Many(m)
            }
        };
    }

    // ------------------------------------------------------------------
    // Building, taps and the end of the run.

    /// Tell the media to report airtime if a queue discipline uses it.
    pub(super) fn report_airtime_if_used(&mut self) {
        let airtime = self.wq.iter().any(|q| q.uses_airtime());
        for c in self.cells_mut() {
            with_bss!(General, &mut c.bss, b => b.set_report_airtime(airtime));
        }
    }

    /// Let every MAC schedule its first wake-up (outputs to drain).
    pub(super) fn reschedule_all(&mut self) {
        for c in self.cells_mut() {
            with_bss!(General, &mut c.bss, b => b.reschedule_all(&mut c.out));
        }
        for c in 0..=self.more_cells.len() {
            self.dirty.set(c);
        }
    }

    /// Add a tap to the medium's (a capture and a trace may both listen).
    /// With several cells the tap sees cell 0's frames (AP 0's channel)
    /// only: a monitor radio listens on one channel.
    pub(super) fn add_frame_tap(&mut self, tap: Box<dyn FrameTap>) {
        let shape = General;
        // (addresses as node ids when cell 0's indices are not)
        let tap: Box<dyn FrameTap> = match &self.map {
            None => tap,
            Some(m) => Box::new(NodeTap { inner: tap, members: m.members(0).clone() }),
        };
        let tap = match with_bss!(shape, &mut self.cell0.bss, b => b.take_tap()) {
            None => tap,
            Some(old) => Box::new(crate::trace::Taps(vec![old, tap])),
        };
        with_bss!(shape, &mut self.cell0.bss, b => b.set_tap(Some(tap)));
    }

    /// Remove the medium's taps (dropping them flushes what they hold).
    pub(super) fn drop_taps(&mut self) {
        drop(with_bss!(General, &mut self.cell0.bss, b => b.take_tap()));
    }

    /// Undo the media's grouping of bystanders (their counters are read
    /// per MAC from here on).
    pub(super) fn ungroup_all(&mut self) {
        for c in self.cells_mut() {
            with_bss!(General, &mut c.bss, b => b.ungroup_all());
        }
    }

    /// The cells' media with their MACs as `AnyMac`, the queue
    /// disciplines, and where each member's MAC is when a cell holds only
    /// its own members (for the metrics: (cell, index) by node id).
    #[allow(clippy::type_complexity)]
    pub(super) fn into_parts(self) -> (Vec<Bss<AnyMac>>, Queues, Option<Arc<[(u32, u32)]>>) {
        // (the whole run's cells: a member's slot is its node id, and the
        // map's own table is the answer, shared rather than copied)
        let at = self.map.as_ref().map(MemberMap::whole_at);
        let cells =
            std::iter::once(self.cell0.bss).chain(self.more_cells.into_iter().map(|c| c.bss)).map(|b| b.into_any());
        (cells.collect(), self.wq, at)
    }
}

// ----------------------------------------------------------------------
// Partitioned runs (`part.rs`).

/// What stays of the cells while their partitions run: the map of every
/// member, the AP classes and the standard (the queue disciplines and
/// their timer keys are the partitions').
pub(super) struct CellsShell {
    map: MemberMap,
    ap_class: Arc<[u32]>,
    standard: PhyStandard,
}

/// A member's saturated UDP flows: none, the usual one, or several.
#[derive(Default)]
enum Sat {
    #[default]
    None,
    One(SatFlow),
    Many(Box<Saturated>),
}

/// A saturated UDP flow of a member: the flow, its first hop (the
/// topology is static) and its MSDU size (`Source::saturated`).
#[derive(Clone, Copy)]
struct SatFlow {
    fi: u32,
    msdu_bytes: u32,
    hop: Hop,
}

/// Several saturated flows of one member, and the round-robin cursor over
/// the active ones.
struct Saturated {
    list: Vec<SatFlow>,
    cursor: usize,
}

impl Cells {
    /// Whether the cells can be split among partitions: several cells,
    /// each holding its own members only (no roaming), no
    /// queue discipline drop pending, no output to handle (the cells as
    /// built, before their first wake-ups; a frame tap is added only
    /// later, by a driver of a sequential run).
    pub(super) fn partitionable(&self) -> bool {
        self.map.is_some()
            && self.presence.is_none()
            && self.dropped.is_empty()
            && std::iter::once(&self.cell0).chain(self.more_cells.iter()).all(|c| c.out.is_empty())
    }

    /// The cells split among partitions, partition p holding cells
    /// `cells_of[p]` (consecutive; together every cell once), renumbered
    /// from 0 in that order, with their members' queue disciplines and
    /// saturated sources (a source's flow renumbered by `flow_local`, its
    /// index in its partition's flows), each at its slot in the
    /// partition (`MemberMap::part`: only the partition's own members).
    pub(super) fn split(self, cells_of: &[Vec<usize>], flow_local: &[usize]) -> (Vec<Cells>, CellsShell) {
        let map = self.map.expect("partitionable: a member map");
        let mut all: Vec<Option<Cell>> = std::iter::once(self.cell0).chain(self.more_cells).map(Some).collect();
        let (mut wq, mut saturated) = (self.wq, self.saturated);
        let parts = cells_of
            .iter()
            .map(|cs| {
                let own: Vec<Cell> = cs.iter().map(|&c| all[c].take().expect("each cell in one partition")).collect();
                let size: usize = cs.iter().map(|&c| map.members(c).len()).sum();
                let mut pwq = wq.empty_like(size);
                let mut psat: Vec<Sat> = Vec::with_capacity(size);
                // (in slot order: cell, then index in the cell)
                for (slot, &node) in cs.iter().flat_map(|&c| map.members(c).iter()).enumerate() {
                    let node = node as usize;
                    pwq.put(slot, wq.take(node));
                    let mut sat = std::mem::take(&mut saturated[node]);
                    match &mut sat {
                        Sat::None => {}
                        Sat::One(f) => f.fi = flow_local[f.fi as usize] as u32,
                        Sat::Many(m) => m.list.iter_mut().for_each(|f| f.fi = flow_local[f.fi as usize] as u32),
                    }
                    psat.push(sat);
                }
                let mut part = Cells::new(
                    own,
                    None,
                    Some(map.part(cs)),
                    pwq,
                    // (each partition registers its own keys:
                    // `register_qdisc_timers`)
                    Vec::new(),
                    self.ap_class.clone(),
                    self.standard,
                );
                part.saturated = psat;
                part
            })
            .collect();
        (parts, CellsShell { map, ap_class: self.ap_class, standard: self.standard })
    }

    /// Members whose queue discipline may ask for a wake-up (a timer key
    /// each, `register_qdisc_timers`; a partition's: its own members).
    pub(super) fn timed_qdiscs(&self) -> usize {
        self.wq_timed.iter().filter(|&&t| t).count()
    }

    /// Register a new timer key for the queue discipline of each member
    /// of these cells with `register` (a partition's own registry), in
    /// cell and index order (the members' slot order).
    pub(super) fn register_qdisc_timers(&mut self, mut register: impl FnMut(usize) -> TimerKey) {
        let map = self.map.as_ref().expect("a partition's member map");
        let mut keys = Vec::with_capacity(self.wq.len());
        for c in 0..map.cells() {
            for &node in map.members(c).iter() {
                let timed = self.wq_timed[keys.len()];
                keys.push(if timed { register(node as usize) } else { NO_TIMER });
            }
        }
        self.wq_timer = keys;
    }

    /// Ids of the packets the cells' MACs hold, and the packets the
    /// queue disciplines hold (a partition's ledger check, `part.rs`).
    pub(super) fn held(&self) -> (Vec<wifitcp_core::PacketId>, u64) {
        let ids = std::iter::once(&self.cell0)
            .chain(self.more_cells.iter())
            .flat_map(|c| with_bss!(General, &c.bss, b => b.packets_in_service().map(|p| p.id).collect::<Vec<_>>()))
            .collect();
        (ids, self.wq.iter().map(|q| q.len() as u64).sum())
    }

    /// The cells of the partitions back in global order (`cells_of` as
    /// given to [`Cells::split`]); the saturated sources and the queue
    /// disciplines' timer keys are not kept (only the run's end reads the
    /// merged cells).
    pub(super) fn merge(parts: Vec<Cells>, cells_of: &[Vec<usize>], shell: CellsShell) -> Cells {
        let CellsShell { map, ap_class, standard } = shell;
        let mut wq = parts.first().expect("a partition").wq.empty_like(map.nodes());
        let mut all: Vec<Option<Cell>> = (0..map.cells()).map(|_| None).collect();
        for (part, cs) in parts.into_iter().zip(cells_of) {
            let Cells { cell0, more_cells, wq: mut pwq, .. } = part;
            for (cell, &c) in std::iter::once(cell0).chain(more_cells).zip(cs) {
                all[c] = Some(cell);
            }
            // (the partition's slot order: cell, then index in the cell)
            for (slot, node) in cs.iter().flat_map(|&c| map.members(c).iter()).enumerate() {
                wq.put(*node as usize, pwq.take(slot));
            }
        }
        let cells = all.into_iter().map(|c| c.expect("every cell back")).collect();
        Cells::finished(cells, None, Some(map), wq, ap_class, standard)
    }
}

// ----------------------------------------------------------------------
// Groups of a windowed run (`window.rs`).

impl Cells {
    /// Whether a windowed run's group can hold a copy of these cells: each
    /// cell holds only its own members (several cells, no roaming).
    pub(super) fn windowable(&self) -> bool {
        self.map.is_some() && self.presence.is_none()
    }

    /// The cells a group holds live, taken from `other`, a group's copy of
    /// the same world: cell `c` and its members' queue disciplines are
    /// exchanged with `other`'s.
    pub(super) fn swap_cell(&mut self, other: &mut Cells, c: usize) {
        let shape = General;
        std::mem::swap(self.cell_mut(shape, c), other.cell_mut(shape, c));
        let map = self.map.as_ref().expect("windowable: a member map");
        for &node in map.members(c).iter() {
            self.wq.swap(&mut other.wq, node as usize);
        }
    }

    /// The ids of the packets cells `cs` hold in service, and the number
    /// their members' queue disciplines hold.
    pub(super) fn held_in(&self, cs: &[usize]) -> (Vec<wifitcp_core::PacketId>, u64) {
        let shape = General;
        let map = self.map.as_ref().expect("windowable: a member map");
        let mut ids = Vec::new();
        let mut queued = 0;
        for &c in cs {
            with_bss!(shape, &self.cell(shape, c).bss, b => ids.extend(b.packets_in_service().map(|p| p.id)));
            queued += map.members(c).iter().map(|&n| self.wq.get(n as usize).len() as u64).sum::<u64>();
        }
        (ids, queued)
    }
}

/// A set of cell indices (one bit each), visited in increasing order.
struct Dirty(Vec<u64>);

impl Dirty {
    fn new(cells: usize) -> Dirty {
        Dirty(vec![0; cells.div_ceil(64)])
    }

    #[inline(always)]
    fn set(&mut self, c: usize) {
        self.0[c / 64] |= 1 << (c % 64);
    }

    #[inline(always)]
    fn clear(&mut self, c: usize) {
        self.0[c / 64] &= !(1 << (c % 64));
    }

    /// The lowest index in the set at or above `from`, else the lowest
    /// in the set (a new pass), else none.
    #[inline]
    fn next_from(&self, from: usize) -> Option<usize> {
        let above = |from: usize| {
            let (w0, b0) = (from / 64, from % 64);
            for (w, &word) in self.0.iter().enumerate().skip(w0) {
                let word = if w == w0 { word & (u64::MAX << b0) } else { word };
                if word != 0 {
                    return Some(w * 64 + word.trailing_zeros() as usize);
                }
            }
            None
        };
        above(from).or_else(|| above(0))
    }
}

#[cfg(test)]
mod tests {
    use super::{Dirty, Sat};

    #[test]
    fn a_members_saturated_slot_is_16_bytes() {
        // (one per member in every cell's table: the usual single flow
        // held in place, with no pointer to follow)
        assert_eq!(std::mem::size_of::<Sat>(), 16);
    }

    #[test]
    fn dirty_cells_visit_in_passes() {
        let mut d = Dirty::new(130);
        assert_eq!(d.next_from(0), None);
        for c in [3, 64, 129] {
            d.set(c);
        }
        assert_eq!(d.next_from(0), Some(3));
        assert_eq!(d.next_from(4), Some(64));
        assert_eq!(d.next_from(65), Some(129));
        d.clear(129);
        assert_eq!(d.next_from(65), Some(3), "wraps to a new pass");
        d.clear(3);
        d.clear(64);
        assert_eq!(d.next_from(0), None);
    }
}

//! Cells that hold MACs only for their own members.
//!
//! A cell's `Bss` numbers its MACs from 0 (`MacAddr` = index in the cell,
//! an invariant of the medium). A scenario whose members never change
//! cell (several cells, no roaming) gives each cell only the MACs of the
//! members on its channel, numbered by node id order: [`MemberMap`] takes
//! a node id to its cell and its index there and back. The cells translate
//! at their edges (`Cells`: node ids in, node ids out), the cell's error
//! model sees node ids (`CellGate`), and a capture or trace of cell 0 sees
//! frames with node ids as addresses ([`NodeTap`]); nothing inside the
//! medium or the MACs depends on the numbering but the order of its
//! members, which is the node ids' order.
//!
//! With roaming (a member may move to any cell) or one cell, every cell
//! holds a MAC for every member, the index is the node id, and there is no
//! map. The memory of a MAC is paid once per member instead of once per
//! member and cell: 64 cells of 100 stations hold 6,464 MACs, not 64 x
//! 6,464.
//!
//! A partition (`part.rs`) holds consecutive cells; its map shares the
//! whole run's table of where each member is, and numbers its own members
//! from 0 in (cell, index) order: their slots in the partition's
//! per-member tables (queue disciplines, timers, saturated sources), which
//! therefore hold only its own members, not a slot for every member of
//! the run in every partition.
//!
//! Invariants: `at[node]` is `(first + c, l)` iff `members[c][l] == node`;
//! each cell's `members` is increasing (so index order is node id order);
//! a partition's slots are `base[c] + l`, `base` the running sum of its
//! cells' sizes.
use std::sync::Arc;
use wifitcp_core::SimTime;
use wifitcp_wifi::mac::{Frame, MacAddr};
use wifitcp_wifi::medium::FrameTap;
use wifitcp_wire::Packet;

/// Where each WLAN member's MAC is: its cell and its index there.
pub(super) struct MemberMap {
    /// Per node id: (cell of the whole run, index in the cell); one table
    /// shared by a run's partitions.
    at: Arc<[(u32, u32)]>,
    /// The run's cell that is this map's cell 0 (0 but in a partition).
    first: u32,
    /// Per cell: the node id of each of its members, by index.
    members: Vec<Arc<[u32]>>,
    /// A partition's map: the slot of each cell's member 0 (`None`: a
    /// member's slot is its node id).
    base: Option<Vec<u32>>,
}

impl MemberMap {
    /// The map of `cell_of` (the cell of every WLAN member, by node id)
    /// over `cells` cells.
    pub(super) fn new(cell_of: &[usize], cells: usize) -> MemberMap {
        let mut lists: Vec<Vec<u32>> = vec![Vec::new(); cells];
        let mut at = Vec::with_capacity(cell_of.len());
        for (node, &c) in cell_of.iter().enumerate() {
            at.push((c as u32, lists[c].len() as u32));
            lists[c].push(node as u32);
        }
        MemberMap { at: at.into(), first: 0, members: lists.into_iter().map(Arc::from).collect(), base: None }
    }

    /// The map of a partition holding cells `cells` (consecutive) of this
    /// map, renumbered from 0 in that order (`part.rs`), its members with
    /// slots numbered from 0 in (cell, index) order; members of other
    /// cells map outside its cells (a partition never looks them up).
    pub(super) fn part(&self, cells: &[usize]) -> MemberMap {
        assert!(cells.windows(2).all(|w| w[1] == w[0] + 1), "a partition's cells are consecutive");
        let mut base = Vec::with_capacity(cells.len());
        let mut slots = 0u32;
        for &c in cells {
            base.push(slots);
            slots += self.members[c].len() as u32;
        }
        MemberMap {
            at: self.at.clone(),
            first: self.first + cells.first().map_or(0, |&c| c as u32),
            members: cells.iter().map(|&c| self.members[c].clone()).collect(),
            base: Some(base),
        }
    }

    /// The whole run's table, (cell, index in the cell) by node id (a
    /// map of the whole run, not a partition's: its cells are the run's).
    pub(super) fn whole_at(&self) -> Arc<[(u32, u32)]> {
        assert!(self.first == 0 && self.base.is_none(), "the whole run's map");
        self.at.clone()
    }

    /// Number of WLAN members of the whole run.
    pub(super) fn nodes(&self) -> usize {
        self.at.len()
    }

    /// Number of cells.
    pub(super) fn cells(&self) -> usize {
        self.members.len()
    }

    /// Node ids of cell `c`'s members, by index in the cell.
    pub(super) fn members(&self, c: usize) -> &Arc<[u32]> {
        &self.members[c]
    }

    /// The cell of member `node`.
    #[inline(always)]
    pub(super) fn cell(&self, node: usize) -> usize {
        self.at[node].0.wrapping_sub(self.first) as usize
    }

    /// The index of member `node` in its cell.
    #[inline(always)]
    pub(super) fn local(&self, node: usize) -> usize {
        self.at[node].1 as usize
    }

    /// The slot of member `node` in the per-member tables (its node id
    /// but in a partition).
    #[inline(always)]
    pub(super) fn slot(&self, node: usize) -> usize {
        match &self.base {
            None => node,
            Some(base) => {
                let (c, l) = self.at[node];
                (base[c.wrapping_sub(self.first) as usize] + l) as usize
            }
        }
    }

    /// The node id of the member at index `l` of cell `c`.
    #[inline(always)]
    pub(super) fn node(&self, c: usize, l: usize) -> usize {
        self.members[c][l] as usize
    }
}

/// A frame tap of a cell whose indices are not node ids: shows the wrapped
/// tap each frame with its addresses as node ids (a capture names nodes).
pub(super) struct NodeTap {
    pub(super) inner: Box<dyn FrameTap>,
    pub(super) members: Arc<[u32]>,
}

impl FrameTap for NodeTap {
    fn frame(&mut self, now: SimTime, f: &Frame, msdu: Option<&Packet>) {
        let mut g = f.clone();
        let node = |a: MacAddr| self.members.get(a.0 as usize).map_or(a, |&n| MacAddr(n));
        g.ta = node(f.ta);
        g.ra = node(f.ra);
        self.inner.frame(now, &g, msdu);
    }
}

#[cfg(test)]
mod tests {
    use super::MemberMap;

    #[test]
    fn node_ids_map_to_cells_and_back() {
        let m = MemberMap::new(&[0, 1, 0, 2, 1], 3);
        assert_eq!(&m.members(0)[..], &[0, 2]);
        assert_eq!(&m.members(1)[..], &[1, 4]);
        assert_eq!(&m.members(2)[..], &[3]);
        for node in 0..5 {
            assert_eq!(m.node(m.cell(node), m.local(node)), node);
        }
        assert_eq!((m.cell(4), m.local(4)), (1, 1));
        assert_eq!(m.slot(4), 4);
    }

    #[test]
    fn a_partition_numbers_its_own_members() {
        let m = MemberMap::new(&[0, 1, 0, 2, 1, 2, 1], 3);
        let p = m.part(&[1, 2]);
        assert_eq!(p.cells(), 2);
        // cell 1 (now 0): nodes 1, 4, 6; cell 2 (now 1): nodes 3, 5
        let slots: Vec<usize> = [1, 4, 6, 3, 5].iter().map(|&n| p.slot(n)).collect();
        assert_eq!(slots, [0, 1, 2, 3, 4]);
        for node in [1, 4, 6, 3, 5] {
            assert_eq!(p.node(p.cell(node), p.local(node)), node);
        }
        assert_eq!((p.cell(5), p.local(5)), (1, 1));
        assert_eq!(p.nodes(), 7);
    }
}

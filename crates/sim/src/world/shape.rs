//! The shape of a world, as the run loop's code knows it.
//!
//! Most worlds are one cell of plain DCFs: every WLAN member's MAC sits
//! in cell 0 at its node id, no presence gates, one partition. The run
//! loop is compiled once for that shape ([`OneDcfCell`]) and once for any
//! world ([`General`]); `World::step_until` picks one when it starts
//! (`World::shape`). The code is the same (the functions of `cells.rs`,
//! `nodes.rs`, `flows.rs` on the event path are generic over the shape);
//! in the one-cell instance the tests for the general case (member map,
//! several cells, gates, the order by partition, a medium of `AnyMac`)
//! are constants and compile away. Both give the same results (golden
//! digests, the partitioned tests).
//!
//! Invariant: a shape value is passed only while the world has that shape
//! (`World::shape` checks every condition it assumes; none changes while
//! the world runs).

/// What the run loop may assume of the world it runs.
pub(super) trait Shape: Copy {
    /// One cell that holds every WLAN member at its node id (no member
    /// map), no presence gates, and events in insertion order (no order by
    /// partition: `kernel.rs`).
    const ONE_CELL: bool;
    /// Every cell's medium is a `Bss<Dcf>` (`cells.rs`, `CellBss::Dcf`).
    const DCF: bool;

    #[inline(always)]
    fn one_cell(self) -> bool {
        Self::ONE_CELL
    }
    #[inline(always)]
    fn dcf(self) -> bool {
        Self::DCF
    }
    /// `x`, a structure only the general case has (the member map, the
    /// presence gates, the order by partition), or `None` in the one-cell
    /// shape, where it is absent and the tests of it compile away.
    #[inline(always)]
    fn general<T>(self, x: Option<T>) -> Option<T> {
        if Self::ONE_CELL {
            None
        } else {
            x
        }
    }
}

/// Any world.
#[derive(Clone, Copy)]
pub(super) struct General;

impl Shape for General {
    const ONE_CELL: bool = false;
    const DCF: bool = false;
}

/// One cell of plain DCFs, members at their node ids, one partition.
#[derive(Clone, Copy)]
pub(super) struct OneDcfCell;

impl Shape for OneDcfCell {
    const ONE_CELL: bool = true;
    const DCF: bool = true;
}

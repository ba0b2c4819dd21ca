//! Channel access: when a station may start a frame exchange on its own
//! (IEEE 802.11-2020 10.3.2 carrier sense and IFS, 10.3.4 backoff, 10.22.2
//! EDCA). One layer for every MAC that contends: the DCF is one backoff
//! entity, EDCA four, and the medium's bystander group counts with the same
//! rules (`crate::medium` group).
//!
//! Pieces, one file each:
//! - `deferral.rs`: [`Deferral`], a station's view of the medium (physical
//!   CCA, the NAV, the EIFS condition, its own busy period) and the IFS it
//!   waits before counting;
//! - `backoff.rs`: [`Backoff`], one backoff entity (contention window and
//!   the countdown, derived from timestamps), and [`CountRule`], which slot
//!   boundaries decrement the counter;
//! - `arrival.rs`: [`Intake`], whether a frame handed to the MAC found
//!   the transmit queue empty, which with the medium busy invokes the
//!   backoff procedure ([`Backoff::frame_arrives`], 10.3.4.2-10.3.4.3);
//! - `internal.rs`: internal collisions between the entities of one
//!   station (10.22.2.4);
//! - `mu_edca.rs`: [`MuEdca`], an entity's switch to the MU EDCA
//!   parameters after trigger-based uplink and back when its timer runs
//!   out (802.11ax-2021 26.2.7).
//!
//! Nothing runs per slot. While the medium is free an entity holds the
//! instant its counting starts (`count_from`, the end of its IFS) and the
//! slots it had left then, so it may transmit at `count_from + slots x
//! aSlotTime` (or when its frame arrives, if later: at once for the DCF,
//! 10.3.4.2, at the next slot boundary for an EDCAF, 10.22.2.4). When the
//! medium turns busy, the slot boundaries that passed are subtracted
//! ([`CountRule`]) and counting stops until the medium is free again.
//!
//! Invariants: `count_from` is set only while the station's medium is free
//! (CCA idle, NAV expired, no exchange of its own) and lies at least one IFS
//! after the instant it became free; a counter never grows except by a new
//! draw; the transmit instant is a pure function of the state, so a caller
//! can ask it after every input (`Backoff::tx_at`).
mod arrival;
mod backoff;
mod deferral;
mod internal;
mod mu_edca;
#[cfg(test)]
mod tests;

pub use arrival::Intake;
pub use backoff::{Backoff, CountRule, Slotting};
pub use deferral::{CsView, Deferral, IfsTimes};
pub use internal::{resolve_internal, Due};
pub use mu_edca::{MuEdca, MuEdcaParams};

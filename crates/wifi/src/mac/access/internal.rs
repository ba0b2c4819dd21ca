//! Internal collisions between the backoff entities of one station
//! (10.22.2.4): when the countdowns of several EDCAFs end at one instant,
//! the highest-priority one transmits; each other one doubles its CW and
//! draws a new backoff as after an external collision.
//!
//! Deviation: the retry counts of the losers' MPDUs are not incremented
//! (10.22.2.4 says the lower-priority EDCAF acts "as if" it had collided,
//! which includes the retry count; here only CW grows, so no MPDU is
//! discarded for an internal collision).
use super::Backoff;
use wifitcp_core::RngStream;

/// One entity whose countdown ends now, with its priority (higher wins)
/// and its CWmax.
#[derive(Clone, Copy, Debug)]
pub struct Due {
    pub index: usize,
    pub priority: u8,
    pub cw_max: u32,
}

/// Resolve the entities due at one instant: returns the winner's index
/// (its backoff consumed) and the number of internal collisions; each
/// loser's CW grows and it draws a new backoff, counted from the next idle
/// period.
pub fn resolve_internal(entities: &mut [Backoff], due: &[Due], rng: &mut RngStream) -> Option<(usize, u32)> {
    let winner = due.iter().max_by_key(|d| d.priority)?.index;
    let mut lost = 0;
    for d in due.iter().filter(|d| d.index != winner) {
        lost += 1;
        let b = &mut entities[d.index];
        b.grow_cw(d.cw_max);
        b.restart(b.draw(rng));
    }
    entities[winner].consume();
    Some((winner, lost))
}

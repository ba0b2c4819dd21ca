//! Enhanced distributed channel access (EDCA, IEEE 802.11-2020 10.22.2):
//! the four access categories, their default parameters and the mapping
//! of user priorities to them. The EDCA MAC that contends with these
//! parameters builds on the `Mac` trait; this module holds the standard's
//! tables, checked by their own tests.
mod params;

pub use params::{AccessCategory, EdcaParams, EdcaSet};

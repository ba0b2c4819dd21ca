//! The shape of a scenario key, shared by every component that owns a
//! section of the scenario: its dotted path, type, default, physical range,
//! unit and one line of documentation.
//!
//! Each component keeps the keys of its own section beside its config
//! struct (a queue discipline's in `wifitcp-queue`, TCP's in `wifitcp-tcp`,
//! the channel's and the PHY's in `wifitcp-wifi`), with paths relative to
//! the section; the simulator mounts them into one table (`wifitcp-sim`'s
//! `config::schema`), which validates scenarios and generates the key
//! reference. Ranges are physical bounds, not the papers' values.
/// Type of a key's value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ty {
    Float,
    Int,
    Bool,
    Str,
    /// An array of numbers (nested arrays allowed, e.g. positions).
    Floats,
    Ints,
    /// An array of strings.
    Strs,
    /// A table (its keys are listed under its own path).
    Table,
    /// An array of tables.
    Tables,
    /// A string or an array (see the key's description).
    Any,
}

impl Ty {
    pub fn name(self) -> &'static str {
        match self {
            Ty::Float => "float",
            Ty::Int => "integer",
            Ty::Bool => "boolean",
            Ty::Str => "string",
            Ty::Floats => "array of floats",
            Ty::Ints => "array of integers",
            Ty::Strs => "array of strings",
            Ty::Table => "table",
            Ty::Tables => "array of tables",
            Ty::Any => "string or array",
        }
    }
    pub fn numeric(self) -> bool {
        matches!(self, Ty::Float | Ty::Int | Ty::Floats | Ty::Ints)
    }
}

/// A bound of a range: inclusive or exclusive.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum B {
    In(f64),
    Ex(f64),
}

/// One key of the schema.
#[derive(Clone, Copy, Debug)]
pub struct Key {
    /// Dotted pattern, relative to the section that owns the key (the
    /// simulator's table prefixes the section): `[]` stands for any array
    /// index; the sections mounted in several places are written once:
    /// `qdisc.*` (for `ap.qdisc` and `wlan.station_qdisc`), `tcp.*` (for
    /// `[tcp]` and `traffic[].tcp`).
    pub path: &'static str,
    /// The `kind` (qdisc) or `model` (channel) values the key belongs to;
    /// empty: every one.
    pub when: &'static [&'static str],
    pub ty: Ty,
    /// JSON text of the default, or a description of how it is derived.
    pub default: &'static str,
    /// Range of numbers (of each element for arrays); `None` for
    /// non-numeric keys.
    pub range: Option<(B, B)>,
    pub unit: &'static str,
    pub doc: &'static str,
}

pub const fn k(
    path: &'static str,
    ty: Ty,
    default: &'static str,
    range: Option<(B, B)>,
    unit: &'static str,
    doc: &'static str,
) -> Key {
    Key { path, when: &[], ty, default, range, unit, doc }
}
pub const fn kw(
    path: &'static str,
    when: &'static [&'static str],
    ty: Ty,
    default: &'static str,
    range: Option<(B, B)>,
    unit: &'static str,
    doc: &'static str,
) -> Key {
    Key { path, when, ty, default, range, unit, doc }
}
pub const fn r(lo: B, hi: B) -> Option<(B, B)> {
    Some((lo, hi))
}
use B::{Ex, In};

/// Largest packet count of any buffer (packets).
pub const PKTS: Option<(B, B)> = r(In(1.0), In(1e6));
/// Simulated times (s): the run length is at most 1e6 s.
pub const SIM_S: Option<(B, B)> = r(In(0.0), In(1e6));
/// Timer values in ms: positive, at most 1e7 ms (2.8 h).
pub const TIMER_MS: Option<(B, B)> = r(Ex(0.0), In(1e7));
pub const PROB: Option<(B, B)> = r(In(0.0), In(1.0));
/// Positions in metres.
pub const POS_M: Option<(B, B)> = r(In(-1e6), In(1e6));
/// WLAN rates: 802.11a/b/g rates are 1..54 Mbit/s; the PHY checks the rate
/// set itself.
pub const WLAN_RATE: Option<(B, B)> = r(Ex(0.0), In(1e4));
/// PHY timing overrides in us: 802.11 values are tens of us.
pub const PHY_US: Option<(B, B)> = r(In(0.0), In(1e4));
pub const DB: Option<(B, B)> = r(In(-300.0), In(300.0));
pub const DBM: Option<(B, B)> = r(In(-200.0), In(90.0));

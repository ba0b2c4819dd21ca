//! The keys of the `[ap.proxy]` table, relative to it: `kind`, `node` and
//! every kind's constants, with their types, defaults and physical ranges.
//! The simulator mounts them into its scenario schema (validation and the
//! key reference in docs/scenarios.md). A new proxy kind adds its rows
//! here next to its fields in `config.rs`.
use wifitcp_core::schema::Ty::*;
use wifitcp_core::schema::B::{Ex, In};
use wifitcp_core::schema::{k, r, Key, PKTS, TIMER_MS};

pub static KEYS: &[Key] = &[
    k(
        "kind",
        Str,
        "required",
        None,
        "",
        "\"none\", \"snoop\", \"itcp\" or \"dproxy\" (D-Proxy, also at every station).",
    ),
    k("node", Str, "every AP", None, "", "The AP (BSS member name) to run at."),
    k(
        "cache_packets",
        Int,
        "150 (snoop), 512 (dproxy)",
        PKTS,
        "packets",
        "snoop, dproxy: cached segments per flow at the AP.",
    ),
    k("local_rto_min_ms", Float, "250.0", TIMER_MS, "ms", "snoop: floor of the local retransmission timer."),
    k("local_rto_initial_ms", Float, "250.0", TIMER_MS, "ms", "snoop: local timer before an RTT sample."),
    k("max_local_retransmissions", Int, "4", r(In(0.0), In(255.0)), "", "snoop: local retransmissions of one segment."),
    k(
        "relay_buffer_bytes",
        Int,
        "262144",
        r(In(1.0), In(1e9)),
        "bytes",
        "itcp: bytes relayed and not yet acknowledged by the receiving side.",
    ),
    k("wired_tcp", Table, "[tcp]", None, "", "itcp: the AP-to-wired-host connection (a tcp table over [tcp])."),
    k("wireless_tcp", Table, "[tcp]", None, "", "itcp: the AP-to-station connection (a tcp table over [tcp])."),
    k("buffer_packets", Int, "150", PKTS, "packets", "dproxy: station half's buffer, shared by its flows."),
    k(
        "rerequest_multipliers",
        Floats,
        "[2.0, 3.0, 4.0]",
        r(Ex(0.0), In(1e3)),
        "",
        "dproxy: re-request times in mean retransmission times; strictly increasing.",
    ),
    k("catchup_packets", Int, "5", PKTS, "packets", "dproxy: segments released before input is checked again."),
    k("initial_rtx_time_ms", Float, "5.0", TIMER_MS, "ms", "dproxy: mean retransmission time before the first sample."),
    k("request_port", Int, "7070", r(In(1.0), In(65535.0)), "", "dproxy: UDP port of the AP half."),
];

#[cfg(test)]
mod tests {
    #[test]
    fn the_kind_row_names_every_registered_kind() {
        let doc = super::KEYS.iter().find(|k| k.path == "kind").unwrap().doc;
        for name in crate::config::kinds() {
            assert!(doc.contains(&format!("{name:?}")), "{name} missing from: {doc}");
        }
    }

    #[test]
    fn every_key_of_a_kind_has_a_row() {
        for p in crate::config::PROXIES {
            for key in p.keys {
                assert!(super::KEYS.iter().any(|k| k.path == *key), "{}: {key} has no row", p.name);
            }
        }
    }
}

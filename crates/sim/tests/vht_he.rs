//! 802.11ac (VHT) and 802.11ax (HE SU) under the HCF in whole runs: one
//! saturated station against the cycle-time arithmetic of 802.11-2020
//! 21.4.3 and 802.11ax-2021 27.4.3 (every MPDU in an A-MPDU, a single one as
//! an S-MPDU), a 256-MPDU HE agreement, HE ER SU, and the bad-input errors
//! of the VHT/HE keys.
mod common;

use common::{err, run};
use serde_json::{json, Value};

fn sat(phy: Value, max_mpdus: u32) -> Value {
    // A queue of 1000 packets, so that 64 MPDUs are always waiting.
    let mut mac = json!({"kind": "edca", "max_mpdus": max_mpdus, "max_ampdu_bytes": 1_048_575, "queue_packets": 1000});
    if max_mpdus == 1 {
        mac["block_ack"] = json!(false);
    }
    json!({
        "scenario": {"name": "vht-he", "duration_s": 3.0, "warmup_s": 0.5},
        "phy": phy,
        "mac": mac,
        "wlan": {"stations": 1},
        "traffic": [{"name": "t", "kind": "udp", "pattern": "saturated", "direction": "uplink",
                     "stations": "all", "msdu_bytes": 1500}]
    })
}

/// PSDU of n MPDUs of 1530 octets (QoS header 26 + MSDU 1500 + FCS 4):
/// subframes of 4 + 1530 + 2 pad = 1536 octets, the last unpadded; one
/// MPDU as an S-MPDU (4 + 1530).
fn psdu(n: u32) -> u32 {
    (n - 1) * 1536 + 1534
}

/// Mean cycle of one saturated station (us): AIFS[BE] 43, 7.5 slots of
/// 9 us, the PPDU, SIFS, the Ack (28 us) or compressed BlockAck (32 us) at
/// 24 Mbit/s.
fn cycle(ppdu_us: f64, n: u32) -> f64 {
    43.0 + 7.5 * 9.0 + ppdu_us + 16.0 + if n == 1 { 28.0 } else { 32.0 }
}

fn check(phy: Value, ppdu_us: impl Fn(u32) -> f64) {
    for (max, n) in [(1u32, 1u32), (8, 8), (64, 64)] {
        let want = (n * 1464 * 8) as f64 / cycle(ppdu_us(psdu(n)), n);
        let r = run(&sat(phy.clone(), max));
        let got = r["aggregate_mbps"].as_f64().unwrap();
        assert!(
            (got / want - 1.0).abs() < 0.01,
            "{phy} max {max}: {got:.2} Mbit/s, cycle arithmetic {want:.2}: {}",
            r["stations"][1]["hcf"]
        );
        assert_eq!(r["stations"][1]["hcf"]["mean_mpdus_per_ppdu"].as_f64().unwrap(), n as f64);
    }
}

#[test]
fn vht_80_mhz_mcs_9_saturation_matches_the_cycle_time() {
    // VHT SU, one stream, long GI: 40 us preamble (one VHT-LTF, VHT-SIG-B),
    // N_DBPS 1560, one encoder; 64 MPDUs: 99 838 octets, 513 symbols.
    let phy = json!({"standard": "802.11ac", "mcs": 9, "channel_width_mhz": 80});
    check(phy, |b| 40.0 + 4.0 * ((8 * b + 22) as f64 / 1560.0).ceil());
}

#[test]
fn he_80_mhz_mcs_11_saturation_matches_the_cycle_time() {
    // HE SU, one stream, 0.8 us GI: 36 us + one 7.2 us HE-LTF, N_DBPS 8166,
    // 13.6 us symbols.
    let phy = json!({"standard": "802.11ax", "mcs": 11, "channel_width_mhz": 80, "guard_interval": "0.8us"});
    check(phy, |b| 43.2 + 13.6 * ((8 * b + 22) as f64 / 8166.0).ceil());
}

#[test]
fn he_256_mpdu_agreement_matches_the_cycle_time() {
    // HE MCS 11, 80 MHz, one stream, a 256-MPDU BlockAck agreement: 256
    // MPDUs (393,214 octets) in 43.2 + 386 x 13.6 = 5292.8 us, under
    // aPPDUMaxTime; the compressed BlockAck with a 256-bit bitmap is 56
    // octets: 20 + 4 x ceil((16 + 448 + 6) / 96) = 40 us at 24 Mbit/s.
    let phy = json!({"standard": "802.11ax", "mcs": 11, "channel_width_mhz": 80});
    let mut s = sat(phy, 256);
    s["mac"]["block_ack_window"] = json!(256);
    s["mac"]["max_ampdu_bytes"] = json!(8_388_607);
    let ppdu = 43.2 + 13.6 * ((8 * psdu(256) + 22) as f64 / 8166.0).ceil();
    let want = (256 * 1464 * 8) as f64 / (43.0 + 7.5 * 9.0 + ppdu + 16.0 + 40.0);
    let r = run(&s);
    let got = r["aggregate_mbps"].as_f64().unwrap();
    assert!((got / want - 1.0).abs() < 0.01, "{got:.2} Mbit/s, cycle arithmetic {want:.2}");
    assert_eq!(r["stations"][1]["hcf"]["mean_mpdus_per_ppdu"].as_f64().unwrap(), 256.0);
}

#[test]
fn he_er_su_saturation_matches_the_cycle_time() {
    // HE ER SU MCS 2 (QPSK 3/4, N_DBPS 351), 1.6 us GI: 52 us preamble
    // (HE-SIG-A 16 us, one 8 us HE-LTF), 14.4 us symbols; 8 MPDUs.
    let phy = json!({"standard": "802.11ax", "mcs": 2, "he_format": "er_su", "guard_interval": "1.6us"});
    let n = 8;
    let want = (n * 1464 * 8) as f64 / cycle(52.0 + 14.4 * ((8 * psdu(n) + 22) as f64 / 351.0).ceil(), n);
    let got = run(&sat(phy, n))["aggregate_mbps"].as_f64().unwrap();
    assert!((got / want - 1.0).abs() < 0.01, "{got:.3} Mbit/s, cycle arithmetic {want:.3}");
}

#[test]
fn bad_vht_and_he_input_names_the_key() {
    let vht = json!({"standard": "802.11ac", "mcs": 9, "channel_width_mhz": 80});
    let cases: Vec<(Value, Value, &str)> = vec![
        (
            json!({"mcs": 9, "channel_width_mhz": 20}),
            json!({}),
            "phy.mcs: VHT MCS 9 with 1 spatial stream(s) at 20 MHz",
        ),
        (json!({"mcs": 6, "spatial_streams": 3}), json!({}), "phy.mcs: VHT MCS 6 with 3 spatial stream(s) at 80 MHz"),
        (json!({"channel_width_mhz": 320}), json!({}), "phy.channel_width_mhz:"),
        (json!({"guard_interval": "3.2us"}), json!({}), "phy.guard_interval: 802.11ac has"),
        (json!({"he_format": "er_su"}), json!({}), "phy.he_format: an 802.11ax key"),
        (json!({}), json!({"max_ampdu_bytes": 2_000_000}), "mac.max_ampdu_bytes: must be 1600-1048575"),
        (json!({}), json!({"kind": "pcf"}), "mac.kind: 802.11ac sends every data frame in an A-MPDU"),
        (
            json!({}),
            json!({"block_ack_window": 128}),
            "mac.block_ack_window: the compressed bitmap covers 1 to 64 MPDUs",
        ),
        (json!({}), json!({"kind": "dcf"}), "mac.kind: 802.11ac sends QoS Data under the HCF"),
        (json!({"standard": "802.11ax", "mcs": 12}), json!({}), "phy.mcs: must be in [0, 11], got 12"),
        (json!({"standard": "802.11ax", "mcs": 3, "he_format": "er_su"}), json!({}), "phy.he_format: an HE ER SU PPDU"),
        (json!({"standard": "802.11ax", "mcs": 0, "band_ghz": 2.4}), json!({}), "phy.band_ghz: 802.11ax is modelled"),
        (json!({"standard": "802.11ax", "mcs": 0, "packet_extension_us": 20}), json!({}), "phy.packet_extension_us:"),
    ];
    for (phy, mac, want) in cases {
        let mut s = sat(vht.clone(), 8);
        for (k, x) in phy.as_object().unwrap() {
            s["phy"][k] = x.clone();
        }
        for (k, x) in mac.as_object().unwrap() {
            s["mac"][k] = x.clone();
        }
        if s["mac"]["kind"] != json!("edca") {
            for k in ["max_mpdus", "max_ampdu_bytes"] {
                s["mac"].as_object_mut().unwrap().remove(k);
            }
        }
        let e = err(&s);
        assert!(e.contains(want), "{s}: {e}");
    }
}

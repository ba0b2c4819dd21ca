//! 802.11ax downlink OFDMA in whole runs (`mac.ofdma`): saturated downlink
//! against the cycle arithmetic of `wifitcp_wifi::mac::hcf::mu` (and so
//! ns-3 3.37, docs/validation.md 23.5), TCP downloads with the packet
//! ledger checked, unchanged single-user runs with the key off, and the
//! bad-input errors of the OFDMA keys.
mod common;

use common::{err, run};
use serde_json::{json, Value};

fn dl(n: u32, ofdma: &str, nsta: u32) -> Value {
    json!({
        "scenario": {"name": "ofdma", "duration_s": 2.5, "warmup_s": 0.5},
        "phy": {"standard": "802.11ax", "mcs": 11, "channel_width_mhz": 80, "guard_interval": "0.8us"},
        "mac": {"kind": "edca", "queue_packets": 1000, "bar_after_missed_ba": true,
                "ofdma": ofdma, "mu_n_stations": nsta},
        "wlan": {"stations": n},
        "traffic": [{"name": "t", "kind": "udp", "pattern": "saturated", "direction": "downlink",
                     "stations": "all", "msdu_bytes": 1500}]
    })
}

fn ap_hcf(r: &Value) -> &Value {
    &r["stations"][0]["hcf"]
}

/// 4 stations on four 242-tone RUs (42 MPDUs each), and 9 stations with
/// NStations 9 on eight 106-tone RUs (27 MPDUs each, aPPDUMaxTime): the
/// cycle arithmetic's 516.1 and 461.0 Mbit/s within 1 %, every station
/// served alike.
#[test]
fn saturated_downlink_ofdma_matches_the_cycle_arithmetic() {
    for (n, nsta, want, mpdus) in [(4, 4, 516.1, 42.0), (9, 9, 461.0, 27.0)] {
        let r = run(&dl(n, "dl", nsta));
        let got = r["aggregate_msdu_mbps"].as_f64().unwrap();
        assert!((got / want - 1.0).abs() < 0.01, "n {n}: {got} Mbit/s, {}", ap_hcf(&r));
        assert_eq!(ap_hcf(&r)["mean_mpdus_per_ppdu"].as_f64().unwrap(), mpdus);
        assert!(r["jain_index"].as_f64().unwrap() > 0.999);
        assert!(ap_hcf(&r)["mu_ppdus"].as_u64().unwrap() > 300);
    }
}

/// With the key off the AP sends single-user A-MPDUs (no MU PPDU counted).
#[test]
fn off_is_single_user() {
    let r = run(&dl(4, "off", 4));
    assert!(ap_hcf(&r).get("mu_ppdus").is_none());
    assert!(r["aggregate_msdu_mbps"].as_f64().unwrap() > 300.0);
}

/// Single-user downlink to 4 and 9 stations: with per-receiver MAC queues
/// of 1000 MSDUs (`mac.mac_queue_packets`, ns-3's WifiMacQueue as
/// bench/ns3/he-ofdma.cc sets it) every A-MPDU holds the 42 MPDUs that
/// 65,535 octets allow and the cell carries the cycle arithmetic's
/// 472.6 Mbit/s (ns-3: 470.66 and 470.73); without them the AP fills each
/// A-MPDU with one receiver's share of the 64 MSDUs it took in arrival
/// order, fewer the more receivers share them.
#[test]
fn single_user_downlink_fills_each_ampdu_from_its_receivers_queue() {
    for n in [4, 9] {
        let mut s = dl(n, "off", 4);
        s["mac"]["mac_queue_packets"] = json!(1000);
        let r = run(&s);
        let got = r["aggregate_msdu_mbps"].as_f64().unwrap();
        assert!((got / 472.6 - 1.0).abs() < 0.01, "n {n}: {got} Mbit/s, {}", ap_hcf(&r));
        assert_eq!(ap_hcf(&r)["mean_mpdus_per_ppdu"].as_f64().unwrap(), 42.0);
        assert!(r["jain_index"].as_f64().unwrap() > 0.999);
        let r0 = run(&dl(n, "off", 4));
        let m0 = ap_hcf(&r0)["mean_mpdus_per_ppdu"].as_f64().unwrap();
        assert!(m0 < 30.0, "n {n}: {m0} MPDUs per A-MPDU without MAC queues");
        assert!(r0["aggregate_msdu_mbps"].as_f64().unwrap() < 0.95 * got);
    }
}

/// TCP downloads through the AP's per-receiver MAC queues: the ledger
/// balances and the TCP streams stay intact (both checked in every run),
/// every flow moves.
#[test]
fn tcp_downloads_through_mac_queues_keep_the_ledger() {
    let mut s = tcp_over_ofdma("macq-tcp", "off", "downlink");
    s["mac"]["mac_queue_packets"] = json!(500);
    four_flows_move(&run(&s), "");
}

/// The result's four flows each carry more than 10 Mbit/s of goodput.
fn four_flows_move(r: &Value, what: &str) {
    let flows = r["flows"].as_array().unwrap();
    assert_eq!(flows.len(), 4, "{what}");
    for f in flows {
        assert!(f["goodput_mbps"].as_f64().unwrap() > 10.0, "{what}: {f}");
    }
}

/// One TCP flow per station between 4 HE stations (MCS 11, 80 MHz) and a
/// server behind the AP, in `direction`, with `mac.ofdma = ofdma`; 2 s.
fn tcp_over_ofdma(name: &str, ofdma: &str, direction: &str) -> Value {
    let flow = if direction == "downlink" { "down" } else { "up" };
    json!({
        "scenario": {"name": name, "duration_s": 2.0, "warmup_s": 0.5},
        "phy": {"standard": "802.11ax", "mcs": 11, "channel_width_mhz": 80, "guard_interval": "0.8us"},
        "mac": {"kind": "edca", "queue_packets": 1000, "ofdma": ofdma},
        "wlan": {"stations": 4},
        "ap": {"queue_packets": 1000},
        "nodes": [{"name": "server"}],
        "links": [{"a": "ap", "b": "server", "rate_mbps": 10000.0, "delay_ms": 1.0, "queue_packets": 1000}],
        "tcp": {"cc": "cubic", "sack": true, "timestamps": true, "window_scaling": true, "rwnd_bytes": 4194304},
        "traffic": [{"name": flow, "kind": "tcp", "direction": direction, "stations": "all", "peer": "server"}]
    })
}

/// TCP downloads to 4 stations over downlink OFDMA, their ACKs going up as
/// SU EDCA exchanges that may collide with the AP's MU PPDUs: the run ends
/// with the packet ledger balanced and TCP streams intact (both checked in
/// every run), every flow moving.
#[test]
fn tcp_downloads_over_ofdma_keep_the_ledger() {
    let s = tcp_over_ofdma("ofdma-tcp", "dl", "downlink");
    let r = run(&s);
    assert!(ap_hcf(&r)["mu_ppdus"].as_u64().unwrap() > 100, "{}", ap_hcf(&r));
    four_flows_move(&r, "");
}

#[test]
fn ofdma_keys_are_checked() {
    let mut s = dl(4, "dl", 4);
    s["phy"] = json!({"standard": "802.11ac", "mcs": 9, "channel_width_mhz": 80});
    assert!(err(&s).contains("mac.ofdma: OFDMA needs phy.standard = \"802.11ax\""), "{}", err(&s));
    let s = dl(4, "sideways", 4);
    assert!(err(&s).contains("mac.ofdma"), "{}", err(&s));
    let mut s = dl(4, "dl", 4);
    s["mac"]["block_ack"] = json!(false);
    assert!(err(&s).contains("mac.ofdma: MU PPDUs are acknowledged by BlockAck"), "{}", err(&s));
    let mut s = dl(4, "ul", 4);
    s["mac"]["mu_access_req_interval_us"] = json!(-1.0);
    assert!(err(&s).contains("mac.mu_access_req_interval_us"), "{}", err(&s));
    let mut s = dl(4, "ul", 4);
    s["mac"]["mu_bsr_lifetime_us"] = json!(0.0);
    assert!(err(&s).contains("mac.mu_bsr_lifetime_us"), "{}", err(&s));
    let mut s = dl(4, "dl", 0);
    s["mac"]["mu_n_stations"] = json!(0);
    assert!(err(&s).contains("mac.mu_n_stations"), "{}", err(&s));
    let mut s = dl(4, "dl", 4);
    s["mac"]["mu_dl_ack"] = json!("bar");
    assert!(err(&s).contains("mac.mu_dl_ack"), "{}", err(&s));
}

fn placed(positions: Value) -> Value {
    let mut s = dl(2, "dl", 4);
    s["wlan"] = json!({"stations": 2, "positions": positions});
    s["channel"] = json!({"model": "snr"});
    s
}

/// Under the SNR channel each user's PSDU is judged at its own link: a
/// station 3 m from the AP gets its MSDUs at HE MCS 11, one 30 m away
/// (about 13 dB over 80 MHz, far too little for MCS 11, enough for the
/// 24 Mbit/s control frames) gets none, in the same MU PPDUs. (The far
/// station's retransmissions and BlockAckReqs take most of the AP's
/// airtime, as they do without OFDMA.)
#[test]
fn each_user_meets_its_own_channel() {
    let r = run(&placed(json!([[3.0, 0.0], [0.0, 30.0]])));
    let flows = r["flows"].as_array().unwrap();
    let near = flows[0]["goodput_mbps"].as_f64().unwrap();
    let far = flows[1]["goodput_mbps"].as_f64().unwrap();
    assert!(near > 20.0 && far < 0.5, "near {near}, far {far}: {}", ap_hcf(&r));
    assert!(ap_hcf(&r)["mu_ppdus"].as_u64().unwrap() > 500);
}

/// A cell that needs per-station carrier sense (stations 600 m apart: 2 us
/// of propagation), or asks for it (`channel.reception`), refuses
/// downlink OFDMA, whose HE MU PPDU is judged once for all its users; it
/// runs uplink OFDMA.
#[test]
fn downlink_ofdma_needs_the_shared_medium() {
    let e = err(&placed(json!([[300.0, 0.0], [-300.0, 0.0]])));
    assert!(e.contains("mac.ofdma: downlink OFDMA runs on cells where every station hears every other"), "{e}");
    let mut s = placed(json!([[1.0, 0.0], [-1.0, 0.0]]));
    s["channel"]["reception"] = json!("per_receiver");
    assert!(err(&s).contains("mac.ofdma: downlink OFDMA"), "{}", err(&s));
}

/// Uplink OFDMA with reception per receiver in ns-3's geometry
/// (scenarios/he-ofdma-ul.toml: stations on a 1 m circle, Triggers at 6
/// Mbit/s): the run keeps the ledger, and carries less than on the shared
/// medium (HE TB PPDUs after a Trigger that collided with an A-MPDU meet
/// it at the AP, which sends no multi-STA BlockAck for them;
/// docs/validation.md 23.5: 317.52 Mbit/s over 3.5 s, 346.00 on the
/// shared medium of scenarios/he-ofdma-ul.toml; 2 % less here).
#[test]
fn uplink_ofdma_per_receiver() {
    let mut s = ul(4, "ul", 4);
    s["wlan"] = json!({"stations": 4, "distance_m": 1.0});
    s["channel"] = json!({"model": "snr"});
    s["mac"]["mu_trigger_rate_mbps"] = json!(6.0);
    let shared = run(&s)["aggregate_msdu_mbps"].as_f64().unwrap();
    s["channel"]["reception"] = json!("per_receiver");
    let per = run(&s)["aggregate_msdu_mbps"].as_f64().unwrap();
    eprintln!("shared {shared:.2}, per receiver {per:.2}");
    assert!(per < 0.99 * shared && per > 0.8 * shared, "shared {shared}, per receiver {per}");
    s["mac"]["mu_trigger_rate_mbps"] = json!(7.0);
    assert!(err(&s).contains("mac.mu_trigger_rate_mbps"), "{}", err(&s));
}

/// Uplink OFDMA with reception per receiver where frames also fail alone
/// (HE MCS 7, stations 12 and 22.5 m from the AP, Triggers at 6 Mbit/s):
/// Triggers that collided with a station's A-MPDU still reach the others,
/// and the AP, its medium busy with that A-MPDU as its wait began, gives
/// the exchange up before their HE TB PPDU ends, so no multi-STA BlockAck
/// follows. The runs keep the packet ledger (the AP passes up the shares
/// it decoded, `ul_exchange.rs`), and a station whose EDCAF wins while its
/// share still waits for that BlockAck starts nothing on the link and
/// backs off again from then (`Hcf::start_txop`).
#[test]
fn uplink_ofdma_per_receiver_keeps_the_ledger() {
    for d in [12.0, 22.5] {
        let mut s = ul(4, "ul", 4);
        s["scenario"] = json!({"name": "ofdma-per-receiver", "duration_s": 2.5, "warmup_s": 1.5});
        s["phy"]["mcs"] = json!(7);
        s["mac"]["max_ampdu_bytes"] = json!(65535);
        s["mac"]["mu_trigger_rate_mbps"] = json!(6.0);
        s["wlan"] = json!({"stations": 4, "distance_m": d});
        s["channel"] = json!({"model": "snr", "reception": "per_receiver"});
        let r = run(&s);
        assert!(r["aggregate_msdu_mbps"].as_f64().unwrap() > 50.0, "{d} m: {}", r["aggregate_msdu_mbps"]);
    }
}

fn ul(n: u32, ofdma: &str, nsta: u32) -> Value {
    let mut s = dl(n, ofdma, nsta);
    s["mac"]["mu_access_req_interval_us"] = json!(1000.0);
    s["traffic"][0]["direction"] = json!("uplink");
    s
}

/// Saturated uplink over trigger-based OFDMA (the setting of
/// scenarios/he-ofdma-ul.toml): the AP triggers, every station's HE TB
/// data share holds 42 MPDUs (its SU A-MPDUs too), the stations are
/// served alike, and the run carries about what single user does (four
/// 42-MPDU shares per 5.48 ms HE TB PPDU, a QoS Null round each time the
/// AP's buffer status reports expire, a BlockAckReq where a station owes
/// one; the stations' SU A-MPDUs between Triggers): 0.8-1.0 times it, the
/// HE TB PPDU's 5.48 ms carrying 3.9 ms of data (the rest padding), 4 x 42
/// MPDUs in 5.6 ms against an SU A-MPDU's 42 in 1.06 ms
/// (docs/validation.md 23.5 compares it with ns-3).
#[test]
fn saturated_uplink_ofdma_runs() {
    let off = run(&ul(4, "off", 4))["aggregate_msdu_mbps"].as_f64().unwrap();
    let r = run(&ul(4, "ul", 4));
    let got = r["aggregate_msdu_mbps"].as_f64().unwrap();
    assert!(got > 0.8 * off && got < off, "ul {got}, off {off}");
    assert!(r["jain_index"].as_f64().unwrap() > 0.95);
    let ap = &r["stations"][0];
    assert!(ap["attempts"].as_u64().unwrap() > 200, "{ap}");
    // The AP sends Triggers only (no downlink data): its attempts are its
    // Basic Triggers; each station reports its HE TB shares of data.
    assert_eq!(ap["hcf"]["basic_triggers"], ap["attempts"], "{ap}");
    for s in &r["stations"].as_array().unwrap()[1..] {
        assert_eq!(s["hcf"]["mean_mpdus_per_ppdu"].as_f64().unwrap(), 42.0);
        let (shares, ppdus) = (s["hcf"]["tb_data_shares"].as_u64().unwrap(), s["hcf"]["data_ppdus"].as_u64().unwrap());
        assert!(shares > 100 && shares < ppdus, "{shares} HE TB shares of {ppdus} data PPDUs");
    }
    // "dl+ul" with uplink traffic alone: the scheduler has no downlink
    // data, so it triggers as "ul" does.
    let both = run(&ul(4, "dl+ul", 4));
    assert_eq!(both["aggregate_msdu_mbps"], r["aggregate_msdu_mbps"]);
}

/// Under the SNR channel a station's share of an HE TB PPDU carries its
/// whole power on its RU (`TxVector::ru_error_params`): a station 7 m
/// from the AP (about 32 dB over 80 MHz, under HE MCS 11's 34 dB 50 %
/// point for a 1500-octet PSDU) gets almost nothing through in single-user
/// A-MPDUs, and its MSDUs through on its 242-tone RU (6 dB more per tone)
/// when triggered, beside three stations 2 m away.
#[test]
fn an_uplink_share_gains_the_power_of_its_ru() {
    let placed = |ofdma: &str| {
        let mut s = ul(4, ofdma, 4);
        s["wlan"] = json!({"stations": 4, "positions": [[2.0, 0.0], [0.0, 2.0], [-2.0, 0.0], [0.0, -7.0]]});
        s["channel"] = json!({"model": "snr"});
        run(&s)
    };
    let goodput = |r: &Value, i: usize| r["flows"][i]["goodput_mbps"].as_f64().unwrap();
    let su = placed("off");
    let mu = placed("ul");
    let (far_su, far_mu) = (goodput(&su, 3), goodput(&mu, 3));
    assert!(far_su < 1.0, "single user: the far station {far_su} Mbit/s: {}", su["stations"][4]);
    assert!(far_mu > 20.0, "OFDMA: the far station {far_mu} Mbit/s: {}", mu["stations"][4]);
    for i in 0..3 {
        assert!(goodput(&mu, i) > 20.0, "near station {i}: {}", mu["stations"][i + 1]);
    }
}

/// TCP uploads from 4 stations over uplink OFDMA, the AP's TCP ACKs going
/// down in SU exchanges between the Triggers: the run ends with the packet
/// ledger balanced and TCP streams intact (both checked in every run),
/// every flow moving; the same with "dl+ul", where the ACKs also go in
/// HE MU PPDUs.
#[test]
fn tcp_uploads_over_uplink_ofdma_keep_the_ledger() {
    for mode in ["ul", "dl+ul"] {
        let mut s = tcp_over_ofdma("ofdma-tcp-up", mode, "uplink");
        s["mac"]["mu_access_req_interval_us"] = json!(1000.0);
        let r = run(&s);
        four_flows_move(&r, mode);
        assert!(r["stations"][0]["attempts"].as_u64().unwrap() > 100, "{mode}");
    }
}

/// MU EDCA (802.11ax-2021 26.2.7) with MU AIFSN 0 and a 16.384 ms timer
/// for best effort: saturated uplink stations that the AP triggers every
/// exchange stop contending after their first acknowledged share (their
/// SU A-MPDUs a handful at the start against hundreds with MU EDCA off),
/// and the run carries what the Triggers carry. BSRP (26.5.5) on top:
/// the AP sends BSRP Triggers when a report expired. Every run checks the
/// packet ledger.
#[test]
fn mu_edca_and_bsrp_in_whole_runs() {
    let su = |r: &Value, i: usize| {
        let h = &r["stations"][i]["hcf"];
        h["data_ppdus"].as_u64().unwrap() - h["tb_data_shares"].as_u64().unwrap_or(0)
    };
    let off = run(&ul(4, "ul", 4));
    let mut s = ul(4, "ul", 4);
    s["mac"]["be_mu_edca_timer_us"] = json!(16384.0);
    let on = run(&s);
    for i in 1..=4 {
        let h = &on["stations"][i]["hcf"];
        assert!(h["mu_edca_switches"].as_u64().unwrap() > 100, "{h}");
        assert!(su(&on, i) < 5, "station {i}: {} SU PPDUs with MU EDCA", su(&on, i));
        assert!(off["stations"][i]["hcf"].get("mu_edca_switches").is_none());
    }
    assert!(on["jain_index"].as_f64().unwrap() > 0.99);
    s["mac"]["mu_enable_bsrp"] = json!(true);
    let b = run(&s);
    assert!(b["stations"][0]["hcf"]["bsrp_triggers"].as_u64().unwrap() > 50, "{}", b["stations"][0]["hcf"]);
    assert!(off["stations"][0]["hcf"].get("bsrp_triggers").is_none());
    for r in [&off, &on, &b] {
        assert!(r["aggregate_msdu_mbps"].as_f64().unwrap() > 300.0);
    }
}

/// TCP uploads over uplink OFDMA with MU EDCA (MU AIFSN 0) and BSRP: the
/// AP's TCP ACKs and the stations' data keep the ledger balanced and the
/// streams intact (checked in every run), every flow moving.
#[test]
fn tcp_uploads_with_mu_edca_and_bsrp_keep_the_ledger() {
    let mut s = tcp_over_ofdma("ofdma-tcp-mu-edca", "ul", "uplink");
    s["mac"]["mu_access_req_interval_us"] = json!(1000.0);
    s["mac"]["be_mu_edca_timer_us"] = json!(8192.0);
    s["mac"]["mu_enable_bsrp"] = json!(true);
    let r = run(&s);
    for f in r["flows"].as_array().unwrap() {
        assert!(f["goodput_mbps"].as_f64().unwrap() > 10.0, "{f}");
    }
    assert!(r["stations"][0]["hcf"]["bsrp_triggers"].as_u64().unwrap() > 0);
}

#[test]
fn mu_edca_keys_are_checked() {
    let mut s = ul(4, "ul", 4);
    s["mac"]["be_mu_edca_timer_us"] = json!(1000.0);
    let e = err(&s);
    assert!(e.contains("mac.be_mu_edca_timer_us") && e.contains("8192"), "{e}");
    let mut s = ul(4, "ul", 4);
    s["mac"]["mu_vo_cw_min"] = json!(63);
    s["mac"]["mu_vo_cw_max"] = json!(31);
    assert!(err(&s).contains("mac.mu_vo_cw_min"), "{}", err(&s));
    let mut s = ul(4, "ul", 4);
    s["mac"]["mu_be_aifsn"] = json!(16);
    assert!(err(&s).contains("mac.mu_be_aifsn"), "{}", err(&s));
}

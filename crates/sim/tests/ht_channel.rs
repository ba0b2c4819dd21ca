//! 802.11n under the channel models: the SNR model judges HT PPDUs by
//! their MCS, the PHY header once per PPDU and each MPDU of an A-MPDU on
//! its own (`wifitcp_wifi::channel::error_model::ht`), control frames at
//! their legacy rate; a station far from the AP loses MPDUs one by one
//! (holes in the BlockAck bitmaps) and gets them through again.
mod common;

use common::run;
use serde_json::{json, Value};
use wifitcp_wifi::channel::error_model::ht::ppdu_success_parts;
use wifitcp_wifi::channel::propagation::{friis_loss_db, thermal_noise_dbm};
use wifitcp_wifi::phy::ht::{HtMcs, HtWidth};

/// One station at `d` m from the AP under the default SNR channel
/// (log-distance, exponent 3, 46.68 dB at 1 m, 16.02 dBm, noise figure
/// 7 dB: 63.30 - 30 log10(d) dB), saturated UDP downlink of 1500-octet MSDUs, HT MCS `mcs` 20 MHz.
fn far(mcs: u32, d: f64, kind: &str) -> Value {
    json!({
        "scenario": {"name": "ht-far", "duration_s": 3.0, "warmup_s": 0.5},
        "phy": {"standard": "802.11n", "ht_mcs": mcs},
        "mac": {"kind": "edca"},
        "ap": {"beacons": false},
        "wlan": {"stations": 1, "positions": [[d, 0.0]]},
        "channel": {"model": "snr"},
        "traffic": [{"name": "t", "kind": kind, "pattern": "saturated", "direction": "downlink",
                     "stations": "all", "msdu_bytes": 1500}]
    })
}

/// SNR (dB over 20 MHz) at `d` m under that channel.
fn snr_db(d: f64) -> f64 {
    16.0206 - friis_loss_db(1.0, 5.15e9) - 30.0 * d.log10() - thermal_noise_dbm(20e6, 7.0)
}

/// MPDUs sent, from the histogram of MPDUs per PPDU.
fn mpdus_sent(h: &Value) -> f64 {
    h["mpdus_per_ppdu"].as_array().unwrap().iter().enumerate().map(|(k, n)| (k + 1) as f64 * n.as_f64().unwrap()).sum()
}

#[test]
fn a_far_station_loses_mpdus_one_by_one_and_gets_them_through() {
    // 23 m: SNR 22.45 dB, where MCS 7 loses about a quarter of its
    // 1530-octet MPDUs. An MPDU's chance is its share of the PSDU's data
    // bits, (1 - BER)^(8 x 1530) up to the SERVICE and tail bits, whatever
    // the aggregate's length; the PHY header (BPSK 1/2) almost always gets
    // through at this SNR, and so does the 32-octet BlockAck at 24 Mbit/s.
    let d = 23.0;
    let r = run(&far(7, d, "udp"));
    let ap = &r["stations"][0]["hcf"];
    let sent = mpdus_sent(ap);
    let lost = ap["bitmap_losses"].as_f64().unwrap();
    let full = 27 * 1536 + 1534; // 28 subframes, the aPPDUMaxTime cap
    let (h, p) = ppdu_success_parts(HtMcs::new(7).unwrap(), HtWidth::Mhz20, snr_db(d), full);
    let want = 1.0 - p.powf(1530.0 / f64::from(full));
    assert!(h > 0.999, "header success {h}");
    eprintln!("MPDU loss {:.4} ({lost} of {sent}), model {want:.4}", lost / sent);
    // ~15,000 MPDUs: the binomial standard deviation is 1.5 % of the mean.
    assert!(
        (lost / sent / want - 1.0).abs() < 0.08,
        "MPDU loss {:.4} ({lost} of {sent}), model {want:.4}",
        lost / sent
    );
    assert!(want > 0.1 && want < 0.5, "{want}");
    // One by one: almost every A-MPDU is answered, a few holes per bitmap.
    let ppdus = ap["data_ppdus"].as_f64().unwrap();
    assert!(ap["block_acks"].as_f64().unwrap() > 0.98 * ppdus, "{ap}");
    assert!(ap["mean_mpdus_per_ppdu"].as_f64().unwrap() > 20.0, "{ap}");
    // ... and sent again until they get through: every hole retransmitted,
    // none reaches the retry limit (7 attempts), every MSDU delivered or in
    // flight at the end.
    assert_eq!(ap["mpdu_retransmissions"], ap["bitmap_losses"], "{ap}");
    let l = &r["ledger"];
    assert_eq!(l["dropped"]["retry_limit"], 0, "{l}");
    assert_eq!(l["generated"].as_u64(), Some(l["delivered"].as_u64().unwrap() + l["in_flight"].as_u64().unwrap()));
    // Goodput: 1 - loss of the loss-free rate (59.68 Mbit/s at 10 m),
    // less the MPDUs still held in the window at the end.
    let near = run(&far(7, 10.0, "udp"))["aggregate_mbps"].as_f64().unwrap();
    assert_eq!(run(&far(7, 10.0, "udp"))["stations"][0]["hcf"]["bitmap_losses"], 0);
    let got = r["aggregate_mbps"].as_f64().unwrap();
    assert!((got / (near * (1.0 - want)) - 1.0).abs() < 0.05, "{got} vs {near} x (1 - {want})");
}

#[test]
fn the_mcs_decides_the_range() {
    // Goodput over the loss-free goodput of the same MCS (at 5 m). At 23 m
    // (22.45 dB) MCS 4 (16-QAM 3/4, 50 % point 14.8 dB for 1500 octets)
    // loses nothing and MCS 7 (64-QAM 5/6) a quarter; at 45 m (13.70 dB)
    // MCS 4 gets almost nothing through and MCS 0 (BPSK 1/2) everything.
    let share = |mcs: u32, d: f64| {
        let at = |d: f64| run(&far(mcs, d, "udp"))["aggregate_mbps"].as_f64().unwrap();
        at(d) / at(5.0)
    };
    let (m4, m7) = (share(4, 23.0), share(7, 23.0));
    assert!(m4 > 0.999 && m7 < 0.85 && m7 > 0.6, "MCS 4 {m4}, MCS 7 {m7}");
    let (m0, m4) = (share(0, 45.0), share(4, 45.0));
    assert!(m0 > 0.999 && m4 < 0.05, "MCS 0 {m0}, MCS 4 {m4}");
}

#[test]
fn msdus_dropped_at_the_retry_limit_after_reaching_the_recipient_are_counted_once() {
    // MCS 3 at 53.3 m (11.25 dB), 10 s: most MPDUs fail seven times, and some
    // that reached the AP are dropped by the station because every
    // BlockAck reporting them was lost (at this SNR the 24 Mbit/s BlockAck
    // fails too). The AP's reordering buffer passes them up when a
    // BlockAckReq moves its window: the packet's fate is that delivery,
    // the station's discard a late drop, and the run's packet ledger
    // (which fails the run if a packet leaves it twice) balances.
    let mut s = far(3, 53.3, "udp");
    s["scenario"]["duration_s"] = json!(10.0);
    s["mac"]["bar_after_missed_ba"] = json!(true);
    s["traffic"][0]["direction"] = json!("uplink");
    let r = run(&s);
    let l = &r["ledger"];
    assert!(u64_of(&l["dropped"]["retry_limit"]) > 100, "{l}");
    assert!(u64_of(&l["late_drops"]) > 0, "{l}");
    let dropped: u64 = l["dropped"].as_object().unwrap().values().map(u64_of).sum();
    assert_eq!(u64_of(&l["generated"]), u64_of(&l["delivered"]) + dropped + u64_of(&l["in_flight"]), "{l}");
}

fn u64_of(v: &Value) -> u64 {
    v.as_u64().unwrap()
}

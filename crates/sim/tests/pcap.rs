//! `World::capture_to`: the pcap files of a short TCP download with losses
//! on the air, read by `tshark` (Debian package `tshark`). Wireshark must
//! see no malformed packet, and its own TCP analysis of the server's
//! stream must agree with the simulator's counters: as many retransmitted
//! segments as the sender counts, every SACK block above its cumulative
//! ACK, and the last acknowledged byte at the bytes the receiver
//! delivered. Skipped, with the reason printed, when tshark is missing.
use serde_json::{json, Value};
use std::process::Command;
use wifitcp_sim::{world::World, Scenario};

/// Run tshark with the simulator's ports decoded as plain data: payloads
/// are zeros, which a protocol guessed from a port number (RSL on 5000,
/// say) would call malformed.
fn tshark(args: &[&str]) -> Option<String> {
    let data = ["-d", "tcp.port==5000-5999,data", "-d", "tcp.port==20000-29999,data"];
    let out = Command::new("tshark").args(data).args(args).output().ok()?;
    assert!(out.status.success(), "tshark {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    Some(String::from_utf8_lossy(&out.stdout).into_owned())
}

fn scenario() -> Scenario {
    let s = json!({
        "scenario": {"name": "pcap", "duration_s": 4.0},
        "phy": {"standard": "802.11g", "data_rate_mbps": 24},
        // one MAC attempt and 20 % frame loss on the AP's data frames:
        // TCP sees the losses (retransmissions, SACK)
        "mac": {"short_retry_limit": 1, "long_retry_limit": 1},
        "wlan": {"stations": 1, "per_downlink": 0.2},
        "nodes": [{"name": "server"}],
        "links": [{"a": "ap", "b": "server", "rate_mbps": 100, "delay_ms": 5}],
        "tcp": {"sack": true, "recovery": "sack", "timestamps": true},
        "traffic": [{"name": "down", "kind": "tcp", "direction": "downlink", "peer": "server"}]
    });
    Scenario::from_json(&s.to_string()).expect("valid")
}

#[test]
fn wireshark_reads_the_capture_and_agrees_with_the_simulator() {
    if Command::new("tshark").arg("--version").output().is_err() {
        println!("SKIPPED: tshark is not installed (apt-get install tshark)");
        return;
    }
    let dir = std::env::temp_dir().join(format!("wifitcp-pcap-test-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let mut w = World::build(&scenario(), 1).unwrap();
    w.capture_to(&dir).unwrap();
    let r: Value = w.run(std::time::Instant::now()).unwrap().into_value();
    let wlan = dir.join("wlan.pcap");
    let link = dir.join("link-ap-server.pcap");
    for f in [&wlan, &link] {
        let f = f.to_str().unwrap();
        let bad =
            tshark(&["-r", f, "-o", "tcp.check_checksum:TRUE", "-Y", "_ws.malformed || _ws.expert.severity == error"])
                .unwrap();
        assert!(bad.trim().is_empty(), "{f}: malformed or error-level packets:\n{bad}");
    }
    let flow = &r["flows"][0];
    let tcp = &flow["tcp"];
    // The server's segments as they left on the wired link (the link queue
    // is large: none is lost there).
    let out = tshark(&[
        "-r",
        link.to_str().unwrap(),
        "-Y",
        "ip.src == 10.0.0.3 && tcp.len > 0",
        "-T",
        "fields",
        "-e",
        "tcp.analysis.retransmission",
    ])
    .unwrap();
    let retrans = out.lines().filter(|l| !l.trim().is_empty()).count() as u64;
    let sim_retrans = tcp["segments_retransmitted"].as_u64().expect("segments_retransmitted");
    assert!(sim_retrans > 10, "the scenario should make TCP retransmit: {tcp}");
    assert_eq!(retrans, sim_retrans, "retransmissions: tshark vs the simulator");
    // The station's ACKs as the server received them.
    let acks = tshark(&[
        "-r",
        link.to_str().unwrap(),
        "-Y",
        "ip.dst == 10.0.0.3 && tcp.len == 0",
        "-T",
        "fields",
        "-e",
        "tcp.ack",
        "-e",
        "tcp.options.sack_le",
        "-e",
        "tcp.options.sack_re",
    ])
    .unwrap();
    let (mut sacks, mut last_ack) = (0, 0u64);
    for l in acks.lines() {
        let mut f = l.split('\t');
        let ack: u64 = f.next().unwrap_or("0").parse().unwrap_or(0);
        last_ack = last_ack.max(ack);
        let le: Vec<u64> = f.next().unwrap_or("").split(',').filter_map(|x| x.parse().ok()).collect();
        let re: Vec<u64> = f.next().unwrap_or("").split(',').filter_map(|x| x.parse().ok()).collect();
        assert_eq!(le.len(), re.len());
        for (a, b) in le.iter().zip(&re) {
            assert!(*a > ack && a < b, "SACK block {a}-{b} with ACK {ack}");
            sacks += 1;
        }
    }
    assert!(sacks > 10, "the station should send SACK blocks");
    // Relative ACK numbers count the SYN: the last one is the bytes
    // delivered + 1, give or take the data of the ACKs still in flight at
    // the end (bounded by the last RTT's worth).
    let delivered = flow["bytes_delivered"].as_u64().unwrap();
    assert!(last_ack <= delivered + 1 && last_ack + 200_000 > delivered, "last ACK {last_ack}, delivered {delivered}");
    println!("retransmissions {retrans} (simulator {sim_retrans}), SACK blocks {sacks}, last ACK {last_ack}, delivered {delivered}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn an_unwritable_directory_is_an_error_before_the_run() {
    let mut w = World::build(&scenario(), 1).unwrap();
    let e = w.capture_to(std::path::Path::new("/proc/wifitcp-no-such-dir")).unwrap_err();
    assert!(e.starts_with("pcap: /proc/wifitcp-no-such-dir: "), "{e}");
}

/// A 1.5 s saturated UDP uplink of two stations on `phy` with `mac`
/// captured; the records of `wlan.pcap`.
fn capture_of(tag: &str, phy: Value, mac: Value, per: f64) -> (std::path::PathBuf, Vec<Vec<u8>>) {
    let s = json!({
        "scenario": {"name": "pcap-kinds", "duration_s": 1.5},
        "phy": phy,
        "mac": mac,
        "wlan": {"stations": 2, "per_uplink": per},
        "traffic": [{"name": "up", "kind": "udp", "pattern": "saturated", "direction": "uplink",
                     "stations": "all", "msdu_bytes": 1000}]
    });
    let sc = Scenario::from_json(&s.to_string()).expect("valid");
    let dir = std::env::temp_dir().join(format!("wifitcp-pcap-kinds-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let mut w = World::build(&sc, 1).unwrap();
    w.capture_to(&dir).unwrap();
    w.run(std::time::Instant::now()).unwrap();
    let bytes = std::fs::read(dir.join("wlan.pcap")).unwrap();
    let (_, recs) = wifitcp_wire::pcap::read_pcap(&bytes).unwrap();
    (dir, recs.into_iter().map(|(_, b)| b).collect())
}

/// What our decoder reads in a record: (kind, QoS Ack Policy of a data
/// frame, A-MPDU reference number).
fn kind_of(rec: &[u8]) -> (String, Option<u16>, Option<u32>) {
    use wifitcp_wire::codec::decode_wlan;
    use wifitcp_wire::codec::ieee80211::{ba_control, MacFrameRepr};
    // Records with payload are cut after the transport header (no FCS):
    // decode their radiotap header and MAC header only.
    let d = match decode_wlan(rec) {
        Ok(d) => d,
        Err(_) => {
            let h = wifitcp_wire::codec::radiotap::RadiotapHeader::new_checked(rec).unwrap();
            let rt = wifitcp_wire::codec::radiotap::RadiotapRepr::parse(&h).unwrap();
            let f = wifitcp_wire::codec::ieee80211::MacFrame::new_checked(h.payload()).unwrap();
            let qos = f.qos_control();
            return (format!("data-{}", f.subtype()), qos.map(|q| (q >> 5) & 3), rt.ampdu.map(|a| a.reference));
        }
    };
    let ampdu = d.radiotap.and_then(|r| r.ampdu).map(|a| a.reference);
    match d.mac.unwrap() {
        MacFrameRepr::Data(df) => (format!("data-{}", df.subtype), df.qos_control.map(|q| (q >> 5) & 3), ampdu),
        MacFrameRepr::BlockAckReq(r) if r.control & ba_control::COMPRESSED_BITMAP != 0 => {
            ("bar-compressed".into(), None, ampdu)
        }
        MacFrameRepr::BlockAckReq(_) => ("bar-basic".into(), None, ampdu),
        MacFrameRepr::BlockAck(_) => ("ba-compressed".into(), None, ampdu),
        MacFrameRepr::BasicBlockAck(_) => ("ba-basic".into(), None, ampdu),
        MacFrameRepr::Ack { .. } => ("ack".into(), None, ampdu),
        MacFrameRepr::Cts { .. } => ("cts".into(), None, ampdu),
        MacFrameRepr::Rts { .. } => ("rts".into(), None, ampdu),
        other => (format!("{other:?}"), None, ampdu),
    }
}

fn count(recs: &[Vec<u8>], pred: impl Fn(&(String, Option<u16>, Option<u32>)) -> bool) -> usize {
    recs.iter().map(|r| kind_of(r)).filter(|k| pred(k)).count()
}

/// tshark's `-T fields` of every record, one line per record.
fn tshark_fields(file: &std::path::Path, fields: &[&str]) -> Option<Vec<Vec<String>>> {
    Command::new("tshark").arg("--version").output().ok()?;
    let mut args = vec!["-r", file.to_str().unwrap(), "-T", "fields"];
    for f in fields {
        args.extend(["-e", f]);
    }
    let out = tshark(&args)?;
    Some(out.lines().map(|l| l.split('\t').map(str::to_string).collect()).collect())
}

#[test]
fn every_frame_kind_is_written_as_it_was_sent() {
    // QoS No Ack (9.2.4.5.4: Ack Policy 1), no response frames.
    let (d1, noack) = capture_of(
        "noack",
        json!({"standard": "802.11g", "data_rate_mbps": 24}),
        json!({"kind": "dcf", "ack_policy": "noack"}),
        0.0,
    );
    let n = noack.len();
    assert!(n > 100);
    assert_eq!(count(&noack, |k| k.0 == "data-8" && k.1 == Some(1)), n, "every frame: QoS Data, No Ack");
    // HT A-MPDUs: Normal Ack (the implicit BlockAckReq), the A-MPDU status
    // field; compressed BlockAcks; with losses and bar_after_missed_ba,
    // compressed BlockAckReqs.
    let (d2, ht) = capture_of(
        "ht",
        json!({"standard": "802.11n", "ht_mcs": 7, "band_ghz": 5.0}),
        json!({"kind": "edca", "max_mpdus": 8, "bar_after_missed_ba": true}),
        0.3,
    );
    let in_ampdu = count(&ht, |k| k.0 == "data-8" && k.1 == Some(0) && k.2.is_some());
    assert!(in_ampdu > 100, "QoS Data with Normal Ack inside A-MPDUs: {in_ampdu}");
    assert_eq!(count(&ht, |k| k.0 == "data-8" && k.1 != Some(0)), 0);
    assert!(count(&ht, |k| k.0 == "ba-compressed") > 10);
    assert!(count(&ht, |k| k.0 == "bar-compressed") > 0);
    assert_eq!(count(&ht, |k| k.0 == "cts" || k.0 == "ba-basic" || k.0 == "bar-basic"), 0);
    // VHT: every data PPDU an A-MPDU (a single MPDU as an S-MPDU) under
    // compressed BlockAcks, as for HT.
    let (_, vht) = capture_of(
        "vht",
        json!({"standard": "802.11ac", "mcs": 9, "channel_width_mhz": 80}),
        json!({"kind": "edca", "max_mpdus": 8, "bar_after_missed_ba": true}),
        0.3,
    );
    assert!(count(&vht, |k| k.0 == "data-8" && k.1 == Some(0) && k.2.is_some()) > 100);
    assert!(count(&vht, |k| k.0 == "ba-compressed") > 10);
    assert_eq!(count(&vht, |k| k.0 == "cts" || k.0 == "ba-basic" || k.0 == "bar-basic"), 0);
    // Non-HT blocks (802.11e over 802.11g): Block Ack policy, basic
    // BlockAckReq and basic BlockAck.
    let (d3, blk) = capture_of(
        "block",
        json!({"standard": "802.11g", "data_rate_mbps": 24}),
        json!({"kind": "edca", "max_mpdus": 8}),
        0.0,
    );
    assert!(count(&blk, |k| k.0 == "data-8" && k.1 == Some(3)) > 100, "QoS Data with Block Ack policy");
    assert!(count(&blk, |k| k.0 == "bar-basic") > 10);
    assert!(count(&blk, |k| k.0 == "ba-basic") > 10);
    assert_eq!(count(&blk, |k| k.0 == "cts" || k.2.is_some()), 0);
    // tshark reads each kind as what it is (type_subtype: 0x0028 QoS Data,
    // 0x0018 BlockAckReq, 0x0019 BlockAck; BAR/BA type 0 basic, 2
    // compressed: the BA Type subfield, which Wireshark names
    // wlan.ba.control.ba_type for both), and nothing is malformed.
    let fields = ["wlan.fc.type_subtype", "wlan.qos.ack", "wlan.ba.control.ba_type", "radiotap.ampdu.reference"];
    let Some(t_noack) = tshark_fields(&d1.join("wlan.pcap"), &fields) else {
        println!("SKIPPED (tshark part): tshark is not installed (apt-get install tshark)");
        return;
    };
    for d in [&d1, &d2, &d3] {
        let f = d.join("wlan.pcap");
        let bad = tshark(&["-r", f.to_str().unwrap(), "-Y", "_ws.malformed || _ws.expert.severity == error"]).unwrap();
        assert!(bad.trim().is_empty(), "{f:?}: malformed or error-level packets:\n{bad}");
    }
    // tshark prints these fields in hex (0x0028) or decimal.
    let num = |v: &str| match v.strip_prefix("0x") {
        Some(h) => u64::from_str_radix(h, 16).ok(),
        None => v.parse().ok(),
    };
    let with = |rows: &[Vec<String>], sub: u64, i: usize, v: u64| {
        rows.iter().filter(|r| num(&r[0]) == Some(sub) && r.get(i).and_then(|x| num(x)) == Some(v)).count()
    };
    assert_eq!(with(&t_noack, 0x0028, 1, 1), n);
    let t_ht = tshark_fields(&d2.join("wlan.pcap"), &fields).unwrap();
    let ampdu_rows =
        t_ht.iter().filter(|r| num(&r[0]) == Some(0x28) && !r[3].is_empty() && num(&r[1]) == Some(0)).count();
    assert_eq!(ampdu_rows, in_ampdu);
    assert_eq!(with(&t_ht, 0x0019, 2, 2), count(&ht, |k| k.0 == "ba-compressed"));
    assert_eq!(with(&t_ht, 0x0018, 2, 2), count(&ht, |k| k.0 == "bar-compressed"));
    let t_blk = tshark_fields(&d3.join("wlan.pcap"), &fields).unwrap();
    assert_eq!(with(&t_blk, 0x0028, 1, 3), count(&blk, |k| k.0 == "data-8" && k.1 == Some(3)));
    assert_eq!(with(&t_blk, 0x0018, 2, 0), count(&blk, |k| k.0 == "bar-basic"));
    assert_eq!(with(&t_blk, 0x0019, 2, 0), count(&blk, |k| k.0 == "ba-basic"));
    for d in [d1, d2, d3] {
        let _ = std::fs::remove_dir_all(d);
    }
}

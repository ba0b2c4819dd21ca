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
    let r: Value = w.run(std::time::Instant::now()).unwrap().json;
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

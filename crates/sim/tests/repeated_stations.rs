//! A traffic entry that lists a station several times (`stations = [0, 0,
//! 0]`, as the Murray scenarios do) makes one flow per listing, each with
//! its own name ("d/sta0", "d/sta0#2", ...) and so its own random streams:
//! its own TCP initial sequence numbers, its own UDP arrival times. Flows
//! whose station is listed once keep the name "<entry>/<station>".
use serde_json::{json, Value};
use wifitcp_sim::{world::World, Scenario};
use wifitcp_wire::codec::{decode_ethernet, L4Repr};
use wifitcp_wire::pcap::read_pcap;
use wifitcp_wire::TcpFlags;

fn scenario() -> Scenario {
    let s = json!({
        "scenario": {"name": "repeated", "duration_s": 3.0},
        "phy": {"standard": "802.11g", "data_rate_mbps": 24},
        "wlan": {"stations": 2},
        "nodes": [{"name": "server"}],
        "links": [{"a": "ap", "b": "server", "rate_mbps": 100, "delay_ms": 5}],
        "traffic": [
            {"name": "d", "kind": "tcp", "direction": "downlink", "peer": "server", "stations": [0, 0, 0, 1]},
            {"name": "u", "kind": "udp", "pattern": "poisson", "rate_mbps": 1.0, "direction": "uplink",
             "peer": "server", "stations": [1, 1]}
        ]
    });
    Scenario::from_json(&s.to_string()).expect("valid")
}

#[test]
fn each_listing_of_a_station_is_its_own_flow_with_its_own_streams() {
    let dir = std::env::temp_dir().join(format!("wifitcp-repeated-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let mut w = World::build(&scenario(), 1).unwrap();
    w.capture_to(&dir).unwrap();
    let r: Value = w.run(std::time::Instant::now()).unwrap().into_value();
    let names: Vec<&str> = r["flows"].as_array().unwrap().iter().map(|f| f["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["d/sta0", "d/sta0#2", "d/sta0#3", "d/sta1", "u/sta1", "u/sta1#2"]);
    // The clients' SYNs (on the wired link, as the server gets them): one
    // initial sequence number per flow.
    let bytes = std::fs::read(dir.join("link-ap-server.pcap")).unwrap();
    let mut isns = Vec::new();
    for (_, rec) in read_pcap(&bytes).unwrap().1 {
        // (records with payload are cut after their headers: not decoded)
        if let Some(L4Repr::Tcp(t)) = decode_ethernet(&rec).ok().and_then(|d| d.l4) {
            if t.flags.has(TcpFlags::SYN) && !t.flags.has(TcpFlags::ACK) && !isns.contains(&t.seq) {
                isns.push(t.seq);
            }
        }
    }
    assert_eq!(isns.len(), 4, "four TCP flows, four ISNs: {isns:?}");
    // The two Poisson sources draw their own arrival times.
    let g: Vec<u64> =
        r["flows"].as_array().unwrap()[4..].iter().map(|f| f["packets_generated"].as_u64().unwrap()).collect();
    assert_ne!(g[0], g[1], "two independent Poisson sources: {g:?}");
    let _ = std::fs::remove_dir_all(&dir);
}

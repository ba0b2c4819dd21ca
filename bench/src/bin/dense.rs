//! Dense cells: the engine's cost per event as the number of saturated
//! stations in one 802.11a BSS grows (issue 15 asks for a per-event cost at
//! 1,000 stations within 2x of that at 50).
//!
//! `cargo run --release -p wifitcp-bench --bin dense -- [--n 50,200,500,1000,5000]
//!  [--events 2000000] [--reps 3] [--seed 1]`
//!
//! Each n runs saturated UDP (1500-byte MSDUs, 54 Mbit/s, basic access)
//! for a simulated duration chosen to give about `--events` events (from a
//! short calibration run), `--reps` times; it prints the median wall time
//! per event (ns, of the run's own `wall_time_s`) and its ratio to the
//! first n.
mod common;

use common::{median, Args};

fn scenario(n: u64, secs: f64) -> String {
    serde_json::json!({
        "scenario": {"name": format!("dense-{n}"), "duration_s": secs},
        "phy": {"standard": "802.11a", "data_rate_mbps": 54},
        "wlan": {"stations": n},
        "traffic": [{"name": "sat", "kind": "udp", "pattern": "saturated", "msdu_bytes": 1500}]
    })
    .to_string()
}

fn main() {
    let args = Args::parse(&[]).unwrap_or_else(|e| common::die(&e));
    args.check_known(&["n", "events", "reps", "seed"]).unwrap_or_else(|e| common::die(&e));
    let ns: Vec<u64> = args
        .get("n")
        .unwrap_or("50,200,500,1000,5000")
        .split(',')
        .map(|x| x.trim().parse().unwrap_or_else(|_| common::die(&format!("--n: not a number: {x}"))))
        .collect();
    let target: f64 = args.num("events", 2_000_000.0).unwrap_or_else(|e| common::die(&e));
    let reps: usize = args.num("reps", 3).unwrap_or_else(|e| common::die(&e));
    let seed: u64 = args.num("seed", 1).unwrap_or_else(|e| common::die(&e));
    println!("{:>6} {:>9} {:>11} {:>12} {:>10} {:>9}", "n", "sim s", "events", "M events/s", "ns/event", "x first");
    let mut first = None;
    for &n in &ns {
        // Calibrate: events per simulated second (past the start-up).
        let (ev, _, _, _) = common::run(&scenario(n, 0.5), seed).unwrap_or_else(|e| common::die(&e));
        let secs = (target / (ev as f64 / 0.5)).clamp(0.2, 200.0);
        let json = scenario(n, secs);
        let (mut per_ev, mut events) = (Vec::new(), 0u64);
        for _ in 0..reps {
            let (ev, wall, _, _) = common::run(&json, seed).unwrap_or_else(|e| common::die(&e));
            per_ev.push(wall / ev as f64 * 1e9);
            events = ev;
        }
        let ns_ev = median(&per_ev);
        let base = *first.get_or_insert(ns_ev);
        println!("{n:>6} {secs:>9.2} {events:>11} {:>12.2} {ns_ev:>10.1} {:>9.2}", 1e3 / ns_ev, ns_ev / base);
    }
}

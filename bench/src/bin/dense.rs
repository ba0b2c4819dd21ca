//! Dense cells: the engine's cost per event as the number of saturated
//! stations in one 802.11a BSS grows (the target: a per-event cost at
//! 1,000 stations within 2x of that at 50).
//!
//! `cargo run --release -p wifitcp-bench --bin dense -- [--n 50,200,500,1000,5000]
//!  [--events 2000000] [--reps 3] [--seed 1]`
//!
//! Each n runs saturated UDP (1500-byte MSDUs, 54 Mbit/s, basic access)
//! for a simulated duration chosen to give about `--events` events (from a
//! short calibration run), `--reps` times. The repetitions are interleaved
//! (every n once, then every n again...), so that a change of the
//! machine's load during the bench weighs on every n alike. It prints, per
//! n, the median wall time per event (ns, of the run's own `wall_time_s`)
//! and its ratio to the first n, and the same on CPU: the run's wall time
//! scaled by the share of the call the thread spent on a CPU (from
//! /proc/thread-self/schedstat; the time other processes held the CPU is
//! left out, their use of the caches is not).
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
    if reps == 0 {
        common::die("--reps: must be at least 1");
    }
    // Calibrate: events per simulated second (past the start-up).
    let secs: Vec<f64> = ns
        .iter()
        .map(|&n| {
            let (ev, _, _, _) = common::run(&scenario(n, 0.5), seed).unwrap_or_else(|e| common::die(&e));
            (target / (ev as f64 / 0.5)).clamp(0.2, 200.0)
        })
        .collect();
    let (mut wall, mut cpu) = (vec![Vec::new(); ns.len()], vec![Vec::new(); ns.len()]);
    let mut events = vec![0u64; ns.len()];
    for _ in 0..reps {
        for (i, &n) in ns.iter().enumerate() {
            let (r, call, on_cpu, _) = common::measure(|| common::run(&scenario(n, secs[i]), seed));
            let (ev, w, _, _) = r.unwrap_or_else(|e| common::die(&e));
            wall[i].push(w / ev as f64 * 1e9);
            if on_cpu.is_finite() {
                cpu[i].push(w * (on_cpu / call).min(1.0) / ev as f64 * 1e9);
            }
            events[i] = ev;
        }
    }
    println!(
        "{:>6} {:>9} {:>11} {:>12} {:>10} {:>9} {:>10} {:>9}",
        "n", "sim s", "events", "M events/s", "ns/event", "x first", "cpu ns/ev", "x first"
    );
    // (NaN where /proc is unavailable.)
    let med = |v: &Vec<f64>| if v.is_empty() { f64::NAN } else { median(v) };
    let (w0, c0) = (med(&wall[0]), med(&cpu[0]));
    for (i, &n) in ns.iter().enumerate() {
        let (w, c) = (med(&wall[i]), med(&cpu[i]));
        println!(
            "{n:>6} {:>9.2} {:>11} {:>12.2} {w:>10.1} {:>9.2} {c:>10.1} {:>9.2}",
            secs[i],
            events[i],
            1e3 / w,
            w / w0,
            c / c0
        );
    }
}

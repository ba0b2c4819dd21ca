//! What windows of the wired links' latency would meet in a scenario
//! whose cells are joined by wired links (`world/probe.rs`): runs it on
//! the sequential engine and prints the probe's JSON.
//!
//! `wired_probe SCENARIO.toml|SCENARIO.json SEED [dotted.key=JSON ...]`
//! (the file and the overrides as `run_file` reads them).
//!
//! `wired_probe --barriers PARTS WINDOWS THREADS` instead times WINDOWS
//! barriers of a `rayon` pool of THREADS threads over PARTS partitions
//! that have nothing to do (the way `Partitioned::step_until` steps
//! them): the fixed cost of a window.
//!
//! `wired_probe --window-ms W SCENARIO SEED [...]` instead runs the
//! scenario on `Engine::build` (partitioned or windowed if it can be, on
//! `scenario.threads`) stepped to the end in steps of W ms (0: one step,
//! as a plain run), and prints the partitions (a windowed run's groups),
//! events, steps, the windowed run's windows, wall time and the result's
//! aggregate throughput (stepping in pieces changes no result).
#[path = "common/doc.rs"]
mod doc;

use doc::fail;
use rayon::prelude::*;
use serde_json::{json, Value};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("--barriers") {
        return barriers(&args[1..]);
    }
    let (window_ms, args) = match args.first().map(String::as_str) {
        Some("--window-ms") => {
            let w: f64 = args.get(1).and_then(|s| s.parse().ok()).unwrap_or_else(|| fail("--window-ms: a number"));
            (Some(w), args[2..].to_vec())
        }
        _ => (None, args),
    };
    let (Some(path), Some(seed)) = (args.first(), args.get(1).and_then(|s| s.parse::<u64>().ok())) else {
        eprintln!("usage: wired_probe SCENARIO.toml SEED [dotted.key=JSON ...]");
        std::process::exit(2);
    };
    let doc = doc::load(path, &args[2..]);
    let s = wifitcp_sim::Scenario::from_json(&doc.to_string()).unwrap_or_else(|e| fail(&format!("{path}: {e}")));
    if let Some(w) = window_ms {
        return stepped(&s, seed, w);
    }
    let w = wifitcp_sim::world::World::build(&s, seed).unwrap_or_else(|e| fail(&format!("{path}: {e}")));
    match w.probe_wired() {
        Ok(r) => println!("{r}"),
        Err(e) => fail(&format!("{path}: {e}")),
    }
}

fn stepped(s: &wifitcp_sim::Scenario, seed: u64, window_ms: f64) {
    let wall = std::time::Instant::now();
    let threads = s.scenario.threads.unwrap_or(1) as usize;
    let mut e = wifitcp_sim::world::Engine::build(s, seed, threads).unwrap_or_else(|e| fail(&e.to_string()));
    let parts = e.partitions();
    let end = e.end();
    let step = wifitcp_core::SimDur::from_secs_f64(window_ms / 1e3);
    let mut steps = 0u64;
    if step.0 > 0 {
        let mut t = wifitcp_core::SimTime::ZERO;
        while t < end {
            t += step;
            e.step_until(t);
            steps += 1;
        }
    }
    e.step_until(end);
    let windows = e.windows();
    let r = e.run(wall).unwrap_or_else(|m| fail(&m));
    let v: Value = serde_json::from_str(&r.to_json_string()).expect("result JSON");
    let out = json!({"partitions": parts, "threads": threads, "window_ms": window_ms, "steps": steps, "windows": windows,
                     "events": v["events"], "aggregate_mbps": v["aggregate_mbps"],
                     "wall_s": wall.elapsed().as_secs_f64()});
    println!("{out}");
}

fn barriers(args: &[String]) {
    let n = |i: usize| -> usize {
        args.get(i).and_then(|s| s.parse().ok()).unwrap_or_else(|| fail("usage: --barriers PARTS WINDOWS THREADS"))
    };
    let (parts, windows, threads) = (n(0), n(1), n(2));
    let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().expect("a pool");
    let mut work = vec![0u64; parts];
    let t = std::time::Instant::now();
    for _ in 0..windows {
        pool.install(|| work.par_iter_mut().for_each(|x| *x = std::hint::black_box(*x + 1)));
    }
    let s = t.elapsed().as_secs_f64();
    let out = json!({"parts": parts, "windows": windows, "threads": threads, "wall_s": s,
                     "us_per_barrier": s * 1e6 / windows as f64, "check": work.iter().sum::<u64>()});
    println!("{out}");
}

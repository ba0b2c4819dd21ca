//! Wall time, event rate and peak memory of one scenario (issue 6).
//!
//! `cargo run --release -p wifitcp-bench --bin scenario -- SCENARIO
//!  [--reps 3] [--seed 1] [--duration S] [--out result.json]`
//!
//! SCENARIO is a JSON file (the TOML schema as JSON, as `run_json` takes
//! it) or a built-in name: r1, r2, keceli, sat1000 (`--list` shows them).
//! Peak memory is the process's `VmHWM` from /proc/self/status at the end:
//! the engine without the Python layer. Runs are sequential and each
//! frees its world, so the high-water mark is that of the largest run
//! (plus the binary's own baseline, printed separately).
mod common;

use common::{median, Args};

fn main() {
    let args = Args::parse(&["list"]).unwrap_or_else(|e| common::die(&e));
    args.check_known(&["reps", "seed", "duration", "out", "list"]).unwrap_or_else(|e| common::die(&e));
    if args.has("list") {
        for (n, _, d) in common::BUILTIN {
            println!("{n:<8} {d}");
        }
        return;
    }
    let [which] = args.positional.as_slice() else {
        common::die("usage: scenario (FILE.json | r1 | r2 | keceli | sat1000) [--reps N] [--seed S] [--duration S] [--out FILE]");
    };
    let reps: usize = args.num("reps", 3).unwrap_or_else(|e| common::die(&e));
    let seed: u64 = args.num("seed", 1).unwrap_or_else(|e| common::die(&e));
    if reps == 0 {
        common::die("--reps: must be at least 1");
    }
    let text = match common::builtin(which) {
        Some(j) => j.to_string(),
        None => std::fs::read_to_string(which).unwrap_or_else(|e| common::die(&format!("{which}: {e}"))),
    };
    let mut doc: serde_json::Value = serde_json::from_str(&text).unwrap_or_else(|e| common::die(&format!("{which}: not JSON: {e}")));
    if let Some(d) = args.get("duration") {
        let d: f64 = d.parse().unwrap_or_else(|_| common::die(&format!("--duration: not a number: {d}")));
        doc["scenario"]["duration_s"] = serde_json::json!(d);
    }
    let json = doc.to_string();
    let base_rss = common::proc_status_kib("VmRSS");

    let (mut wall, mut call, mut events) = (Vec::new(), Vec::new(), Vec::new());
    let mut last = serde_json::Value::Null;
    for rep in 0..reps {
        let (ev, w, c, v) = common::run(&json, seed).unwrap_or_else(|e| common::die(&format!("{which}: {e}")));
        eprintln!("  run {}/{reps}: {ev} events, {w:.3} s", rep + 1);
        events.push(ev as f64);
        wall.push(w);
        call.push(c);
        last = v;
    }
    let hwm = common::proc_status_kib("VmHWM");
    if let Some(path) = args.get("out") {
        std::fs::write(path, last.to_string()).unwrap_or_else(|e| common::die(&format!("{path}: {e}")));
    }
    let mib = |k: Option<u64>| k.map(|k| format!("{:.1} MiB", k as f64 / 1024.0)).unwrap_or_else(|| "n/a (no /proc)".into());
    let name = last["scenario"].as_str().unwrap_or(which);
    let sim_s = doc["scenario"]["duration_s"].as_f64().unwrap_or(f64::NAN);
    println!("scenario          {name} ({which}), {sim_s} s simulated, seed {seed}, {reps} runs");
    println!("wall time         median {:.3} s  min {:.3}  max {:.3}  (engine, from result JSON)", median(&wall), common::min(&wall), common::max(&wall));
    println!("wall time (call)  median {:.3} s  (run_json incl. JSON parse and serialisation)", median(&call));
    println!("events            {:.0}", median(&events));
    println!("events/s          median {:.3} M", median(&events) / median(&wall) / 1e6);
    println!("speed             {:.1}x real time", sim_s / median(&wall));
    println!("peak RSS (VmHWM)  {}   (baseline VmRSS before the first run: {})", mib(hwm), mib(base_rss));
    println!(
        "result            agg {:.3} Mbit/s, MSDU agg {:.3} Mbit/s, p_coll {:.4}, Jain {:.4}",
        last["aggregate_mbps"].as_f64().unwrap_or(f64::NAN),
        last["aggregate_msdu_mbps"].as_f64().unwrap_or(f64::NAN),
        last["collision_probability"].as_f64().unwrap_or(f64::NAN),
        last["jain_index"].as_f64().unwrap_or(f64::NAN)
    );
}

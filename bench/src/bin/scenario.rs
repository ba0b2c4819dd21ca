//! Wall time, event rate and peak memory of one scenario.
//!
//! `cargo run --release -p wifitcp-bench --bin scenario -- SCENARIO
//!  [--reps 3] [--seed 1] [--duration S] [--out result.json]`
//!
//! SCENARIO is a JSON file (the TOML schema as JSON, as `run_json` takes
//! it) or a built-in name: r1, r2, keceli, sat1000 (`--list` shows them).
//! Peak memory is the process's `VmHWM` from /proc/self/status: the engine
//! without the Python layer. It is reset before each run (/proc/self/
//! clear_refs), so the figure is the peak of one run including the
//! binary's own baseline (printed separately); where the reset is refused
//! it is the peak since the process started.
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
    let mut doc: serde_json::Value =
        serde_json::from_str(&text).unwrap_or_else(|e| common::die(&format!("{which}: not JSON: {e}")));
    if let Some(d) = args.get("duration") {
        let d: f64 = d.parse().unwrap_or_else(|_| common::die(&format!("--duration: not a number: {d}")));
        doc["scenario"]["duration_s"] = serde_json::json!(d);
    }
    let json = doc.to_string();
    let base_rss = common::proc_status_kib("VmRSS");

    let (mut wall, mut call, mut events, mut cpu, mut wait) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let mut last = serde_json::Value::Null;
    let mut hwm: Option<u64> = None;
    let mut per_run_peak = true;
    for rep in 0..reps {
        // Free the previous result before measuring this run's peak.
        drop(std::mem::take(&mut last));
        per_run_peak &= common::reset_peak_rss();
        let (r, _, c_cpu, c_wait) = common::measure(|| common::run(&json, seed));
        let (ev, w, c, v) = r.unwrap_or_else(|e| common::die(&format!("{which}: {e}")));
        hwm = hwm.max(common::proc_status_kib("VmHWM"));
        eprintln!("  run {}/{reps}: {ev} events, {w:.3} s", rep + 1);
        events.push(ev as f64);
        wall.push(w);
        call.push(c);
        cpu.push(c_cpu);
        wait.push(c_wait / c);
        last = v;
    }
    if let Some(path) = args.get("out") {
        std::fs::write(path, last.to_string()).unwrap_or_else(|e| common::die(&format!("{path}: {e}")));
    }
    let mib =
        |k: Option<u64>| k.map(|k| format!("{:.1} MiB", k as f64 / 1024.0)).unwrap_or_else(|| "n/a (no /proc)".into());
    let name = last["scenario"].as_str().unwrap_or(which);
    let sim_s = doc["scenario"]["duration_s"].as_f64().unwrap_or(f64::NAN);
    println!("scenario          {name} ({which}), {sim_s} s simulated, seed {seed}, {reps} runs");
    println!(
        "wall time         median {:.3} s  min {:.3}  max {:.3}  (engine, from result JSON)",
        median(&wall),
        common::min(&wall),
        common::max(&wall)
    );
    println!("wall time (call)  median {:.3} s  (run_json incl. JSON parse and serialisation)", median(&call));
    println!("events            {:.0}", median(&events));
    println!(
        "cpu time (call)   median {:.3} s  (on-CPU; waited for a CPU {:.0} % of the call)",
        median(&cpu),
        100.0 * median(&wait)
    );
    println!(
        "events/s          median {:.3} M (wall), {:.3} M (cpu)",
        median(&events) / median(&wall) / 1e6,
        median(&events) / median(&cpu) / 1e6
    );
    println!("speed             {:.1}x real time", sim_s / median(&wall));
    println!(
        "peak RSS (VmHWM)  {}   ({}; baseline VmRSS before the first run: {})",
        mib(hwm),
        if per_run_peak { "largest per-run peak" } else { "peak since process start" },
        mib(base_rss)
    );
    println!(
        "result            agg {:.3} Mbit/s, MSDU agg {:.3} Mbit/s, p_coll {:.4}, Jain {:.4}",
        last["aggregate_mbps"].as_f64().unwrap_or(f64::NAN),
        last["aggregate_msdu_mbps"].as_f64().unwrap_or(f64::NAN),
        last["collision_probability"].as_f64().unwrap_or(f64::NAN),
        last["jain_index"].as_f64().unwrap_or(f64::NAN)
    );
}

//! Engine event rate versus the bare event-queue loop.
//!
//! `cargo run --release -p wifitcp-bench --bin engine -- [--reps 5]
//!  [--bare-events 20000000] [--bare-heaps 16,1024] [--bare-payloads empty,24]
//!  [--only bare,r1,r2] [--seed 1]`
//!
//! (a) Bare loop: `EventQueue` with a standing heap of 16 or 1024 pending
//!     events; every pop schedules one new event 1..=10 us later (a
//!     xoshiro draw from `RngStream`). Payloads: `()` (empty events, the
//!     issue's baseline) and 24 bytes (the size of the engine's event enum).
//! (b) Engine: `run_json` on R1 and R2; rate = `events / wall_time_s` of the
//!     result JSON (the wall time covers building the world, the run loop
//!     and collecting metrics, not JSON parsing/serialisation).
//! (c) Ratio engine / bare loop (target: R2 >= 30 % of bare).
//!
//! Besides wall time, the on-CPU time of the thread (/proc/thread-self/
//! schedstat) gives a second rate that excludes time other processes held
//! the CPU; `wait` is the share of wall time spent waiting for a CPU.
//! Repetitions are interleaved (bare, bare, ..., R1, R2, then again) so
//! that load from other processes hits every case alike; medians reported.
mod common;

use common::{median, Args};
use std::hint::black_box;
use wifitcp_core::{EventQueue, RngStream, SimDur, SimTime};

/// The bare pop/push loop: `events` pops, each scheduling one new event.
fn bare_loop<E: Copy>(standing: usize, events: u64, payload: E, seed: u64) {
    let mut q: EventQueue<E> = EventQueue::with_capacity(standing + 1);
    let mut rng = RngStream::derive(seed, "bench/bare");
    for _ in 0..standing {
        q.push(SimTime(rng.below(10_000)), payload);
    }
    for _ in 0..events {
        let (t, e) = q.pop().expect("standing heap never empties");
        q.push(t + SimDur(1 + rng.below(10_000)), black_box(e));
    }
    black_box(q.now());
    assert_eq!(q.len(), standing);
}

struct Case {
    name: String,
    events: Vec<f64>,
    /// Events per wall-clock second.
    rate: Vec<f64>,
    /// Events per on-CPU second (NaN without /proc).
    rate_cpu: Vec<f64>,
    wall: Vec<f64>,
    /// Fraction of the wall time spent waiting for a CPU.
    wait: Vec<f64>,
    note: String,
}

impl Case {
    fn new(name: &str) -> Case {
        Case {
            name: name.into(),
            events: vec![],
            rate: vec![],
            rate_cpu: vec![],
            wall: vec![],
            wait: vec![],
            note: String::new(),
        }
    }
    fn add(&mut self, events: u64, wall: f64, cpu: f64, wait: f64) {
        self.events.push(events as f64);
        self.wall.push(wall);
        self.rate.push(events as f64 / wall);
        self.rate_cpu.push(events as f64 / cpu);
        self.wait.push(wait / wall);
    }
}

fn main() {
    let args = Args::parse(&[]).unwrap_or_else(|e| common::die(&e));
    args.check_known(&["reps", "bare-events", "bare-heaps", "bare-payloads", "only", "seed"])
        .unwrap_or_else(|e| common::die(&e));
    let reps: usize = args.num("reps", 5).unwrap_or_else(|e| common::die(&e));
    let bare_events: u64 = args.num("bare-events", 20_000_000).unwrap_or_else(|e| common::die(&e));
    let seed: u64 = args.num("seed", 1).unwrap_or_else(|e| common::die(&e));
    let only: Vec<String> = args.get("only").unwrap_or("bare,r1,r2").split(',').map(|s| s.trim().to_string()).collect();
    for o in &only {
        if !["bare", "r1", "r2"].contains(&o.as_str()) {
            common::die(&format!("--only: unknown case {o} (bare, r1, r2)"));
        }
    }
    if reps == 0 {
        common::die("--reps: must be at least 1");
    }
    let want = |c: &str| only.iter().any(|o| o == c);

    let heaps: Vec<usize> = args
        .get("bare-heaps")
        .unwrap_or("16,1024")
        .split(',')
        .map(|h| {
            h.trim()
                .parse()
                .ok()
                .filter(|&h| h > 0)
                .unwrap_or_else(|| common::die(&format!("--bare-heaps: not a positive number: {h}")))
        })
        .collect();
    let payloads: Vec<bool> = args
        .get("bare-payloads")
        .unwrap_or("empty,24")
        .split(',')
        .map(|p| match p.trim() {
            "empty" => false,
            "24" => true,
            other => common::die(&format!("--bare-payloads: unknown payload {other} (empty, 24)")),
        })
        .collect();
    let mut bare_cfg: Vec<(String, usize, bool)> = Vec::new();
    for &wide in &payloads {
        for &h in &heaps {
            bare_cfg.push((format!("bare loop, heap {h}, {}", if wide { "24-B ev" } else { "empty ev" }), h, wide));
        }
    }
    let mut bare: Vec<Case> = bare_cfg.iter().map(|(n, _, _)| Case::new(n)).collect();
    let mut eng: Vec<(String, &'static str, Case)> = Vec::new();
    for (name, label) in [("r1", "engine R1 (15 TCP up, 11g)"), ("r2", "engine R2 (50 sat UDP, 11a)")] {
        if want(name) {
            eng.push((name.into(), common::builtin(name).expect("builtin"), Case::new(label)));
        }
    }

    eprintln!("engine bench: {reps} repetitions, bare loop {bare_events} events/rep, seed {seed}");
    for rep in 0..reps {
        if want("bare") {
            for (c, &(_, standing, wide)) in bare.iter_mut().zip(&bare_cfg) {
                let s = seed + rep as u64;
                let ((), wall, cpu, wait) = if wide {
                    common::measure(|| bare_loop(standing, bare_events, [0u64; 3], s))
                } else {
                    common::measure(|| bare_loop(standing, bare_events, (), s))
                };
                c.add(bare_events, wall, cpu, wait);
            }
        }
        for (_, json, c) in eng.iter_mut() {
            let (r, call, cpu, wait) = common::measure(|| common::run(json, seed));
            let (events, wall, _, v) = r.unwrap_or_else(|e| common::die(&e));
            // Wall time from the result JSON (the engine's own clock); CPU
            // time spans the whole call (JSON parse/serialise: < 1 %).
            c.add(events, wall, cpu * wall / call, wait * wall / call);
            c.note = format!(
                "agg {:.2} Mbit/s, p_coll {:.3}, Jain {:.3}",
                v["aggregate_mbps"].as_f64().unwrap_or(f64::NAN),
                v["collision_probability"].as_f64().unwrap_or(f64::NAN),
                v["jain_index"].as_f64().unwrap_or(f64::NAN)
            );
        }
        eprintln!("  repetition {}/{reps} done", rep + 1);
    }

    println!();
    println!(
        "{:<31} {:>10} {:>7} {:>9} {:>17} {:>9} {:>6} {:>9} {:>9}",
        "case", "events", "wall s", "Mev/s", "min..max", "Mev/s cpu", "wait", "vs bare0", "cpu vs 0"
    );
    let rows: Vec<&Case> = bare.iter().filter(|_| want("bare")).chain(eng.iter().map(|(_, _, c)| c)).collect();
    let b0 = rows.first().filter(|_| want("bare")).map(|c| (median(&c.rate), median(&c.rate_cpu)));
    for c in rows {
        let (m, mc) = (median(&c.rate), median(&c.rate_cpu));
        let (r, rc) = b0
            .map(|(b, bc)| (format!("{:.1}%", 100.0 * m / b), format!("{:.1}%", 100.0 * mc / bc)))
            .unwrap_or(("-".into(), "-".into()));
        println!(
            "{:<31} {:>10.0} {:>7.3} {:>9.2} {:>7.2} ..{:>7.2} {:>9.2} {:>5.0}% {:>9} {:>9}",
            c.name,
            median(&c.events),
            median(&c.wall),
            m / 1e6,
            common::min(&c.rate) / 1e6,
            common::max(&c.rate) / 1e6,
            mc / 1e6,
            100.0 * median(&c.wait),
            r,
            rc
        );
    }
    for (_, _, c) in &eng {
        println!("  {}: {}", c.name, c.note);
    }
    if let Some((b, bc)) = b0 {
        println!();
        for (name, _, c) in &eng {
            let m = median(&c.rate);
            let per: Vec<String> = bare
                .iter()
                .map(|bc| {
                    format!("{:.1} % of {}", 100.0 * m / median(&bc.rate), bc.name.trim_start_matches("bare loop, "))
                })
                .collect();
            println!("ratio {}: {}", name.to_uppercase(), per.join("; "));
        }
        if let Some((_, _, c)) = eng.iter().find(|(n, _, _)| n == "r2") {
            let (r, rc) = (median(&c.rate) / b, median(&c.rate_cpu) / bc);
            println!(
                "target (R2 >= 30 % of {}): {:.1} % by wall time, {:.1} % by CPU time -> {}",
                bare[0].name,
                100.0 * r,
                100.0 * rc,
                match (r >= 0.30, rc >= 0.30) {
                    (true, true) => "MET",
                    (false, true) => "met by CPU time only",
                    (true, false) => "met by wall time only",
                    (false, false) => "NOT MET",
                }
            );
        }
    }
}

//! Shared by the bench binaries: built-in scenarios, statistics, /proc.
#![allow(dead_code)]

/// Built-in scenarios (the JSON files under `bench/scenarios/`).
pub const BUILTIN: &[(&str, &str, &str)] = &[
    ("r1", include_str!("../../scenarios/r1.json"), "15 TCP NewReno uploads, 802.11g 24 Mbit/s, 100 s"),
    ("r2", include_str!("../../scenarios/r2.json"), "50 saturated UDP stations, 802.11a 54 Mbit/s, 20 s"),
    ("keceli", include_str!("../../scenarios/keceli.json"), "5 up + 5 down TCP, keceli-grouped AP queue, 50 s"),
    ("sat1000", include_str!("../../scenarios/sat1000.json"), "1000 saturated UDP stations, 802.11a 54 Mbit/s, 10 s"),
];

pub fn builtin(name: &str) -> Option<&'static str> {
    BUILTIN.iter().find(|(n, _, _)| *n == name).map(|(_, j, _)| *j)
}

/// Median of a non-empty sample (mean of the two middle values if even).
pub fn median(xs: &[f64]) -> f64 {
    let mut v = xs.to_vec();
    v.sort_by(|a, b| a.partial_cmp(b).expect("no NaN"));
    let n = v.len();
    assert!(n > 0, "median of nothing");
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

pub fn min(xs: &[f64]) -> f64 {
    xs.iter().copied().fold(f64::INFINITY, f64::min)
}

pub fn max(xs: &[f64]) -> f64 {
    xs.iter().copied().fold(f64::NEG_INFINITY, f64::max)
}

/// A `Vm*` field of /proc/self/status in KiB (Linux only; `None` elsewhere).
pub fn proc_status_kib(field: &str) -> Option<u64> {
    let s = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = s.lines().find(|l| l.starts_with(field) && l[field.len()..].starts_with(':'))?;
    line[field.len() + 1..].trim().trim_end_matches("kB").trim().parse().ok()
}

/// Reset the process's peak RSS (`VmHWM`) to its current RSS (Linux:
/// write 5 to /proc/self/clear_refs); false if not possible, in which case
/// `VmHWM` stays the peak since the process started.
pub fn reset_peak_rss() -> bool {
    std::fs::write("/proc/self/clear_refs", "5").is_ok()
}

/// (on-CPU ns, ns waiting on a run queue) of the calling thread, from
/// /proc/thread-self/schedstat (Linux). Both benches are single-threaded:
/// on-CPU time excludes the time other processes held the CPU, and the
/// wait time shows how much they did.
pub fn sched_ns() -> Option<(u64, u64)> {
    let s = std::fs::read_to_string("/proc/thread-self/schedstat")
        .or_else(|_| std::fs::read_to_string("/proc/self/schedstat"))
        .ok()?;
    let mut it = s.split_whitespace().map(|x| x.parse::<u64>().ok());
    Some((it.next()??, it.next()??))
}

/// Measure `f`: (result, wall s, on-CPU s, run-queue wait s). CPU and wait
/// are NaN where /proc is unavailable.
pub fn measure<T>(f: impl FnOnce() -> T) -> (T, f64, f64, f64) {
    let s0 = sched_ns();
    let t0 = std::time::Instant::now();
    let r = f();
    let wall = t0.elapsed().as_secs_f64();
    let (cpu, wait) = match (s0, sched_ns()) {
        (Some(a), Some(b)) => ((b.0 - a.0) as f64 * 1e-9, (b.1 - a.1) as f64 * 1e-9),
        _ => (f64::NAN, f64::NAN),
    };
    (r, wall, cpu, wait)
}

/// Run one scenario; returns (events, wall_time_s from the result JSON,
/// wall time of the whole call in s, result value).
pub fn run(json: &str, seed: u64) -> Result<(u64, f64, f64, serde_json::Value), String> {
    let t0 = std::time::Instant::now();
    let out = wifitcp_sim::api::run_json(json, seed).map_err(|e| match e {
        wifitcp_sim::api::ApiError::Config(m) => m.to_string(),
        wifitcp_sim::api::ApiError::Run(m) => format!("run failed: {m}"),
    })?;
    let call_s = t0.elapsed().as_secs_f64();
    let v: serde_json::Value = serde_json::from_str(&out).map_err(|e| format!("result JSON: {e}"))?;
    let events = v["events"].as_u64().ok_or("result JSON: no events")?;
    let wall = v["wall_time_s"].as_f64().ok_or("result JSON: no wall_time_s")?;
    Ok((events, wall, call_s, v))
}

/// Minimal flag parser: `--name value` pairs and positionals.
pub struct Args {
    pub positional: Vec<String>,
    pub flags: Vec<(String, String)>,
}

impl Args {
    pub fn parse(bool_flags: &[&str]) -> Result<Args, String> {
        let mut positional = Vec::new();
        let mut flags = Vec::new();
        let mut it = std::env::args().skip(1);
        while let Some(a) = it.next() {
            if let Some(name) = a.strip_prefix("--") {
                if let Some((k, v)) = name.split_once('=') {
                    flags.push((k.to_string(), v.to_string()));
                } else if bool_flags.contains(&name) {
                    flags.push((name.to_string(), "true".into()));
                } else {
                    let v = it.next().ok_or_else(|| format!("--{name}: missing value"))?;
                    flags.push((name.to_string(), v));
                }
            } else {
                positional.push(a);
            }
        }
        Ok(Args { positional, flags })
    }
    pub fn get(&self, k: &str) -> Option<&str> {
        self.flags.iter().rev().find(|(n, _)| n == k).map(|(_, v)| v.as_str())
    }
    pub fn num<T: std::str::FromStr>(&self, k: &str, default: T) -> Result<T, String> {
        match self.get(k) {
            None => Ok(default),
            Some(v) => v.parse().map_err(|_| format!("--{k}: not a number: {v}")),
        }
    }
    pub fn has(&self, k: &str) -> bool {
        self.get(k).is_some()
    }
    pub fn check_known(&self, known: &[&str]) -> Result<(), String> {
        for (k, _) in &self.flags {
            if !known.contains(&k.as_str()) {
                return Err(format!(
                    "unknown flag --{k} (known: {})",
                    known.iter().map(|k| format!("--{k}")).collect::<Vec<_>>().join(" ")
                ));
            }
        }
        Ok(())
    }
}

/// One line on stderr, exit status 2 (DEVELOPERS.md: bad input).
pub fn die(msg: &str) -> ! {
    eprintln!("error: {msg}");
    std::process::exit(2)
}

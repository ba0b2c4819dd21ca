//! The string-in, string-out API the Python bindings call. One call per run:
//! Python is never called per event. A run may be stepped in chunks of
//! simulated time ([`run_json_chunked`]) so that the caller can show its
//! progress and stop it between chunks; stepping in chunks gives the same
//! result bytes as one step to the end (`World::step_until`).
use crate::config::Scenario;
use crate::world::Engine;
use serde_json::json;
use std::time::{Duration, Instant};
use wifitcp_core::{ConfigError, SimDur, SimTime};
use wifitcp_wire::wifi_frame::{data_mpdu_len, ACK_LEN, CTS_LEN, RTS_LEN};

pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// Why an API call failed.
#[derive(Debug, Clone, PartialEq)]
pub enum ApiError {
    /// The configuration is invalid (shown as "dotted.path: reason").
    Config(ConfigError),
    /// The run failed (for example the packet ledger did not balance).
    Run(String),
}

impl std::fmt::Display for ApiError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ApiError::Config(e) => write!(f, "{e}"),
            ApiError::Run(m) => write!(f, "run failed: {m}"),
        }
    }
}

impl std::error::Error for ApiError {}

/// Where a chunked run stands, passed to its progress callback.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Progress {
    /// Simulated time reached, seconds.
    pub sim_s: f64,
    /// The run's end (`scenario.duration_s`), seconds.
    pub end_s: f64,
    /// Events handled so far.
    pub events: u64,
    /// Wall time since the run started (building included), seconds.
    pub wall_s: f64,
}

/// What the progress callback wants next.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Control {
    Continue,
    Stop,
}

/// Wall time a chunk aims at. Chunks are sized in simulated time from the
/// speed measured on the previous chunk (at most 4x larger than that one);
/// a chunk whose events turn out denser than that (traffic that starts
/// late in a long idle run) ends early, at the instant it reached when
/// twice this wall time has passed, so the callback is reached at least
/// about every `2 * CHUNK_WALL` whatever the event rate.
pub const CHUNK_WALL: Duration = Duration::from_millis(50);

/// Events handled between two looks at the clock.
const BATCH: u64 = 4096;

/// First chunk: 1 ms of simulated time (calibrates the speed).
const FIRST_CHUNK: SimDur = SimDur::from_nanos(1_000_000);

/// Validate a scenario (JSON of the TOML document without `[sweep]` and
/// `scenario.seeds`) and return it normalised, with every default filled in.
pub fn check_config_json(json: &str) -> Result<String, ApiError> {
    let s = Scenario::from_json(json).map_err(ApiError::Config)?;
    Ok(s.normalized_json())
}

/// Run one scenario with one seed; returns the result JSON.
pub fn run_json(json: &str, seed: u64) -> Result<String, ApiError> {
    let mut out = Vec::new();
    run_json_to(json, seed, &mut out)?;
    Ok(String::from_utf8(out).expect("the result is UTF-8"))
}

/// [`run_json`], the result JSON written to `out` as it is rendered (the
/// same bytes; no array of the result is held whole: at thousands of
/// stations the result text is as large as the run's own state).
pub fn run_json_to(json: &str, seed: u64, out: &mut dyn std::io::Write) -> Result<(), ApiError> {
    let s = Scenario::from_json(json).map_err(ApiError::Config)?;
    let wall = std::time::Instant::now();
    let (keys, threads) = (runner_keys(&s, seed), s.scenario.threads.unwrap_or(1) as usize);
    let mut w = Engine::build(s, seed, threads).map_err(ApiError::Config)?;
    w.step_until(w.end());
    w.finish_to(wall, &keys, out).map_err(ApiError::Run)
}

/// The top-level keys every result carries besides the metrics: its
/// scenario, seed and core version (the Python runner relies on them to
/// print a run's record without parsing its result: python/wifitcp/runner.py,
/// `_canonical_unparsed`).
///
/// Taken before the world is built, which is then given the scenario to
/// drop as soon as it needs nothing more of it (`Engine::build`), so its
/// per-station lists (a campus's association and peers, about 60 bytes a
/// station) are not held through the run.
fn runner_keys(s: &Scenario, seed: u64) -> [(&'static str, serde_json::Value); 3] {
    [("scenario", json!(s.scenario.name)), ("seed", json!(seed)), ("version", json!(VERSION))]
}

/// What a run writes besides its result.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RunOptions {
    /// Write one pcap file per interface into this directory
    /// (`crate::capture`); results are the same with or without.
    pub pcap_dir: Option<std::path::PathBuf>,
    /// Write the per-packet trace (`crate::trace`) into this directory.
    pub trace_dir: Option<std::path::PathBuf>,
}

/// Run one scenario with one seed in chunks of simulated time, calling
/// `on_chunk` after each (and once at the end); it may stop the run.
/// `chunk_wall` is the wall time a chunk aims at ([`CHUNK_WALL`]). The
/// result is byte for byte that of [`run_json`] but for `wall_time_s`;
/// `None` if the callback stopped the run (it is abandoned).
pub fn run_json_chunked(
    json: &str,
    seed: u64,
    chunk_wall: Duration,
    on_chunk: impl FnMut(&Progress) -> Control,
) -> Result<Option<String>, ApiError> {
    run_json_with(json, seed, &RunOptions::default(), chunk_wall, on_chunk)
}

/// [`run_json_chunked`] with [`RunOptions`]. A pcap directory that cannot
/// be written is an `ApiError::Config` before the run starts
/// (`pcap: DIR: reason`); a write error during the run (a full disk) fails
/// the run (`ApiError::Run`).
pub fn run_json_with(
    json: &str,
    seed: u64,
    opts: &RunOptions,
    chunk_wall: Duration,
    on_chunk: impl FnMut(&Progress) -> Control,
) -> Result<Option<String>, ApiError> {
    let mut out = Vec::new();
    let done = run_json_with_to(json, seed, opts, chunk_wall, on_chunk, &mut out)?;
    Ok(done.then(|| String::from_utf8(out).expect("the result is UTF-8")))
}

/// [`run_json_with`], the result JSON written to `out` as it is rendered
/// ([`run_json_to`]); false (nothing written) if the callback stopped the
/// run.
pub fn run_json_with_to(
    json: &str,
    seed: u64,
    opts: &RunOptions,
    chunk_wall: Duration,
    mut on_chunk: impl FnMut(&Progress) -> Control,
    out: &mut dyn std::io::Write,
) -> Result<bool, ApiError> {
    let s = Scenario::from_json(json).map_err(ApiError::Config)?;
    let wall = Instant::now();
    // (a capture or trace needs the one event queue of the sequential
    // engine; the results are the same)
    let (keys, threads) = (runner_keys(&s, seed), s.scenario.threads.unwrap_or(1) as usize);
    let mut w = if opts.pcap_dir.is_some() || opts.trace_dir.is_some() {
        Engine::sequential(&s, seed)
    } else {
        Engine::build(s, seed, threads)
    }
    .map_err(ApiError::Config)?;
    if let Engine::Sequential(w) = &mut w {
        if let Some(dir) = &opts.pcap_dir {
            w.capture_to(dir).map_err(|e| ApiError::Config(ConfigError::new("", e)))?;
        }
        if let Some(dir) = &opts.trace_dir {
            w.trace_to(dir).map_err(|e| ApiError::Config(ConfigError::new("", e)))?;
        }
    }
    let end = w.end();
    let mut chunk = FIRST_CHUNK;
    let mut t = SimTime::ZERO;
    loop {
        let target = t + chunk;
        let target = if target > end { end } else { target };
        let t0 = Instant::now();
        let reached = step_bounded(&mut w, target, t0 + 2 * chunk_wall);
        let took = t0.elapsed();
        let p = Progress {
            sim_s: reached.as_secs_f64(),
            end_s: end.as_secs_f64(),
            events: w.events(),
            wall_s: wall.elapsed().as_secs_f64(),
        };
        if on_chunk(&p) == Control::Stop {
            return Ok(false);
        }
        if reached >= end {
            break;
        }
        chunk = if reached < target {
            // cut short: the next chunk is what this one did in its time
            SimDur::from_nanos((reached.as_nanos() - t.as_nanos()).max(1_000))
        } else {
            next_chunk(chunk, took, chunk_wall)
        };
        t = reached;
    }
    w.finish_to(wall, &keys, out).map_err(ApiError::Run)?;
    Ok(true)
}

/// Step `w` to `target`, or until `deadline` (looked at every [`BATCH`]
/// events); returns the instant reached: `target`, or the instant of the
/// last event handled (events of that instant may be left: they are
/// handled first by the next call, in the order one `step_until(target)`
/// would have handled them).
fn step_bounded(w: &mut Engine, target: SimTime, deadline: Instant) -> SimTime {
    while w.step_until_at_most(target, BATCH) {
        if Instant::now() >= deadline {
            return w.now();
        }
    }
    target
}

/// The next chunk's simulated length: the last one scaled to take
/// `aim` of wall time, growing at most 4x and shrinking at most 16x per
/// step, never below 1 us.
fn next_chunk(last: SimDur, took: Duration, aim: Duration) -> SimDur {
    let last_ns = last.as_nanos() as f64;
    let ratio = aim.as_secs_f64() / took.as_secs_f64().max(1e-9);
    let ns = (last_ns * ratio.clamp(1.0 / 16.0, 4.0)).clamp(1e3, 1e15);
    SimDur::from_nanos(ns as u64)
}

/// The scenario schema: every key with its type, default, range and unit
/// (see `config::schema`), as JSON.
pub fn schema_json() -> String {
    crate::config::schema::schema_json().to_string()
}

/// Derived PHY/MAC timing of a scenario for data frames carrying
/// `msdu_bytes`, as the simulator uses it (for analytical models).
pub fn phy_timing_json(json: &str, msdu_bytes: u32) -> Result<String, ApiError> {
    let s = Scenario::from_json(json).map_err(ApiError::Config)?;
    let t = s.timing().map_err(ApiError::Config)?;
    let mpdu = data_mpdu_len(msdu_bytes);
    let ns = |d: wifitcp_core::SimDur| d.as_nanos();
    Ok(json!({
        "slot_ns": ns(t.slot), "sifs_ns": ns(t.sifs), "difs_ns": ns(t.difs), "eifs_ns": ns(t.eifs),
        "ack_timeout_ns": ns(t.ack_timeout()), "cts_timeout_ns": ns(t.ack_timeout()),
        "data_ns": ns(t.data_time(mpdu)),
        "ack_ns": ns(t.tx_time(ACK_LEN, t.control_rate)),
        "rts_ns": ns(t.tx_time(RTS_LEN, t.control_rate)),
        "cts_ns": ns(t.tx_time(CTS_LEN, t.control_rate)),
        "cw_min": s.mac.common.cw_min.unwrap_or(t.cw_min_default),
        "cw_max": s.mac.common.cw_max.unwrap_or(t.cw_max_default),
        "short_retry_limit": s.mac.common.short_retry_limit,
        "long_retry_limit": s.mac.common.long_retry_limit,
        "rts_threshold_bytes": s.mac.common.rts_threshold_bytes,
        "data_rate_mbps": t.data_rate.mbps(),
        "control_rate_mbps": t.control_rate.mbps(),
        "mpdu_bytes": mpdu,
        "msdu_bytes": msdu_bytes,
    })
    .to_string())
}

/// Airtime of an 802.11n A-MPDU exchange under EDCA best effort, for the
/// aggregation model (`wifitcp.models.ampdu`). Input JSON: `mcs` (0-31),
/// `width_mhz` (20 or 40), `short_gi`, `band_ghz` (2.4 or 5),
/// `mpdu_bytes` and `mpdus` (MPDUs per A-MPDU, at least 1). The PPDU
/// timing is `wifitcp_wifi::phy::ht`; the BlockAck (32 octets, compressed)
/// and ACK go at 24 Mbit/s, the highest mandatory OFDM rate not above the
/// 54 Mbit/s non-HT reference rate of MCS 7 (10.6.6.5.2); AIFS and EIFS
/// are those of AC_BE (Table 9-155, 10.3.2.3.7) on the OFDM slot and SIFS.
/// `mpdus_fit` is how many MPDUs fit in aPPDUMaxTime.
pub fn ht_ampdu_timing_json(json: &str) -> Result<String, ApiError> {
    use wifitcp_wifi::mac::edca::{AccessCategory, EdcaSet};
    use wifitcp_wifi::phy::ht::{ampdu_bytes, Band, GuardInterval, HtMcs, HtTxVector, HtWidth, PPDU_MAX_TIME};
    use wifitcp_wifi::phy::{PhyConfig, PhyStandard, PhyTiming, Rate};
    let v: serde_json::Value =
        serde_json::from_str(json).map_err(|e| ApiError::Config(ConfigError::new("json", e.to_string())))?;
    let num = |k: &str| {
        v.get(k)
            .and_then(|x| x.as_f64())
            .ok_or_else(|| ApiError::Config(ConfigError::new(k, "missing or not a number")))
    };
    let mcs = HtMcs::new(num("mcs")? as u8).ok_or_else(|| ApiError::Config(ConfigError::new("mcs", "not 0-31")))?;
    let width = match num("width_mhz")? as u32 {
        20 => HtWidth::Mhz20,
        40 => HtWidth::Mhz40,
        _ => return Err(ApiError::Config(ConfigError::new("width_mhz", "20 or 40"))),
    };
    let gi = if v.get("short_gi").and_then(|x| x.as_bool()).unwrap_or(false) {
        GuardInterval::Short
    } else {
        GuardInterval::Long
    };
    let band = if num("band_ghz")? < 3.0 { Band::Ghz2_4 } else { Band::Ghz5 };
    let mpdu = num("mpdu_bytes")? as u32;
    let k = num("mpdus")? as usize;
    if mpdu == 0 || k == 0 {
        return Err(ApiError::Config(ConfigError::new("mpdu_bytes, mpdus", "at least 1")));
    }
    let tx = HtTxVector { mcs, width, gi, band };
    let psdu = |n: usize| if n == 1 { mpdu } else { ampdu_bytes(&vec![mpdu; n]) };
    let fit = (1..=64).take_while(|&n| tx.txtime(psdu(n)) <= PPDU_MAX_TIME).last().unwrap_or(1);
    let t = PhyTiming::from_config(&PhyConfig::new(PhyStandard::Dot11a, 54.0)).map_err(ApiError::Config)?;
    let be = *EdcaSet::default_for(15, 1023, false).get(AccessCategory::Be);
    let aifs = be.aifs(t.sifs, t.slot);
    let r24 = Rate(240);
    let ns = |d: SimDur| d.as_nanos();
    Ok(json!({
        "psdu_bytes": psdu(k),
        "data_ns": ns(tx.txtime(psdu(k))),
        "mpdus_fit": fit,
        "slot_ns": ns(t.slot), "sifs_ns": ns(t.sifs), "difs_ns": ns(aifs),
        "eifs_ns": ns(t.sifs + t.tx_time(ACK_LEN, Rate(60)) + aifs),
        "ack_ns": ns(t.tx_time(if k == 1 { ACK_LEN } else { 32 }, r24)),
        "ack_timeout_ns": ns(t.ack_timeout()),
        "cw_min": be.cw_min, "cw_max": be.cw_max,
    })
    .to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    const SCN: &str = r#"{"scenario": {"name": "chunks", "duration_s": 3},
        "phy": {"standard": "802.11b", "data_rate_mbps": 11},
        "wlan": {"stations": 3}, "nodes": [{"name": "srv"}],
        "links": [{"a": "ap", "b": "srv", "rate_mbps": 100, "delay_ms": 10}],
        "traffic": [{"name": "down", "kind": "tcp", "direction": "downlink", "peer": "srv"},
                    {"name": "up", "kind": "udp", "pattern": "poisson", "rate_mbps": 1.5}]}"#;

    fn without_wall(text: &str) -> serde_json::Value {
        let mut v: serde_json::Value = serde_json::from_str(text).unwrap();
        v.as_object_mut().unwrap().remove("wall_time_s");
        v
    }

    #[test]
    fn chunked_runs_give_the_result_of_one_run() {
        let whole = run_json(SCN, 7).unwrap();
        for aim in [Duration::ZERO, Duration::from_micros(200), CHUNK_WALL] {
            let mut calls = Vec::new();
            let got = run_json_chunked(SCN, 7, aim, |p| {
                calls.push(*p);
                Control::Continue
            })
            .unwrap()
            .unwrap();
            assert_eq!(without_wall(&got).to_string(), without_wall(&whole).to_string(), "aim {aim:?}");
            // progress is monotone and ends at the end
            assert!(calls.windows(2).all(|w| w[0].sim_s < w[1].sim_s && w[0].events <= w[1].events));
            let last = calls.last().unwrap();
            assert_eq!((last.sim_s, last.end_s), (3.0, 3.0));
            if aim == Duration::ZERO {
                assert!(calls.len() > 10, "{} chunks", calls.len());
            }
        }
    }

    #[test]
    fn the_callback_can_stop_a_run() {
        let mut n = 0;
        let got = run_json_chunked(SCN, 7, Duration::ZERO, |_| {
            n += 1;
            if n == 3 {
                Control::Stop
            } else {
                Control::Continue
            }
        });
        assert_eq!(got, Ok(None));
        assert_eq!(n, 3);
    }

    #[test]
    fn a_chunk_ends_early_when_events_get_dense() {
        // idle for 1000 s (chunks grow to span it), then 1000 s of 30
        // saturated stations (about 1.3e7 events: seconds of wall time in
        // one chunk without the cut)
        let scn = r#"{"scenario": {"name": "late", "duration_s": 2000},
            "phy": {"standard": "802.11a", "data_rate_mbps": 54},
            "wlan": {"stations": 30},
            "traffic": [{"name": "u", "kind": "udp", "start_s": 1000}]}"#;
        let aim = Duration::from_millis(20);
        let mut last = Instant::now();
        let mut gaps = Vec::new();
        let got = run_json_chunked(scn, 1, aim, |p| {
            gaps.push((last.elapsed(), p.sim_s));
            last = Instant::now();
            Control::Continue
        })
        .unwrap()
        .unwrap();
        let worst = gaps.iter().map(|g| g.0).max().unwrap();
        // 2 * aim, plus one batch of instants, plus a loaded machine
        assert!(worst < Duration::from_millis(500), "{worst:?} between callbacks: {gaps:?}");
        assert_eq!(without_wall(&got).to_string(), without_wall(&run_json(scn, 1).unwrap()).to_string());
    }

    #[test]
    fn chunks_follow_the_measured_speed() {
        let ms = Duration::from_millis;
        let c = SimDur::from_nanos(1_000_000);
        // took twice the aim: half the chunk
        assert_eq!(next_chunk(c, ms(100), ms(50)).as_nanos(), 500_000);
        // very fast: at most 4x
        assert_eq!(next_chunk(c, Duration::ZERO, ms(50)).as_nanos(), 4_000_000);
        // very slow: at most /16, and never below 1 us
        assert_eq!(next_chunk(c, ms(100_000), ms(50)).as_nanos(), 62_500);
        assert_eq!(next_chunk(SimDur::from_nanos(1000), ms(100_000), ms(50)).as_nanos(), 1000);
    }

    #[test]
    fn the_schema_is_json_with_a_range_for_every_number() {
        let v: serde_json::Value = serde_json::from_str(&schema_json()).unwrap();
        let rows = v.as_array().unwrap();
        assert!(rows.len() > 100);
        let link = rows.iter().find(|r| r["key"] == "links[].rate_mbps").unwrap();
        assert_eq!(link["range"], "[1e-3, 1e6]");
        assert_eq!(link["unit"], "Mbit/s");
    }
}

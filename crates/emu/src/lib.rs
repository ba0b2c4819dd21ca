//! Real-time emulation: real Linux traffic through the simulated network.
//!
//! The second driver of the network API (`wifitcp_sim::world`, driver.rs):
//! each node that stands for a real host is *external*; its network
//! namespace reaches the simulation through a TUN interface. A datagram
//! the namespace sends is parsed (frames.rs) and injected at its node at
//! the wall-clock instant it was read; a packet the simulated network
//! delivers to an external node is written to that node's interface with
//! its real bytes. This crate is the only place in the workspace that
//! reads the wall clock.
//!
//! Time: simulated time is wall-clock time since the start of the loop
//! (`SimTime` = CLOCK_MONOTONIC now - start). The loop sleeps in
//! `epoll_wait` until an interface has a datagram, the stop descriptor is
//! readable, or a timerfd armed at the next wake-up of the simulation
//! fires (no busy loop, no polling interval). Every event is handled at or
//! after its instant; how late is the *lag* (lag.rs), and a run whose p99
//! lag exceeds [`Options::max_lag_p99`] is reported as not valid.
//!
//! Invariants: the simulation is only stepped to the present (never
//! ahead of the wall clock); datagrams are injected in the order they were
//! read, at non-decreasing instants; every datagram read is injected or
//! counted as refused (frames.rs `Counters`); every packet the simulation
//! delivers to an external node is written out or counted as a write
//! failure.
//!
//! Namespaces, addresses, routes and sysctls are set up by the caller
//! (python/wifitcp/emulate.py), which also runs the commands; this crate
//! creates the TUN interfaces (`sys::Tun`) and runs the loop.
pub mod frames;
pub mod lag;
pub mod meter;
pub mod sys;

use serde_json::{json, Value};
use std::io::BufWriter;
use std::os::fd::{AsRawFd, RawFd};
use std::path::PathBuf;
use wifitcp_core::{SimDur, SimTime};
use wifitcp_sim::world::World;
use wifitcp_wire::pcap::PcapWriter;

/// Default validity threshold on the p99 lag: 1 ms. A late event delays a
/// packet's delivery to the real stack (and a late read delays its entry
/// into the simulation) by the lag, which adds to the round-trip time the
/// real TCP sees: 1 ms is 3 % of the 30 ms base RTT of the Keceli
/// scenarios and about four 1500-byte frame exchanges at 54 Mbit/s.
pub const DEFAULT_MAX_LAG_P99: SimDur = SimDur::from_millis(1);

/// One external node and its interface.
pub struct Port {
    pub node: usize,
    pub tun: sys::Tun,
}

pub struct Options {
    /// A run with a larger p99 lag is not valid.
    pub max_lag_p99: SimDur,
    /// Write `<node>.pcap` per port into this directory: every datagram
    /// read from (sent by) and written to (received by) the namespace,
    /// LINKTYPE_RAW, stamped with the emulation's time.
    pub log_dir: Option<PathBuf>,
    /// A descriptor that becomes readable when the run must stop early
    /// (e.g. the read end of a pipe; Python's signal wake-up descriptor).
    pub stop_fd: Option<RawFd>,
    /// Run the loop's thread under SCHED_FIFO (best effort, see
    /// `sys::realtime`): on a busy machine an ordinary thread waits for a
    /// CPU for milliseconds after its timer fires.
    pub realtime: bool,
    /// The flows' goodput counts deliveries in [warm-up, this) (default:
    /// the world's end). A caller that lets the applications finish
    /// before the end (iperf3 exchanges its results after its data)
    /// measures up to the applications' end.
    pub measure_until: Option<SimTime>,
    /// A descriptor that becomes readable when the run is to end now, as
    /// at its end (not an interruption: the run stays valid): the world's
    /// end is brought forward to that instant (`World::end_early`) and the
    /// flows are measured up to it. `wifitcp emulate -- COMMAND` ends the
    /// run this way when the command exits.
    pub end_fd: Option<RawFd>,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            max_lag_p99: DEFAULT_MAX_LAG_P99,
            log_dir: None,
            stop_fd: None,
            realtime: false,
            measure_until: None,
            end_fd: None,
        }
    }
}

/// Largest datagram read from an interface (the TUN MTU is at most this).
const BUF: usize = 65536;
/// Datagrams read from one interface per wake-up before stepping again.
const READ_BATCH: usize = 64;
const TOKEN_TIMER: u64 = u64::MAX;
/// SCHED_FIFO priority of the loop (low among real-time tasks: kernel
/// threads that run at 50 keep precedence).
const REALTIME_PRIORITY: i32 = 10;
const TOKEN_STOP: u64 = u64::MAX - 1;
const TOKEN_END: u64 = u64::MAX - 2;

struct Counts {
    read: u64,
    injected: u64,
    written: u64,
    write_errors: u64,
    wakeups: u64,
    arms: u64,
}

/// Run the emulation to the world's end (or to a stop request); returns the
/// result JSON: the simulation's own result with `flows`, `aggregate_mbps`
/// and `jain_index` measured from the real traffic (meter.rs), and an
/// `emulation` object (lag, validity, counters).
pub fn run(mut world: World, ports: Vec<Port>, opts: &Options) -> Result<Value, String> {
    let io = |what: &str, e: std::io::Error| format!("{what}: {e}");
    for p in &ports {
        world.set_external(p.node)?;
    }
    let mut logs = match &opts.log_dir {
        None => Vec::new(),
        Some(dir) => {
            std::fs::create_dir_all(dir).map_err(|e| io(&dir.display().to_string(), e))?;
            ports
                .iter()
                .map(|p| {
                    let path = dir.join(format!("{}.pcap", p.tun.name()));
                    let f = std::fs::File::create(&path).map_err(|e| io(&path.display().to_string(), e))?;
                    PcapWriter::new(BufWriter::new(f)).map_err(|e| io(&path.display().to_string(), e))
                })
                .collect::<Result<Vec<_>, String>>()?
        }
    };
    let names = world.node_names();
    let mut port_of_node = vec![usize::MAX; names.len()];
    for (k, p) in ports.iter().enumerate() {
        port_of_node[p.node] = k;
    }
    let mut ep = sys::Epoll::new().map_err(|e| io("epoll", e))?;
    let timer = sys::Timer::new().map_err(|e| io("timerfd", e))?;
    ep.add(timer.as_raw_fd(), TOKEN_TIMER).map_err(|e| io("epoll", e))?;
    if let Some(fd) = opts.stop_fd {
        ep.add(fd, TOKEN_STOP).map_err(|e| io("epoll (stop descriptor)", e))?;
    }
    if let Some(fd) = opts.end_fd {
        ep.add(fd, TOKEN_END).map_err(|e| io("epoll (end descriptor)", e))?;
    }
    for (k, p) in ports.iter().enumerate() {
        ep.add(p.tun.as_raw_fd(), k as u64).map_err(|e| io(p.tun.name(), e))?;
    }
    sys::tight_timer_slack();
    let realtime = opts.realtime && sys::realtime(REALTIME_PRIORITY);

    let warmup = world.warmup();
    let end = world.end();
    let mut until = opts.measure_until.unwrap_or(end).min(end);
    let mut counters = frames::Counters::default();
    let mut stash = frames::Stash::default();
    let mut meter = meter::Meter::default();
    let mut lag = lag::Lag::new();
    let mut out_lag = lag::Lag::new();
    let mut n = Counts { read: 0, injected: 0, written: 0, write_errors: 0, wakeups: 0, arms: 0 };
    let mut buf = vec![0u8; BUF];
    let mut ready = Vec::new();
    let mut last_in = SimTime::ZERO;
    let mut next_expiry = 1_000_000_000u64;
    let mut stopped_early = false;
    let mut ended = false;
    // The instant the timerfd is armed at (None: not armed, or fired).
    // Arming costs a timerfd_settime, which reprograms the CPU's timer (in
    // a virtual machine an exit to the hypervisor; docs/performance.md),
    // so it is skipped when the next wake-up has not moved.
    let mut armed: Option<SimTime> = None;
    let wall = std::time::Instant::now();
    let start = sys::monotonic_ns();
    let now = || SimTime::from_nanos(sys::monotonic_ns().saturating_sub(start));

    loop {
        // Handle every event due by now, one instant at a time, writing out
        // what reached external nodes.
        while let Some(due) = world.next_wakeup() {
            let t = now();
            if due > t {
                break;
            }
            world.step_until(due);
            lag.record(t.since(due).as_nanos());
            for e in world.drain_egress() {
                meter.delivered(&e.packet, e.at, warmup, until);
                let k = port_of_node[e.node];
                let Some(bytes) = stash.take(&e.packet, &mut counters) else { continue };
                match ports[k].tun.send(&bytes) {
                    Ok(()) => n.written += 1,
                    Err(_) => n.write_errors += 1,
                }
                let w = now();
                out_lag.record(w.since(e.at).as_nanos());
                if let Some(l) = logs.get_mut(k) {
                    l.write_record(w, &bytes).map_err(|e| io("log", e))?;
                }
            }
        }
        let t = now();
        if t >= end {
            break;
        }
        if t.as_nanos() >= next_expiry {
            stash.expire(t.as_nanos(), &mut counters);
            next_expiry = t.as_nanos() + 1_000_000_000;
        }
        let wake = world.next_wakeup().unwrap_or(end).min(end);
        if armed != Some(wake) {
            timer.arm_at(start + wake.as_nanos()).map_err(|e| io("timerfd", e))?;
            armed = Some(wake);
            n.arms += 1;
        }
        ep.wait(&mut ready).map_err(|e| io("epoll_wait", e))?;
        n.wakeups += 1;
        for &tok in &ready {
            match tok {
                TOKEN_TIMER => {
                    timer.clear();
                    armed = None;
                }
                TOKEN_STOP => stopped_early = true,
                TOKEN_END => ended = true,
                k => {
                    let k = k as usize;
                    for _ in 0..READ_BATCH {
                        let got = ports[k].tun.recv(&mut buf).map_err(|e| io(ports[k].tun.name(), e))?;
                        let Some(len) = got else { break };
                        n.read += 1;
                        let at = now().max(last_in).max(world.now());
                        if let Some(l) = logs.get_mut(k) {
                            l.write_record(at, &buf[..len]).map_err(|e| io("log", e))?;
                        }
                        if at >= end {
                            continue;
                        }
                        let Ok(p) = frames::parse(&buf[..len], at, &mut counters) else { continue };
                        stash.put(&p, at.as_nanos(), buf[..len].to_vec());
                        world.inject(at, ports[k].node, p)?;
                        last_in = at;
                        n.injected += 1;
                    }
                }
            }
        }
        if stopped_early || ended {
            break;
        }
    }
    if realtime {
        // back to an ordinary thread for the bookkeeping (and the caller)
        let p = libc::sched_param { sched_priority: 0 };
        // SAFETY: valid `sched_param`; 0 = the calling thread.
        unsafe { libc::sched_setscheduler(0, libc::SCHED_OTHER, &p) };
    }
    for l in logs.iter_mut() {
        l.flush().map_err(|e| io("log", e))?;
    }
    let ran = now();
    if ended && !stopped_early {
        world.end_early(ran);
        until = until.min(world.end());
    }
    world.step_until(world.end());
    world.drain_egress();
    let mut res = world.finish(wall)?.into_value();
    let secs = (until.as_secs_f64() - warmup.as_secs_f64()).max(1e-9);
    let name_of = |a: u32| {
        (0..names.len())
            .find(|&i| u32::from(wifitcp_sim::topology::addr_of(i)) == a)
            .map(|i| names[i].clone())
            .unwrap_or_else(|| std::net::Ipv4Addr::from(a).to_string())
    };
    // A flow is one that carried data: at least one full segment.
    let flows = meter.json(secs, 1, &name_of);
    let goodputs: Vec<f64> = flows
        .iter()
        .filter(|f| f["kind"] == "tcp" && f["bytes_delivered"].as_u64().unwrap_or(0) > 10_000)
        .map(|f| f["goodput_mbps"].as_f64().unwrap_or(0.0))
        .collect();
    let p99 = lag.quantile(0.99).max(out_lag.quantile(0.99));
    let valid = !stopped_early && p99 <= opts.max_lag_p99.as_nanos();
    // `+ 0.0`: the sum of no flows is -0.0 in Rust, printed "-0.00"
    res["aggregate_mbps"] = json!(flows.iter().map(|f| f["goodput_mbps"].as_f64().unwrap_or(0.0)).sum::<f64>() + 0.0);
    res["jain_index"] = json!(wifitcp_sim::metrics::jain(&goodputs));
    res["flows"] = Value::Array(flows);
    res["emulation"] = json!({
        "valid": valid,
        "stopped_early": stopped_early,
        "ended_on_request": ended && !stopped_early,
        "realtime": realtime,
        "ran_s": ran.as_secs_f64(),
        "max_lag_p99_ms": opts.max_lag_p99.as_nanos() as f64 / 1e6,
        "measured_s": [warmup.as_secs_f64(), until.as_secs_f64()],
        "event_lag": lag.json(),
        "delivery_lag": out_lag.json(),
        "wakeups": n.wakeups,
        "timer_arms": n.arms,
        "datagrams_read": n.read,
        "datagrams_injected": n.injected,
        "datagrams_written": n.written,
        "write_errors": n.write_errors,
        "refused": {"not_ipv4": counters.not_ipv4, "malformed": counters.malformed},
        "other_protocol": counters.other_protocol,
        "length_adjusted": counters.length_adjusted,
        "rendered_from_headers": counters.rendered_from_headers,
        "unrenderable": counters.unrenderable,
        "stash_expired": counters.stash_expired,
    });
    Ok(res)
}

#!/usr/bin/env python3
"""Emulator benchmark: real TCP throughput the loop sustains and its
real-time lag at that load (docs/performance.md, "Real-time emulation").

Cases (each one `wifitcp emulate ... --json`, root needed):
  wired   iperf3 h1 -> h2 over 1 Gbit/s simulated links (bench/emu/wired.toml):
          the loop's own forwarding ceiling, no MAC on the path;
  wired4  the same with 4 parallel streams (iperf3 -P 4);
  big1    one stream, 4 MB receive window (tcp.rwnd_bytes, window scaling):
          the window no longer bounds the stream (64 KB over the 4 ms
          RTT does, about 130 Mbit/s), the 1 Gbit/s link or the loop does;
  big8    the same with 8 streams: past the loop's capacity;
  wlan    5 uplink iperf3 flows through the 802.11g BSS of
          bench/emu/bss2.toml (with 5 stations): the MAC-bound case;
  wlan-a  the same through 802.11a at 54 Mbit/s, 4 MB windows;
  wlan-n  the same through 802.11n (bench/emu/ht.toml: MCS 15, 40 MHz,
          short guard interval, a 300 Mbit/s PHY rate) under the HCF (EDCA,
          A-MPDU, BlockAck), a 1 Gbit/s wired link, 4 MB windows.

Prints one line per case: Mbit/s (iperf3 receiver and the emulator's MAC
measure), datagrams per second through the loop, the loop's CPU seconds per
wall second, and event-lag p50/p99/max. usage: bench/emu/bench.py [SECONDS]
"""
import json
import os
import resource
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
PY = os.environ.get("PYTHON", sys.executable)


def emulate(toml, secs, *args):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    r = subprocess.run([PY, "-m", "wifitcp", "emulate", str(toml), "--duration", str(secs),
                        "--json", "--no-store", *args], capture_output=True, text=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if r.returncode not in (0, 1):
        sys.exit(f"emulate failed: {r.stderr.strip()}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return json.loads(r.stdout), cpu


def report(name, res, cpu, secs):
    e = res["emulation"]
    got = [c["iperf3"]["received_mbps"] for c in res["commands"] if c.get("iperf3")]
    mac = res["aggregate_mbps"]
    rate = (e["datagrams_read"] + e["datagrams_written"]) / e["ran_s"]
    lag = e["event_lag"]
    dl = e["delivery_lag"]
    print(f"{name:7} iperf3 {sum(got):7.1f} Mbit/s  MAC {mac:7.1f} Mbit/s  "
          f"{rate / 1e3:6.1f} k datagrams/s  CPU {cpu / secs:4.2f} s/s (all processes)  "
          f"event lag p50/p99/max {lag['p50_ms']:.3f}/{lag['p99_ms']:.3f}/{lag['max_ms']:.3f} ms  "
          f"delivery lag p99 {dl['p99_ms']:.3f} ms  realtime={e['realtime']}  "
          f"{'valid' if e['valid'] else 'NOT VALID'}", flush=True)


def main():
    secs = float(sys.argv[1]) if len(sys.argv) > 1 else 10.0
    t = secs - 1.5
    res, cpu = emulate(HERE / "wired.toml", secs, "--on", "h2", "iperf3 -s -1",
                       "--on", "h1", f"sleep 0.5; iperf3 -c h2 -J -t {t:.1f}")
    report("wired", res, cpu, secs)
    res, cpu = emulate(HERE / "wired.toml", secs, "--on", "h2", "iperf3 -s -1",
                       "--on", "h1", f"sleep 0.5; iperf3 -c h2 -J -P 4 -t {t:.1f}")
    report("wired4", res, cpu, secs)
    big = ["--set", "tcp.rwnd_bytes=4000000"]
    for p in (1, 8):
        res, cpu = emulate(HERE / "wired.toml", secs, *big, "--on", "h2", "iperf3 -s -1",
                           "--on", "h1", f"sleep 0.5; iperf3 -c h2 -J -P {p} -t {t:.1f}")
        report(f"big{p}", res, cpu, secs)
    res, cpu = emulate(HERE / "bss2.toml", secs, "--set", "wlan.stations=5", "--set",
                       'traffic=[{name="up", kind="tcp", stations="all", peer="server"}]')
    report("wlan", res, cpu, secs)
    res, cpu = emulate(HERE / "bss2.toml", secs, "--set", "wlan.stations=5", "--set",
                       'phy.standard="802.11a"', "--set", "tcp.rwnd_bytes=4000000", "--set",
                       'traffic=[{name="up", kind="tcp", stations="all", peer="server"}]')
    report("wlan-a", res, cpu, secs)
    res, cpu = emulate(HERE / "ht.toml", secs, "--set", "tcp.rwnd_bytes=4000000", "--set",
                       'traffic=[{name="up", kind="tcp", stations="all", peer="server"}]')
    report("wlan-n", res, cpu, secs)


if __name__ == "__main__":
    main()

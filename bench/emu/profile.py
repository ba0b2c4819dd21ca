#!/usr/bin/env python3
"""Where the time goes when the emulator carries real TCP at its highest
rate (docs/performance.md, "Real-time emulation"): the `big1` case of
bench/emu/bench.py (one iperf3 stream, 4 MB window, h1 -> ap -> h2 over
1 Gbit/s simulated links) under a system-wide `perf record` of the middle
of the run; prints the CPU time by thread (the machine's other work
included) and, for the emulator's loop thread, the inclusive share of each
function (the syscalls and the kernel work they carry).

Percentages are of all samples on all CPUs. perf samples the CPU clock
here (`cycles` is not supported in the virtual machine): a sample due while
interrupts are off is taken where they are re-enabled
(`_raw_spin_unlock_irq`), so that symbol's self share stands for its
caller's interrupts-off time; the inclusive shares (call chains) hold.

Needs root and perf; PERF_DATA=FILE keeps the recording.
usage: bench/emu/profile.py [SECONDS]   (default 12)
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
PY = os.environ.get("PYTHON", sys.executable)


def report(data, *sort, tid=None, limit=15):
    args = ["perf", "report", "-i", data, "--stdio", "--no-children", "--percent-limit", "0.5",
            "-g", "none", "--sort", ",".join(sort)]
    if tid:
        args += ["--tid", str(tid)]
    r = subprocess.run(args, capture_output=True, text=True)
    lines = [ln for ln in r.stdout.splitlines() if ln.strip() and not ln.startswith("#")]
    print(f"-- by {', '.join(sort)}" + (f" (the loop's thread {tid})" if tid else ""))
    for ln in lines[:limit]:
        print("  " + ln.strip())


def main():
    secs = float(sys.argv[1]) if len(sys.argv) > 1 else 12.0
    if shutil.which("perf") is None:
        sys.exit("perf not found")
    t = secs - 1.5
    with tempfile.TemporaryDirectory(prefix="wifitcp-prof-") as work:
        data = os.environ.get("PERF_DATA") or str(Path(work) / "perf.data")
        emu = subprocess.Popen([PY, "-m", "wifitcp", "emulate", str(HERE / "wired.toml"), "--duration",
                                str(secs), "--json", "--no-store", "--set", "tcp.rwnd_bytes=4000000",
                                "--on", "h2", "iperf3 -s -1",
                                "--on", "h1", f"sleep 0.5; iperf3 -c h2 -J -t {t:.1f}"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        time.sleep(3.0)
        span = max(1.0, secs - 6.0)
        subprocess.run(["perf", "record", "-a", "-g", "-F", "499", "-o", data, "--", "sleep", str(span)],
                       capture_output=True)
        tasks = ",".join(os.listdir(f"/proc/{emu.pid}/task"))
        out, err = emu.communicate()
        if emu.returncode not in (0, 1):
            sys.exit(f"emulate failed: {err.strip()}")
        res = json.loads(out)
        e = res["emulation"]
        got = sum(c["iperf3"]["received_mbps"] for c in res["commands"] if c.get("iperf3"))
        rate = (e["datagrams_read"] + e["datagrams_written"]) / e["ran_s"]
        print(f"iperf3 {got:.1f} Mbit/s, {rate / 1e3:.1f} k datagrams/s through the loop, event lag "
              f"p50/p99/max {e['event_lag']['p50_ms']:.3f}/{e['event_lag']['p99_ms']:.3f}/"
              f"{e['event_lag']['max_ms']:.1f} ms, {'valid' if e['valid'] else 'NOT VALID'}; "
              f"{e['wakeups'] / e['ran_s'] / 1e3:.1f} k wake-ups/s, {e['timer_arms'] / e['ran_s'] / 1e3:.1f} k "
              f"timer arms/s; "
              f"perf over {span:.0f} s of the run, all CPUs")
        report(data, "pid")
        # the loop's thread: the emulator process's busiest thread (perf
        # report's --pid misses threads started before the recording)
        r = subprocess.run(["perf", "report", "-i", data, "--stdio", "--no-children", "-g", "none",
                            "--sort", "pid", "--tid", tasks], capture_output=True, text=True)
        tids = [ln.split()[1].split(":")[0] for ln in r.stdout.splitlines()
                if ln.strip() and not ln.startswith("#")]
        if tids:
            print(f"-- the loop's thread {tids[0]}: inclusive share by function (syscalls and what they run)")
            r = subprocess.run(["perf", "report", "-i", data, "--stdio", "--children", "-g", "none",
                                "--tid", tids[0], "--sort", "sym", "--percent-limit", "1"],
                               capture_output=True, text=True)
            for ln in [x for x in r.stdout.splitlines() if x.strip() and not x.startswith("#")][:25]:
                print("  " + ln.strip())


if __name__ == "__main__":
    main()

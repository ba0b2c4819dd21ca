#!/usr/bin/env python3
"""The simulator's TCP against Linux's on the same scenario
(bench/emu/uplink.toml): for each controller (simulator reno+NewReno vs
Linux reno; simulator CUBIC vs Linux cubic) and n = 1, 5, 15 uplink flows,
one simulated run (`wifitcp run`) and one emulated run (`wifitcp emulate`,
root needed), each measured at the MAC over the same 30 s window.

Prints one line per case: aggregate goodput and Jain index, simulated and
emulated, and the emulated run's lag. usage: bench/emu/crossval.py [N...]
"""
import json
import os
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
PY = os.environ.get("PYTHON", sys.executable)
TOML = HERE / "uplink.toml"


def wifitcp(*args):
    r = subprocess.run([PY, "-m", "wifitcp", *args], capture_output=True, text=True)
    if r.returncode not in (0, 1):
        sys.exit(f"wifitcp {' '.join(args)}: {r.stderr.strip()}")
    return r.stdout


def main():
    ns = [int(x) for x in sys.argv[1:]] or [1, 5, 15]
    print(f"{'cc':6} {'n':>3} {'sim Mbit/s':>10} {'emu Mbit/s':>10} {'sim Jain':>8} "
          f"{'emu Jain':>8}  emu lag p99/max ms, retransmits (Linux)")
    for cc in ("reno", "cubic"):
        for n in ns:
            sets = ["--set", f"wlan.stations={n}", "--set", f'tcp.cc="{cc}"']
            sim = json.loads(wifitcp("run", str(TOML), *sets, "--json", "--no-store").splitlines()[0])
            emu = json.loads(wifitcp("emulate", str(TOML), *sets, "--json", "--no-store"))
            e = emu["emulation"]
            rtx = sum((c.get("iperf3") or {}).get("retransmits") or 0 for c in emu["commands"])
            print(f"{cc:6} {n:3d} {sim['aggregate_mbps']:10.2f} {emu['aggregate_mbps']:10.2f} "
                  f"{sim['jain_index']:8.3f} {emu['jain_index']:8.3f}  "
                  f"{e['event_lag']['p99_ms']:.3f}/{e['event_lag']['max_ms']:.3f} "
                  f"{'valid' if e['valid'] else 'NOT VALID'}, {rtx}", flush=True)


if __name__ == "__main__":
    main()

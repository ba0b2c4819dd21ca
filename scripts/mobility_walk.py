"""Goodput of a station walking away from its AP (scenarios/mobility_walk.toml)
beside the channel model's analytical answer, as the markdown table of
docs/validation.md ("Moving stations").

    .venv/bin/python scripts/mobility_walk.py          # J&P's channel, fixed rate
    .venv/bin/python scripts/mobility_walk.py rates    # scenarios/mobility_rates.toml

Runs the scenario's four speeds twice (a saturated UDP downlink from the AP,
and the scenario's TCP SACK download), bins every per-second goodput sample by
the station's distance during that second, and prints per 25 m: the
per-frame loss probability of the ns-2 threshold channel, the renewal-reward
UDP goodput it implies (below) and the measured goodputs.

UDP model: each attempt waits DIFS and a mean backoff of CW_k / 2 slots
(CW 15, 31, 63, 127: 4 attempts), sends the 1528-byte MPDU in 20 us + 8 L /
20 Mbit/s, then SIFS + the 12 Mbit/s ACK if the data frame got through, the
ACK timeout (43 us) if not. Data and ACK get through independently with
p(d) = Phi((Pr(d) - RXThresh) / sigma) each (per-frame shadowing), so an
attempt succeeds with p^2; the MSDU is delivered if any data frame got
through. Goodput = 1464 B x P(delivered) / E[time per MSDU]. A station that
received a frame in error defers EIFS (342 us) instead of DIFS until it
next receives a frame correctly (802.11-2020 10.3.2.3.7); the AP receives
only ACKs, each corrupted with probability 1 - p, so it defers EIFS before
a fraction 1 - p of its attempts.
"""
import json
import math
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SCEN = ROOT / "scenarios" / "mobility_walk.toml"
BUCKET_M = 25.0
START_M, WALK_FROM_S = 5.0, 5.0

# ns-2 threshold channel of the scenario (J&P): 24.5 dBm, Friis at 1 m at
# 914 MHz, exponent 2.7, sigma 4 dB, RXThresh -64.3747 dBm.
PT, F, N, SIGMA, THR = 24.5, 914e6, 2.7, 4.0, -64.3747
PL0 = 20 * math.log10(4 * math.pi * F / 299792458.0)


def p_frame(d):
    pr = PT - PL0 - 10 * N * math.log10(d)
    return 0.5 * math.erfc(-(pr - THR) / SIGMA / math.sqrt(2))


def udp_model(d):
    p = p_frame(d)
    q = p * p
    difs, slot, sifs = 28.0, 9.0, 10.0
    t_data = 20 + 1528 * 8 / 20.0
    t_ack = 20 + 14 * 8 / 12.0
    timeout, eifs = 43.0, 342.0
    t = 0.0
    for k in range(4):
        cw = min(16 * 2**k - 1, 1023)
        # EIFS, not DIFS, after a corrupted reception until the next
        # correct one (10.3.2.3.7): the AP hears only ACKs, and the last
        # ACK it heard was corrupted with probability 1 - p
        defer = difs + (1 - p) * (eifs - difs)
        t += (1 - q) ** k * (defer + slot * cw / 2 + t_data + p * (sifs + t_ack) + (1 - p) * timeout)
    delivered = 1 - (1 - p) ** 4
    return 1464 * 8 * delivered / t  # bits per us = Mbit/s


def runs(extra):
    cmd = [sys.executable, "-m", "wifitcp", "run", str(SCEN), "--no-store", "--json", "--jobs", "1", *extra]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    return [json.loads(line) for line in out.splitlines() if line.startswith("{")]


def by_distance(run):
    """{bucket index: [goodput samples]} of one run."""
    v = run["params"]["wlan.mobility[0].speed_mps"]
    out = {}
    for t_end, mbps in run["flows"][0]["series"]:
        mid = t_end - 0.5
        d = START_M + v * max(0.0, mid - WALK_FROM_S)
        if mid < WALK_FROM_S:
            continue
        out.setdefault(int((d - START_M) // BUCKET_M), []).append(mbps)
    return v, out


def rates():
    """Goodput per 10 m of scenarios/mobility_rates.toml: one column per
    controller and speed."""
    scen = ROOT / "scenarios" / "mobility_rates.toml"
    cmd = [sys.executable, "-m", "wifitcp", "run", str(scen), "--no-store", "--json", "--jobs", "1"]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    cols = []
    order = {"fixed": 0, "arf": 1, "aarf": 2, "minstrel": 3}
    rs = [json.loads(line) for line in out.splitlines() if line.startswith("{")]
    rs.sort(key=lambda r: (r["params"]["wlan.mobility[0].speed_mps"], order[r["params"]["phy.rate_control"]]))
    bucket = 10.0
    for r in rs:
        v = r["params"]["wlan.mobility[0].speed_mps"]
        b = {}
        for t_end, mbps in r["flows"][0]["series"]:
            d = 5.0 + v * (t_end - 0.5)
            b.setdefault(int((d - 5.0) // bucket), []).append(mbps)
        name = r["params"]["phy.rate_control"]
        cols.append((f"{'fixed 54' if name == 'fixed' else name} {v * 3.6:.0f} km/h", b))
    print("| distance (m) |" + "".join(f" {c} |" for c, _ in cols))
    print("|" + "---|" * (1 + len(cols)))
    for i in range(12):
        row = f"| {5 + i * bucket:.0f}-{5 + (i + 1) * bucket:.0f} |"
        for _, b in cols:
            x = b.get(i, [])
            row += f" {sum(x) / len(x):.2f} |" if x else " - |"
        print(row)


def main():
    if sys.argv[1:] == ["rates"]:
        return rates()
    udp = runs(["--set", "traffic[0].kind=udp", "--set", 'traffic[0].peer="ap"'])
    tcp = runs([])
    cols, window = [], []
    for label, rs in (("UDP", udp), ("TCP", tcp)):
        for r in sorted(rs, key=lambda r: r["params"]["wlan.mobility[0].speed_mps"]):
            v, b = by_distance(r)
            cols.append((f"{label} {v * 3.6:.0f} km/h", b))
            s = [g for t, g in r["flows"][0]["series"] if WALK_FROM_S < t <= 20.0]
            window.append(sum(s) / len(s))
    head = "| distance (m) | P(frame lost) | UDP model |" + "".join(f" {c} |" for c, _ in cols)
    print(head)
    print("|" + "---|" * (3 + len(cols)))
    nb = int((200 - START_M) // BUCKET_M) + 1
    for i in range(nb):
        lo, hi = START_M + i * BUCKET_M, min(START_M + (i + 1) * BUCKET_M, 200.0)
        ds = [lo + (hi - lo) * (j + 0.5) / 50 for j in range(50)]
        loss = sum(1 - p_frame(d) for d in ds) / len(ds)
        model = sum(udp_model(d) for d in ds) / len(ds)
        row = f"| {lo:.0f}-{hi:.0f} | {loss:.3f} | {model:.2f} |"
        for _, b in cols:
            s = b.get(i, [])
            row += f" {sum(s) / len(s):.2f} |" if s else " - |"
        print(row)
    print("| mean over 5-20 s | | |" + "".join(f" {g:.2f} |" for g in window))


if __name__ == "__main__":
    main()

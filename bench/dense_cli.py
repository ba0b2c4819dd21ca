"""Cost per event and per data frame of one cell as it grows, through the
CLI, paired against a small cell run beside each large one.

Each round runs, for every size N after the first (the reference, 50
stations by default), the reference, then N, then the reference again,
each as ``wifitcp run SCENARIO --set wlan.stations=K --no-store --json``
in a fresh process. A run's cost per event is its ``wall_time_s`` over its
``events``; per frame, over the sum of ``stations[].attempts`` (every data
frame a station sent, collided ones included). A round's ratio for N is
N's cost over the mean of the two reference runs around it.

This machine's speed drifts by 20-30 % over seconds: a large cell's run
(half a second at 5,000 stations) and the reference's (tens of
milliseconds) then see different phases when they are far apart, and
ratios of medians taken over separate runs move by a third from one pass
to the next. Runs side by side see the same phase, so the median of the
per-round ratios is the stable estimate (as ``bench/ab-engine`` does for
two builds); the ratio of the medians is printed beside it.

    bench/dense-cli                                # 10 rounds: 1,000 and 5,000 against 50
    bench/dense-cli --rounds 20 --stations 50,200,1000,5000
    bench/dense-cli --cli /path/to/clone/.venv/bin/wifitcp

Not part of CI (DEVELOPERS.md: performance is measured in bench/, never by
timed tests).
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
from pathlib import Path
from typing import NoReturn

from cli_env import RUN_ENV, last_json, warm
from paired import quartiles

ROOT = Path(__file__).resolve().parents[1]


def fail(msg: str) -> NoReturn:
    print(f"bench/dense-cli: {msg}", file=sys.stderr)
    sys.exit(2)


def sizes(text: str) -> list:
    """``--stations``: two or more distinct positive counts, the first the
    reference."""
    try:
        got = [int(x) for x in text.split(",")]
    except ValueError:
        fail(f"--stations: expected counts separated by commas, got {text!r}")
    if len(got) < 2 or min(got) < 1 or len(set(got)) != len(got):
        fail(f"--stations: expected two or more distinct positive counts, got {text!r}")
    return got


def cost(result: dict) -> tuple:
    """(ns per event, ns per data frame, events, frames) of one result."""
    frames = sum(s["attempts"] for s in result["stations"])
    wall_ns = result["wall_time_s"] * 1e9
    return wall_ns / result["events"], wall_ns / max(frames, 1), result["events"], frames


def run(cli: str, scenario: str, n: int) -> tuple:
    cmd = [cli, "run", scenario, "--set", f"wlan.stations={n}", "--no-store", "--json"]
    p = subprocess.run(cmd, cwd=ROOT, env=RUN_ENV, capture_output=True, text=True)
    if p.returncode != 0:
        last = (p.stderr.strip().splitlines() or ["no message"])[-1]
        fail(f"{' '.join(cmd)}: exit {p.returncode}: {last}")
    return parse(p.stdout, " ".join(cmd))


def parse(stdout: str, what: str) -> tuple:
    """`cost` of the last JSON record in a run's output (one line naming
    `what` and exit status 2 if there is none or it lacks a field)."""
    rec = last_json(stdout)
    try:
        return cost(rec.get("result", rec))
    except (KeyError, TypeError, AttributeError, ZeroDivisionError) as e:
        fail(f"{what}: no result record with wall_time_s, events and stations[].attempts in its output ({type(e).__name__})")


def paired(before: float, x: float, after: float) -> float:
    """A round's ratio: `x` over the mean of the reference runs around it."""
    return x / ((before + after) / 2)


def main(argv: list | None = None) -> None:
    ap = argparse.ArgumentParser(prog="bench/dense-cli", description=__doc__.split("\n\n")[0])
    ap.add_argument("--cli", default=str(ROOT / ".venv" / "bin" / "wifitcp"))
    ap.add_argument("--scenario", default="scenarios/bench-r2.toml")
    ap.add_argument("--stations", default="50,1000,5000")
    ap.add_argument("--rounds", type=int, default=10)
    a = ap.parse_args(argv)
    ns = sizes(a.stations)
    if a.rounds < 1:
        fail(f"--rounds: expected a positive number, got {a.rounds}")
    if not Path(a.cli).is_file():
        fail(f"--cli: {a.cli}: no such file")
    if not (ROOT / a.scenario).is_file() and not Path(a.scenario).is_file():
        fail(f"--scenario: {a.scenario}: no such file")
    warm(a.cli, str(ROOT))
    ref, rest = ns[0], ns[1:]
    refs: list = []
    got: dict = {n: [] for n in rest}
    ratio: dict = {n: ([], []) for n in rest}  # per event, per frame
    meta: dict = {}
    for r in range(a.rounds):
        for n in rest:
            b, x, c = run(a.cli, a.scenario, ref), run(a.cli, a.scenario, n), run(a.cli, a.scenario, ref)
            refs += [b, c]
            got[n].append(x)
            ratio[n][0].append(paired(b[0], x[0], c[0]))
            ratio[n][1].append(paired(b[1], x[1], c[1]))
            meta[n], meta[ref] = x[2:], b[2:]
        print(f"\r{r + 1}/{a.rounds} rounds", end="", file=sys.stderr, flush=True)
    print(file=sys.stderr)
    ev0 = statistics.median(x[0] for x in refs)
    fr0 = statistics.median(x[1] for x in refs)
    print(f"{a.scenario} through {a.cli}, {a.rounds} rounds; x = median of the per-round ratios "
          f"to {ref} stations (quartiles), beside the ratio of the medians")
    print(f"{'stations':>8} {'events':>10} {'frames':>10} {'ns/event':>9} {'x per event':>22} "
          f"{'ns/frame':>9} {'x per frame':>22}")
    print(f"{ref:>8} {meta[ref][0]:>10,} {meta[ref][1]:>10,} {ev0:>9.1f} {'1':>22} {fr0:>9.1f} {'1':>22}")
    for n in rest:
        ev = statistics.median(x[0] for x in got[n])
        fr = statistics.median(x[1] for x in got[n])
        cells = []
        for v, med, base in ((ratio[n][0], ev, ev0), (ratio[n][1], fr, fr0)):
            m, lo, hi = quartiles(v)
            cells.append(f"x{m:.2f} ({lo:.2f}-{hi:.2f}) [x{med / base:.2f}]")
        print(f"{n:>8} {meta[n][0]:>10,} {meta[n][1]:>10,} {ev:>9.1f} {cells[0]:>22} {fr:>9.1f} {cells[1]:>22}")


if __name__ == "__main__":
    main()

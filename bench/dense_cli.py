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
    bench/dense-cli --cli A/.venv/bin/wifitcp --vs B/.venv/bin/wifitcp --stations 50,5000 --rounds 20

With ``--vs``, two CLIs (two builds of the core, say) are compared
instead: each round runs every size through both, one right after the
other (which goes first alternates from round to round), and reports per
size the second CLI's cost per event over the first's, the median of
the per-pair ratios with quartiles.

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


def in_turn(r: int, a: str, b: str) -> tuple:
    """The order of round `r`'s two runs of one size: `a` first in even
    rounds, `b` first in odd ones (a drift of the machine within a round
    then favours neither)."""
    return (a, b) if r % 2 == 0 else (b, a)


def versus(a: argparse.Namespace, ns: list) -> None:
    """``--vs``: every size through both CLIs in turn, each round; per
    size, the cost per event of each (medians) and the median (quartiles)
    of the per-pair ratios of the second's cost to the first's."""
    warm(a.vs, str(ROOT))
    cost_of: dict = {(c, n): [] for c in (a.cli, a.vs) for n in ns}
    ratio: dict = {n: [] for n in ns}
    events: dict = {}
    for r in range(a.rounds):
        for n in ns:
            got = {}
            for c in in_turn(r, a.cli, a.vs):
                got[c] = run(c, a.scenario, n)
                cost_of[(c, n)].append(got[c][0])
            if got[a.cli][2] != got[a.vs][2]:
                fail(f"{n} stations: {got[a.cli][2]:,} events through --cli, {got[a.vs][2]:,} through --vs: "
                     "not the same simulation")
            events[n] = got[a.cli][2]
            ratio[n].append(got[a.vs][0] / got[a.cli][0])
        print(f"\r{r + 1}/{a.rounds} rounds", end="", file=sys.stderr, flush=True)
    print(file=sys.stderr)
    print(f"{a.scenario}, {a.rounds} rounds, each size through A = {a.cli} and B = {a.vs} in turn; "
          f"B/A = median of the per-pair ratios of B's cost per event to A's (quartiles)")
    print(f"{'stations':>8} {'events':>10} {'A ns/event':>11} {'B ns/event':>11} {'B/A per event':>22}")
    for n in ns:
        m, lo, hi = quartiles(ratio[n])
        ca, cb = statistics.median(cost_of[(a.cli, n)]), statistics.median(cost_of[(a.vs, n)])
        print(f"{n:>8} {events[n]:>10,} {ca:>11.1f} {cb:>11.1f} {f'x{m:.3f} ({lo:.3f}-{hi:.3f})':>22}")


def main(argv: list | None = None) -> None:
    ap = argparse.ArgumentParser(prog="bench/dense-cli", description=__doc__.split("\n\n")[0])
    ap.add_argument("--cli", default=str(ROOT / ".venv" / "bin" / "wifitcp"))
    ap.add_argument("--scenario", default="scenarios/bench-r2.toml")
    ap.add_argument("--stations", default="50,1000,5000")
    ap.add_argument("--rounds", type=int, default=10)
    ap.add_argument("--vs", metavar="CLI", help="compare this CLI with --cli at every size instead (module docs)")
    a = ap.parse_args(argv)
    ns = sizes(a.stations)
    if a.rounds < 1:
        fail(f"--rounds: expected a positive number, got {a.rounds}")
    if not Path(a.cli).is_file():
        fail(f"--cli: {a.cli}: no such file")
    if not (ROOT / a.scenario).is_file() and not Path(a.scenario).is_file():
        fail(f"--scenario: {a.scenario}: no such file")
    if a.vs is not None and not Path(a.vs).is_file():
        fail(f"--vs: {a.vs}: no such file")
    if a.vs is not None and Path(a.vs).resolve() == Path(a.cli).resolve():
        fail(f"--vs: {a.vs} is --cli itself")
    warm(a.cli, str(ROOT))
    if a.vs is not None:
        return versus(a, ns)
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

"""Solve times of the analytical models (python/wifitcp/models).

    .venv/bin/python bench/models.py            # 1000-configuration sweep + per-model timings
    .venv/bin/python bench/models.py --n 200    # a smaller sweep

The sweep is a fixed grid of Pokhrel fixed points: download-download (two
classes of 5, class 2 at p_w = 0 .. 0.45) and upload-download (5 + 5, p_w on
all links) x retry limits 2, 4, 7, 8 x AP buffers 50 .. 300 x drop-tail /
VBS; ``--n`` takes the first n of the 1000 points. Prints the total wall
time, the median and the largest single solve, and the median iteration
count; then median times of one Bianchi solve, one Padhye evaluation and
one 30-player power-game equilibrium. Wall-clock on a shared machine:
repeat and take the smaller figure.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "python"))

from wifitcp.models import bianchi, pokhrel as P, power_game, tcp_throughput  # noqa: E402


def grid() -> list:
    out = []
    for case in ("dd", "ud"):
        for pw in [0.05 * k for k in range(10)]:
            for lim in (2, 4, 7, 8):
                for b in (50, 100, 150, 200, 300):
                    for q in ("drop-tail", "vbs"):
                        for inc in ("ctcp", "literal") if case == "dd" else ("ctcp",):
                            if case == "dd":
                                cls = [P.SnrClass(5), P.SnrClass(5, pw)]
                            else:
                                cls = [P.SnrClass(5, pw, pw, "up"), P.SnrClass(5, pw, pw, "down")]
                            out.append((cls, dict(retry_limit=lim, b_ap=b, qdisc=q, increment=inc)))
    return out


def timed(fn, reps: int) -> float:
    ts = []
    for _ in range(reps):
        t = time.perf_counter()
        fn()
        ts.append(time.perf_counter() - t)
    return statistics.median(ts)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=1000)
    args = ap.parse_args(argv)
    g = grid()[:args.n]
    times, iters = [], []
    t0 = time.perf_counter()
    for cls, kw in g:
        t = time.perf_counter()
        r = P.solve(cls, **kw)
        times.append(time.perf_counter() - t)
        iters.append(r.iterations)
    total = time.perf_counter() - t0
    print(f"pokhrel sweep: {len(g)} configurations in {total:.2f} s "
          f"(median {1e3 * statistics.median(times):.2f} ms, max {1e3 * max(times):.1f} ms, "
          f"median {statistics.median(iters):.0f} iterations)")
    w = bianchi.stage_windows(31, 1023, 6)
    print(f"bianchi solve (n = 20): {1e6 * timed(lambda: bianchi.solve(20, w), 200):.0f} us")
    print(f"padhye full model: {1e6 * timed(lambda: tcp_throughput.padhye_pps(0.02, 0.1, 0.2, 45), 2000):.1f} us")
    h = power_game.geometry(30, cross_gain_db=20.0)
    print(f"power game, 30 players: {1e3 * timed(lambda: power_game.nash(h), 20):.2f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Benchmark: the 450-run campaign behind Keceli et al. Fig. 3.

15 flow counts (n = 1..15) x 3 AP schemes (default 802.11 / grouped ACK
congestion control / Pilosof) x 10 seeds, 100 simulated seconds each
(scenarios/keceli-fairness.toml, the flagship of paper 001's reproduction,
`wifitcp.repro.p001_keceli`, with --seeds 1..10), run by the same code as
`wifitcp run` (validation, worker pool, one store transaction per run) into
a fresh store in a temporary directory. Prints the wall time and where it
went. Target: under 60 s on 2 cores.

    bench/campaign                 # 2 worker processes
    bench/campaign --jobs 4 --seeds 1..3 --duration 20
    bench/campaign --dask local:2  # the same on a dask LocalCluster
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "python"))

from wifitcp import campaign, core, scenario as S  # noqa: E402
from wifitcp.progress import Progress  # noqa: E402
from wifitcp.repro import common, p001_keceli  # noqa: E402
from wifitcp.store import Store  # noqa: E402

TARGET_S = 60.0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scenario", default=str(common.scenario_path(p001_keceli.FLAGSHIP)),
                    help="default: the flagship of paper 001's reproduction (wifitcp.repro.p001_keceli)")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--seeds", default="1..10")
    ap.add_argument("--duration", type=float, default=100.0)
    ap.add_argument("--dask", default=None)
    ap.add_argument("--keep", metavar="FILE.duckdb", help="keep the store here")
    args = ap.parse_args()

    sets = [("scenario.duration_s", args.duration), ("scenario.seeds", S.parse_seeds(args.seeds))]
    scn = S.load(args.scenario, sets=sets)
    t0 = time.perf_counter()
    items = S.check_all(scn)
    t_check = time.perf_counter() - t0
    with tempfile.TemporaryDirectory() as tmp:
        db = args.keep or os.path.join(tmp, "campaign.duckdb")
        if os.path.exists(db):
            os.remove(db)
        bar = None

        def on_start(n, skipped):
            nonlocal bar
            bar = Progress(n, label="campaign")

        cpu0 = os.times()
        t1 = time.perf_counter()
        with Store(db) as st:
            res = campaign.execute(scn, items, jobs=args.jobs, dask=args.dask, store=st,
                                   on_start=on_start, on_outcome=lambda o, r: bar.update(o.ok))
        wall = time.perf_counter() - t1
        bar.close()
        cpu1 = os.times()
        size = os.path.getsize(db) / 1e6
        with Store(db, read_only=True) as st:  # (the outcomes' results are not parsed)
            events = st.query("SELECT coalesce(sum(events), 0) AS n FROM runs")[0]["n"]
    runs = [o for o, _ in res.outcomes]
    run_s = sum(o.wall_time_s for o in runs)
    parent = (cpu1.user - cpu0.user) + (cpu1.system - cpu0.system)
    children = (cpu1.children_user - cpu0.children_user) + \
        (cpu1.children_system - cpu0.children_system)
    where = f"dask {args.dask}" if args.dask else f"{args.jobs} worker processes"
    print(f"campaign: {scn.name}, {len(runs)} runs ({scn.n_configs} configurations x "
          f"{len(scn.seeds)} seeds x {args.duration:g} s simulated), {where}, "
          f"core {core.version()}, {os.cpu_count()} CPUs, load before "
          f"{os.getloadavg()[0]:.1f}")
    print(f"  validation        {t_check:8.2f} s")
    print(f"  wall time         {wall:8.2f} s   (target < {TARGET_S:.0f} s: "
          f"{'met' if wall < TARGET_S else 'NOT met'})")
    print(f"  sum of run times  {run_s:8.2f} s   ({run_s / max(len(runs), 1):.3f} s per run, "
          f"{events / max(run_s, 1e-9) / 1e6:.2f} M events/s)")
    print(f"  ideal wall        {run_s / args.jobs:8.2f} s   (sum / jobs; "
          f"efficiency {run_s / args.jobs / wall * 100:.0f} %)")
    print(f"  CPU: workers {children:.1f} s, main process {parent:.1f} s "
          f"(validation, store, progress)")
    print(f"  store             {size:8.1f} MB, {len(res.failed)} failed runs")
    print(f"wall_time_s {wall:.2f}")
    return 1 if res.failed else 0


if __name__ == "__main__":
    sys.exit(main())

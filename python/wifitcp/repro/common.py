"""What the paper modules of `wifitcp.repro` share: running a scenario
file of ``scenarios/`` through the campaign layer (optionally cached or
stored), statistics over seeds, Markdown tables, figures, and a generic
per-configuration table for the figures that need no table of their own.

Every run goes through `wifitcp.campaign` (validation, worker pool, the
same records as ``wifitcp run --json``); nothing here starts the CLI.
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import math
import os
import statistics
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any, Callable, Iterable, Optional, Sequence

from .. import packaged

REPO = Path(__file__).resolve().parents[3]
#: the source tree's scenarios/, else (an installed package) the installed ones
SCENARIOS = REPO / "scenarios" if (REPO / "scenarios").is_dir() else packaged.scenarios_dir()
FIGURES = REPO / "docs" / "figures"
RESULTS = REPO / "results"


def scenario_path(name: str) -> Path:
    """``scenarios/<name>.toml`` (``name`` may end in .toml)."""
    return SCENARIOS / (name if name.endswith(".toml") else f"{name}.toml")


# -- running -----------------------------------------------------------------

def core_id() -> str:
    """sha256 (12 hex digits) of the compiled core this process loads, and
    its modification time: a rebuilt engine may give other numbers."""
    try:
        from .. import _core
    except ImportError:
        return "unknown"
    so = Path(_core.__file__)
    h = hashlib.sha256(so.read_bytes()).hexdigest()[:12]
    return f"{h} ({time.strftime('%Y-%m-%d %H:%M', time.gmtime(os.path.getmtime(so)))} UTC)"


def run_scenario(name: str, *, jobs: int, sets: Iterable[str] = (), store: bool = False,
                 cache: Optional[Path] = None,
                 reduce: Optional[Callable[[dict], dict]] = None,
                 meta: Optional[dict] = None) -> list:
    """Run ``scenarios/<name>.toml`` with the ``sets`` overrides; one dict per
    successful run, as ``wifitcp run --json`` prints it (or ``reduce`` of it:
    each record is reduced as its run ends, so a long campaign does not hold
    every series in memory). Failed runs are reported on stdout and left out.

    ``store``: also write the runs to ``results/<scenario name>.duckdb``
    (replacing the scenario's earlier runs there), where ``wifitcp report``
    reads them. ``cache``: a directory; a run set
    is identified by the scenario text, the overrides, ``reduce`` and the
    compiled core, kept there as gzipped JSON lines and read back instead of
    running again. ``meta``: a dict that gets the wall and CPU seconds, the
    number of runs, the workers and the core.
    """
    from .. import api, campaign, core, scenario as scn_mod

    sets = list(sets)
    path = scenario_path(name)
    cid = core_id()
    cached = None
    if cache is not None:
        what = f"{reduce.__module__}.{reduce.__qualname__}" if reduce else "records"
        tag = hashlib.sha1(json.dumps([path.read_text(), sets, cid, what]).encode()).hexdigest()[:12]
        cached = Path(cache) / f"{path.stem}-{tag}.jsonl.gz"
        if cached.exists():
            try:
                with gzip.open(cached, "rt") as f:
                    runs = [json.loads(line) for line in f]
            except (OSError, EOFError, ValueError) as e:  # cut short: run again
                print(f"# {path.stem}: ignoring {cached} ({type(e).__name__}: {e})", flush=True)
            else:
                print(f"# {path.stem}: {len(runs)} runs from {cached}", flush=True)
                return runs
    scn = api.load(str(path), sets=sets)
    items = scn_mod.check_all(scn)
    version = core.version()
    runs: list = []
    failed: list = []

    def on_outcome(o, run_id):
        if not o.ok or not o.result or "flows" not in o.result:
            failed.append(o)
            return
        rec = api.record(o, version, run_id)
        runs.append(reduce(rec) if reduce else rec)

    t0, cpu0 = time.monotonic(), os.times()
    campaign.run_with_progress(scn, items, out=str(RESULTS / f"{scn.name}.duckdb") if store else None,
                               jobs=jobs, dask=None, replace=store, progress=sys.stderr.isatty(),
                               on_outcome=on_outcome)
    wall, cpu1 = time.monotonic() - t0, os.times()
    cpu = sum(getattr(cpu1, k) - getattr(cpu0, k)
              for k in ("user", "system", "children_user", "children_system"))
    for o in failed:
        print(f"# {path.stem}: run {o.spec.params} seed {o.spec.seed} FAILED: {o.error}", flush=True)
    if cached is not None:
        cached.parent.mkdir(parents=True, exist_ok=True)
        part = cached.with_name(cached.name + f".{os.getpid()}.part")
        with gzip.open(part, "wt") as f:  # written whole, then renamed: never read half
            for r in runs:
                f.write(json.dumps(r, default=str) + "\n")
        os.replace(part, cached)
    summed = sum(float(r.get("wall_time_s") or 0.0) for r in runs)
    print(f"# {path.stem}: {len(runs)} runs in {wall:.1f} s wall, {cpu:.1f} s CPU "
          f"({summed:.1f} s summed run time, jobs={jobs})", flush=True)
    if meta is not None:
        meta.update(wall_s=wall, cpu_s=cpu, runs=len(runs), jobs=jobs, core=cid,
                    scenario=str(path.relative_to(REPO)) if path.is_relative_to(REPO) else str(path),
                    sets=sets)
        if core_id() != cid:
            print(f"# warning: the compiled core changed during {path.stem}", file=sys.stderr)
    return runs


# -- statistics over seeds ---------------------------------------------------

def mean(xs: Iterable[float]) -> float:
    xs = list(xs)
    return sum(xs) / len(xs) if xs else float("nan")


def sd(xs: Iterable[float]) -> float:
    xs = list(xs)
    return statistics.stdev(xs) if len(xs) > 1 else 0.0


# Student t quantiles t_{0.975, df} for the 95 % confidence interval.
T975 = {1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 6: 2.447, 7: 2.365,
        8: 2.306, 9: 2.262, 10: 2.228, 14: 2.145, 19: 2.093, 29: 2.045}


def t975(df: int) -> float:
    if df in T975:
        return T975[df]
    keys = sorted(k for k in T975 if k <= df)
    return T975[keys[-1]] if keys else T975[1]


def mean_ci(xs: Sequence[float]) -> tuple:
    """(mean, half-width of the 95 % CI) over seeds."""
    k = len(xs)
    m = sum(xs) / k
    if k < 2:
        return m, 0.0
    s = math.sqrt(sum((x - m) ** 2 for x in xs) / (k - 1))
    return m, t975(k - 1) * s / math.sqrt(k)


def jain(xs: list) -> float:
    s, s2 = sum(xs), sum(x * x for x in xs)
    return s * s / (len(xs) * s2) if s2 > 0 else 1.0


def group(runs: list, key: Callable[[dict], Any]) -> dict:
    g: dict = defaultdict(list)
    for r in runs:
        g[key(r)].append(r)
    return g


def occupancy_after(queue: dict, t0: float, t1: float) -> float:
    """Time-weighted mean of the queue's sampled length over [t0, t1]."""
    series = queue.get("series") or []
    if not series:
        return float(queue.get("mean_len", float("nan")))
    area, last_t, last_n = 0.0, t0, 0.0
    for t, n in series:
        if t <= t0:
            last_n = n
            continue
        if t > t1:
            break
        area += (t - last_t) * last_n
        last_t, last_n = t, n
    area += (t1 - last_t) * last_n
    return area / (t1 - t0) if t1 > t0 else float("nan")



# -- tables and figures ------------------------------------------------------

def fmt(x: Optional[float], nd: int = 2) -> str:
    return "-" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{x:.{nd}f}"


def table(header: list, rows: list) -> str:
    """A Markdown table."""
    out = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    out += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(out)


def pyplot():
    """matplotlib's pyplot on the Agg backend (no display needed)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def save_figure(fig, path: Path, dpi: int = 110) -> None:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=dpi, bbox_inches="tight")
    try:
        shown = path.resolve().relative_to(REPO)
    except ValueError:
        shown = path
    print(f"# wrote {shown} ({path.stat().st_size // 1024} KB)", file=sys.stderr)


def _short(v: Any) -> str:
    if isinstance(v, list):
        if any(isinstance(x, (list, dict)) for x in v):
            return f"[{len(v)} entries]"
        return f"[{len(v)} values]" if len(v) > 4 else json.dumps(v)
    if isinstance(v, float):
        return f"{v:g}"
    return v if isinstance(v, str) else json.dumps(v)


def params_label(p: dict) -> str:
    """A configuration's swept values, long lists shortened to their length."""
    return ", ".join(f"{k}={_short(v)}" for k, v in p.items()) or "(base)"


def summarise(r: dict) -> dict:
    """The fields of one run's result that the tables and figures use (a
    run's record without its series and histograms, small enough to cache)."""
    q = (r.get("queues") or [{}])[0]
    flows = r.get("flows", [])
    tcp = [(f.get("tcp") or {}) for f in flows if f.get("kind") == "tcp"]
    pings = [f["ping"] for f in flows if f.get("ping")]
    done = [t.get("completion_s") for t in tcp]
    return {
        "params": r.get("params", {}), "seed": r.get("seed"), "run_index": r.get("run_index"),
        "duration_s": r.get("duration_s"), "warmup_s": r.get("warmup_s", 0.0),
        "jain": r.get("jain_index"), "agg": r.get("aggregate_mbps"),
        "coll": r.get("collision_probability"),
        "events": r.get("events"), "wall_time_s": r.get("wall_time_s"),
        "ledger_dropped": r.get("ledger", {}).get("dropped", {}),
        "flows": [{
            "name": f.get("name"), "goodput": f.get("goodput_mbps"),
            "packets_generated": f.get("packets_generated"),
            "packets_delivered": f.get("packets_delivered"),
            "srtt_ms": (f.get("tcp") or {}).get("srtt_ms"),
            "timeouts": (f.get("tcp") or {}).get("timeouts"),
            "syn_retransmits": (f.get("tcp") or {}).get("syn_retransmits"),
            "fast_retransmits": (f.get("tcp") or {}).get("fast_retransmits"),
            "retransmitted": (f.get("tcp") or {}).get("segments_retransmitted"),
            "state": (f.get("tcp") or {}).get("state"),
        } for f in flows],
        "queue": {k: q.get(k) for k in ("node", "kind", "enqueued", "dequeued", "dropped",
                                        "filtered_share", "mean_len", "max_len")},
        "stations": [{k: s.get(k) for k in ("name", "attempts", "successes", "airtime_s",
                                              "channel_errors", "collisions", "retries", "drops")}
                     for s in r.get("stations", [])],
        "links": r.get("links", []),
        # echo flows: mean over them of the mean and p99 RTT (ms)
        "ping_mean": mean(p["rtt_mean_ms"] for p in pings if p.get("rtt_mean_ms") is not None),
        "ping_p99": mean(p["rtt_p99_ms"] for p in pings if p.get("rtt_p99_ms") is not None),
        # transfers of a fixed size: the last TCP flow's completion, None
        # unless every TCP flow of the run completed
        "sized": any(d is not None for d in done),
        "completion": max(done) if tcp and all(d is not None for d in done) else None,
        "tcp_bytes": sum(f.get("bytes_delivered") or 0 for f in flows if f.get("kind") == "tcp"),
        # polling counters (HCF or PCF) and ACK-filter counters, summed over
        # the members and the queues (docs/results.md)
        "polling": _sum_numbers([(s.get("hcf") or {}).get("polling") or (s.get("pcf") or {}).get("polling")
                                 for s in r.get("stations", [])]),
        "ack_filter": _sum_numbers([qq.get("ack_filter") for qq in r.get("queues", [])]),
    }


def _sum_numbers(dicts: list) -> dict:
    """Key-wise sum of the numeric fields of the dicts that are not None."""
    out: dict = {}
    for d in dicts:
        for k, v in (d or {}).items():
            if isinstance(v, (int, float)) and not isinstance(v, bool):
                out[k] = out.get(k, 0) + v
    return out


def transfer_mbps(r: dict) -> Optional[float]:
    """A run's TCP bytes over its last completion (Mbit/s), None unless every
    transfer completed (``r``: `summarise` of a run)."""
    if not r.get("completion"):
        return None
    return r["tcp_bytes"] * 8 / r["completion"] / 1e6


def by_run(runs: list) -> list:
    """Runs in run order (sweep point, then seed)."""
    return sorted(runs, key=lambda r: (r.get("run_index") or 0, r.get("seed") or 0))


def config_table(runs: list) -> str:
    """One row per configuration (mean over seeds): total goodput with its
    95 % CI, Jain index over the flows, collision probability, TCP RTOs per
    run, the ping RTT (mean and p99) when a flow pings, and, when the flows
    are transfers of a fixed size, the TCP bytes over the last completion
    (`transfer_mbps`) in the runs where every transfer completed. ``runs``:
    records, or `summarise` of them."""
    rs = by_run([r if "agg" in r else summarise(r) for r in runs])
    ping = any(not math.isnan(r["ping_mean"]) for r in rs)
    sized = any(r["sized"] for r in rs)
    header = ["configuration", "seeds", "total Mbit/s", "Jain", "coll. prob.", "RTOs/run"]
    header += ["ping RTT mean / p99 (ms)"] if ping else []
    header += ["Mbit/s over the last completion (runs all done)"] if sized else []
    rows = []
    for _, g in group(rs, lambda r: json.dumps(r["params"], sort_keys=True)).items():
        m, h = mean_ci([r["agg"] for r in g])
        rtos = [sum(f["timeouts"] or 0 for f in r["flows"]) for r in g]
        row = [params_label(g[0]["params"]), len(g), f"{m:.2f} ± {h:.2f}",
               fmt(mean(r["jain"] for r in g), 3), fmt(mean(r["coll"] for r in g), 3),
               fmt(mean(rtos), 1)]
        if ping:
            row.append(f"{fmt(mean(r['ping_mean'] for r in g), 1)} / "
                       f"{fmt(mean(r['ping_p99'] for r in g), 1)}")
        if sized:
            done = [transfer_mbps(r) for r in g if r["completion"] is not None]
            row.append(f"{fmt(mean(done))} ({len(done)}/{len(g)})")
        rows.append(row)
    return table(header, rows)


def parse_args(module: str, doc: str, parts: Sequence[str], argv: Optional[list], *,
               quick_help: str = "one seed: a smoke test", figures: Optional[Path] = None,
               seeds: bool = False, extra: Optional[Callable] = None) -> tuple:
    """The command line every paper module takes: ``--only`` (a subset of
    ``parts``), ``--quick``, ``--jobs``, ``--store``, ``--cache``, with
    ``figures`` also ``--figures``/``--no-figures``, with ``seeds`` also
    ``--seeds``, and the module's own options (``extra``: called with the
    parser). Returns the parsed arguments and the parts asked for."""
    ap = argparse.ArgumentParser(prog=f"python -m wifitcp.repro.{module}", description=doc.split("\n\n")[0])
    ap.add_argument("--only", default=",".join(parts),
                    help="comma-separated parts: " + ", ".join(parts) + " (default all)")
    ap.add_argument("--quick", action="store_true", help=quick_help)
    ap.add_argument("--jobs", type=int, default=2, help="worker processes (default 2)")
    if seeds:
        ap.add_argument("--seeds", metavar="LIST", help="seeds to run, e.g. 1..3 (replaces the scenarios' own)")
    if figures is not None:
        ap.add_argument("--figures", default=str(figures), help="directory of the PNG figures")
        ap.add_argument("--no-figures", action="store_true")
    ap.add_argument("--store", action="store_true", help="also store runs in results/<scenario>.duckdb")
    ap.add_argument("--cache", metavar="DIR", help="keep every run set's records in DIR and reuse them "
                    "(same scenario file and overrides) instead of running again")
    if extra is not None:
        extra(ap)
    a = ap.parse_args(argv)
    want = [x.strip() for x in a.only.split(",") if x.strip()]
    for w in want:
        if w not in parts:
            ap.error(f"--only: unknown part {w!r} (one of {', '.join(parts)})")
    return a, want

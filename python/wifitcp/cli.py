"""The ``wifitcp`` command line.

Subcommands: ``run``, ``validate``, ``compare``, ``export``, ``bench``.
Bad input prints ONE line ``error: FILE: dotted.key: reason`` on stderr and
exits 2; a failed run exits 1; no traceback either way (set
``WIFITCP_DEBUG=1`` to see one for internal errors).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path
from typing import Optional, Sequence

from . import api, core
from .errors import InputError, RunError

EXIT_BAD_INPUT = 2
EXIT_FAILED = 1


class _Parser(argparse.ArgumentParser):
    def error(self, message: str):  # one line, exit 2
        raise InputError(self.prog, "", message)


def _seed(text: str) -> int:
    try:
        v = int(text, 0)
    except ValueError:
        raise argparse.ArgumentTypeError(f"--seed expects an integer, got {text!r}") from None
    if not 0 <= v < 2**64:
        raise argparse.ArgumentTypeError(f"--seed {v} out of range 0..2^64-1")
    return v


def _jobs(text: str) -> int:
    try:
        v = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"--jobs expects an integer, got {text!r}") from None
    if v < 1:
        raise argparse.ArgumentTypeError("--jobs must be >= 1")
    return v


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(prog="wifitcp", description="Simulate TCP over IEEE 802.11.")
    p.add_argument("--version", action="version", version=_version_text())
    sub = p.add_subparsers(dest="command", required=True, parser_class=_Parser)

    def scenario_args(sp: argparse.ArgumentParser) -> None:
        sp.add_argument("scenario", metavar="SCENARIO.toml")
        sp.add_argument("--seed", type=_seed, help="run only this seed")
        sp.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                        help="override a value (dotted key, TOML value); repeatable")

    r = sub.add_parser("run", help="run a scenario (every sweep point and seed)")
    scenario_args(r)
    r.add_argument("--out", metavar="FILE.duckdb",
                   help="results store (default results/<scenario-name>.duckdb)")
    r.add_argument("--no-store", action="store_true", help="do not write a results store")
    r.add_argument("--replace", action="store_true",
                   help="delete this scenario's earlier runs from the store first")
    r.add_argument("--json", action="store_true",
                   help="print one JSON object per run (JSON lines) instead of a table")
    r.add_argument("--jobs", type=_jobs, default=None,
                   help="worker processes (default: all cores)")
    r.add_argument("--flows", action="store_true", help="list every flow's goodput")
    r.add_argument("--compare", action="store_true",
                   help="then print the simulation vs Bianchi comparison")

    v = sub.add_parser("validate", help="check every expanded run of a scenario")
    scenario_args(v)

    c = sub.add_parser("compare", help="simulation vs Bianchi DCF model, from a store")
    c.add_argument("store", metavar="FILE.duckdb")
    c.add_argument("--scenario", help="only this scenario name")
    c.add_argument("--json", action="store_true", help="JSON lines instead of a table")

    e = sub.add_parser("export", help="export a store's tables")
    e.add_argument("store", metavar="FILE.duckdb")
    e.add_argument("--parquet", metavar="DIR", required=True,
                   help="write DIR/runs.parquet, flows.parquet, stations.parquet")

    b = sub.add_parser("bench", help="time each configuration of a scenario (one seed)")
    scenario_args(b)
    return p


def _version_text() -> str:
    from . import __version__

    try:
        return f"wifitcp {__version__} (core {core.version()})"
    except Exception:
        return f"wifitcp {__version__} (core not built)"


# --------------------------------------------------------------------------

class _Progress:
    """tqdm on a TTY; otherwise a few plain lines on stderr."""

    def __init__(self, total: int, enabled: bool):
        self.total, self.done, self.enabled = total, 0, enabled
        self.bar = None
        self.t0 = time.perf_counter()
        self.last_tick = -1
        if enabled and sys.stderr.isatty():
            try:
                from tqdm import tqdm

                self.bar = tqdm(total=total, unit="run", file=sys.stderr, leave=False)
            except ImportError:
                pass

    def update(self, label: str) -> None:
        self.done += 1
        if not self.enabled:
            return
        if self.bar is not None:
            self.bar.set_postfix_str(label[:40], refresh=False)
            self.bar.update(1)
            return
        tick = self.done * 10 // self.total
        if tick != self.last_tick or self.done == self.total:
            self.last_tick = tick
            print(f"[{self.done}/{self.total}] {label}", file=sys.stderr, flush=True)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


def cmd_run(args: argparse.Namespace) -> int:
    from .report import runs_table
    from .store import Store

    scn = api.load(args.scenario, sets=args.set, seed=args.seed)
    from . import scenario as scn_mod

    items = scn_mod.check_all(scn)  # all bad input is reported before any run starts
    jobs = args.jobs or _default_jobs()
    store = None
    out = None
    if not args.no_store:
        out = args.out or api.default_store_path(scn.name)
        try:
            store = Store(out)
        except Exception as e:
            raise InputError(out, "", f"cannot open results store: {e}") from None
    progress = _Progress(scn.n_runs, enabled=not args.json)
    version = core.version()

    def on_outcome(o, run_id):
        progress.update(o.spec.label)
        if args.json:
            print(json.dumps(api.record(o, version, run_id)), flush=True)

    t0 = time.perf_counter()
    try:
        if store is not None and args.replace:
            store.delete_scenario(scn.name)
        done = api.execute(scn, jobs=jobs, store=store, on_outcome=on_outcome,
                           items=items)
    finally:
        progress.close()
        if store is not None:
            store.close()
    wall = time.perf_counter() - t0
    outcomes = [o for o, _ in done]
    if not args.json:
        print(runs_table(outcomes, all_flows=args.flows))
    where = f" -> {out}" if out else ""
    print(f"{len(outcomes)} runs in {wall:.1f} s with {min(jobs, len(outcomes))} "
          f"worker(s){where}", file=sys.stderr)
    failed = [o for o in outcomes if not o.ok]
    if failed:
        raise RunError(f"{len(failed)} of {len(outcomes)} runs failed; "
                       f"first: run {failed[0].spec.label}: {failed[0].error}")
    if args.compare and out:
        print()
        return _compare(out, scn.name, False)
    return 0


def _default_jobs() -> int:
    from .runner import default_jobs

    return default_jobs()


def cmd_validate(args: argparse.Namespace) -> int:
    from . import scenario as scn_mod

    scn = api.load(args.scenario, sets=args.set, seed=args.seed)
    scn_mod.check_all(scn)
    print(f"OK: {args.scenario}: scenario {scn.name!r}: {scn.n_runs} runs "
          f"({scn.n_configs} configurations x {len(scn.seeds)} seeds)")
    return 0


def _open_existing(path: str):
    from .store import Store

    if not Path(path).is_file():
        raise InputError(path, "", "no such results store")
    try:
        return Store(path, read_only=True)
    except Exception as e:
        raise InputError(path, "", f"not a results store: {str(e).splitlines()[0]}") from None


def _compare(path: str, scenario: Optional[str], as_json: bool) -> int:
    from .compare import compare, render

    _open_existing(path).close()
    rows = compare(path, scenario=scenario)
    if as_json:
        for r in rows:
            r = {k: v for k, v in r.items() if k != "config"}
            print(json.dumps(r))
    else:
        print(render(rows))
    return 0


def cmd_compare(args: argparse.Namespace) -> int:
    return _compare(args.store, args.scenario, args.json)


def cmd_export(args: argparse.Namespace) -> int:
    st = _open_existing(args.store)
    try:
        paths = st.export_parquet(args.parquet)
    finally:
        st.close()
    for p in paths:
        print(p)
    return 0


def cmd_bench(args: argparse.Namespace) -> int:
    from . import runner, scenario as scn_mod
    from .report import params_label, table

    scn = api.load(args.scenario, sets=args.set, seed=args.seed)
    items = scn_mod.check_all(scn)
    seed0 = scn.seeds[0]
    items = [(s, c) for s, c in items if s.seed == seed0]
    rows = []
    for o in runner.run_all(items, jobs=1):
        if not o.ok:
            raise RunError(f"run {o.spec.label}: {o.error}")
        r = o.result or {}
        ev = r.get("events") or 0
        sim_s = r.get("duration_s") or 0.0
        rows.append([params_label(o.spec.params), f"{o.wall_time_s:.3f}", str(ev),
                     f"{ev / o.wall_time_s / 1e6:.2f}" if o.wall_time_s else "-",
                     f"{sim_s / o.wall_time_s:.1f}" if o.wall_time_s else "-"])
    print(table(["params", "wall s", "events", "Mevents/s", "sim s / wall s"], rows,
                "lrrrr"))
    return 0


COMMANDS = {"run": cmd_run, "validate": cmd_validate, "compare": cmd_compare,
            "export": cmd_export, "bench": cmd_bench}


def main(argv: Optional[Sequence[str]] = None) -> int:
    try:
        args = build_parser().parse_args(argv)
        return COMMANDS[args.command](args)
    except InputError as e:
        print(f"error: {e}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except RunError as e:
        print(f"error: {e}", file=sys.stderr)
        return EXIT_FAILED
    except KeyboardInterrupt:
        print("error: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0
    except Exception as e:
        if os.environ.get("WIFITCP_DEBUG"):
            raise
        msg = str(e).splitlines()[0] if str(e) else ""
        print(f"error: {type(e).__name__}: {msg}", file=sys.stderr)
        return EXIT_FAILED

"""The ``wifitcp`` command line.

Subcommands: ``run``, ``validate``, ``compare``, ``export``, ``bench``,
``plot``, ``report``, ``completion``. Help texts go through argparse's
%-formatting: a literal percent sign is written ``%%``.
Bad input prints ONE line ``error: FILE: dotted.key: reason`` on stderr and
exits 2; a failed run exits 1; no traceback either way (set
``WIFITCP_DEBUG=1`` to see one for internal errors).

Start-up: this module imports argparse and little else (not even typing:
its annotations are not evaluated); each command imports the modules it
uses when it runs, so ``--help`` and ``validate`` load neither the campaign
machinery nor DuckDB, pandas, numpy or scipy (python/tests/test_startup.py;
``bench/startup`` times it).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import time

TYPE_CHECKING = False
if TYPE_CHECKING:  # annotations only: --help does without typing
    from typing import Optional, Sequence

from . import core
from .errors import InputError, RunError

EXIT_BAD_INPUT = 2
EXIT_FAILED = 1


def _columns() -> int:
    """The terminal's width as `shutil.get_terminal_size` gives it (COLUMNS,
    else the terminal of stdout, else 80), without importing shutil (and with
    it bz2, lzma and zlib), which argparse would do for this alone."""
    try:
        columns = int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        columns = 0
    if columns > 0:
        return columns
    try:
        return os.get_terminal_size(sys.__stdout__.fileno()).columns or 80
    except (AttributeError, ValueError, OSError):
        return 80


class _Formatter(argparse.HelpFormatter):
    def __init__(self, prog: str, max_help_position: int = 24):
        super().__init__(prog, max_help_position=max_help_position, width=_columns() - 2)


class _Parser(argparse.ArgumentParser):
    def __init__(self, *args, formatter_class=_Formatter, **kwargs):
        super().__init__(*args, formatter_class=formatter_class, **kwargs)

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


class _TopFormatter(_Formatter):
    """The top-level help: every command's one-line help on the command's
    own line (argparse measures subcommand names without their indentation,
    so the longest one would otherwise get its help on the next line)."""

    def __init__(self, prog: str):
        super().__init__(prog, max_help_position=20)
        self._action_max_length = 16


#: the commands, in the order ``wifitcp --help`` lists them, with their
#: one-line help (also their description)
HELP = {
    "run": "run a scenario (every sweep point and seed)",
    "validate": "check every expanded run of a scenario",
    "compare": "simulation vs the analytical models (Bianchi's DCF; Pokhrel's "
               "fixed point and the Mathis/Padhye formulas where they apply)",
    "export": "export a store as tidy tables (Parquet or CSV)",
    "bench": "time each configuration of a scenario (one seed)",
    "plot": "a metric vs a parameter with 95 %% CI, a CDF, or time series",
    "report": "one HTML page with every reproduced paper figure",
    "completion": "print a shell completion script (bash or zsh)",
    "schema": "every scenario key: type, default, range, unit",
    "emulate": "real Linux traffic through the simulated WLAN in real time "
               "(network namespaces; needs root or CAP_NET_ADMIN)",
}


def build_parser(only: Optional[str] = None) -> argparse.ArgumentParser:
    """The command line's parser; with ``only`` (a command's name) the other
    commands are listed without their arguments (what `main` parses with:
    every command's arguments would cost a tenth of its start-up)."""
    p = _Parser(prog="wifitcp", description="Simulate TCP over IEEE 802.11.",
                epilog="docs/ in the source tree describes the scenario files and the results.",
                formatter_class=_TopFormatter)
    p.add_argument("--version", action=_VersionAction, nargs=0,
                   help="show the program's and the core's version and exit")
    sub = p.add_subparsers(dest="command", required=True, parser_class=_Parser,
                           title="commands", metavar="COMMAND",
                           help="one of these (`wifitcp COMMAND --help` for its options):")
    for name, help in HELP.items():
        text = help.replace("%%", "%")  # descriptions are not %-formatted
        sp = sub.add_parser(name, help=help, description=text[0].upper() + text[1:] + ".")
        if only is None or only == name:
            ARGUMENTS[name](sp)
    return p


def _scenario_args(sp: argparse.ArgumentParser) -> None:
    sp.add_argument("scenario", metavar="SCENARIO.toml")
    sp.add_argument("--seed", type=_seed, help="run only this seed")
    sp.add_argument("--seeds", metavar="LIST",
                    help="seeds to run, e.g. 1..5 or 1,2,7 (replaces scenario.seeds)")
    sp.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                    help="override a value (dotted key, TOML value), a swept one "
                         "included; repeatable")
    sp.add_argument("--sweep", action="append", default=[], metavar="KEY=V1,V2,...",
                    help="a grid axis, e.g. wlan.stations=1,2,5 or 1..15; repeatable")


def _run_args(sp: argparse.ArgumentParser) -> None:
    _scenario_args(sp)
    sp.add_argument("--out", metavar="FILE.duckdb",
                    help="results store (default results/<scenario-name>.duckdb)")
    sp.add_argument("--no-store", action="store_true", help="do not write a results store")
    sp.add_argument("--replace", action="store_true",
                    help="delete this scenario's earlier runs from the store first")
    sp.add_argument("--rerun", action="store_true",
                    help="run again the runs the store already has (replacing them)")
    sp.add_argument("--dask", metavar="ADDRESS",
                    help="run on a dask.distributed cluster: tcp://HOST:PORT, local[:N] "
                         "for a local one, slurm[:N] for N Slurm jobs (dask-jobqueue) "
                         "(default: [campaign] dask, else local processes)")
    sp.add_argument("--json", action="store_true",
                    help="print one JSON object per run (JSON lines) instead of a table; "
                         "runs the store already has are printed too, with \"stored\": true")
    sp.add_argument("--jobs", type=_jobs, default=None,
                    help="worker processes (default: [campaign] jobs, else all cores)")
    sp.add_argument("--pcap", metavar="DIR",
                    help="write each run's packets as pcap, one file per interface, into "
                         "DIR/<scenario>/run<index>-seed<seed>/ (802.11 with radiotap; "
                         "Ethernet on wired links); stored runs without them run again")
    sp.add_argument("--trace", metavar="DIR",
                    help="write each run's per-packet trace (enqueue, dequeue, transmit, receive, "
                         "drop) as DIR/<scenario>/run<index>-seed<seed>/packets.parquet; "
                         "stored runs without it run again")
    sp.add_argument("--quiet", action="store_true", help="no progress, no table")
    sp.add_argument("--flows", action="store_true", help="list every flow's goodput")
    sp.add_argument("--compare", action="store_true",
                    help="then print the simulation vs Bianchi comparison")


def _validate_args(sp: argparse.ArgumentParser) -> None:
    _scenario_args(sp)


def _compare_args(sp: argparse.ArgumentParser) -> None:
    sp.add_argument("store", metavar="FILE.duckdb")
    sp.add_argument("--scenario", help="only this scenario name")
    sp.add_argument("--json", action="store_true", help="JSON lines instead of a table")


def _export_args(sp: argparse.ArgumentParser) -> None:
    sp.add_argument("store", metavar="FILE.duckdb")
    sp.add_argument("--parquet", metavar="DIR",
                    help="write DIR/<table>.parquet for runs, flows, series, delay_histogram, cwnd, "
                         "stations, queues, queue_series, links, failures (docs/results.md)")
    sp.add_argument("--csv", metavar="DIR", help="the same tables as DIR/<table>.csv")
    sp.add_argument("--raw", action="store_true",
                    help="the store's own tables (JSON columns as text) instead of the tidy ones")


def _bench_args(sp: argparse.ArgumentParser) -> None:
    _scenario_args(sp)


def _plot_args(sp: argparse.ArgumentParser) -> None:
    sp.add_argument("store", metavar="FILE.duckdb",
                    help="a results store; or one run's packets.parquet (--trace) for "
                         "--cdf --y tcp_rtt_ms, the TCP round-trip time of each segment")
    sp.add_argument("--x", metavar="PATH",
                    help="x axis: a swept parameter or configuration path, seed, or flow "
                         "(numbers: a numeric axis; anything else: categories)")
    sp.add_argument("--y", metavar="METRIC",
                    help="a numeric runs column or result value (jain_index, "
                         "aggregate_mbps, queues[0].mean_len, ...); with --flow a value of "
                         "each flow (goodput_mbps, mean_delay_ms, tcp.srtt_ms)")
    sp.add_argument("--cdf", action="store_true",
                    help="the empirical CDF of --y over the runs (or the flows) instead")
    sp.add_argument("--box", action="store_true",
                    help="box plots of the runs (or flows) at each --x instead of the mean "
                         "and 95 %% CI")
    sp.add_argument("--series", nargs="?", const="flows", choices=["flows", "queues", "cwnd"],
                    help="time series instead: the flows' Mbit/s (default), the queues' "
                         "occupancy or the senders' cwnd, mean over the selected runs")
    sp.add_argument("--model", choices=["bianchi"],
                    help="draw Bianchi's DCF model beside each line (saturated workloads; "
                         "--y aggregate_msdu_mbps or collision_probability)")
    sp.add_argument("--flow", action="append", default=[], metavar="PATTERN",
                    help="only the flows with these names (shell wildcards: 'up/*'); "
                         "repeatable; --by flow: one line per flow")
    sp.add_argument("--by", metavar="PATH",
                    help="one line per value of this parameter (or flow)")
    sp.add_argument("--scenario", help="only this scenario's runs")
    sp.add_argument("--where", action="append", default=[], metavar="PATH=VALUE",
                    help="only runs with this value; repeatable")
    sp.add_argument("--out", metavar="PREFIX",
                    help="write PREFIX.png and PREFIX.svg (default: beside the store)")
    sp.add_argument("--format", default="png,svg", help="png, svg or png,svg")
    sp.add_argument("--title", help="figure title")


def _report_args(sp: argparse.ArgumentParser) -> None:
    sp.add_argument("scenarios", nargs="*", metavar="SCENARIO.toml",
                    help="scenarios to report (default: the built-in registry and every "
                         "scenarios/*.toml with a [report] table)")
    sp.add_argument("--results", default="results", metavar="DIR",
                    help="where the stores are, DIR/<scenario-name>.duckdb (default results)")
    sp.add_argument("--out", default=None, metavar="DIR",
                    help="write DIR/index.html and DIR/figures/ (default <results>/report)")
    sp.add_argument("--run", action="store_true",
                    help="first run (or resume) each scenario's campaign")
    sp.add_argument("--jobs", type=_jobs, default=None, help="worker processes for --run")
    sp.add_argument("--dask", metavar="ADDRESS", help="dask cluster for --run")
    sp.add_argument("--papers", metavar="LIST", default=None,
                    help="the seed papers whose claims to reproduce and show, comma-separated "
                         "(000,001,002,003,004), 'all' or 'none' (default: all without "
                         "SCENARIO.toml arguments, none with them)")
    sp.add_argument("--full", action="store_true",
                    help="reproduce the claims with the scenarios' own seeds and grids (minutes) "
                         "instead of the paper modules' --quick runs (about a minute)")
    sp.add_argument("--cache", metavar="DIR", default=None,
                    help="keep the claims' runs in DIR and reuse them while the scenario files and "
                         "the core are unchanged (default <results>/repro-cache)")


def _completion_args(sp: argparse.ArgumentParser) -> None:
    sp.add_argument("shell", choices=["bash", "zsh"])


def _schema_args(sp: argparse.ArgumentParser) -> None:
    sp.add_argument("--markdown", action="store_true", help="as Markdown tables (default JSON)")
    sp.add_argument("--write", metavar="FILE.md", help="rewrite FILE.md's generated blocks")


def _emulate_args(sp: argparse.ArgumentParser) -> None:
    sp.usage = ("%(prog)s [options] SCENARIO.toml [-- COMMAND...]\n"
                "       %(prog)s --cleanup")
    sp.epilog = ("-- COMMAND...: run COMMAND (no shell) in the first station's namespace (or "
                 "--node's); the run ends when it exits, or at --duration (then it is stopped)")
    sp.add_argument("scenario", metavar="SCENARIO.toml", nargs="?")
    sp.add_argument("--seed", type=_seed, help="seed of the simulated network (default: the "
                                               "scenario's first)")
    sp.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                    help="override a value (dotted key, TOML value), a swept one "
                         "included; repeatable")
    sp.add_argument("--duration", type=float, metavar="S",
                    help="seconds of real time to run (default scenario.duration_s)")
    sp.add_argument("--on", nargs=2, action="append", default=[], metavar=("NODE", "CMD"),
                    help="run CMD (a shell command) in NODE's namespace at the start; "
                         "repeatable")
    sp.add_argument("--pcap", metavar="DIR",
                    help="write the simulated network's pcap files and DIR/tun/<node>.pcap "
                         "(every datagram through each node's interface)")
    sp.add_argument("--sysctl", action="append", default=[], metavar="KEY=VALUE",
                    help="set this net.* sysctl in every namespace (after the scenario's); "
                         "repeatable")
    sp.add_argument("--max-lag-ms", type=float, metavar="MS",
                    help="p99 real-time lag above which the run is not valid (default 1)")
    sp.add_argument("--out", metavar="FILE.duckdb",
                    help="results store (default results/<scenario-name>.duckdb)")
    sp.add_argument("--no-store", action="store_true", help="do not write a results store")
    sp.add_argument("--json", action="store_true", help="print the result as one JSON object")
    sp.add_argument("--node", metavar="NODE",
                    help="namespace of the -- COMMAND (default: the first station, sta0)")
    sp.add_argument("--cleanup", action="store_true",
                    help="end and remove what runs whose emulator is no longer running left behind "
                         "(processes, namespaces, empty output directories), then exit")


#: each command's arguments
ARGUMENTS = {"run": _run_args, "validate": _validate_args, "compare": _compare_args,
             "export": _export_args, "bench": _bench_args, "plot": _plot_args,
             "report": _report_args, "completion": _completion_args,
             "schema": _schema_args, "emulate": _emulate_args}


class _VersionAction(argparse.Action):
    """`--version`, with the text computed only when asked for (finding the
    package version costs about 50 ms of start-up)."""

    def __call__(self, parser, namespace, values, option_string=None):
        print(_version_text())
        parser.exit()


def _version_text() -> str:
    """``wifitcp VERSION (core VERSION, commit HASH)``: the commit is the git
    commit the core was built from, "unknown" when built outside git."""
    from . import __version__

    try:
        return f"wifitcp {__version__} (core {core.version()}, commit {core.build_commit()})"
    except Exception:
        return f"wifitcp {__version__} (core not built)"


# --------------------------------------------------------------------------

def _load(args: argparse.Namespace):
    from . import scenario as scn_mod

    if getattr(args, "seeds", None) is not None and args.seed is not None:
        raise InputError("--seeds", "", "give --seed or --seeds, not both")
    sets = list(args.set) + scn_mod.sweep_sets(getattr(args, "sweep", []),
                                               getattr(args, "seeds", None))
    scn = scn_mod.load(args.scenario, sets=sets, seed=args.seed)
    _say_collapsed(scn)
    return scn


def _say_collapsed(scn) -> None:
    """One line on stderr for each swept key a ``--set`` replaced
    (`scenario.sets_win`)."""
    for path, (origin, values) in scn.collapsed.items():
        print(f"note: {scn.file}: {origin} replaces the sweep's values of {path} "
              f"({json.dumps(values, default=str)})", file=sys.stderr)


def _check_writable_dir(path: str, opt: str) -> None:
    """Create ``path`` and check a file can be written there, before any run
    (one line naming the option and the reason otherwise)."""
    try:
        os.makedirs(path, exist_ok=True)
        probe = os.path.join(path, ".wifitcp-write-probe")
        with open(probe, "w"):
            pass
        os.remove(probe)
    except OSError as e:
        raise InputError(path, "", f"{opt}: cannot write there: {e.strerror or e}") from None


#: above this many runs, `run` prints one line per configuration, not per run
RUNS_TABLE_MAX = 60


def cmd_run(args: argparse.Namespace) -> int:
    from . import api, campaign
    from . import scenario as scn_mod
    from .report import configs_table, runs_table

    scn = _load(args)
    items = scn_mod.check_all(scn)  # all bad input is reported before any run starts
    if args.pcap is not None:
        _check_writable_dir(args.pcap, "--pcap")
    if args.trace is not None:
        _check_writable_dir(args.trace, "--trace")
    jobs = campaign.jobs_for(scn, args.jobs)
    dask = campaign.dask_for(scn, args.dask)
    out = None if args.no_store else (args.out or api.default_store_path(scn.name))

    def on_outcome(o, run_id):
        if args.json:
            api.write_record_json(o, version, run_id, sys.stdout)

    version = core.version()
    res = campaign.run_with_progress(scn, items, out=out, jobs=jobs, dask=dask,
                                     replace=args.replace, rerun=args.rerun,
                                     progress=not (args.json or args.quiet),
                                     on_outcome=on_outcome, pcap=args.pcap, trace=args.trace)
    outcomes = [o for o, _ in res.outcomes]
    if args.json and res.skipped and out:
        # the runs the store already had: printed as stored (run order)
        with _open_existing(out) as st:
            for rec in api.stored_records(st, res.skipped):
                rec["stored"] = True  # not run now: the store's result of an earlier run
                print(json.dumps(rec, separators=(",", ":")), flush=True)
    if not args.json and not args.quiet and outcomes:
        if len(outcomes) <= RUNS_TABLE_MAX or args.flows:
            print(runs_table(outcomes, all_flows=args.flows))
        else:
            print(configs_table(outcomes))
    where = f" -> {out}" if out else ""
    skipped = f", {len(res.skipped)} already done" if res.skipped else ""
    workers = f"dask {dask}" if dask is not None else \
        f"{min(jobs, max(1, len(outcomes)))} worker(s)"
    print(f"{len(outcomes)} runs in {res.wall_s:.1f} s with {workers}{skipped}{where}",
          file=sys.stderr)
    failed = res.failed
    for o in failed:
        # A capture or trace that could not be written (a full disk) is an
        # input/output problem of --pcap/--trace, not a failed simulation.
        m = re.search(r"\b(pcap|trace): (.+?): (.+)$", o.error or "")
        if m:
            raise InputError(m.group(2), "", f"--{m.group(1)}: {m.group(3)} "
                             f"(run {o.spec.label}; {len(outcomes) - len(failed)} other runs done"
                             + (f", kept in {out})" if out else ")"))
    if failed:
        kept = " (recorded in the store's failures table)" if out else ""
        raise RunError(f"{len(failed)} of {len(outcomes)} runs failed{kept}; "
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

    scn = _load(args)
    scn_mod.check_all(scn)
    print(f"OK: {args.scenario}: scenario {scn.name!r}: {scn.n_runs} runs "
          f"({scn.n_configs} configurations x {len(scn.seeds)} seeds)")
    return 0


def _open_existing(path: str):
    from .store import Store

    if not os.path.isfile(path):
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
    from . import tidy

    if not args.parquet and not args.csv:
        raise InputError("export", "", "give --parquet DIR and/or --csv DIR")
    st = _open_existing(args.store)
    try:
        paths = []
        if args.raw:
            if args.csv:
                raise InputError("--raw", "", "--raw writes Parquet only (--parquet DIR)")
            paths = st.export_parquet(args.parquet)
        else:
            res = tidy.Results(st)
            for fmt, d in (("parquet", args.parquet), ("csv", args.csv)):
                if d:
                    paths += res.write(d, fmt)
    finally:
        st.close()
    for p in paths:
        print(p)
    return 0


def cmd_completion(args: argparse.Namespace) -> int:
    from .completion import script

    sys.stdout.write(script(args.shell))
    return 0


def cmd_bench(args: argparse.Namespace) -> int:
    from . import runner, scenario as scn_mod
    from .report import params_label, table

    scn = _load(args)
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


def cmd_plot(args: argparse.Namespace) -> int:
    from . import plot

    formats = plot.check_formats(args.format)
    mode = "series" if args.series else "cdf" if args.cdf else "xy"
    if args.cdf and args.series:
        raise InputError("--cdf", "", "give --cdf or --series, not both")
    if args.box and mode != "xy":
        raise InputError("--box", "", "box plots are drawn against --x (not with --cdf or --series)")
    if mode == "xy":
        for opt, v in (("--x", args.x), ("--y", args.y)):
            if not v:
                raise InputError(opt, "", "required (or --cdf with --y, or --series)")
    elif mode == "cdf" and not args.y:
        raise InputError("--y", "", "--cdf needs the metric (--y)")
    sel = plot.select(args.store, args.x, args.y, by=args.by, scenario=args.scenario,
                      where=plot.parse_where(args.where), flows=args.flow, mode=mode,
                      series=args.series or "flows")
    if args.model and not plot.add_model(sel, args.model):
        raise InputError("--model", args.model, "the model covers saturated single-size "
                         "workloads against wlan.stations, --y aggregate_msdu_mbps or "
                         "collision_probability; no line here qualifies")
    prefix = plot.strip_ext(args.out) if args.out else \
        plot.default_prefix(args.store, args.x, args.y, args.by, mode, args.series or "flows")
    paths = plot.draw(sel, prefix, formats, title=args.title, box=args.box)
    print(plot.render(sel))
    what = "1 trace" if args.store.endswith(".parquet") else \
        f"{len({r['run_id'] for r in sel.rows})} runs"
    print(f"{what} -> {' '.join(paths)}", file=sys.stderr)
    return 0


def cmd_report(args: argparse.Namespace) -> int:
    from . import reportpage

    out = args.out or os.path.join(args.results, "report")
    page = reportpage.build(args.scenarios, results=args.results, out=out, run=args.run,
                            jobs=args.jobs, dask=args.dask,
                            papers=reportpage.papers_arg(args.papers, bool(args.scenarios)),
                            full=args.full, cache=args.cache)
    print(page)
    return 0


def cmd_schema(args: argparse.Namespace) -> int:
    from . import schemadoc

    if args.write:
        from pathlib import Path

        changed = schemadoc.update(Path(args.write))
        print(f"{args.write}: {'updated' if changed else 'up to date'}", file=sys.stderr)
    else:
        print(schemadoc.keys_markdown() if args.markdown else json.dumps(core.schema(), indent=1))
    return 0


COMMANDS = {"run": cmd_run, "validate": cmd_validate, "compare": cmd_compare,
            "export": cmd_export, "bench": cmd_bench, "plot": cmd_plot,
            "report": cmd_report, "completion": cmd_completion, "schema": cmd_schema,
            "emulate": lambda a: cmd_emulate(a)}


def cmd_emulate(args: argparse.Namespace) -> int:
    """`wifitcp emulate` (python/wifitcp/emulate.py)."""
    from . import api, emulate, runner
    from . import scenario as scn_mod

    if args.cleanup:
        if not emulate.has_net_admin():
            raise InputError("emulate", "", "--cleanup needs root or CAP_NET_ADMIN")
        gone = emulate.cleanup(only_dead=True)
        print(f"removed {len(gone)} namespace(s)" + (": " + " ".join(gone) if gone else ""))
        return 0
    if args.scenario is None:
        raise InputError("emulate", "", "give a SCENARIO.toml (or --cleanup)")
    main_argv = getattr(args, "main_argv", None) or []
    if args.node is not None and not main_argv:
        raise InputError("--node", "", "names the namespace of a -- COMMAND; none given")
    if args.duration is not None and not 0 < args.duration <= 86400:
        raise InputError("--duration", "", f"{args.duration} s: must be in (0, 86400]")
    emulate.check_max_lag(args.max_lag_ms)
    if args.pcap is not None:
        _check_writable_dir(args.pcap, "--pcap")
    scn = api.load(args.scenario, sets=list(args.set), seed=args.seed)
    _say_collapsed(scn)
    items = scn_mod.check_all(scn)
    if len({json.dumps(s.params, sort_keys=True) for s, _ in items}) > 1:
        raise InputError(scn.file, "sweep", f"{scn.n_configs} configurations: the emulator runs "
                         "one; pick it with --set")
    spec, config = items[0]
    t0 = time.perf_counter()
    res = emulate.run(config, spec.seed, file=scn.file, duration=args.duration, on=args.on,
                      pcap=args.pcap, max_lag_ms=args.max_lag_ms, sysctls=tuple(args.sysctl),
                      main=main_argv or None, main_node=args.node)
    wall = time.perf_counter() - t0
    e = res["emulation"]
    if args.json:
        print(json.dumps(res))
    else:
        for c in res["commands"]:
            if c.get("main"):  # the -- COMMAND: its whole output
                sys.stdout.write(c.get("stdout") or "")
                sys.stderr.write(c.get("stderr") or "")
            ip = c.get("iperf3")
            tail = (f"iperf3 {ip['received_mbps']:.2f} Mbit/s" if ip else
                    (c.get("stdout") or "").strip().splitlines()[-1:] or [""])
            print(f"{c['node']:>8} {c['label']}: exit {c['exit_status']} "
                  f"{tail if isinstance(tail, str) else tail[0]}")
        for f in res["flows"]:
            print(f"{f['name']}: {f['goodput_mbps']:.2f} Mbit/s at the MAC")
        lag = e["event_lag"]
        print(f"aggregate {res['aggregate_mbps']:.2f} Mbit/s, Jain {res['jain_index']:.3f}; "
              f"lag p50 {lag['p50_ms']:.3f} ms p99 {lag['p99_ms']:.3f} ms max {lag['max_ms']:.3f} ms"
              f" -> {'valid' if e['valid'] else 'NOT VALID'} (p99 limit {e['max_lag_p99_ms']} ms)")
        for s in e.get("ignored_settings", []):
            print(f"ignored: {s}")
    if not args.no_store:
        from .campaign import open_store

        out = args.out or api.default_store_path(scn.name)
        store = open_store(out)
        try:
            params = dict(spec.params, emulate=True)
            store.add_run(scenario=spec.scenario, scenario_hash=runner.config_hash(config),
                          params=params, seed=spec.seed, version=core.version(),
                          wall_time_s=wall, config=config, result=res)
        finally:
            store.close()
        print(f"-> {out}", file=sys.stderr)
    # the -- COMMAND's own failure (not its stop at --duration) fails the run
    main_rc = [c["exit_status"] for c in res["commands"] if c.get("main") and not c.get("stopped_at_end")]
    return 0 if e["valid"] and all(rc == 0 for rc in main_rc) else EXIT_FAILED


def _split_command(argv: list) -> tuple[list, list]:
    """``wifitcp emulate ... -- COMMAND...``: (the arguments before ``--``,
    COMMAND). Only for `emulate`; other subcommands keep ``--`` as is."""
    if "--" in argv:
        i = argv.index("--")
        if "emulate" in argv[:i]:
            return argv[:i], argv[i + 1:]
    return argv, []


def _command_of(argv: list) -> Optional[str]:
    """The command ``argv`` names: its first argument that is not an option
    (the top level's options take no value)."""
    return next((a for a in argv if not a.startswith("-")), None)


def main(argv: Optional[Sequence[str]] = None) -> int:
    from . import provenance

    provenance.set_command(list(sys.argv[1:] if argv is None else argv))
    try:
        argv, rest = _split_command(list(sys.argv[1:] if argv is None else argv))
        args = build_parser(only=_command_of(argv)).parse_args(argv)
        if args.command == "emulate":
            args.main_argv = rest
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

"""Scenario files: load, override (`--set`), and expand sweeps into runs.

A scenario is a TOML document. The simulator core (Rust) owns the schema of
everything except four Python-only parts, which are stripped here before the
document is handed to the core:

* ``scenario.seeds`` - list of master seeds (default ``[1]``);
* ``[sweep]`` - grid axes (``"dotted.path" = [values...]``, cartesian
  product) and optional zipped ``[[sweep.cases]]`` tables (each a set of
  ``"dotted.path" = value``), multiplied with the grid;
* ``[campaign]`` - how to run the sweep: ``jobs`` (worker processes),
  ``dask`` (a dask.distributed scheduler address);
* ``[report]`` - the paper figure(s) this scenario reproduces, for
  ``wifitcp report``: ``title``, ``expectation``, ``paper`` and
  ``figures = [{x = ..., y = ..., by = ...}, ...]``.

Runs = product(grid axes) x cases x seeds, in that nesting order. The
``params`` of a run are the dotted paths the sweep set, grid first.

A ``--set`` of a key the sweep also sets wins over the sweep: the grid
axis keeps the ``--set`` value only, every case takes it (cases that become
equal are merged), and ``Scenario.collapsed`` records what the sweep had,
for the command line to say so.

Dotted paths address tables by key and arrays by index, written either
``traffic.0.rate_mbps`` or ``traffic[0].rate_mbps``.
"""

from __future__ import annotations

import itertools
import json
import math
import os
import re
import sys
from typing import Any, Iterable, Optional, Sequence, Union

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python < 3.11 only
    import tomli as tomllib

from . import core
from .errors import InputError, split_core_message
from .record import Record

PathPart = Union[str, int]

DEFAULT_SEEDS = [1]
MAX_SEED = 2**64 - 1
#: most runs one campaign may expand to (grid x cases x seeds); each run holds
#: a copy of the configuration, so a larger sweep is split into campaigns
MAX_RUNS = 100_000
#: most values a range (``1..N``) or a value list may expand to
MAX_VALUES = MAX_RUNS
#: deepest nesting of tables and arrays in a scenario (the schema needs 5)
MAX_DEPTH = 32
_IMMUTABLE = (str, int, float, type(None))  # (bool is an int)
_INDEX = re.compile(r"^([^\[\]]*)((?:\[\d+\])+)$")


# --------------------------------------------------------------------------
# dotted paths

def split_path(path: str) -> list[PathPart]:
    """``"traffic[0].rate_mbps"`` -> ``["traffic", 0, "rate_mbps"]``."""
    if not isinstance(path, str) or not path.strip():
        raise ValueError("empty key")
    parts: list[PathPart] = []
    for seg in path.strip().split("."):
        if seg == "":
            raise ValueError(f"empty segment in key {path!r}")
        m = _INDEX.match(seg)
        if m:
            if m.group(1):
                parts.append(m.group(1))
            parts.extend(int(i) for i in re.findall(r"\[(\d+)\]", m.group(2)))
        elif seg.isdigit():
            parts.append(int(seg))
        elif "[" in seg or "]" in seg:
            raise ValueError(f"bad index in key {path!r}")
        else:
            parts.append(seg)
    return parts


def _copy(node: Any) -> Any:
    """``copy.deepcopy`` of a document, without importing `copy` (whose
    import costs more than this module's) for what TOML gives: tables,
    arrays and immutable values (strings, numbers, booleans, dates)."""
    kind = type(node)
    if kind is dict:
        return {k: _copy(v) for k, v in node.items()}
    if kind is list or kind is tuple:
        return kind(_copy(v) for v in node)
    if isinstance(node, _IMMUTABLE):
        return node
    import copy

    return copy.deepcopy(node)


def join_path(parts: Sequence[PathPart]) -> str:
    out = ""
    for p in parts:
        if isinstance(p, int):
            out += f"[{p}]"
        else:
            out += ("." if out else "") + p
    return out


def _is_prefix(a: Sequence[PathPart], b: Sequence[PathPart]) -> bool:
    return len(a) <= len(b) and list(b[: len(a)]) == list(a)


def set_path(doc: dict, path: str, value: Any) -> None:
    """Set ``value`` at dotted ``path`` in ``doc``, creating tables.

    Raises ValueError (message = reason) when the path cannot be set.
    """
    parts = split_path(path)
    node: Any = doc
    for i, part in enumerate(parts):
        last = i == len(parts) - 1
        where = join_path(parts[:i]) or "document"
        if isinstance(part, int):
            if not isinstance(node, list):
                raise ValueError(f"{where} is not an array")
            if part >= len(node):
                raise ValueError(f"index {part} out of range ({where} has {len(node)} entries)")
            if last:
                node[part] = value
            else:
                node = node[part]
        else:
            if not isinstance(node, dict):
                raise ValueError(f"{where} is not a table")
            if last:
                node[part] = value
            else:
                if part not in node:
                    node[part] = [] if isinstance(parts[i + 1], int) else {}
                node = node[part]


def get_path(doc: Any, path: Union[str, Sequence[PathPart]], default: Any = None) -> Any:
    parts = split_path(path) if isinstance(path, str) else list(path)
    node = doc
    for part in parts:
        try:
            node = node[part]
        except (KeyError, IndexError, TypeError):
            return default
    return node


def parse_value(text: str) -> Any:
    """A `--set` value: a TOML value if it parses as one, else a bare string."""
    try:
        return tomllib.loads(f"v = {text}")["v"]
    except tomllib.TOMLDecodeError:
        return text


def parse_set(text: str) -> tuple[str, Any]:
    """``"wlan.stations=5"`` -> ``("wlan.stations", 5)``."""
    key, sep, value = text.partition("=")
    key = key.strip()
    if not sep or not key:
        raise ValueError(f"--set expects dotted.key=VALUE, got {text!r}")
    if not re.match(r"^sweep\.([\"']).*\1$", key):
        split_path(key)  # syntax check (quoted sweep keys are taken whole)
    return key, parse_value(value.strip())


# --------------------------------------------------------------------------
# runs

class RunSpec(Record):
    """One run: a core configuration plus a seed."""

    FIELDS = ("index", "scenario", "params", "seed", "config", "origins", "sets")

    def __init__(self, index: int, scenario: str, params: dict, seed: int, config: dict,
                 origins: Optional[dict] = None, sets: Optional[dict] = None):
        self.index = index
        self.scenario = scenario
        self.params = params
        self.seed = seed
        self.config = config
        self.origins = {} if origins is None else origins  # param path -> where set
        self.sets = {} if sets is None else sets  # --set path -> "--set path=value"

    @property
    def label(self) -> str:
        p = " ".join(f"{k}={_fmt(v)}" for k, v in self.params.items())
        return (p + " " if p else "") + f"seed={self.seed}"


def _fmt(v: Any) -> str:
    return v if isinstance(v, str) else json.dumps(v)


class Scenario(Record):
    """A loaded scenario: base core document, seeds and sweep."""

    FIELDS = ("file", "base", "seeds", "grid", "cases", "campaign", "report", "sets",
              "collapsed")

    def __init__(self, file: str, base: dict, seeds: list, grid: list, cases: list,
                 campaign: Optional[dict] = None, report: Optional[dict] = None,
                 sets: Optional[dict] = None, collapsed: Optional[dict] = None):
        self.file = file
        self.base = base                # core document (no seeds, no sweep)
        self.seeds = seeds
        self.grid = grid                # [(path, [values...]), ...]
        self.cases = cases              # [{path: value, ...}, ...]; [{}] if none
        self.campaign = {} if campaign is None else campaign  # [campaign]: jobs, dask
        self.report = report            # [report], checked (see parse_report)
        self.sets = {} if sets is None else sets  # --set path -> "--set path=value"
        #: sweep path -> (its "--set ...", the values the sweep had): `sets_win`
        self.collapsed = {} if collapsed is None else collapsed

    @property
    def name(self) -> str:
        name = get_path(self.base, "scenario.name")
        if isinstance(name, str) and name:
            return name
        return os.path.splitext(os.path.basename(self.file))[0]  # the file's stem

    @property
    def n_configs(self) -> int:
        n = len(self.cases)
        for _, values in self.grid:
            n *= len(values)
        return n

    @property
    def n_runs(self) -> int:
        return self.n_configs * len(self.seeds)

    def runs(self) -> list[RunSpec]:
        """Expand the sweep: product(grid) x cases x seeds."""
        specs: list[RunSpec] = []
        axes = [values for _, values in self.grid]
        for combo in itertools.product(*axes):
            for ci, case in enumerate(self.cases):
                params: dict = {}
                origins: dict = {}
                for (path, _), value in zip(self.grid, combo):
                    params[path] = value
                    origins[path] = f'sweep."{path}"'
                for path, value in case.items():
                    params[path] = value
                    origins[path] = f'sweep.cases[{ci}]."{path}"'
                for path in params.keys() & self.collapsed.keys():
                    origins[path] = self.collapsed[path][0]  # its value is the --set's
                config = _copy(self.base)
                for path, value in params.items():
                    try:
                        set_path(config, path, _copy(value))
                    except ValueError as e:
                        raise InputError(self.file, origins[path], str(e)) from None
                resolve_files(config, self.file)
                for seed in self.seeds:
                    specs.append(RunSpec(len(specs), self.name, dict(params), seed,
                                         config, origins, self.sets))
        return specs


def resolve_files(config: dict, file: str) -> None:
    """Make each relative ``traffic[].trace_file`` relative to the folder of
    ``file`` (the scenario file), as docs/scenarios.md states; the core opens
    the path it is given."""
    traffic = config.get("traffic")
    if not isinstance(traffic, list):
        return  # not an array: the schema check names it
    for tr in traffic:
        f = tr.get("trace_file") if isinstance(tr, dict) else None
        if isinstance(f, str) and f and not os.path.isabs(f):
            from pathlib import Path  # (only here: a scenario with trace files)

            tr["trace_file"] = str(Path(file).parent / f)


# --------------------------------------------------------------------------
# loading

def read_toml(path: Union[str, os.PathLike]) -> dict:
    file = str(path)
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except FileNotFoundError:
        raise InputError(file, "", "no such file") from None
    except IsADirectoryError:
        raise InputError(file, "", "is a directory, not a scenario file") from None
    except (OSError, UnicodeDecodeError) as e:
        reason = getattr(e, "strerror", None) or str(e)
        raise InputError(file, "", f"cannot read: {reason}") from None
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise InputError(file, "", f"not valid TOML: {e}") from None
    except RecursionError:
        raise InputError(file, _deep_key(text), f"tables or arrays nested too deeply (a "
                         f"scenario nests at most {MAX_DEPTH} levels)") from None


def _deep_key(text: str) -> str:
    """The key of the first line nesting more than MAX_DEPTH levels (after
    its table header), or "" (for a message about a file TOML cannot parse)."""
    table = ""
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith("[") and "=" not in stripped:
            table = stripped.strip("[] ")
        elif "=" in stripped:
            key, _, value = stripped.partition("=")
            if value.count("[") + value.count("{") > MAX_DEPTH:
                key = key.strip().strip("\"'")
                return f"{table}.{key}" if table else key
    return ""


def load(path: Union[str, os.PathLike], sets: Iterable[str] = (), seed: Optional[int] = None) -> Scenario:
    """Load a scenario file, apply ``--set`` overrides, parse seeds/sweep.

    A ``path`` that is no file but names a scenario installed with the
    package (``quick-check``, ``quick-check.toml`` or
    ``scenarios/quick-check.toml``) loads that one (`wifitcp.packaged`)."""
    path = locate(path)
    return from_dict(read_toml(path), file=str(path), sets=sets, seed=seed)


def locate(path: Union[str, os.PathLike]) -> Union[str, os.PathLike]:
    """``path`` if it exists, else the installed scenario it names, else
    ``path`` (for `read_toml` to report)."""
    if os.path.exists(path):
        return path
    from . import packaged

    return packaged.scenario(os.fspath(path)) or path


def from_dict(doc: dict, file: str = "<scenario>", sets: Iterable[str] = (),
              seed: Optional[int] = None) -> Scenario:
    """Build a Scenario from a parsed document (a deep copy is taken)."""
    if not isinstance(doc, dict):
        raise InputError(file, "", "a scenario must be a table")
    _check_depth(doc, file)
    doc = _copy(doc)
    if "sweep" in doc:
        doc["sweep"] = _flatten_sweep(doc["sweep"], file)
    set_origins: dict = {}
    for item in sets:
        key = _apply_set(doc, item, file)
        if key is not None:
            set_origins[key] = f"--set {item}" if isinstance(item, str) else f"--set {key}"

    sweep = doc.pop("sweep", None)
    campaign = _parse_campaign(doc.pop("campaign", None), file)
    report = doc.pop("report", None)
    if report is not None:
        report = parse_report(report, file)
    seeds = _take_seeds(doc, file)
    if seed is not None:
        seeds = [_check_seed(seed, file, "--seed")]
    grid, cases = _parse_sweep(sweep, file)
    grid, cases, collapsed = sets_win(grid, cases, doc, set_origins)
    scn = Scenario(file=file, base=doc, seeds=seeds, grid=grid, cases=cases,
                   campaign=campaign, report=report, sets=set_origins, collapsed=collapsed)
    if scn.n_runs > MAX_RUNS:
        sizes = [str(len(v)) for _, v in grid] + ([str(len(cases))] if len(cases) > 1 else [])
        sizes.append(f"{len(seeds)} seed{'s' if len(seeds) != 1 else ''}")
        raise InputError(file, "sweep" if grid or len(cases) > 1 else "scenario.seeds",
                         f"{' x '.join(sizes)} = {scn.n_runs} runs, more than a campaign "
                         f"may expand to ({MAX_RUNS}); split the sweep")
    return scn


def _check_depth(doc: Any, file: str) -> None:
    """Reject nesting deeper than MAX_DEPTH (iteratively: no recursion)."""
    stack: list = [(doc, [], 0)]
    while stack:
        node, path, depth = stack.pop()
        if depth > MAX_DEPTH:
            shown = join_path(path[:4]) + ("…" if len(path) > 4 else "")
            raise InputError(file, shown, f"nested {MAX_DEPTH}+ levels deep; a scenario "
                             f"nests at most {MAX_DEPTH}")
        if isinstance(node, dict):
            stack.extend((v, path + [str(k)], depth + 1) for k, v in node.items())
        elif isinstance(node, list):
            stack.extend((v, path + [i], depth + 1) for i, v in enumerate(node))


# --------------------------------------------------------------------------
# command-line sweeps and seed lists

_RANGE = re.compile(r"^\s*(-?\d+)\s*\.\.\s*(-?\d+)\s*(?:\.\.\s*(\d+)\s*)?$")


def _expand(item: str) -> list:
    """``"3"`` -> [3]; ``"1..5"`` -> [1..5]; ``"0..20..5"`` -> [0, 5, 10, 15, 20]."""
    m = _RANGE.match(item)
    if m:
        a, b, step = int(m.group(1)), int(m.group(2)), int(m.group(3) or 1)
        if step < 1 or b < a:
            raise ValueError(f"bad range {item.strip()!r} (want FIRST..LAST[..STEP], "
                             "FIRST <= LAST, STEP >= 1)")
        n = (b - a) // step + 1
        if n > MAX_VALUES:
            raise ValueError(f"range {item.strip()} has {n} values, more than a campaign "
                             f"may run ({MAX_VALUES})")
        return list(range(a, b + 1, step))
    return [parse_value(item.strip())]


def parse_values(text: str) -> list:
    """A value list: ``1,2,5``, ``1..15``, ``a,b``, or a TOML array ``[1, 2]``."""
    text = text.strip()
    if text.startswith("["):
        v = parse_value(text)
        if not isinstance(v, list):
            raise ValueError(f"not a TOML array: {text!r}")
        values = v
    else:
        values = []
        for item in text.split(","):
            if not item.strip():
                raise ValueError(f"empty value in {text!r}")
            values.extend(_expand(item))
            if len(values) > MAX_VALUES:
                raise ValueError(f"more than {MAX_VALUES} values")
    if not values:
        raise ValueError("no values")
    return values


def parse_sweep_arg(text: str) -> tuple[str, list]:
    """``--sweep wlan.stations=1,2,5`` -> ``("wlan.stations", [1, 2, 5])``."""
    key, sep, value = text.partition("=")
    key = key.strip()
    if len(key) > 1 and key[0] == key[-1] and key[0] in "\"'":
        key = key[1:-1]
    if not sep or not key:
        raise ValueError(f"--sweep expects dotted.key=V1,V2,..., got {text!r}")
    split_path(key)
    return key, parse_values(value)


def parse_seeds(text: str) -> list:
    """``--seeds 1..5`` / ``1,2,7`` / ``1..3,10`` -> a list of distinct seeds."""
    seeds = parse_values(text)
    for s in seeds:
        if isinstance(s, bool) or not isinstance(s, int) or not 0 <= s <= MAX_SEED:
            raise ValueError(f"seeds must be integers in 0..2^64-1, got {s!r}")
    if len(set(seeds)) != len(seeds):
        raise ValueError("duplicate seeds")
    return seeds


def sweep_sets(sweeps: Iterable[str] = (), seeds: Optional[str] = None) -> list:
    """``--sweep``/``--seeds`` arguments as (key, value) overrides for `from_dict`.

    Raises InputError naming the option.
    """
    out: list = []
    for text in sweeps:
        try:
            key, values = parse_sweep_arg(text)
        except ValueError as e:
            raise InputError("--sweep", "", str(e)) from None
        out.append((f'sweep."{key}"', values))
    if seeds is not None:
        try:
            out.append(("scenario.seeds", parse_seeds(seeds)))
        except ValueError as e:
            raise InputError("--seeds", "", str(e)) from None
    return out


# --------------------------------------------------------------------------
# [campaign] and [report]

CAMPAIGN_KEYS = {"jobs": int, "dask": str}
REPORT_KEYS = {"title": str, "expectation": str, "paper": str, "figures": list,
               "models": list}
FIGURE_KEYS = {"x": str, "y": str, "by": str, "where": dict, "title": str,
               "expectation": str, "xlabel": str, "ylabel": str, "model": str,
               "model_keys": dict, "model_by": str}


def _parse_campaign(raw: Any, file: str) -> dict:
    if raw is None:
        return {}
    if not isinstance(raw, dict):
        raise InputError(file, "campaign", f"expected a table, got {_type(raw)}")
    out = {}
    for k, v in raw.items():
        typ = CAMPAIGN_KEYS.get(k)
        if typ is None:
            raise InputError(file, f"campaign.{k}", "unknown key (expected jobs, dask)")
        if isinstance(v, bool) or not isinstance(v, typ):
            raise InputError(file, f"campaign.{k}",
                             f"expected {'an integer' if typ is int else 'a string'}, "
                             f"got {_type(v)}")
        if k == "jobs" and v < 1:
            raise InputError(file, "campaign.jobs", f"must be >= 1, got {v}")
        out[k] = v
    return out


def _check_table(raw: Any, keys: dict, file: str, where: str) -> dict:
    if not isinstance(raw, dict):
        raise InputError(file, where, f"expected a table, got {_type(raw)}")
    for k, v in raw.items():
        typ = keys.get(k)
        if typ is None:
            raise InputError(file, f"{where}.{k}",
                             f"unknown key (expected one of {', '.join(keys)})")
        if not isinstance(v, typ):
            raise InputError(file, f"{where}.{k}",
                             f"expected {_TYPE_NAMES[typ]}, "
                             f"got {_type(v)}")
    return dict(raw)


_TYPE_NAMES = {str: "a string", list: "an array", dict: "a table", int: "an integer"}


def parse_report(raw: Any, file: str, where: str = "report") -> dict:
    """Check a ``[report]`` table; returns it with ``figures`` as a list of dicts."""
    rep = _check_table(raw, REPORT_KEYS, file, where)
    figures = rep.get("figures")
    if not figures:
        raise InputError(file, f"{where}.figures", "expected a non-empty array of tables "
                         "like {x = \"wlan.stations\", y = \"jain_index\"}")
    out = []
    for i, fig in enumerate(figures):
        w = f"{where}.figures[{i}]"
        fig = _check_table(fig, FIGURE_KEYS, file, w)
        for k in ("x", "y"):
            if not fig.get(k):
                raise InputError(file, f"{w}.{k}", "required")
        if "model" in fig:
            from .models.overlay import FIGURES

            known = (*FIGURES, "bianchi", "tcp-throughput")
            if fig["model"] not in known:
                raise InputError(file, f"{w}.model", f"expected one of {', '.join(known)}")
        for k in ("x", "y", "by"):
            if k in fig:
                try:
                    split_path(fig[k])
                except ValueError as e:
                    raise InputError(file, f"{w}.{k}", str(e)) from None
        out.append(fig)
    rep["figures"] = out
    if "models" in rep:
        from .models.overlay import FIGURES

        for i, fid in enumerate(rep["models"]):
            if fid not in FIGURES:
                raise InputError(file, f"{where}.models[{i}]",
                                 f"expected one of {', '.join(FIGURES)}")
    return rep


def _apply_set(doc: dict, item: Union[str, tuple], file: str) -> Optional[str]:
    """Apply one override; returns its key if it is a plain ``--set`` (not a
    sweep or the seeds, which name their own options)."""
    try:
        key, value = parse_set(item) if isinstance(item, str) else item
    except ValueError as e:
        raise InputError(file, "--set", str(e)) from None
    try:
        if key.startswith("sweep."):
            sweep = doc.setdefault("sweep", {})
            if not isinstance(sweep, dict):
                raise ValueError("sweep is not a table")
            rest = key.split(".", 1)[1]
            if len(rest) > 1 and rest[0] == rest[-1] and rest[0] in "\"'":
                rest = rest[1:-1]  # sweep."wlan.stations"
            if rest == "cases":
                sweep["cases"] = value
            elif rest.startswith("cases"):
                set_path(sweep, rest, value)
            else:
                sweep[rest] = value
        else:
            set_path(doc, key, value)
    except ValueError as e:
        raise InputError(file, key, f"--set: {e}") from None
    return key if isinstance(item, str) and not key.startswith("sweep.") else None


def _dotted(node: Any, prefix: str = "", out: Optional[dict] = None) -> dict:
    """Nested tables as one table of dotted keys (empty tables stay values)."""
    out = {} if out is None else out
    if isinstance(node, dict) and node:
        for k, v in node.items():
            _dotted(v, f"{prefix}.{k}" if prefix else k, out)
    else:
        out[prefix] = node
    return out


def _flatten_sweep(sweep: Any, file: str) -> Any:
    """Unquoted dotted keys in [sweep] parse as nested tables: flatten them."""
    if not isinstance(sweep, dict):
        return sweep
    out: dict = {}
    for key, value in sweep.items():
        if key == "cases":
            if isinstance(value, list):
                value = [_flatten_case(c) for c in value]
            out["cases"] = value
        else:
            _dotted(value, key, out)
    return out


def _flatten_case(case: Any) -> Any:
    return _dotted(case) if isinstance(case, dict) else case



def _check_seed(value: Any, file: str, where: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise InputError(file, where, f"expected an integer seed, got {_type(value)}")
    if not 0 <= value <= MAX_SEED:
        raise InputError(file, where, f"seed {value} out of range 0..2^64-1")
    return value


def _take_seeds(doc: dict, file: str) -> list:
    scen = doc.get("scenario")
    if not isinstance(scen, dict) or "seeds" not in scen:
        return list(DEFAULT_SEEDS)
    raw = scen.pop("seeds")
    if isinstance(raw, int) and not isinstance(raw, bool):
        raw = [raw]
    if not isinstance(raw, list) or not raw:
        raise InputError(file, "scenario.seeds", "expected a non-empty list of integers")
    seeds = [_check_seed(s, file, f"scenario.seeds[{i}]") for i, s in enumerate(raw)]
    if len(set(seeds)) != len(seeds):
        raise InputError(file, "scenario.seeds", "duplicate seeds")
    return seeds


def _check_sweep_path(path: str, where: str, file: str) -> None:
    try:
        parts = split_path(path)
    except ValueError as e:
        raise InputError(file, where, str(e)) from None
    if parts[0] == "sweep":
        raise InputError(file, where, "a sweep cannot set the sweep itself")
    if parts[:2] == ["scenario", "seeds"]:
        raise InputError(file, where, "seeds are not swept: list them in scenario.seeds")


def _parse_sweep(sweep: Any, file: str) -> tuple[list, list]:
    if sweep is None:
        return [], [{}]
    if not isinstance(sweep, dict):
        raise InputError(file, "sweep", f"expected a table, got {_type(sweep)}")
    grid = []
    for path, values in sweep.items():
        if path == "cases":
            continue
        where = f'sweep."{path}"'
        _check_sweep_path(path, where, file)
        if not isinstance(values, list) or not values:
            raise InputError(file, where, f"expected a non-empty list of values, got {_type(values)}")
        grid.append((path, values))
    cases_raw = sweep.get("cases")
    if cases_raw is None:
        cases = [{}]
    else:
        if not isinstance(cases_raw, list) or not cases_raw:
            raise InputError(file, "sweep.cases", "expected a non-empty array of tables")
        cases = []
        for i, case in enumerate(cases_raw):
            if not isinstance(case, dict):
                raise InputError(file, f"sweep.cases[{i}]", f"expected a table, got {_type(case)}")
            for path in case:
                _check_sweep_path(path, f'sweep.cases[{i}]."{path}"', file)
                if path in dict(grid):
                    raise InputError(file, f'sweep.cases[{i}]."{path}"',
                                     "already a grid axis of the sweep")
            cases.append(dict(case))
    return grid, cases


def sets_win(grid: list, cases: list, doc: dict, sets: dict) -> tuple[list, list, dict]:
    """``(grid, cases, collapsed)`` with every key of ``sets`` (``--set``
    path -> its text) that the sweep sets taking the ``--set`` value, which
    ``doc`` holds: a grid axis keeps that one value, every case takes it and
    cases that become equal are merged. ``collapsed``: sweep path -> (the
    ``--set`` text, the values the sweep had)."""
    collapsed: dict = {}
    wanted = {tuple(split_path(k)): (k, origin) for k, origin in sets.items()}
    for i, (path, values) in enumerate(grid):
        hit = wanted.get(tuple(split_path(path)))
        if hit is not None:
            grid[i] = (path, [get_path(doc, hit[0])])
            collapsed[path] = (hit[1], values)
    in_cases = False
    for case in cases:
        for path in case:
            hit = wanted.get(tuple(split_path(path)))
            if hit is not None:
                collapsed.setdefault(path, (hit[1], []))[1].append(case[path])
                case[path] = get_path(doc, hit[0])
                in_cases = True
    if in_cases:
        merged: dict = {}
        for case in cases:
            merged.setdefault(json.dumps(case, sort_keys=True, default=str), case)
        cases = list(merged.values())
    return grid, cases, collapsed


def _type(v: Any) -> str:
    if isinstance(v, bool):
        return "a boolean"
    if isinstance(v, int):
        return "an integer"
    if isinstance(v, float):
        return "a float"
    if isinstance(v, str):
        return "a string"
    if isinstance(v, list):
        return "an array" if v else "an empty array"
    if isinstance(v, dict):
        return "a table"
    return type(v).__name__


# --------------------------------------------------------------------------
# validation through the core

def check_run(spec: RunSpec, file: str, context: bool = True) -> dict:
    """Validate one run's config with the core; returns the normalised config.

    Core errors ("dotted.path: reason") become InputError; an error on a path
    the sweep set is reported at the sweep entry that set it. With
    ``context``, other errors name the sweep point they occurred at.
    """
    where = ""
    if context and spec.params:
        where = "with " + " ".join(f"{k}={_fmt(v)}" for k, v in spec.params.items())
    try:
        bad = _non_finite(spec.config)
        if bad is not None:
            path, value = bad
            name = "NaN is not a number" if value != value else f"{value} is not finite"
            raise ValueError(f"{path}: {name}; give a finite value")
        return core.check_config(spec.config)
    except ValueError as e:
        path, reason = split_core_message(str(e))
        try:
            parts = split_path(path) if path else []
        except ValueError:
            parts = []
        # the most specific sweep entry or --set that set the offending value
        best = None
        for p, origin in list(spec.origins.items()) + list(spec.sets.items()):
            pp = split_path(p)
            if parts and (_is_prefix(pp, parts) or _is_prefix(parts, pp)):
                if best is None or len(pp) > best[0]:
                    best = (len(pp), p, origin)
        if best is not None and best[1] in spec.origins and best[2] == spec.origins[best[1]]:
            if best[2] in spec.sets.values():  # a --set that replaced the sweep's values
                return _raise(file, best[2], reason)
            return _raise(file, best[2], f"{reason} (value {_fmt(spec.params[best[1]])})")
        notes = [n for n in ((f"from {best[2]}" if best else ""), where) if n]
        raise InputError(file, path, reason + (f" ({', '.join(notes)})" if notes else "")) from None
    except TypeError as e:  # JSON serialisation (e.g. a TOML date)
        raise InputError(file, "", str(e)) from None


def _non_finite(node: Any, path: str = "") -> Optional[tuple]:
    """(dotted path, value) of the first NaN or infinity in ``node``."""
    if isinstance(node, float) and not math.isfinite(node):
        return path, node
    if isinstance(node, dict):
        items = ((join_path([path, k]) if path else k, v) for k, v in node.items())
    elif isinstance(node, list):
        items = ((f"{path}[{i}]", v) for i, v in enumerate(node))
    else:
        return None
    for p, v in items:
        got = _non_finite(v, p)
        if got is not None:
            return got
    return None


def _raise(file: str, path: str, reason: str):
    raise InputError(file, path, reason) from None


def check_all(scn: Scenario) -> list[tuple[RunSpec, dict]]:
    """Validate every expanded run (each distinct config once).

    Returns [(spec, normalised_config), ...] in run order. Raises the first
    InputError; it names the sweep point only if some other point is valid
    (an error every point shares is reported without one).
    """
    specs = scn.runs()
    cache: dict = {}
    errors: dict = {}
    for spec in specs:
        key = json.dumps(spec.params, sort_keys=True, default=str)
        if key in cache or key in errors:
            continue
        try:
            cache[key] = check_run(spec, scn.file, context=False)
        except InputError as e:
            errors[key] = (spec, e)
    if errors:
        spec, err = next(iter(errors.values()))
        if cache:  # some configurations are valid: say which one is not
            check_run(spec, scn.file, context=True)
        raise err
    return [(spec, cache[json.dumps(spec.params, sort_keys=True, default=str)])
            for spec in specs]

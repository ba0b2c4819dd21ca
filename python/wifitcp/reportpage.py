"""``wifitcp report``: one HTML page with every reproduced paper figure.

The figures come from a registry, kept as data: a scenario's own
``[report]`` table (``title``, ``paper``, ``expectation``, ``figures = [{x,
y, by, where, title, xlabel, ylabel, expectation}]``), else its entry in the
built-in `figures.toml`. For each scenario the runs are read from
``<results>/<scenario-name>.duckdb``; each figure is drawn by `wifitcp.plot`
(PNG shown, SVG linked) and written beside the paper's expectation, a table
of the points (mean and 95 % CI per line and x) and the runs behind it. A
scenario without results gets a section saying how to run it.

The page is static: ``<out>/index.html`` with ``<out>/figures/*.png|svg``
(relative links, so the directory can be moved or served as is). The HTML
is the Jinja2 template ``templates/report.html.j2`` (autoescaped); this
module only gathers what it shows.
"""

from __future__ import annotations

import datetime
import json
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Optional, Sequence

from . import scenario as scn_mod
from .errors import InputError

REGISTRY = Path(__file__).with_name("figures.toml")


@dataclass
class Entry:
    file: str             # scenario file
    name: str             # scenario name (store: <results>/<name>.duckdb)
    report: dict          # checked [report] table
    scenario: Any         # the loaded Scenario


def registry() -> list:
    """[(scenario path, report dict)] of the built-in registry."""
    doc = scn_mod.read_toml(REGISTRY)
    out = []
    for i, e in enumerate(doc.get("entry", [])):
        e = dict(e)
        path = e.pop("scenario")
        out.append((path, scn_mod.parse_report(e, str(REGISTRY), f"entry[{i}]")))
    return out


def _resolve(path: str) -> Optional[Path]:
    for base in (Path.cwd(), Path(__file__).resolve().parents[2]):
        p = base / path
        if p.is_file():
            return p
    return None


def entries(files: Sequence[str] = ()) -> list:
    """The scenarios to report: ``files``, or the registry plus scenarios/*.toml."""
    reg = registry()
    by_base = {Path(p).name: rep for p, rep in reg}
    chosen: list = []
    if files:
        chosen = [str(f) for f in files]
    else:
        seen = set()
        for p, _ in reg:
            q = _resolve(p)
            if q is not None:
                try:
                    q = q.relative_to(Path.cwd())
                except ValueError:
                    pass
                chosen.append(str(q))
                seen.add(q.name)
        for q in sorted(Path("scenarios").glob("*.toml")):
            if q.name not in seen and "report" in scn_mod.read_toml(q):
                chosen.append(str(q))
    out = []
    for f in chosen:
        scn = scn_mod.load(f)
        rep = scn.report or by_base.get(Path(f).name)
        if rep is None:
            raise InputError(f, "report", "no [report] table and no entry in the built-in "
                             "registry: add [report] with title, expectation and figures")
        out.append(Entry(f, scn.name, rep, scn))
    return out


# --------------------------------------------------------------------------

#: the page's template (Jinja2, autoescaped), beside this module
TEMPLATE = "report.html.j2"


def _fmt(v: Any, digits: int = 4) -> str:
    if v is None:
        return "-"
    if isinstance(v, float):
        return f"{v:.{digits}g}" if v and not 1e-3 <= abs(v) < 1e6 else f"{v:.{digits}f}"
    return v if isinstance(v, str) else json.dumps(v)


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9]+", "-", text).strip("-").lower()[:60] or "fig"


def _points(sel) -> dict:
    """x down, one column per line: mean, CI half-width and runs per cell."""
    from .plot import _label

    xs: list = []
    for line in sel.lines:
        for p in line.points:
            if p.x not in xs:
                xs.append(p.x)
    rows = []
    for x in xs:
        cells = []
        for line in sel.lines:
            p = next((p for p in line.points if p.x == x), None)
            cells.append(None if p is None else {
                "mean": _fmt(p.stats.mean), "n": p.stats.n,
                "half": None if p.stats.half is None else f"{p.stats.half:.4f}"})
        rows.append({"x": _label(x), "cells": cells})
    return {"x": sel.x, "y": sel.y,
            "heads": [_label(line.label) if sel.by else sel.y for line in sel.lines],
            "rows": rows,
            "runs_per_point": "/".join(map(str, sorted({p.stats.n for line in sel.lines
                                                        for p in line.points})))}


def _runs(sel) -> list:
    return [{"run_id": r["run_id"], "seed": r["seed"], "y": _fmt(r["yv"]),
             "params": " ".join(f"{k}={_fmt(v)}" for k, v in r["params"].items()) or "-",
             "version": r["version"], "written": str(r["created_at"])[:19]}
            for r in sorted(sel.rows, key=lambda r: r["run_id"])]


def _store_summary(store: Path, name: str) -> Optional[dict]:
    from .store import Store

    with Store(store, read_only=True) as st:
        row = st.query("SELECT count(*) AS n, count(DISTINCT scenario_hash) AS configs, "
                       "count(DISTINCT seed) AS seeds, string_agg(DISTINCT version, ', ') AS v, "
                       "min(created_at) AS t0, max(created_at) AS t1, sum(wall_time_s) AS cpu "
                       "FROM runs WHERE scenario = ?", [name])[0]
        failures = len(st.failures(name))
    if not row["n"]:
        return None
    return {"runs": row["n"], "configs": row["configs"], "seeds": row["seeds"],
            "core": row["v"], "from": str(row["t0"])[:16], "to": str(row["t1"])[:16],
            "cpu_s": f"{row['cpu']:.0f}", "failures": failures}


def _section(entry: Entry, results: Path, out: Path, log) -> dict:
    """What the template shows for one scenario."""
    from . import plot

    rep = entry.report
    store = results / f"{entry.name}.duckdb"
    sec = {"anchor": _slug(entry.name), "title": rep.get("title", entry.name),
           "paper": rep.get("paper"), "expectation": rep.get("expectation"),
           "name": entry.name, "file": entry.file, "store": str(store),
           "command": f"wifitcp run {entry.file} --out {store}", "figures": [],
           "summary": _store_summary(store, entry.name) if store.is_file() else None}
    if sec["summary"] is None:
        return sec
    for i, fig in enumerate(rep["figures"]):
        title = fig.get("title") or f"{fig['y']} vs {fig['x']}"
        stem = f"{_slug(entry.name)}-{i + 1}-{_slug(fig['y'])}"
        try:
            sel = plot.select(str(store), fig["x"], fig["y"], by=fig.get("by"),
                              scenario=entry.name, where=fig.get("where"))
        except InputError as e:
            sec["figures"].append({"title": title, "error": str(e)})
            continue
        model = _model(sel, log, entry.name) if fig["y"] in plot.MODEL_Y else 0
        paths = plot.draw(sel, str(out / "figures" / stem), ("png", "svg"), title=title,
                          xlabel=fig.get("xlabel"), ylabel=fig.get("ylabel"))
        log(f"{entry.name}: {title} -> {paths[0]}")
        png, svg = (Path(p).relative_to(out).as_posix() for p in paths)
        cmd = f"wifitcp plot {store} --x {fig['x']} --y {fig['y']}" + (
            f" --by {fig['by']}" if fig.get("by") else "") + f" --scenario {entry.name}" + (
            " --model bianchi" if model else "")
        sec["figures"].append({
            "title": title, "png": png, "svg": svg, "command": cmd,
            "expectation": fig.get("expectation") or "(no expectation given)",
            "points": _points(sel), "runs": _runs(sel)})
    return sec


def _model(sel, log, name: str) -> int:
    """Bianchi's model beside the figure where it applies (0 lines if not);
    a failure of the model leaves the figure without it, said in the log."""
    from . import plot

    try:
        return plot.add_model(sel)
    except Exception as e:  # the model is an addition: never lose the figure for it
        log(f"{name}: Bianchi's model not drawn: {type(e).__name__}: {e}")
        sel.models.clear()
        return 0


def render(context: dict) -> str:
    """The page from its template and ``context`` (sections, meta data)."""
    import jinja2

    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(Path(__file__).with_name("templates"))),
        autoescape=True, trim_blocks=True, lstrip_blocks=True,
        undefined=jinja2.StrictUndefined)
    return env.get_template(TEMPLATE).render(**context)


def build(files: Sequence[str] = (), results: str = "results", out: str = "results/report",
          run: bool = False, jobs: Optional[int] = None, dask: Any = None,
          log=None) -> str:
    """Write ``out/index.html`` (and its figures); returns the page's path."""
    from . import __version__, core

    log = log or (lambda msg: print(msg, file=sys.stderr))
    chosen = entries(files)
    res_dir, out_dir = Path(results), Path(out)
    if run:
        from . import campaign
        from .cli import run_campaign

        for e in chosen:
            items = scn_mod.check_all(e.scenario)
            res = run_campaign(e.scenario, items, out=str(res_dir / f"{e.name}.duckdb"),
                               jobs=campaign.jobs_for(e.scenario, jobs),
                               dask=campaign.dask_for(e.scenario, dask))
            if res.failed:
                log(f"{e.name}: {len(res.failed)} runs failed (see the failures table)")
    out_dir.mkdir(parents=True, exist_ok=True)
    (out_dir / "figures").mkdir(exist_ok=True)
    try:
        core_v = core.version()
    except Exception:
        core_v = "not built"
    sections = [_section(e, res_dir, out_dir, log) for e in chosen]
    page = render({"sections": sections, "version": __version__, "core": core_v,
                   "results": str(res_dir),
                   "generated": datetime.datetime.now().strftime("%Y-%m-%d %H:%M")})
    index = out_dir / "index.html"
    index.write_text(page, encoding="utf-8")
    return str(index)

"""``wifitcp report``: one HTML page with every reproduced paper figure.

The figures come from a registry, kept as data: a scenario's own
``[report]`` table (``title``, ``paper``, ``expectation``, ``figures = [{x,
y, by, where, title, xlabel, ylabel, expectation}]``), else its entry in the
built-in `figures.toml`. For each scenario the runs are read from
``<results>/<scenario-name>.duckdb``; each figure is drawn by `wifitcp.plot`
(PNG shown, SVG linked) and written beside the paper's expectation, a table
of the points (mean and 95 % CI per line and x) and the runs behind it. A
scenario without results gets a section saying how to run it. A scenario
that one of the paper modules of `wifitcp.repro` runs names that module's
command (its tables and figures beside the paper), and that module's paper
when the registry names none.

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

from . import packaged, scenario as scn_mod
from .errors import InputError

#: the built-in registry, package data (`wifitcp.packaged`)
REGISTRY = packaged.figures_registry()


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


def entries(files: Sequence[str] = ()) -> list:
    """The scenarios to report: ``files``, or the installed scenarios (package
    data) the registry names, then the other installed ones with a
    ``[report]`` table. An installed scenario is shown as
    ``scenarios/<name>.toml``, which ``wifitcp run`` finds anywhere."""
    reg = registry()
    by_base = {Path(p).name: rep for p, rep in reg}
    chosen: list = []  # (shown name, file to load)
    if files:
        chosen = [(str(f), str(f)) for f in files]
    else:
        seen = set()
        for p, _ in reg:
            q = packaged.scenario(Path(p).name)
            if q is not None and q.name not in seen:
                chosen.append((f"scenarios/{q.name}", q))
                seen.add(q.name)
        for q in sorted(packaged.scenarios_dir().glob("*.toml")):
            if q.name not in seen and "report" in scn_mod.read_toml(q):
                chosen.append((f"scenarios/{q.name}", q))
    out = []
    for shown, f in chosen:
        scn = scn_mod.load(f)
        rep = scn.report or by_base.get(Path(f).name)
        if rep is None:
            raise InputError(shown, "report", "no [report] table and no entry in the built-in "
                             "registry: add [report] with title, expectation and figures")
        out.append(Entry(shown, scn.name, rep, scn))
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
    from . import plot, repro

    rep = entry.report
    store = results / f"{entry.name}.duckdb"
    mod = repro.for_scenario(entry.file)
    sec = {"anchor": _slug(entry.name), "title": rep.get("title", entry.name),
           "paper": rep.get("paper") or (mod.PAPER if mod else None),
           "repro": {"module": mod.__name__, "command": repro.command(mod)} if mod else None,
           "expectation": rep.get("expectation"),
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
        want = fig.get("model")
        model = 0
        if want in (None, "bianchi") and fig["y"] in plot.MODEL_Y:
            model = _model(sel, log, entry.name)
        pairs = _bianchi_pairs(sel)
        if want not in (None, "bianchi"):
            pairs = _model_pairs(sel, fig, entry, log)
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
            "points": _points(sel), "runs": _runs(sel),
            "model": _model_table(sel, pairs)})
    for j, fid in enumerate(rep.get("models") or []):
        sec["figures"].append(_model_figure(fid, entry, out, j, log))
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


# --------------------------------------------------------------------------
# models beside the simulated lines

def _bianchi_pairs(sel) -> list:
    """(line index, curve) for Bianchi's lines `plot.add_model` added."""
    return [(i, {"label": label, "x": [float(v) for v in xs], "y": list(ys)})
            for i, label, xs, ys in sel.models if i < len(sel.lines)]


def _matches(value, line_label) -> bool:
    """A curve's key value names a simulated line: equal, or its first word
    (``vbs`` names the lines ``vbs above-target``, ``vbs partition``)."""
    text = line_label if isinstance(line_label, str) else json.dumps(line_label)
    v = str(value)
    return text == v or text.startswith(v + " ")


def _model_pairs(sel, fig: dict, entry: Entry, log) -> list:
    """Add the model's curves for ``fig["model"]`` to ``sel.models`` and
    return the (simulated line index or None, curve) pairs to tabulate.

    ``model`` is a figure id of `wifitcp.models.overlay` (its curves kept
    where their ``keys`` equal ``model_keys``; a curve pairs with the
    simulated lines whose ``by`` value its key ``model_by`` names, or with
    the only line), or ``tcp-throughput`` (Mathis and Padhye per run from
    each flow's loss-event rate and RTT, see `_tcp_pairs`). A model that
    fails leaves the figure without it, said in the log."""
    want = fig["model"]
    try:
        if want == "tcp-throughput":
            return _tcp_pairs(sel, fig, entry)
        from .models import overlay

        curves = overlay.model_curves(want, config=entry.scenario.base)
    except Exception as e:  # the model is an addition: never lose the figure for it
        log(f"{entry.name}: model {want} not drawn: {type(e).__name__}: {e}")
        return []
    keys = fig.get("model_keys") or {}
    curves = [c for c in curves if all(c["keys"].get(k) == v for k, v in keys.items())]
    by = fig.get("model_by")
    pairs = []
    for j, c in enumerate(curves):
        if by is not None:
            idx = [i for i, ln in enumerate(sel.lines) if _matches(c["keys"].get(by), ln.label)]
        else:
            idx = [0] if len(sel.lines) == 1 else []
        color = idx[0] if idx else len(sel.lines) + j
        sel.models.append((color, c["label"], c["x"], c["y"]))
        if idx:
            pairs.extend((i, c) for i in idx)
        else:
            pairs.append((None, c))
    return pairs


def _tcp_pairs(sel, fig: dict, entry: Entry) -> list:
    """Mathis and Padhye beside each simulated line: per run, the formulas
    summed over the run's TCP flows (those the figure's ``y`` counts: all,
    or one class's for ``class_goodput_mbps[K]``), each fed with its own
    loss-event rate and RTT (`wifitcp.models.tcp_throughput.from_flow`);
    per point the mean over the runs where every such flow saw a loss
    event (the formulas need p > 0)."""
    from . import plot
    from .models import tcp_throughput as T
    from .scenario import get_path
    from .store import Store

    ids = sorted({rid for ln in sel.lines for p in ln.points for rid in p.run_ids})
    with Store(sel.store, read_only=True) as st:
        res = {r["run_id"]: r for r in st.query(
            "SELECT run_id, result_json, config_json FROM runs WHERE run_id IN "
            f"({', '.join('?' * len(ids))})", ids)} if ids else {}
    m = plot._CLASS_Y.match(sel.y)

    def per_run(rid):
        r = res.get(rid)
        if r is None:
            return None
        out = json.loads(r["result_json"]) if isinstance(r["result_json"], str) \
            else r["result_json"]
        cfg = json.loads(r["config_json"]) if isinstance(r["config_json"], str) \
            else r["config_json"]
        flows = [f for f in out.get("flows") or [] if f.get("kind") == "tcp"]
        if m:
            cls = (get_path(cfg, "channel.classes") or [])[int(m.group(1))]
            names = set(cls.get("stations") or [])
            flows = [f for f in flows if f.get("src") in names or f.get("dst") in names]
        kw = {"mss": int(get_path(cfg, "tcp.mss") or 1460),
              "w_max": get_path(cfg, "tcp.rwnd_packets"),
              "min_rto_s": float(get_path(cfg, "tcp.min_rto_ms") or 200.0) / 1e3,
              "b": 2 if get_path(cfg, "tcp.delayed_ack") else 1}
        got = [T.from_flow(f, **kw) for f in flows]
        if not got or any(g is None for g in got):
            return None
        return (sum(g["mathis_mbps"] for g in got), sum(g["padhye_mbps"] for g in got))

    pairs = []
    for i, ln in enumerate(sel.lines):
        xs, ys = [], ([], [])
        for p in ln.points:
            vals = [v for v in (per_run(rid) for rid in p.run_ids) if v is not None]
            if vals and plot._is_number(p.x):
                xs.append(float(p.x))
                for k in (0, 1):
                    ys[k].append(sum(v[k] for v in vals) / len(vals))
        name = (plot._label(ln.label) + " ") if sel.by else ""
        for k, what in ((0, "Mathis"), (1, "Padhye")):
            if xs:
                c = {"label": f"{name}{what} (per flow p, RTT)", "x": xs, "y": ys[k]}
                sel.models.append((i, c["label"], xs, ys[k]))
                pairs.append((i, c))
    return pairs


def _model_table(sel, pairs: list) -> Optional[dict]:
    """Model against simulation at the simulated x values: one row per
    (curve, simulated line, x) with the difference and its % of the model."""
    from . import plot
    from .models.overlay import differences

    if not pairs:
        return None
    rows = []
    for i, c in pairs:
        line = sel.lines[i] if i is not None else None
        pts = [(p.x, p.stats.mean) for p in line.points if plot._is_number(p.x)] \
            if line is not None else []
        diffs = differences(c, pts)
        sim_label = (plot._label(line.label) if sel.by else sel.y) if line is not None else "-"
        if not diffs:
            rows.append({"model": c["label"], "line": sim_label, "x": "-", "sim": "-",
                         "value": "-", "diff": "-", "pct": "no simulated point at the "
                         "model's x values"})
        for x, y, mv, d, pct in diffs:
            rows.append({"model": c["label"], "line": sim_label, "x": _fmt(x),
                         "sim": _fmt(y), "value": _fmt(mv), "diff": f"{d:+.4g}",
                         "pct": "-" if pct is None else f"{pct:+.1f} %"})
    pcts = [abs(float(r["pct"].split()[0])) for r in rows if r["pct"].endswith(" %")]
    pairs_seen: dict = {}
    for r in rows:
        if r["pct"].endswith(" %"):
            pairs_seen.setdefault((r["model"], r["line"]), []).append(
                abs(float(r["pct"].split()[0])))
    summary = [{"model": m, "line": ln, "n": len(v), "mean": f"{sum(v) / len(v):.1f}",
                "max": f"{max(v):.1f}"} for (m, ln), v in pairs_seen.items()]
    return {"rows": rows, "max_abs_pct": f"{max(pcts):.1f}" if pcts else None,
            "n": len(pcts), "summary": summary}


def _model_figure(fid: str, entry: Entry, out: Path, j: int, log) -> dict:
    """A figure the model draws alone (no simulation of it here)."""
    from . import plot
    from .models import overlay

    title = f"{fid}: model only (not simulated)"
    try:
        curves = overlay.model_curves(fid, config=entry.scenario.base)
    except Exception as e:
        log(f"{entry.name}: model {fid} not drawn: {type(e).__name__}: {e}")
        return {"title": title, "error": f"model {fid}: {e}"}
    stem = f"{_slug(entry.name)}-model-{_slug(fid)}"
    paths = plot.draw_curves(curves, str(out / "figures" / stem), ("png", "svg"), title=title)
    png, svg = (Path(p).relative_to(out).as_posix() for p in paths)
    rows = [{"model": c["label"], "line": "-", "x": _fmt(x), "sim": "-", "value": _fmt(y),
             "diff": "-", "pct": "-"} for c in curves for x, y in zip(c["x"], c["y"])]
    return {"title": title, "png": png, "svg": svg, "model_only": True,
            "command": f"python -c \"from wifitcp.models import overlay; "
                       f"print(overlay.model_curves('{fid}'))\"",
            "expectation": "The model's curve for this figure; the simulator has no "
                           "scenario for it.",
            "model": {"rows": rows, "max_abs_pct": None, "n": 0, "summary": []}}


# --------------------------------------------------------------------------
# the five papers' claims (`wifitcp.repro.claims`)

#: the seed papers, in order, then the reproductions beyond the seeds
PAPERS = ("000", "001", "002", "003", "004", "x01")


def papers_arg(value: Optional[str], files_given: bool) -> tuple:
    """``--papers``: a comma-separated list of paper numbers, ``all`` or
    ``none``; by default all of them unless scenario files were named."""
    if value is None:
        return () if files_given else PAPERS
    v = value.strip().lower()
    if v == "all":
        return PAPERS
    if v in ("none", ""):
        return ()
    got = [x.strip() for x in v.split(",") if x.strip()]
    bad = [x for x in got if x not in PAPERS]
    if bad:
        raise InputError("--papers", "", f"unknown paper {bad[0]!r} (one of {', '.join(PAPERS)}, "
                         "all, none)")
    return tuple(p for p in PAPERS if p in got)


def markdown_blocks(text: str) -> list:
    """The paper modules' Markdown output as blocks for the template:
    ``{"kind": "h", "text"}`` for a heading, ``{"kind": "p", "text"}`` for a
    paragraph, ``{"kind": "table", "head", "rows"}`` for a table."""
    blocks: list = []
    para: list = []
    table: list = []

    def cells(line: str) -> list:
        return [c.strip() for c in line.strip().strip("|").split("|")]

    def flush():
        if para:
            blocks.append({"kind": "p", "text": " ".join(para)})
            para.clear()
        if table:
            rows = [cells(x) for x in table if not re.fullmatch(r"\|?(\s*:?-+:?\s*\|)+\s*", x.strip())]
            if rows:
                blocks.append({"kind": "table", "head": rows[0], "rows": rows[1:]})
            table.clear()

    for line in text.splitlines():
        t = line.strip()
        if t.startswith("|"):
            if para:
                blocks.append({"kind": "p", "text": " ".join(para)})
                para.clear()
            table.append(t)
            continue
        if table:
            flush()
        if not t:
            flush()
        elif t.startswith("#"):
            flush()
            blocks.append({"kind": "h", "text": t.lstrip("#").strip()})
        else:
            para.append(t)
    flush()
    return blocks


def _validation_anchor(section: str) -> Optional[str]:
    """The docs/validation.md heading a section number names (its GitHub
    anchor), or None when the document or the heading is not there."""
    from .repro.common import REPO

    doc = REPO / "docs" / "validation.md"
    if not section or not doc.is_file():
        return None
    for line in doc.read_text(encoding="utf-8").splitlines():
        m = re.match(r"#+ (\d+(?:\.\d+)*)\.? (.*)", line)
        if m and m.group(1) == section:
            head = f"{m.group(1)} {m.group(2)}".lower()
            head = re.sub(r"[^\w\- ]", "", head)
            return head.replace(" ", "-")
    return None


def _paper_sections(papers: Sequence[str], full: bool, jobs: Optional[int], cache: Path,
                    out_dir: Path, log) -> list:
    """What the template shows for each paper: its claims and the tables of
    its module, run now (or read from ``cache``)."""
    from .repro import claims as C

    import os

    from .repro.common import REPO

    doc = Path(os.path.relpath(REPO / "docs" / "validation.md", out_dir.resolve())).as_posix()
    out = []
    for pc in C.collect(papers, full=full, jobs=jobs or 2, cache=cache, log=log):
        rows = []
        for c in pc.claims:
            anchor = _validation_anchor(c.validation)
            rows.append({"claim": c.claim, "paper_value": c.paper_value, "ours": c.ours,
                         "verdict": c.verdict, "cause": c.cause, "command": c.command,
                         "runs": c.runs, "validation": c.validation,
                         "validation_href": f"{doc}#{anchor}" if anchor else None})
        counts = {v: sum(1 for c in pc.claims if c.verdict == v) for v in C.VERDICTS}
        out.append({"paper": pc.paper, "anchor": f"paper-{pc.paper}", "title": pc.title,
                    "module": pc.module, "command": pc.command, "claims": rows,
                    "counts": counts, "seconds": f"{pc.seconds:.0f}", "full": full,
                    "error": pc.error,
                    "tables": [markdown_blocks(t) for t in pc.tables]})
    return out


def render(context: dict) -> str:
    """The page from its template and ``context`` (sections, meta data)."""
    import jinja2

    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(packaged.templates_dir())),
        autoescape=True, trim_blocks=True, lstrip_blocks=True,
        undefined=jinja2.StrictUndefined)
    return env.get_template(TEMPLATE).render(**context)


def build(files: Sequence[str] = (), results: str = "results", out: str = "results/report",
          run: bool = False, jobs: Optional[int] = None, dask: Any = None,
          log=None, papers: Sequence[str] = (), full: bool = False,
          cache: Optional[str] = None) -> str:
    """Write ``out/index.html`` (and its figures); returns the page's path.

    ``papers``: the seed papers (``"000"`` .. ``"004"``) whose claims are
    reproduced now by their `wifitcp.repro` modules (their ``--quick`` runs,
    or with ``full`` the scenarios' own seeds and grids; the runs kept in
    ``cache``, default ``<results>/repro-cache``) and shown first: one
    table of every claim, then a section per paper."""
    from . import __version__, core

    log = log or (lambda msg: print(msg, file=sys.stderr))
    chosen = entries(files)
    res_dir, out_dir = Path(results), Path(out)
    if run:
        from . import campaign

        for e in chosen:
            items = scn_mod.check_all(e.scenario)
            res = campaign.run_with_progress(
                e.scenario, items, out=str(res_dir / f"{e.name}.duckdb"),
                jobs=campaign.jobs_for(e.scenario, jobs), dask=campaign.dask_for(e.scenario, dask))
            if res.failed:
                log(f"{e.name}: {len(res.failed)} runs failed (see the failures table)")
    out_dir.mkdir(parents=True, exist_ok=True)
    (out_dir / "figures").mkdir(exist_ok=True)
    try:
        core_v = core.version()
    except Exception:
        core_v = "not built"
    sections = [_section(e, res_dir, out_dir, log) for e in chosen]
    paper_secs = _paper_sections(papers, full, jobs, Path(cache) if cache else res_dir / "repro-cache",
                                 out_dir, log) if papers else []
    page = render({"sections": sections, "papers": paper_secs, "version": __version__, "core": core_v,
                   "results": str(res_dir),
                   "generated": datetime.datetime.now().strftime("%Y-%m-%d %H:%M")})
    index = out_dir / "index.html"
    index.write_text(page, encoding="utf-8")
    return str(index)

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
(relative links, so the directory can be moved or served as is).
"""

from __future__ import annotations

import datetime
import html
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

CSS = """
body { font-family: system-ui, sans-serif; margin: 1.5em auto; max-width: 78em;
       color: #222; line-height: 1.4; padding: 0 1em; }
h1 { font-size: 1.6em; } h2 { font-size: 1.3em; border-bottom: 1px solid #ccc;
  padding-bottom: .2em; margin-top: 2em; } h3 { font-size: 1.05em; margin: .2em 0; }
.meta, .paper { color: #555; font-size: .9em; }
.figure { display: flex; flex-wrap: wrap; gap: 1.5em; margin: 1.2em 0;
          align-items: flex-start; }
.figure .plot { flex: 0 1 640px; max-width: 640px; }
.figure img { width: 100%; border: 1px solid #ddd; }
.plot code { white-space: normal; overflow-wrap: anywhere; font-size: .8em; }
.figure .text { flex: 1 1 22em; min-width: 18em; }
.expect { background: #f4f7fb; border-left: 4px solid #4a78b5; padding: .5em .8em; }
table { border-collapse: collapse; font-size: .85em; margin: .5em 0; }
td, th { border: 1px solid #ddd; padding: .15em .5em; text-align: right; }
th { background: #f2f2f2; } td.l, th.l { text-align: left; }
details { margin: .4em 0; } summary { cursor: pointer; color: #345; }
code { background: #f3f3f3; padding: 0 .25em; }
.missing { color: #a33; }
"""


def _e(text: Any) -> str:
    return html.escape(str(text))


def _fmt(v: Any, digits: int = 4) -> str:
    if v is None:
        return "-"
    if isinstance(v, float):
        return f"{v:.{digits}g}" if v and not 1e-3 <= abs(v) < 1e6 else f"{v:.{digits}f}"
    return v if isinstance(v, str) else json.dumps(v)


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9]+", "-", text).strip("-").lower()[:60] or "fig"


def _points_table(sel) -> str:
    """x down, one column per line: mean +- CI half-width (runs)."""
    from .plot import _label

    xs: list = []
    for line in sel.lines:
        for p in line.points:
            if p.x not in xs:
                xs.append(p.x)
    head = "".join(f"<th>{_e(_label(line.label) if sel.by else sel.y)}</th>"
                   for line in sel.lines)
    rows = []
    for x in xs:
        cells = []
        for line in sel.lines:
            p = next((p for p in line.points if p.x == x), None)
            if p is None:
                cells.append("<td>-</td>")
                continue
            ci = f" &plusmn; {p.stats.half:.4f}" if p.stats.half is not None else ""
            cells.append(f"<td title='{p.stats.n} runs'>{_e(_fmt(p.stats.mean))}{ci}</td>")
        rows.append(f"<tr><td>{_e(_label(x))}</td>{''.join(cells)}</tr>")
    runs = sorted({p.stats.n for line in sel.lines for p in line.points})
    return (f"<p class=meta>mean {_e(sel.y)} &plusmn; 95 % CI half-width, "
            f"{'/'.join(map(str, runs))} runs per point</p>"
            f"<table><tr><th>{_e(sel.x)}</th>{head}</tr>" + "".join(rows) + "</table>")


def _runs_table(sel) -> str:
    rows = []
    for r in sorted(sel.rows, key=lambda r: r["run_id"]):
        params = " ".join(f"{k}={_fmt(v)}" for k, v in r["params"].items()) or "-"
        rows.append(f"<tr><td>{r['run_id']}</td><td class=l>{_e(params)}</td>"
                    f"<td>{r['seed']}</td><td>{_e(_fmt(r['yv']))}</td>"
                    f"<td class=l>{_e(r['version'])}</td>"
                    f"<td class=l>{_e(str(r['created_at'])[:19])}</td></tr>")
    return (f"<details><summary>the {len(sel.rows)} runs behind this figure</summary>"
            "<table><tr><th>run_id</th><th class=l>params</th><th>seed</th><th>"
            + _e(sel.y) + "</th><th class=l>core</th><th class=l>written</th></tr>"
            + "".join(rows) + "</table></details>")


def _store_summary(store: Path, name: str) -> tuple[str, int]:
    from .store import Store

    with Store(store, read_only=True) as st:
        row = st.query("SELECT count(*) AS n, count(DISTINCT scenario_hash) AS configs, "
                       "count(DISTINCT seed) AS seeds, string_agg(DISTINCT version, ', ') AS v, "
                       "min(created_at) AS t0, max(created_at) AS t1, sum(wall_time_s) AS cpu "
                       "FROM runs WHERE scenario = ?", [name])[0]
        failures = len(st.failures(name))
    if not row["n"]:
        return "", 0
    text = (f"{row['n']} runs ({row['configs']} configurations x {row['seeds']} seeds) in "
            f"<code>{_e(store)}</code>, core {_e(row['v'])}, written {_e(str(row['t0'])[:16])}"
            f" .. {_e(str(row['t1'])[:16])}, {row['cpu']:.0f} CPU-seconds")
    if failures:
        text += f"; <span class=missing>{failures} failed runs recorded</span>"
    return text, row["n"]


def _section(entry: Entry, results: Path, out: Path, log) -> str:
    from . import plot

    rep = entry.report
    anchor = _slug(entry.name)
    parts = [f"<section id='{anchor}'><h2>{_e(rep.get('title', entry.name))}</h2>"]
    if rep.get("paper"):
        parts.append(f"<p class=paper>{_e(rep['paper'])}</p>")
    if rep.get("expectation"):
        parts.append(f"<p>{_e(rep['expectation'])}</p>")
    store = results / f"{entry.name}.duckdb"
    summary, n = _store_summary(store, entry.name) if store.is_file() else ("", 0)
    cmd = f"wifitcp run {entry.file} --out {store}"
    if not n:
        parts.append(f"<p class=missing>Not run yet: no runs of <code>{_e(entry.name)}</code>"
                     f" in <code>{_e(store)}</code>. Run <code>{_e(cmd)}</code> (or "
                     "<code>wifitcp report --run</code>).</p></section>")
        return "".join(parts)
    parts.append(f"<p class=meta>Scenario <code>{_e(entry.file)}</code>: {summary}. "
                 f"Reproduce: <code>{_e(cmd)}</code>.</p>")
    for i, fig in enumerate(rep["figures"]):
        title = fig.get("title") or f"{fig['y']} vs {fig['x']}"
        stem = f"{_slug(entry.name)}-{i + 1}-{_slug(fig['y'])}"
        try:
            sel = plot.select(str(store), fig["x"], fig["y"], by=fig.get("by"),
                              scenario=entry.name, where=fig.get("where"))
        except InputError as e:
            parts.append(f"<h3>{_e(title)}</h3><p class=missing>cannot draw: {_e(e)}</p>")
            continue
        paths = plot.draw(sel, str(out / "figures" / stem), ("png", "svg"), title=title,
                          xlabel=fig.get("xlabel"), ylabel=fig.get("ylabel"))
        log(f"{entry.name}: {title} -> {paths[0]}")
        png, svg = (Path(p).relative_to(out).as_posix() for p in paths)
        expect = fig.get("expectation") or "(no expectation given)"
        parts.append(
            f"<div class=figure><div class=plot><h3>{_e(title)}</h3>"
            f"<img src='{_e(png)}' alt='{_e(title)}'><br>"
            f"<a href='{_e(svg)}'>SVG</a> &middot; <code>wifitcp plot {_e(store)} --x "
            f"{_e(fig['x'])} --y {_e(fig['y'])}"
            + (f" --by {_e(fig['by'])}" if fig.get("by") else "")
            + f" --scenario {_e(entry.name)}</code></div>"
            f"<div class=text><div class=expect><h3>The paper</h3><p>{_e(expect)}</p></div>"
            f"<h3>Here</h3>{_points_table(sel)}{_runs_table(sel)}</div></div>")
    parts.append("</section>")
    return "".join(parts)


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
    toc = "".join(f"<li><a href='#{_slug(e.name)}'>{_e(e.report.get('title', e.name))}</a>"
                  "</li>" for e in chosen)
    now = datetime.datetime.now().strftime("%Y-%m-%d %H:%M")
    page = (
        "<!doctype html><html lang=en><head><meta charset='utf-8'>"
        "<title>wifitcp: reproduced figures</title>"
        f"<style>{CSS}</style></head><body>"
        "<h1>wifitcp: reproduced paper figures</h1>"
        f"<p class=meta>Generated {now} by wifitcp {_e(__version__)} (core {_e(core_v)}) "
        f"from the stores in <code>{_e(res_dir)}</code>. Each point is the mean over "
        "seeds with its 95 % Student-t confidence interval; the expectation beside each "
        "figure is what the paper reports.</p>"
        f"<ul>{toc}</ul>" + "".join(sections) + "</body></html>\n")
    index = out_dir / "index.html"
    index.write_text(page, encoding="utf-8")
    return str(index)

"""wifitcp plot (mean and 95 % CI per point) and wifitcp report (HTML page)."""

import html
import json
import math
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest

from conftest import REPO, requires_core
import wifitcp
from wifitcp import reportpage, scenario as S
from wifitcp.cli import main
from wifitcp.plot import select
from wifitcp.stats import summarise, t975

DOC = {"scenario": {"name": "pl", "seeds": [1, 2, 3]}, "wlan": {"stations": 1},
       "traffic": [{"name": "sat"}],
       "sweep": {"wlan.stations": [1, 2, 4], "cases": [{"phy.standard": "802.11a"},
                                                       {"phy.standard": "802.11b"}]}}


@pytest.fixture
def store(fake_core, tmp_path):
    db = tmp_path / "pl.duckdb"
    wifitcp.run(DOC, out=db, jobs=1)
    return str(db)


def test_t_quantiles_and_interval():
    # published t-table values (0.975 quantile), to the table's 4-5 digits
    table = {1: 12.7062, 2: 4.3027, 4: 2.7764, 9: 2.2622, 30: 2.0423, 45: 2.0141,
             60: 2.0003, 120: 1.9799}
    for df, v in table.items():
        assert t975(df) == pytest.approx(v, abs=6e-5), df
    assert abs(t975(10**9) - 1.95996) < 1e-5
    with pytest.raises(ValueError):
        t975(0)
    s = summarise([1.0, 2.0, 3.0])
    assert (s.n, s.mean, s.sd) == (3, 2.0, 1.0)
    assert s.half == pytest.approx(4.3027 / math.sqrt(3), abs=1e-4)
    one = summarise([5.0])
    assert one.half is None and one.lo is None


def test_interval_is_clipped_to_the_metric_range():
    from wifitcp.plot import clipped_interval, metric_range
    from wifitcp.stats import summarise

    st = summarise([1.0, 1.0, 0.9])           # 0.967 +- 0.143: above 1 unclipped
    assert st.hi > 1.0
    lo, hi = clipped_interval("jain_index", st)
    assert hi == 1.0 and lo == pytest.approx(st.lo)
    assert clipped_interval("stations[0].collision_probability", summarise([0.0, 0.0, 0.1]))[0] == 0.0
    assert clipped_interval("aggregate_mbps", summarise([0.0, 0.0, 3.0]))[0] == 0.0
    assert metric_range("queues[0].mean_len") == (0.0, float("inf"))
    assert metric_range("params.delta") == (float("-inf"), float("inf"))
    assert clipped_interval("jain_index", summarise([0.5])) == (None, None)


def test_select_groups_by_line_and_x(store):
    sel = select(store, "wlan.stations", "aggregate_mbps", by="phy.standard")
    assert [line.label for line in sel.lines] == ["802.11a", "802.11b"]
    assert [p.x for p in sel.lines[0].points] == [1, 2, 4]
    with wifitcp.Store(store, read_only=True) as st:
        ys = [r["aggregate_mbps"] for r in st.query(
            "SELECT aggregate_mbps FROM runs WHERE params->>'$.\"wlan.stations\"' = '2' "
            "AND params->>'$.\"phy.standard\"' = '802.11b'")]
    p = sel.lines[1].points[1]
    assert p.stats.n == 3 and p.stats.mean == pytest.approx(sum(ys) / 3)
    sd = math.sqrt(sum((y - p.stats.mean) ** 2 for y in ys) / 2)
    assert p.stats.half == pytest.approx(4.302653 * sd / math.sqrt(3))
    # a result value by JSON path, a config path as x, a run column as by
    sel = select(store, "wlan.stations", "flows[0].goodput_mbps", by="seed",
                 where={"phy.standard": "802.11a"})
    assert [line.label for line in sel.lines] == [1, 2, 3]
    assert all(p.stats.n == 1 for line in sel.lines for p in line.points)


def test_select_refuses_to_pool_different_configurations(store):
    with pytest.raises(wifitcp.InputError, match=r"differ in .*phy\.standard.*--where"):
        select(store, "wlan.stations", "aggregate_mbps")


def test_plot_command_writes_png_and_svg(store, capsys, tmp_path):
    out = tmp_path / "fig" / "j"
    assert main(["plot", store, "--x", "wlan.stations", "--y", "aggregate_mbps",
                 "--by", "phy.standard", "--out", str(out)]) == 0
    captured = capsys.readouterr()
    lines = captured.out.splitlines()
    assert lines[0].split()[:3] == ["phy.standard", "wlan.stations", "n"]
    assert len(lines) == 2 + 6
    png, svg = Path(f"{out}.png"), Path(f"{out}.svg")
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 10_000
    text = svg.read_text()
    assert text.lstrip().startswith("<?xml") and "802.11b" in text
    # same data, same files
    first = (png.read_bytes(), text)
    assert main(["plot", store, "--x", "wlan.stations", "--y", "aggregate_mbps",
                 "--by", "phy.standard", "--out", f"{out}.png"]) == 0
    assert (png.read_bytes(), svg.read_text()) == first
    # default name beside the store, one format
    assert main(["plot", store, "--x", "wlan.stations", "--y", "aggregate_mbps",
                 "--by", "phy.standard", "--format", "svg"]) == 0
    assert (tmp_path / "pl-aggregate_mbps-vs-wlan.stations-by-phy.standard.svg").exists()


@pytest.mark.parametrize("argv,expect", [
    (["--y", "nope"], "error: --y: nope: no run of"),
    (["--x", "nope.x", "--by", "phy.standard"], "error: --x: nope.x: not a parameter"),
    (["--by", "phy.standard", "--where", "phy.standard=802.11g"],
     "error: --where: phy.standard: no run has phy.standard = 802.11g"),
    (["--by", "phy.standard", "--format", "jpg"], "error: --format: expected png, svg"),
    (["--by", "phy.standard", "--scenario", "other"], "no runs of scenario 'other' "
     "(scenarios here: pl)"),
])
def test_plot_bad_input_is_one_line(store, capsys, argv, expect):
    base = {"--x": "wlan.stations", "--y": "aggregate_mbps"}
    args = list(argv)
    for k, v in base.items():
        if k not in args:
            args += [k, v]
    rc = main(["plot", store, *args])
    err = capsys.readouterr().err
    assert rc == 2 and len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert expect in err


def test_plot_missing_store(capsys, tmp_path):
    rc = main(["plot", str(tmp_path / "no.duckdb"), "--x", "a", "--y", "b"])
    assert rc == 2 and "no such results store" in capsys.readouterr().err


# -- report -----------------------------------------------------------------

class _Refs(HTMLParser):
    def __init__(self):
        super().__init__()
        self.imgs, self.links = [], []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "img":
            self.imgs.append(a["src"])
        if tag == "a" and "href" in a:
            self.links.append(a["href"])


REPORTED = """
[scenario]
name = "rep"
seeds = [1, 2]
[wlan]
stations = 1
[[traffic]]
name = "sat"
[sweep]
"wlan.stations" = [1, 3]
[[sweep.cases]]
"phy.standard" = "802.11a"
[[sweep.cases]]
"phy.standard" = "802.11b"
[report]
title = "A test figure <&>"
expectation = "The paper says it goes down."
[[report.figures]]
x = "wlan.stations"
y = "aggregate_mbps"
by = "phy.standard"
title = "Fig. 9"
[[report.figures]]
x = "wlan.stations"
y = "collision_probability"
by = "phy.standard"
expectation = "p rises"
"""


def test_report_page_shows_every_figure(fake_core, write, tmp_path, capsys):
    f = write("rep.toml", REPORTED)
    g = write("other.toml", REPORTED.replace('name = "rep"', 'name = "never-run"'))
    results = tmp_path / "results"
    assert main(["run", f, "--out", str(results / "rep.duckdb"), "--jobs", "1",
                 "--quiet"]) == 0
    out = tmp_path / "site"
    assert main(["report", f, g, "--results", str(results), "--out", str(out)]) == 0
    page = (out / "index.html").read_text()
    refs = _Refs()
    refs.feed(page)
    assert len(refs.imgs) == 2  # every figure of the scenario that has results
    for src in refs.imgs + [h for h in refs.links if h.endswith(".svg")]:
        assert not src.startswith("/") and (out / src).is_file(), src
        assert (out / src).stat().st_size > 5_000
    assert "A test figure &lt;&amp;&gt;" in page  # escaped
    assert "The paper says it goes down." in page and "p rises" in page
    assert "Fig. 9" in page and "the 8 runs behind this figure" in page
    assert "Not run yet" in page and "never-run" in page
    assert re.search(r"8 runs \(4 configurations x 2 seeds\)", page)


BROWSERS = ("chromium-headless-shell", "chromium", "chromium-browser")

#: appended to a copy of the page: after the load event, writes what the
#: browser made of every image and table into the DOM that --dump-dom prints
CHECK = """<script>
window.addEventListener("load", function () {
  var out = {images: [], tables: []};
  document.querySelectorAll("img").forEach(function (im) {
    out.images.push({src: im.getAttribute("src"), complete: im.complete,
                     w: im.naturalWidth, h: im.naturalHeight});
  });
  document.querySelectorAll("table").forEach(function (t) {
    var r = t.getBoundingClientRect();
    out.tables.push({rows: t.rows.length, cells: t.querySelectorAll("td").length,
                     w: r.width, h: r.height, cls: t.className});
  });
  var pre = document.createElement("pre");
  pre.id = "wifitcp-check";
  pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
});
</script>"""


def test_report_renders_in_a_headless_browser(fake_core, write, tmp_path):
    """Every figure loads (decoded, non-zero size) and every table renders
    (laid out with rows and cells) in a real headless Chromium.

    Runs where Debian's chromium is installed (`make test` installs it);
    skipped, saying so, elsewhere.
    """
    import shutil
    import subprocess

    browser = next((shutil.which(b) for b in BROWSERS if shutil.which(b)), None)
    if browser is None:
        pytest.skip("no headless Chromium (apt-get install chromium; `make test` does)")
    f = write("rep.toml", REPORTED)
    results = tmp_path / "results"
    assert main(["run", f, "--out", str(results / "rep.duckdb"), "--jobs", "1",
                 "--quiet"]) == 0
    out = tmp_path / "site"
    assert main(["report", f, "--results", str(results), "--out", str(out)]) == 0
    page = (out / "index.html").read_text()
    probe = out / "probe.html"  # beside index.html: the same relative links
    probe.write_text(page.replace("</body>", CHECK + "</body>"))
    p = subprocess.run([browser, "--headless", "--no-sandbox", "--disable-gpu",
                        "--allow-file-access-from-files", "--window-size=1300,1600",
                        "--virtual-time-budget=10000", "--dump-dom", probe.as_uri()],
                       capture_output=True, text=True, timeout=180)
    m = re.search(r'<pre id="wifitcp-check">(.*?)</pre>', p.stdout, re.S)
    assert m, f"the page's check did not run: {p.stderr[-2000:]}"
    got = json.loads(html.unescape(m.group(1)))
    refs = _Refs()
    refs.feed(page)
    assert [i["src"] for i in got["images"]] == refs.imgs and len(refs.imgs) == 2
    for im in got["images"]:
        assert im["complete"] and im["w"] > 300 and im["h"] > 200, im
    # per figure a points table and a runs table (inside <details>, closed:
    # laid out, zero height until opened)
    # the second figure (collision probability) has Bianchi's model beside
    # it: its model-against-simulation table renders too
    assert [t["cls"] for t in got["tables"]] == ["points", "runs", "points", "runs",
                                                 "model-summary", "model"]
    for t in got["tables"]:
        assert t["rows"] >= 2 and t["cells"] >= t["rows"] - 1, t
        if t["cls"] in ("points", "model-summary"):
            assert t["w"] > 50 and t["h"] > 20, t


def test_report_run_option_runs_missing_campaigns(fake_core, write, tmp_path, capsys):
    f = write("rep.toml", REPORTED.replace("[report]", "[campaign]\njobs = 1\n[report]"))
    out = tmp_path / "site"
    assert main(["report", f, "--results", str(tmp_path / "r"), "--out", str(out),
                 "--run"]) == 0
    assert (tmp_path / "r" / "rep.duckdb").is_file()
    assert "Not run yet" not in (out / "index.html").read_text()


def test_scenario_without_report_is_bad_input(fake_core, write, tmp_path, capsys):
    f = write("plain.toml", REPORTED.split("[report]")[0])
    rc = main(["report", f, "--results", str(tmp_path), "--out", str(tmp_path / "o")])
    err = capsys.readouterr().err
    assert rc == 2 and f"error: {f}: report: no [report] table" in err


def test_registry_entries_match_their_scenarios():
    reg = reportpage.registry()
    assert {Path(p).name for p, _ in reg} >= {"keceli-fairness.toml", "dcf-saturation.toml"}
    for path, rep in reg:
        scn = S.load(REPO / path)
        swept = {p for p, _ in scn.grid} | {k for c in scn.cases for k in c}
        for fig in rep["figures"]:
            assert fig["x"] in swept, (path, fig["x"])
            for b in fig.get("by", "").split(","):
                assert not b or b in swept, (path, b)
            assert fig.get("expectation") or rep.get("expectation")


# -- CDFs, flows by name, categorical x, time series ---------------------------

def test_flows_selected_by_name(store, capsys, tmp_path):
    sel = select(store, "wlan.stations", "goodput_mbps", flows=["sat/sta1", "sat/sta3"],
                 where={"phy.standard": "802.11a"})
    # sta1 exists at n = 2 and 4, sta3 only at n = 4: samples = flows x seeds
    assert [(p.x, p.stats.n) for p in sel.lines[0].points] == [(2, 3), (4, 6)]
    assert {r["flow"] for r in sel.rows} == {"sat/sta1", "sat/sta3"}
    sel = select(store, "wlan.stations", "goodput_mbps", by="flow", flows=["sat/sta[01]"],
                 where={"phy.standard": "802.11a"})
    assert [line.label for line in sel.lines] == ["sat/sta0", "sat/sta1"]
    assert [p.x for p in sel.lines[1].points] == [2, 4]
    with pytest.raises(wifitcp.InputError, match="flows here: sat/sta0"):
        select(store, "wlan.stations", "goodput_mbps", flows=["tcp/*"])


def test_categorical_x_axis(store, tmp_path):
    sel = select(store, "phy.standard", "aggregate_mbps", by="wlan.stations")
    assert sel.categorical and [p.x for p in sel.lines[0].points] == ["802.11a", "802.11b"]
    sel = select(store, "flow", "goodput_mbps", where={"phy.standard": "802.11b",
                                                     "wlan.stations": 4})
    assert sel.categorical
    assert [p.x for p in sel.lines[0].points] == [f"sat/sta{i}" for i in range(4)]
    assert all(p.stats.n == 3 for p in sel.lines[0].points)  # seeds
    paths = wifitcp.plot.draw(sel, str(tmp_path / "cat"), ("svg",))
    assert "sat/sta3" in Path(paths[0]).read_text()


def test_cdf(store, capsys, tmp_path):
    assert main(["plot", store, "--cdf", "--y", "goodput_mbps", "--flow", "*",
                 "--by", "phy.standard", "--out", str(tmp_path / "cdf")]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].split() == ["phy.standard", "n", "min", "p10", "median", "p90", "max"]
    # 3 seeds x (1 + 2 + 4) flows per standard
    assert [line.split()[:2] for line in out[2:]] == [["802.11a", "21"], ["802.11b", "21"]]
    sel = select(store, None, "goodput_mbps", by="phy.standard", flows=["*"], mode="cdf")
    with wifitcp.Store(store, read_only=True) as st:
        want = sorted(r["goodput_mbps"] for r in st.query(
            "SELECT goodput_mbps FROM flows JOIN runs USING (run_id) "
            "WHERE params->>'$.\"phy.standard\"' = '802.11a'"))
    assert sel.lines[0].values == pytest.approx(want)
    assert (tmp_path / "cdf.png").stat().st_size > 10_000
    # per run: one sample per run
    sel = select(store, None, "aggregate_mbps", mode="cdf")
    assert len(sel.lines) == 1 and len(sel.lines[0].values) == 18


@pytest.mark.parametrize("argv,expect", [
    (["--cdf"], "error: --y: --cdf needs the metric"),
    (["--x", "wlan.stations"], "error: --y: required"),
    (["--cdf", "--series", "--y", "a"], "error: --cdf: give --cdf or --series"),
    (["--series", "cwnd"], "error: --series: cwnd: no selected run has such a time series"),
])
def test_plot_mode_errors(store, capsys, argv, expect):
    assert main(["plot", store, *argv]) == 2
    err = capsys.readouterr().err
    assert expect in err and len(err.strip().splitlines()) == 1


@requires_core
def test_time_series_of_flows_and_queues(tmp_path, capsys, write):
    doc = """
[scenario]
name = "ts"
duration_s = 2.0
sample_interval_s = 0.5
seeds = [1, 2]
[phy]
standard = "802.11a"
data_rate_mbps = 54.0
[wlan]
stations = 2
[[traffic]]
name = "sat"
kind = "udp"
direction = "uplink"
stations = "all"
msdu_bytes = 1500
[[traffic]]
name = "down"
kind = "udp"
pattern = "cbr"
rate_mbps = 2.0
direction = "downlink"
stations = [0]
msdu_bytes = 1000
"""
    f = write("ts.toml", doc)
    db = str(tmp_path / "ts.duckdb")
    assert main(["run", f, "--out", db, "--jobs", "1", "--quiet"]) == 0
    capsys.readouterr()
    sel = select(db, None, None, mode="series", flows=["down/*"])
    assert [line.label for line in sel.lines] == ["down/sta0"]
    pts = sel.lines[0].points
    assert [p.x for p in pts] == [0.5, 1.0, 1.5, 2.0] and all(p.stats.n == 2 for p in pts)
    assert all(abs(p.stats.mean - 2.0 * 1000 / 1028) < 0.1 for p in pts[1:])  # payload share
    res = wifitcp.load(db, frame="polars")
    s = res.series.filter(res.series["flow"] == "down/sta0")
    assert s["mbps"].mean() == pytest.approx(sum(p.stats.mean for p in pts) / 4)
    assert main(["plot", db, "--series", "queues", "--out", str(tmp_path / "q")]) == 0
    out = capsys.readouterr().out
    assert "ap" in out and (tmp_path / "q.svg").is_file()
    assert main(["plot", db, "--series", "--flow", "sat/*", "--out", str(tmp_path / "s")]) == 0
    out = capsys.readouterr().out.splitlines()
    assert [x.split()[0] for x in out[2:]] == ["sat/sta0"] * 4 + ["sat/sta1"] * 4


def test_bianchi_model_beside_the_simulation(fake_core, write, tmp_path, capsys):
    from test_cli import GOOD
    from wifitcp.compare import compare
    from wifitcp.plot import add_model, draw

    f = write("s.toml", GOOD)
    db = str(tmp_path / "b.duckdb")
    assert main(["run", f, "--out", db, "--jobs", "1", "--quiet"]) == 0
    sel = select(db, "wlan.stations", "aggregate_msdu_mbps")
    assert add_model(sel) == 1
    (_, label, xs, ys), = sel.models
    rows = {r["n"]: r for r in compare(db)}
    assert xs == [1, 3] and "Bianchi" in label
    assert ys == [rows[1]["model_classic_mbps"], rows[3]["model_classic_mbps"]]
    svg = draw(sel, str(tmp_path / "b"), ("svg",))[0]
    assert "Bianchi (T_c = DATA + DIFS)" in Path(svg).read_text()
    sel = select(db, "wlan.stations", "collision_probability")
    assert add_model(sel) == 1 and sel.models[0][3] == [rows[1]["model_p"], rows[3]["model_p"]]
    # a metric the model does not give: nothing added; the CLI says so
    assert add_model(select(db, "wlan.stations", "aggregate_mbps")) == 0
    assert main(["plot", db, "--x", "wlan.stations", "--y", "aggregate_mbps",
                 "--model", "bianchi"]) == 2
    assert "error: --model: bianchi: the model covers" in capsys.readouterr().err
    assert main(["plot", db, "--x", "wlan.stations", "--y", "aggregate_msdu_mbps",
                 "--model", "bianchi", "--out", str(tmp_path / "c")]) == 0


def test_histogram_cdf_points_and_quantiles():
    from wifitcp.plot import _histogram_points, _histogram_quantile
    b = [(1.0, 2.0, 1), (2.0, 3.0, 1), (5.0, 6.0, 2)]
    xs, ys = _histogram_points(b)
    assert xs == [1.0, 2.0, 3.0, 5.0, 6.0]
    assert ys == [0.0, 0.25, 0.5, 0.5, 1.0]
    assert _histogram_quantile(b, 0.5) == 3.0
    assert _histogram_quantile(b, 0.75) == 5.5
    assert _histogram_quantile(b, 0.125) == 1.5


DELAY = """
[scenario]
name = "delay-cdf"
duration_s = 3.0
warmup_s = 1.0
seeds = [1, 2]

[phy]
standard = "802.11b"
data_rate_mbps = 11.0

[wlan]
stations = 3

[[nodes]]
name = "server"

[[links]]
a = "ap"
b = "server"
rate_mbps = 2.0
delay_ms = 10.0
queue_packets = 30

[[traffic]]
name = "u"
kind = "udp"
pattern = "poisson"
rate_mbps = 0.8
direction = "uplink"
stations = "all"
peer = "server"
"""


@requires_core
def test_delay_cdf_from_stored_histograms(tmp_path, capsys):
    f = tmp_path / "delay.toml"
    f.write_text(DELAY)
    db = str(tmp_path / "d.duckdb")
    assert main(["run", str(f), "--out", db, "--jobs", "1", "--quiet"]) == 0
    capsys.readouterr()
    assert main(["plot", db, "--cdf", "--y", "delay_histogram", "--flow", "u/*",
                 "--by", "flow", "--out", str(tmp_path / "dcdf")]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].split() == ["flow", "n", "min", "p10", "median", "p90", "max"]
    assert [line.split()[0] for line in out[2:5]] == ["u/sta0", "u/sta1", "u/sta2"]
    assert (tmp_path / "dcdf.png").stat().st_size > 10_000
    sel = select(db, None, "delay_histogram", by="flow", flows=["u/sta0"], mode="cdf")
    res = wifitcp.load(db, frame="polars")
    fl = res.flows.filter(res.flows["name"] == "u/sta0")
    (line,) = sel.lines
    # counts of both seeds' histograms are summed
    assert sum(n for _, _, n in line.buckets) == fl["packets_delivered"].sum()
    # the histogram's median lies within a bucket (1/16 octave) of the
    # sketch's p50 of each seed's run
    row = wifitcp.plot.table_rows(sel)[0]
    for p50 in fl["delay_p50_ms"].to_list():
        assert abs(row[4] - p50) / p50 < 0.1
    xs, ys = wifitcp.plot._histogram_points(line.buckets)
    assert xs == sorted(xs) and ys == sorted(ys) and ys[-1] == 1.0


def test_axis_labels_name_the_metric_and_its_unit():
    from wifitcp.plot import axis_label

    assert axis_label("aggregate_mbps") == "aggregate goodput (Mbit/s)"
    assert axis_label("jain_index") == "Jain's fairness index"
    assert axis_label("flows[2].goodput_mbps") == "goodput (Mbit/s)"
    assert axis_label("queues[0].mean_len") == "mean queue length (packets)"
    assert axis_label("traffic[0].msdu_bytes") == "traffic[0].msdu_bytes (bytes)"
    assert axis_label("channel.tx_power_dbm") == "channel.tx_power_dbm (dBm)"


def test_box_plots_integer_ticks_and_flow_titles(store, capsys, tmp_path):
    from wifitcp.plot import _integer_axis

    out = tmp_path / "box"
    assert main(["plot", store, "--x", "wlan.stations", "--y", "aggregate_mbps",
                 "--by", "phy.standard", "--box", "--out", str(out), "--format", "svg"]) == 0
    svg = Path(f"{out}.svg").read_text()
    assert "aggregate goodput (Mbit/s)" in svg and "box plots over 3 runs per box" in svg
    assert _integer_axis([1, 2.0, 4]) and not _integer_axis([1, 2.5])
    assert main(["plot", store, "--cdf", "--y", "goodput_mbps", "--flow", "sat*",
                 "--out", str(tmp_path / "c"), "--format", "svg"]) == 0
    assert "CDF of goodput_mbps of flow sat*" in (tmp_path / "c.svg").read_text()
    capsys.readouterr()
    assert main(["plot", store, "--cdf", "--y", "goodput_mbps", "--box"]) == 2
    assert capsys.readouterr().err.strip() == \
        "error: --box: box plots are drawn against --x (not with --cdf or --series)"


def _trace(path, rows):
    import pyarrow as pa
    import pyarrow.parquet as pq

    cols = ["time_s", "node", "iface", "event", "packet", "flow", "size", "reason", "flow_name",
            "tcp_seq", "tcp_ack", "tcp_flags"]
    pq.write_table(pa.table({c: [r.get(c) for r in rows] for c in cols}), path)


def test_tcp_rtt_per_segment_from_a_trace(tmp_path, capsys):
    """Segment 0 is acknowledged 10 ms after it was sent; segment 1000 was
    sent twice, so it gives no sample (Karn); the receiver's ACKs count
    only when they reach the sender; pure ACKs of the sender are not
    segments."""
    from wifitcp.tcprtt import rtt_samples

    def ev(t, node, event, packet, seq, ack, size, flags=16):
        return dict(time_s=t, node=node, iface="wlan", event=event, packet=packet, flow=0,
                    size=size, flow_name="f", tcp_seq=seq, tcp_ack=ack, tcp_flags=flags)

    rows = [ev(0.000, "a", "enqueue", 1, 0, 1, 1500), ev(0.004, "b", "receive", 1, 0, 1, 1500),
            ev(0.001, "a", "enqueue", 2, 1448, 1, 1500), ev(0.005, "b", "receive", 2, 1448, 1, 1500),
            ev(0.006, "b", "enqueue", 3, 1, 1448, 52), ev(0.010, "a", "receive", 3, 1, 1448, 52),
            ev(0.300, "a", "enqueue", 4, 1448, 1, 1500), ev(0.304, "b", "receive", 4, 1448, 1, 1500),
            ev(0.305, "b", "enqueue", 5, 1, 2896, 52), ev(0.309, "a", "receive", 5, 1, 2896, 52),
            ev(0.310, "a", "enqueue", 6, 2896, 1, 1500), ev(0.314, "b", "receive", 6, 2896, 1, 1500),
            ev(0.315, "a", "enqueue", 7, 4344, 1, 52), ev(0.319, "b", "receive", 7, 4344, 1, 52),
            ev(0.320, "b", "enqueue", 8, 1, 4344, 52), ev(0.321, "b", "drop", 8, 1, 4344, 52),
            ev(0.330, "b", "enqueue", 9, 1, 4344, 52), ev(0.336, "a", "receive", 9, 1, 4344, 52)]
    path = tmp_path / "packets.parquet"
    _trace(path, rows)
    got = rtt_samples(str(path))
    assert list(got) == ["f"] and got["f"] == pytest.approx([10.0, 26.0])
    assert main(["plot", str(path), "--cdf", "--y", "tcp_rtt_ms", "--out", str(tmp_path / "r"),
                 "--format", "svg"]) == 0
    out = capsys.readouterr()
    assert out.out.splitlines()[2].split()[:2] == ["f", "2"]
    assert "TCP round-trip time per segment (ms)" in (tmp_path / "r.svg").read_text()
    assert main(["plot", str(path), "--y", "goodput_mbps", "--x", "seed"]) == 2
    assert "error: --y: goodput_mbps: a per-packet trace gives --cdf --y tcp_rtt_ms" in \
        capsys.readouterr().err


def test_legend_sits_outside_the_axes():
    """The legend never covers a curve: it is drawn right of the axes, and
    the figure is widened so that the axes keep their width."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    from wifitcp import plot

    fig = Figure(figsize=(6.4, 4.4), dpi=110)
    ax = fig.add_subplot(1, 1, 1)
    for i in range(6):
        ax.plot([0, 1, 2], [i, i + 1, i + 2], label=f"a rather long line label {i}")
    plot._legend_outside(fig, ax, title="by")
    fig.tight_layout()
    r = FigureCanvasAgg(fig).get_renderer()
    leg, box = ax.get_legend().get_window_extent(r), ax.get_window_extent(r)
    assert leg.x0 >= box.x1 and fig.get_figwidth() > 6.4
    assert leg.x1 <= fig.get_figwidth() * fig.dpi + 1  # inside the figure

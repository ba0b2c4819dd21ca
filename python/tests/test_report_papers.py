"""``wifitcp report`` with the five seed papers' claims: the front page's
table of every claim, a section per paper (each claim with the paper's
number, wifitcp's, a verdict and the command), built from the paper
modules' quick runs; and the page in a headless Chromium 1280 px wide:
every section there, no element wider than the window (wide tables scroll
inside their own box), every figure loaded."""

from __future__ import annotations

import html
import json
import re
import shutil
import subprocess

import pytest

from conftest import REAL_CORE, requires_core
from wifitcp.cli import main
from wifitcp.repro import claims as C

PAPERS = ["000", "001", "002", "003", "004", "x01"]

SMALL = """
[scenario]
name = "rep-small"
duration_s = 0.5
seeds = [1, 2]
[phy]
standard = "802.11a"
data_rate_mbps = 54.0
[ap]
beacons = false
[wlan]
stations = 1
[[traffic]]
name = "sat"
kind = "udp"
pattern = "saturated"
direction = "uplink"
stations = "all"
msdu_bytes = 1500
[sweep]
"wlan.stations" = [1, 2, 4]
[report]
title = "A small saturation sweep"
expectation = "Throughput falls slowly as stations are added."
[[report.figures]]
x = "wlan.stations"
y = "aggregate_mbps"
title = "aggregate"
[[report.figures]]
x = "wlan.stations"
y = "collision_probability"
title = "collisions, with Bianchi's model"
"""


@pytest.fixture(scope="module")
def page(tmp_path_factory):
    """The report of one small scenario and the five papers (quick runs)."""
    if not REAL_CORE:
        pytest.skip("simulator core not built")
    d = tmp_path_factory.mktemp("report")
    f = d / "rep-small.toml"
    f.write_text(SMALL)
    results, out = d / "results", d / "site"
    assert main(["run", str(f), "--out", str(results / "rep-small.duckdb"), "--jobs", "2",
                 "--quiet"]) == 0
    assert main(["report", str(f), "--papers", "all", "--results", str(results),
                 "--out", str(out), "--jobs", "2"]) == 0
    return out, (out / "index.html").read_text()


def _claim_rows(text: str, table_id: str) -> list:
    m = re.search(rf'<table[^>]*id="{table_id}".*?</table>', text, re.S)
    assert m, table_id
    return re.findall(r"<tr class=\"v-(\w+)\">(.*?)</tr>", m.group(0), re.S)


@requires_core
def test_front_page_table_holds_every_papers_claims(page):
    out, text = page
    rows = _claim_rows(text, "claims-table")
    assert len(rows) >= 20
    seen = set()
    for verdict, cells in rows:
        assert verdict in C.VERDICTS, verdict
        tds = re.findall(r"<td>(.*?)</td>", cells, re.S)
        assert len(tds) == 6, cells
        paper = re.search(r'href="#paper-(\w{3})"', tds[0]).group(1)
        seen.add(paper)
        assert tds[2].strip() and tds[3].strip(), cells  # paper's number, wifitcp's
        if verdict != "holds":
            assert re.search(rf"{verdict}</span>: \S", tds[4]), f"no cause: {cells}"
        assert f'href="#paper-{paper}"' in tds[5]
    assert seen == set(PAPERS)
    # the front table comes before every section
    assert text.index('id="claims-table"') < min(text.index(f'id="paper-{p}"') for p in PAPERS)


@requires_core
def test_each_paper_section_gives_numbers_verdicts_and_commands(page):
    _, text = page
    for p in PAPERS:
        sec = re.search(rf'<section id="paper-{p}".*?</section>', text, re.S)
        assert sec, p
        s = sec.group(0)
        rows = re.findall(r"<tr class=\"v-(\w+)\">(.*?)</tr>", s, re.S)
        assert len(rows) >= 4, p
        for verdict, cells in rows:
            assert f"python -m wifitcp.repro." in cells or "wifitcp run " in cells, cells
        assert "module-table" in s  # the module's own tables behind the numbers


def test_papers_option_is_checked(capsys, tmp_path):
    rc = main(["report", "--papers", "005", "--results", str(tmp_path), "--out", str(tmp_path / "o")])
    assert rc == 2 and "--papers" in capsys.readouterr().err


BROWSERS = ("chromium-headless-shell", "chromium", "chromium-browser")

#: after the load event: open every <details>, then record the window's
#: width, the sections, every image and every element wider than the
#: window or reaching past it (outside a scroll box)
PROBE = """<script>
window.addEventListener("load", function () {
  document.querySelectorAll("details").forEach(function (d) { d.open = true; });
  var vw = document.documentElement.clientWidth;
  var out = {viewport: vw, inner: window.innerWidth,
             scroll_width: document.documentElement.scrollWidth,
             sections: [], images: [], overflow: []};
  document.querySelectorAll("section, h2[id]").forEach(function (s) { out.sections.push(s.id); });
  document.querySelectorAll("img").forEach(function (im) {
    out.images.push({src: im.getAttribute("src"), complete: im.complete,
                     w: im.naturalWidth, h: im.naturalHeight});
  });
  document.querySelectorAll("body *").forEach(function (el) {
    if (el.closest(".scroll") && !el.classList.contains("scroll")) return;
    var r = el.getBoundingClientRect();
    if (r.width > vw + 1 || r.right > vw + 1) {
      out.overflow.push({tag: el.tagName, cls: el.className, w: r.width, right: r.right,
                         text: (el.textContent || "").slice(0, 60)});
    }
  });
  var pre = document.createElement("pre");
  pre.id = "wifitcp-check";
  pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
});
</script>"""


@requires_core
def test_report_fits_a_1280_px_window_in_chromium(page):
    """Structure, not pixels: every section present, no element wider than
    the 1280 px window (wide tables scroll inside their own box), every
    figure decoded."""
    browser = next((shutil.which(b) for b in BROWSERS if shutil.which(b)), None)
    if browser is None:
        pytest.skip("no headless Chromium found (chromium, chromium-headless-shell); "
                    "apt-get install chromium, or `make test`, which installs it")
    out, text = page
    probe = out / "probe.html"  # beside index.html: the same relative links
    probe.write_text(text.replace("</body>", PROBE + "</body>"))
    p = subprocess.run([browser, "--headless", "--no-sandbox", "--disable-gpu",
                        "--hide-scrollbars", "--allow-file-access-from-files",
                        "--window-size=1280,2000", "--virtual-time-budget=15000", "--dump-dom",
                        probe.as_uri()], capture_output=True, text=True, timeout=240)
    m = re.search(r'<pre id="wifitcp-check">(.*?)</pre>', p.stdout, re.S)
    assert m, f"the page's check did not run: {p.stderr[-2000:]}"
    got = json.loads(html.unescape(m.group(1)))
    assert got["inner"] == 1280, got["inner"]
    want = {"claims", "contents"} | {f"paper-{x}" for x in PAPERS} | {"rep-small"}
    assert want <= set(got["sections"]), want - set(got["sections"])
    assert got["scroll_width"] <= got["viewport"], got["scroll_width"]
    assert not got["overflow"], got["overflow"][:5]
    srcs = re.findall(r'<img src="([^"]+)"', text)
    assert len(got["images"]) == len(srcs) >= 2
    for im in got["images"]:
        assert im["complete"] and im["w"] > 300 and im["h"] > 200, im


@requires_core
def test_a_cut_short_cache_file_is_run_again(tmp_path, monkeypatch):
    """A cache file left half-written (a killed report) is ignored, not an
    error: the runs are made again and the file rewritten whole."""
    import gzip

    from wifitcp.repro import common

    made = []

    def fake_campaign(scn, items, out, jobs, dask, replace, progress, on_outcome):
        made.append(len(items))

    monkeypatch.setattr("wifitcp.campaign.run_with_progress", fake_campaign)
    monkeypatch.setattr(common, "core_id", lambda: "test")
    monkeypatch.setattr("wifitcp.core.version", lambda: "test")
    common.run_scenario("quick-check", jobs=1, cache=tmp_path)
    (f,) = tmp_path.glob("quick-check-*.jsonl.gz")
    f.write_bytes(gzip.compress(b'{"a": 1}\n' * 100)[:30])  # cut short
    assert common.run_scenario("quick-check", jobs=1, cache=tmp_path) == []
    assert len(made) == 2 and not list(tmp_path.glob("*.part"))


def test_verdicts_and_a_failing_paper(monkeypatch):
    assert C.verdict(True, True, "why") == ("holds", "")
    assert C.verdict(False, True, "why") == ("partial", "why")
    assert C.verdict(False, False, "why") == ("differs", "why")
    from wifitcp.repro import p003_murray

    def boom(**kw):
        raise KeyError("no such point")

    monkeypatch.setattr(p003_murray, "claims", boom)
    (pc,) = C.collect(["003"])
    assert pc.error == "KeyError: 'no such point'" and not pc.claims


def test_failed_paper_is_shown_not_fatal(fake_core, monkeypatch, tmp_path):
    from wifitcp.repro import p003_murray

    monkeypatch.setattr(p003_murray, "claims", lambda **kw: 1 / 0)
    assert main(["report", "--papers", "003", "--results", str(tmp_path), "--out",
                 str(tmp_path / "o")]) == 0
    page = (tmp_path / "o" / "index.html").read_text()
    assert "the reproduction failed: ZeroDivisionError" in page

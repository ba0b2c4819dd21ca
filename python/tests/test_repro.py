"""`wifitcp.repro`: one module per seed paper, each saying which paper,
which figures and which command; the scenario files it names exist; the
report names the module beside a scenario it runs; one small part runs end
to end on the real core."""

from __future__ import annotations

import re

import pytest

from conftest import REPO, requires_core
from wifitcp import repro
from wifitcp.repro import common

SEEDS_INDEX = REPO.parent / "shared" / "seeds" / "INDEX.md"


def test_one_module_per_paper():
    assert sorted(repro.MODULES) == ["000", "001", "002", "003", "004"]
    if SEEDS_INDEX.is_file():  # the papers the seeds' index lists
        listed = set(re.findall(r"^\| `(\d{3})_", SEEDS_INDEX.read_text(), re.M))
        assert listed == set(repro.MODULES)
    for paper, name in repro.MODULES.items():
        mod = repro.module(paper)
        assert repro.module(name) is mod
        assert name.startswith(f"p{paper}_")
        doc = " ".join(mod.__doc__.split())
        assert f"paper {paper}" in doc and f"{paper}_" in doc  # the paper and its seed file
        assert f"python -m wifitcp.repro.{name}" in doc       # the command
        assert re.search(r"Figs?\.|[Ss]ection|Tables?", doc)  # the figures
        assert f"(paper {paper})" in mod.PAPER
        assert callable(mod.main)
        for s in mod.SCENARIOS:
            assert common.scenario_path(s).is_file(), (name, s)


def test_every_scenario_belongs_to_one_module_at_most():
    seen: dict = {}
    for paper in (*repro.MODULES, *repro.BEYOND):
        for s in repro.module(paper).SCENARIOS:
            assert s not in seen, (s, seen.get(s), paper)
            seen[s] = paper
    assert repro.for_scenario("scenarios/keceli-figs3-6.toml").__name__ == \
        "wifitcp.repro.p001_keceli"
    assert repro.for_scenario("pokhrel-download").__name__ == "wifitcp.repro.p004_pokhrel"
    assert repro.for_scenario("scenarios/quick-check.toml") is None
    with pytest.raises(KeyError):
        repro.module("005")
    assert repro.for_scenario("bbr-cubic-wifi").__name__ == "wifitcp.repro.x01_bbr_cubic"


def test_reproductions_beyond_the_seeds_name_their_reference_and_command():
    for key, name in repro.BEYOND.items():
        mod = repro.module(key)
        assert repro.module(name) is mod and name.startswith(f"{key}_")
        doc = " ".join(mod.__doc__.split())
        assert f"python -m wifitcp.repro.{name}" in doc
        assert "testbed" in doc or "paper" in doc  # what it is compared with
        assert callable(mod.main) and callable(mod.claims)
        for s in mod.SCENARIOS:
            assert common.scenario_path(s).is_file(), (name, s)


@pytest.mark.parametrize("name", list(repro.MODULES.values()) + list(repro.BEYOND.values()))
def test_each_module_answers_help(name, capsys):
    mod = repro.module(name)
    with pytest.raises(SystemExit) as e:
        mod.main(["--help"])
    assert e.value.code == 0
    assert f"python -m wifitcp.repro.{name}" in capsys.readouterr().out
    with pytest.raises(SystemExit) as e:
        mod.main(["--only", "no-such-part"])
    assert e.value.code == 2


def test_config_table_rows_follow_the_run_order():
    runs = []
    for idx, n in ((1, 10), (0, 5)):
        for seed, agg in ((1, 10.0), (2, 12.0)):
            runs.append({"params": {"wlan.stations": n, "wlan.positions": [[0, 0]] * n},
                         "seed": seed, "run_index": idx * 2 + seed, "aggregate_mbps": agg,
                         "jain_index": 1.0, "collision_probability": 0.1,
                         "flows": [{"kind": "tcp", "name": "f", "goodput_mbps": agg,
                                    "tcp": {"timeouts": 1}}]})
    rows = common.config_table(runs).splitlines()[2:]
    assert [r.split(" | ")[0] for r in rows] == [
        "| wlan.stations=5, wlan.positions=[5 entries]",
        "| wlan.stations=10, wlan.positions=[10 entries]"]
    # mean 11 over two seeds, 95 % CI t(1) * sd / sqrt(2) = 12.706 * 1.414 / 1.414
    assert "11.00 ± 12.71" in rows[0] and rows[0].endswith("| 1.0 |")


def test_the_report_names_the_module(tmp_path):
    from wifitcp import reportpage

    out = tmp_path / "report"
    page = reportpage.build([str(REPO / "scenarios" / "pokhrel-download.toml"),
                             str(REPO / "scenarios" / "dcf-saturation.toml")],
                            results=str(tmp_path / "none"), out=str(out), log=lambda m: None)
    html = open(page).read()
    assert html.count("python -m wifitcp.repro.p004_pokhrel") == 1
    assert "wifitcp.repro.p0" not in html.split('id="dcf-saturation"')[1]


@requires_core
def test_a_part_runs_end_to_end(tmp_path, capsys):
    from wifitcp.repro import p003_murray

    assert p003_murray.main(["--only", "noack", "--quick", "--jobs", "1",
                             "--cache", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    rows = [r for r in out.splitlines() if r.startswith("| mac.ack_policy=")]
    assert len(rows) == 4 and all("| 1 |" in r for r in rows)
    # the second time from the cache, the same table
    assert p003_murray.main(["--only", "noack", "--quick", "--cache", str(tmp_path)]) == 0
    again = capsys.readouterr().out
    assert "runs from" in again
    assert [r for r in again.splitlines() if r.startswith("| mac.ack_policy=")] == rows

"""The wifitcp command: bad input is one line + exit 2; run/validate/export."""

import json
import os
import subprocess
import sys

import duckdb
import pytest

from conftest import REPO, requires_core
from wifitcp.cli import main

GOOD = """
[scenario]
name = "cli-test"
duration_s = 1.0
seeds = [1, 2]

[phy]
standard = "802.11a"
data_rate_mbps = 54.0

[wlan]
stations = 2

[[traffic]]
name = "sat"
kind = "udp"
msdu_bytes = 1500

[sweep]
"wlan.stations" = [1, 3]
"""


def one_error_line(capsys, code, argv):
    rc = main(argv)
    out, err = capsys.readouterr()
    assert rc == code, err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("error: ")
    assert "Traceback" not in err
    return lines[0]


# -- bad input, in process, with the fake core ----------------------------

@pytest.mark.parametrize("extra,expect", [
    ("[mac]\ncw_mni = 3\n", ": mac.cw_mni: unknown key"),
    ("[mac]\ncw_min = \"big\"\n", ": mac.cw_min: expected int, got str"),
    ("[wlan.x]\ny = 1\n", ": wlan.x: unknown key"),
    ("[bogus]\nx = 1\n", ": bogus: unknown key"),
    ("[[sweep.cases]]\n\"wlan.statons\" = 4\n", ': sweep.cases[0]."wlan.statons": unknown key'),
])
def test_core_rejections_are_one_line(fake_core, write, capsys, extra, expect):
    f = write("bad.toml", GOOD.replace("[sweep]", extra + "\n[sweep]", 1)
              if "sweep" not in extra else GOOD + extra)
    for cmd in (["validate", f], ["run", f, "--no-store", "--jobs", "1"]):
        line = one_error_line(capsys, 2, cmd)
        assert line.startswith(f"error: {f}")
        assert expect in line


def test_out_of_range_in_sweep_is_one_line(fake_core, write, capsys):
    f = write("bad.toml", GOOD.replace("[1, 3]", "[1, 0]"))
    line = one_error_line(capsys, 2, ["validate", f])
    assert line == f'error: {f}: sweep."wlan.stations": must be at least 1 (value 0)'


@pytest.mark.parametrize("argv,expect", [
    (["--set", "nonsense"], ": --set: --set expects dotted.key=VALUE"),
    (["--set", "wlan.stations.x=1"], ": wlan.stations.x: --set: wlan.stations is not a table"),
    (["--set", "mac.cw_min=zero"], ": mac.cw_min: expected int, got str"),
    (["--set", "scenario.seeds=[]"], ": scenario.seeds: expected a non-empty list"),
])
def test_bad_set(fake_core, write, capsys, argv, expect):
    f = write("s.toml", GOOD)
    line = one_error_line(capsys, 2, ["validate", f, *argv])
    assert expect in line


def test_missing_file_and_not_toml(fake_core, write, capsys, tmp_path):
    line = one_error_line(capsys, 2, ["run", str(tmp_path / "none.toml")])
    assert line == f"error: {tmp_path / 'none.toml'}: no such file"
    f = write("x.toml", "this is = = not toml")
    line = one_error_line(capsys, 2, ["validate", f])
    assert line.startswith(f"error: {f}: not valid TOML")


def test_bad_arguments(fake_core, write, capsys):
    f = write("s.toml", GOOD)
    one_error_line(capsys, 2, ["run", f, "--jobs", "0"])
    one_error_line(capsys, 2, ["run", f, "--seed", "x"])
    one_error_line(capsys, 2, ["frobnicate"])
    one_error_line(capsys, 2, ["export", str(f), "--parquet", "d"])  # not a store


# -- the same, end to end in a subprocess (errors found by Python) -----------

def cli(*args, cwd=None):
    env = dict(os.environ)
    env["PYTHONPATH"] = str(REPO / "python") + os.pathsep + env.get("PYTHONPATH", "")
    return subprocess.run([sys.executable, "-m", "wifitcp", *args], capture_output=True,
                          text=True, cwd=cwd, env=env, timeout=300)


@pytest.mark.parametrize("content,args", [
    (None, []),
    ("[scenario\n", []),
    (GOOD, ["--set", "oops"]),
    (GOOD.replace('"wlan.stations" = [1, 3]', '"wlan.stations" = 3'), []),
])
def test_subprocess_bad_input_no_traceback(tmp_path, content, args):
    f = tmp_path / "s.toml"
    if content is not None:
        f.write_text(content)
    p = cli("run", str(f), "--no-store", *args)
    assert p.returncode == 2, p.stderr
    assert len(p.stderr.strip().splitlines()) == 1, p.stderr
    assert p.stderr.startswith(f"error: {f}: ")
    assert "Traceback" not in p.stderr and p.stdout == ""


@requires_core
@pytest.mark.parametrize("extra,path", [
    ("[mac]\ncw_mni = 3\n", "mac.cw_mni"),
    ("[mac]\ncw_min = \"big\"\n", "mac.cw_min"),
    ("[wlan]\nper_uplink = 2.0\n", "wlan.per_uplink"),
    ("[ap.qdisc]\nkind = \"vbs\"\nupdate = \"always\"\n", "ap.qdisc.update"),
    ("[mac]\nshort_retry_limit = 0\n", "mac.short_retry_limit"),
    ("[ap.qdisc]\nkind = \"vbs\"\nmeasure = \"throughput\"\n", "ap.qdisc.measure"),
])
def test_subprocess_real_core_rejections(tmp_path, extra, path):
    f = tmp_path / "s.toml"
    f.write_text(GOOD.replace("[wlan]\nstations = 2\n", "") + "\n" + extra)
    p = cli("validate", str(f))
    assert p.returncode == 2, p.stderr
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in p.stderr, p.stderr
    assert lines[0].startswith(f"error: {f}: {path}: "), lines[0]


@requires_core
@pytest.mark.parametrize("measure", ["service", "occupancy", "delivered"])
def test_subprocess_real_core_vbs_measures(tmp_path, measure):
    f = tmp_path / "s.toml"
    f.write_text(GOOD.replace("[wlan]\nstations = 2\n", "")
                 + f'\n[ap.qdisc]\nkind = "vbs"\nmeasure = "{measure}"\n')
    p = cli("validate", str(f))
    assert p.returncode == 0, p.stderr
    assert p.stdout.startswith(f"OK: {f}: "), p.stdout


# -- working commands, with the fake core ---------------------------------

def test_validate_counts_runs(fake_core, write, capsys):
    f = write("s.toml", GOOD)
    assert main(["validate", f]) == 0
    out = capsys.readouterr().out
    assert out.strip() == f"OK: {f}: scenario 'cli-test': 4 runs (2 configurations x 2 seeds)"


def test_run_table_store_and_export(fake_core, write, capsys, tmp_path):
    f = write("s.toml", GOOD)
    db = tmp_path / "out.duckdb"
    assert main(["run", f, "--out", str(db), "--jobs", "1"]) == 0
    out, err = capsys.readouterr()
    assert "wlan.stations=3" in out and "sat/sta2=" in out
    assert "4 runs in" in err
    con = duckdb.connect(str(db), read_only=True)
    assert con.execute("SELECT count(*) FROM runs").fetchone()[0] == 4
    assert con.execute("SELECT count(*) FROM flows").fetchone()[0] == 2 * (1 + 3)
    assert con.execute("SELECT count(*) FROM stations").fetchone()[0] == 8
    hashes = con.execute("SELECT count(DISTINCT scenario_hash) FROM runs").fetchone()[0]
    assert hashes == 2  # one per configuration, seeds share it
    con.close()
    # a second run appends; --replace starts over
    assert main(["run", f, "--out", str(db), "--jobs", "1", "--seed", "5"]) == 0
    assert main(["run", f, "--out", str(db), "--jobs", "1", "--replace", "--seed", "5"]) == 0
    capsys.readouterr()
    con = duckdb.connect(str(db), read_only=True)
    assert con.execute("SELECT list(DISTINCT seed) FROM runs").fetchone()[0] == [5]
    con.close()
    assert main(["export", str(db), "--parquet", str(tmp_path / "pq")]) == 0
    assert (tmp_path / "pq" / "stations.parquet").exists()


def test_run_json_lines(fake_core, write, capsys):
    f = write("s.toml", GOOD)
    assert main(["run", f, "--json", "--no-store", "--jobs", "1",
                 "--set", "scenario.seeds=[3]"]) == 0
    out, err = capsys.readouterr()
    lines = [json.loads(x) for x in out.strip().splitlines()]
    assert len(lines) == 2
    for d in lines:
        assert d["scenario"] == "cli-test" and d["seed"] == 3
        assert set(d["params"]) == {"wlan.stations"}
        assert {"aggregate_mbps", "collision_probability", "flows", "stations", "ledger",
                "new_top_level", "run_index"} <= set(d)
        assert {"name", "goodput_mbps"} <= set(d["flows"][0])
    assert sorted(d["params"]["wlan.stations"] for d in lines) == [1, 3]


def test_default_store_path(fake_core, write, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    f = write("s.toml", GOOD)
    assert main(["run", f, "--jobs", "1", "--seed", "1"]) == 0
    assert (tmp_path / "results" / "cli-test.duckdb").exists()


def test_compare_command(fake_core, write, capsys, tmp_path):
    f = write("s.toml", GOOD)
    db = str(tmp_path / "c.duckdb")
    assert main(["run", f, "--out", db, "--jobs", "1", "--compare"]) == 0
    out = capsys.readouterr().out
    assert "Bianchi/EIFS" in out
    assert main(["compare", db, "--json"]) == 0
    rows = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert [(r["n"], r["seeds"]) for r in rows] == [(1, 2), (3, 2)]
    assert all(r["model_eifs_mbps"] > 0 and r["err_classic_pct"] is not None for r in rows)
    assert rows[1]["sim_p"] == 0.1  # collisions / attempts of the fake stations


def test_run_failure_exits_1(fake_core, write, capsys, monkeypatch):
    def boom(text, seed, *progress):
        raise RuntimeError("ledger does not balance")

    monkeypatch.setattr(fake_core, "run", boom)
    f = write("s.toml", GOOD)
    assert main(["run", f, "--no-store", "--jobs", "1"]) == 1
    err = capsys.readouterr().err
    assert "Traceback" not in err
    last = err.strip().splitlines()[-1]
    assert last.startswith("error: 4 of 4 runs failed; first: run wlan.stations=1 seed=1: ")
    assert "ledger does not balance" in last


def test_compare_skips_workloads_the_model_does_not_cover(fake_core, write, capsys, tmp_path):
    f = write("c.toml", GOOD.replace('msdu_bytes = 1500', 'msdu_bytes = 1500\npattern = "cbr"'))
    db = str(tmp_path / "c.duckdb")
    assert main(["run", f, "--out", db, "--jobs", "1", "--seed", "1"]) == 0
    capsys.readouterr()
    from wifitcp.compare import main as compare_main

    assert compare_main([db]) == 0
    out = capsys.readouterr().out
    lines = [x for x in out.splitlines() if x.startswith("cli-test")]
    assert len(lines) == 2 and all(" - " in x for x in lines)


def test_set_of_a_swept_key_wins_and_says_so(fake_core, write, capsys):
    f = write("s.toml", GOOD)
    assert main(["validate", f, "--set", "wlan.stations=4"]) == 0
    out, err = capsys.readouterr()
    assert "1 configurations x 2 seeds" in out
    assert err.strip().splitlines() == [
        f"note: {f}: --set wlan.stations=4 replaces the sweep's values of wlan.stations ([1, 3])"]
    assert main(["run", f, "--no-store", "--json", "--jobs", "1", "--set", "wlan.stations=4"]) == 0
    runs = [json.loads(l) for l in capsys.readouterr().out.splitlines()]
    assert [r["params"] for r in runs] == [{"wlan.stations": 4}] * 2

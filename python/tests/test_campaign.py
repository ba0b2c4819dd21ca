"""Campaigns: resumable after SIGKILL, failures recorded, dask = local, CLI sweeps."""

import json
import os
import signal
import subprocess
import sys

import duckdb
import pytest

from conftest import REPO, requires_core
import wifitcp
from wifitcp import scenario as S
from wifitcp.cli import main
from wifitcp.progress import Progress
from wifitcp.store import SCHEMA_VERSION, Store, run_key

SAT = """
[scenario]
name = "{name}"
duration_s = {duration}
seeds = [1, 2, 3, 4]

[phy]
standard = "802.11a"
data_rate_mbps = 54.0

[wlan]
stations = 1

[[traffic]]
name = "sat"
kind = "udp"
pattern = "saturated"

[sweep]
"wlan.stations" = [2, 4, 6, 8]
"""


def cli_proc(*args, cwd):
    env = dict(os.environ)
    env["PYTHONPATH"] = str(REPO / "python") + os.pathsep + env.get("PYTHONPATH", "")
    return subprocess.Popen([sys.executable, "-m", "wifitcp", *args], cwd=cwd, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)


def stored(db):
    con = duckdb.connect(str(db), read_only=True)
    rows = con.execute("SELECT run_key, run_id, params, seed, created_at, result_json "
                       "FROM runs ORDER BY run_id").fetchall()
    con.close()
    return rows


# -- the acceptance test: SIGKILL part-way, then resume ---------------------

@requires_core
def test_killed_sweep_resumes_without_loss_or_duplicates(tmp_path):
    (tmp_path / "s.toml").write_text(SAT.format(name="kill", duration=10.0))
    db = tmp_path / "k.duckdb"
    args = ["run", "s.toml", "--out", str(db), "--json", "--jobs", "2"]
    p = cli_proc(*args, cwd=tmp_path)
    first = []
    for line in p.stdout:  # a JSON line is printed once its run is committed
        first.append(json.loads(line))
        if len(first) == 4:
            os.killpg(p.pid, signal.SIGKILL)  # the CLI and its workers, mid-sweep
            break
    p.wait(timeout=60)
    p.stdout.close()
    p.stderr.close()
    assert p.returncode == -signal.SIGKILL
    before = stored(db)
    k = len(before)
    assert 4 <= k < 16, f"{k} runs stored: the kill did not land part-way"
    ids = {r[1] for r in before}
    assert {d["run_id"] for d in first} <= ids  # nothing reported as done was lost

    p = cli_proc(*args, cwd=tmp_path)
    out, err = p.communicate(timeout=300)
    assert p.returncode == 0, err
    assert f"{k} of 16 runs already in" in err
    lines = [json.loads(x) for x in out.splitlines()]
    second = [d for d in lines if not d.get("stored")]
    assert len(second) == 16 - k  # only what had not finished ran again
    assert sorted(d["run_id"] for d in lines if d.get("stored")) == sorted(ids)
    done_before = {(json.dumps(json.loads(r[2]), sort_keys=True), r[3]) for r in before}
    assert not {(json.dumps(d["params"], sort_keys=True), d["seed"]) for d in second} \
        & done_before
    after = stored(db)
    assert len(after) == 16 and len({r[0] for r in after}) == 16
    points = [(json.loads(r[2])["wlan.stations"], r[3]) for r in after]
    assert sorted(points) == [(n, s) for n in (2, 4, 6, 8) for s in (1, 2, 3, 4)]
    assert after[:k] == before  # finished runs untouched: same id, time, result

    # a third invocation has nothing to do
    p = cli_proc(*args, cwd=tmp_path)
    out, err = p.communicate(timeout=120)
    assert p.returncode == 0 and "16 of 16 runs already in" in err
    assert all(json.loads(x)["stored"] for x in out.splitlines())  # printed from the store
    assert stored(db) == after


# -- failures --------------------------------------------------------------

GOOD = SAT.format(name="fail", duration=1.0).replace("seeds = [1, 2, 3, 4]", "seeds = [1, 2]")


def test_failed_run_is_recorded_and_does_not_stop_the_sweep(fake_core, write, capsys,
                                                            tmp_path, monkeypatch):
    real_run = fake_core.run

    def flaky(text, seed, *progress):
        if json.loads(text)["wlan"]["stations"] == 4 and seed == 2:
            raise RuntimeError("ledger does not balance")
        return real_run(text, seed, *progress)

    monkeypatch.setattr(fake_core, "run", staticmethod(flaky))
    f = write("s.toml", GOOD)
    db = str(tmp_path / "f.duckdb")
    assert main(["run", f, "--out", db, "--jobs", "1"]) == 1
    err = capsys.readouterr().err
    assert "Traceback" not in err
    assert err.strip().splitlines()[-1].startswith(
        "error: 1 of 8 runs failed (recorded in the store's failures table); "
        "first: run wlan.stations=4 seed=2: RuntimeError: ledger does not balance")
    with Store(db, read_only=True) as st:
        assert st.query("SELECT count(*) AS n FROM runs")[0]["n"] == 7
        fails = st.failures()
        assert len(fails) == 1 and fails[0]["seed"] == 2
        assert fails[0]["params"] == {"wlan.stations": 4}
        assert "ledger does not balance" in fails[0]["error"]
        assert fails[0]["config_json"]["wlan"]["stations"] == 4
    # the next campaign retries only the failure; success clears it
    monkeypatch.setattr(fake_core, "run", staticmethod(real_run))
    calls = fake_core.calls
    assert main(["run", f, "--out", db, "--jobs", "1"]) == 0
    assert fake_core.calls - calls == 1
    assert "7 of 8 runs already in" in capsys.readouterr().err
    with Store(db, read_only=True) as st:
        assert st.query("SELECT count(*) AS n FROM runs")[0]["n"] == 8
        assert st.failures() == []


def _doc():
    return {"scenario": {"name": "d", "seeds": [1, 2]}, "wlan": {"stations": 1},
            "traffic": [{"name": "sat"}]}


# -- keys, store migration, result text ------------------------------------

def test_run_key_covers_hash_params_seed_version():
    k = run_key("h", {"a": 1}, 1, "v")
    assert len(k) == 64
    assert len({k, run_key("h2", {"a": 1}, 1, "v"), run_key("h", {"a": 2}, 1, "v"),
                run_key("h", {"a": 1}, 2, "v"), run_key("h", {"a": 1}, 1, "w")}) == 5
    assert run_key("h", {"b": 1, "a": 2}, 1, "v") == run_key("h", {"a": 2, "b": 1}, 1, "v")


def test_schema_1_store_is_migrated(fake_core, tmp_path):
    db = tmp_path / "old.duckdb"
    con = duckdb.connect(str(db))
    con.execute("""CREATE SEQUENCE run_id_seq START 1;
        CREATE TABLE meta (key VARCHAR PRIMARY KEY, value VARCHAR);
        INSERT INTO meta VALUES ('schema_version', '1');
        CREATE TABLE runs (run_id BIGINT PRIMARY KEY, scenario VARCHAR NOT NULL,
            scenario_hash VARCHAR NOT NULL, params JSON NOT NULL, seed UBIGINT NOT NULL,
            version VARCHAR, wall_time_s DOUBLE, duration_s DOUBLE, events UBIGINT,
            aggregate_mbps DOUBLE, aggregate_msdu_mbps DOUBLE, collision_probability DOUBLE,
            ledger_generated UBIGINT, ledger_delivered UBIGINT, ledger_in_flight UBIGINT,
            ledger_dropped JSON, config_json JSON NOT NULL, result_json JSON NOT NULL,
            created_at TIMESTAMP NOT NULL DEFAULT current_timestamp);
        INSERT INTO runs (run_id, scenario, scenario_hash, params, seed, version,
            config_json, result_json) VALUES
            (1, 'old', 'abc', '{"wlan.stations": 2}', 3, 'v1', '{}', '{}');""")
    con.close()
    with Store(db) as st:
        row = st.query("SELECT run_key FROM runs")[0]
        assert row["run_key"] == run_key("abc", {"wlan.stations": 2}, 3, "v1")
        assert st.query("SELECT value FROM meta WHERE key = 'schema_version'")[0]["value"] \
            == str(SCHEMA_VERSION)
        assert st.failures() == []


def test_stored_result_has_no_wall_time_and_is_repeatable(fake_core, monkeypatch, tmp_path):
    real_run = fake_core.run
    monkeypatch.setattr(fake_core, "run", staticmethod(
        lambda t, s: json.dumps({**json.loads(real_run(t, s)),
                                 "wall_time_s": os.urandom(2).hex()})))
    texts = []
    for name in ("a", "b"):
        wifitcp.run(_doc(), out=tmp_path / f"{name}.duckdb", jobs=1)
        with Store(tmp_path / f"{name}.duckdb", read_only=True) as st:
            texts.append(st.query("SELECT run_key, result_json FROM runs ORDER BY run_key"))
    assert texts[0] == texts[1]
    assert all("wall_time_s" not in r["result_json"] for r in texts[0])


# -- command-line sweeps ----------------------------------------------------

def test_cli_sweep_and_seeds(fake_core, write, capsys):
    f = write("s.toml", GOOD)
    assert main(["validate", f, "--sweep", "wlan.stations=1..3", "--sweep",
                 "mac.cw_min=15,31", "--seeds", "1..5"]) == 0
    assert capsys.readouterr().out.strip().endswith(
        "30 runs (6 configurations x 5 seeds)")
    scn = S.load(f, sets=S.sweep_sets(["traffic[0].msdu_bytes=[500, 1500]"], "7,9"))
    assert scn.grid == [("wlan.stations", [2, 4, 6, 8]), ("traffic[0].msdu_bytes", [500, 1500])]
    assert scn.seeds == [7, 9]


@pytest.mark.parametrize("argv,expect", [
    (["--sweep", "wlan.stations"], "error: --sweep: --sweep expects dotted.key=V1,V2,..."),
    (["--sweep", "wlan.stations=5..1"], "error: --sweep: bad range '5..1'"),
    (["--sweep", "wlan.stations=1,,2"], "error: --sweep: empty value"),
    (["--seeds", "1,1"], "error: --seeds: duplicate seeds"),
    (["--seeds", "a"], "error: --seeds: seeds must be integers"),
    (["--seeds", "1", "--seed", "2"], "error: --seeds: give --seed or --seeds, not both"),
    (["--sweep", "wlan.stations=0,1"], 'sweep."wlan.stations": must be at least 1 (value 0)'),
])
def test_cli_sweep_errors_are_one_line(fake_core, write, capsys, argv, expect):
    f = write("s.toml", GOOD)
    rc = main(["run", f, "--no-store", "--jobs", "1", *argv])
    err = capsys.readouterr().err
    assert rc == 2 and len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert expect in err


def test_campaign_and_report_tables_are_stripped(fake_core, write, capsys):
    f = write("s.toml", GOOD + '\n[campaign]\njobs = 1\n\n[report]\ntitle = "t"\n'
              'figures = [{x = "wlan.stations", y = "aggregate_mbps"}]\n')
    scn = S.load(f)
    assert scn.campaign == {"jobs": 1} and scn.report["figures"][0]["x"] == "wlan.stations"
    assert "report" not in scn.base and "campaign" not in scn.base
    assert main(["run", f, "--no-store", "--quiet"]) == 0  # jobs from [campaign]
    assert "with 1 worker(s)" in capsys.readouterr().err


@pytest.mark.parametrize("extra,expect", [
    ("[campaign]\njobz = 2\n", "campaign.jobz: unknown key"),
    ("[campaign]\njobs = 0\n", "campaign.jobs: must be >= 1"),
    ("[campaign]\ndask = 3\n", "campaign.dask: expected a string, got an integer"),
    ('[report]\ntitle = "t"\n', "report.figures: expected a non-empty array"),
    ('[report]\nfigures = [{x = "n"}]\n', "report.figures[0].y: required"),
    ('[report]\nfigures = [{x = "n", y = "j", color = 1}]\n',
     "report.figures[0].color: unknown key"),
])
def test_bad_campaign_and_report_tables(fake_core, write, capsys, extra, expect):
    f = write("s.toml", GOOD + "\n" + extra)
    rc = main(["validate", f])
    err = capsys.readouterr().err
    assert rc == 2 and len(err.strip().splitlines()) == 1 and expect in err


# -- progress ---------------------------------------------------------------

def test_plain_progress_shows_done_failures_and_eta(tmp_path):
    out = (tmp_path / "p.txt").open("w+")
    p = Progress(20, stream=out, tty=False)
    for i in range(20):
        p.update(ok=i != 3)
    p.close()
    out.seek(0)
    lines = out.read().splitlines()
    assert len(lines) == 11  # the first run, then one per tenth
    assert lines[0].startswith("[1/20] 0 failed, ") and ", eta " in lines[0]
    assert lines[2].startswith("[4/20] 1 failed, ")
    assert lines[-1].startswith("[20/20] 1 failed, ") and "eta" not in lines[-1]


def test_tty_progress_uses_tqdm(tmp_path):
    pytest.importorskip("tqdm")
    out = (tmp_path / "p.txt").open("w+")
    p = Progress(3, stream=out, tty=True, label="x")
    for ok in (True, False, True):
        p.update(ok)
    assert p.bar is not None and p.bar.n == 3 and "failed=1" in str(p.bar)
    p.close()


def test_progress_is_a_notebook_widget_in_jupyter(monkeypatch):
    """In a Jupyter kernel the bar comes from tqdm.auto (a widget in the
    cell's output) even though stderr is no terminal; elsewhere a plain
    line, unless stderr is a terminal."""
    import io
    import sys
    import types

    from wifitcp import progress

    assert not progress.in_notebook()
    assert progress.Progress(3, stream=io.StringIO(), tty=False).bar is None

    class ZMQInteractiveShell:
        pass

    fake = types.ModuleType("IPython")
    fake.get_ipython = lambda: ZMQInteractiveShell()
    monkeypatch.setitem(sys.modules, "IPython", fake)
    monkeypatch.setitem(sys.modules, "ipykernel", types.ModuleType("ipykernel"))
    assert progress.in_notebook()
    import tqdm.auto

    made = []
    monkeypatch.setattr(tqdm.auto, "tqdm", lambda **kw: made.append(kw) or object())
    p = progress.Progress(3, stream=io.StringIO(), tty=False)
    assert p.bar is not None and made[0]["total"] == 3 and made[0]["file"] is None

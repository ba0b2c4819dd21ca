"""The Python API: wifitcp.run / wifitcp.sweep on a path or a dict."""

import pandas as pd
import polars as pl
import pytest

import wifitcp
from wifitcp.errors import InputError, RunError

DOC = {"scenario": {"name": "api", "seeds": [1, 2]}, "wlan": {"stations": 2},
       "traffic": [{"name": "sat"}], "sweep": {"wlan.stations": [1, 2]}}


def test_run_records(fake_core, tmp_path):
    res = wifitcp.run(DOC, out=tmp_path / "a.duckdb", jobs=1, frame="records")
    assert [(r["params"]["wlan.stations"], r["seed"]) for r in res] == [
        (1, 1), (1, 2), (2, 1), (2, 2)]
    assert all(r["run_id"] is not None for r in res)
    assert res[3]["flows"][1]["name"] == "sat/sta1"
    with wifitcp.Store(tmp_path / "a.duckdb", read_only=True) as st:
        assert len(st.runs("api")) == 4


def test_run_with_overrides(fake_core):
    res = wifitcp.run(DOC, seed=9, set=["sweep.wlan.stations=[4]"], jobs=1, frame="records")
    assert len(res) == 1 and res[0]["seed"] == 9 and len(res[0]["flows"]) == 4
    assert res[0]["run_id"] is None


def test_run_errors(fake_core, monkeypatch):
    with pytest.raises(InputError, match="mac.x: unknown key"):
        wifitcp.run({**DOC, "mac": {"x": 1}}, jobs=1)
    monkeypatch.setattr(fake_core, "run", lambda t, s: (_ for _ in ()).throw(RuntimeError("x")))
    with pytest.raises(RunError):
        wifitcp.run(DOC, jobs=1)
    df = wifitcp.run(DOC, jobs=1, raise_on_failure=False)
    assert len(df) == 4 and df["error"].str.contains("RuntimeError: x").all()


def test_input_error_format():
    assert str(InputError("f.toml", "a.b", "bad")) == "f.toml: a.b: bad"
    assert str(InputError("f.toml", "", "bad")) == "f.toml: bad"


def test_frames_pandas_and_polars(fake_core):
    df = wifitcp.run(DOC, jobs=1)
    assert isinstance(df, pd.DataFrame)
    assert list(df.columns[:5]) == ["run_index", "run_id", "scenario", "wlan.stations", "seed"]
    assert list(df["wlan.stations"]) == [1, 1, 2, 2] and list(df["seed"]) == [1, 2, 1, 2]
    assert {"aggregate_mbps", "collision_probability", "events", "error"} <= set(df.columns)
    assert "flows" not in df.columns  # nested values stay in frame="records"
    assert df.groupby("wlan.stations")["aggregate_mbps"].mean().shape == (2,)
    pf = wifitcp.run(DOC, jobs=1, frame="polars")
    assert isinstance(pf, pl.DataFrame) and pf.height == 4
    assert pf["aggregate_mbps"].to_list() == pytest.approx(df["aggregate_mbps"].tolist())
    with pytest.raises(ValueError, match="frame must be"):
        wifitcp.run(DOC, jobs=1, frame="excel")


def test_sweep_and_seeds_arguments(fake_core, tmp_path):
    df = wifitcp.sweep(DOC, {"wlan.stations": "1..3", "mac.cw_min": [15, 31]}, seeds="4..5",
                       jobs=1)
    assert len(df) == 3 * 2 * 2
    assert sorted(set(df["mac.cw_min"])) == [15, 31] and sorted(set(df["seed"])) == [4, 5]
    df = wifitcp.sweep(DOC, seeds=range(3), jobs=1)
    assert list(df["seed"]) == [0, 1, 2, 0, 1, 2]
    with pytest.raises(InputError, match="seeds"):
        wifitcp.sweep(DOC, seeds="3..1", jobs=1)


def test_resume_returns_stored_runs(fake_core, tmp_path):
    db = tmp_path / "r.duckdb"
    first = wifitcp.run(DOC, out=db, jobs=1, seeds=[1])
    calls = fake_core.calls
    both = wifitcp.run(DOC, out=db, jobs=1)  # seeds 1, 2: only seed 2 runs now
    assert fake_core.calls - calls == 2
    again = both[both["seed"] == 1].reset_index(drop=True)
    pd.testing.assert_frame_equal(
        again.drop(columns=["run_index", "wall_time_s"]),
        first.drop(columns=["run_index", "wall_time_s"]), check_dtype=False)
    assert len(both) == 4 and both["run_id"].is_unique
    calls = fake_core.calls
    wifitcp.run(DOC, out=db, jobs=1)
    assert fake_core.calls == calls  # nothing left to run
    wifitcp.run(DOC, out=db, jobs=1, rerun=True)
    assert fake_core.calls == calls + 4
    with wifitcp.Store(db, read_only=True) as st:
        assert st.query("SELECT count(*) AS n, count(DISTINCT run_key) AS k FROM runs") == [
            {"n": 4, "k": 4}]


def test_store_frame(fake_core, tmp_path):
    db = tmp_path / "f.duckdb"
    wifitcp.run(DOC, out=db, jobs=1)
    with wifitcp.Store(db, read_only=True) as st:
        flows = st.frame("SELECT * FROM flows ORDER BY run_id, flow_index")
        assert isinstance(flows, pd.DataFrame) and len(flows) == 2 * (1 + 2)
        assert st.frame("SELECT * FROM runs", kind="polars").height == 4


@pytest.mark.parametrize("jobs,reason", [(0, "jobs: must be >= 1, got 0"), (-2, "jobs: must be >= 1"),
                                         ("2", "jobs: expected a whole number >= 1"),
                                         (True, "jobs: expected a whole number >= 1")])
def test_bad_jobs_are_input_errors(fake_core, jobs, reason):
    with pytest.raises(InputError, match=reason):
        wifitcp.run(DOC, jobs=jobs)


@pytest.mark.parametrize("sweep", [[1, 2], "wlan.stations=1..3", 5])
def test_a_sweep_that_is_not_a_mapping_is_an_input_error(fake_core, sweep):
    with pytest.raises(InputError, match="sweep: expected a mapping of dotted keys"):
        wifitcp.run(DOC, jobs=1, sweep=sweep)


def test_store_paths_that_cannot_be_stores_are_input_errors(fake_core, tmp_path):
    (tmp_path / "file").write_text("x")
    with pytest.raises(InputError, match="is a directory, not a DuckDB store file"):
        wifitcp.run(DOC, jobs=1, out=tmp_path)
    with pytest.raises(InputError, match="a part of the path is a file, not a folder"):
        wifitcp.run(DOC, jobs=1, out=tmp_path / "file" / "x.duckdb")
    with pytest.raises(InputError, match="cannot create its folder"):
        wifitcp.run(DOC, jobs=1, out="/proc/wifitcp-no-such/x.duckdb")
    with pytest.raises(InputError, match="is a directory"):
        wifitcp.Store(tmp_path)
    with pytest.raises(InputError, match="not a valid DuckDB database file"):
        wifitcp.Store(tmp_path / "file")
    with pytest.raises(InputError, match="no such store"):
        wifitcp.Store(tmp_path / "none.duckdb", read_only=True)
    # a missing folder is created
    assert len(wifitcp.run(DOC, jobs=1, out=tmp_path / "new" / "dir" / "a.duckdb")) == 4


def test_a_closed_store_is_an_input_error(tmp_path):
    st = wifitcp.Store(tmp_path / "a.duckdb")
    st.close()
    st.close()  # again: nothing
    with pytest.raises(InputError, match="the store is closed"):
        st.query("SELECT 1")
    with pytest.raises(InputError, match="the store is closed"):
        st.runs()


def test_record_json_is_the_compact_record(fake_core):
    """`record_json` appends the record's keys to the result's text; it must
    be what writing the whole record writes, also when a key the record
    sets holds another value in the result (then the record is written)."""
    import json

    from wifitcp import api, runner, scenario as scn_mod

    scn = scn_mod.from_dict(DOC)
    outs = list(runner.run_all(scn_mod.check_all(scn), jobs=1))
    assert outs and all(o.ok for o in outs)
    for i, o in enumerate(outs):
        text = api.record_json(o, "v-test", run_id=i or None)
        assert text == json.dumps(api.record(o, "v-test", i or None), separators=(",", ":"))
        assert text.startswith(o.result_json[:-1])  # the spliced path was taken
    o = outs[0]
    o.result = dict(o.result, seed=12345)  # the record's seed differs from the result's
    assert api.record_json(o, "v") == json.dumps(api.record(o, "v"), separators=(",", ":"))
    assert json.loads(api.record_json(o, "v"))["seed"] == o.spec.seed


def test_record_json_written_in_pieces_is_the_record(fake_core, monkeypatch):
    """`write_record_json` writes `record_json`'s text and a newline, on the
    spliced path and on the whole-record one, also across the pieces it
    writes a mebibyte at a time (a result text of 2.5 MiB here)."""
    import io

    from wifitcp import api, runner, scenario as scn_mod

    scn = scn_mod.from_dict(DOC)
    o = next(iter(runner.run_all(scn_mod.check_all(scn), jobs=1)))
    big = o.result_json[:-1] + ',"pad":"' + "x" * (5 << 19) + '"}'
    monkeypatch.setattr(o, "result_json", big)
    for out in (o,):
        buf = io.StringIO()
        api.write_record_json(out, "v", 3, buf)
        assert buf.getvalue() == api.record_json(out, "v", 3) + "\n"
        assert buf.getvalue().startswith(big[:-1])
    o.result = dict(o.result, seed=12345)  # the whole-record path
    buf = io.StringIO()
    api.write_record_json(o, "v", None, buf)
    assert buf.getvalue() == api.record_json(o, "v") + "\n"


def test_record_json_of_core_results_needs_no_parse(real_core):
    """A run in this process keeps the core's result text unparsed: its
    canonical text, version and record are found from the text alone, and
    are what parsing it gives (TCP, UDP, ping, HCF and PCF results), also
    when the scenario's name is not the run's (then the record is written
    whole)."""
    import json
    from pathlib import Path

    from wifitcp import api, runner, scenario as scn_mod

    root = Path(__file__).resolve().parents[2] / "scenarios"
    files = ["keceli-fairness.toml", "download.toml", "hcf-polled-txops.toml",
             "multipoll-one-active.toml", "rrul.toml"]
    seen = 0
    for f in files:
        scn = scn_mod.load(root / f, sets=[("scenario.duration_s", 1.0), ("scenario.warmup_s", 0.0)])
        for o in runner.run_all(scn_mod.check_all(scn)[:2], jobs=1):
            assert o.ok, o.error
            assert o._result is runner._UNPARSED  # nothing has parsed it
            head = o.head()
            text = api.record_json(o, o.result_version, run_id=7)
            assert o._result is runner._UNPARSED
            parsed = json.loads(o.result_json)
            assert o.result_json == json.dumps(parsed, separators=(",", ":"))
            assert "wall_time_s" not in parsed and parsed["version"] == o.result_version
            assert head == {k: parsed[k] for k in runner.RECORD_KEYS if k in parsed}
            assert text == json.dumps(api.record(o, o.result_version, 7), separators=(",", ":"))
            seen += 1
    assert seen >= 6
    # a run whose result names another scenario: the record says the run's
    o.spec.scenario = "renamed"
    rec = json.loads(api.record_json(o, o.result_version))
    assert rec["scenario"] == "renamed" and list(rec).count("scenario") == 1

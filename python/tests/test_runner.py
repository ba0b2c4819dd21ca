"""The worker body: store rows and version, lazily parsed outcomes."""

import json

import pytest

from wifitcp import campaign, runner, scenario as S
from wifitcp.store import Store, result_rows


def test_execute_returns_the_store_rows_and_version(fake_core, monkeypatch):
    real_run = fake_core.run
    monkeypatch.setattr(fake_core, "run", staticmethod(
        lambda t, s: json.dumps({**json.loads(real_run(t, s)), "version": "9.9",
                                 "wall_time_s": 0.25})))
    cfg = {"scenario": {"name": "x"}, "wlan": {"stations": 3}, "traffic": [{"name": "sat"}]}
    text, wall, err, rows, version = runner._execute(json.dumps(cfg), 4)
    assert err is None and wall >= 0 and version == "9.9"
    result = json.loads(text)
    assert "wall_time_s" not in result
    assert rows == result_rows(result)
    assert len(rows[1]) == 3 and len(rows[2]) == 3

    monkeypatch.setattr(fake_core, "run", staticmethod(lambda t, s: "[1, 2]"))
    text, _, err, rows, version = runner._execute(json.dumps(cfg), 4)
    assert (text, err, rows, version) == ("[1,2]", None, None, None)
    monkeypatch.setattr(fake_core, "run", staticmethod(lambda t, s: "{nope"))
    text, _, err, rows, version = runner._execute(json.dumps(cfg), 4)
    assert err.startswith("core returned invalid JSON") and rows is None


def test_outcome_result_is_parsed_when_asked(fake_core):
    spec = S.RunSpec(0, "x", {}, 1, {})
    o = runner._outcome(spec, {}, '{"a":1,"version":"v"}', 0.1, None, ([], [], []), "v")
    assert o.ok and o._result is runner._UNPARSED and o.result_version == "v"
    assert o._result is runner._UNPARSED  # known without parsing
    assert o.result == {"a": 1, "version": "v"}
    o = runner._outcome(spec, {}, '{"a":1,"version":"w"}', 0.1, None)  # an older worker
    assert o.rows is None and o.result_version == "w"
    o = runner._outcome(spec, {}, "", 0.1, "boom")
    assert not o.ok and o.result is None and o.rows is None


def test_worker_with_another_core_version_is_a_failure(fake_core, monkeypatch, tmp_path):
    real_run = fake_core.run
    monkeypatch.setattr(fake_core, "run", staticmethod(
        lambda t, s: json.dumps({**json.loads(real_run(t, s)), "version": "9.9"})))
    scn = S.from_dict({"scenario": {"name": "v", "seeds": [1, 2]}, "wlan": {"stations": 1},
                       "traffic": [{"name": "sat"}]})
    with Store(tmp_path / "v.duckdb") as st:
        res = campaign.execute(scn, jobs=1, store=st)
        assert len(res.failed) == 2
        assert "the worker's core is version 9.9, this one 0.0.0-fake" in res.failed[0].error
        assert res.failed[0].result is None
        assert st.query("SELECT count(*) AS n FROM runs")[0]["n"] == 0
        assert len(st.failures()) == 2

"""The Python API: wifitcp.run on a path or a dict."""

import pytest

import wifitcp
from wifitcp.errors import InputError, RunError

DOC = {"scenario": {"name": "api", "seeds": [1, 2]}, "wlan": {"stations": 2},
       "traffic": [{"name": "sat"}], "sweep": {"wlan.stations": [1, 2]}}


def test_run_dict(fake_core, tmp_path):
    res = wifitcp.run(DOC, out=tmp_path / "a.duckdb")
    assert [(r["params"]["wlan.stations"], r["seed"]) for r in res] == [
        (1, 1), (1, 2), (2, 1), (2, 2)]
    assert all(r["run_id"] is not None for r in res)
    assert res[3]["flows"][1]["name"] == "sat/sta1"
    with wifitcp.Store(tmp_path / "a.duckdb", read_only=True) as st:
        assert len(st.runs("api")) == 4


def test_run_with_overrides(fake_core):
    res = wifitcp.run(DOC, seed=9, set=["sweep.wlan.stations=[4]"])
    assert len(res) == 1 and res[0]["seed"] == 9 and len(res[0]["flows"]) == 4
    assert res[0]["run_id"] is None


def test_run_errors(fake_core, monkeypatch):
    with pytest.raises(InputError, match="mac.x: unknown key"):
        wifitcp.run({**DOC, "mac": {"x": 1}})
    monkeypatch.setattr(fake_core, "run", lambda t, s: (_ for _ in ()).throw(RuntimeError("x")))
    with pytest.raises(RunError):
        wifitcp.run(DOC)


def test_input_error_format():
    assert str(InputError("f.toml", "a.b", "bad")) == "f.toml: a.b: bad"
    assert str(InputError("f.toml", "", "bad")) == "f.toml: bad"

"""DuckDB store: round trip, unknown keys kept, one transaction per run."""

import json

import duckdb
import pytest

from fakecore import FakeCore
from wifitcp.store import Store


def result(seed=1, n=2):
    cfg = {"scenario": {"name": "rt"}, "wlan": {"stations": n}, "traffic": [{"name": "sat"}]}
    return json.loads(FakeCore.run(json.dumps(cfg), seed)), cfg


def add(st, seed=1, n=2, scenario="rt"):
    res, cfg = result(seed, n)
    return st.add_run(scenario=scenario, scenario_hash=f"{scenario}-h{n}",
                      params={"wlan.stations": n},
                      seed=seed, version="v", wall_time_s=0.5, config=cfg, result=res)


def test_round_trip(tmp_path):
    path = tmp_path / "sub" / "r.duckdb"
    with Store(path) as st:
        rid = add(st)
        rid2 = add(st, seed=2, n=3)
    assert rid2 > rid
    res, cfg = result()
    with Store(path, read_only=True) as st:
        runs = st.runs()
        assert [r["run_id"] for r in runs] == [rid, rid2]
        r = runs[0]
        assert r["scenario"] == "rt" and r["seed"] == 1 and r["version"] == "v"
        assert r["params"] == {"wlan.stations": 2}
        assert r["config_json"] == cfg
        assert r["result_json"] == res  # whole JSON kept, unknown keys included
        assert r["result_json"]["new_top_level"] == {"x": 1}
        assert r["aggregate_mbps"] == pytest.approx(res["aggregate_mbps"])
        assert r["events"] == res["events"]
        assert r["ledger_in_flight"] == 1
        assert r["created_at"] is not None
        flows = st.query("SELECT * FROM flows WHERE run_id = ? ORDER BY flow_index", [rid])
        assert [f["name"] for f in flows] == ["sat/sta0", "sat/sta1"]
        assert flows[0]["goodput_mbps"] == pytest.approx(res["flows"][0]["goodput_mbps"])
        assert json.loads(flows[0]["extra"]) == {"future_metric": [1, 2]}
        stas = st.query("SELECT * FROM stations WHERE run_id = ? ORDER BY station_index", [rid2])
        assert len(stas) == 3
        assert stas[0]["drops_retry_limit"] == 1 and stas[0]["drops_queue_full"] == 2
        assert json.loads(stas[0]["drops"])["other"] == 3
        assert json.loads(stas[0]["extra"]) == {"airtime_ns": 5}
        # JSON columns are queryable
        n = st.query("SELECT params->>'$.\"wlan.stations\"' AS n FROM runs ORDER BY run_id")
        assert [x["n"] for x in n] == ["2", "3"]


def test_missing_and_odd_fields_become_null(tmp_path):
    with Store(tmp_path / "r.duckdb") as st:
        rid = st.add_run(scenario="s", scenario_hash="h", params={}, seed=0, version="v",
                         wall_time_s=0.0, config={}, result={"flows": [{"goodput_mbps": "x"}],
                                                             "stations": "nope"})
        row = st.runs()[0]
        assert row["aggregate_mbps"] is None and row["events"] is None
        f = st.query("SELECT * FROM flows WHERE run_id = ?", [rid])
        assert len(f) == 1 and f[0]["goodput_mbps"] is None
        assert st.query("SELECT count(*) AS c FROM stations")[0]["c"] == 0


def test_failed_insert_rolls_back_the_whole_run(tmp_path, monkeypatch):
    with Store(tmp_path / "r.duckdb") as st:
        add(st)
        res, cfg = result()
        res["stations"][0]["attempts"] = 2**70  # out of UBIGINT range -> insert fails
        with pytest.raises(Exception):
            st.add_run(scenario="rt", scenario_hash="h", params={}, seed=9, version="v",
                       wall_time_s=0.0, config=cfg, result=res)
        assert st.query("SELECT count(*) AS c FROM runs")[0]["c"] == 1
        assert st.query("SELECT count(*) AS c FROM flows")[0]["c"] == 2
        assert st.query("SELECT count(*) AS c FROM stations")[0]["c"] == 2


def test_delete_scenario(tmp_path):
    with Store(tmp_path / "r.duckdb") as st:
        add(st, scenario="a")
        add(st, scenario="b")
        assert st.delete_scenario("a") == 1
        assert [r["scenario"] for r in st.runs()] == ["b"]
        assert st.query("SELECT count(*) AS c FROM flows")[0]["c"] == 2


def test_export_parquet(tmp_path):
    with Store(tmp_path / "r.duckdb") as st:
        add(st)
        paths = st.export_parquet(tmp_path / "pq")
    assert sorted(p.rsplit("/", 1)[1] for p in paths) == [
        "failures.parquet", "flows.parquet", "runs.parquet", "stations.parquet"]
    con = duckdb.connect()
    n = con.execute(f"SELECT count(*) FROM read_parquet('{tmp_path}/pq/flows.parquet')")
    assert n.fetchone()[0] == 2

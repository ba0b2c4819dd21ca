"""DuckDB store: round trip, unknown keys kept, one transaction per run."""

import json
import random

import duckdb
import pytest

from fakecore import FakeCore
from wifitcp.store import Store, result_rows, result_rows_of_text


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


ODD = [
    {"flows": [{"goodput_mbps": "x", "name": 3, "kind": None, "packets_generated": -1,
                "mean_delay_ms": True, "bytes_delivered": 2**63 + 5, "note": "caf\u00e9"}],
     "stations": "nope", "events": 7.0, "duration_s": 1, "ledger": {"dropped": None}},
    {"flows": [{}, "x", {"msdu_mbps": 1e300, "extra_list": [1, {"a": None}]}],
     "stations": [{"drops": {"retry_limit": 2.5, "queue_full": -3}, "attempts": 2**64 - 1},
                  {"drops": "x", "collision_probability": 1}], "ledger": "nope"},
    {},
]


def all_rows(path):
    con = duckdb.connect(str(path), read_only=True)
    out = {}
    for t in ("runs", "flows", "stations"):
        out[t] = con.execute(f"SELECT * EXCLUDE (created_at) FROM {t} ORDER BY ALL"
                             if t == "runs" else f"SELECT * FROM {t} ORDER BY ALL").fetchall()
    con.close()
    return out


def test_appenders_and_inserts_store_the_same(tmp_path, monkeypatch):
    """Rows go through DuckDB appenders when duckdb-python has them; the
    INSERT statements (older duckdb) must store exactly the same."""
    results = [result(s, n)[0] for s, n in ((1, 1), (2, 4), (3, 9))] + ODD
    for name, appenders in (("a", True), ("i", False)):
        monkeypatch.setattr(Store, "use_appenders", appenders)
        with Store(tmp_path / f"{name}.duckdb") as st:
            for i, res in enumerate(results):
                kw = dict(scenario="s", scenario_hash="h", params={"i": i}, seed=i,
                          version="v", wall_time_s=0.5, config={"c": i})
                if i % 2:  # precomputed rows, as a campaign passes them
                    st.add_run(**kw, rows=result_rows(res), result_json=json.dumps(res))
                else:
                    st.add_run(**kw, result=res)
            st.add_run(**kw, result=results[0])  # same key again: replaces the row
            assert (st._appenders is not None) is (appenders and hasattr(st.con, "appender"))
    a, i = all_rows(tmp_path / "a.duckdb"), all_rows(tmp_path / "i.duckdb")
    # the last result (no flows) was replaced by the first (one flow)
    assert len(a["runs"]) == len(results) and len(a["flows"]) == 1 + 4 + 9 + 1 + 3 + 1
    assert a == i


def test_store_keeps_working_after_a_failed_run(tmp_path):
    with Store(tmp_path / "r.duckdb") as st:
        res, cfg = result()
        bad = json.loads(json.dumps(res))
        bad["flows"][1]["bytes_delivered"] = 2**70
        for seed in (3, 4):
            with pytest.raises(Exception):
                st.add_run(scenario="rt", scenario_hash="h", params={}, seed=9, version="v",
                           wall_time_s=0.0, config=cfg, result=bad)
            add(st, seed=seed)
        assert [r["seed"] for r in st.runs()] == [3, 4]
        assert st.query("SELECT count(*) AS c FROM flows")[0]["c"] == 4
        assert st.query("SELECT count(*) AS c FROM stations")[0]["c"] == 4


def test_one_thread_restores_the_setting(tmp_path):
    with Store(tmp_path / "r.duckdb") as st:
        setting = "SELECT current_setting('threads') AS n"
        before = st.query(setting)[0]["n"]
        with st.one_thread():
            assert st.query(setting)[0]["n"] == 1
            add(st)
        assert st.query(setting)[0]["n"] == before


ROW_TEXTS = [
    "{}", " { } ", "[]", "3", '{"flows":[]}', '{"flows":{"a":1}}', '{"stations":null}',
    '{"flows":[1,{"name":"x","jitter_ms":1.5}], "stations":[{"name":"s","attempts":3,'
    '"drops":{"retry_limit":2},"z":[1,2]}],"events":5,"ledger":{"generated":3,"dropped":{"a":1}}}',
    '{"flows":[{"name":"a"}],"flows":[]}',                      # a key twice: the last one
    '{"stations" : [ {"name":"a"} , {"name":"b"} ] , "duration_s" : 1.0 }\n',
    '{"x":NaN,"flows":[{"goodput_mbps":Infinity,"packets_generated":-1}]}',
    '{"\\u0066lows":[{"name":"\\u00e9"}]}', '{"flows":[{"name":"a\\"b"}]}',
]
BAD_TEXTS = ["", " ", '{"a":1,}', '{"a":1} x', '{"flows":[1,]}', '{"flows":[1 2]}', '{"flows":[',
             '{"a"', '{"a":', "{nope"]


def _random_results(n: int, seed: int = 5) -> list:
    """JSON texts of objects with odd flows, stations and run members."""
    rng = random.Random(seed)

    def value(depth):
        c = rng.random()
        if depth > 2 or c < 0.3:
            return rng.choice([1, -2, 2.5, True, None, "s", 1e300])
        if c < 0.6:
            return [value(depth + 1) for _ in range(rng.randint(0, 3))]
        keys = ["name", "attempts", "drops", "retry_limit", "x", "goodput_mbps", "kind"]
        return {rng.choice(keys): value(depth + 1) for _ in range(rng.randint(0, 4))}

    keys = ["flows", "stations", "events", "ledger", "duration_s", "q"]
    out = []
    for _ in range(n):
        doc = {rng.choice(keys): value(0) if rng.random() < 0.3
               else [value(1) for _ in range(rng.randint(0, 3))] for _ in range(rng.randint(0, 5))}
        out.append(json.dumps(doc, separators=(",", ":") if rng.random() < 0.5 else None))
    return out


def test_rows_of_text_are_the_rows_of_the_parsed_result():
    for text in ROW_TEXTS + _random_results(400):
        parsed = json.loads(text)
        want = repr(result_rows(parsed if isinstance(parsed, dict) else {}))
        assert repr(result_rows_of_text(text, whole_below=0)) == want, text
        assert repr(result_rows_of_text(text)) == want, text


@pytest.mark.parametrize("text", BAD_TEXTS)
def test_rows_of_bad_text_raise_what_parsing_raises(text):
    with pytest.raises(json.JSONDecodeError):
        json.loads(text)
    with pytest.raises(json.JSONDecodeError):
        result_rows_of_text(text, whole_below=0)

"""Tidy results: wifitcp.load(store) and `wifitcp export` give long-format
tables with typed columns (no JSON), as pandas, polars and Parquet."""

import json

import pytest

import wifitcp
from conftest import requires_core
from test_cli import GOOD
from wifitcp.cli import main

SWEPT = GOOD.replace('"wlan.stations" = [1, 3]',
                     '"wlan.stations" = [1, 3]\n"phy.standard" = ["802.11a", "802.11b"]')


@pytest.fixture
def store(fake_core, write, tmp_path, capsys):
    f = write("s.toml", SWEPT)
    db = str(tmp_path / "t.duckdb")
    assert main(["run", f, "--out", db, "--jobs", "1", "--quiet"]) == 0
    capsys.readouterr()
    return db


def test_runs_have_typed_parameter_columns(store):
    pl = pytest.importorskip("polars")
    res = wifitcp.load(store, frame="polars")
    assert isinstance(res, wifitcp.Results)
    runs = res.runs
    assert runs.height == 8  # 2 x 2 configurations x 2 seeds
    assert runs.schema["wlan.stations"] == pl.Int64
    assert runs.schema["phy.standard"] == pl.String
    assert runs.schema["seed"] == pl.Int64 and runs.schema["aggregate_mbps"] == pl.Float64
    assert sorted(set(runs["wlan.stations"].to_list())) == [1, 3]
    # nested results flattened, counts by reason default to 0
    assert runs.schema["ledger_dropped_queue_full"] == pl.Int64
    assert runs.schema["new_top_level_x"] == pl.Int64
    assert "params" not in runs.columns and "result_json" not in runs.columns
    # group by a parameter straight away
    means = runs.group_by("wlan.stations").agg(pl.col("aggregate_mbps").mean())
    assert means.height == 2


def test_flows_one_row_per_flow_per_run(store):
    pd = pytest.importorskip("pandas")
    res = wifitcp.load(store)          # pandas by default
    flows = res.flows
    assert len(flows) == 2 * 2 * (1 + 3)
    assert list(flows.columns[:9]) == ["run_id", "scenario", "seed", "wlan.stations",
                                       "phy.standard", "flow_index", "name", "kind", "src"]
    assert str(flows["wlan.stations"].dtype) == "Int64"
    assert str(flows["name"].dtype) == "string"
    assert flows["goodput_mbps"].dtype == "float64"
    one = flows[(flows["wlan.stations"] == 3) & (flows["seed"] == 1)
                & (flows["phy.standard"] == "802.11a")]
    assert sorted(one["name"]) == ["sat/sta0", "sat/sta1", "sat/sta2"]
    # flows agree with the runs they belong to
    runs = res.runs.set_index("run_id")
    total = flows.groupby("run_id")["goodput_mbps"].sum()
    for rid, g in total.items():
        assert g == pytest.approx(runs.loc[rid, "aggregate_mbps"])
    st = res.stations
    assert str(st["drops_retry_limit"].dtype) == "Int64" and st["drops_other"].min() == 3
    assert isinstance(res.arrow("runs").schema, object)
    with pytest.raises(KeyError):
        res.frame("nope")
    assert pd is not None


def test_no_object_or_binary_columns_anywhere(store, tmp_path, capsys):
    pl = pytest.importorskip("polars")
    pq = pytest.importorskip("pyarrow.parquet")
    out = tmp_path / "pq"
    assert main(["export", store, "--parquet", str(out), "--csv", str(tmp_path / "csv")]) == 0
    paths = capsys.readouterr().out.split()
    assert len(paths) == 2 * len(wifitcp.tidy.TABLES)
    for name in wifitcp.tidy.TABLES:
        df = pl.read_parquet(out / f"{name}.parquet")
        assert pl.Binary not in df.schema.values(), name
        assert all(t != pl.Object for t in df.schema.values())
        assert (tmp_path / "csv" / f"{name}.csv").is_file()
    runs = pl.read_parquet(out / "runs.parquet")
    assert runs.schema["wlan.stations"] == pl.Int64 and runs.height == 8
    assert pq.read_schema(out / "flows.parquet").field("goodput_mbps").type == "double"
    pdf = wifitcp.load(store).runs
    assert not any(str(t) == "object" for t in pdf.dtypes)


def test_raw_export_keeps_the_store_tables(store, tmp_path, capsys):
    assert main(["export", store, "--parquet", str(tmp_path / "raw"), "--raw"]) == 0
    assert (tmp_path / "raw" / "runs.parquet").is_file()
    assert not (tmp_path / "raw" / "series.parquet").exists()
    pl = pytest.importorskip("polars")
    raw = pl.read_parquet(tmp_path / "raw" / "runs.parquet")
    assert raw.schema["params"] == pl.String and raw.schema["result_json"] == pl.String
    assert json.loads(raw["params"][0]) in ({"wlan.stations": 1, "phy.standard": "802.11a"},
                                           {"wlan.stations": 1, "phy.standard": "802.11b"},
                                           {"wlan.stations": 3, "phy.standard": "802.11a"},
                                           {"wlan.stations": 3, "phy.standard": "802.11b"})
    assert main(["export", store]) == 2
    assert "--parquet" in capsys.readouterr().err


def test_scenario_filter_and_load_still_loads_scenarios(store, write):
    res = wifitcp.load(store, scenario="nothing-here", frame="polars")
    assert res.runs.height == 0 and res.flows.height == 0
    scn = wifitcp.load(write("s.toml", GOOD))
    assert isinstance(scn, wifitcp.Scenario) and scn.name == "cli-test"


def test_mixed_parameter_values_become_json_text(fake_core, tmp_path):
    pl = pytest.importorskip("polars")
    from wifitcp.store import Store

    db = tmp_path / "m.duckdb"
    with Store(db) as st:
        for i, v in enumerate([1, 2.5, [1, 2]]):
            st.add_run(scenario="m", scenario_hash="h", params={"p": v, "q": i}, seed=i,
                       version="v", wall_time_s=0.1, config={}, result={"x": i})
    runs = wifitcp.load(str(db), frame="polars").runs
    assert runs.schema["q"] == pl.Int64 and runs.schema["x"] == pl.Int64
    assert runs.schema["p"] == pl.String
    assert [json.loads(v) for v in runs["p"]] == [1, 2.5, [1, 2]]


# -- with the real core: series, queues, TCP --------------------------------

TCP = """
[scenario]
name = "tidy-tcp"
duration_s = 1.0
sample_interval_s = 0.25
seeds = [1]

[phy]
standard = "802.11a"
data_rate_mbps = 54.0

[wlan]
stations = 2

[tcp]
trace_cwnd = true

[[nodes]]
name = "server"

[[links]]
a = "ap"
b = "server"
rate_mbps = 100.0
delay_ms = 15.0

[[traffic]]
name = "up"
kind = "tcp"
direction = "uplink"
stations = "all"
peer = "server"
"""


@requires_core
def test_real_runs_series_queues_and_unbounded_ssthresh(write, tmp_path, capsys):
    pl = pytest.importorskip("polars")
    f = write("tcp.toml", TCP)
    db = str(tmp_path / "tcp.duckdb")
    assert main(["run", f, "--out", db, "--jobs", "1", "--quiet"]) == 0
    res = wifitcp.load(db, frame="polars")
    flows = res.flows
    assert flows["name"].to_list() == ["up/sta0", "up/sta1"]
    # RFC 5681's "arbitrarily high" initial ssthresh is null, not 2^62 - 1
    raw = json.loads(wifitcp.Store(db, read_only=True).query(
        "SELECT result_json FROM runs")[0]["result_json"])
    ss = [fl["tcp"]["ssthresh_bytes"] for fl in raw["flows"]]
    assert all(v is None or v < 2**40 for v in ss), ss
    assert flows.schema["tcp_ssthresh_bytes"] == pl.Int64
    assert flows.schema["tcp_srtt_ms"] == pl.Float64
    cwnd = res.cwnd
    assert cwnd.height > 10 and cwnd.schema["ssthresh_bytes"] == pl.Int64
    assert cwnd["ssthresh_bytes"].max() is None or cwnd["ssthresh_bytes"].max() < 2**40
    assert cwnd["ssthresh_bytes"].null_count() > 0   # slow start before any loss
    series = res.series
    assert set(series["flow"].to_list()) == {"up/sta0", "up/sta1"}
    assert series.schema["t_s"] == pl.Float64 and series.schema["mbps"] == pl.Float64
    assert series.filter(pl.col("flow") == "up/sta0").height == 4  # 1 s / 0.25 s
    qs = res.queue_series
    assert qs.height > 0 and qs.schema["packets"] == pl.Int64
    assert res.queues["node"].to_list()[0] == "ap"
    assert res.links.height == 2
    # per-flow delay percentiles, jitter and loss over the counted window
    for c in ("delay_p50_ms", "delay_p90_ms", "delay_p99_ms", "delay_p999_ms", "jitter_ms",
              "loss_ratio", "delay_relative_error"):
        assert flows.schema[c] == pl.Float64, c
    for c in ("window_generated_packets", "window_delivered_packets"):
        assert flows.schema[c] == pl.Int64, c
    row = flows.row(0, named=True)
    assert row["delay_p50_ms"] <= row["delay_p99_ms"] <= row["max_delay_ms"] * 1.01
    assert row["delay_p50_ms"] > 15.0                # the wired link's delay
    assert 0.0 <= row["loss_ratio"] < 0.5
    hist = res.delay_histogram
    assert hist.columns[:6] == ["run_id", "flow_index", "flow", "lower_ms", "upper_ms", "count"]
    assert hist.schema["lower_ms"] == pl.Float64 and hist.schema["count"] == pl.Int64
    per_flow = hist.group_by("flow").agg(pl.col("count").sum()).sort("flow")
    assert per_flow["count"].to_list() == flows.sort("name")["packets_delivered"].to_list()

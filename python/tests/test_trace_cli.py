"""`wifitcp run --trace DIR`: the per-packet trace as Parquet; it agrees
with the run's own counters and leaves the results unchanged."""

import json

import duckdb

from conftest import requires_core
from test_pcap_cli import SCN
from wifitcp.cli import main


@requires_core
def test_trace_agrees_with_the_ledger_and_changes_nothing(tmp_path, capsys):
    scn = tmp_path / "s.toml"
    # a small AP queue: some drops to trace
    scn.write_text(SCN.replace('name = "pcap-cli"', 'name = "trace-cli"') + "\n[ap]\nqueue_packets = 3\n")
    assert main(["run", str(scn), "--no-store", "--json", "--seed", "1"]) == 0
    plain = json.loads(capsys.readouterr().out.splitlines()[0])
    out = tmp_path / "tr"
    assert main(["run", str(scn), "--no-store", "--json", "--seed", "1", "--trace", str(out)]) == 0
    traced = json.loads(capsys.readouterr().out.splitlines()[0])
    strip = lambda r: {k: v for k, v in r.items() if k not in ("wall_time_s", "run_id")}
    assert strip(traced) == strip(plain)
    f = out / "trace-cli" / "run0-seed1" / "packets.parquet"
    assert f.is_file() and not (f.parent / "packets.csv").exists()
    con = duckdb.connect()
    q = lambda sql: con.execute(sql.replace("T", f"'{f}'")).fetchall()
    # every drop of the ledger is a drop row, by reason
    drops = dict(q("select reason, count(*) from T where event = 'drop' group by reason"))
    ledger = {k: v for k, v in plain["ledger"]["dropped"].items() if v}
    assert drops == ledger and drops
    # every packet the run generated appears; each data packet is enqueued
    # at its source before it is transmitted
    n = q("select count(distinct packet) from T")[0][0]
    assert n == plain["ledger"]["generated"]
    bad = q("select packet from T group by packet having min(case when event = 'transmit' "
            "then time_s end) < min(case when event = 'enqueue' then time_s end)")
    assert bad == []
    # the station's data segments are received at the server as often as the
    # flow counts deliveries (none of its packets is delivered twice)
    got = q("select count(*) from T where node = 'server' and event = 'receive' and size > 52")[0][0]
    assert got >= plain["flows"][0]["packets_delivered"]


@requires_core
def test_unwritable_trace_directory_is_one_line_and_exit_2(tmp_path, capsys):
    scn = tmp_path / "s.toml"
    scn.write_text(SCN)
    blocker = tmp_path / "file"
    blocker.write_text("x")
    rc = main(["run", str(scn), "--no-store", "--trace", str(blocker / "sub")])
    err = capsys.readouterr().err.strip().splitlines()
    assert rc == 2 and len(err) == 1 and "--trace: cannot write there" in err[0], err


@requires_core
def test_trace_parquet_is_read_alike_by_duckdb_and_pyarrow(tmp_path, capsys):
    """The core's own Parquet writer (crates/sim/src/parquet.rs): the
    documented column types; two independent readers see the same rows,
    values and nulls across several row groups; the same run writes the
    same bytes."""
    import pyarrow.compute as pc
    import pyarrow.parquet as pq

    from conftest import REPO

    scn = str(REPO / "scenarios" / "bench-r1.toml")
    files = []
    for k in range(2):
        out = tmp_path / f"tr{k}"
        assert main(["run", scn, "--no-store", "--quiet", "--set", "scenario.duration_s=21",
                     "--trace", str(out)]) == 0
        files.append(out / "bench-r1" / "run0-seed1" / "packets.parquet")
    assert files[0].read_bytes() == files[1].read_bytes()
    f = str(files[0])
    con = duckdb.connect()
    types = [(r[0], r[1]) for r in con.execute(f"DESCRIBE SELECT * FROM '{f}'").fetchall()]
    assert types == [("time_s", "DOUBLE"), ("node", "VARCHAR"), ("iface", "VARCHAR"),
                     ("event", "VARCHAR"), ("packet", "UBIGINT"), ("flow", "INTEGER"),
                     ("size", "INTEGER"), ("reason", "VARCHAR"), ("flow_name", "VARCHAR"),
                     ("tcp_seq", "BIGINT"), ("tcp_ack", "BIGINT"), ("tcp_flags", "INTEGER")]
    meta = pq.ParquetFile(f).metadata
    assert meta.num_row_groups >= 2  # more rows than one row group holds
    t = pq.read_table(f)
    d = con.execute(f"SELECT count(*), count(flow), count(size), count(reason), sum(packet), "
                    f"sum(time_s), count(DISTINCT node), min(event), max(iface) FROM '{f}'").fetchone()
    assert d[0] == t.num_rows == meta.num_rows > 262_144
    assert d[1:4] == tuple(t.num_rows - t.column(c).null_count for c in ("flow", "size", "reason"))
    assert d[4] == pc.sum(t.column("packet")).as_py()
    assert abs(d[5] - pc.sum(t.column("time_s")).as_py()) < 1e-6 * d[5]
    assert d[6] == len(pc.unique(t.column("node")))
    assert d[7] == pc.min_max(t.column("event"))["min"].as_py()
    assert d[8] == pc.min_max(t.column("iface"))["max"].as_py()
    # the rows in event order
    assert con.execute(f"SELECT count(*) FROM (SELECT time_s < lag(time_s) OVER () AS back "
                       f"FROM '{f}') WHERE back").fetchone()[0] == 0


@requires_core
def test_retry_limit_drops_carry_their_flow_and_tcp_columns(tmp_path, capsys):
    """A MAC discard reports only the packet id; its row takes the flow,
    size and TCP header of the packet's hand-over to the MAC, so per-flow
    loss can be read from the trace. TCP rows carry the sequence and
    acknowledgement numbers and flags, and every row the flow's name."""
    scn = tmp_path / "s.toml"
    # one MAC attempt and 30 % frame loss on the station's data frames:
    # retry-limit drops of the upload's segments
    scn.write_text(SCN.replace('name = "pcap-cli"', 'name = "trace-drops"')
                   .replace("stations = 1", "stations = 1\nper_uplink = 0.3")
                   + "\n[mac]\nshort_retry_limit = 1\nlong_retry_limit = 1\n")
    out = tmp_path / "tr"
    assert main(["run", str(scn), "--no-store", "--json", "--seed", "1", "--trace", str(out)]) == 0
    res = json.loads(capsys.readouterr().out.splitlines()[0])
    f = out / "trace-drops" / "run0-seed1" / "packets.parquet"
    con = duckdb.connect()
    q = lambda sql: con.execute(sql.replace("T", f"'{f}'")).fetchall()
    types = dict((r[0], r[1]) for r in con.execute(f"DESCRIBE SELECT * FROM '{f}'").fetchall())
    assert {k: types[k] for k in ("flow_name", "tcp_seq", "tcp_ack", "tcp_flags")} == {
        "flow_name": "VARCHAR", "tcp_seq": "BIGINT", "tcp_ack": "BIGINT", "tcp_flags": "INTEGER"}
    rl = q("select count(*), count(flow), count(size), count(tcp_seq), count(flow_name) "
           "from T where reason = 'retry_limit'")[0]
    assert rl[0] == res["ledger"]["dropped"]["retry_limit"] > 5
    assert rl[1:] == (rl[0],) * 4, rl
    # per-flow loss from the trace: the upload's retry-limit drops
    names = [fl["name"] for fl in res["flows"]]
    per_flow = dict(q("select flow_name, count(*) from T where reason = 'retry_limit' group by flow_name"))
    assert set(per_flow) <= set(names) and per_flow.get("up/sta0", 0) == rl[0]
    # TCP columns: the SYN has flag 2 and no other row of the flow lacks them
    assert q("select count(*) from T where tcp_flags & 2 = 2 and event = 'enqueue'")[0][0] >= 1
    assert q("select count(*) from T where flow is not null and tcp_seq is null")[0][0] == 0
    # a retransmitted segment: the same sequence number in two packets
    assert q("select count(*) from (select tcp_seq from T where event = 'enqueue' and size > 52 "
             "and node = 'sta0' group by tcp_seq having count(distinct packet) > 1)")[0][0] > 0


@requires_core
def test_trace_of_a_stored_run_runs_it_again(tmp_path, capsys):
    scn = tmp_path / "s.toml"
    scn.write_text(SCN)
    db = str(tmp_path / "r.duckdb")
    assert main(["run", str(scn), "--out", db, "--seed", "1", "--quiet"]) == 0
    capsys.readouterr()
    tr = tmp_path / "tr"
    assert main(["run", str(scn), "--out", db, "--seed", "1", "--quiet", "--trace", str(tr)]) == 0
    assert "1 of them again" in capsys.readouterr().err
    assert (tr / "pcap-cli" / "run0-seed1" / "packets.parquet").is_file()
    with duckdb.connect(db, read_only=True) as con:
        assert con.execute("select count(*) from runs").fetchone()[0] == 1


@requires_core
def test_api_run_writes_the_trace(tmp_path):
    import wifitcp

    scn = tmp_path / "s.toml"
    scn.write_text(SCN)
    rows = wifitcp.run(str(scn), seed=1, trace=tmp_path / "tr", frame="records", jobs=1)
    assert len(rows) == 1
    assert (tmp_path / "tr" / "pcap-cli" / "run0-seed1" / "packets.parquet").is_file()

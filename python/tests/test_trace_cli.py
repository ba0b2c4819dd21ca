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

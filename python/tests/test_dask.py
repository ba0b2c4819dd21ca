"""A sweep on a dask.distributed LocalCluster gives the same results as locally.

The cluster has two single-threaded worker *processes* (``processes=True``),
as a real cluster would: the runs leave this process, the workers import
wifitcp and its core themselves.
"""

import json

import duckdb
import pytest

from conftest import requires_core
import wifitcp
from wifitcp.cli import main

distributed = pytest.importorskip("distributed")
pytestmark = requires_core

DOC = {
    "scenario": {"name": "dask-vs-local", "duration_s": 1.0, "seeds": [1, 2]},
    "phy": {"standard": "802.11a", "data_rate_mbps": 54.0},
    "wlan": {"stations": 1},
    "traffic": [{"name": "sat", "kind": "udp", "pattern": "saturated"}],
    "sweep": {"wlan.stations": [2, 5]},
}


@pytest.fixture(scope="module")
def cluster():
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as c:
        yield c


def tables(db):
    """Every stored row, keyed by run key instead of the store's run_id."""
    con = duckdb.connect(str(db), read_only=True)
    out = {}
    out["runs"] = con.execute(
        "SELECT run_key, scenario, scenario_hash, params, seed, version, config_json, "
        "result_json FROM runs ORDER BY run_key").fetchall()
    for t, idx in (("flows", "flow_index"), ("stations", "station_index")):
        out[t] = con.execute(
            f"SELECT r.run_key, t.* EXCLUDE (run_id) FROM {t} t JOIN runs r USING (run_id) "
            f"ORDER BY r.run_key, t.{idx}").fetchall()
    con.close()
    return out


def test_dask_results_identical_to_local(cluster, tmp_path):
    local = wifitcp.run(DOC, jobs=2, out=tmp_path / "local.duckdb")
    with distributed.Client(cluster) as client:
        remote = wifitcp.run(DOC, dask=client, out=tmp_path / "dask.duckdb")
        # the workers really ran them: each is a separate process
        assert len(client.scheduler_info()["workers"]) == 2
    assert len(local) == 4
    drop = ["run_id", "wall_time_s"]
    assert local.drop(columns=drop).equals(remote.drop(columns=drop))
    a, b = tables(tmp_path / "local.duckdb"), tables(tmp_path / "dask.duckdb")
    assert len(a["runs"]) == 4 and len(a["flows"]) == 2 * (2 + 5)
    assert a == b  # byte-identical stored results


def test_cli_dask_address_and_resume(cluster, tmp_path, capsys):
    f = tmp_path / "s.toml"
    f.write_text("""
[scenario]
name = "dask-cli"
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
pattern = "saturated"
""")
    db = str(tmp_path / "d.duckdb")
    assert main(["run", str(f), "--out", db, "--dask", cluster.scheduler_address,
                 "--sweep", "wlan.stations=2,3", "--seeds", "1", "--quiet"]) == 0
    assert main(["run", str(f), "--out", db, "--dask", cluster.scheduler_address,
                 "--sweep", "wlan.stations=2,3", "--json"]) == 0
    out, err = capsys.readouterr()
    assert "2 of 4 runs already in" in err and "with dask tcp://" in err
    rows = [json.loads(x) for x in out.splitlines()]
    assert sorted(r["seed"] for r in rows if not r.get("stored")) == [2, 2]  # run now
    assert sorted(r["seed"] for r in rows if r.get("stored")) == [1, 1]      # from the store
    local = str(tmp_path / "l.duckdb")
    assert main(["run", str(f), "--out", local, "--jobs", "1",
                 "--sweep", "wlan.stations=2,3", "--quiet"]) == 0
    assert tables(db) == tables(local)


def test_unreachable_scheduler_is_bad_input(fake_core, tmp_path, capsys, monkeypatch):
    from wifitcp import dask_backend

    monkeypatch.setattr(dask_backend, "CONNECT_TIMEOUT_S", 2)
    f = tmp_path / "s.toml"
    f.write_text('[scenario]\nname = "x"\n[[traffic]]\nname = "sat"\n')
    rc = main(["run", str(f), "--no-store", "--dask", "tcp://127.0.0.1:9"])
    err = capsys.readouterr().err
    assert rc == 2 and err.startswith("error: --dask: cannot connect to tcp://127.0.0.1:9")
    assert len(err.strip().splitlines()) == 1


def test_closed_port_fails_at_once_with_the_stated_timeout(fake_core, tmp_path, capsys):
    import socket
    import time

    from wifitcp import dask_backend

    assert dask_backend.CONNECT_TIMEOUT_S <= 5
    with socket.socket() as s:  # a local port where nothing listens
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    f = tmp_path / "s.toml"
    f.write_text('[scenario]\nname = "x"\n[[traffic]]\nname = "sat"\n')
    t0 = time.monotonic()
    rc = main(["run", str(f), "--no-store", "--dask", f"tcp://127.0.0.1:{port}"])
    took = time.monotonic() - t0
    err = capsys.readouterr().err
    assert rc == 2 and took < 2.0, (rc, took, err)
    assert err == f"error: --dask: cannot connect to tcp://127.0.0.1:{port}: Connection refused\n"


def test_a_scheduler_that_never_answers_fails_after_the_timeout(fake_core, tmp_path, capsys,
                                                                 monkeypatch):
    import socket
    import time

    from wifitcp import dask_backend

    monkeypatch.setattr(dask_backend, "CONNECT_TIMEOUT_S", 1)
    f = tmp_path / "s.toml"
    f.write_text('[scenario]\nname = "x"\n[[traffic]]\nname = "sat"\n')
    with socket.socket() as s:  # accepts connections (backlog), never speaks
        s.bind(("127.0.0.1", 0))
        s.listen(8)
        addr = f"tcp://127.0.0.1:{s.getsockname()[1]}"
        t0 = time.monotonic()
        rc = main(["run", str(f), "--no-store", "--dask", addr])
        took = time.monotonic() - t0
    err = capsys.readouterr().err
    assert rc == 2 and took < 5.0, (rc, took, err)
    assert err == (f"error: --dask: cannot connect to {addr} within 1 s: it accepted the "
                   "connection but sent no dask handshake (not a dask scheduler?)\n")


@pytest.mark.parametrize("answer, why", [
    (b"SSH-2.0-OpenSSH_9.2p1 Debian-2\r\n", "it answered 'SSH-2.0-OpenSSH_9.2p1 Debian-2..', not a "
                                              "dask handshake"),
    (b"HTTP/1.0 400 Bad request\r\n\r\n" + b"x" * 100, "it answered 'HTTP/1.0 400 Bad request....xxxxxx"
                                                       "xxxxxx', not a dask handshake"),
    (b"", "it closed the connection without a dask handshake"),
])
def test_an_address_that_is_not_a_scheduler_is_one_line(fake_core, tmp_path, capsys, answer, why):
    """Something else listens there (ssh, a web server, a closed service):
    one line naming --dask and why, status 2, at once (not dask's retries
    until its timeout and its long error)."""
    import socket
    import threading
    import time

    f = tmp_path / "s.toml"
    f.write_text('[scenario]\nname = "x"\n[[traffic]]\nname = "sat"\n')
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen(8)
        addr = f"tcp://127.0.0.1:{s.getsockname()[1]}"

        def serve():
            conn, _ = s.accept()
            with conn:
                conn.sendall(answer)

        t = threading.Thread(target=serve, daemon=True)
        t.start()
        t0 = time.monotonic()
        rc = main(["run", str(f), "--no-store", "--dask", addr])
        took = time.monotonic() - t0
        t.join(5)
    err = capsys.readouterr().err
    assert rc == 2 and took < 2.0, (rc, took, err)
    assert err == f"error: --dask: {addr} is not a dask scheduler: {why}\n"


def test_the_handshake_check_accepts_a_real_scheduler(cluster):
    from wifitcp import dask_backend

    dask_backend._probe(cluster.scheduler_address)  # no error


DEPLOYMENT = """
[scenario]
name = "dask-deployment"
duration_s = 0.5
seeds = [1, 2]
[phy]
standard = "802.11a"
data_rate_mbps = 54.0
[wlan]
stations = 12
[deployment]
layout = "hex"
aps = 4
spacing_m = 25.0
channels = "5ghz"
placement = "hotspots"
[channel]
model = "snr"
[ap]
beacons = false
[[traffic]]
name = "bulk"
kind = "udp"
pattern = "saturated"
peer = "own_ap"
stations = "0..0.5"
[[traffic]]
name = "voice"
kind = "udp"
pattern = "cbr"
rate_mbps = 0.064
msdu_bytes = 200
peer = "own_ap"
stations = "0.5..1"
"""


def test_deployment_campaign_on_dask_resumes_and_equals_local(cluster, tmp_path, capsys):
    # A campaign of deployment runs (4 APs on a hex lattice, stations in
    # hotspots, a traffic mix per station class) on the cluster: a killed
    # or partial campaign picks up where it stopped, and the stored results
    # are the local ones byte for byte.
    f = tmp_path / "campus.toml"
    f.write_text(DEPLOYMENT)
    db = str(tmp_path / "d.duckdb")
    sweep = ["--sweep", "deployment.aps=2,4"]
    assert main(["run", str(f), "--out", db, "--dask", cluster.scheduler_address,
                 *sweep, "--seeds", "1", "--quiet"]) == 0
    capsys.readouterr()
    assert main(["run", str(f), "--out", db, "--dask", cluster.scheduler_address, *sweep]) == 0
    err = capsys.readouterr().err
    assert "2 of 4 runs already in" in err and "with dask tcp://" in err
    local = str(tmp_path / "l.duckdb")
    assert main(["run", str(f), "--out", local, "--jobs", "1", *sweep, "--quiet"]) == 0
    a, b = tables(db), tables(local)
    assert a == b and len(a["runs"]) == 4
    # every station has a flow: 6 saturated, 6 voice
    assert len(a["flows"]) == 2 * 12 * 2

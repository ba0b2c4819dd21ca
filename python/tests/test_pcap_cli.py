"""`wifitcp run --pcap DIR`: one pcap per interface and run; same results;
an unwritable directory is one line and exit status 2."""

import json
import struct

import pytest

from conftest import requires_core
from wifitcp.cli import main

SCN = """
[scenario]
name = "pcap-cli"
duration_s = 0.5
seeds = [1, 2]

[phy]
standard = "802.11g"
data_rate_mbps = 24.0

[wlan]
stations = 1

[[nodes]]
name = "server"

[[links]]
a = "ap"
b = "server"
rate_mbps = 100.0
delay_ms = 2.0

[[traffic]]
name = "up"
kind = "tcp"
peer = "server"
"""


def records(path):
    data = path.read_bytes()
    magic, _, _, _, _, _, linktype = struct.unpack("<IHHiIII", data[:24])
    n, off = 0, 24
    while off < len(data):
        incl = struct.unpack("<IIII", data[off:off + 16])[2]
        off += 16 + incl
        n += 1
    return magic, linktype, n


@requires_core
def test_pcap_per_interface_and_run_with_results_unchanged(tmp_path, capsys):
    scn = tmp_path / "s.toml"
    scn.write_text(SCN)
    assert main(["run", str(scn), "--no-store", "--json"]) == 0
    plain = [json.loads(l) for l in capsys.readouterr().out.splitlines()]
    out = tmp_path / "caps"
    assert main(["run", str(scn), "--no-store", "--json", "--pcap", str(out)]) == 0
    cap = [json.loads(l) for l in capsys.readouterr().out.splitlines()]
    # (two workers: lines come in completion order)
    strip = lambda rs: sorted((json.dumps({k: v for k, v in r.items() if k not in ("wall_time_s", "run_id")},
                                          sort_keys=True) for r in rs))
    assert strip(cap) == strip(plain)
    for seed in (1, 2):
        d = out / "pcap-cli" / f"run{seed - 1}-seed{seed}"
        magic, lt, n = records(d / "wlan.pcap")
        assert magic in (0xA1B23C4D, 0xA1B2C3D4) and lt == 127 and n > 100
        magic, lt, n = records(d / "link-ap-server.pcap")
        assert lt == 1 and n > 50


@requires_core
def test_unwritable_pcap_directory_is_one_line_and_exit_2(tmp_path, capsys):
    scn = tmp_path / "s.toml"
    scn.write_text(SCN)
    blocker = tmp_path / "file"
    blocker.write_text("x")
    rc = main(["run", str(scn), "--no-store", "--pcap", str(blocker / "sub")])
    err = capsys.readouterr().err.strip().splitlines()
    assert rc == 2 and len(err) == 1 and "--pcap: cannot write there" in err[0], err


@requires_core
def test_a_full_disk_is_one_line_and_exit_2(tmp_path, capsys):
    # The WLAN file of run 0 is /dev/full: every write fails with ENOSPC.
    scn = tmp_path / "s.toml"
    scn.write_text(SCN)
    run0 = tmp_path / "caps" / "pcap-cli" / "run0-seed1"
    run0.mkdir(parents=True)
    (run0 / "wlan.pcap").symlink_to("/dev/full")
    store = tmp_path / "r.duckdb"
    rc = main(["run", str(scn), "--out", str(store), "--pcap", str(tmp_path / "caps"), "--quiet"])
    err = capsys.readouterr().err.strip().splitlines()
    assert rc == 2, err
    errors = [l for l in err if l.startswith("error:")]
    assert len(errors) == 1 and errors == err[-1:], err  # after the usual "N runs in ..." line
    assert "--pcap:" in errors[0] and "No space left on device" in errors[0], err
    # the other run finished and is kept
    import duckdb
    n = duckdb.connect(str(store), read_only=True).execute("select count(*) from runs").fetchone()[0]
    assert n == 1


@requires_core
def test_pcap_of_stored_runs_runs_them_again_once(tmp_path, capsys):
    """A capture of runs the store already has: they run again (writing
    their files, replacing their rows with the same result); once the files
    are there, they are skipped again."""
    scn = tmp_path / "s.toml"
    scn.write_text(SCN)
    db = str(tmp_path / "r.duckdb")
    assert main(["run", str(scn), "--out", db, "--json"]) == 0
    first = sorted(l for l in capsys.readouterr().out.splitlines())
    caps = tmp_path / "caps"
    assert main(["run", str(scn), "--out", db, "--quiet", "--pcap", str(caps)]) == 0
    err = capsys.readouterr().err
    assert f"2 of them again, to write their files for --pcap {caps}" in err, err
    for seed in (1, 2):
        assert (caps / "pcap-cli" / f"run{seed - 1}-seed{seed}" / "wlan.pcap").is_file()
    assert main(["run", str(scn), "--out", db, "--json", "--pcap", str(caps)]) == 0
    out, err = capsys.readouterr()
    again = [json.loads(l) for l in out.splitlines()]
    assert "running 0" in err and all(r["stored"] for r in again)
    strip = lambda r: {k: v for k, v in r.items() if k not in ("wall_time_s", "run_id", "stored")}
    assert sorted(json.dumps(strip(r), sort_keys=True) for r in again) == \
        sorted(json.dumps(strip(json.loads(l)), sort_keys=True) for l in first)

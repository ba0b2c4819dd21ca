"""A full disk under every writer of a run: the results store, the pcap
capture and the per-packet trace. Each reports it as one line and exit
status 2 (no traceback, no DuckDB "cannot rollback"), and the store keeps
every run that completed before. Uses a 200 KiB tmpfs mounted for the test
(root only; skipped elsewhere)."""

from __future__ import annotations

import os
import shutil
import subprocess

import duckdb
import pytest

from conftest import REPO, requires_core

from wifitcp.cli import main

QUICK = str(REPO / "scenarios" / "quick-check.toml")


@pytest.fixture
def full_disk(tmp_path):
    """A 200 KiB tmpfs at tmp_path/full, unmounted afterwards."""
    if os.geteuid() != 0 or shutil.which("mount") is None:
        pytest.skip("mounting a tmpfs needs root")
    mnt = tmp_path / "full"
    mnt.mkdir()
    r = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=200k", "tmpfs", str(mnt)],
                       capture_output=True, text=True)
    if r.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs: {r.stderr.strip()}")
    try:
        yield mnt
    finally:
        subprocess.run(["umount", str(mnt)], check=False)


def _one_line(capsys, rc):
    err = capsys.readouterr().err
    assert rc == 2, err
    # (the campaign's summary line may come first)
    lines = [ln for ln in err.strip().splitlines() if ln.startswith("error")]
    assert "Traceback" not in err and len(lines) == 1, err
    assert "No space left on device" in lines[0] and "rollback" not in lines[0], err
    return lines[0]


@requires_core
def test_store_on_a_full_disk_keeps_the_runs_before(full_disk, capsys):
    db = full_disk / "s.duckdb"
    rc = main(["run", QUICK, "--out", str(db), "--seeds", "1..60", "--jobs", "1",
               "--set", "scenario.duration_s=0.5", "--quiet"])
    line = _one_line(capsys, rc)
    assert str(db) in line
    con = duckdb.connect(str(db), read_only=True)
    runs, keys = con.execute("SELECT count(*), count(DISTINCT run_key) FROM runs").fetchone()
    assert 0 < runs < 60 and keys == runs
    # every stored run is whole: its flows and stations are there
    assert con.execute("SELECT count(*) FROM runs r WHERE NOT EXISTS "
                       "(SELECT 1 FROM flows f WHERE f.run_id = r.run_id)").fetchone()[0] == 0


@requires_core
@pytest.mark.parametrize("option", ["--pcap", "--trace"])
def test_capture_and_trace_on_a_full_disk_fail_the_run(full_disk, capsys, option):
    rc = main(["run", QUICK, "--no-store", "--set", "scenario.duration_s=3", option,
               str(full_disk / "out"), "--quiet"])
    assert option in _one_line(capsys, rc)

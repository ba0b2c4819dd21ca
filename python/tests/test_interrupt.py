"""Runs that are interrupted, killed, or long: Ctrl-C stops within a second
keeping every finished run, a long run shows its progress and an estimate
of its wall time, and a killed `wifitcp run` leaves no process behind."""

from __future__ import annotations

import io
import json
import os
import signal
import subprocess
import sys
import threading
import time

import duckdb
import pytest

from conftest import REPO, requires_core

from wifitcp import core
from wifitcp.progress import Progress

# 802.11b, ten saturated stations for 1e6 simulated seconds: minutes of wall time
LONG = """
[scenario]
name = "long"
duration_s = 1e6
sample_interval_s = 10.0    # 1e6 goodput samples (10 flows)
[phy]
standard = "802.11b"
data_rate_mbps = 11.0
[wlan]
stations = 10
[[traffic]]
name = "sat"
kind = "udp"
"""


def cli_proc(*args, cwd):
    env = dict(os.environ)
    env["PYTHONPATH"] = str(REPO / "python") + os.pathsep + env.get("PYTHONPATH", "")
    return subprocess.Popen([sys.executable, "-m", "wifitcp", *args], cwd=cwd, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)


class Lines:
    """stderr lines of a process, read by a thread."""

    def __init__(self, stream):
        self.lines: list = []
        self.thread = threading.Thread(target=self._read, args=(stream,), daemon=True)
        self.thread.start()

    def _read(self, stream):
        for line in stream:
            self.lines.append(line.rstrip("\n"))

    def wait_for(self, text: str, timeout: float) -> bool:
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if any(text in x for x in self.lines):
                return True
            time.sleep(0.02)
        return False


@requires_core
def test_ctrl_c_stops_a_long_run_within_a_second_keeping_finished_runs(tmp_path):
    f = tmp_path / "long.toml"
    f.write_text(LONG)
    db = tmp_path / "r.duckdb"
    # one short run, then a run of 1e6 simulated seconds (minutes of wall time)
    p = cli_proc("run", str(f), "--out", str(db), "--jobs", "1",
                 "--sweep", "scenario.duration_s=0.2,1e6", cwd=tmp_path)
    err = Lines(p.stderr)
    try:
        # the long run announces its wall time after a short calibration
        assert err.wait_for("will take about", 60), err.lines
        line = next(x for x in err.lines if "will take about" in x)
        assert "scenario.duration_s=1000000.0 seed=1: 1e+06 s simulated will take about" \
            in line, line
        t0 = time.monotonic()
        os.kill(p.pid, signal.SIGINT)
        # stopped: the message is out (the interpreter's exit follows)
        assert err.wait_for("error: interrupted", 30), err.lines
        stopped_after = time.monotonic() - t0
        rc = p.wait(timeout=30)
    finally:
        if p.poll() is None:
            os.killpg(p.pid, signal.SIGKILL)
            p.wait()
    err.thread.join(5)
    assert rc == 130 and err.lines[-1] == "error: interrupted", err.lines
    assert stopped_after < 1.0, f"stopped {stopped_after:.2f} s after Ctrl-C"
    con = duckdb.connect(str(db), read_only=True)
    params = [json.loads(r[0]) for r in con.execute("SELECT params FROM runs").fetchall()]
    con.close()
    assert params == [{"scenario.duration_s": 0.2}]


def _children(pid: int) -> set:
    """Live (not zombie) processes whose parent is ``pid``."""
    out = set()
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open(f"/proc/{d}/stat") as fh:
                stat = fh.read()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2:].split()
        if int(fields[1]) == pid and fields[0] != "Z":
            out.add(int(d))
    return out


def _alive(pids: set) -> set:
    alive = set()
    for pid in pids:
        try:
            with open(f"/proc/{pid}/stat") as fh:
                stat = fh.read()
        except OSError:
            continue
        if stat[stat.rindex(")") + 2:].split()[0] != "Z":
            alive.add(pid)
    return alive


@requires_core
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_kill_9_of_the_main_process_leaves_no_worker_behind(tmp_path):
    f = tmp_path / "long.toml"
    f.write_text(LONG)
    p = cli_proc("run", str(f), "--no-store", "--jobs", "2", "--quiet",
                 "--sweep", "wlan.stations=9,10", cwd=tmp_path)
    kids: set = set()
    try:
        end = time.monotonic() + 60
        while time.monotonic() < end and len(kids) < 3:  # two workers, resource tracker
            kids = _children(p.pid)
            time.sleep(0.1)
        assert len(kids) >= 3, kids
        time.sleep(1.0)  # the workers are inside their runs
        os.kill(p.pid, signal.SIGKILL)
        p.wait(timeout=10)
        end = time.monotonic() + 10
        while time.monotonic() < end and _alive(kids):
            time.sleep(0.1)
        left = _alive(kids)
    finally:
        for pid in _alive(kids):
            os.kill(pid, signal.SIGKILL)
        if p.poll() is None:
            os.killpg(p.pid, signal.SIGKILL)
            p.wait()
    assert not left, f"still running after the parent was killed: {left}"


@requires_core
def test_progress_callback_sees_the_run_advance_and_may_stop_it(real_core):
    doc = {"scenario": {"name": "p", "duration_s": 2.0},
           "phy": {"standard": "802.11b", "data_rate_mbps": 11.0},
           "wlan": {"stations": 4}, "traffic": [{"name": "u", "kind": "udp"}]}
    text = core.to_json(doc)
    seen = []
    got = core.run_text(text, 3, lambda *p: seen.append(p))
    assert seen and seen[-1][:2] == (2.0, 2.0)
    assert all(a[0] <= b[0] and a[2] <= b[2] for a, b in zip(seen, seen[1:]))
    plain = json.loads(core.run_text(text, 3))
    chunked = json.loads(got)
    plain.pop("wall_time_s"), chunked.pop("wall_time_s")
    assert chunked == plain  # byte-identical apart from the wall time

    class Stop(Exception):
        pass

    def stop(sim_s, *_):
        if sim_s > 0.5:
            raise Stop()

    with pytest.raises(Stop):
        core.run_text(text, 3, stop)


def test_progress_bar_moves_within_a_run_and_estimates_long_ones():
    out = io.StringIO()
    bar = Progress(1, label="long", stream=out, tty=False)
    bar.PLAIN_EVERY_S = 0.0
    bar.within("seed=1", 10.0, 1e6, 1000, 1.0)
    text = out.getvalue()
    assert "long seed=1: 1e+06 s simulated will take about 27.8 h of wall time" in text
    assert "[0/1] run seed=1: 0 % simulated (10 of 1e+06 s)" in text
    # once per run, and none for a short one
    bar.within("seed=1", 20.0, 1e6, 2000, 2.0)
    bar.within("seed=2", 1.0, 2.0, 10, 1.0)
    assert out.getvalue().count("will take about") == 1
    bar.close()


@requires_core
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_ctrl_c_of_a_pool_ends_its_workers_at_once(tmp_path):
    f = tmp_path / "long.toml"
    f.write_text(LONG)
    p = cli_proc("run", str(f), "--no-store", "--jobs", "2", "--quiet",
                 "--sweep", "wlan.stations=9,10", cwd=tmp_path)
    err = Lines(p.stderr)
    kids: set = set()
    try:
        end = time.monotonic() + 60
        while time.monotonic() < end and len(kids) < 3:  # two workers, resource tracker
            kids = _children(p.pid)
            time.sleep(0.1)
        assert len(kids) >= 3, kids
        time.sleep(1.0)  # the workers are inside their runs
        t0 = time.monotonic()
        os.kill(p.pid, signal.SIGINT)  # the main process only, as `kill -INT`
        assert err.wait_for("error: interrupted", 30), err.lines
        stopped_after = time.monotonic() - t0
        rc = p.wait(timeout=30)
        end = time.monotonic() + 5
        while time.monotonic() < end and _alive(kids):
            time.sleep(0.1)
        left = _alive(kids)
    finally:
        for pid in _alive(kids):
            os.kill(pid, signal.SIGKILL)
        if p.poll() is None:
            os.killpg(p.pid, signal.SIGKILL)
            p.wait()
    assert rc == 130 and stopped_after < 1.0, (rc, stopped_after, err.lines)
    assert not left, f"still running after Ctrl-C: {left}"

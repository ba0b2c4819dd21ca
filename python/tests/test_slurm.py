"""A campaign on a real (single-node) Slurm cluster gives the same results
as locally.

The test starts its own Slurm: Debian's ``slurm-wlm`` daemons (slurmctld
and slurmd, in the foreground, as children of this process) with a
``slurm.conf`` generated into a temporary directory (one node,
``localhost``, with this machine's cores; ``auth/none``, so no munge; its
own ports), points ``SLURM_CONF`` at it, and runs ``wifitcp run --dask
slurm:2``: dask-jobqueue submits two batch jobs with ``sbatch``, each a
dask worker. It is skipped, with the reason, when slurm-wlm or dask-jobqueue
is missing or when not root (slurmd launches jobs as root).
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path

import pytest

from conftest import requires_core
from test_dask import tables
from wifitcp.cli import main

MISSING = [p for p in ("slurmctld", "slurmd", "sbatch", "sinfo") if shutil.which(p) is None]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _mem_mb() -> int:
    with open("/proc/meminfo") as f:
        kb = int(next(line for line in f if line.startswith("MemTotal")).split()[1])
    return kb // 1024 * 9 // 10


CONF = """\
ClusterName=wifitcp-test
SlurmctldHost=localhost
SlurmctldPort={ctld_port}
SlurmdPort={d_port}
AuthType=auth/none
CredType=cred/none
SlurmUser=root
SlurmdUser=root
StateSaveLocation={d}/state
SlurmdSpoolDir={d}/spool
SlurmctldPidFile={d}/slurmctld.pid
SlurmdPidFile={d}/slurmd.pid
SlurmctldLogFile={d}/slurmctld.log
SlurmdLogFile={d}/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
MpiDefault=none
ReturnToService=2
NodeName=localhost CPUs={cpus} RealMemory={mem} State=UNKNOWN
PartitionName=debug Nodes=localhost Default=YES MaxTime=INFINITE State=UP
"""


@pytest.fixture(scope="module")
def slurm():
    """The directory of a running one-node Slurm (``SLURM_CONF`` set)."""
    if MISSING:
        pytest.skip(f"slurm-wlm is not installed ({', '.join(MISSING)} not on PATH; "
                    "apt-get install slurm-wlm)")
    pytest.importorskip("dask_jobqueue", reason="dask-jobqueue is not installed")
    if os.geteuid() != 0:
        pytest.skip("a test Slurm needs root (slurmd launches the jobs)")
    d = Path(tempfile.mkdtemp(prefix="wifitcp-slurm-"))  # short: slurmd's socket paths
    for sub in ("state", "spool"):
        (d / sub).mkdir()
    conf = d / "slurm.conf"
    conf.write_text(CONF.format(ctld_port=_free_port(), d_port=_free_port(), d=d,
                                cpus=os.cpu_count() or 1, mem=_mem_mb()))
    saved = os.environ.get("SLURM_CONF")
    os.environ["SLURM_CONF"] = str(conf)
    procs = []
    try:
        for argv in (["slurmctld", "-D", "-c", "-i"], ["slurmd", "-D", "-c", "-N", "localhost"]):
            procs.append(subprocess.Popen(argv, stdout=subprocess.DEVNULL,
                                          stderr=open(d / f"{argv[0]}.err", "w")))
            time.sleep(0.5)
        deadline = time.monotonic() + 60
        state = ""
        while time.monotonic() < deadline:
            p = subprocess.run(["sinfo", "-h", "-o", "%T"], capture_output=True, text=True)
            state = p.stdout.strip()
            if state == "idle":
                break
            time.sleep(0.5)
        assert state == "idle", (state, [(d / f).read_text() for f in
                                         ("slurmctld.err", "slurmd.err") if (d / f).exists()])
        yield d
    finally:
        for p in reversed(procs):
            p.terminate()
        for p in procs:
            try:
                p.wait(20)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
        if saved is None:
            os.environ.pop("SLURM_CONF", None)
        else:
            os.environ["SLURM_CONF"] = saved
        shutil.rmtree(d, ignore_errors=True)


SCENARIO = """
[scenario]
name = "slurm-vs-local"
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
[sweep]
"wlan.stations" = [2, 5]
"""


@requires_core
def test_campaign_on_slurm_equals_local(slurm, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)  # the jobs' output files (slurm-<job>.out)
    f = tmp_path / "s.toml"
    f.write_text(SCENARIO)
    db, local = str(tmp_path / "slurm.duckdb"), str(tmp_path / "local.duckdb")
    assert main(["run", str(f), "--out", db, "--dask", "slurm:2", "--quiet"]) == 0
    err = capsys.readouterr().err
    assert "with dask slurm:2" in err, err
    assert main(["run", str(f), "--out", local, "--jobs", "2", "--quiet"]) == 0
    a, b = tables(db), tables(local)
    assert len(a["runs"]) == 4 and a == b  # byte-identical stored results
    # the runs were done by workers that Slurm started as batch jobs
    logs = [p.read_text() for p in tmp_path.glob("slurm-*.out")]
    assert logs and any("distributed.worker" in t for t in logs), logs
    out = subprocess.run(["squeue", "-h"], capture_output=True, text=True).stdout
    assert out.strip() == ""  # the jobs were cancelled with the campaign


def test_slurm_without_sbatch_is_bad_input(fake_core, tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))
    f = tmp_path / "s.toml"
    f.write_text('[scenario]\nname = "x"\n[[traffic]]\nname = "sat"\n')
    assert main(["run", str(f), "--no-store", "--dask", "slurm:2"]) == 2
    assert capsys.readouterr().err == ("error: --dask: slurm: sbatch is not on PATH (run on a "
                                       "machine that submits Slurm jobs)\n")
    assert main(["run", str(f), "--no-store", "--dask", "slurm:0"]) == 2
    assert capsys.readouterr().err == "error: --dask: expected slurm:N with N >= 1, got 'slurm:0'\n"

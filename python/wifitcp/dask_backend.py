"""Run a campaign on a ``dask.distributed`` cluster.

The runs are submitted as tasks calling the same worker body as the local
pool (`runner._execute`: config JSON and seed in, canonical result text and
its store rows out), so a run gives the same bytes wherever it ran. Workers need the
``wifitcp`` package (with its compiled core) importable, e.g. the same
virtual environment on a shared file system (see docs/campaigns.md).

``target`` may be:

* a scheduler address, ``"tcp://host:8786"`` (``host:port`` works too);
* ``"local"`` or ``"local:N"``: a `LocalCluster` of N single-threaded worker
  processes (default: ``jobs``, else every core) started for this campaign;
* ``"local-threads"`` / ``"local-threads:N"``: the same with threads in this
  process (``processes=False``), for machines where worker processes cannot
  start;
* ``"slurm"`` / ``"slurm:N"``: N single-core Slurm batch jobs (default:
  ``jobs``, else every core here), each one dask worker, submitted with
  ``sbatch`` through dask-jobqueue's `SLURMCluster` (its ``jobqueue.slurm``
  configuration, e.g. ``~/.config/dask/jobqueue.yaml``, sets the queue,
  account, walltime, memory, ...; unset, a job asks for 1 core and 2 GiB and
  runs this interpreter), started for this campaign and cancelled after it;
* a ``distributed.Client``, or a cluster object (anything with
  ``scheduler_address``), which is used and left running.
"""

from __future__ import annotations

import uuid
from typing import Any, Iterator, Optional, Sequence

from . import core
from .errors import InputError

#: how long to wait for a scheduler before giving up (seconds): a TCP
#: connection is tried first with this timeout, so an address where nothing
#: listens fails at once (connection refused) or after this long (no answer)
CONNECT_TIMEOUT_S = 5


def _import_distributed():
    try:
        import distributed
    except ImportError:
        raise InputError("--dask", "", "dask.distributed is not installed "
                         "(pip install 'dask[distributed]')") from None
    return distributed


def _local_workers(spec: str, jobs: Optional[int]) -> int:
    _, _, n = spec.partition(":")
    if n:
        try:
            v = int(n)
        except ValueError:
            v = 0
        if v < 1:
            raise InputError("--dask", "", f"expected {spec.split(':')[0]}:N with N >= 1, "
                             f"got {spec!r}")
        return v
    if jobs:
        return jobs
    from .runner import default_jobs

    return default_jobs()


def connect(target: Any, jobs: Optional[int] = None) -> tuple[Any, list]:
    """A ``Client`` for ``target`` and the objects to close afterwards."""
    distributed = _import_distributed()
    if isinstance(target, distributed.Client):
        return target, []
    if not isinstance(target, str):
        address = getattr(target, "scheduler_address", None)
        if address is None:
            raise InputError("--dask", "", f"not a dask address, client or cluster: "
                             f"{type(target).__name__}")
        client = distributed.Client(target)
        return client, [client]
    spec = target.strip()
    if spec.split(":")[0] == "slurm":
        cluster = _slurm_cluster(_local_workers(spec, jobs))
        client = distributed.Client(cluster)
        return client, [client, cluster]
    if spec.split(":")[0] in ("local", "local-threads"):
        n = _local_workers(spec, jobs)
        processes = spec.split(":")[0] == "local"
        from .runner import main_not_reimported

        with main_not_reimported():
            cluster = distributed.LocalCluster(n_workers=n, threads_per_worker=1,
                                               processes=processes, dashboard_address=None)
        client = distributed.Client(cluster)
        return client, [client, cluster]
    _probe(spec)
    # distributed's own timeout does not cover a peer that accepts the
    # connection and never answers the handshake: wait for it in a thread
    import threading

    box: dict = {}

    def make() -> None:
        try:
            box["client"] = distributed.Client(spec, timeout=f"{CONNECT_TIMEOUT_S}s")
        except Exception as e:  # OSError / TimeoutError from the comm layer
            box["error"] = e

    t = threading.Thread(target=make, name="wifitcp-dask-connect", daemon=True)
    t.start()
    t.join(CONNECT_TIMEOUT_S + 1.0)
    e = box.get("error")
    if "client" not in box:
        why = (str(e).splitlines()[0] if str(e) else type(e).__name__) if e is not None \
            else "no answer"
        raise InputError("--dask", "", f"cannot connect to {spec} within "
                         f"{CONNECT_TIMEOUT_S} s: {why}") from None
    client = box["client"]
    return client, [client]


#: a Slurm job's request when dask-jobqueue's configuration sets none
SLURM_DEFAULTS = {"cores": 1, "memory": "2GiB", "processes": 1}


def _slurm_cluster(n: int) -> Any:
    """A dask-jobqueue `SLURMCluster` scaled to ``n`` jobs of one worker each."""
    import shutil
    import sys

    if shutil.which("sbatch") is None:
        raise InputError("--dask", "", "slurm: sbatch is not on PATH (run on a machine that "
                         "submits Slurm jobs)")
    try:
        import dask
        import dask_jobqueue
    except ImportError:
        raise InputError("--dask", "", "slurm needs dask-jobqueue "
                         "(pip install 'wifitcp[slurm]')") from None
    conf = dask.config.get("jobqueue.slurm", default={}) or {}
    kwargs = {k: v for k, v in SLURM_DEFAULTS.items() if conf.get(k) is None}
    if conf.get("python") is None:
        kwargs["python"] = sys.executable  # the workers import this wifitcp
    from .runner import main_not_reimported

    try:
        with main_not_reimported():
            cluster = dask_jobqueue.SLURMCluster(**kwargs)
        cluster.scale(jobs=n)
    except Exception as e:  # sbatch refused the job, a bad configuration value, ...
        why = str(e).strip().splitlines()
        raise InputError("--dask", "", f"slurm: cannot start the workers: "
                         f"{why[-1] if why else type(e).__name__}") from None
    return cluster


def _probe(spec: str) -> None:
    """Fail fast (InputError) if nothing accepts a TCP connection at a
    ``tcp://host:port`` or ``host:port`` address; other schemes (tls://,
    ucx://, ...) are left to dask."""
    import socket
    from urllib.parse import urlsplit

    if "://" in spec and not spec.startswith("tcp://"):
        return
    try:
        url = urlsplit(spec if "://" in spec else f"tcp://{spec}")
        host, port = url.hostname, url.port
    except ValueError as e:
        raise InputError("--dask", "", f"bad address {spec!r}: {e}") from None
    if not host or port is None:
        raise InputError("--dask", "", f"bad address {spec!r}: expected tcp://HOST:PORT")
    try:
        sock = socket.create_connection((host, port), timeout=CONNECT_TIMEOUT_S)
    except socket.timeout:
        raise InputError("--dask", "", f"cannot connect to {spec}: no answer within "
                         f"{CONNECT_TIMEOUT_S} s") from None
    except OSError as e:
        raise InputError("--dask", "", f"cannot connect to {spec}: "
                         f"{e.strerror or type(e).__name__}") from None
    with sock:
        _expect_handshake(sock, spec)


#: what a dask scheduler's handshake carries (msgpack keys of its first message)
_HANDSHAKE_KEYS = (b"compression", b"pickle-protocol")


def _expect_handshake(sock: Any, spec: str) -> None:
    """A dask scheduler speaks first: on a new connection it sends its
    handshake, one message (a little-endian u64 length, then frames) whose
    msgpack map has the keys in `_HANDSHAKE_KEYS`. Anything else listening
    there (a web server, ssh, a dask worker's dashboard) is bad input, told
    in one line, instead of dask's retries and its long error."""
    import socket
    import struct

    data = b""
    deadline = CONNECT_TIMEOUT_S
    sock.settimeout(deadline)
    try:
        while len(data) < 8 or len(data) < 8 + min(struct.unpack("<Q", data[:8])[0], 1 << 16):
            chunk = sock.recv(4096)
            if not chunk:
                break
            data += chunk
    except socket.timeout:
        if not data:
            raise InputError("--dask", "", f"cannot connect to {spec} within "
                             f"{CONNECT_TIMEOUT_S} s: it accepted the connection but sent no "
                             "dask handshake (not a dask scheduler?)") from None
    except OSError as e:
        raise InputError("--dask", "", f"cannot connect to {spec}: "
                         f"{e.strerror or type(e).__name__}") from None
    if all(k in data for k in _HANDSHAKE_KEYS):
        return
    if not data:
        why = "it closed the connection without a dask handshake"
    else:
        text = data[:40].decode("ascii", "replace")
        text = "".join(c if c.isprintable() else "." for c in text)
        why = f"it answered {text!r}, not a dask handshake"
    raise InputError("--dask", "", f"{spec} is not a dask scheduler: {why}")


def run_dask(items: Sequence[tuple], target: Any, jobs: Optional[int] = None,
             pcap: Any = None, trace: Any = None) -> Iterator:
    """Submit every run to the cluster; yield `RunOutcome`s as they finish
    (with ``pcap``, each writes its captures on its worker's file system)."""
    from .runner import _execute, _outcome, run_dir

    distributed = _import_distributed()
    if not items:
        return
    client, owned = connect(target, jobs)
    tag = uuid.uuid4().hex[:12]
    futures = {}
    try:
        for i, (spec, config) in enumerate(items):
            fut = client.submit(_execute, core.to_json(spec.config), spec.seed, None,
                                run_dir(pcap, spec), run_dir(trace, spec),
                                key=f"wifitcp-{tag}-{i}", pure=False)
            futures[fut] = (spec, config)
        for fut in distributed.as_completed(list(futures)):
            spec, config = futures.pop(fut)
            try:
                got = fut.result()
            except Exception as e:  # KilledWorker, lost connection, ...
                got = ("", 0.0, f"worker failed: {type(e).__name__}: {e}")
            yield _outcome(spec, config, *got)
    finally:
        if futures:
            try:
                client.cancel(list(futures))
            except Exception:
                pass
        for obj in owned:
            try:
                obj.close()
            except Exception:
                pass

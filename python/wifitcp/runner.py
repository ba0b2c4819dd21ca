"""Execute runs: in this process, in a pool of worker processes, or on a
``dask.distributed`` cluster.

Each run is one call into the core (`_core.run`), which releases the GIL;
worker processes give isolation and use every core for a sweep. Results
come back in completion order as `RunOutcome`s. Every backend runs the same
worker body (`_execute`), so the stored results do not depend on where a run
ran: the core is deterministic and the only non-deterministic key of its
result, ``wall_time_s``, is removed from the result text by the worker.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import sys
import time
from typing import Any, Iterator, Optional, Sequence

from . import core
from .store import result_rows, result_rows_of_text
from .scenario import RunSpec


class _Unparsed:
    """Marks a result not parsed yet (one instance, which pickles as itself)."""

    def __reduce__(self) -> str:
        return "_UNPARSED"

    def __repr__(self) -> str:
        return "<not parsed yet>"


_UNPARSED = _Unparsed()


class RunOutcome:
    """A finished run: its spec, normalised config, and result or error.

    ``result`` is the parsed result (None on error). It is parsed from
    ``result_json`` when first asked for: a campaign writing to a store does
    not need it, the worker has already turned it into the store's rows
    (``rows``, `store.result_rows`).
    """

    def __init__(self, spec: RunSpec, config: dict, result: Any, result_json: str,
                 wall_time_s: float, error: Optional[str] = None,
                 rows: Optional[tuple] = None, result_version: Any = _UNPARSED,
                 head: Optional[dict] = None):
        self.spec = spec
        self.config = config          # normalised config (as validated by the core)
        self._result = result         # _UNPARSED: parse result_json when asked
        self.result_json = result_json
        self.wall_time_s = wall_time_s
        self.error = error
        self.rows = rows              # store.result_rows(result), or None
        self._version = result_version  # the result's "version", _UNPARSED: look it up
        #: the result's members that a run's record also sets (RECORD_KEYS),
        #: when known without parsing the result (`_canonical_unparsed`)
        self._head = head

    @property
    def result(self) -> Optional[Any]:
        if self._result is _UNPARSED:
            self._result = json.loads(self.result_json) if self.error is None else None
        return self._result

    @result.setter
    def result(self, value: Any) -> None:
        self._result = value

    def store_rows(self) -> tuple:
        """`store.result_rows` of the result (``rows`` if a worker made
        them). A result not parsed yet stays unparsed: its rows are made
        from its text (`store.result_rows_of_text`). A run of thousands of
        stations parses to several kilobytes a station, and a campaign
        writing to a store keeps its outcomes (docs/performance.md)."""
        return self.rows if self.rows is not None else _rows(self.result_json, self._result)

    @property
    def result_version(self) -> Any:
        """The result's ``version`` (the worker's core version), None if none."""
        if self._version is _UNPARSED:
            r = self.result
            self._version = r.get("version") if isinstance(r, dict) else None
        return self._version

    def head(self) -> Optional[dict]:
        """The result's members whose keys are in `RECORD_KEYS` (None for
        an error or a result that is not an object); parsed only if not
        known from the core's text."""
        if self.error is not None:
            return None
        if self._head is not None and self._result is _UNPARSED:
            return self._head
        r = self.result
        return {k: r[k] for k in RECORD_KEYS if k in r} if isinstance(r, dict) else None

    @property
    def ok(self) -> bool:
        return self.error is None

    def __repr__(self) -> str:
        state = "ok" if self.ok else f"error={self.error!r}"
        return f"RunOutcome({self.spec.label!r}, {state}, wall_time_s={self.wall_time_s:.3f})"


def config_hash(config: dict) -> str:
    """sha256 of the canonical JSON of a normalised config (seed excluded)."""
    text = json.dumps(config, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


def default_jobs() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - non-Linux
        return max(1, os.cpu_count() or 1)


#: keys of the core's result that vary between identical runs; not stored
NONDETERMINISTIC_KEYS = ("wall_time_s",)

#: the keys a run's record (`api.record`) sets, in the order it sets them
RECORD_KEYS = ("scenario", "params", "seed", "run_index", "run_id", "wall_time_s", "version")

#: The end of the core's result text: its last members in the core's key
#: order (sorted: ``version`` < ``wall_time_s`` < ``warmup_s``).
_CORE_TAIL = re.compile(r',"version":"([^"\\]*)","wall_time_s":[-+.0-9eE]+(,"warmup_s":[-+.0-9eE]+})')


def _compact(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"))


def _outside_strings(text: str, block: int = 1 << 16) -> str:
    """``"".join(text.split('"')[0::2])``: what lies outside the quotes,
    with the text split a block at a time. Splitting a result of thousands
    of stations at once makes a list of a million small strings, which took
    more memory than the run itself (docs/performance.md)."""
    out, inside = [], False
    for at in range(0, len(text), block):
        pieces = text[at:at + block].split('"')
        out.append("".join(pieces[1 if inside else 0::2]))
        inside ^= len(pieces) % 2 == 0  # an odd number of quotes in the block
    return "".join(out)


def _dumps_keeps(text: str) -> bool:
    """Whether ``_compact(json.loads(text)) == text``, for the core's writer.

    The core writes compact JSON (serde_json: no whitespace, keys in its own
    order, floats as the shortest text that reads back to the same double,
    ASCII strings only escaped where JSON requires it), which `json.dumps`
    reproduces byte for byte except for:

    * strings it escapes (non-ASCII, DEL, anything with a backslash);
    * floats below 1e-4 or from 1e16 up, which Python writes with an
      exponent (``2.5e-05``, ``1e+16``) and the core either without one
      from 1e-5 to 1e-4 (``0.000025``) or with one of its own form
      (``9.3e-9``);
    * whitespace outside strings (another writer).

    Those are looked for outside strings (between quotes, which then
    delimit strings exactly); any of them, or anything looking like them,
    answers False. test_runner checks the rest against `json.dumps` on the
    core's results and on thousands of doubles written by the core.
    """
    if not text.isascii() or "\\" in text or "\x7f" in text:
        return False
    outside = _outside_strings(text)  # numbers, punctuation, literals
    if any(c in outside for c in " \t\n\rE"):
        return False
    n_e = outside.count("e")  # exponents, or the e of true / false
    if n_e and n_e != outside.count("true") + outside.count("false"):
        return False
    return not any(c + "0.0000" in outside for c in ":,[-")


def _without_keys(text: str, result: dict) -> Optional[str]:
    """``text`` (whose `_compact` form it is) without NONDETERMINISTIC_KEYS.

    Cuts each key's member out of the text: the member and all members after
    it are written again to check where it is, which is cheap for the core's
    ``wall_time_s`` (only ``warmup_s`` follows it). None if a key comes
    first or the text does not end as expected.
    """
    items = list(result.items())
    for key in NONDETERMINISTIC_KEYS:
        j = next((i for i, (k, _) in enumerate(items) if k == key), None)
        if j is None:
            continue
        if j == 0:
            return None
        tail = "".join(f",{_compact(k)}:{_compact(v)}" for k, v in items[j + 1:]) + "}"
        cut = f",{_compact(key)}:{_compact(items[j][1])}{tail}"
        if not text.endswith(cut):
            return None
        text = text[:-len(cut)] + tail
        del items[j]
    return text


def _canonical(text: str) -> tuple[Any, str]:
    """The parsed result without its non-deterministic keys, and its text.

    The text is always what `json.dumps` writes for that result; when the
    core's text is already that (`_dumps_keeps`), the keys are cut out of it
    instead of writing the whole result again (a tenth of the cost).
    """
    result = json.loads(text)
    fast = None
    if isinstance(result, dict):
        if _dumps_keeps(text):
            fast = _without_keys(text, result)
        for k in NONDETERMINISTIC_KEYS:
            result.pop(k, None)
    return result, fast if fast is not None else _compact(result)


def _canonical_unparsed(text: str) -> Optional[tuple[str, str]]:
    """``(canonical text, version)`` of the core's result ``text`` without
    parsing it, or None where that cannot be shown from the text alone.

    Where `_dumps_keeps` holds, the text is already what `json.dumps`
    writes, and quotes delimit its strings exactly (it holds no
    backslash). If it then ends with ``,"version":"V","wall_time_s":X,
    "warmup_s":Y}`` (the core's last three members), those members are
    top-level ones (nothing between them and the closing brace opens or
    closes a value), and cutting ``,"wall_time_s":X`` out gives the
    canonical text. A result of thousands of stations is megabytes, and
    parsing it is most of the CLI's own time after the run
    (docs/performance.md); it is parsed later only if something asks for
    the result.
    """
    at = text.rfind(',"version":"')
    if at < 0 or len(text) - at > 200 or not _dumps_keeps(text):
        return None
    m = _CORE_TAIL.fullmatch(text, at)
    if m is None:
        return None
    # (one copy of the text, not a slice and then a copy of it: at
    # thousands of stations the text is megabytes; the tail is the first
    # occurrence of itself, since `find` says so)
    tail, kept = m.group(0), f',"version":"{m.group(1)}"{m.group(2)}'
    if text.find(tail) != at:
        return text[:at] + kept, m.group(1)
    return text.replace(tail, kept, 1), m.group(1)


def canonical_result(text: str) -> str:
    """The core's result text without its non-deterministic keys.

    The core writes keys in sorted order; they keep their order here, and the
    text is compact, so equal results give byte-identical text.
    """
    return _canonical(text)[1]


def _run_parsed(config_json: str, seed: int, progress: Any = None, pcap: Any = None,
                trace: Any = None) -> tuple:
    """One core run. Never raises (panics included).

    Returns ``(canonical result text, wall time, error, result, version)``:
    the result None on an error, `_UNPARSED` where the text's canonical
    form and ``version`` were found without parsing it
    (`_canonical_unparsed`), else parsed.
    """
    t0 = time.perf_counter()
    try:
        text = (core.run_text(config_json, seed)
                if progress is None and pcap is None and trace is None
                else core.run_text(config_json, seed, progress, pcap, trace))
        wall = time.perf_counter() - t0
        cheap = _canonical_unparsed(text)
        if cheap is not None:
            return cheap[0], wall, None, _UNPARSED, cheap[1]
        try:
            result, text = _canonical(text)
        except ValueError as e:
            return "", wall, f"core returned invalid JSON: {e}", None, None
        return text, wall, None, result, result.get("version") if isinstance(result, dict) else None
    except BaseException as e:  # pyo3 PanicException derives BaseException
        if isinstance(e, KeyboardInterrupt):
            raise
        return "", time.perf_counter() - t0, f"{type(e).__name__}: {e}", None, None


def _execute(config_json: str, seed: int, progress: Any = None, pcap: Any = None,
             trace: Any = None) -> tuple:
    """Worker body (another process): one core run. Never raises.

    Returns ``(canonical result text, wall time, error, rows, version)``:
    ``rows`` are the store's rows of the result (`store.result_rows`; made
    from its text, `store.result_rows_of_text`, where its version was
    found without parsing it) and ``version`` its ``"version"``, so the
    process writing the store does not parse it (both None if the result
    is not an object).
    """
    text, wall, err, result, version = _run_parsed(config_json, seed, progress, pcap, trace)
    if result is not _UNPARSED and (err is not None or not isinstance(result, dict)):
        return text, wall, err, None, None
    return text, wall, None, _rows(text, result), version  # (unparsed: an object)


def _rows(text: str, result: Any) -> tuple:
    """`store.result_rows` of a run's result: made from its ``text`` while
    ``result`` is `_UNPARSED` (`store.result_rows_of_text`), so that it
    stays so, else from ``result``."""
    if result is _UNPARSED:
        return result_rows_of_text(text)
    return result_rows(result if isinstance(result, dict) else {})


def _outcome(spec: RunSpec, config: dict, text: str, wall: float, err: Optional[str],
             rows: Optional[tuple] = None, version: Any = None) -> RunOutcome:
    """The outcome of what `_execute` returned (its text is valid JSON)."""
    if err is not None:
        return RunOutcome(spec, config, None, text, wall, err, None, None)
    if rows is None:  # not an object, or a 3-tuple from an older worker
        return RunOutcome(spec, config, _UNPARSED, text, wall)
    return RunOutcome(spec, config, _UNPARSED, text, wall, None, rows, version)


def _outcome_here(spec: RunSpec, config: dict, text: str, wall: float, err: Optional[str],
                  result: Any, version: Any) -> RunOutcome:
    """The outcome of a run in this process (`_run_parsed`): it keeps the
    parsed result, so nothing parses the text again, or leaves it unparsed
    with its ``version`` and the members a record sets known (`head`):
    the core writes the scenario's name and the seed it was given
    (crates/sim/src/api.rs). The store's rows are left to the store
    (`Store.add_run` makes them from the result only when there is a
    store)."""
    if err is not None:
        return RunOutcome(spec, config, None, text, wall, err, None, None)
    head = None
    if result is _UNPARSED:
        name = (spec.config.get("scenario") or {}).get("name")
        head = {"scenario": name, "seed": spec.seed, "version": version}
    return RunOutcome(spec, config, result, text, wall, None, None, version, head)


@contextlib.contextmanager
def main_not_reimported() -> Iterator[None]:
    """Start worker processes without re-running the user's script in them.

    A ``spawn``ed process re-imports the parent's ``__main__`` from its file
    (multiprocessing's "safe importing of main module"), so a plain script
    calling ``wifitcp.run(..., jobs=2)`` without an ``if __name__ ==
    "__main__"`` guard would run itself again in every worker. The workers
    only ever call `_execute` (in this module), so while processes are
    started here ``__main__`` is presented without its file; it is restored
    at once. Modules run with ``-m`` and notebooks need nothing.
    """
    main = sys.modules.get("__main__")
    spec_name = getattr(getattr(main, "__spec__", None), "name", None)
    if main is None or spec_name is not None or not hasattr(main, "__file__"):
        yield
        return
    saved = main.__file__
    del main.__file__
    try:
        yield
    finally:
        main.__file__ = saved


def _worker_init(parent: int) -> None:
    """Make a pool worker die with the process that started it.

    A worker blocked on the result pipe of a parent killed with SIGKILL
    would otherwise live forever (and keep multiprocessing's resource
    tracker alive with it). On Linux the kernel sends SIGKILL to the worker
    when its parent exits (prctl PR_SET_PDEATHSIG); elsewhere, and for a
    parent that died before this ran, a thread checks that the parent is
    still there every second.
    """
    import threading

    try:
        import ctypes
        import signal as _signal

        libc = ctypes.CDLL(None, use_errno=True)
        PR_SET_PDEATHSIG = 1
        libc.prctl(PR_SET_PDEATHSIG, int(_signal.SIGKILL), 0, 0, 0)
    except (OSError, AttributeError):  # pragma: no cover - not Linux
        pass

    def watch() -> None:
        while True:
            if os.getppid() != parent:
                os._exit(1)
            time.sleep(1.0)

    if os.getppid() != parent:
        os._exit(1)
    threading.Thread(target=watch, name="wifitcp-parent-watch", daemon=True).start()


def _stop_pool(pool: Any) -> None:
    """Cancel what has not started and end the workers now (Ctrl-C)."""
    procs = list((getattr(pool, "_processes", None) or {}).values())  # shutdown clears it
    pool.shutdown(wait=False, cancel_futures=True)
    for proc in procs:
        with contextlib.suppress(Exception):
            proc.kill()


def run_dir(base: Any, spec: RunSpec) -> Optional[str]:
    """Where run ``spec`` writes its files (pcap, trace) under ``base``:
    ``BASE/<scenario>/run<index>-seed<seed>/`` (None without ``base``)."""
    if base is None:
        return None
    safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in spec.scenario) or "scenario"
    return os.path.join(str(base), safe, f"run{spec.index}-seed{spec.seed}")


def run_all(items: Sequence[tuple[RunSpec, dict]], jobs: int = 1,
            dask: Any = None, on_progress: Any = None, pcap: Any = None,
            trace: Any = None) -> Iterator[RunOutcome]:
    """Run every (spec, normalised config); yield outcomes as they finish.

    With ``dask`` (an address, ``"local"``, a ``distributed.Client`` or a
    cluster) the runs go to that cluster. Otherwise ``jobs <= 1`` (or a
    single run) runs in this process, and larger ``jobs`` a pool of worker
    processes (spawned, so no state is inherited; each dies with this
    process, `_worker_init`). Runs in this process report
    ``on_progress(spec, sim_s, end_s, events, wall_s)`` about every 50 ms
    of wall time, if given. Ctrl-C stops the runs under way within a
    fraction of a second (finished runs have been yielded already). With
    ``pcap`` (a directory) every run writes its packet captures into
    `run_dir` (on the worker's file system, for dask); with ``trace`` its
    per-packet trace (``packets.parquet``) likewise.
    """
    if dask is not None:
        from .dask_backend import run_dask

        yield from run_dask(items, dask, jobs=jobs, pcap=pcap, trace=trace)
        return
    if jobs <= 1 or len(items) <= 1:
        for spec, config in items:
            progress = None
            if on_progress is not None:
                def progress(sim_s, end_s, events, wall_s, spec=spec):
                    on_progress(spec, sim_s, end_s, events, wall_s)
            yield _outcome_here(spec, config, *_run_parsed(core.to_json(spec.config), spec.seed,
                                                           progress, run_dir(pcap, spec),
                                                           run_dir(trace, spec)))
        return
    # Imported here: a single-process run (the CLI's common case) should not
    # pay for loading multiprocessing (about 60 ms of start-up).
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor, as_completed

    ctx = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(max_workers=min(jobs, len(items)), mp_context=ctx,
                             initializer=_worker_init, initargs=(os.getpid(),)) as pool:
        pending = {}
        with main_not_reimported():  # the pool starts its processes on submit
            for spec, config in items:
                fut = pool.submit(_execute, core.to_json(spec.config), spec.seed, None,
                                  run_dir(pcap, spec), run_dir(trace, spec))
                pending[fut] = (spec, config)
        try:
            # (as_completed waits on every future once; wait() in a loop would
            # wait on all pending ones again after each run)
            for fut in as_completed(list(pending)):
                spec, config = pending.pop(fut)
                try:
                    got = fut.result()
                except Exception as e:  # worker died (e.g. killed, abort)
                    got = ("", 0.0, f"worker failed: {type(e).__name__}: {e}")
                yield _outcome(spec, config, *got)
        except BaseException:  # KeyboardInterrupt, or the consumer stopped
            _stop_pool(pool)
            raise
        finally:
            for fut in pending:
                fut.cancel()

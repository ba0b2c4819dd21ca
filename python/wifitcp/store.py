"""DuckDB results store (schema documented in docs/results.md).

Tables: ``runs`` (one row per run), ``flows`` (one row per traffic flow of a
run), ``stations`` (one row per station of a run). Each run is written in
its own transaction, so an interrupted sweep leaves only whole runs behind.
Fields of the result JSON this module does not know are kept: the whole
result in ``runs.result_json`` and unknown per-flow / per-station keys in the
``extra`` column of ``flows`` / ``stations``.

Every run has a ``run_key``: sha256 of (scenario content hash, params, seed,
core version). A store holds at most one finished run per key (writing a run
replaces any earlier row with its key, in the same transaction), which is
what lets an interrupted campaign resume: it skips the keys already present.
Runs that failed go to the ``failures`` table with their error; a later
success of the same key removes the failure.

Every run also records where it came from (schema 3): ``source`` (the git
commit of the source tree, or the installed package's version), ``command``
and ``host`` (`wifitcp.provenance`). For analysis, `wifitcp.tidy` reads a
store into typed long-format tables.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
from typing import Any, Iterator, Optional, Union

from .errors import InputError

SCHEMA_VERSION = 3

_SCHEMA = """
CREATE SEQUENCE IF NOT EXISTS run_id_seq START 1;
CREATE TABLE IF NOT EXISTS meta (
    key VARCHAR PRIMARY KEY,
    value VARCHAR
);
CREATE TABLE IF NOT EXISTS runs (
    run_id BIGINT PRIMARY KEY,
    scenario VARCHAR NOT NULL,
    scenario_hash VARCHAR NOT NULL,
    params JSON NOT NULL,
    seed UBIGINT NOT NULL,
    version VARCHAR,
    wall_time_s DOUBLE,
    duration_s DOUBLE,
    events UBIGINT,
    aggregate_mbps DOUBLE,
    aggregate_msdu_mbps DOUBLE,
    collision_probability DOUBLE,
    ledger_generated UBIGINT,
    ledger_delivered UBIGINT,
    ledger_in_flight UBIGINT,
    ledger_dropped JSON,
    config_json JSON NOT NULL,
    result_json JSON NOT NULL,
    created_at TIMESTAMP NOT NULL DEFAULT current_timestamp,
    run_key VARCHAR,
    source VARCHAR,
    command VARCHAR,
    host VARCHAR
);
CREATE TABLE IF NOT EXISTS failures (
    run_key VARCHAR NOT NULL,
    scenario VARCHAR NOT NULL,
    scenario_hash VARCHAR NOT NULL,
    params JSON NOT NULL,
    seed UBIGINT NOT NULL,
    version VARCHAR,
    error VARCHAR NOT NULL,
    wall_time_s DOUBLE,
    config_json JSON NOT NULL,
    created_at TIMESTAMP NOT NULL DEFAULT current_timestamp
);
CREATE TABLE IF NOT EXISTS flows (
    run_id BIGINT NOT NULL,
    flow_index INTEGER NOT NULL,
    name VARCHAR,
    kind VARCHAR,
    src VARCHAR,
    dst VARCHAR,
    goodput_mbps DOUBLE,
    msdu_mbps DOUBLE,
    packets_generated UBIGINT,
    packets_delivered UBIGINT,
    bytes_delivered UBIGINT,
    mean_delay_ms DOUBLE,
    extra JSON,
    PRIMARY KEY (run_id, flow_index)
);
CREATE TABLE IF NOT EXISTS stations (
    run_id BIGINT NOT NULL,
    station_index INTEGER NOT NULL,
    name VARCHAR,
    attempts UBIGINT,
    successes UBIGINT,
    collisions UBIGINT,
    retries UBIGINT,
    drops_retry_limit UBIGINT,
    drops_queue_full UBIGINT,
    drops JSON,
    collision_probability DOUBLE,
    extra JSON,
    PRIMARY KEY (run_id, station_index)
);
"""

FLOW_FIELDS = ["name", "kind", "src", "dst", "goodput_mbps", "msdu_mbps",
               "packets_generated", "packets_delivered", "bytes_delivered",
               "mean_delay_ms"]
STATION_FIELDS = ["name", "attempts", "successes", "collisions", "retries",
                  "collision_probability"]
TABLES = ["runs", "flows", "stations", "failures"]


def _duck_reason(e: Exception) -> str:
    """DuckDB's message without its class prefix ("IO Error: ...")."""
    msg = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
    head, sep, rest = msg.partition(": ")
    return rest if sep and head.endswith("Error") and " " in head and len(head) < 30 else msg


def run_key(scenario_hash: str, params: dict, seed: int, version: str) -> str:
    """The identity of a run: sha256 of its canonical (hash, params, seed, version)."""
    text = json.dumps([scenario_hash, params, int(seed), version], sort_keys=True,
                      separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


def _dumps(v: Any) -> Optional[str]:
    return None if v is None else json.dumps(v, sort_keys=False)


def _num(v: Any) -> Any:
    """Numbers pass; anything else (strings, dicts) becomes NULL."""
    if isinstance(v, bool):
        return int(v)
    return v if isinstance(v, (int, float)) else None


def _uint(v: Any) -> Optional[int]:
    v = _num(v)
    if v is None:
        return None
    return int(v) if v >= 0 else None


#: the ``runs`` columns `add_run` writes, in the order of its values
RUN_COLUMNS = ["run_id", "scenario", "scenario_hash", "params", "seed", "version",
               "wall_time_s", "duration_s", "events", "aggregate_mbps", "aggregate_msdu_mbps",
               "collision_probability", "ledger_generated", "ledger_delivered",
               "ledger_in_flight", "ledger_dropped", "config_json", "result_json", "run_key",
               "source", "command", "host"]
#: provenance columns of ``runs`` (`wifitcp.provenance`), added by schema 3
PROVENANCE = ["source", "command", "host"]


#: the result's members the ``runs`` row reads, in `_run_values`' order
_RUN_KEYS = ("duration_s", "events", "aggregate_mbps", "aggregate_msdu_mbps",
             "collision_probability", "ledger")


def _run_values(result: dict) -> list:
    """The ``runs`` columns ``duration_s`` .. ``ledger_dropped`` of a result."""
    duration, events, agg, agg_msdu, p_coll, ledger = (result.get(k) for k in _RUN_KEYS)
    ledger = ledger if isinstance(ledger, dict) else {}
    return [_num(duration), _uint(events), _num(agg), _num(agg_msdu), _num(p_coll),
            _uint(ledger.get("generated")), _uint(ledger.get("delivered")),
            _uint(ledger.get("in_flight")), _dumps(ledger.get("dropped"))]


def _flow_row(i: int, f: Any) -> list:
    """The ``flows`` row of the result's ``i``-th flow, ``run_id`` aside."""
    f = f if isinstance(f, dict) else {}
    extra = {k: v for k, v in f.items() if k not in FLOW_FIELDS}
    return [i, f.get("name"), f.get("kind"), f.get("src"), f.get("dst"),
            _num(f.get("goodput_mbps")), _num(f.get("msdu_mbps")),
            _uint(f.get("packets_generated")), _uint(f.get("packets_delivered")),
            _uint(f.get("bytes_delivered")), _num(f.get("mean_delay_ms")),
            _dumps(extra or None)]


def _station_row(i: int, s: Any) -> list:
    """The ``stations`` row of the result's ``i``-th station, ``run_id`` aside."""
    s = s if isinstance(s, dict) else {}
    drops = s.get("drops") if isinstance(s.get("drops"), dict) else {}
    extra = {k: v for k, v in s.items() if k not in STATION_FIELDS + ["drops"]}
    return [i, s.get("name"), _uint(s.get("attempts")),
            _uint(s.get("successes")), _uint(s.get("collisions")),
            _uint(s.get("retries")), _uint(drops.get("retry_limit")),
            _uint(drops.get("queue_full")), _dumps(drops or None),
            _num(s.get("collision_probability")), _dumps(extra or None)]


def result_rows(result: dict) -> tuple:
    """What `Store.add_run` writes for one parsed result, run ids aside.

    ``(run_values, flow_rows, station_rows)``: the values of the ``runs``
    columns ``duration_s`` .. ``ledger_dropped`` and one list per row of
    ``flows`` / ``stations`` without its ``run_id``. A pure function of the
    result, so a worker process can compute it from the result it has just
    parsed and the process holding the store need not parse it again.
    """
    flows = result.get("flows") or []
    stations = result.get("stations") or []
    return (_run_values(result),
            [_flow_row(i, f) for i, f in enumerate(flows if isinstance(flows, list) else [])],
            [_station_row(i, s) for i, s in enumerate(stations if isinstance(stations, list) else [])])


_SPACE = re.compile(r"[ \t\n\r]*")
#: the result's members that make rows one element at a time
_BY_ELEMENT = {"flows": _flow_row, "stations": _station_row}


def result_rows_of_text(text: str, whole_below: int = 1 << 20) -> tuple:
    """``result_rows(json.loads(text))``, without holding the parsed result.

    The ``flows`` and ``stations`` arrays are decoded an element at a time,
    each element turned into its row and let go; the other members are
    decoded whole, and only those the ``runs`` row reads are kept. A
    result of thousands of stations parses to several kilobytes a station,
    which the process keeps once freed (docs/performance.md); the rows
    alone are a fraction of that. A text shorter than ``whole_below``
    characters, and anything but a JSON object whose keys each occur once
    (what the core writes), is parsed whole instead: for a result of tens
    of flows decoding it an element at a time takes about a third longer,
    and its memory does not matter.
    """
    if len(text) >= whole_below:
        try:
            kept, made = _members(text)
        except ValueError:  # (json.JSONDecodeError too): parsed whole below
            pass
        else:
            plain = result_rows(kept)
            return (plain[0], made.get("flows", plain[1]), made.get("stations", plain[2]))
    parsed = json.loads(text)
    return result_rows(parsed if isinstance(parsed, dict) else {})


def _members(text: str) -> tuple[dict, dict]:
    """The top-level members of the JSON object ``text`` that the ``runs``
    row reads, and the rows of its ``flows`` and ``stations`` arrays
    (`result_rows_of_text`); ValueError for anything else."""
    scan_once = json.JSONDecoder().scan_once

    def value_at(at: int) -> tuple[Any, int]:
        try:
            return scan_once(text, at)
        except StopIteration:
            raise ValueError(f"no value at {at}") from None

    def skip(at: int) -> int:
        return _SPACE.match(text, at).end()

    def expect(at: int, chars: str) -> tuple[str, int]:
        c = text[at:at + 1]
        if not c or c not in chars:
            raise ValueError(f"expected one of {chars!r} at {at}")
        return c, skip(at + 1)

    kept: dict = {}
    made: dict = {}
    seen: set = set()
    _, at = expect(skip(0), "{")
    end = text[at:at + 1] == "}"
    at = at + 1 if end else at
    while not end:
        _, at = expect(at, '"')
        key, at = json.decoder.scanstring(text, at)
        if key in seen:
            raise ValueError(f"{key!r} twice")
        seen.add(key)
        _, at = expect(skip(at), ":")
        row = _BY_ELEMENT.get(key)
        if row is not None and text[at:at + 1] == "[":
            rows: list = []
            at = skip(at + 1)
            done = text[at:at + 1] == "]"
            at = at + 1 if done else at
            while not done:
                value, at = value_at(at)
                rows.append(row(len(rows), value))
                sep, at = expect(skip(at), ",]")
                done = sep == "]"
            made[key] = rows
        else:
            value, at = value_at(at)
            if key in _RUN_KEYS or key in _BY_ELEMENT:
                kept[key] = value
        sep, at = expect(skip(at), ",}")
        end = sep == "}"
    if at != len(text):
        raise ValueError("extra data")
    return kept, made


def _as_dict(v: Any) -> dict:
    return v if isinstance(v, dict) else {}


class Store:
    """A DuckDB results file. Use as a context manager or call close()."""

    #: write rows through DuckDB appenders when duckdb-python has them (the
    #: same values either way; False forces the INSERT statements)
    use_appenders = True

    def __init__(self, path: Union[str, os.PathLike], read_only: bool = False):
        from pathlib import Path

        import duckdb

        self.path = str(path)
        self._appenders: Optional[dict] = None
        self._con: Any = None
        p = Path(self.path)
        if p.is_dir():
            raise InputError(self.path, "", "is a directory, not a DuckDB store file")
        if read_only and not p.exists():
            raise InputError(self.path, "", "no such store")
        if not read_only:
            try:
                p.parent.mkdir(parents=True, exist_ok=True)
            except (FileExistsError, NotADirectoryError):
                raise InputError(self.path, "", "cannot create its folder: a part of the path is a "
                                                "file, not a folder") from None
            except OSError as e:
                raise InputError(self.path, "", f"cannot create its folder: {e.strerror or e}") from None
        try:
            self._con = duckdb.connect(self.path, read_only=read_only)
        except duckdb.Error as e:
            raise InputError(self.path, "", f"cannot open the store: {_duck_reason(e)}") from None
        if not read_only:
            try:
                self.con.execute(_SCHEMA)
                self._migrate()
                self.con.execute(
                    "INSERT OR REPLACE INTO meta VALUES ('schema_version', ?)",
                    [str(SCHEMA_VERSION)])
            except duckdb.Error as e:
                self._abort(e)

    def _migrate(self) -> None:
        """Schema 1 -> 2: add ``runs.run_key`` and fill it for old rows;
        2 -> 3: add the provenance columns (NULL for old rows)."""
        con = self.con
        con.execute("ALTER TABLE runs ADD COLUMN IF NOT EXISTS run_key VARCHAR")
        for col in PROVENANCE:
            con.execute(f"ALTER TABLE runs ADD COLUMN IF NOT EXISTS {col} VARCHAR")
        old = con.execute("SELECT run_id, scenario_hash, params, seed, version FROM runs "
                          "WHERE run_key IS NULL").fetchall()
        if not old:
            return
        con.execute("BEGIN TRANSACTION")
        try:
            for rid, h, params, seed, version in old:
                key = run_key(h, json.loads(params), seed, version or "")
                con.execute("UPDATE runs SET run_key = ? WHERE run_id = ?", [key, rid])
            con.execute("COMMIT")
        except Exception as e:
            self._abort(e)

    @contextlib.contextmanager
    def one_thread(self) -> Iterator[None]:
        """DuckDB on one thread while this block runs (then as before).

        For a campaign's run-by-run writes: each run's transaction is a few
        small statements, whose tasks DuckDB otherwise hands to its worker
        threads (one per core) and back, which costs about a third more CPU
        per run (taken from the campaign's own worker processes).
        """
        old = self.con.execute("SELECT current_setting('threads')").fetchall()[0][0]
        self.con.execute("SET threads = 1")
        try:
            yield
        finally:
            self.con.execute(f"SET threads = {int(old)}")

    def has_table(self, name: str) -> bool:
        return bool(self.con.execute(
            "SELECT count(*) FROM information_schema.tables WHERE table_name = ?",
            [name]).fetchone()[0])

    def __enter__(self) -> "Store":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def _abort(self, e: Exception) -> None:
        """End the transaction a statement failed in and raise: a write
        error (a full disk, ...) as an `InputError` naming the store, one
        line; anything else as it is. DuckDB may have aborted the
        transaction itself (a failed write does): the ROLLBACK then finds
        none, which is no new error. The runs committed before are kept."""
        import duckdb

        try:
            self.con.execute("ROLLBACK")
        except duckdb.Error:
            pass
        if isinstance(e, (duckdb.IOException, OSError)) or (
                isinstance(e, duckdb.Error) and "No space left" in str(e)):
            raise InputError(self.path, "", f"cannot write: {_duck_reason(e)} (the runs stored "
                                            "before are kept)") from None
        raise e

    @property
    def con(self) -> Any:
        """The DuckDB connection; an `InputError` once the store is closed."""
        if self._con is None:
            raise InputError(self.path, "", "the store is closed (Store.close() was called)")
        return self._con

    def close(self) -> None:
        """Close the store (again: nothing happens)."""
        import duckdb

        self._appenders = None
        if self._con is not None:
            con, self._con = self._con, None
            try:
                con.close()
            except duckdb.Error as e:  # the last checkpoint's write
                raise InputError(self.path, "", f"cannot write: {_duck_reason(e)}") from None

    # -- writing ---------------------------------------------------------
    def delete_scenario(self, scenario: str) -> int:
        """Remove every run (and its rows) of a scenario; returns the count."""
        con = self.con
        con.execute("BEGIN TRANSACTION")
        try:
            ids = [r[0] for r in con.execute(
                "SELECT run_id FROM runs WHERE scenario = ?", [scenario]).fetchall()]
            for table in ("flows", "stations"):
                con.execute(f"DELETE FROM {table} WHERE run_id IN "
                            "(SELECT run_id FROM runs WHERE scenario = ?)", [scenario])
            con.execute("DELETE FROM runs WHERE scenario = ?", [scenario])
            con.execute("DELETE FROM failures WHERE scenario = ?", [scenario])
            con.execute("COMMIT")
        except Exception as e:
            self._abort(e)
        return len(ids)

    def add_run(self, *, scenario: str, scenario_hash: str, params: dict, seed: int,
                version: str, wall_time_s: float, config: dict, result: Optional[dict] = None,
                result_json: Optional[str] = None, key: Optional[str] = None,
                known_new: bool = False, rows: Optional[tuple] = None) -> int:
        """Insert one run with its flows and stations in one transaction.

        An earlier run with the same key (and a recorded failure of it) is
        removed in the same transaction: never two rows per key. A caller
        that has just checked that the key is in neither table may say so
        (``known_new``) to skip the deletes. ``rows`` is `result_rows` of
        the result if the caller has it already (then ``result`` is only
        needed when ``result_json`` is not given).
        """
        con = self.con
        key = key or run_key(scenario_hash, params, seed, version)
        if rows is None:
            rows = result_rows(result if result is not None else {})
        if result_json is None:
            result_json = json.dumps(result if result is not None else {})
        run_values, flow_rows, station_rows = rows
        prov = self.provenance()
        values = [scenario, scenario_hash, json.dumps(params), int(seed), version,
                  float(wall_time_s), *run_values, json.dumps(config, sort_keys=True),
                  result_json, key, *(prov.get(k) for k in PROVENANCE)]
        con.execute("BEGIN TRANSACTION")
        try:
            if not known_new:
                self._delete_key(key)
            run_id = self._insert_run(values)
            self._insert_rows("flows", [[run_id, *r] for r in flow_rows])
            self._insert_rows("stations", [[run_id, *r] for r in station_rows])
            con.execute("COMMIT")
        except Exception as e:
            self._appenders = None  # rebuilt on the next run, nothing left buffered
            self._abort(e)
        return int(run_id)

    def provenance(self) -> dict:
        """What `add_run` records in the provenance columns: this process's
        `wifitcp.provenance.current` unless ``self.provenance_override``
        (a dict) is set."""
        override = getattr(self, "provenance_override", None)
        if override is not None:
            return override
        from .provenance import current

        return current()

    def _appender(self, table: str) -> Any:
        """A long-lived DuckDB appender for ``table`` (None: not available).

        duckdb-python has appenders from 2.0 on. Kept across runs: creating
        one plans its insert again, which costs more than the rows of a run.
        Each run's rows are flushed inside the run's transaction.
        """
        if self._appenders is None:
            if not hasattr(self.con, "appender"):
                return None
            self._appenders = {
                "runs": self.con.appender("runs", columns=RUN_COLUMNS),
                "flows": self.con.appender("flows"),
                "stations": self.con.appender("stations")}
        return self._appenders[table]

    def _insert_run(self, values: list) -> int:
        """The ``runs`` row (``RUN_COLUMNS`` but ``run_id``); returns its run_id."""
        app = self._appender("runs") if self.use_appenders else None
        if app is not None:
            run_id = self.con.execute("SELECT nextval('run_id_seq')").fetchall()[0][0]
            app.append_row(run_id, *values)
            app.flush()
            return run_id
        marks = ", ".join("?" for _ in values)
        return self.con.execute(
            f"INSERT INTO runs ({', '.join(RUN_COLUMNS)}) "
            f"VALUES (nextval('run_id_seq'), {marks}) RETURNING run_id",
            values).fetchall()[0][0]

    def _insert_rows(self, table: str, rows: list) -> None:
        """Rows through the table's appender, else in few multi-row INSERTs.

        (DuckDB's executemany costs ~10 ms a row; each parameter of an INSERT
        ~20 us to parse, bind and plan, which an appender kept across runs
        mostly avoids.)
        """
        if not rows:
            return
        app = self._appender(table) if self.use_appenders else None
        if app is not None:
            app.append_rows(rows)
            app.flush()
            return
        one = "(" + ", ".join("?" for _ in rows[0]) + ")"
        for i in range(0, len(rows), 200):
            chunk = rows[i:i + 200]
            self.con.execute(f"INSERT INTO {table} VALUES " + ", ".join([one] * len(chunk)),
                             [v for r in chunk for v in r])

    def failure_keys(self) -> set:
        """Keys of the runs recorded as failed."""
        if not self.has_table("failures"):
            return set()
        return {r[0] for r in self.con.execute(
            "SELECT DISTINCT run_key FROM failures").fetchall()}

    def _delete_key(self, key: str) -> None:
        con = self.con
        for table in ("flows", "stations"):
            con.execute(f"DELETE FROM {table} WHERE run_id IN "
                        "(SELECT run_id FROM runs WHERE run_key = ?)", [key])
        con.execute("DELETE FROM runs WHERE run_key = ?", [key])
        con.execute("DELETE FROM failures WHERE run_key = ?", [key])

    def add_failure(self, *, scenario: str, scenario_hash: str, params: dict, seed: int,
                    version: str, error: str, wall_time_s: float, config: dict,
                    key: Optional[str] = None) -> str:
        """Record a failed run (replacing an earlier failure of the same key).

        A finished run with the same key, if any, is left alone.
        """
        con = self.con
        key = key or run_key(scenario_hash, params, seed, version)
        con.execute("BEGIN TRANSACTION")
        try:
            con.execute("DELETE FROM failures WHERE run_key = ?", [key])
            con.execute(
                """INSERT INTO failures (run_key, scenario, scenario_hash, params, seed,
                       version, error, wall_time_s, config_json)
                   VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)""",
                [key, scenario, scenario_hash, json.dumps(params), int(seed), version,
                 str(error), float(wall_time_s), json.dumps(config, sort_keys=True)])
            con.execute("COMMIT")
        except Exception as e:
            self._abort(e)
        return key

    # -- reading ---------------------------------------------------------
    def query(self, sql: str, params: Optional[list] = None) -> list[dict]:
        cur = self.con.execute(sql, params or [])
        cols = [d[0] for d in cur.description]
        return [dict(zip(cols, row)) for row in cur.fetchall()]

    def runs(self, scenario: Optional[str] = None) -> list[dict]:
        where, args = ("WHERE scenario = ?", [scenario]) if scenario else ("", [])
        rows = self.query(f"SELECT * FROM runs {where} ORDER BY run_id", args)
        for r in rows:
            for k in ("params", "config_json", "result_json", "ledger_dropped"):
                if isinstance(r.get(k), str):
                    r[k] = json.loads(r[k])
        return rows

    def finished_keys(self) -> set:
        """Keys of the runs stored as finished."""
        return {r[0] for r in self.con.execute(
            "SELECT DISTINCT run_key FROM runs WHERE run_key IS NOT NULL").fetchall()}

    def failures(self, scenario: Optional[str] = None) -> list[dict]:
        """Recorded failures (empty for a schema-1 store, which has none)."""
        if not self.has_table("failures"):
            return []
        where, args = ("WHERE scenario = ?", [scenario]) if scenario else ("", [])
        rows = self.query(f"SELECT * FROM failures {where} ORDER BY created_at", args)
        for r in rows:
            for k in ("params", "config_json"):
                if isinstance(r.get(k), str):
                    r[k] = json.loads(r[k])
        return rows

    def frame(self, sql: str = "SELECT * FROM runs ORDER BY run_id",
              params: Optional[list] = None, kind: Optional[str] = None) -> Any:
        """A query's result as a pandas (``kind="pandas"``) or polars data frame."""
        from .frames import frame_kind

        rel = self.con.sql(sql, params=params or None)
        return rel.pl() if frame_kind(kind) == "polars" else rel.df()

    def export_parquet(self, directory: Union[str, os.PathLike]) -> list[str]:
        """Write each table to DIR/<table>.parquet; returns the paths.

        JSON columns are written as text (Parquet strings): DuckDB's JSON
        type would otherwise reach Parquet as bytes, which polars reads as
        Binary.
        """
        from pathlib import Path

        d = Path(directory)
        d.mkdir(parents=True, exist_ok=True)
        out = []
        for table in TABLES:
            if not self.has_table(table):
                continue
            path = d / f"{table}.parquet"
            target = str(path).replace("'", "''")
            cols = self.con.execute(
                "SELECT column_name, data_type FROM information_schema.columns "
                "WHERE table_name = ? ORDER BY ordinal_position", [table]).fetchall()
            select = ", ".join(f'CAST("{c}" AS VARCHAR) AS "{c}"' if t == "JSON" else f'"{c}"'
                               for c, t in cols)
            self.con.execute(f"COPY (SELECT {select} FROM {table} ORDER BY ALL) "
                             f"TO '{target}' (FORMAT PARQUET)")
            out.append(str(path))
        return out

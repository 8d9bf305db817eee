"""The results store: one SQLite file, safe under concurrent writers.

The database runs in WAL mode; every write is one ``BEGIN IMMEDIATE`` transaction
with a generous busy timeout, so runs in parallel processes never lose a row and
readers never block writers. A run is inserted as ``running`` before it starts and
finished as ``succeeded`` or ``failed`` in one transaction with its rows, so a
crash leaves either nothing or a complete record. Runs whose process died without
finishing are marked failed by :meth:`ResultsStore.reap`.
"""

from __future__ import annotations

import json
import os
import socket
import sqlite3
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from paperzoo.errors import StoreError, UnknownNameError
from paperzoo.results import Artifact, Result, Row
from paperzoo.sqlite import Database

__all__ = ["ResultsStore", "RunRecord"]

SCHEMA_VERSION = 2
_SCHEMA = """
CREATE TABLE IF NOT EXISTS runs (
    id          TEXT PRIMARY KEY,
    experiment  TEXT NOT NULL,
    plugin      TEXT NOT NULL DEFAULT '',
    scale       TEXT NOT NULL,
    seed        INTEGER NOT NULL,
    settings    TEXT NOT NULL DEFAULT '{}',
    sweep       TEXT,
    status      TEXT NOT NULL CHECK (status IN ('running', 'succeeded', 'failed')),
    error       TEXT,
    started     REAL NOT NULL,
    ended       REAL,
    dir         TEXT NOT NULL,
    host        TEXT NOT NULL DEFAULT '',
    pid         INTEGER,
    versions    TEXT NOT NULL DEFAULT '{}',
    notes       TEXT NOT NULL DEFAULT ''
);
CREATE INDEX IF NOT EXISTS runs_by_experiment ON runs (experiment, started);
CREATE TABLE IF NOT EXISTS rows (
    run_id   TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    idx      INTEGER NOT NULL,
    metric   TEXT NOT NULL,
    value    REAL,
    paper    REAL,
    unit     TEXT NOT NULL DEFAULT '',
    setting  TEXT NOT NULL DEFAULT '',
    ref_source TEXT NOT NULL DEFAULT '',
    ref_kind   TEXT NOT NULL DEFAULT '',
    PRIMARY KEY (run_id, idx)
);
CREATE TABLE IF NOT EXISTS artifacts (
    run_id  TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    idx     INTEGER NOT NULL,
    path    TEXT NOT NULL,
    kind    TEXT NOT NULL DEFAULT 'file',
    title   TEXT NOT NULL DEFAULT '',
    PRIMARY KEY (run_id, idx)
);
"""
_MIGRATIONS = {
    2: "ALTER TABLE rows ADD COLUMN ref_source TEXT NOT NULL DEFAULT '';"
    "ALTER TABLE rows ADD COLUMN ref_kind TEXT NOT NULL DEFAULT ''",
}
"""Statements that bring a store of the previous version to each version."""


@dataclass
class RunRecord:
    """One run as the store knows it.

    Attributes:
        id: Run id, e.g. ``"20261130-101500-revdiv.synthetic-3f2a1c"``.
        experiment: Experiment name.
        plugin: Plugin that registered the experiment.
        scale: ``smoke``, ``default`` or ``paper``.
        seed: The seed.
        settings: The settings it ran with (defaults plus overrides).
        sweep: Id shared by the runs of one sweep, if any.
        status: ``running``, ``succeeded`` or ``failed``.
        error: ``"Type: message"`` for failed runs.
        started: Start time (Unix seconds).
        ended: End time, if ended.
        dir: The run directory.
        host: Host name of the machine that ran it.
        pid: Process id that ran it.
        versions: Package versions (core, plugin, python).
        notes: The result's notes.
    """

    id: str
    experiment: str
    scale: str
    seed: int
    dir: str
    plugin: str = ""
    settings: dict[str, Any] = field(default_factory=dict)
    sweep: str | None = None
    status: str = "running"
    error: str | None = None
    started: float = field(default_factory=time.time)
    ended: float | None = None
    host: str = field(default_factory=socket.gethostname)
    pid: int | None = field(default_factory=os.getpid)
    versions: dict[str, str] = field(default_factory=dict)
    notes: str = ""

    @property
    def duration(self) -> float | None:
        """Seconds from start to end, if ended."""
        return None if self.ended is None else self.ended - self.started

    def to_dict(self) -> dict[str, Any]:
        """Plain data."""
        return {**self.__dict__, "duration": self.duration}


def _record(row: sqlite3.Row) -> RunRecord:
    data = dict(row)
    data["settings"] = json.loads(data["settings"])
    data["versions"] = json.loads(data["versions"])
    return RunRecord(**data)


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


class ResultsStore:
    """The SQLite results store at ``path`` (created on first write).

    Args:
        path: Database file, by default ``<home>/results.sqlite``.
        timeout: Seconds to wait for a concurrent writer before giving up.
    """

    def __init__(self, path: str | os.PathLike[str], *, timeout: float = 60.0) -> None:
        self.path = Path(path)
        self._db = Database(
            self.path,
            schema=_SCHEMA,
            version=SCHEMA_VERSION,
            migrations=_MIGRATIONS,
            what="results store",
            hint="if the file is corrupt, move it away; runs directories keep every result",
            timeout=timeout,
        )

    @contextmanager
    def _connect(self, *, write: bool) -> Iterator[sqlite3.Connection]:
        with self._db.connect(write=write) as conn:
            yield conn

    # ------------------------------------------------------------------- writes

    def start(self, record: RunRecord) -> None:
        """Insert ``record`` as a running run."""
        with self._connect(write=True) as conn:
            self._insert(conn, record)

    def add_finished(self, record: RunRecord, result: Result | None) -> None:
        """Insert a run that ran elsewhere (another machine's home) already finished, in one transaction.

        Succeeded with ``result``'s rows and artifacts, or failed with ``record.error``
        when ``result`` is ``None``; ``record.ended`` is kept. A crash leaves no row.
        """
        with self._connect(write=True) as conn:
            self._insert(conn, record)
            if result is None:
                self._end(conn, record.id, "failed", record.error or "failed", record.ended, "")
            else:
                self._end(conn, record.id, "succeeded", None, record.ended, result.notes)
                self._insert_result(conn, record.id, result)

    @staticmethod
    def _insert(conn: sqlite3.Connection, record: RunRecord) -> None:
        conn.execute(
            "INSERT INTO runs (id, experiment, plugin, scale, seed, settings, sweep, status,"
            " started, dir, host, pid, versions) VALUES (?,?,?,?,?,?,?,'running',?,?,?,?,?)",
            (
                record.id,
                record.experiment,
                record.plugin,
                record.scale,
                record.seed,
                json.dumps(record.settings, default=str),
                record.sweep,
                record.started,
                record.dir,
                record.host,
                record.pid,
                json.dumps(record.versions),
            ),
        )

    def succeed(self, run_id: str, result: Result, *, ended: float | None = None) -> None:
        """Mark a run succeeded and store its rows and artifacts, atomically."""
        with self._connect(write=True) as conn:
            self._end(conn, run_id, "succeeded", None, ended, result.notes)
            self._insert_result(conn, run_id, result)

    @staticmethod
    def _insert_result(conn: sqlite3.Connection, run_id: str, result: Result) -> None:
        conn.executemany(
            "INSERT INTO rows (run_id, idx, metric, value, paper, unit, setting, ref_source, ref_kind)"
            " VALUES (?,?,?,?,?,?,?,?,?)",
            [
                (run_id, i, r.metric, r.value, r.paper, r.unit, r.setting, r.ref_source, r.ref_kind)
                for i, r in enumerate(result.rows)
            ],
        )
        conn.executemany(
            "INSERT INTO artifacts (run_id, idx, path, kind, title) VALUES (?,?,?,?,?)",
            [(run_id, i, a.path, a.kind, a.title) for i, a in enumerate(result.artifacts)],
        )

    def fail(self, run_id: str, error: str, *, ended: float | None = None) -> None:
        """Mark a run failed with ``error``."""
        with self._connect(write=True) as conn:
            self._end(conn, run_id, "failed", error, ended, "")

    @staticmethod
    def _end(
        conn: sqlite3.Connection,
        run_id: str,
        status: str,
        error: str | None,
        ended: float | None,
        notes: str,
    ) -> None:
        cur = conn.execute(
            "UPDATE runs SET status = ?, error = ?, ended = ?, notes = ? WHERE id = ?",
            (status, error, time.time() if ended is None else ended, notes, run_id),
        )
        if cur.rowcount != 1:
            raise StoreError(
                f"run {run_id} is not in the results store",
                hint="it was deleted while running; its directory still holds its files",
            )

    def reap(self) -> int:
        """Mark failed the running runs of this host whose process is gone.

        Returns:
            How many runs were marked failed.
        """
        host = socket.gethostname()
        with self._connect(write=False) as conn:
            rows = conn.execute(
                "SELECT id, pid FROM runs WHERE status = 'running' AND host = ?", (host,)
            ).fetchall()
        dead = [r["id"] for r in rows if r["pid"] is not None and not _pid_alive(r["pid"])]
        if dead and os.access(self.path, os.W_OK) and os.access(self.path.parent, os.W_OK):
            with self._connect(write=True) as conn:
                conn.executemany(
                    "UPDATE runs SET status = 'failed', ended = ?, error = ? "
                    "WHERE id = ? AND status = 'running'",
                    [(time.time(), "Lost: the process ended without finishing the run", i) for i in dead],
                )
        return len(dead)

    def delete(self, run_ids: Sequence[str]) -> int:
        """Delete runs (and their rows) from the store; run directories are kept."""
        with self._connect(write=True) as conn:
            return conn.executemany("DELETE FROM runs WHERE id = ?", [(i,) for i in run_ids]).rowcount

    # -------------------------------------------------------------------- reads

    def runs(
        self,
        *,
        experiment: str | None = None,
        status: str | None = None,
        scale: str | None = None,
        plugin: str | None = None,
        sweep: str | None = None,
        limit: int | None = None,
    ) -> list[RunRecord]:
        """Runs matching every given filter, newest first.

        ``experiment`` may end with ``*`` to match a prefix (``"revdiv.*"``).
        """
        clauses: list[str] = []
        params: list[Any] = []
        if experiment is not None:
            if experiment.endswith("*"):
                clauses.append("experiment LIKE ? ESCAPE '\\'")
                prefix = experiment[:-1].replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
                params.append(prefix + "%")
            else:
                clauses.append("experiment = ?")
                params.append(experiment)
        for column, value in (("status", status), ("scale", scale), ("plugin", plugin), ("sweep", sweep)):
            if value is not None:
                clauses.append(f"{column} = ?")
                params.append(value)
        sql = "SELECT * FROM runs"
        if clauses:
            sql += " WHERE " + " AND ".join(clauses)
        sql += " ORDER BY started DESC, id DESC"
        if limit is not None:
            sql += " LIMIT ?"
            params.append(int(limit))
        with self._connect(write=False) as conn:
            return [_record(r) for r in conn.execute(sql, params).fetchall()]

    def get(self, run_id: str) -> RunRecord:
        """The run with this id, or the only one starting with it.

        Raises:
            UnknownNameError: none, or several, match.
        """
        with self._connect(write=False) as conn:
            rows = conn.execute(
                "SELECT * FROM runs WHERE id = ? OR id LIKE ? ESCAPE '\\' ORDER BY id LIMIT 3",
                (run_id, run_id.replace("%", "\\%").replace("_", "\\_") + "%"),
            ).fetchall()
        exact = [r for r in rows if r["id"] == run_id]
        if exact:
            return _record(exact[0])
        if len(rows) == 1:
            return _record(rows[0])
        if not rows:
            raise UnknownNameError(f"no run {run_id!r}", hint="see 'paperzoo runs'")
        raise UnknownNameError(f"run id {run_id!r} is ambiguous", hint="give more characters of the id")

    def result(self, run_id: str) -> Result:
        """The stored result of a run (empty for runs that did not succeed)."""
        with self._connect(write=False) as conn:
            rows = conn.execute(
                "SELECT metric, value, paper, unit, setting, ref_source, ref_kind FROM rows"
                " WHERE run_id = ? ORDER BY idx",
                (run_id,),
            ).fetchall()
            arts = conn.execute(
                "SELECT path, kind, title FROM artifacts WHERE run_id = ? ORDER BY idx", (run_id,)
            ).fetchall()
            notes = conn.execute("SELECT notes FROM runs WHERE id = ?", (run_id,)).fetchone()
        return Result(
            rows=[Row(**dict(r)) for r in rows],
            artifacts=[Artifact(**dict(a)) for a in arts],
            notes=notes["notes"] if notes else "",
        )

    def experiments(self) -> list[str]:
        """Names of all experiments with at least one run, sorted."""
        with self._connect(write=False) as conn:
            return [r[0] for r in conn.execute("SELECT DISTINCT experiment FROM runs ORDER BY 1")]

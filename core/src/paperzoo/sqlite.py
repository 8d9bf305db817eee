"""SQLite files shared by concurrent processes: WAL, busy timeout, one transaction per write.

Used by the results store and by plugins that keep their own state (the LLM
response cache), so that every database in paperzoo behaves the same under
parallel runs: readers never block writers, a writer waits for another instead
of failing, and a write is all or nothing.
"""

from __future__ import annotations

import random
import sqlite3
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

from paperzoo.errors import StoreError

__all__ = ["Database"]


class Database:
    """A SQLite file with a versioned schema.

    Args:
        path: The database file (created, with its directory, on first use).
        schema: ``;``-separated ``CREATE ... IF NOT EXISTS`` statements.
        version: Schema version stored in ``PRAGMA user_version``; a file with a
            newer version is refused rather than misread.
        migrations: ``{version: statements}`` that bring a file of version
            ``version - 1`` to ``version`` (a new file gets ``schema`` directly).
        what: What the database is, for error messages ("results store").
        hint: What to do when the file is unusable.
        timeout: Seconds to wait for a concurrent writer.
    """

    def __init__(
        self,
        path: str | Path,
        *,
        schema: str,
        version: int = 1,
        migrations: Mapping[int, str] | None = None,
        what: str = "database",
        hint: str = "if the file is corrupt, move it away",
        timeout: float = 60.0,
    ) -> None:
        self.path = Path(path)
        self.schema = schema
        self.version = version
        self.migrations = dict(migrations or {})
        self.what = what
        self.hint = hint
        self.timeout = timeout
        self._ready = False

    @contextmanager
    def connect(self, *, write: bool) -> Iterator[sqlite3.Connection]:
        """A connection; with ``write``, inside one ``BEGIN IMMEDIATE`` transaction.

        Reading a file that does not exist yet, or whose schema another process is
        still creating, reads an empty database (and creates no file).

        Raises:
            StoreError: the file cannot be opened, is corrupt or too new.
        """
        if not write and not self.path.exists():
            with self._empty() as conn:
                yield conn
            return
        try:
            if write:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                conn = sqlite3.connect(self.path, timeout=self.timeout, isolation_level=None)
            else:  # readers never write, so a read-only directory or file is fine
                conn = self._open_read_only()
        except (sqlite3.Error, OSError) as exc:
            raise StoreError(
                f"cannot open the {self.what} {self.path}: {exc}",
                hint="check PAPERZOO_HOME points at a local directory you can write to",
            ) from exc
        conn.row_factory = sqlite3.Row
        try:
            conn.execute(f"PRAGMA busy_timeout = {int(self.timeout * 1000)}")
            conn.execute("PRAGMA foreign_keys = ON")
            if write and not self._ready:
                self._migrate(conn)
            elif not write and self._check_version(conn) < self.version:
                conn.close()
                if self._upgrade():  # an older file: migrate it, then read it
                    with self.connect(write=False) as upgraded:
                        yield upgraded
                    return
                with self._empty() as empty:
                    yield empty
                return
            if write:
                conn.execute("BEGIN IMMEDIATE")
                try:
                    yield conn
                except BaseException:
                    conn.execute("ROLLBACK")
                    raise
                conn.execute("COMMIT")
            else:
                yield conn
        except sqlite3.DatabaseError as exc:
            text = str(exc)
            permission = any(w in text for w in ("readonly", "read-only", "unable to open", "permission"))
            hint = "check the permissions of the file and of PAPERZOO_HOME" if permission else self.hint
            raise StoreError(f"{self.what} {self.path} failed: {exc}", hint=hint) from exc
        finally:
            conn.close()

    @contextmanager
    def _empty(self) -> Iterator[sqlite3.Connection]:
        """An in-memory database with the schema and no rows."""
        conn = sqlite3.connect(":memory:")
        conn.row_factory = sqlite3.Row
        conn.executescript(self.schema)
        try:
            yield conn
        finally:
            conn.close()

    def _open_read_only(self) -> sqlite3.Connection:
        uri = self.path.resolve().as_uri()
        conn = sqlite3.connect(f"{uri}?mode=ro", uri=True, timeout=self.timeout, isolation_level=None)
        try:
            conn.execute("PRAGMA user_version")
        except sqlite3.OperationalError:
            # WAL readers need the -shm file; on a read-only file system nobody can be writing,
            # so reading the file as immutable is safe
            conn.close()
            conn = sqlite3.connect(f"{uri}?mode=ro&immutable=1", uri=True, isolation_level=None)
        return conn

    def _check_version(self, conn: sqlite3.Connection) -> int:
        found: int = conn.execute("PRAGMA user_version").fetchone()[0]
        if found > self.version:
            raise StoreError(
                f"{self.what} {self.path} has schema {found}, newer than this paperzoo understands "
                f"({self.version})",
                hint="upgrade paperzoo",
            )
        return found

    def _upgrade(self) -> bool:
        """Migrate an older file in place; ``False`` if it cannot be written (read it as empty)."""
        try:
            with self.connect(write=True):
                pass
        except StoreError:
            return False
        return True

    def _migrate(self, conn: sqlite3.Connection) -> None:
        self._use_wal(conn)
        if self._check_version(conn) < self.version:
            conn.execute("BEGIN IMMEDIATE")
            found = self._check_version(conn)  # somebody may have migrated while we waited
            if found == 0:
                statements = self.schema
            else:
                statements = ";".join(self.migrations.get(v, "") for v in range(found + 1, self.version + 1))
            if found < self.version:
                for statement in statements.split(";"):
                    if statement.strip():
                        conn.execute(statement)
                conn.execute(f"PRAGMA user_version = {self.version}")
            conn.execute("COMMIT")
        self._ready = True

    def _use_wal(self, conn: sqlite3.Connection) -> None:
        """Switch the file to WAL, retrying for up to ``timeout`` seconds.

        Processes that open a new file at the same moment all hold a shared lock
        and want an exclusive one for the switch: SQLite breaks that deadlock by
        failing one of them at once ("database is locked"), without the busy timeout.
        """
        deadline = time.monotonic() + self.timeout
        delay = 0.005
        while True:
            try:
                conn.execute("PRAGMA journal_mode = WAL")
                return
            except sqlite3.OperationalError as exc:
                if "locked" not in str(exc) or time.monotonic() >= deadline:
                    raise
            time.sleep(delay * (1 + random.random()))  # jitter: the contenders do not retry in step
            delay = min(2 * delay, 0.2)

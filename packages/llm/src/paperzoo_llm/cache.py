"""``ResponseCache``: answers on disk, so an interrupted benchmark never pays twice.

The key is the sha256 of the canonical JSON of (backend, model, messages,
parameters, seed). The cache is an SQLite file handled by
:class:`paperzoo.sqlite.Database`: safe for several processes writing at once; the
first answer stored for a key wins.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from paperzoo.sqlite import Database
from paperzoo_llm.chat import ChatParams, ChatResponse, Message

__all__ = ["ResponseCache", "cache_key"]

_SCHEMA = """
CREATE TABLE IF NOT EXISTS responses (
    key       TEXT PRIMARY KEY,
    backend   TEXT NOT NULL,
    model     TEXT NOT NULL,
    request   TEXT NOT NULL,
    response  TEXT NOT NULL,
    created   REAL NOT NULL
)
"""


def cache_key(
    backend: str,
    model: str,
    messages: Sequence[Message],
    params: ChatParams,
    identity: Mapping[str, Any] | None = None,
) -> str:
    """sha256 of the canonical JSON of everything that determines the answer.

    ``identity`` is what distinguishes two backends of the same name and model
    (the server URL, the model file, the scripted policy), from
    :meth:`~paperzoo_llm.backend.LLMBackend.cache_identity`.
    """
    request = params.to_dict()
    request["stop"] = sorted(request["stop"])  # the order of stop strings does not matter
    payload = {
        "backend": backend,
        "model": model,
        "identity": dict(identity or {}),
        "messages": [m.to_dict() for m in messages],
        "params": request,
    }
    return hashlib.sha256(json.dumps(payload, sort_keys=True, ensure_ascii=False).encode()).hexdigest()


class ResponseCache:
    """Chat responses by request, in one SQLite file.

    Args:
        path: The cache file, e.g. ``~/.cache/paperzoo/llm.sqlite``.
    """

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self._db = Database(
            self.path, schema=_SCHEMA, what="LLM response cache", hint="delete the file to start a new cache"
        )

    def get(self, key: str) -> ChatResponse | None:
        """The stored response for ``key``, marked ``cached``, or ``None``."""
        with self._db.connect(write=False) as conn:
            row = conn.execute("SELECT response FROM responses WHERE key = ?", (key,)).fetchone()
        return None if row is None else ChatResponse.from_dict(json.loads(row["response"]), cached=True)

    def put(self, key: str, request: dict[str, object], response: ChatResponse) -> None:
        """Store ``response`` unless ``key`` is already there."""
        with self._db.connect(write=True) as conn:
            conn.execute(
                "INSERT OR IGNORE INTO responses (key, backend, model, request, response, created)"
                " VALUES (?, ?, ?, ?, ?, ?)",
                (
                    key,
                    response.backend,
                    response.model,
                    json.dumps(request, ensure_ascii=False),
                    json.dumps(response.to_dict(), ensure_ascii=False),
                    time.time(),
                ),
            )

    def __len__(self) -> int:
        with self._db.connect(write=False) as conn:
            return int(conn.execute("SELECT COUNT(*) FROM responses").fetchone()[0])

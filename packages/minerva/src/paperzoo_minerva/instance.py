"""Test instances and versioned JSONL suites."""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from paperzoo.errors import ConfigError, DataError

__all__ = ["FORMAT", "SYSTEM_PROMPT", "Instance", "read_suite", "write_suite"]

FORMAT = "paperzoo-minerva/1"
"""First line of a generated suite file: ``{"format": FORMAT, ...}``."""

SYSTEM_PROMPT = "You are a helpful AI assistant."
"""The system message Minerva's prompts are asked with (temperature 0)."""


@dataclass(frozen=True)
class Instance:
    """One test: a prompt, the reference answer, and how it was made.

    Attributes:
        id: Unique id (deterministic for generated suites).
        task: Task name, e.g. ``"string_search_word"``.
        category: One of the seven categories, e.g. ``"search"``.
        prompt: ``"Context:\\n…\\n\\nInstruction:\\n…\\n\\nAnswer:"`` (or the task's
            own closing line).
        reference: The expected answer: text, a number, a list, or agent → list.
        params: The generator's parameters for this instance (depth, n, ...).
    """

    id: str
    task: str
    category: str
    prompt: str
    reference: Any
    params: Mapping[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """One JSON line of a suite (the snapshot's keys, parameters flattened)."""
        return {"id": self.id, "task": self.task, "category": self.category, "prompt": self.prompt,
                "reference": self.reference, **dict(self.params)}  # fmt: skip

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Instance:
        """Inverse of :meth:`to_dict`; also reads the published snapshot's lines."""
        missing = [k for k in ("id", "task", "category", "prompt", "reference") if k not in data]
        if missing:
            raise DataError(f"instance {data.get('id', '?')} lacks {', '.join(missing)}")
        core = {"id", "task", "category", "prompt", "reference"}
        return cls(
            id=str(data["id"]),
            task=str(data["task"]),
            category=str(data["category"]),
            prompt=str(data["prompt"]),
            reference=data["reference"],
            params={k: v for k, v in data.items() if k not in core},
        )


def write_suite(instances: Iterable[Instance], path: str | os.PathLike[str], **meta: Any) -> Path:
    """Write a suite as JSONL (a header line, then one instance per line), atomically."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        with open(tmp, "w", encoding="utf-8") as fh:
            fh.write(json.dumps({"format": FORMAT, **meta}) + "\n")
            for instance in instances:
                fh.write(json.dumps(instance.to_dict(), ensure_ascii=False) + "\n")
        tmp.replace(path)
    finally:
        tmp.unlink(missing_ok=True)
    return path


def read_suite(path: str | os.PathLike[str]) -> Iterator[Instance]:
    """Read a suite written by :func:`write_suite` (or any JSONL of snapshot-style lines).

    Raises:
        DataError: a line that is not JSON, or a suite of a newer format.
    """
    path = Path(path)
    if not path.is_file():
        raise ConfigError(f"no suite file at {path}")
    with open(path, encoding="utf-8") as fh:
        for number, line in enumerate(fh, 1):
            if not line.strip():
                continue
            try:
                data = json.loads(line)
            except json.JSONDecodeError as exc:
                raise DataError(f"{path}:{number} is not JSON: {exc.msg}") from None
            if "format" in data and "prompt" not in data:
                if data["format"] != FORMAT:
                    raise DataError(f"{path} is a {data['format']} suite; this version reads {FORMAT}")
                continue
            yield Instance.from_dict(data)

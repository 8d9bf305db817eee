"""The published Minerva snapshot: 28 JSONL files, 1,180 prompts in 7 categories."""

from __future__ import annotations

import json

from paperzoo.data import fetch
from paperzoo_minerva.instance import Instance
from paperzoo_minerva.plugin import SNAPSHOT_FILES

__all__ = ["SNAPSHOT_FILES", "load_snapshot"]


def load_snapshot(tasks: list[str] | None = None) -> list[Instance]:
    """The snapshot's instances (all tasks, or ``tasks``), in file order."""
    out: list[Instance] = []
    for name, file in SNAPSHOT_FILES.items():
        if tasks is not None and name not in tasks:
            continue
        with open(fetch(file), encoding="utf-8") as fh:
            out.extend(Instance.from_dict(json.loads(line)) for line in fh if line.strip())
    return out

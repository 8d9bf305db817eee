"""What every benchmark script records next to its numbers: the command, the machine, the versions.

>>> from paperzoo.benchmarking import write_benchmark
>>> write_benchmark("results/speed.json", {"rows": rows},
...                 command="python benchmarks/bench_speed.py", packages=["numpy", "torch"])

The file gets ``{"meta": {...}, **data}`` with ``meta`` = :func:`benchmark_meta`,
written atomically (a crash never leaves half a file).
"""

from __future__ import annotations

import os
import platform
from collections.abc import Iterable, Mapping
from datetime import date
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any

from paperzoo.runs import write_json_atomic

__all__ = ["benchmark_meta", "machine", "write_benchmark"]


def machine() -> dict[str, Any]:
    """Platform, CPU count (the ones this process may use) and Python version."""
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return {
        "platform": platform.platform(),
        "processor": platform.machine(),
        "cpus": cpus,
        "python": platform.python_version(),
    }


def _version(package: str) -> str | None:
    try:
        return version(package)
    except PackageNotFoundError:
        return None


def benchmark_meta(command: str, /, packages: Iterable[str] = (), **extra: Any) -> dict[str, Any]:
    """``{"command", "machine", "versions", "date", **extra}`` for a benchmark's JSON."""
    return {
        "command": command,
        "machine": machine(),
        "versions": {p: _version(p) for p in packages},
        "date": date.today().isoformat(),
        **extra,
    }


def write_benchmark(
    path: str | Path,
    data: Mapping[str, Any],
    /,
    *,
    command: str,
    packages: Iterable[str] = (),
    **extra: Any,
) -> Path:
    """Write ``{"meta": benchmark_meta(...), **data}`` to ``path`` atomically; return the path."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    write_json_atomic(target, {"meta": benchmark_meta(command, packages, **extra), **data})
    return target

"""Progress bars for long work, shown only on an interactive terminal."""

from __future__ import annotations

import sys
from collections.abc import Iterable, Iterator
from typing import TypeVar

__all__ = ["track"]

T = TypeVar("T")


def track(items: Iterable[T], *, total: int | None = None, description: str = "") -> Iterator[T]:
    """Yield ``items`` with a rich progress bar on stderr when it is a terminal."""
    if not sys.stderr.isatty():
        yield from items
        return
    from rich.console import Console
    from rich.progress import track as rich_track

    console = Console(stderr=True)
    yield from rich_track(items, total=total, description=description, transient=True, console=console)

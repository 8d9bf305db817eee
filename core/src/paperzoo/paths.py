"""Where paperzoo keeps its files.

Everything lives under one home directory: ``$PAPERZOO_HOME`` when set, otherwise
the platform's user data directory (``$XDG_DATA_HOME/paperzoo`` or
``~/.local/share/paperzoo`` on Linux, ``~/Library/Application Support/paperzoo`` on
macOS, ``%LOCALAPPDATA%\\paperzoo`` on Windows).

Layout::

    <home>/data/            downloaded datasets
    <home>/runs/<run-id>/   one directory per run
    <home>/results.sqlite   the results store
    <home>/report/          the latest report
    <home>/cache/<plugin>/  what a plugin can rebuild (trained networks, ...)
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

__all__ = ["cache_dir", "data_home", "home", "report_dir", "runs_dir", "store_path"]

HOME_ENV = "PAPERZOO_HOME"


def home() -> Path:
    """Return the paperzoo home directory (not created)."""
    explicit = os.environ.get(HOME_ENV)
    if explicit:
        return Path(explicit).expanduser().resolve()
    if sys.platform == "win32":
        base = Path(os.environ.get("LOCALAPPDATA") or Path.home() / "AppData" / "Local")
    elif sys.platform == "darwin":
        base = Path.home() / "Library" / "Application Support"
    else:
        base = Path(os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share")
    return base / "paperzoo"


def data_home() -> Path:
    """Directory of downloaded datasets: ``<home>/data``."""
    return home() / "data"


def runs_dir() -> Path:
    """Directory of run directories: ``<home>/runs``."""
    return home() / "runs"


def store_path() -> Path:
    """The SQLite results store: ``<home>/results.sqlite``."""
    return home() / "results.sqlite"


def report_dir() -> Path:
    """Default output directory of ``paperzoo report``: ``<home>/report``."""
    return home() / "report"


def cache_dir(plugin: str) -> Path:
    """A plugin's cache of things it can rebuild (trained networks...): ``<home>/cache/<plugin>``.

    Not created; safe to delete.
    """
    return home() / "cache" / plugin

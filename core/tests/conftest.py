"""Every core test runs in its own PAPERZOO_HOME with a fresh plugin host."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from paperzoo.host import PluginHost, reset_host
from paperzoo.testing import demo_plugin, isolated_host


@pytest.fixture(autouse=True)
def _isolate(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv("PAPERZOO_HOME", str(tmp_path / "home"))
    for var in ("PAPERZOO_LOAD_PLUGINS", "PAPERZOO_DISABLE_PLUGINS", "PAPERZOO_OFFLINE", "PAPERZOO_DEBUG"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("PAPERZOO_DATA_MIRROR", "")
    reset_host(None)
    yield
    reset_host(None)


@pytest.fixture
def home(tmp_path: Path) -> Path:
    return tmp_path / "home"


@pytest.fixture
def host() -> PluginHost:
    """A host with only the demo plugin, installed as the process-wide host."""
    h = isolated_host(demo_plugin)
    reset_host(h)
    return h

"""Fixtures and helpers that isolate tests from the user's installation."""

from __future__ import annotations

import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from paperzoo.discovery import ENTRY_POINT_GROUP
from paperzoo.host import PluginHost, reset_host

__all__ = ["fake_distribution", "isolated_host", "paperzoo_home", "paperzoo_host"]


def isolated_host(*plugins: object) -> PluginHost:
    """A host that ignores installed plugins and has only ``plugins`` registered."""
    host = PluginHost(entry_points=False)
    for plugin in plugins:
        host.register(plugin, name=getattr(plugin, "__name__", None))
    return host


def fake_distribution(
    site: Path,
    *,
    name: str,
    module: str,
    source: str,
    version: str = "0.0.1",
    entry_point: str | None = None,
) -> Path:
    """Write a minimal installed distribution into directory ``site``.

    Creates ``<module>.py`` with ``source`` and ``<name>-<version>.dist-info`` whose
    entry point ``<entry_point or name> = <module>`` is in group
    ``paperzoo.plugins``. Put ``site`` on ``sys.path`` (or ``PYTHONPATH`` for a
    subprocess) and the plugin is discovered as if pip had installed it.

    Returns:
        ``site``.
    """
    site.mkdir(parents=True, exist_ok=True)
    (site / f"{module}.py").write_text(textwrap.dedent(source), encoding="utf-8")
    dist_info = site / f"{name.replace('-', '_')}-{version}.dist-info"
    dist_info.mkdir(exist_ok=True)
    (dist_info / "METADATA").write_text(
        f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n", encoding="utf-8"
    )
    (dist_info / "entry_points.txt").write_text(
        f"[{ENTRY_POINT_GROUP}]\n{entry_point or name} = {module}\n", encoding="utf-8"
    )
    return site


@pytest.fixture
def paperzoo_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fresh, empty ``PAPERZOO_HOME`` for this test (data mirrors are kept)."""
    home = tmp_path / "paperzoo-home"
    monkeypatch.setenv("PAPERZOO_HOME", str(home))
    return home


@pytest.fixture
def paperzoo_host(paperzoo_home: Path) -> Iterator[PluginHost]:
    """A fresh host with no installed plugins, installed as the process-wide host."""
    host = PluginHost(entry_points=False)
    reset_host(host)
    try:
        yield host
    finally:
        reset_host(None)

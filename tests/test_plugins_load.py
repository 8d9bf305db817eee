"""Every first-party package in plugins.toml is installed, discovered and loads cleanly."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from paperzoo.discovery import entries
from paperzoo.host import PluginHost

ROOT = Path(__file__).resolve().parents[1]
CATALOG = tomllib.loads((ROOT / "plugins.toml").read_text()).get("plugins", {})


@pytest.mark.parametrize("plugin_id", sorted(CATALOG))
def test_catalog_package_is_installed_and_loads(plugin_id: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PAPERZOO_LOAD_PLUGINS", raising=False)
    monkeypatch.delenv("PAPERZOO_DISABLE_PLUGINS", raising=False)
    installed = {e.name: e for e in entries()}
    assert plugin_id in installed, (
        f"{CATALOG[plugin_id]['distribution']} is not installed in this environment"
    )
    assert installed[plugin_id].distribution == CATALOG[plugin_id]["distribution"]
    record = PluginHost().record(plugin_id)
    assert record.status == "loaded", record.status
    assert record.info is not None, "paperzoo_plugin_info is not implemented"
    assert record.info.framework == CATALOG[plugin_id]["framework"]

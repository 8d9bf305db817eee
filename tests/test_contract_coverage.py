"""Every first-party plugin's manifest is covered by a generated contract.

Each package's tests hold one ``PluginContract`` subclass whose ``plugin`` is the
package's manifest; that contract parametrises over everything the manifest
declares, and ``test_registers_exactly_what_it_declares`` ties the manifest to
the registry. This test counts: every estimator, dataset and experiment
registered by an installed first-party plugin belongs to a plugin that has such
a contract class.
"""

from __future__ import annotations

import ast
import tomllib
from pathlib import Path

import pytest

from paperzoo import Plugin
from paperzoo.host import PluginHost

ROOT = Path(__file__).resolve().parents[1]
CATALOG = tomllib.loads((ROOT / "plugins.toml").read_text()).get("plugins", {})


def _contract_classes(tests: Path) -> list[str]:
    """Names of classes in ``tests`` that derive from PluginContract."""
    found = []
    for path in sorted(tests.rglob("test_*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef) and any(
                getattr(base, "id", getattr(base, "attr", None)) == "PluginContract" for base in node.bases
            ):
                found.append(f"{path.relative_to(ROOT)}::{node.name}")
    return found


@pytest.fixture(scope="module")
def host() -> PluginHost:
    host = PluginHost()
    host.load()
    return host


@pytest.mark.parametrize("plugin_id", sorted(CATALOG))
def test_plugin_is_a_manifest_with_a_contract(plugin_id: str, host: PluginHost) -> None:
    manifest = host.pm.get_plugin(plugin_id)
    assert isinstance(manifest, Plugin), f"{plugin_id}'s entry point is not a paperzoo.Plugin"
    declared = sum(len(v) for v in manifest.specs().values())
    if declared == 0:
        return  # an integration with raw hooks only: nothing to generate
    classes = _contract_classes(ROOT / CATALOG[plugin_id]["path"] / "tests")
    assert len(classes) == 1, f"{plugin_id}: expected one PluginContract subclass, found {classes}"


def test_everything_registered_is_covered(host: PluginHost) -> None:
    covered, total = 0, 0
    for kind in ("estimators", "datasets", "experiments", "metrics"):
        for spec in getattr(host, kind):
            if spec.plugin not in CATALOG:
                continue
            total += 1
            manifest = host.pm.get_plugin(spec.plugin)
            has_contract = bool(_contract_classes(ROOT / CATALOG[spec.plugin]["path"] / "tests"))
            if isinstance(manifest, Plugin) and has_contract and spec in getattr(manifest, kind):
                covered += 1
    assert total > 0
    assert covered == total, f"{total - covered} of {total} registered components have no generated contract"

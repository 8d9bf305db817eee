"""Discovery: entry points, failure isolation, allow/deny lists."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from paperzoo.cli import main
from paperzoo.discovery import entries
from paperzoo.host import PluginHost, reset_host
from paperzoo.testing import fake_distribution

GOOD = """
from paperzoo import hookimpl, ExperimentSpec, PluginInfo, Result

@hookimpl
def paperzoo_plugin_info():
    return PluginInfo(id="good", framework="numpy", paper="A good paper")

@hookimpl
def paperzoo_register_experiments(register):
    register(ExperimentSpec("good.exp", "good_plugin:exp", "works"))

def exp(run):
    return Result().add("ok", 1.0, paper=1.0)
"""

BROKEN_IMPORT = """
import torch_that_is_not_installed  # noqa
"""

RAISES = """
from paperzoo import hookimpl, EstimatorSpec

@hookimpl
def paperzoo_register_estimators(register):
    register(EstimatorSpec("raises.first", "x:y"))
    raise RuntimeError("registration blew up")
"""

TYPO = """
from paperzoo import hookimpl

@hookimpl
def paperzoo_register_experiment(register):  # missing the final s
    pass
"""

FUTURE = """
from paperzoo import hookimpl

@hookimpl(optionalhook=True)
def paperzoo_hook_from_the_future(anything):
    pass
"""

DUPLICATE = """
from paperzoo import hookimpl, ExperimentSpec

@hookimpl
def paperzoo_register_experiments(register):
    register(ExperimentSpec("good.exp", "dup_plugin:nothing"))
"""

BAD_INFO = """
from paperzoo import hookimpl

@hookimpl
def paperzoo_plugin_info():
    return {"id": "not a PluginInfo"}
"""


@pytest.fixture
def site(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    site = tmp_path / "site"
    for name, module, source in [
        ("paperzoo-good", "good_plugin", GOOD),
        ("paperzoo-broken", "broken_plugin", BROKEN_IMPORT),
        ("paperzoo-raises", "raises_plugin", RAISES),
        ("paperzoo-typo", "typo_plugin", TYPO),
        ("paperzoo-future", "future_plugin", FUTURE),
        ("paperzoo-badinfo", "badinfo_plugin", BAD_INFO),
    ]:
        fake_distribution(site, name=name, module=module, source=source, entry_point=name.split("-")[1])
    monkeypatch.syspath_prepend(str(site))
    # only our fake plugins, whatever else is installed in this environment
    monkeypatch.setenv("PAPERZOO_LOAD_PLUGINS", "good,broken,raises,typo,future,badinfo,dup")
    return site


def _status(host: PluginHost) -> dict[str, str]:
    return {
        r.name: r.status
        for r in host.records()
        if r.name in {"good", "broken", "raises", "typo", "future", "badinfo", "dup"}
    }


def test_listing_imports_nothing(site: Path) -> None:
    names = {e.name for e in entries()}
    assert {"good", "broken", "raises", "typo"} <= names
    assert "good_plugin" not in sys.modules
    assert "broken_plugin" not in sys.modules


def test_entries_carry_distribution_and_version(site: Path) -> None:
    good = next(e for e in entries() if e.name == "good")
    assert (good.distribution, good.version, good.value) == ("paperzoo-good", "0.0.1", "good_plugin")


def test_each_failure_is_isolated_and_explained(site: Path) -> None:
    host = PluginHost()
    assert host.experiments.names() == ["good.exp"]
    assert host.estimators.names() == []  # the raising plugin's first spec was withdrawn
    status = _status(host)
    assert status["good"] == "loaded"
    assert status["future"] == "loaded"
    assert status["broken"].startswith("failed: ModuleNotFoundError")
    assert "torch_that_is_not_installed" in status["broken"]
    assert (
        status["raises"] == "failed: paperzoo_register_estimators raised RuntimeError: registration blew up"
    )
    assert status["typo"].startswith("failed: implements unknown hook paperzoo_register_experiment ")
    assert status["badinfo"] == "failed: paperzoo_plugin_info returned dict, not a PluginInfo"
    assert host.record("good").info is not None
    assert host.record("good").info.paper == "A good paper"  # type: ignore[union-attr]


def test_duplicate_name_fails_one_plugin_only(site: Path) -> None:
    fake_distribution(site, name="paperzoo-dup", module="dup_plugin", source=DUPLICATE, entry_point="dup")
    host = PluginHost()
    status = _status(host)
    assert host.experiments.names() == ["good.exp"]
    states = sorted([status["good"].split(":")[0], status["dup"].split(":")[0]])
    assert states == ["failed", "loaded"]
    assert "registered by both" in (status["good"] + status["dup"])


def test_allow_list(site: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PAPERZOO_LOAD_PLUGINS", "good")
    host = PluginHost()
    status = {r.name: r.status for r in host.records()}
    assert status["good"] == "loaded"
    assert status["broken"] == "disabled (not in PAPERZOO_LOAD_PLUGINS)"
    assert "broken_plugin" not in sys.modules


def test_empty_allow_list_loads_nothing(site: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PAPERZOO_LOAD_PLUGINS", "")
    host = PluginHost()
    assert all(r.state == "disabled" for r in host.records())
    assert host.experiments.names() == []


def test_deny_list_by_distribution_name(site: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PAPERZOO_DISABLE_PLUGINS", "paperzoo-broken,typo")
    status = _status(PluginHost())
    assert status["broken"] == "disabled (in PAPERZOO_DISABLE_PLUGINS)"
    assert status["typo"] == "disabled (in PAPERZOO_DISABLE_PLUGINS)"
    assert "broken_plugin" not in sys.modules


def test_cli_survives_broken_plugins(site: Path, capsys: pytest.CaptureFixture[str]) -> None:
    reset_host(None)
    main(["plugins", "--json"])
    listed = {p["name"]: p for p in json.loads(capsys.readouterr().out)}
    assert listed["good"]["status"] == "loaded"
    assert listed["good"]["distribution"] == "paperzoo-good"
    assert listed["good"]["framework"] == "numpy"
    assert listed["broken"]["status"].startswith("failed: ")
    main(["run", "good.exp", "--json"])
    assert json.loads(capsys.readouterr().out)["status"] == "succeeded"


def test_in_process_registration_refreshes_registries() -> None:
    from paperzoo.testing import demo_plugin

    host = PluginHost(entry_points=False)
    assert host.experiments.names() == []
    host.register(demo_plugin, name="demo")
    assert host.experiments.names() == ["demo.noisy-mean"]
    again = host.register(demo_plugin, name="demo")
    assert again.state == "failed"
    assert "already called 'demo'" in again.status


EXITS = """
import sys
sys.exit("argparse says: usage")
"""

SPAWNS = """
from paperzoo import hookimpl

class Helper:
    @hookimpl
    def paperzoo_register_estimators(self, register):
        raise RuntimeError("the helper broke")

@hookimpl
def paperzoo_addhooks(pluginmanager):
    pluginmanager.register(Helper(), name="spawned-helper")
"""


def test_sys_exit_at_import_and_sub_plugins_are_isolated(site: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fake_distribution(site, name="paperzoo-exits", module="exits_plugin", source=EXITS, entry_point="exits")
    fake_distribution(
        site, name="paperzoo-spawns", module="spawns_plugin", source=SPAWNS, entry_point="spawns"
    )
    monkeypatch.setenv("PAPERZOO_LOAD_PLUGINS", "good,exits,spawns")
    host = PluginHost()
    status = {r.name: r.status for r in host.records()}
    assert status["exits"] == "failed: SystemExit: argparse says: usage"
    assert status["spawns"] == "loaded"
    assert (
        status["spawned-helper"]
        == "failed: paperzoo_register_estimators raised RuntimeError: the helper broke"
    )
    assert host.experiments.names() == ["good.exp"]

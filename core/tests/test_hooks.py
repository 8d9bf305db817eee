"""Every hookspec is called in a real scenario, with the arguments it documents."""

from __future__ import annotations

import inspect
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import click
import pluggy
import pytest

from paperzoo import hookimpl, hookspecs
from paperzoo.cli import main
from paperzoo.host import PluginHost, reset_host
from paperzoo.testing import demo_plugin
from paperzoo.testing.demo_plugin import write_numbers

SPECS = {name: fn for name, fn in vars(hookspecs).items() if name.startswith("paperzoo_") and callable(fn)}


class Recorder:
    """Implements every hook and records the keyword arguments it receives."""

    def __init__(self, mirror: Path) -> None:
        self.calls: dict[str, list[dict[str, Any]]] = {}
        self.mirror = mirror

    def _record(self, hook: str, /, **kwargs: Any) -> None:
        self.calls.setdefault(hook, []).append(kwargs)

    @hookimpl
    def paperzoo_plugin_info(self) -> Any:
        from paperzoo.specs import PluginInfo

        self._record("paperzoo_plugin_info")
        return PluginInfo(id="recorder")

    @hookimpl
    def paperzoo_register_estimators(self, register: Any) -> None:
        self._record("paperzoo_register_estimators", register=register)

    @hookimpl
    def paperzoo_register_datasets(self, register: Any) -> None:
        self._record("paperzoo_register_datasets", register=register)

    @hookimpl
    def paperzoo_register_metrics(self, register: Any) -> None:
        self._record("paperzoo_register_metrics", register=register)

    @hookimpl
    def paperzoo_register_experiments(self, register: Any) -> None:
        self._record("paperzoo_register_experiments", register=register)

    @hookimpl
    def paperzoo_addhooks(self, pluginmanager: pluggy.PluginManager) -> None:
        self._record("paperzoo_addhooks", pluginmanager=pluginmanager)

    @hookimpl
    def paperzoo_register_commands(self, cli: click.Group) -> None:
        self._record("paperzoo_register_commands", cli=cli)

        @cli.command(name="recorder-hello")
        def hello() -> None:
            click.echo("hello from a plugin command")

    @hookimpl
    def paperzoo_on_run_start(self, run: Any) -> None:
        self._record("paperzoo_on_run_start", run=run)

    @hookimpl
    def paperzoo_on_step(self, run: Any, step: int, logs: Mapping[str, float]) -> None:
        self._record("paperzoo_on_step", run=run, step=step, logs=logs)

    @hookimpl
    def paperzoo_on_metric(self, run: Any, name: str, value: float, step: int | None) -> None:
        self._record("paperzoo_on_metric", run=run, name=name, value=value, step=step)

    @hookimpl
    def paperzoo_on_artifact(self, run: Any, path: Path, kind: str) -> None:
        self._record("paperzoo_on_artifact", run=run, path=path, kind=kind)

    @hookimpl
    def paperzoo_on_run_end(self, run: Any, result: Any) -> None:
        self._record("paperzoo_on_run_end", run=run, result=result)

    @hookimpl
    def paperzoo_on_run_error(self, run: Any, error: BaseException) -> None:
        self._record("paperzoo_on_run_error", run=run, error=error)

    @hookimpl
    def paperzoo_executor(self, name: str, options: Mapping[str, Any]) -> None:
        self._record("paperzoo_executor", name=name, options=options)

    @hookimpl
    def paperzoo_resolve_data_path(self, name: str) -> Path | None:
        self._record("paperzoo_resolve_data_path", name=name)
        candidate = self.mirror / name
        return candidate if candidate.is_file() else None


def test_recorder_implements_every_hookspec() -> None:
    implemented = {n for n in dir(Recorder) if n.startswith("paperzoo_")}
    assert implemented == set(SPECS)


def test_every_hook_is_exercised(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    recorder = Recorder(tmp_path / "private-cache")
    write_numbers(tmp_path / "private-cache")
    host = PluginHost(entry_points=False)
    host.register(demo_plugin, name="demo")
    host.register(recorder, name="recorder")
    reset_host(host)

    main(["plugins"])
    main(["list"])
    main(["recorder-hello"])
    assert "hello from a plugin command" in capsys.readouterr().out
    main(["run", "demo.noisy-mean", "--seed", "1"])
    with pytest.raises(SystemExit):
        main(["run", "demo.noisy-mean", "--set", "fail=true"])
    main(["data", "fetch", "demo.numbers"])
    assert str(tmp_path / "private-cache" / "demo" / "numbers.csv") in capsys.readouterr().out

    assert set(recorder.calls) == set(SPECS), f"never called: {set(SPECS) - set(recorder.calls)}"
    for name, calls in recorder.calls.items():
        expected = set(inspect.signature(SPECS[name]).parameters)
        assert all(set(c) == expected for c in calls), name
    steps = [c["step"] for c in recorder.calls["paperzoo_on_step"]]
    assert steps[:3] == [0, 1, 2]
    assert recorder.calls["paperzoo_executor"][0]["name"] == "local"
    (error_call,) = recorder.calls["paperzoo_on_run_error"]
    assert isinstance(error_call["error"], RuntimeError)
    assert {c["kind"] for c in recorder.calls["paperzoo_on_artifact"]} >= {"json"}
    assert recorder.calls["paperzoo_resolve_data_path"][0]["name"] == "demo/numbers.csv"


def test_addhooks_lets_a_plugin_add_hookspecs_for_others() -> None:
    class BackendSpecs:
        @hookspecs.hookspec
        def paperzoo_llm_backends(self) -> list[str]:  # type: ignore[empty-body]
            """Backends provided by a plugin."""

    class Shared:
        @hookimpl
        def paperzoo_addhooks(self, pluginmanager: pluggy.PluginManager) -> None:
            pluginmanager.add_hookspecs(BackendSpecs)

    class Backend:
        @hookimpl
        def paperzoo_llm_backends(self) -> list[str]:
            return ["scripted"]

    host = PluginHost(entry_points=False)
    host.register(Backend(), name="backend")  # registered before the specs exist
    host.register(Shared(), name="shared")
    assert [r.status for r in host.records()] == ["loaded", "loaded"]
    assert host.pm.hook.paperzoo_llm_backends() == [["scripted"]]


def test_plugin_cannot_replace_a_builtin_command(capsys: pytest.CaptureFixture[str]) -> None:
    class Hijack:
        @hookimpl
        def paperzoo_register_commands(self, cli: click.Group) -> None:
            @cli.command(name="runs")
            def runs() -> None:
                click.echo("hijacked")

    class Crash:
        @hookimpl
        def paperzoo_register_commands(self, cli: click.Group) -> None:
            @cli.command(name="half-added")
            def half() -> None:
                pass

            raise RuntimeError("crash after adding a command")

    host = PluginHost(entry_points=False)
    host.register(Hijack(), name="hijack")
    host.register(Crash(), name="crash")
    reset_host(host)
    main(["--help"])  # listing commands asks the plugins for theirs
    main(["runs"])
    assert "hijacked" not in capsys.readouterr().out
    assert host.record("hijack").status == "failed: replaces the command 'runs'"
    assert host.record("crash").status.startswith("failed: paperzoo_register_commands raised RuntimeError")
    with pytest.raises(SystemExit):
        main(["half-added"])


def test_plugin_added_registration_hooks_get_isolated_registries() -> None:
    from paperzoo.errors import ConfigError
    from paperzoo.specs import Spec

    class BackendSpec(Spec):
        _kind = "backend"

    class Specs:
        @hookspecs.hookspec
        def paperzoo_test_backends(self, register):  # type: ignore[no-untyped-def]
            """Register backends."""

    class Shared:
        @hookimpl
        def paperzoo_addhooks(self, pluginmanager: pluggy.PluginManager) -> None:
            pluginmanager.add_hookspecs(Specs)

        @hookimpl
        def paperzoo_test_backends(self, register):  # type: ignore[no-untyped-def]
            register(BackendSpec("echo", "json:dumps", "Echo"))

    class Broken:
        @hookimpl
        def paperzoo_test_backends(self, register):  # type: ignore[no-untyped-def]
            register(BackendSpec("other", "json:loads"))
            raise RuntimeError("no GPU")

    host = PluginHost(entry_points=False)
    host.register(Shared(), name="shared")
    host.register(Broken(), name="broken")
    registry = host.registry("paperzoo_test_backends", BackendSpec, "test backend")
    assert registry.names() == ["echo"]
    assert registry.get("echo").plugin == "shared"
    assert host.record("broken").status == "failed: paperzoo_test_backends raised RuntimeError: no GPU"
    assert host.registry("paperzoo_test_backends", BackendSpec, "test backend") is registry
    with pytest.raises(ConfigError, match="no hook 'paperzoo_nothing'"):
        host.registry("paperzoo_nothing", BackendSpec, "x")

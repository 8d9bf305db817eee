"""The command line: output, JSON, one-line errors with hints, exit codes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from paperzoo.cli import main
from paperzoo.host import PluginHost
from paperzoo.testing.demo_plugin import write_numbers


def _run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = 0
    try:
        main(args)
    except SystemExit as exc:
        code = int(exc.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


def test_plugins_json(host: PluginHost, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(["plugins", "--json"], capsys)
    assert code == 0
    (plugin,) = json.loads(out)
    assert plugin["id"] == "demo"
    assert plugin["status"] == "loaded"
    assert plugin["paper"] == "A demo paper"


def test_list_and_info(host: PluginHost, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(["list", "experiments", "--json"], capsys)
    assert code == 0
    assert [e["name"] for e in json.loads(out)["experiments"]] == ["demo.noisy-mean"]
    code, out, _ = _run(["list"], capsys)
    assert "demo.shrunk-mean" in out
    assert "demo.numbers" in out
    code, out, _ = _run(["info", "demo.noisy-mean"], capsys)
    assert code == 0
    assert "settings by scale" in out
    assert "100000" in out
    code, out, _ = _run(["info", "demo.numbers", "--json"], capsys)
    assert json.loads(out)["files"][0]["path"] == "demo/numbers.csv"
    code, out, _ = _run(["info", "paperzoo.testing.demo_plugin", "--json"], capsys)
    assert json.loads(out)["id"] == "demo"


def test_run_prints_table_and_json(host: PluginHost, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(["run", "demo.noisy-mean"], capsys)
    assert code == 0
    assert "mean" in out
    assert "succeeded" in out
    code, out, _ = _run(["run", "demo.noisy-mean", "--scale", "default", "--seed", "4", "--json"], capsys)
    data = json.loads(out)
    assert data["status"] == "succeeded"
    assert data["scale"] == "default"
    assert data["result"]["rows"][0]["setting"] == "n=1000"
    assert data["result"]["rows"][0]["paper"] == 1.0


def test_sweep_expands_seeds_and_settings(host: PluginHost, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(["run", "demo.noisy-mean", "--seeds", "0-1", "--set", "n=10,20", "--json"], capsys)
    assert code == 0
    runs = json.loads(out)["runs"]
    assert sorted((r["seed"], r["overrides"]["n"]) for r in runs) == [(0, 10), (0, 20), (1, 10), (1, 20)]
    code, out, _ = _run(["run", "demo.noisy-mean", "--seeds", "0-2", "--set", "n=10"], capsys)
    assert "mean over runs" in out


@pytest.mark.parametrize(
    ("args", "message", "hint"),
    [
        (["run", "demo.noisy-man"], "unknown experiment 'demo.noisy-man'", "did you mean 'demo.noisy-mean'?"),
        (
            ["run", "demo.noisy-mean", "--set", "zzz=3"],
            "unknown setting 'zzz'",
            "settings of demo.noisy-mean",
        ),
        (["run", "demo.noisy-mean", "--set", "step=3"], "unknown setting 'step'", "did you mean 'steps'?"),
        (
            ["run", "demo.noisy-mean", "--set", "n=many"],
            "invalid value 'many' for setting 'n'",
            "whole number",
        ),
        (["run", "demo.noisy-mean", "--seeds", "4-1"], "invalid seed range", "low-high"),
        (["info", "nothing"], "nothing is called 'nothing'", ""),
        (["runs", "show", "nope"], "no run 'nope'", "paperzoo runs"),
        (["frobnicate"], "no command 'frobnicate'", ""),
        (["run", "demo.noisy-mean", "--executor", "slurm"], "no executor called 'slurm'", "plugins"),
    ],
)
def test_user_errors_are_one_line_with_hint(
    host: PluginHost, capsys: pytest.CaptureFixture[str], args: list[str], message: str, hint: str
) -> None:
    code, _, err = _run(args, capsys)
    assert code == 2
    lines = err.strip().splitlines()
    assert lines[0].startswith("Error: ")
    assert message in lines[0]
    assert "Traceback" not in err
    if hint:
        assert lines[1].startswith("Hint: ")
        assert hint in lines[1]


def test_failed_run_exits_1_and_names_the_error(host: PluginHost, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = _run(["run", "demo.noisy-mean", "--set", "fail=true"], capsys)
    assert code == 1
    assert "RuntimeError: failing on purpose" in err
    assert "error.txt" in err


def test_debug_shows_traceback(host: PluginHost, capsys: pytest.CaptureFixture[str]) -> None:
    from paperzoo.errors import UnknownNameError

    with pytest.raises(UnknownNameError):
        main(["--debug", "run", "demo.nope"])


def test_runs_list_filter_and_show(host: PluginHost, capsys: pytest.CaptureFixture[str]) -> None:
    _run(["run", "demo.noisy-mean"], capsys)
    _run(["run", "demo.noisy-mean", "--set", "fail=true"], capsys)
    code, out, _ = _run(["runs", "--json"], capsys)
    runs = json.loads(out)
    assert [r["status"] for r in runs] == ["failed", "succeeded"]
    code, out, _ = _run(["runs", "--status", "failed", "--json"], capsys)
    (failed,) = json.loads(out)
    assert failed["error"].startswith("RuntimeError")
    code, out, _ = _run(["runs", "show", runs[1]["id"], "--json"], capsys)
    assert json.loads(out)["result"]["rows"][0]["metric"] == "mean"
    _code, out, _ = _run(["runs"], capsys)
    assert "demo.noisy-mean" in out


def test_data_commands(
    host: PluginHost, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = _run(["data", "list", "--json"], capsys)
    assert json.loads(out)[0]["present"] == 0
    monkeypatch.setenv("PAPERZOO_OFFLINE", "1")
    code, _, err = _run(["data", "fetch", "demo.numbers"], capsys)
    assert code == 2
    assert "https://example.invalid/paperzoo/demo/numbers.csv" in err
    write_numbers(tmp_path / "mirror")
    monkeypatch.setenv("PAPERZOO_DATA_MIRROR", str(tmp_path / "mirror"))
    code, out, _ = _run(["data", "fetch"], capsys)
    assert code == 0
    code, out, _ = _run(["data", "verify", "--json"], capsys)
    assert json.loads(out)[0]["status"] == "ok"
    (tmp_path / "mirror" / "demo" / "numbers.csv").write_text("tampered")
    code, _, err = _run(["data", "verify"], capsys)
    assert code == 1
    assert "do not match their sha256" in err


def test_reproduce_runs_everything_and_writes_report(
    host: PluginHost, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = _run(["reproduce", "--out", str(tmp_path / "rep")], capsys)
    assert code == 0
    assert "demo.noisy-mean" in out
    assert (tmp_path / "rep" / "index.html").is_file()
    assert (tmp_path / "rep" / "report.md").is_file()
    code, _, err = _run(["reproduce", "--plugin", "nobody"], capsys)
    assert code == 2
    assert "no experiments from plugin(s) nobody" in err


def test_reproduce_with_no_plugins_explains_and_succeeds(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from paperzoo.host import reset_host

    reset_host(PluginHost(entry_points=False))
    code, out, _ = _run(["reproduce", "--out", str(tmp_path / "rep")], capsys)
    assert code == 0
    assert "No experiments installed" in out
    assert (tmp_path / "rep" / "index.html").is_file()


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    from paperzoo import __version__

    code, out, _ = _run(["--version"], capsys)
    assert code == 0
    assert __version__ in out


def test_brackets_in_text_are_shown_literally(host: PluginHost, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(["run", "demo.noisy-mean"], capsys)
    assert "demo.noisy-mean [smoke] seed=0" in out
    run_id = out.split("run ")[-1].split()[0]
    code, out, _ = _run(["runs", "show", run_id], capsys)
    assert "demo.noisy-mean [smoke] seed=0" in out


def test_seed_and_seeds_together_is_an_error(host: PluginHost, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = _run(["run", "demo.noisy-mean", "--seed", "3", "--seeds", "0-1"], capsys)
    assert code == 2
    assert "--seed and --seeds were both given" in err
    code, _, err = _run(["run", "demo.noisy-mean", "--seed", "-1"], capsys)
    assert code == 2
    assert "Traceback" not in err


def test_a_failed_run_prints_its_hint_once(
    host: PluginHost, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from paperzoo.errors import DataError

    def offline(run: object) -> None:
        raise DataError("numbers.csv is not available", hint="set PAPERZOO_DATA_MIRROR")

    monkeypatch.setattr("paperzoo.testing.demo_plugin.noisy_mean", offline)
    code, _, err = _run(["run", "demo.noisy-mean"], capsys)
    assert code == 1
    assert err.count("set PAPERZOO_DATA_MIRROR") == 1


def test_info_shows_every_kind_with_the_name(host: PluginHost, capsys: pytest.CaptureFixture[str]) -> None:
    from paperzoo import hookimpl
    from paperzoo.specs import DatasetSpec

    class Twin:
        @hookimpl
        def paperzoo_register_datasets(self, register):  # type: ignore[no-untyped-def]
            register(DatasetSpec("demo.noisy-mean", "json:loads", "A dataset sharing the experiment's name"))

    host.register(Twin(), name="twin")
    code, out, _ = _run(["info", "demo.noisy-mean", "--json"], capsys)
    assert sorted(d["kind"] for d in json.loads(out)) == ["dataset", "experiment"]


def test_a_command_exit_code_reaches_the_shell(monkeypatch: pytest.MonkeyPatch) -> None:
    import click

    from paperzoo import cli as cli_module

    @click.group()
    def group() -> None: ...

    @group.command()
    @click.pass_context
    def check(ctx: click.Context) -> None:
        ctx.exit(3)  # e.g. a plugin's "status" command reporting an unreachable service

    monkeypatch.setattr(cli_module, "cli", group)
    with pytest.raises(SystemExit) as exc:
        main(["check"])
    assert exc.value.code == 3

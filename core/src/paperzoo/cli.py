"""The ``paperzoo`` command line.

User errors (:class:`~paperzoo.PaperzooError`) print as one ``Error:`` line and one
``Hint:`` line and exit with status 2; ``--debug`` (or ``PAPERZOO_DEBUG=1``) shows
the traceback instead. Plugins add subcommands through
``paperzoo_register_commands``; they are loaded only when a command is not built in.
"""

from __future__ import annotations

import json
import logging
import os
import sys
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

import click
from rich.markup import escape

from paperzoo._version import __version__
from paperzoo.errors import ConfigError, PaperzooError
from paperzoo.results import format_value
from paperzoo.specs import MAX_SEED

if TYPE_CHECKING:
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    from paperzoo.host import PluginHost
    from paperzoo.results import Result
    from paperzoo.runs import RunOutcome, RunRequest
    from paperzoo.store import ResultsStore

KINDS = ("estimators", "datasets", "metrics", "experiments")


# ------------------------------------------------------------------- helpers


def _console(stderr: bool = False) -> Console:
    from rich.console import Console

    stream = sys.stderr if stderr else sys.stdout
    width = None if stream.isatty() or os.environ.get("COLUMNS") else 160
    return Console(stderr=stderr, highlight=False, soft_wrap=False, width=width)


def _table(*columns: str, title: str | None = None) -> Table:
    from rich.table import Table

    table = Table(title=title, title_justify="left", header_style="bold")
    for column in columns:
        table.add_column(column, overflow="fold")
    return table


def _styled(text: str, style: str) -> Text:
    from rich.text import Text

    return Text(text, style=style)


def _ok(ok: bool, error: str | None) -> Text:
    return _styled("ok", "green") if ok else _styled(error or "failed", "red")


def _add(table: Table, *cells: str | Text) -> None:
    """Add a row; plain strings are shown literally (never parsed as markup)."""
    from rich.text import Text

    table.add_row(*(Text(c) if isinstance(c, str) else c for c in cells))


def _echo_json(data: Any) -> None:
    click.echo(json.dumps(data, indent=2, default=str))


def _host() -> PluginHost:
    from paperzoo.host import get_host

    return get_host()


def _store() -> ResultsStore:
    from paperzoo.paths import store_path
    from paperzoo.store import ResultsStore

    return ResultsStore(store_path())


def _result_table(result: Result, title: str | None = None) -> Table:
    table = _table("metric", "setting", "ours", "paper", "unit", "ours/paper", title=title)
    for row in result.rows:
        ratio = row.ratio
        _add(
            table,
            row.metric,
            row.setting,
            format_value(row.value),
            format_value(row.paper),
            row.unit,
            "" if ratio is None else f"{ratio:.3f}",
        )
    return table


class PaperzooGroup(click.Group):
    """A group that asks plugins for their commands only when needed."""

    _commands_host: PluginHost | None = None
    _plugin_commands: tuple[str, ...] = ()

    def _add_plugin_commands(self) -> None:
        host = _host()
        if self._commands_host is not host:  # a new host (tests): drop the old one's commands
            for name in self._plugin_commands:
                self.commands.pop(name, None)
            self._commands_host = host
            self._plugin_commands = tuple(host.hooks.register_commands(cli=self))

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        command = super().get_command(ctx, cmd_name)
        if command is None:
            self._add_plugin_commands()
            command = super().get_command(ctx, cmd_name)
        return command

    def list_commands(self, ctx: click.Context) -> list[str]:
        self._add_plugin_commands()
        return super().list_commands(ctx)

    def resolve_command(
        self, ctx: click.Context, args: list[str]
    ) -> tuple[str | None, click.Command | None, list[str]]:
        try:
            return super().resolve_command(ctx, args)
        except click.UsageError:
            from paperzoo.registry import suggest

            name = args[0] if args else ""
            hint = suggest(name, self.list_commands(ctx)) or "see 'paperzoo --help'"
            raise ConfigError(f"no command {name!r}", hint=hint) from None


@click.group(cls=PaperzooGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="paperzoo")
@click.option("--debug", is_flag=True, help="Show tracebacks instead of one-line errors.")
def cli(debug: bool) -> None:
    """paperzoo: ICML 2025 papers as plugins. Reproduce, compare, apply."""
    # --debug is read by main() before parsing, so that it also covers parsing errors


# ------------------------------------------------------------------- plugins


@cli.command()
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@click.option("--hooks", "with_hooks", is_flag=True, help="Show the hooks each plugin implements.")
def plugins(as_json: bool, with_hooks: bool) -> None:
    """List installed plugins and whether they loaded, then first-party ones not installed."""
    host = _host()
    records = host.records()
    rows = [r.to_dict() for r in records]
    if with_hooks:
        for row, record in zip(rows, records):
            row["hooks"] = [h.removeprefix("paperzoo_") for h in host.hooks_of(record.name)]
    missing = [
        {"id": pid, "distribution": k["distribution"], "kind": k["kind"], "title": k["title"],
         "status": "not installed", "install": f"pip install {k['distribution']}"}
        for pid, k in host.not_installed().items()
    ]  # fmt: skip
    if as_json:
        _echo_json([*rows, *missing])
        return
    if not records:
        click.echo("No plugins installed. Install one, e.g.: pip install paperzoo-revdiv")
    else:
        columns = ["id", "distribution", "version", "framework", "paper", "status"]
        table = _table(*columns, *(["hooks"] if with_hooks else []))
        for d in rows:
            status = d["status"]
            style = "green" if status == "loaded" else ("red" if status.startswith("failed") else "yellow")
            cells = [
                d["id"],
                d["distribution"] or "—",
                d["version"] or "—",
                d["framework"] or "—",
                d["paper"] or "",
            ]
            _add(table, *cells, _styled(status, style), *([", ".join(d["hooks"])] if with_hooks else []))
        _console().print(table)
    if missing:
        table = _table("id", "paper or purpose", "install", title="first-party plugins not installed")
        for m in missing:
            _add(table, m["id"], m["title"], m["install"])
        _console().print(table)


@cli.command(name="list")
@click.argument("kind", required=False, type=click.Choice([*KINDS, *(k[:-1] for k in KINDS)]))
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def list_(kind: str | None, as_json: bool) -> None:
    """List registered estimators, datasets, metrics or experiments."""
    host = _host()
    kinds = [kind if kind.endswith("s") else f"{kind}s"] if kind else list(KINDS)
    if as_json:
        _echo_json({k: [s.describe() for s in getattr(host, k)] for k in kinds})
        return
    console = _console()
    for k in kinds:
        specs = list(getattr(host, k))
        table = _table("name", "plugin", "summary", title=f"{k} ({len(specs)})")
        for spec in specs:
            _add(table, spec.name, spec.plugin, spec.summary)
        console.print(table)


@cli.command()
@click.argument("name")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def info(name: str, as_json: bool) -> None:
    """Describe an estimator, dataset, metric, experiment or plugin."""
    from paperzoo.errors import UnknownNameError

    host = _host()
    try:
        specs = host.find(name)
    except UnknownNameError:
        if name in {r.name for r in host.records()}:
            data = host.record(name).to_dict()
            if as_json:
                _echo_json(data)
            else:
                for key, value in data.items():
                    click.echo(f"{key:>13}: {value}")
            return
        raise
    if as_json:
        described = [spec.describe() for spec in specs]
        _echo_json(described[0] if len(described) == 1 else described)
        return
    for spec in specs:
        _print_spec(spec)


def _print_spec(spec: Any) -> None:
    from paperzoo.specs import SCALES, ExperimentSpec

    data = spec.describe()
    console = _console()
    console.print(f"[bold]{escape(spec.name)}[/bold] ({data['kind']} from {escape(spec.plugin)})")
    if spec.summary:
        console.print(escape(spec.summary))
    skip = {
        "name",
        "summary",
        "kind",
        "settings",
        "scales",
        "files",
        "constraints",
        "references",
        "test_scale",
    }
    for key, value in data.items():
        if key not in skip and value not in ("", None, [], {}):
            console.print(escape(f"  {key}: {value}"))
    if isinstance(spec, ExperimentSpec) and spec.settings:
        table = _table("setting", *SCALES, "allowed", title="settings by scale")
        for key in spec.settings:
            _add(
                table,
                key,
                *(repr(spec.settings_for(s)[key]) for s in SCALES),
                spec.constraints[key].describe(),
            )
        console.print(table)
    if isinstance(spec, ExperimentSpec) and spec.references:
        table = _table("metric", "setting", "value", "kind", "source", title="reference values")
        for ref in spec.references:
            _add(table, ref.metric, ref.setting, format_value(ref.value), ref.kind, ref.source)
        console.print(table)
    for file in data.get("files") or []:
        console.print(escape(f"  file {file['path']} ← {file['url']}"))


# ----------------------------------------------------------------------- run


def _parse_options(pairs: Iterable[str]) -> dict[str, str]:
    out: dict[str, str] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise ConfigError(
                f"invalid --executor-option {pair!r}", hint="write key=value, e.g. address=auto"
            )
        out[key.strip()] = value
    return out


def _plan(
    host: PluginHost, experiment: str, scale: str, seed: int, seeds: str | None, sets: Sequence[str]
) -> list[RunRequest]:
    from paperzoo.sweep import parse_seeds, plan

    return plan(host.experiments.get(experiment), scale, parse_seeds(seeds) if seeds else [seed], sets)


def _execute(
    host: PluginHost, requests: list[RunRequest], executor_name: str, options: dict[str, Any], quiet: bool
) -> list[RunOutcome]:
    from paperzoo.progress import track

    executor = host.hooks.executor(name=executor_name, options=options)
    outcomes: list[RunOutcome] = []
    results = executor.map(requests)
    if len(requests) > 1 and not quiet:
        results = track(results, total=len(requests), description=f"{len(requests)} runs")
    for outcome in results:
        outcomes.append(outcome)
    return outcomes


def _print_outcomes(outcomes: list[RunOutcome]) -> None:
    console = _console()
    if len(outcomes) == 1:
        outcome = outcomes[0]
        if outcome.result is not None:
            console.print(_result_table(outcome.result, title=escape(outcome.request.label())))
            for artifact in outcome.result.artifacts:
                console.print(escape(f"  {artifact.kind}: {Path(outcome.dir) / artifact.path}"))
            if outcome.result.notes:
                console.print(escape(f"  note: {outcome.result.notes}"))
        state = "[green]succeeded[/green]" if outcome.ok else "[red]failed[/red]"
        console.print(
            f"run {escape(outcome.run_id)} {state} in {outcome.duration:.1f} s — {escape(outcome.dir)}"
        )
        return
    from paperzoo.summary import aggregate

    table = _table("run", "seed", "overrides", "status", "time (s)", title="runs")
    for o in sorted(outcomes, key=lambda o: (sorted(o.request.overrides.items()), o.request.seed)):
        _add(
            table,
            o.run_id or "—",
            str(o.request.seed),
            ", ".join(f"{k}={v}" for k, v in o.request.overrides.items()),
            _ok(o.ok, o.error),
            f"{o.duration:.1f}",
        )
    console.print(table)
    summary = _table("metric", "setting", "mean", "std", "n", "paper", "unit", title="mean over runs")
    for row in aggregate((o.request.overrides, o.result) for o in outcomes if o.result is not None):
        _add(
            summary,
            row.metric,
            row.setting,
            format_value(row.mean),
            format_value(row.std),
            str(row.n),
            format_value(row.paper),
            row.unit,
        )
    console.print(summary)


def _raise_failures(outcomes: list[RunOutcome]) -> None:
    failed = [o for o in outcomes if not o.ok]
    if not failed:
        return
    first = failed[0]
    prefix = (
        f"run {first.run_id}"
        if len(outcomes) == 1
        else f"{len(failed)} of {len(outcomes)} runs failed; first"
    )
    raise RunFailedError(f"{prefix}: {first.error}", hint=first.hint)


class RunFailedError(PaperzooError):
    """One or more runs failed (exit status 1)."""

    exit_code = 1


@cli.command()
@click.argument("experiment")
@click.option("--scale", type=click.Choice(["smoke", "default", "paper"]), default="smoke", show_default=True)
@click.option("--seed", type=click.IntRange(0, MAX_SEED), help="Seed of a single run (default 0).")
@click.option("--seeds", help="Sweep over seeds, e.g. 0-4 or 0,3,7 (instead of --seed).")
@click.option(
    "--set", "sets", multiple=True, metavar="KEY=VALUE", help="Override a setting; KEY=v1,v2 sweeps."
)
@click.option(
    "--executor", "executor_name", default="local", show_default=True, help="Executor for the runs."
)
@click.option(
    "--workers",
    type=click.IntRange(1),
    default=1,
    show_default=True,
    help="Parallel runs (passed to the executor as the 'workers' option when not 1).",
)
@click.option(
    "--executor-option", "executor_options", multiple=True, metavar="KEY=VALUE", help="Executor option."
)
@click.option("--json", "as_json", is_flag=True, help="Print the result(s) as JSON.")
def run(
    experiment: str,
    scale: str,
    seed: int | None,
    seeds: str | None,
    sets: tuple[str, ...],
    executor_name: str,
    workers: int,
    executor_options: tuple[str, ...],
    as_json: bool,
) -> None:
    """Run an experiment (or a sweep of seeds and settings)."""
    if seed is not None and seeds is not None:
        raise ConfigError(
            "--seed and --seeds were both given", hint="use --seeds for a sweep, --seed for one run"
        )
    host = _host()
    requests = _plan(host, experiment, scale, seed or 0, seeds, sets)
    options: dict[str, Any] = _parse_options(executor_options)
    if workers != 1:
        options["workers"] = workers
    outcomes = _execute(host, requests, executor_name, options, quiet=as_json)
    if as_json:
        data = [o.to_dict() for o in outcomes]
        _echo_json(data[0] if len(data) == 1 else {"sweep": requests[0].sweep, "runs": data})
    else:
        _print_outcomes(outcomes)
    _raise_failures(outcomes)


@cli.command()
@click.option("--scale", type=click.Choice(["smoke", "default", "paper"]), default="smoke", show_default=True)
@click.option("--plugin", "plugin_ids", multiple=True, help="Only this plugin's experiments (repeatable).")
@click.option("--seed", type=click.IntRange(0, MAX_SEED), default=0, show_default=True)
@click.option("--workers", type=click.IntRange(1), default=1, show_default=True, help="Parallel runs.")
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), help="Report directory.")
@click.option("--report/--no-report", default=True, show_default=True, help="Write the report afterwards.")
def reproduce(
    scale: str, plugin_ids: tuple[str, ...], seed: int, workers: int, out: Path | None, report: bool
) -> None:
    """Run every installed experiment at SCALE, then write the report."""
    from paperzoo.runs import RunRequest

    host = _host()
    specs = [s for s in host.experiments if not plugin_ids or s.plugin in plugin_ids]
    console = _console()
    if not specs and plugin_ids:
        raise ConfigError(
            f"no experiments from plugin(s) {', '.join(plugin_ids)}", hint="see 'paperzoo plugins'"
        )
    if not specs:
        console.print("No experiments installed: install a plugin, e.g. pip install paperzoo-revdiv")
        if report:
            _write_report(out, None)
        return
    requests = [RunRequest(s.name, scale, seed) for s in specs]
    for spec in specs:  # every experiment's settings are checked before the first one runs
        spec.settings_for(scale)
    console.print(f"Running {len(requests)} experiments at scale {scale!r}…")
    outcomes = _execute(host, requests, "local", {"workers": workers}, quiet=False)
    table = _table("experiment", "status", "time (s)", "run")
    for o in sorted(outcomes, key=lambda o: o.request.experiment):
        _add(table, o.request.experiment, _ok(o.ok, o.error), f"{o.duration:.1f}", o.run_id)
    console.print(table)
    if report:
        _write_report(out, None)
    _raise_failures(outcomes)


# ---------------------------------------------------------------------- runs


@cli.group(invoke_without_command=True)
@click.option("--experiment", help="Experiment name, or a prefix ending in '*'.")
@click.option("--status", type=click.Choice(["running", "succeeded", "failed"]))
@click.option("--scale", type=click.Choice(["smoke", "default", "paper"]))
@click.option("--plugin", help="Plugin id.")
@click.option("--sweep", help="Sweep id.")
@click.option("--limit", type=int, default=20, show_default=True)
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@click.pass_context
def runs(
    ctx: click.Context,
    experiment: str | None,
    status: str | None,
    scale: str | None,
    plugin: str | None,
    sweep: str | None,
    limit: int,
    as_json: bool,
) -> None:
    """List past runs, newest first (subcommands: show)."""
    if ctx.invoked_subcommand is not None:
        return
    store = _store()
    store.reap()
    records = store.runs(
        experiment=experiment, status=status, scale=scale, plugin=plugin, sweep=sweep, limit=limit
    )
    if as_json:
        _echo_json([r.to_dict() for r in records])
        return
    if not records:
        click.echo("No runs match. Start one with: paperzoo run EXPERIMENT")
        return
    table = _table("run", "experiment", "scale", "seed", "status", "started", "time (s)", "error")
    for r in records:
        style = {"succeeded": "green", "failed": "red"}.get(r.status, "yellow")
        _add(
            table,
            r.id,
            r.experiment,
            r.scale,
            str(r.seed),
            _styled(r.status, style),
            time.strftime("%Y-%m-%d %H:%M", time.localtime(r.started)),
            "" if r.duration is None else f"{r.duration:.1f}",
            (r.error or "")[:60],
        )
    _console().print(table)


@runs.command()
@click.argument("run_id")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def show(run_id: str, as_json: bool) -> None:
    """Show one run: settings, result table, artifacts, error."""
    store = _store()
    record = store.get(run_id)
    result = store.result(record.id)
    if as_json:
        _echo_json({**record.to_dict(), "result": result.to_dict()})
        return
    console = _console()
    console.print(
        f"[bold]{escape(record.id)}[/bold] — "
        + escape(f"{record.experiment} [{record.scale}] seed={record.seed}")
    )
    console.print(escape(f"  status: {record.status}" + (f" ({record.error})" if record.error else "")))
    console.print(escape(f"  settings: {json.dumps(record.settings, default=str)}"))
    console.print(escape(f"  dir: {record.dir}"))
    if result.rows:
        console.print(_result_table(result))
    for artifact in result.artifacts:
        console.print(escape(f"  {artifact.kind}: {Path(record.dir) / artifact.path}"))


# -------------------------------------------------------------------- report


def _write_report(out: Path | None, experiment: str | None) -> None:
    from paperzoo.paths import report_dir
    from paperzoo.report import write_report

    store = _store()
    store.reap()
    html, markdown = write_report(store, out or report_dir(), experiment=experiment)
    click.echo(f"Report: {html}")
    click.echo(f"Markdown: {markdown}")


@cli.command()
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), help="Output directory.")
@click.option("--experiment", help="Only this experiment (or a prefix ending in '*').")
def report(out: Path | None, experiment: str | None) -> None:
    """Write an HTML page and a Markdown file comparing our results with the papers'."""
    _write_report(out, experiment)


# ---------------------------------------------------------------------- data


@cli.group()
def data() -> None:
    """Manage dataset files: list, fetch, verify."""


def _dataset_specs(host: PluginHost, names: Sequence[str]) -> list[Any]:
    return [host.datasets.get(n) for n in names] if names else list(host.datasets)


@data.command(name="list")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def data_list(as_json: bool) -> None:
    """List datasets and whether their files are present (not verified)."""
    from paperzoo.data import locate_unverified

    host = _host()
    rows: list[dict[str, Any]] = []
    for spec in host.datasets:
        present = [locate_unverified(f) is not None for f in spec.files]
        rows.append(
            {
                "name": spec.name,
                "plugin": spec.plugin,
                "files": len(spec.files),
                "present": sum(present),
                "size": spec.size,
                "license": spec.license,
            }
        )
    if as_json:
        _echo_json(rows)
        return
    table = _table("dataset", "plugin", "files present", "size (MB)", "licence")
    for r in rows:
        size = "—" if r["size"] is None else f"{r['size'] / 1e6:.1f}"
        _add(table, r["name"], r["plugin"], f"{r['present']}/{r['files']}", size, r["license"])
    _console().print(table)


@contextmanager
def _download_progress(label: str) -> Iterator[Callable[[int, int | None], None] | None]:
    """A rich download bar on an interactive terminal, else nothing."""
    if not sys.stderr.isatty():
        yield None
        return
    from rich.progress import DownloadColumn, Progress, TransferSpeedColumn

    with Progress(
        *Progress.get_default_columns(), DownloadColumn(), TransferSpeedColumn(), transient=True
    ) as bar:
        task = bar.add_task(label, total=None)
        yield lambda done, total: bar.update(task, completed=done, total=total)


@data.command(name="fetch")
@click.argument("names", nargs=-1)
def data_fetch(names: tuple[str, ...]) -> None:
    """Fetch datasets' files (all datasets when no NAME is given)."""
    from paperzoo.data import fetch

    host = _host()
    console = _console()
    for spec in _dataset_specs(host, names):
        for file in spec.files:
            with _download_progress(file.path) as progress:
                path = fetch(file, progress=progress)
            console.print(escape(f"{spec.name}: {file.path} → {path}"))


@data.command(name="verify")
@click.argument("names", nargs=-1)
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def data_verify(names: tuple[str, ...], as_json: bool) -> None:
    """Check the sha256 of every present file; exit 1 if any is corrupt."""
    from paperzoo.data import verify

    host = _host()
    rows = []
    for spec in _dataset_specs(host, names):
        for file in spec.files:
            state, path = verify(file)
            rows.append({"dataset": spec.name, "file": file.path, "status": state, "path": str(path or "")})
    if as_json:
        _echo_json(rows)
    else:
        table = _table("dataset", "file", "status", "where")
        for r in rows:
            style = {"ok": "green", "corrupt": "red"}.get(r["status"], "yellow")
            _add(table, r["dataset"], r["file"], _styled(r["status"], style), r["path"])
        _console().print(table)
    corrupt = [r for r in rows if r["status"] == "corrupt"]
    if corrupt:
        raise RunFailedError(
            f"{len(corrupt)} file(s) do not match their sha256, e.g. {corrupt[0]['path']}",
            hint="delete them and run 'paperzoo data fetch'",
        )


# ---------------------------------------------------------------------- main


def _fail(message: str, hint: str | None, code: int) -> NoReturn:
    console = _console(stderr=True)
    console.print(f"[bold red]Error:[/bold red] {escape(message)}")
    if hint:
        console.print(f"[bold]Hint:[/bold] {escape(hint)}")
    sys.exit(code)


def main(argv: Sequence[str] | None = None) -> None:
    """Entry point of the ``paperzoo`` command."""
    args = list(sys.argv[1:] if argv is None else argv)
    debug = "--debug" in args or os.environ.get("PAPERZOO_DEBUG") == "1"
    handler = logging.StreamHandler()
    handler.setFormatter(logging.Formatter("warning: %(message)s"))
    logger = logging.getLogger("paperzoo")
    if not logger.handlers:
        logger.addHandler(handler)
        logger.setLevel(logging.WARNING)
    try:
        code = cli.main(args=args, prog_name="paperzoo", standalone_mode=False)
    except PaperzooError as exc:
        if debug:
            raise
        _fail(exc.message, exc.hint, getattr(exc, "exit_code", 2))
    except click.exceptions.Exit as exc:
        sys.exit(exc.exit_code)
    except click.ClickException as exc:
        if debug:
            raise
        _fail(exc.format_message(), "see 'paperzoo --help'" if isinstance(exc, click.UsageError) else None, 2)
    except (KeyboardInterrupt, click.exceptions.Abort):
        _fail("interrupted", None, 130)
    except Exception as exc:
        if debug:
            raise
        _fail(
            f"unexpected {type(exc).__name__}: {exc}",
            "run with --debug for the traceback and report a bug",
            1,
        )
    else:
        # standalone_mode=False returns ctx.exit(code)'s code instead of exiting
        if isinstance(code, int) and code != 0:
            sys.exit(code)


if __name__ == "__main__":  # pragma: no cover
    main()

"""``paperzoo minerva``: list the tasks, generate a suite, export it for lm-evaluation-harness."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click

from paperzoo.errors import ConfigError


@click.group()
def minerva() -> None:
    """Minerva memory tests: tasks, suites, exports."""


@minerva.command(name="tasks")
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of a table.")
def list_tasks(as_json: bool) -> None:
    """The tasks, their category, headline metric and default parameters."""
    from paperzoo_minerva.tasks import all_tasks

    rows = [
        {"task": s.name, "category": s.category, "primary": s.primary, "defaults": dict(s.defaults)}
        for s in all_tasks()
    ]
    if as_json:
        click.echo(json.dumps(rows, indent=2))
        return
    for row in rows:
        params = ", ".join(f"{k}={v}" for k, v in row["defaults"].items())
        click.echo(f"{row['category']:<26} {row['task']:<32} {row['primary']:<32} {params}")


def _parse_params(values: tuple[str, ...]) -> tuple[dict[str, dict[str, Any]], dict[str, Any]]:
    """``task.param=value`` → per-task overrides; ``param=value`` → common ones. Values are JSON or text."""
    overrides: dict[str, dict[str, Any]] = {}
    common: dict[str, Any] = {}
    for item in values:
        key, sep, raw = item.partition("=")
        if not sep or not key:
            raise ConfigError(
                f"--param {item!r} is not KEY=VALUE", hint="e.g. --param count.repetition_count=[2,8]"
            )
        try:
            value = json.loads(raw)
        except json.JSONDecodeError:
            value = raw
        task, dot, name = key.rpartition(".")
        if dot:
            overrides.setdefault(task, {})[name] = value
        else:
            common[name] = value
    return overrides, common


@minerva.command()
@click.argument("out", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--seed", type=click.IntRange(0), default=0, show_default=True)
@click.option("--task", "tasks", multiple=True, help="A task to generate (repeatable; default: all 28).")
@click.option(
    "--context-length", type=click.IntRange(1), help="Tokens of context for every task that has one."
)
@click.option("--param", "params", multiple=True,
              help="TASK.PARAM=VALUE for one task, PARAM=VALUE for all that have it; VALUE is JSON or text.")  # fmt: skip
def generate(
    out: Path, seed: int, tasks: tuple[str, ...], context_length: int | None, params: tuple[str, ...]
) -> None:
    """Generate a suite and write it to OUT as versioned JSONL."""
    from paperzoo_minerva.instance import write_suite
    from paperzoo_minerva.tasks import generate_suite

    overrides, common = _parse_params(params)
    if context_length is not None:
        common["context_length"] = context_length
    suite = generate_suite(seed, tasks=list(tasks) or None, overrides=overrides, common=common)
    path = write_suite(suite, out, seed=seed, tasks=list(tasks), overrides=overrides, common=common)
    click.echo(f"{len(suite)} instances of {len({i.task for i in suite})} tasks → {path}")


@minerva.command()
@click.argument("suite", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.argument("directory", type=click.Path(file_okay=False, path_type=Path))
@click.option("--group", default="minerva", show_default=True, help="lm-eval group (and task-name prefix).")
@click.option("--max-gen-toks", type=click.IntRange(1), default=4096, show_default=True)
def export(suite: Path, directory: Path, group: str, max_gen_toks: int) -> None:
    """Export SUITE (a generated suite or a snapshot file) as an lm-eval task group in DIRECTORY."""
    from paperzoo_minerva.export import export_lm_eval
    from paperzoo_minerva.instance import read_suite

    path = export_lm_eval(read_suite(suite), directory, group=group, max_gen_toks=max_gen_toks)
    click.echo(
        f"lm-eval tasks in {path}; run: lm_eval --include_path {path} --tasks {group} --apply_chat_template ..."
    )

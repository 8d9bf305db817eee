"""The lm-evaluation-harness export and the ``paperzoo minerva`` commands."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from paperzoo.errors import ConfigError, UnknownNameError
from paperzoo_minerva.cli import minerva
from paperzoo_minerva.export import export_lm_eval
from paperzoo_minerva.instance import read_suite
from paperzoo_minerva.responders import oracle_answer
from paperzoo_minerva.tasks import all_tasks, generate_suite

SMALL = {"context_length": 200, "samples": 1}


def _suite() -> list:
    return generate_suite(0, tasks=["string_search_word", "set_state", "theory_of_mind"], common=SMALL)


def _load_utils(directory: Path):  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location("exported_utils", directory / "utils.py")
    module = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    return module


def test_export_round_trips_through_process_results(tmp_path: Path) -> None:
    suite = _suite()
    out = export_lm_eval(suite, tmp_path / "lm", group="mv", max_gen_toks=64)
    names = sorted(p.name for p in out.iterdir())
    tasks = sorted({i.task for i in suite})
    assert names == sorted(
        ["mv.yaml", "utils.py", *(f"mv_{t}.{e}" for t in tasks for e in ("jsonl", "yaml"))]
    )
    group = (out / "mv.yaml").read_text()
    assert "group: mv" in group and all(f"  - mv_{t}" in group for t in tasks)
    task_yaml = (out / "mv_set_state.yaml").read_text()
    assert f'test: "{out / "mv_set_state.jsonl"}"' in task_yaml
    assert "max_gen_toks: 64" in task_yaml and "process_results: !function utils.process_results" in task_yaml
    process = _load_utils(out).process_results
    by_id = {i.id: i for i in suite}
    rows = [json.loads(line) for t in tasks for line in (out / f"mv_{t}.jsonl").read_text().splitlines()]
    assert len(rows) == len(suite)
    assert all(set(r) == {"id", "task", "category", "prompt", "target", "reference", "params"} for r in rows)
    assert all(process(r, [oracle_answer(by_id[r["id"]])])["score"] == 1.0 for r in rows)
    assert {process(r, ["no idea"])["score"] for r in rows if r["task"] == "set_state"} == {0.0}


def test_export_refuses_bad_input_and_writes_nothing(tmp_path: Path) -> None:
    taken = tmp_path / "taken"
    taken.mkdir()
    (taken / "keep.txt").write_text("mine")
    with pytest.raises(ConfigError, match="not empty"):
        export_lm_eval(_suite(), taken)
    assert [p.name for p in taken.iterdir()] == ["keep.txt"]
    with pytest.raises(ConfigError, match="empty"):
        export_lm_eval([], tmp_path / "a")
    with pytest.raises(ConfigError, match="group"):
        export_lm_eval(_suite(), tmp_path / "b", group="my group")
    bad = [*_suite(), _suite()[0].__class__("x", "needle", "search", "p", "yes")]
    with pytest.raises(UnknownNameError, match="needle"):
        export_lm_eval(bad, tmp_path / "c")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["taken"]  # no staging left behind


def test_cli_lists_generates_and_exports(tmp_path: Path) -> None:
    runner = CliRunner()
    listed = runner.invoke(minerva, ["tasks", "--json"])
    assert listed.exit_code == 0, listed.output
    assert [row["task"] for row in json.loads(listed.output)] == [s.name for s in all_tasks()]
    suite = tmp_path / "suite.jsonl"
    made = runner.invoke(minerva, ["generate", str(suite), "--task", "count", "--context-length", "300",
                                   "--param", "count.repetition_count=[2, 8]", "--param", "samples=1"])  # fmt: skip
    assert made.exit_code == 0, made.output
    instances = list(read_suite(suite))
    assert [i.params["repetition_count"] for i in instances] == [2, 8]
    assert instances == generate_suite(0, tasks=["count"], overrides={"count": {"repetition_count": [2, 8]}},
                                       common={"context_length": 300, "samples": 1})  # fmt: skip
    exported = runner.invoke(minerva, ["export", str(suite), str(tmp_path / "lm")])
    assert exported.exit_code == 0, exported.output
    assert (tmp_path / "lm" / "minerva_count.yaml").is_file()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--param", "contxt_length=10"], "no generated task has the parameter(s) contxt_length"),
        (["--param", "cont.samples=1"], "unknown Minerva task 'cont'"),
        (["--param", "string_search_word.samples=1"], "not generated"),
        (["--param", "samples"], "is not KEY=VALUE"),
    ],
)
def test_cli_generate_rejects_bad_parameters_and_writes_nothing(
    tmp_path: Path, args: list[str], message: str
) -> None:
    result = CliRunner().invoke(minerva, ["generate", str(tmp_path / "s.jsonl"), "--task", "count", *args])
    assert result.exit_code != 0
    assert message in str(result.exception)
    assert not (tmp_path / "s.jsonl").exists()

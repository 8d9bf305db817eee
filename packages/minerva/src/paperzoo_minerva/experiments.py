"""Experiments: the published snapshot and a generated suite, answered by any responder.

* ``minerva.snapshot`` — the 1,180 published prompts (or ``limit`` per task).
* ``minerva.generated`` — a fresh suite from ``seed`` at ``context_length``
  tokens, written as an artifact, checked against the snapshot's statistics.

The ``responder`` setting lists (comma-separated) who answers: ``oracle`` (must score 1
everywhere), ``always-yes`` (must score the yes/no balance on yes/no tasks) and
any ``paperzoo-llm`` backend (``transformers:smollm2``, ``openai:<model>``).
Answers are saved in the run directory as they arrive (``answers.jsonl``), so an
interrupted run resumes where it stopped.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from paperzoo.errors import ConfigError
from paperzoo.references import Ref
from paperzoo.results import Result
from paperzoo_minerva.context import get_tokenizer
from paperzoo_minerva.instance import Instance, write_suite
from paperzoo_minerva.plots import plot_categories
from paperzoo_minerva.responders import make_responder
from paperzoo_minerva.runner import evaluate, run_suite, summarise
from paperzoo_minerva.snapshot import load_snapshot
from paperzoo_minerva.suite_stats import suite_statistics
from paperzoo_minerva.tasks import all_tasks, generate_suite, get_task

if TYPE_CHECKING:
    from paperzoo.runs import Run

__all__ = ["generated", "snapshot"]


def _select(instances: Sequence[Instance], tasks: Sequence[str], limit: int) -> list[Instance]:
    for name in tasks:
        get_task(name)  # unknown names: one clear error
    chosen = [i for i in instances if not tasks or i.task in tasks]
    if limit > 0:
        counts: Counter[str] = Counter()
        kept = []
        for instance in chosen:
            if counts[instance.task] < limit:
                kept.append(instance)
                counts[instance.task] += 1
        chosen = kept
    if not chosen:
        raise ConfigError("no instance selected", hint="check the tasks setting")
    return chosen


ORACLE = Ref(1.0, "the oracle answers every prompt with its reference", kind="oracle")
"""What the oracle scores on every task (the yes/no balances of "always yes" are in the manifest)."""

SNAPSHOT = "statistics of the published snapshot"
"""Source of the reference values of ``minerva.generated``'s statistics rows."""


def _answer(run: Run, instances: list[Instance], settings: Mapping[str, Any]) -> Result:
    """Answer ``instances`` with every responder in ``settings["responder"]``; one row per task each."""
    specs = list(settings["responder"])
    if len(set(specs)) != len(specs):
        raise ConfigError(
            f"responder must be a list without repeats, got {specs!r}",
            hint="e.g. --set responder=oracle,transformers:smollm2",
        )
    options: dict[str, Any] = {"base_url": settings["base_url"]} if settings["base_url"] else {}
    answers_path = run.artifact_path("answers.jsonl")
    result = Result()
    by_responder: dict[str, dict[str, float]] = {}
    saved: dict[str, Any] = {}
    for spec in specs:
        responder = make_responder(spec, max_tokens=settings["max_tokens"],
                                   max_concurrency=settings["max_concurrency"], **options)  # fmt: skip
        try:
            answers = run_suite(
                instances,
                responder,
                answers_path,
                progress=lambda done, total: run.log_step(done, answered=done / total),
            )
        finally:
            responder.close()
        scores = evaluate(instances, answers)
        summary = summarise(scores)
        for s in scores:
            setting = {"responder": responder.name, "task": s.task}
            ref = ORACLE if responder.name == "oracle" else None
            result.add(f"{s.category}: {s.primary}", s.value, setting=setting, ref=ref)
            if "exact_match_strict" in s.scores:
                result.add(
                    f"{s.category}: exact_match_strict", s.scores["exact_match_strict"], setting=setting
                )
        for category, value in summary["categories"].items():
            result.add("category mean", value, setting={"responder": responder.name, "category": category})
        result.add("overall mean of task scores", summary["overall"], setting={"responder": responder.name})
        by_responder[responder.name] = summary["categories"]
        saved[responder.name] = {
            "tasks": [s.__dict__ | {"scores": dict(s.scores)} for s in scores],
            **summary,
        }
    run.add_artifact(answers_path, "file", "answers (one JSON line per responder and instance)")
    run.save_json(saved, "scores")
    plot_categories(run, by_responder)
    return result


def snapshot(run: Run) -> Result:
    """Answer the published snapshot."""
    s = run.settings
    instances = _select(load_snapshot(), list(s["tasks"]), int(s["limit"]))
    result = _answer(run, instances, s)
    result.notes = (
        f"{len(instances)} snapshot prompts. 'paper' is the anchor the published data fixes: 1 for the "
        "oracle, the snapshot's yes/no balance for always-yes (whole tasks only). The paper's own "
        "numbers are model scores (GPT-4o and others), not reproducible offline."
    )
    return result


def generated(run: Run) -> Result:
    """Generate a suite, check it against the snapshot's statistics, and answer it."""
    s = run.settings
    specs = [get_task(name) for name in s["tasks"]] or all_tasks()
    sized = any("context_length" in spec.defaults for spec in specs)
    common = {"context_length": s["context_length"]} if sized else {}
    suite = generate_suite(run.seed, tasks=[spec.name for spec in specs], common=common)
    instances = _select(suite, list(s["tasks"]), int(s["limit"]))
    path = write_suite(
        suite, run.artifact_path("suite.jsonl"), seed=run.seed, context_length=s["context_length"]
    )
    run.add_artifact(path, "file", "the generated suite (JSONL)")
    result = _answer(run, instances, s)
    if s["compare_snapshot"]:
        encode = get_tokenizer("cl100k")[0]
        ours = suite_statistics(suite, lambda t: len(encode(t)))
        theirs = suite_statistics(load_snapshot(sorted(ours)), lambda t: len(encode(t)))
        for task, stats in ours.items():
            published = theirs.get(task)
            if published is None:
                continue
            cell = {"task": task}
            result.add("instances", stats.count, setting=cell,
                       ref=Ref(published.count, SNAPSHOT, kind="official-code"))  # fmt: skip
            result.add("context tokens (mean)", stats.context_tokens, unit="tokens", setting=cell,
                       ref=Ref(published.context_tokens, SNAPSHOT, kind="official-code"))  # fmt: skip
            if stats.yes_share is not None and published.yes_share is not None:
                result.add("share of 'yes' references", stats.yes_share, setting=cell,
                           ref=Ref(published.yes_share, SNAPSHOT, kind="official-code"))  # fmt: skip
    result.notes = (
        f"A suite generated with seed {run.seed} ({len(suite)} instances, {len({i.task for i in suite})} tasks); 'paper' on the "
        "statistics rows is the published snapshot's value."
    )
    return result

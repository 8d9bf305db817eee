"""Experiments: the published snapshot and a generated suite, answered by any responder.

* ``minerva.snapshot`` — the 1,180 published prompts (or ``limit`` per task).
* ``minerva.generated`` — a fresh suite from ``seed`` at ``context_length``
  tokens, written as an artifact, checked against the snapshot's statistics.

The responder is a setting: ``oracle`` (scores 1 everywhere), ``always-yes``
(scores the yes/no balance on yes/no tasks) or any ``paperzoo-llm`` backend
(``transformers:smollm2``, ``openai:<model>``). Answers are saved in the run
directory as they arrive (``answers.jsonl``).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from paperzoo.errors import ConfigError
from paperzoo.results import Result
from paperzoo_minerva.context import get_tokenizer
from paperzoo_minerva.instance import Instance, write_suite
from paperzoo_minerva.plots import plot_categories
from paperzoo_minerva.responders import make_responder
from paperzoo_minerva.runner import evaluate, run_suite, summarise
from paperzoo_minerva.snapshot import load_snapshot
from paperzoo_minerva.suite_stats import suite_statistics
from paperzoo_minerva.tasks import TASKS, generate_suite, get_task

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


def _answer(run: Run, instances: list[Instance], settings: Mapping[str, Any]) -> Result:
    if settings["max_tokens"] < 1 or settings["max_concurrency"] < 1:
        raise ConfigError("max_tokens and max_concurrency must be at least 1")
    options: dict[str, Any] = {}
    if settings["base_url"]:
        options["base_url"] = settings["base_url"]
    responder = make_responder(settings["responder"], max_tokens=settings["max_tokens"],
                               max_concurrency=settings["max_concurrency"], **options)  # fmt: skip
    try:
        answers = run_suite(instances, responder, run.artifact_path("answers.jsonl"),
                            progress=lambda done, total: run.log_step(done, answered=done / total))  # fmt: skip
    finally:
        responder.close()
    run.add_artifact(run.artifact_path("answers.jsonl"), "file", "answers")
    scores = evaluate(instances, answers)
    summary = summarise(scores)
    result = Result()
    for s in scores:
        setting = {"task": s.task, "responder": responder.name}
        result.add(f"{s.category}: {s.primary}", s.value, setting=setting)
        if "exact_match_strict" in s.scores:
            result.add(f"{s.category}: exact_match_strict", s.scores["exact_match_strict"], setting=setting)
    for category, value in summary["categories"].items():
        result.add("category mean", value, setting={"category": category, "responder": responder.name})
    result.add("overall mean of task scores", summary["overall"], setting={"responder": responder.name})
    run.save_json({"tasks": [s.__dict__ | {"scores": dict(s.scores)} for s in scores], **summary}, "scores")
    plot_categories(run, summary["categories"], responder.name)
    return result


def snapshot(run: Run) -> Result:
    """Answer the published snapshot."""
    s = run.settings
    instances = _select(load_snapshot(), list(s["tasks"]), int(s["limit"]))
    result = _answer(run, instances, s)
    result.notes = (
        f"{len(instances)} snapshot prompts. The paper reports model scores per category (e.g. GPT-4o); "
        "this run's responder is stated in each row's setting."
    )
    return result


def generated(run: Run) -> Result:
    """Generate a suite, check it against the snapshot's statistics, and answer it."""
    s = run.settings
    tasks = list(s["tasks"]) or None
    suite = generate_suite(run.seed, tasks=tasks, common={"context_length": s["context_length"]})
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
            ref = theirs.get(task)
            if ref is None:
                continue
            result.add("instances", stats.count, paper=ref.count, setting={"task": task})
            result.add("context tokens (mean)", stats.context_tokens, paper=ref.context_tokens, unit="tokens",
                       setting={"task": task})  # fmt: skip
            if stats.yes_share is not None and ref.yes_share is not None:
                result.add(
                    "share of 'yes' references", stats.yes_share, paper=ref.yes_share, setting={"task": task}
                )
    result.notes = (
        f"A suite generated with seed {run.seed} ({len(suite)} instances, {len(TASKS)} tasks); 'paper' on the "
        "statistics rows is the published snapshot's value."
    )
    return result

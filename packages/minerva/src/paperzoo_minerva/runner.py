"""Running a suite: bounded concurrency, resumable, every answer written as it arrives.

Answers go to a JSONL file, one line per instance (``{"id", "task", "responder",
"generation", "seconds"}``), appended and flushed as each answer arrives. Running
again with the same file skips every instance already answered, so an
interrupted run continues where it stopped and nothing is asked twice; a torn
last line (a crash mid-write) is ignored.
"""

from __future__ import annotations

import json
import os
import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from paperzoo.errors import ConfigError
from paperzoo_minerva.instance import Instance
from paperzoo_minerva.responders import Responder
from paperzoo_minerva.scoring import score
from paperzoo_minerva.tasks import CATEGORIES, get_task

__all__ = ["TaskScore", "evaluate", "load_answers", "run_suite", "summarise"]


def load_answers(path: Path, responder: str) -> dict[str, str]:
    """The answers of ``responder`` already in ``path`` (id → generation)."""
    answers: dict[str, str] = {}
    if not path.is_file():
        return answers
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            try:
                row = json.loads(line)
            except json.JSONDecodeError:
                continue  # a line torn by a crash: that instance is asked again
            if row.get("responder") == responder:
                answers[row["id"]] = row["generation"]
    return answers


def run_suite(
    instances: Sequence[Instance],
    responder: Responder,
    answers_path: str | os.PathLike[str],
    *,
    progress: Callable[[int, int], None] | None = None,
) -> dict[str, str]:
    """Answer every instance not yet in ``answers_path``; return id → generation for all.

    Up to ``responder.max_concurrency`` instances are answered at once. An
    instance whose call fails is left unanswered (and the error re-raised after the
    others in flight finished and were saved), so the next run retries it.
    """
    path = Path(answers_path)
    path.parent.mkdir(parents=True, exist_ok=True)
    ids = [i.id for i in instances]
    if len(set(ids)) != len(ids):
        raise ConfigError("the suite has duplicate instance ids")
    answers = load_answers(path, responder.name)
    todo = [i for i in instances if i.id not in answers]
    lock = threading.Lock()
    done = len(instances) - len(todo)

    def answer(instance: Instance) -> None:
        nonlocal done
        start = time.perf_counter()
        generation = responder.respond(instance)
        line = {"id": instance.id, "task": instance.task, "responder": responder.name,
                "generation": generation, "seconds": round(time.perf_counter() - start, 3)}  # fmt: skip
        with lock:
            with open(path, "a", encoding="utf-8") as fh:
                fh.write(json.dumps(line, ensure_ascii=False) + "\n")
                fh.flush()
                os.fsync(fh.fileno())
            answers[instance.id] = generation
            done += 1
            if progress is not None:
                progress(done, len(instances))

    if todo:
        with ThreadPoolExecutor(max_workers=max(1, min(responder.max_concurrency, len(todo)))) as pool:
            pending: set[Future[None]] = {pool.submit(answer, i) for i in todo}
            error: BaseException | None = None
            try:
                while pending:
                    finished, pending = wait(pending, return_when=FIRST_COMPLETED)
                    for future in finished:
                        if not future.cancelled() and future.exception() is not None and error is None:
                            error = future.exception()
                            for other in pending:
                                other.cancel()
            except KeyboardInterrupt:
                for other in pending:
                    other.cancel()
                raise
            if error is not None:
                raise error
    return {i.id: answers[i.id] for i in instances}


@dataclass(frozen=True)
class TaskScore:
    """Mean scores of one task.

    Attributes:
        task: Task name.
        category: Its category.
        n: Instances scored.
        primary: The headline score key.
        scores: Mean of every score key over the instances.
    """

    task: str
    category: str
    n: int
    primary: str
    scores: Mapping[str, float]

    @property
    def value(self) -> float:
        """The headline score."""
        return self.scores[self.primary]


def evaluate(instances: Iterable[Instance], answers: Mapping[str, str]) -> list[TaskScore]:
    """Score every answered instance; mean scores per task, in category order."""
    per_task: dict[str, list[dict[str, float]]] = {}
    categories: dict[str, str] = {}
    for instance in instances:
        if instance.id not in answers:
            continue
        spec = get_task(instance.task)
        per_task.setdefault(instance.task, []).append(score(instance, answers[instance.id], spec.metrics))
        categories[instance.task] = instance.category
    out = []
    for task, rows in per_task.items():
        keys = sorted(set().union(*rows))
        means = {k: float(np.mean([r.get(k, 0.0) for r in rows])) for k in keys}
        out.append(TaskScore(task, categories[task], len(rows), get_task(task).primary, means))
    order = {c: i for i, c in enumerate(CATEGORIES)}
    return sorted(out, key=lambda t: (order.get(t.category, 99), t.task))


def summarise(scores: Sequence[TaskScore]) -> dict[str, Any]:
    """Per-category means of the tasks' headline scores, and the overall mean."""
    categories: dict[str, list[float]] = {}
    for s in scores:
        categories.setdefault(s.category, []).append(s.value)
    means = {c: float(np.mean(v)) for c, v in categories.items()}
    return {
        "categories": means,
        "overall": float(np.mean([s.value for s in scores])) if scores else float("nan"),
    }

"""Statistics of a suite, to compare a generated suite with the published snapshot."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass

import numpy as np

from paperzoo_minerva.instance import Instance

__all__ = ["TaskStats", "context_text", "suite_statistics"]


def context_text(prompt: str) -> str:
    """The context part of a prompt: after ``"Context:\\n"`` (if any), before the instruction."""
    head = prompt.split("\n\nInstruction:", 1)[0]
    return head.split("Context:\n", 1)[1] if head.startswith("Context:\n") else head


@dataclass(frozen=True)
class TaskStats:
    """One task's statistics.

    Attributes:
        task: Task name.
        count: Instances.
        yes_share: Share of "yes" references among yes/no references (None if none).
        context_tokens: Mean tokens of the context part.
    """

    task: str
    count: int
    yes_share: float | None
    context_tokens: float


def suite_statistics(
    instances: Iterable[Instance], count_tokens: Callable[[str], int]
) -> dict[str, TaskStats]:
    """Per task: count, yes/no balance, mean context length in tokens."""
    by_task: dict[str, list[Instance]] = {}
    for instance in instances:
        by_task.setdefault(instance.task, []).append(instance)
    out = {}
    for task, items in by_task.items():
        answers = Counter(str(i.reference).strip().lower() for i in items)
        yes_no = answers["yes"] + answers["no"]
        out[task] = TaskStats(
            task=task,
            count=len(items),
            yes_share=answers["yes"] / yes_no if yes_no == len(items) else None,
            context_tokens=float(np.mean([count_tokens(context_text(i.prompt)) for i in items])),
        )
    return out

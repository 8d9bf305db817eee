"""The task registry: every Minerva test family, its generator, defaults and metrics.

A generator is a function ``generate(tc: TaskContext) -> list[Instance]``
registered with :func:`task`. It reads its parameters from ``tc.params`` (the
defaults updated with the user's overrides), draws everything from
``tc.builder`` (seeded), and makes instances with :meth:`TaskContext.instance`.
The modules of this package register the seven categories on import.
"""

from __future__ import annotations

import importlib
import zlib
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

import numpy as np

from paperzoo.errors import ConfigError, UnknownNameError
from paperzoo.registry import suggest
from paperzoo_minerva.context import ContextBuilder
from paperzoo_minerva.instance import Instance

__all__ = [
    "CATEGORIES",
    "TASKS",
    "TaskContext",
    "TaskSpec",
    "all_tasks",
    "depth_index",
    "generate_suite",
    "get_task",
    "make_prompt",
    "numbered",
    "sweep",
    "task",
]

CATEGORIES = (
    "search",
    "recall_and_edit",
    "match_and_compare",
    "spot_the_differences",
    "compute_on_sets_and_lists",
    "stateful_processing",
    "composite",
)
"""The seven categories, in the paper's order (and the snapshot's folder names)."""

_MODULES = {
    "search": "search",
    "recall_and_edit": "recall_and_edit",
    "match_and_compare": "match_and_compare",
    "spot_the_differences": "spot_the_differences",
    "compute_on_sets_and_lists": "sets_and_lists",
    "stateful_processing": "stateful",
    "composite": "composite",
}


def sweep(value: Any) -> list[Any]:
    """A parameter's values: a list or tuple sweeps them, anything else is one value."""
    return list(value) if isinstance(value, (list, tuple)) else [value]


def numbered(n: int) -> str:
    """``1st``, ``2nd``, ``3rd``, ``4th``, ..., ``11th``, ``21st``."""
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def depth_index(n: int, depth: Any) -> Any:
    """Position of relative ``depth`` in ``n`` items: ``⌊n·d⌋``, the last item at ``d = 1``.

    Accepts a number (returns an int) or an array (returns an int array).

    Raises:
        ConfigError: a depth outside [0, 1].
    """
    d = np.asarray(depth, dtype=float)
    if np.any((d < 0) | (d > 1)):
        raise ConfigError(f"context depths must lie in [0, 1], got {d.ravel().tolist()}")
    index = np.where(d >= 1, n - 1, np.floor(n * d)).astype(np.int64)
    return int(index) if index.ndim == 0 else index


def make_prompt(context: str, instruction: str, answer: str = "Answer:", *, header: str = "Context:") -> str:
    """``"{header}\\n{context}\\n\\nInstruction:\\n{instruction}\\n\\n{answer}"``, Minerva's layout."""
    return f"{header}\n{context}\n\nInstruction:\n{instruction}\n\n{answer}"


@dataclass(frozen=True)
class TaskSpec:
    """A registered task.

    Attributes:
        name: Task name (the snapshot's ``task`` field).
        category: One of :data:`CATEGORIES`.
        generate: The generator.
        defaults: User-settable parameters and their defaults (the paper's).
        metrics: Scorers of :mod:`paperzoo_minerva.scoring` applied to answers.
        primary: The score key that is the task's headline number.
        yes_no: Whether answers are "yes"/"no" (for the always-yes baseline).
        summary: One line.
        oracle: The perfect answer to an instance's prompt, from its reference
            (default: the reference as Minerva renders it).
    """

    name: str
    category: str
    generate: Callable[[TaskContext], list[Instance]]
    defaults: Mapping[str, Any] = field(default_factory=dict)
    metrics: tuple[str, ...] = ("exact_match",)
    primary: str = "exact_match"
    yes_no: bool = False
    summary: str = ""
    oracle: Callable[[Any], str] | None = None


TASKS: dict[str, TaskSpec] = {}
"""Every registered task by name (filled when the category modules are imported)."""


def task(
    name: str,
    category: str,
    *,
    defaults: Mapping[str, Any] | None = None,
    metrics: tuple[str, ...] = ("exact_match",),
    primary: str = "exact_match",
    yes_no: bool = False,
    summary: str = "",
    oracle: Callable[[Any], str] | None = None,
) -> Callable[[Callable[[TaskContext], list[Instance]]], Callable[[TaskContext], list[Instance]]]:
    """Register a generator as task ``name`` of ``category``."""
    if category not in CATEGORIES:
        raise ConfigError(f"unknown category {category!r}")

    def register(
        generate: Callable[[TaskContext], list[Instance]],
    ) -> Callable[[TaskContext], list[Instance]]:
        if name in TASKS:
            raise ConfigError(f"task {name!r} is registered twice")
        TASKS[name] = TaskSpec(
            name,
            category,
            generate,
            MappingProxyType(dict(defaults or {})),
            metrics,
            primary,
            yes_no,
            summary or (generate.__doc__ or "").strip().splitlines()[0],
            oracle,
        )
        return generate

    return register


def _load_all() -> None:
    for module in _MODULES.values():
        importlib.import_module(f"paperzoo_minerva.tasks.{module}")


def all_tasks() -> list[TaskSpec]:
    """Every task, in category order (the order of a full suite)."""
    _load_all()
    return [s for c in CATEGORIES for s in TASKS.values() if s.category == c]


def get_task(name: str) -> TaskSpec:
    """The task called ``name``.

    Raises:
        UnknownNameError: no such task (the hint names close ones).
    """
    _load_all()
    if name not in TASKS:
        raise UnknownNameError(
            f"unknown Minerva task {name!r}", hint=suggest(name, sorted(TASKS)) or "see TASKS"
        )
    return TASKS[name]


@dataclass
class TaskContext:
    """What a generator works with.

    Attributes:
        spec: The task.
        params: Defaults updated with the user's overrides.
        builder: Context builder, seeded for this task and suite seed.
        seed: The suite's seed.
    """

    spec: TaskSpec
    params: Mapping[str, Any]
    builder: ContextBuilder
    seed: int
    _count: int = 0

    @property
    def rng(self) -> np.random.Generator:
        """The task's random generator (the builder's)."""
        return self.builder.rng

    def values(self, key: str) -> list[Any]:
        """Parameter ``key`` as the list of values to sweep."""
        return sweep(self.params[key])

    def positive_ints(self, key: str) -> list[int]:
        """Parameter ``key`` as a non-empty list of positive integers.

        Raises:
            ConfigError: anything else (names the task and the parameter).
        """
        values = self.values(key)
        if not values or any(
            isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 1 for v in values
        ):
            raise ConfigError(
                f"{self.spec.name}: {key} must be a positive integer or a list of them, got {values!r}"
            )
        return [int(v) for v in values]

    def count(self, key: str) -> int:
        """Parameter ``key`` as one positive integer."""
        values = self.positive_ints(key)
        if len(values) != 1:
            raise ConfigError(f"{self.spec.name}: {key} takes one value, got {values!r}")
        return values[0]

    def contexts(self, kind: str = "unique_words") -> Iterator[tuple[int, list[str]]]:
        """``(context_length, items)``: ``samples`` fresh contexts per context length."""
        samples = self.count("samples")
        for length in self.positive_ints("context_length"):
            for _ in range(samples):
                yield length, self.builder.context(kind, length)

    def instance(self, prompt: str, reference: Any, **params: Any) -> Instance:
        """A new instance with a deterministic id ``<task>-<seed>-<index>``."""
        self._count += 1
        return Instance(
            id=f"{self.spec.name}-{self.seed}-{self._count:04d}",
            task=self.spec.name,
            category=self.spec.category,
            prompt=prompt,
            reference=reference,
            params=params,
        )


def generate_suite(
    seed: int = 0,
    *,
    tasks: Iterable[str] | None = None,
    overrides: Mapping[str, Mapping[str, Any]] | None = None,
    common: Mapping[str, Any] | None = None,
    tokenizer: str = "cl100k",
) -> list[Instance]:
    """Generate a suite: every task (or ``tasks``), deterministically from ``seed``.

    Args:
        seed: The suite's seed; each task draws from its own stream of it.
        tasks: Task names (default: all, in category order).
        overrides: Per-task parameter overrides, ``{"count": {"repetition_count": [2, 4]}}``.
        common: Overrides applied to every task that has the parameter
            (e.g. ``{"context_length": 2000}``).
        tokenizer: Tokenizer that context lengths are counted in.

    Raises:
        ConfigError: an unknown task or parameter.
    """
    _load_all()
    names = list(tasks) if tasks is not None else [s.name for s in all_tasks()]
    specs = [get_task(name) for name in names]
    for name in overrides or {}:
        if name not in names:
            get_task(name)  # an unknown task: a clear error with a suggestion
            raise ConfigError(f"overrides name task {name!r}, which is not generated", hint="add it to tasks")
    unused = set(common or {}) - {key for spec in specs for key in spec.defaults}
    if unused:
        raise ConfigError(
            f"no generated task has the parameter(s) {', '.join(sorted(unused))}",
            hint="see `paperzoo minerva tasks` for each task's parameters",
        )
    out: list[Instance] = []
    for name in names:
        spec = get_task(name)
        params = dict(spec.defaults)
        for key, value in (common or {}).items():
            if key in params:
                params[key] = value
        for key, value in (overrides or {}).get(name, {}).items():
            if key not in spec.defaults:
                raise ConfigError(
                    f"task {name} has no parameter {key!r}",
                    hint=f"its parameters are: {', '.join(spec.defaults)}",
                )
            params[key] = value
        rng = np.random.default_rng([seed, zlib.crc32(name.encode())])
        builder = ContextBuilder(rng, tokenizer=tokenizer)
        out.extend(spec.generate(TaskContext(spec, MappingProxyType(params), builder, seed)))
    return out

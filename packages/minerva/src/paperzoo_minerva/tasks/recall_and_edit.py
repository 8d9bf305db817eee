"""Minerva's recall-and-edit tests (paper §3, "Recall and Edit"; Appendix A's templates).

The model repeats the context, verbatim or edited; the reference is the edited
context, ``", "``-joined.

* ``snapshot_unique_words`` / ``snapshot_random_numbers`` — repeat it exactly.
* ``replace_all`` — ``⌊n·density⌋`` distinct positions are set to a query word;
  every occurrence of it becomes a substitute word.
* ``replace_all_x_to_null`` — the same context; every occurrence is dropped.
* ``overwrite_positions`` — every n-th word (positions n, 2n, ...) becomes a substitute.
* ``overwrite_positions_nth_to_null`` — every n-th word is dropped.
* ``functional_updates`` — +3, −1 or ×2 applied to every number.

Query and substitute words come from a short list of common words (colours and
fruit), which is what the published snapshot uses. Edits are array operations
over the context's items.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from paperzoo.errors import ConfigError
from paperzoo_minerva.instance import Instance
from paperzoo_minerva.tasks import TaskContext, make_prompt, numbered, sweep, task

__all__ = [
    "EDIT_WORDS",
    "OPERATIONS",
    "delete_every_nth",
    "functional_updates",
    "ordinal",
    "overwrite_every_nth",
    "overwrite_positions",
    "overwrite_positions_nth_to_null",
    "replace_all",
    "replace_all_x_to_null",
    "snapshot_random_numbers",
    "snapshot_unique_words",
]

EDIT_WORDS = ("apple", "banana", "black", "brown", "color", "fruit", "grape", "gray", "green", "mango",
              "orange", "peach", "pear", "pink", "purple", "red", "veggie", "white", "yellow")  # fmt: skip
"""Query and substitute words: the 19 words the snapshot's edit tasks draw from."""

DENSITIES = (0.2, 0.4, 0.6, 0.8)
NTHS = (2, 3, 4)

SNAPSHOT = "Repeat the previous context exactly as it is, without making any additions or deletions."
REPLACE_ALL = (
    'Repeat the previous context and replace the word "{word}" with "{substitute}" each time it appears.'
)
REPLACE_ALL_TO_NULL = 'Repeat the previous context but skip the word "{word}" each time it appears.'
OVERWRITE = 'Repeat the previous context and replace every {nth} word with "{substitute}".'
OVERWRITE_TO_NULL = "Repeat the previous context but skip every {nth} word."

OPERATIONS: dict[str, tuple[str, Callable[[np.ndarray], np.ndarray]]] = {
    "add": ("Add 3 to every number in the previous context.", lambda x: x + 3),
    "subtract": ("Subtract 1 from every number in the previous context.", lambda x: x - 1),
    "multiply": ("Multiply every number in the previous context by 2.", lambda x: x * 2),
}
"""``operation → (instruction, update)`` of ``functional_updates``."""

_ORDINALS = {2: "other", 3: "third", 4: "fourth", 5: "fifth", 6: "sixth", 7: "seventh", 8: "eighth",
             9: "ninth", 10: "tenth"}  # fmt: skip


# ------------------------------------------------------------------ helpers


def _edit_words(tc: TaskContext, k: int) -> list[str]:
    """``k`` distinct words of the task's ``edit_words``."""
    words = list(dict.fromkeys(sweep(tc.params["edit_words"])))
    if len(words) < k:
        raise ConfigError(f"{tc.spec.name}: edit_words needs at least {k} distinct words, got {words!r}")
    return [words[i] for i in tc.rng.choice(len(words), size=k, replace=False)]


def _nths(tc: TaskContext) -> list[int]:
    nths = sweep(tc.params["nth"])
    if not nths or any(isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 2 for n in nths):
        raise ConfigError(f"{tc.spec.name}: nth values must be integers of at least 2, got {nths!r}")
    return [int(n) for n in nths]


def ordinal(n: int) -> str:
    """The instruction's word for "every n-th": ``other``, ``third``, ``fourth``, ..., ``11th``."""
    if n in _ORDINALS:
        return _ORDINALS[n]
    return numbered(n)


def overwrite_every_nth(items: np.ndarray, nth: int, substitute: str) -> np.ndarray:
    """``items`` with positions ``nth, 2·nth, ...`` (1-based) set to ``substitute``."""
    out = np.array(items, dtype=object)
    out[nth - 1 :: nth] = substitute
    return out


def delete_every_nth(items: np.ndarray, nth: int) -> np.ndarray:
    """``items`` without positions ``nth, 2·nth, ...`` (1-based)."""
    return np.delete(np.asarray(items, dtype=object), np.s_[nth - 1 :: nth])


def _with_repeated_word(tc: TaskContext, items: list[str], density: float, word: str) -> np.ndarray:
    """``items`` with ``⌊n·density⌋`` distinct uniform positions set to ``word``."""
    if not 0 <= density <= 1:
        raise ConfigError(f"{tc.spec.name}: density must lie in [0, 1], got {density!r}")
    out = np.array(items, dtype=object)
    out[tc.rng.choice(len(out), size=int(len(out) * density), replace=False)] = word
    return out


def _join(items: np.ndarray) -> str:
    return ", ".join(items.tolist())


# -------------------------------------------------------------------- tasks


def _snapshot(tc: TaskContext, kind: str) -> list[Instance]:
    out: list[Instance] = []
    for length, items in tc.contexts(kind):
        text = ", ".join(items)
        out.append(tc.instance(make_prompt(text, SNAPSHOT), text, context_length=length))
    return out


RECALL_METRICS = ("exact_match", "rouge")
"""Upstream scores every recall-and-edit answer by exact match and ROUGE; ROUGE-L is the headline."""


@task(
    "snapshot_unique_words",
    "recall_and_edit",
    defaults={"context_length": 4000, "samples": 10},
    metrics=RECALL_METRICS,
    primary="rouge-L",
)
def snapshot_unique_words(tc: TaskContext) -> list[Instance]:
    """Repeat a list of unique words verbatim. (10 contexts.)"""
    return _snapshot(tc, "unique_words")


@task(
    "snapshot_random_numbers",
    "recall_and_edit",
    defaults={"context_length": 4000, "samples": 10},
    metrics=RECALL_METRICS,
    primary="rouge-L",
)
def snapshot_random_numbers(tc: TaskContext) -> list[Instance]:
    """Repeat a list of random integers 0–1000 verbatim. (10 contexts.)"""
    return _snapshot(tc, "random_numbers")


_REPLACE_DEFAULTS = {"context_length": 4000, "density": DENSITIES, "edit_words": EDIT_WORDS, "samples": 5}


@task("replace_all", "recall_and_edit", defaults=_REPLACE_DEFAULTS, metrics=RECALL_METRICS, primary="rouge-L")
def replace_all(tc: TaskContext) -> list[Instance]:
    """Repeat the context replacing every occurrence of a word. (5 contexts × 4 densities.)

    A word already in the context by chance is replaced too: the reference edits
    every occurrence, as the instruction says.
    """
    out: list[Instance] = []
    for length, items in tc.contexts("unique_words"):
        for density in sweep(tc.params["density"]):
            word, substitute = _edit_words(tc, 2)
            context = _with_repeated_word(tc, items, density, word)
            reference = np.where(context == word, substitute, context)
            prompt = make_prompt(_join(context), REPLACE_ALL.format(word=word, substitute=substitute))
            out.append(tc.instance(prompt, _join(reference), context_length=length, density=density))
    return out


@task(
    "replace_all_x_to_null",
    "recall_and_edit",
    defaults=_REPLACE_DEFAULTS,
    metrics=RECALL_METRICS,
    primary="rouge-L",
)
def replace_all_x_to_null(tc: TaskContext) -> list[Instance]:
    """Repeat the context without any occurrence of a word. (5 contexts × 4 densities.)"""
    out: list[Instance] = []
    for length, items in tc.contexts("unique_words"):
        for density in sweep(tc.params["density"]):
            (word,) = _edit_words(tc, 1)
            context = _with_repeated_word(tc, items, density, word)
            prompt = make_prompt(_join(context), REPLACE_ALL_TO_NULL.format(word=word))
            out.append(
                tc.instance(prompt, _join(context[context != word]), context_length=length, density=density)
            )
    return out


@task(
    "overwrite_positions",
    "recall_and_edit",
    defaults={"context_length": 4000, "nth": NTHS, "edit_words": EDIT_WORDS, "samples": 5},
    metrics=RECALL_METRICS,
    primary="rouge-L",
)
def overwrite_positions(tc: TaskContext) -> list[Instance]:
    """Repeat the context replacing every n-th word with a substitute. (5 contexts × n = 2, 3, 4.)"""
    out: list[Instance] = []
    for length, items in tc.contexts("unique_words"):
        text = ", ".join(items)
        for nth in _nths(tc):
            (substitute,) = _edit_words(tc, 1)
            reference = overwrite_every_nth(np.array(items, dtype=object), nth, substitute)
            prompt = make_prompt(text, OVERWRITE.format(nth=ordinal(nth), substitute=substitute))
            out.append(tc.instance(prompt, _join(reference), context_length=length, nth=nth))
    return out


@task(
    "overwrite_positions_nth_to_null",
    "recall_and_edit",
    defaults={"context_length": 4000, "nth": NTHS, "samples": 5},
    metrics=RECALL_METRICS,
    primary="rouge-L",
)
def overwrite_positions_nth_to_null(tc: TaskContext) -> list[Instance]:
    """Repeat the context skipping every n-th word. (5 contexts × n = 2, 3, 4.)"""
    out: list[Instance] = []
    for length, items in tc.contexts("unique_words"):
        text = ", ".join(items)
        for nth in _nths(tc):
            reference = delete_every_nth(np.array(items, dtype=object), nth)
            prompt = make_prompt(text, OVERWRITE_TO_NULL.format(nth=ordinal(nth)))
            out.append(tc.instance(prompt, _join(reference), context_length=length, nth=nth))
    return out


@task(
    "functional_updates",
    "recall_and_edit",
    defaults={"context_length": 4000, "operation": tuple(OPERATIONS), "samples": 5},
    metrics=RECALL_METRICS,
    primary="rouge-L",
)
def functional_updates(tc: TaskContext) -> list[Instance]:
    """Apply +3, −1 or ×2 to every number of a list of integers. (5 contexts × 3 operations.)"""
    operations = sweep(tc.params["operation"])
    unknown = [op for op in operations if op not in OPERATIONS]
    if unknown or not operations:
        raise ConfigError(
            f"functional_updates: unknown operation(s) {unknown!r}", hint=f"use {', '.join(OPERATIONS)}"
        )
    out: list[Instance] = []
    for length, items in tc.contexts("random_numbers"):
        text, numbers = ", ".join(items), np.array(items, dtype=np.int64)
        for operation in operations:
            instruction, update = OPERATIONS[operation]
            reference = ", ".join(update(numbers).astype(str).tolist())
            out.append(
                tc.instance(
                    make_prompt(text, instruction), reference, context_length=length, operation=operation
                )
            )
    return out

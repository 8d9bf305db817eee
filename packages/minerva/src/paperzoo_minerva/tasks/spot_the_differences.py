"""Spot the differences (paper §3.4): compare near-copies held in the context.

* ``compare_two_lists`` — List 2 is List 1 with ``k ∈ {1, 5, 10, 20}`` words
  replaced; name the replaced words of the first (or the second) list. The two
  lists share ``context_length`` tokens (half each).
* ``identify_odd_group`` — many shuffles of the same ``m ∈ {25, 50, 75, 100}``
  words, as many as fit in ``context_length`` tokens; in one of them
  ``max(1, ⌊m·p⌋)`` words are replaced (``p ∈ {0, ¼, ½}``); which list is it?
* ``patch_the_difference`` — a pattern of ``k ∈ {2, 15, 30}`` words repeated to
  fill the context, cut at the pattern's first word (start 0), its middle (½) or
  its end (1); what is the next / 3rd / 6th word after the last one?

Every parameter named like a snapshot field takes one value or a list of values to
sweep; ``samples`` is the number of contexts drawn per setting.
"""

from __future__ import annotations

from collections.abc import Collection

import numpy as np

from paperzoo.errors import ConfigError
from paperzoo_minerva.context import ContextBuilder
from paperzoo_minerva.instance import Instance
from paperzoo_minerva.tasks import TaskContext, make_prompt, numbered, sweep, task

__all__ = [
    "compare_two_lists",
    "fresh_words",
    "identify_odd_group",
    "ordinal",
    "patch_the_difference",
    "pattern_end",
]

COMPARE_TWO_LISTS = (
    "There are two lists of words in the context. The first list contains the original words. "
    "The second list is similar to the first but has some words replaced with different ones. "
    "Your task is to identify the words in the {chosen} list that are different from those in the {other} list. "
    "Provide the different words as your answer."
)
IDENTIFY_ODD_GROUP = (
    "Given the lists of words in the context, identify the list that is different from the others. "
    'Provide the list number as your answer. For example, if the Nth list is different, provide "List N" as '
    "your answer."
)
PATCH_THE_DIFFERENCE = (
    "Given the sequence of words that follows a specific pattern in the context, "
    "predict the {nth} word that appears after the final word in the given sequence."
)
PATCH_THE_DIFFERENCE_ANSWER = (
    "Answer: The {nth} word that appears after the final word in the given sequence is"
)


def fresh_words(builder: ContextBuilder, n: int, exclude: Collection[str]) -> list[str]:
    """``n`` distinct words of the builder's list, none of them in ``exclude``."""
    if n + len(exclude) > len(builder.words):
        raise ConfigError(f"the word list has {len(builder.words)} words; cannot draw {n} new ones")
    picked: list[str] = []
    while len(picked) < n:
        drawn = builder.unique_words(min(len(builder.words), 2 * (n - len(picked)) + 8))
        seen = set(exclude) | set(picked)
        picked += [w for w in dict.fromkeys(drawn) if w not in seen][: n - len(picked)]
    return picked


@task(
    "compare_two_lists",
    "spot_the_differences",
    defaults={
        "context_length": 4000,
        "n_difference": (1, 5, 10, 20),
        "chosen_list": ("first", "second"),
        "samples": 10,
    },
    metrics=("exact_match", "rouge"),
    primary="rouge-L",
)
def compare_two_lists(tc: TaskContext) -> list[Instance]:
    """Name the words that differ between two copies of a word list (1–20 replaced).

    The reference lists the chosen list's differing words in the order they appear.
    """
    p = tc.params
    chosen_lists = sweep(p["chosen_list"])
    if unknown := [c for c in chosen_lists if c not in ("first", "second")]:
        raise ConfigError(f"chosen_list must be 'first' or 'second', got {unknown}")
    out = []
    for length in tc.positive_ints("context_length"):
        for _ in range(tc.count("samples")):
            original = tc.builder.context("unique_words", length // 2)
            for n_difference in tc.positive_ints("n_difference"):
                if not 1 <= n_difference <= len(original):
                    raise ConfigError(f"cannot replace {n_difference} of a list of {len(original)} words")
                positions = np.sort(tc.rng.choice(len(original), size=n_difference, replace=False))
                edited = np.array(original, dtype=object)
                edited[positions] = fresh_words(tc.builder, n_difference, original)
                differing = {"first": [original[i] for i in positions], "second": edited[positions].tolist()}
                context = f"List 1: {', '.join(original)}\nList 2: {', '.join(edited)}"
                for chosen in chosen_lists:
                    other = "second" if chosen == "first" else "first"
                    prompt = make_prompt(context, COMPARE_TWO_LISTS.format(chosen=chosen, other=other))
                    out.append(
                        tc.instance(
                            prompt,
                            ", ".join(differing[chosen]),
                            context_length=length,
                            n_difference=n_difference,
                            chosen_list=chosen,
                        )
                    )
    return out


@task(
    "identify_odd_group",
    "spot_the_differences",
    defaults={
        "context_length": 4000,
        "n_words": (25, 50, 75, 100),
        "p_anomaly": (0, 0.25, 0.5),
        "samples": 5,
    },
    metrics=("exact_match",),
)
def identify_odd_group(tc: TaskContext) -> list[Instance]:
    """Which of many shuffles of the same words has some of its words replaced?

    The shuffles are shared by a context's ``p_anomaly`` settings; each instance
    corrupts its own copy, so exactly one list differs from the others.
    """
    p = tc.params
    out = []
    for length in tc.positive_ints("context_length"):
        for _ in range(tc.count("samples")):
            for n_words in tc.positive_ints("n_words"):
                words = tc.builder.unique_words(n_words)
                n_lists = length // tc.builder.count(f"List 1: {', '.join(words)}\n")
                if n_lists < 2:
                    raise ConfigError(
                        f"{length} tokens hold fewer than 2 lists of {n_words} words",
                        hint="use a longer context_length or fewer n_words",
                    )
                shuffles = np.array(words, dtype=object)[
                    tc.rng.permuted(np.tile(np.arange(n_words), (n_lists, 1)), axis=1)
                ]
                for p_anomaly in sweep(p["p_anomaly"]):
                    if not 0 <= p_anomaly <= 1:
                        raise ConfigError(f"p_anomaly must lie in [0, 1], got {p_anomaly}")
                    n_anomaly = max(1, int(n_words * p_anomaly))
                    odd = int(tc.rng.integers(n_lists))
                    lists = shuffles.copy()
                    positions = tc.rng.choice(n_words, size=n_anomaly, replace=False)
                    lists[odd, positions] = fresh_words(tc.builder, n_anomaly, words)
                    context = "\n".join(
                        f"List {i}: {', '.join(row)}" for i, row in enumerate(lists.tolist(), 1)
                    )
                    out.append(
                        tc.instance(
                            make_prompt(context, IDENTIFY_ODD_GROUP),
                            f"List {odd + 1}",
                            context_length=length,
                            n_words=n_words,
                            p_anomaly=p_anomaly,
                        )
                    )
    return out


def ordinal(n: int) -> str:
    """How the prompt names the ``n``-th word after the last: "next", "second", "third", "6th", "21st"."""
    named = {1: "next", 2: "second", 3: "third"}
    if n in named:
        return named[n]
    return numbered(n)


def pattern_end(pattern_length: int, start: float) -> int:
    """Index in the pattern of the sequence's last word: its first word at start 0, its
    ``⌊k·start⌋``-th at 0 < start < 1, its last at start 1."""
    if not 0 <= start <= 1:
        raise ConfigError(f"start must lie in [0, 1], got {start}")
    return pattern_length - 1 if start >= 1 else max(int(pattern_length * start), 1) - 1


@task(
    "patch_the_difference",
    "spot_the_differences",
    defaults={
        "context_length": 4000,
        "pattern_length": (2, 15, 30),
        "start": (0, 0.5, 1),
        "nth": (1, 3, 6),
        "samples": 5,
    },
    metrics=("exact_match",),
)
def patch_the_difference(tc: TaskContext) -> list[Instance]:
    """Continue a repeating pattern of 2–30 words: the next, 3rd or 6th word after the last.

    Whole repetitions fill ``context_length`` tokens (counted for the pattern with
    its trailing ``", "``), then the start of the pattern up to ``start``. A start
    whose cut falls where an earlier start's did (start ½ of a 2-word pattern) is
    skipped.
    """
    p = tc.params
    out = []
    for length in tc.positive_ints("context_length"):
        for _ in range(tc.count("samples")):
            for pattern_length in tc.positive_ints("pattern_length"):
                pattern = tc.builder.unique_words(pattern_length)
                repetitions = length // tc.builder.count(", ".join(pattern) + ", ")
                if repetitions < 1:
                    raise ConfigError(f"a pattern of {pattern_length} words does not fit in {length} tokens")
                ends: set[int] = set()
                for start in sweep(p["start"]):
                    end = pattern_end(pattern_length, start)
                    if end in ends:
                        continue
                    ends.add(end)
                    tail = pattern[: end + 1] if end < pattern_length - 1 else []
                    context = ", ".join(pattern * repetitions + tail)
                    for nth in tc.positive_ints("nth"):
                        if nth < 1:
                            raise ConfigError(f"nth must be at least 1, got {nth}")
                        prompt = make_prompt(
                            context,
                            PATCH_THE_DIFFERENCE.format(nth=ordinal(nth)),
                            PATCH_THE_DIFFERENCE_ANSWER.format(nth=ordinal(nth)),
                        )
                        out.append(
                            tc.instance(
                                prompt,
                                pattern[(end + nth) % pattern_length],
                                context_length=length,
                                pattern_length=pattern_length,
                                start=start,
                                nth=nth,
                            )
                        )
    return out

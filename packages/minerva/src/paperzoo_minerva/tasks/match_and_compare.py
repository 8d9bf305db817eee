"""Match & compare (paper §3.3): relate items that sit far apart in the context.

* ``compare_positions`` — does word 1 come before word 2? The two words sit at
  depths ``d1, d2 ∈ {0, ¼, ½, ¾, 1}`` of a list of unique words; the answer is
  "yes" iff ``d1 ≤ d2`` (equal depths take two neighbours, in order).
* ``find_duplicates`` — one word of the list is copied over ``r − 1`` other
  positions (``r ∈ {2, 4, 8, 16, 32}``); name it.
* ``count`` — the same edit; how many times does the (named) word appear?
* ``check_association`` — words tagged ``ATT_1 … ATT_n`` (``n ∈ {2, …, 32}``); do
  two named words share an attribute? One "yes" and one "no" per context.

Every parameter named like a snapshot field (``context_length``,
``repetition_count``, ...) takes one value or a list of values to sweep;
``samples`` is the number of contexts drawn per setting.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Sequence

import numpy as np

from paperzoo.errors import ConfigError
from paperzoo_minerva.instance import Instance
from paperzoo_minerva.tasks import TaskContext, depth_index, make_prompt, sweep, task

__all__ = ["check_association", "compare_positions", "count", "find_duplicates", "repeat_word"]

DEPTHS = (0, 0.25, 0.5, 0.75, 1)
REPETITIONS = (2, 4, 8, 16, 32)
N_ATTRIBUTES = (2, 4, 8, 16, 32)

COMPARE_POSITIONS = (
    "Given the list of words in the context, determine the relative positions of two words. "
    'Does the word "{word_1}" come before the word "{word_2}" in the list? Answer "yes" or "no".'
)
FIND_DUPLICATES = (
    "A word is repeated multiple times in the context. Your task is to identify the word that is repeated."
)
COUNT = 'Count the number of times the word "{word}" appears in the context.'
CHECK_ASSOCIATION = (
    'Given the context with words and their assigned attributes in the format of "word: ATT_N", '
    'determine if the word "{query}" has the same attribute as the word "{reference}"? Answer "yes" or "no".'
)


def _position_pairs(n: int, depth_1: np.ndarray, depth_2: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Indices of the two words; a pair that falls on one word takes it and its neighbour, in order."""
    i, j = depth_index(n, depth_1), depth_index(n, depth_2)
    same = i == j
    at_end = same & (j == n - 1)
    i = np.where(at_end, n - 2, i)
    j = np.where(same & ~at_end, i + 1, j)
    return i, j


@task(
    "compare_positions",
    "match_and_compare",
    defaults={"context_length": 4000, "context_depth_1": DEPTHS, "context_depth_2": DEPTHS, "samples": 3},
    metrics=("exact_match", "exact_match_strict"),
    yes_no=True,
)
def compare_positions(tc: TaskContext) -> list[Instance]:
    """Does one word come before another in a list of unique words? (yes/no over a depth × depth grid)."""
    p = tc.params
    depths = list(itertools.product(sweep(p["context_depth_1"]), sweep(p["context_depth_2"])))
    depth_1, depth_2 = (np.array(d, dtype=float) for d in zip(*depths))
    out = []
    for length in tc.positive_ints("context_length"):
        for _ in range(tc.count("samples")):
            words = tc.builder.context("unique_words", length)
            if len(words) < 2:
                raise ConfigError(
                    f"compare_positions needs at least 2 words; {length} tokens hold {len(words)}"
                )
            context = ", ".join(words)
            first, second = _position_pairs(len(words), depth_1, depth_2)
            for (d1, d2), i, j in zip(depths, first.tolist(), second.tolist()):
                instruction = COMPARE_POSITIONS.format(word_1=words[i], word_2=words[j])
                out.append(
                    tc.instance(
                        make_prompt(context, instruction),
                        "yes" if i < j else "no",
                        context_length=length,
                        context_depth_1=d1,
                        context_depth_2=d2,
                    )
                )
    return out


def repeat_word(rng: np.random.Generator, words: Sequence[str], repetitions: int) -> tuple[list[str], str]:
    """Copy one random word of ``words`` over ``repetitions − 1`` other random positions.

    Returns:
        (the edited list, the repeated word); the word then appears exactly
        ``repetitions`` times if ``words`` were unique.
    """
    n = len(words)
    if not 1 <= repetitions <= n:
        raise ConfigError(
            f"cannot repeat a word {repetitions} times in a list of {n} words",
            hint="use repetition counts between 1 and the context's word count",
        )
    source = int(rng.integers(n))
    others = rng.choice(n - 1, size=repetitions - 1, replace=False)
    others = others + (others >= source)  # skip the source position
    edited = np.array(words, dtype=object)
    edited[others] = words[source]
    return edited.tolist(), words[source]


def _repeated_contexts(tc: TaskContext) -> Iterator[tuple[int, int, list[str], str]]:
    """``(length, repetitions, edited words, repeated word)``: one base context per sample, every count."""
    for length in tc.positive_ints("context_length"):
        for _ in range(tc.count("samples")):
            words = tc.builder.context("unique_words", length)
            for repetitions in tc.positive_ints("repetition_count"):
                edited, word = repeat_word(tc.rng, words, int(repetitions))
                yield length, repetitions, edited, word


@task(
    "find_duplicates",
    "match_and_compare",
    defaults={"context_length": 4000, "repetition_count": REPETITIONS, "samples": 5},
    metrics=("exact_match",),
)
def find_duplicates(tc: TaskContext) -> list[Instance]:
    """Name the one word repeated 2–32 times in a list of otherwise unique words."""
    return [
        tc.instance(
            make_prompt(", ".join(edited), FIND_DUPLICATES, "The repeated word is:"),
            word,
            context_length=length,
            repetition_count=repetitions,
        )
        for length, repetitions, edited, word in _repeated_contexts(tc)
    ]


@task(
    "count",
    "match_and_compare",
    defaults={"context_length": 4000, "repetition_count": REPETITIONS, "samples": 5},
    metrics=("exact_match", "count_accuracy"),
    primary="count_accuracy",
)
def count(tc: TaskContext) -> list[Instance]:
    """Count how often a named word appears (2–32 times) in a list of otherwise unique words.

    The prompt ends ``Answer: The word "w" appears``; the reference is the count as text.
    """
    return [
        tc.instance(
            make_prompt(", ".join(edited), COUNT.format(word=word), f'Answer: The word "{word}" appears'),
            str(repetitions),
            context_length=length,
            repetition_count=repetitions,
        )
        for length, repetitions, edited, word in _repeated_contexts(tc)
    ]


def _pick_pair(rng: np.random.Generator, attributes: np.ndarray, same: bool) -> tuple[int, int]:
    """Positions of two words with the same attribute (``same``) or with two different ones."""
    present, counts = np.unique(attributes, return_counts=True)
    if same:
        shared = present[counts >= 2]
        if not len(shared):
            raise ConfigError("no attribute is shared by two words; use fewer attributes or a longer context")
        i, j = rng.choice(np.flatnonzero(attributes == rng.choice(shared)), size=2, replace=False)
        return int(i), int(j)
    if len(present) < 2:
        raise ConfigError("every word has the same attribute; use at least 2 attributes")
    a, b = rng.choice(present, size=2, replace=False)
    return int(rng.choice(np.flatnonzero(attributes == a))), int(rng.choice(np.flatnonzero(attributes == b)))


@task(
    "check_association",
    "match_and_compare",
    defaults={"context_length": 4000, "n_attribute": N_ATTRIBUTES, "samples": 5},
    metrics=("exact_match", "exact_match_strict"),
    yes_no=True,
)
def check_association(tc: TaskContext) -> list[Instance]:
    """Do two words share an attribute? Words tagged ``ATT_1 … ATT_n``; a yes and a no per context."""
    out = []
    for length in tc.positive_ints("context_length"):
        for n_attribute in tc.positive_ints("n_attribute"):
            if n_attribute < 2:
                raise ConfigError(f"check_association needs at least 2 attributes, got {n_attribute}")
            for _ in range(tc.count("samples")):
                words = tc.builder.unique_words(length)
                attributes = tc.rng.integers(1, n_attribute + 1, size=length)
                items = tc.builder.trim([f"{w}: ATT_{a}" for w, a in zip(words, attributes.tolist())], length)
                attributes = attributes[: len(items)]
                context = ", ".join(items)
                for label in ("yes", "no"):
                    i, j = _pick_pair(tc.rng, attributes, same=label == "yes")
                    instruction = CHECK_ASSOCIATION.format(query=words[i], reference=words[j])
                    out.append(
                        tc.instance(
                            make_prompt(context, instruction),
                            label,
                            context_length=length,
                            n_attribute=n_attribute,
                        )
                    )
    return out

"""Minerva's search tests (paper §3, "Search"; Appendix A's templates).

* ``string_search_word`` / ``string_search_gibberish`` — is a word in a list of
  unique words (of gibberish strings)? "yes": the word at depth ``d`` (index
  ``⌊n·d⌋``, the last item at ``d = 1``); "no": a word absent from the context.
* ``string_search_sequence`` — does a run of ``L`` consecutive words appear? "yes":
  a run starting at a uniform position; "no": the same run with ``n_corrupt`` of its
  words replaced by words absent from the context.
* ``key_value_search`` — the value of the key at depth ``d`` in ``"key: value"`` pairs.
* ``batch_key_value_search`` — the values of ``k`` keys spread evenly over the
  context: indices ``⌊i·n/(k−1)⌋`` for ``i < k−1``, and the last pair.

Every context is asked once per grid combination (depth × answer, sequence length
× corruption × answer, ...), as upstream does; the defaults give the snapshot's
grid (50, 50, 80, 50 and 20 prompts).
"""

from __future__ import annotations

import numpy as np

from paperzoo.errors import ConfigError
from paperzoo_minerva.instance import Instance
from paperzoo_minerva.tasks import TaskContext, depth_index, make_prompt, sweep, task

__all__ = [
    "batch_key_value_search",
    "key_value_search",
    "spread_indices",
    "string_search_gibberish",
    "string_search_sequence",
    "string_search_word",
]

DEPTHS = (0, 0.25, 0.5, 0.75, 1)
"""Relative positions of the item asked about (0 = first, 1 = last)."""

ANSWERS = ("yes", "no")

WORD_SEARCH = "Given the context, determine if the word \"{word}\" is present in the context. Answer with 'yes' or 'no'."
SEQUENCE_SEARCH = (
    'Given the list of words in the context, determine if the sequence "{sequence}" appears in the context. '
    "Answer with 'yes' or 'no'."
)
KEY_VALUE = (
    'Given a list of word pairs formatted as "word_1: word_2" in the context, return the second word associated '
    'with the provided first word. For the first word "{key}", the corresponding second word is:'
)
BATCH_KEY_VALUE = (
    'Given a list of word pairs formatted as "word_1: word_2" in the context, return the second words associated '
    'with the provided first words. For the first words "{keys}", the corresponding second words are:'
)


# ------------------------------------------------------------------ helpers


def _count(tc: TaskContext, name: str) -> int:
    value = tc.params[name]
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
        raise ConfigError(f"{tc.spec.name}: {name} must be a positive integer, got {value!r}")
    return int(value)


def _answers(tc: TaskContext) -> list[str]:
    answers = sweep(tc.params["answers"])
    if not answers or any(a not in ANSWERS for a in answers):
        raise ConfigError(f"{tc.spec.name}: answers must be a non-empty list of 'yes'/'no', got {answers!r}")
    return answers


def _depths(tc: TaskContext) -> list[float]:
    depths = sweep(tc.params["context_depth"])
    if not depths or any(not 0 <= d <= 1 for d in depths):
        raise ConfigError(f"{tc.spec.name}: context_depth values must lie in [0, 1], got {depths!r}")
    return depths


def spread_indices(n: int, k: int) -> np.ndarray:
    """``k`` indices spread over ``n`` items: ``⌊i·n/(k−1)⌋`` for ``i < k−1``, then ``n − 1``.

    Raises:
        ConfigError: ``k`` is not in ``1..n``.
    """
    if not 1 <= k <= n:
        raise ConfigError(
            f"cannot ask for {k} keys in a context of {n} pairs", hint="use fewer n_words or a longer context"
        )
    if k == 1:
        return np.array([n - 1])
    indices = (np.float64(n / (k - 1)) * np.arange(k)).astype(np.int64)
    indices[-1] = n - 1
    return indices


def _prompt_without_closing(context: str, instruction: str) -> str:
    """The key-value layout: the instruction itself ends with the answer's lead-in."""
    return f"Context:\n{context}\n\nInstruction:\n{instruction}"


# -------------------------------------------------------------------- tasks


def _word_search(tc: TaskContext, kind: str) -> list[Instance]:
    depths, answers = _depths(tc), _answers(tc)
    out: list[Instance] = []
    for length, items in tc.contexts(kind):
        text, present = ", ".join(items), set(items)
        for depth in depths:
            for answer in answers:
                if answer == "yes":
                    word = items[depth_index(len(items), depth)]
                else:
                    (word,) = tc.builder.absent(present, 1, tc.params["absent_kind"])
                prompt = make_prompt(text, WORD_SEARCH.format(word=word))
                out.append(tc.instance(prompt, answer, context_length=length, context_depth=depth))
    return out


_SEARCH_DEFAULTS = {
    "context_length": 4000,
    "context_depth": DEPTHS,
    "answers": ANSWERS,
    "samples": 5,
    "absent_kind": "unique_words",
}


@task(
    "string_search_word",
    "search",
    defaults=_SEARCH_DEFAULTS,
    metrics=("exact_match", "exact_match_strict"),
    primary="exact_match",
    yes_no=True,
)
def string_search_word(tc: TaskContext) -> list[Instance]:
    """Is a word present in a list of unique words? (5 contexts × 5 depths × yes/no.)

    Parameters: ``context_length`` (tokens, one or a list), ``context_depth``,
    ``answers``, ``samples`` (contexts per length), ``absent_kind`` (what a "no"
    word is drawn from: ``unique_words`` or ``gibberish``).
    """
    return _word_search(tc, "unique_words")


@task(
    "string_search_gibberish",
    "search",
    defaults=_SEARCH_DEFAULTS,
    metrics=("exact_match", "exact_match_strict"),
    primary="exact_match",
    yes_no=True,
)
def string_search_gibberish(tc: TaskContext) -> list[Instance]:
    """Is a string present in a list of gibberish strings? (5 contexts × 5 depths × yes/no.)

    As upstream (and the snapshot), a "no" asks about an English word by default,
    which a model can reject without reading the context; ``absent_kind="gibberish"``
    asks about an absent gibberish string instead.
    """
    return _word_search(tc, "gibberish")


@task(
    "string_search_sequence",
    "search",
    defaults={
        "context_length": 4000,
        "sequence_length": (8, 16, 32, 64),
        "n_corrupt": (1,),
        "answers": ANSWERS,
        "samples": 10,
    },
    metrics=("exact_match", "exact_match_strict"),
    primary="exact_match",
    yes_no=True,
)
def string_search_sequence(tc: TaskContext) -> list[Instance]:
    """Does a sequence of consecutive words appear in the context? (10 contexts × 4 lengths × yes/no.)

    "no" corrupts ``n_corrupt`` words of the same run with words absent from the
    context, so the corrupted run cannot occur (context words are unique).
    """
    answers = _answers(tc)
    out: list[Instance] = []
    for length, items in tc.contexts("unique_words"):
        text, present = ", ".join(items), set(items)
        for sequence_length in sweep(tc.params["sequence_length"]):
            if not 1 <= sequence_length <= len(items):
                raise ConfigError(
                    f"string_search_sequence: sequence_length {sequence_length} does not fit a context of "
                    f"{len(items)} words",
                    hint="use a shorter sequence or a longer context",
                )
            for n_corrupt in sweep(tc.params["n_corrupt"]):
                if not 1 <= n_corrupt <= sequence_length:
                    raise ConfigError(
                        f"string_search_sequence: n_corrupt must be in 1..{sequence_length}, got {n_corrupt}"
                    )
                start = int(tc.rng.integers(0, len(items) - sequence_length + 1))
                run = items[start : start + sequence_length]
                for answer in answers:
                    query = list(run)
                    if answer == "no":
                        positions = tc.rng.choice(sequence_length, size=n_corrupt, replace=False)
                        for position, word in zip(positions, tc.builder.absent(present, n_corrupt)):
                            query[position] = word
                    prompt = make_prompt(text, SEQUENCE_SEARCH.format(sequence=", ".join(query)))
                    out.append(
                        tc.instance(
                            prompt,
                            answer,
                            context_length=length,
                            sequence_length=sequence_length,
                            n_corrupt=n_corrupt,
                        )
                    )
    return out


def _split_pairs(items: list[str]) -> tuple[np.ndarray, np.ndarray]:
    keys, values = zip(*(item.split(": ", 1) for item in items))
    return np.array(keys, dtype=object), np.array(values, dtype=object)


@task(
    "key_value_search",
    "search",
    defaults={"context_length": 4000, "context_depth": DEPTHS, "samples": 10},
    metrics=("exact_match",),
    primary="exact_match",
)
def key_value_search(tc: TaskContext) -> list[Instance]:
    """The value of the key at a given depth of ``key: value`` pairs. (10 contexts × 5 depths.)"""
    depths = _depths(tc)
    out: list[Instance] = []
    for length, items in tc.contexts("word_pairs"):
        text = ", ".join(items)
        keys, values = _split_pairs(items)
        for depth in depths:
            index = depth_index(len(items), depth)
            prompt = _prompt_without_closing(text, KEY_VALUE.format(key=keys[index]))
            out.append(tc.instance(prompt, str(values[index]), context_length=length, context_depth=depth))
    return out


@task(
    "batch_key_value_search",
    "search",
    defaults={"context_length": 4000, "n_words": (4, 8, 16, 32), "samples": 5},
    metrics=("exact_match", "rouge"),
    primary="rouge-L",
)
def batch_key_value_search(tc: TaskContext) -> list[Instance]:
    """The values of ``n_words`` keys spread evenly over the pairs. (5 contexts × 4 key counts.)"""
    out: list[Instance] = []
    for length, items in tc.contexts("word_pairs"):
        text = ", ".join(items)
        keys, values = _split_pairs(items)
        for n_words in sweep(tc.params["n_words"]):
            indices = spread_indices(len(items), int(n_words))
            prompt = _prompt_without_closing(text, BATCH_KEY_VALUE.format(keys=", ".join(keys[indices])))
            out.append(
                tc.instance(prompt, ", ".join(values[indices]), context_length=length, n_words=n_words)
            )
    return out

"""Minerva tasks: compute on sets and lists (Xia et al., ICML 2025, §3; Appendix A).

A context of unique words, trimmed to ``context_length`` tokens, is dealt out in
one of two layouts:

* **lists** — word ``k`` of the context goes to list ``k mod n`` (round robin),
  shown as ``"List i: w, w, …"`` lines;
* **alternating roles** — role ``r`` holds the ``r``-th contiguous share of
  ``⌊N / n_roles⌋`` words, cut into ``n_turns`` segments of ``⌊share / n_turns⌋``
  words (the few words left over by the rounding are not shown, as upstream);
  the context runs turn by turn, each turn role by role (``"Role r: w, …"``).

Tasks: which list holds a word (or "no"), whether two words share a list,
whether two words share a role across turns, and the first / last word of
every list.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from paperzoo.errors import ConfigError
from paperzoo_minerva.instance import Instance
from paperzoo_minerva.tasks import TaskContext, make_prompt, task

__all__ = [
    "deal_lists",
    "deal_roles",
    "format_lists",
    "format_roles",
    "generate_alternating_group_association",
    "generate_group_association",
    "generate_group_membership",
    "generate_iterate_first",
    "generate_iterate_last",
    "list_ends",
]

CATEGORY = "compute_on_sets_and_lists"

MEMBERSHIP_INSTRUCTION = (
    'Given the lists of words in the context, determine which list contains the word "{query}". '
    'If the word is not present in any list, answer "no".'
)
ASSOCIATION_INSTRUCTION = (
    'Given the lists of words in the context, determine if the word "{query}" and the word "{other}" '
    'are in the same list. Answer with "yes" or "no".'
)
ALTERNATING_INSTRUCTION = (
    "Given the context with alternating roles and their respective context words, determine if the word "
    '"{query}" and the word "{other}" are in the same role. Answer with "yes" or "no".'
)
ITERATE_INSTRUCTION = (
    "Given the lists of words in the context, identify and recall the {which} word from each list. "
    "Provide your answer as a list of these words separated by commas."
)


# ------------------------------------------------------------------ layouts


def deal_lists(words: Sequence[str], n_list: int) -> list[list[str]]:
    """Deal ``words`` round robin into ``n_list`` lists: word ``k`` goes to list ``k mod n_list``."""
    if n_list < 1:
        raise ConfigError(f"n_list must be at least 1, got {n_list}")
    if len(words) < n_list:
        raise ConfigError(
            f"{len(words)} context words cannot fill {n_list} lists",
            hint="raise context_length or lower n_list",
        )
    array = np.asarray(words, dtype=object)
    return [array[i::n_list].tolist() for i in range(n_list)]


def format_lists(lists: Sequence[Sequence[str]]) -> str:
    """``"List 1: a, b\\nList 2: c, d\\n"`` (every line ends with a newline, as upstream)."""
    return "".join(f"List {i + 1}: {', '.join(words)}\n" for i, words in enumerate(lists))


def list_ends(n_words: int, n_list: int) -> tuple[np.ndarray, np.ndarray]:
    """Context positions of the first and of the last word of each of ``n_list`` round-robin lists.

    List ``i`` holds positions ``i, i + n, i + 2n, …``, so its last word sits at
    ``i + n·⌊(N − 1 − i) / n⌋``.
    """
    first = np.arange(n_list)
    return first, first + n_list * ((n_words - 1 - first) // n_list)


def deal_roles(words: Sequence[str], n_roles: int, n_turns: int) -> np.ndarray:
    """The words of each role in each turn: an array ``[role, turn, k]`` of shape
    ``(n_roles, n_turns, ⌊⌊N / n_roles⌋ / n_turns⌋)``.

    Role ``r`` owns the contiguous share ``words[r·s : (r + 1)·s]``, ``s = ⌊N / n_roles⌋``,
    cut into ``n_turns`` equal segments; leftover words are dropped.
    """
    if n_roles < 1 or n_turns < 1:
        raise ConfigError(f"n_roles and n_turns must be at least 1, got {n_roles} and {n_turns}")
    share = len(words) // n_roles
    segment = share // n_turns
    if segment < 1:
        raise ConfigError(
            f"{len(words)} context words leave no word per block for {n_roles} roles × {n_turns} turns",
            hint="raise context_length or lower n_roles / n_turns",
        )
    array = np.asarray(words, dtype=object)[: n_roles * share].reshape(n_roles, share)
    return array[:, : n_turns * segment].reshape(n_roles, n_turns, segment)


def format_roles(blocks: np.ndarray) -> str:
    """Turn by turn, role by role: ``"Role 1: a, b\\nRole 2: c, d\\nRole 1: e, f…"``, no final newline."""
    n_roles, n_turns, _ = blocks.shape
    return "\n".join(
        f"Role {r + 1}: {', '.join(blocks[r, t])}" for t in range(n_turns) for r in range(n_roles)
    )


# ------------------------------------------------------------------ parameters


def _pick(tc: TaskContext, n: int, k: int = 1) -> list[int]:
    """``k`` distinct indices of ``range(n)``, uniformly."""
    return [int(i) for i in tc.rng.choice(n, size=k, replace=False)]


# ------------------------------------------------------------------ tasks


@task(
    "group_membership",
    CATEGORY,
    defaults={
        "context_length": 4000,
        "n_list": (4, 8, 16, 32),
        "depths": (0.0, 0.25, 0.5, 0.75),
        "absent": 1,
        "samples": 5,
    },
    metrics=("exact_match", "exact_match_strict"),
    primary="exact_match",
)
def generate_group_membership(tc: TaskContext) -> list[Instance]:
    """Which of n lists holds a word ("List i"), or "no" when none does.

    Per context and list count ``n``: one query from list ``⌊d·n⌋`` for each depth
    ``d`` (a random word of that list), and ``absent`` queries of words not in the
    context.
    """
    depths = tuple(float(d) for d in tc.params["depths"])
    if not all(0.0 <= d < 1.0 for d in depths):
        raise ConfigError(f"depths must lie in [0, 1), got {depths}")
    absent = tc.params["absent"]
    if not isinstance(absent, int | np.integer) or absent < 0:
        raise ConfigError(
            f"absent (queries of words not in the context) must be an integer >= 0, got {absent!r}"
        )
    out = []
    for length, words in tc.contexts("unique_words"):
        present = set(words)
        for n in tc.positive_ints("n_list"):
            context = format_lists(deal_lists(words, n))
            for target in [int(d * n) for d in depths] + [None] * absent:
                if target is None:
                    query, reference = tc.builder.absent(present)[0], "no"
                else:  # list `target` holds positions target, target + n, ...
                    size = (len(words) - target + n - 1) // n
                    query, reference = words[target + n * int(tc.rng.integers(size))], f"List {target + 1}"
                prompt = make_prompt(context, MEMBERSHIP_INSTRUCTION.format(query=query))
                out.append(tc.instance(prompt, reference, context_length=length))
    return out


@task(
    "group_association",
    CATEGORY,
    defaults={"context_length": 4000, "n_list": (4, 8, 16, 32), "samples": 5},
    metrics=("exact_match", "exact_match_strict"),
    primary="exact_match",
    yes_no=True,
)
def generate_group_association(tc: TaskContext) -> list[Instance]:
    """Are two words in the same list? One "yes" and one "no" per context and list count.

    "yes": two distinct words of one random list; "no": one word from each of two
    distinct random lists.
    """
    out = []
    for length, words in tc.contexts("unique_words"):
        for n in tc.positive_ints("n_list"):
            lists = deal_lists(words, n)
            if n < 2 or len(lists[-1]) < 2:
                raise ConfigError(
                    f"group_association needs at least 2 lists of at least 2 words; n_list={n} "
                    f"with {len(words)} context words gives {len(lists[-1])} words in the last list",
                    hint="raise context_length or change n_list",
                )
            context = format_lists(lists)
            for label in ("yes", "no"):
                if label == "yes":
                    chosen = lists[int(tc.rng.integers(n))]
                    query, other = (chosen[i] for i in _pick(tc, len(chosen), 2))
                else:
                    first, second = (lists[i] for i in _pick(tc, n, 2))
                    query, other = tc.builder.choice(first), tc.builder.choice(second)
                prompt = make_prompt(context, ASSOCIATION_INSTRUCTION.format(query=query, other=other))
                out.append(tc.instance(prompt, label, context_length=length))
    return out


@task(
    "alternating_group_association",
    CATEGORY,
    defaults={"context_length": 4000, "n_roles": (2, 4, 8, 16, 32), "n_turns": (10,), "samples": 5},
    metrics=("exact_match", "exact_match_strict"),
    primary="exact_match",
    yes_no=True,
)
def generate_alternating_group_association(tc: TaskContext) -> list[Instance]:
    """Do two words belong to the same role, in a context of alternating role blocks?

    "yes": words from two different turns of one role; "no": words of two
    distinct roles (each from a random turn). One of each per context, role count
    and turn count.
    """
    out = []
    for length, words in tc.contexts("unique_words"):
        for n_roles in tc.positive_ints("n_roles"):
            for n_turns in tc.positive_ints("n_turns"):
                if n_roles < 2 or n_turns < 2:
                    raise ConfigError(
                        f"alternating_group_association needs at least 2 roles and 2 turns, "
                        f"got n_roles={n_roles}, n_turns={n_turns}"
                    )
                blocks = deal_roles(words, n_roles, n_turns)
                segment = blocks.shape[2]
                context = format_roles(blocks)
                for label in ("yes", "no"):
                    if label == "yes":
                        role = int(tc.rng.integers(n_roles))
                        places = [(role, turn) for turn in _pick(tc, n_turns, 2)]
                    else:
                        places = [(role, int(tc.rng.integers(n_turns))) for role in _pick(tc, n_roles, 2)]
                    query, other = (blocks[r, t, int(tc.rng.integers(segment))] for r, t in places)
                    prompt = make_prompt(context, ALTERNATING_INSTRUCTION.format(query=query, other=other))
                    out.append(tc.instance(prompt, label, context_length=length))
    return out


def _iterate(tc: TaskContext, which: str) -> list[Instance]:
    instruction = ITERATE_INSTRUCTION.format(which=which)
    out = []
    for length, words in tc.contexts("unique_words"):
        for n in tc.positive_ints("n_list"):
            first, last = list_ends(len(words), n)
            positions = first if which == "first" else last
            reference = ", ".join(words[i] for i in positions)
            out.append(
                tc.instance(
                    make_prompt(format_lists(deal_lists(words, n)), instruction),
                    reference,
                    context_length=length,
                )
            )
    return out


_ITERATE_DEFAULTS = {"context_length": 4000, "n_list": (4, 8, 16, 32), "samples": 5}


@task(
    "iterate_first",
    CATEGORY,
    defaults=_ITERATE_DEFAULTS,
    metrics=("exact_match", "rouge"),
    primary="rouge-L",
)
def generate_iterate_first(tc: TaskContext) -> list[Instance]:
    """Recall the first word of each of n lists, comma-separated."""
    return _iterate(tc, "first")


@task(
    "iterate_last",
    CATEGORY,
    defaults=_ITERATE_DEFAULTS,
    metrics=("exact_match", "rouge"),
    primary="rouge-L",
)
def generate_iterate_last(tc: TaskContext) -> list[Instance]:
    """Recall the last word of each of n lists, comma-separated."""
    return _iterate(tc, "last")

"""Minerva tasks: composite tests (Xia et al., ICML 2025, §3; Appendix A).

* **processing data blocks** — in a context of alternating role blocks (the
  layout of :func:`~paperzoo_minerva.tasks.sets_and_lists.deal_roles`), recall
  every word of role R that comes after a word W: search, then a recall that
  skips the other roles' blocks.
* **theory of mind** — agents start with a few words and then draw, discard or
  swap words; name what each agent holds at the end (stateful tracking of
  several sets at once).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from paperzoo.errors import ConfigError
from paperzoo_minerva.instance import Instance
from paperzoo_minerva.tasks import TaskContext, make_prompt, task
from paperzoo_minerva.tasks.sets_and_lists import deal_roles, format_roles

__all__ = [
    "Action",
    "agent_name",
    "apply_action",
    "describe_action",
    "describe_start",
    "generate_processing_data_blocks",
    "generate_theory_of_mind",
    "play_theory_of_mind",
    "words_after",
]

CATEGORY = "composite"

DATA_BLOCKS_INSTRUCTION = (
    "The context consists of a series of alternating roles, each associated with a list of words. "
    'Your task is to identify and recall all the words from the role labeled "{role}" that appear '
    'after the word "{word}" in the sequence. Please write your answer after the text "Answer:". '
    'For example, "Answer: word1, word2, word3".'
)
THEORY_OF_MIND_INSTRUCTION = (
    "Given the actions of the agents, your task is to determine the final list of words each agent "
    'ends up with after a series of actions. Write your final answer after the text "FINAL ANSWER:". '
    'For example, "FINAL ANSWER: Agent A: word1, word2, word3\nAgent B: word4, word5".'
)


# ------------------------------------------------------------ data blocks


def words_after(blocks: np.ndarray, role: int, position: int) -> list[str]:
    """The words of ``role`` after its ``position``-th word, across all later turns.

    ``blocks[role]`` read turn after turn is the role's own sequence; the answer
    is its tail after ``position``.
    """
    return blocks[role].reshape(-1)[position + 1 :].tolist()


@task(
    "processing_data_blocks",
    CATEGORY,
    defaults={"context_length": 4000, "n_roles": (2, 4, 8, 16, 32), "n_turns": (10,), "samples": 10},
    metrics=("exact_match", "rouge"),
    primary="rouge-L",
)
def generate_processing_data_blocks(tc: TaskContext) -> list[Instance]:
    """Recall the words of role R that follow word W in a context of alternating role blocks.

    The query word is uniform over the role's words except its very last one, so
    the answer is never empty (upstream could draw the last word and ask for an
    empty answer, which no ROUGE score can credit).
    """
    samples = tc.count("samples")
    out = []
    for length in tc.positive_ints("context_length"):
        for _ in range(samples):
            words = tc.builder.context("unique_words", length)
            for n_roles in tc.positive_ints("n_roles"):
                for n_turns in tc.positive_ints("n_turns"):
                    blocks = deal_roles(words, n_roles, n_turns)
                    per_role = n_turns * blocks.shape[2]
                    if per_role < 2:
                        raise ConfigError(
                            f"each role needs at least 2 words; {len(words)} words, {n_roles} roles "
                            f"and {n_turns} turns give {per_role}",
                            hint="raise context_length or lower n_roles",
                        )
                    role = int(tc.rng.integers(n_roles))
                    position = int(tc.rng.integers(per_role - 1))
                    word = blocks[role].reshape(-1)[position]
                    instruction = DATA_BLOCKS_INSTRUCTION.format(role=f"Role {role + 1}", word=word)
                    reference = ", ".join(words_after(blocks, role, position))
                    out.append(
                        tc.instance(
                            make_prompt(format_roles(blocks), instruction), reference, context_length=length
                        )
                    )
    return out


# ---------------------------------------------------------- theory of mind


@dataclass(frozen=True)
class Action:
    """One move of the theory-of-mind game.

    Attributes:
        kind: ``"draw"``, ``"discard"`` or ``"swap"``.
        agent: Index of the acting agent (0 is Agent A).
        words: Words drawn, discarded, or given away in a swap.
        other: The swap partner's index (swaps only).
        other_words: The words the partner gives back (swaps only).
    """

    kind: str
    agent: int
    words: tuple[str, ...]
    other: int | None = None
    other_words: tuple[str, ...] = ()


def agent_name(index: int) -> str:
    """``"Agent A"``, ``"Agent B"``, …"""
    return f"Agent {chr(ord('A') + index)}"


def describe_start(agent: int, words: Sequence[str]) -> str:
    """``"Agent A starts with the following words: a, b."``"""
    return f"{agent_name(agent)} starts with the following words: {', '.join(words)}."


def describe_action(action: Action) -> str:
    """The action as the prompt states it (Minerva's wording)."""
    name = agent_name(action.agent)
    if action.kind == "draw":
        return f"{name} draws the following words: {', '.join(action.words)}."
    if action.kind == "discard":
        return f"{name} discards the following words: {', '.join(action.words)}."
    if action.kind == "swap" and action.other is not None:
        return (
            f'{name} swaps the following words "{", ".join(action.words)}" with '
            f'{agent_name(action.other)} for the following words "{", ".join(action.other_words)}".'
        )
    raise ConfigError(f"unknown theory-of-mind action {action!r}")


def apply_action(states: Sequence[Sequence[str]], action: Action) -> list[list[str]]:
    """The agents' word lists after ``action`` (new lists; order kept, new words appended).

    draw: the words join the agent's list; discard: they leave it; swap: each side
    loses the words it gives and appends the words it receives.
    """
    new = [list(state) for state in states]
    if action.kind == "draw":
        new[action.agent] += action.words
    elif action.kind == "discard":
        new[action.agent] = [w for w in new[action.agent] if w not in set(action.words)]
    elif action.kind == "swap" and action.other is not None:
        a, b = action.agent, action.other
        new[a] = [w for w in new[a] if w not in set(action.words)] + list(action.other_words)
        new[b] = [w for w in new[b] if w not in set(action.other_words)] + list(action.words)
    else:
        raise ConfigError(f"unknown theory-of-mind action {action!r}")
    return new


def _sample(rng: np.random.Generator, words: Sequence[str], n: int) -> tuple[str, ...]:
    return tuple(words[i] for i in rng.choice(len(words), size=n, replace=False))


def play_theory_of_mind(
    rng: np.random.Generator, pool: Sequence[str], num_agents: int, state_size: int, steps: int
) -> tuple[list[str], list[list[str]]]:
    """A random game: ``(prompt lines, final word list of each agent)``.

    Each agent starts with 1 to ``state_size − 1`` words. Each step picks draw,
    discard or swap uniformly and the agent(s) uniformly (two distinct for a
    swap), then a size: draw 1 … ``state_size − |S|`` words not held by anyone;
    discard 1 … ``⌊|S|/2⌋``; swap 1 … ``⌊min(|S_a|, |S_b|)/2⌋`` each way. A move
    that is impossible (full hand, or fewer than 2 words) is drawn again and
    does not count as a step. Words are held by at most one agent at a time;
    discarded words may be drawn again later (as upstream).
    """
    if not 2 <= num_agents <= 26:
        raise ConfigError(f"num_agents must be between 2 and 26, got {num_agents}")
    if state_size < 2:
        raise ConfigError(f"state_size must be at least 2, got {state_size}")
    if len(pool) < num_agents * state_size:
        raise ConfigError(f"a pool of {len(pool)} words cannot fill {num_agents} hands of {state_size}")
    start = rng.choice(len(pool), size=num_agents * (state_size - 1), replace=False)
    sizes = rng.integers(1, state_size, size=num_agents)
    states = [
        [pool[i] for i in start[k * (state_size - 1) : k * (state_size - 1) + sizes[k]]]
        for k in range(num_agents)
    ]
    lines = [describe_start(k, state) for k, state in enumerate(states)]
    held = np.zeros(len(pool), dtype=bool)
    index = {word: i for i, word in enumerate(pool)}
    held[[index[w] for state in states for w in state]] = True
    done = 0
    while done < steps:
        kind = ("draw", "discard", "swap")[int(rng.integers(3))]
        if kind == "swap":
            a, b = (int(i) for i in rng.choice(num_agents, size=2, replace=False))
            most = min(len(states[a]), len(states[b])) // 2
            if most == 0:
                continue
            n = int(rng.integers(1, most + 1))
            action = Action("swap", a, _sample(rng, states[a], n), b, _sample(rng, states[b], n))
        else:
            a = int(rng.integers(num_agents))
            most = state_size - len(states[a]) if kind == "draw" else len(states[a]) // 2
            if most <= 0:
                continue
            n = int(rng.integers(1, most + 1))
            if kind == "draw":
                free = np.flatnonzero(~held)
                action = Action("draw", a, tuple(pool[i] for i in rng.choice(free, size=n, replace=False)))
                held[[index[w] for w in action.words]] = True
            else:
                action = Action("discard", a, _sample(rng, states[a], n))
                held[[index[w] for w in action.words]] = False
        states = apply_action(states, action)
        lines.append(describe_action(action))
        done += 1
    return lines, states


@task(
    "theory_of_mind",
    CATEGORY,
    defaults={
        "num_agents": (2, 3, 4),
        "step": (100,),
        "state_size": (10, 20),
        "samples": 10,
        "pool_factor": 200,
    },
    metrics=("exact_match", "rouge", "theory_of_mind"),
    primary="set_overlap_jaccard_similarity",
)
def generate_theory_of_mind(tc: TaskContext) -> list[Instance]:
    """Track the words each agent holds through draw / discard / swap actions.

    The words come from a fresh pool of ``pool_factor × state_size`` unique words
    per game. The reference maps ``"Agent A"`` … to the final word lists.
    """
    samples = tc.count("samples")
    pool_factor = tc.count("pool_factor")
    out = []
    for num_agents in tc.positive_ints("num_agents"):
        for steps in tc.positive_ints("step"):
            for state_size in tc.positive_ints("state_size"):
                for _ in range(samples):
                    pool = tc.builder.unique_words(pool_factor * state_size)
                    lines, states = play_theory_of_mind(tc.rng, pool, num_agents, state_size, steps)
                    prompt = make_prompt(
                        "".join(f"{line}\n" for line in lines),
                        THEORY_OF_MIND_INSTRUCTION,
                        "FINAL ANSWER:",
                        header="Agents actions:\n",
                    )
                    reference = {agent_name(k): state for k, state in enumerate(states)}
                    out.append(tc.instance(prompt, reference, step=steps, state_size=state_size))
    return out

"""Stateful processing (paper §3.6): keep a state up to date through a long log.

* ``quantity_state`` — start from ``x₀ ~ U{1, …, 100}`` and apply ``step`` (200)
  operations "Add a" / "Subtract a", ``a ~ U{1, …, 100}``; the answer is
  ``x₀ + Σ ±aᵢ``, written after "FINAL ANSWER:".
* ``set_state`` — an agent alternately draws and discards words for ``step``
  (100) actions: first it draws ``s`` words (the state size, 5/10/15/20), then
  each discard drops ``U{1, …, ⌊|S|/2⌋}`` of its words and each draw adds
  ``U{1, …, s − |S|}`` words it does not hold (from a pool of ``100·s`` words,
  so discarded words come back). The answer is the final hand, in drawing order.

Every parameter named like a snapshot field takes one value or a list of values to
sweep; ``samples`` is the number of logs drawn per setting.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from paperzoo.errors import ConfigError
from paperzoo_minerva.instance import Instance
from paperzoo_minerva.tasks import TaskContext, make_prompt, task

__all__ = ["quantity_state", "set_state", "simulate_hand", "total"]

QUANTITY_STATE = (
    "In the context, you are given an initial number and a series of operations to perform on that number. "
    "Your task is to determine the final result of the operations. "
    'Write your final answer after the text "FINAL ANSWER:". For example, "FINAL ANSWER: 42".'
)
SET_STATE = (
    "Given the actions of the agent, your task is to determine the final list of words the agent ends up with "
    'after a series of actions. Write your final answer after the text "FINAL ANSWER:". '
    'For example, "FINAL ANSWER: word1, word2, word3"'
)
POOL_PER_SLOT = 100
"""The words an agent can draw: ``POOL_PER_SLOT × state_size`` (as Minerva does)."""


def _sweep(value: Any) -> tuple[Any, ...]:
    """A parameter's values: a list or tuple sweeps them, anything else is one value."""
    return tuple(value) if isinstance(value, (list, tuple)) else (value,)


def total(initial: int, signs: np.ndarray, amounts: np.ndarray) -> int:
    """The result of the operations: ``x₀ + Σ signᵢ·amountᵢ``."""
    return int(initial + np.dot(signs, amounts))


@task(
    "quantity_state",
    "stateful_processing",
    defaults={"step": 200, "samples": 10},
    metrics=("final_answer_exact_match",),
)
def quantity_state(tc: TaskContext) -> list[Instance]:
    """Track a number through 200 additions and subtractions; the reference is the final number (int)."""
    out = []
    for step in _sweep(tc.params["step"]):
        if step < 1:
            raise ConfigError(f"quantity_state needs at least 1 step, got {step}")
        for _ in range(tc.params["samples"]):
            initial = int(tc.rng.integers(1, 101))
            signs = tc.rng.choice(np.array([1, -1]), size=step)
            amounts = tc.rng.integers(1, 101, size=step)
            lines = [
                f"{i}. {'Add' if s > 0 else 'Subtract'} {a}\n"
                for i, s, a in zip(range(1, step + 1), signs.tolist(), amounts.tolist())
            ]
            context = f"Begin with the number {initial}. Perform the following operations:\n{''.join(lines)}"
            prompt = make_prompt(context, QUANTITY_STATE, "FINAL ANSWER:", header="Context:\n")
            out.append(tc.instance(prompt, total(initial, signs, amounts), step=step))
    return out


def simulate_hand(
    rng: np.random.Generator, pool_size: int, state_size: int, steps: int
) -> tuple[list[list[int]], list[int]]:
    """Alternate draws and discards of words (indices into a pool) for ``steps`` actions.

    Action 0 draws ``state_size`` words; odd actions discard ``U{1, …, ⌊|S|/2⌋}``
    held words (in random order); later even actions draw ``U{1, …, state_size − |S|}``
    words not held. The hand keeps drawing order.

    Returns:
        (the words moved by each action, the final hand).
    """
    if state_size < 2:
        raise ConfigError(f"set_state needs a state size of at least 2, got {state_size}")
    if pool_size < state_size:
        raise ConfigError(f"a pool of {pool_size} words cannot fill a hand of {state_size}")
    held = np.zeros(pool_size, dtype=bool)
    hand: list[int] = []
    actions: list[list[int]] = []
    for i in range(steps):
        if i % 2 == 0:
            n = state_size if i == 0 else int(rng.integers(1, state_size - len(hand) + 1))
            moved = rng.choice(np.flatnonzero(~held), size=n, replace=False)
            held[moved] = True
            hand += moved.tolist()
        else:
            n = int(rng.integers(1, len(hand) // 2 + 1))
            moved = np.asarray(hand)[rng.choice(len(hand), size=n, replace=False)]
            held[moved] = False
            hand = [w for w in hand if held[w]]
        actions.append(moved.tolist())
    return actions, hand


@task(
    "set_state",
    "stateful_processing",
    defaults={"step": 100, "state_size": (5, 10, 15, 20), "samples": 10},
    metrics=("exact_match", "rouge", "set_overlap"),
    primary="set_overlap_jaccard_similarity",
)
def set_state(tc: TaskContext) -> list[Instance]:
    """Track an agent's hand of words through 100 alternating draws and discards; the reference is the hand (list)."""
    out = []
    for step in _sweep(tc.params["step"]):
        for state_size in _sweep(tc.params["state_size"]):
            for _ in range(tc.params["samples"]):
                pool = tc.builder.unique_words(POOL_PER_SLOT * state_size)
                actions, hand = simulate_hand(tc.rng, len(pool), state_size, step)
                verbs = ("draws", "discards")
                log = "".join(
                    f"Agent {verbs[i % 2]} the following words: {', '.join(pool[w] for w in moved)}.\n"
                    for i, moved in enumerate(actions)
                )
                prompt = make_prompt(log, SET_STATE, "FINAL ANSWER:", header="Agent actions:\n")
                out.append(tc.instance(prompt, [pool[w] for w in hand], step=step, state_size=state_size))
    return out

"""Scoring Minerva answers (the paper's metrics, and a strict variant).

``score(instance, generation)`` applies the task's metrics. References are
rendered the way Minerva renders them: a list as ``"a, b, c"``, agent → list as
``"Agent: a, b"`` lines, text lower-cased.

* ``exact_match`` — Minerva's rule: the reference is a *substring* of the
  lower-cased, stripped generation (trailing "." removed). Known inflation: "yes
  and no" matches "yes"; "not" matches "no".
* ``exact_match_strict`` — the normalised generation *equals* the reference.
* ``rouge`` — ROUGE-1 and ROUGE-L F1, precision and recall (no stemming; the
  ``rouge-score`` package's tokenisation: lower case, alphanumeric runs). Two
  empty texts score 1 here, 0 in ``rouge-score``.
* ``count_accuracy`` — the number in "… appears N times" / "twice" equals the count.
* ``set_overlap`` — precision, recall, F1 and Jaccard of the ``", "``-separated
  items after "FINAL ANSWER:" (or of the whole answer) against the reference set.
* ``theory_of_mind`` — set overlap per agent ("Agent A: w1, w2" lines), averaged.
* ``final_answer_exact_match`` — the text after "FINAL ANSWER:" equals the reference.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import numpy as np

from paperzoo.errors import ConfigError
from paperzoo_minerva.instance import Instance

__all__ = ["METRICS", "lcs_length", "render_reference", "rouge", "score", "set_overlap"]

COUNT_WORDS = {"once": 1, "twice": 2, "thrice": 3, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
               "eight": 8, "nine": 9, "ten": 10}  # fmt: skip
_FINAL = re.compile(r"FINAL ANSWER:(.+)", re.DOTALL)
_ROUGE_TOKEN = re.compile(r"[a-z0-9]+")


def render_reference(reference: Any) -> str:
    """Minerva's string form of a reference."""
    if isinstance(reference, list):
        return ", ".join(str(r) for r in reference)
    if isinstance(reference, Mapping):
        return "".join(f"{key}: {', '.join(value)}\n" for key, value in reference.items())
    if isinstance(reference, str):
        return reference.lower()
    return str(reference)


def _normalise(text: str) -> str:
    """Lower case, without surrounding white space, quotes and trailing punctuation."""
    return text.strip().lower().strip(" \t\n\"'`.,!;:")


def final_answer(generation: str) -> str:
    """The text after "FINAL ANSWER:" (or the whole generation), stripped, no trailing "."."""
    match = _FINAL.search(generation)
    return (match.group(1) if match else generation).strip().rstrip(".")


def exact_match(reference: Any, generation: str) -> dict[str, float]:
    """Minerva's substring rule."""
    return {"exact_match": float(render_reference(reference) in generation.strip().lower().rstrip("."))}


def exact_match_strict(reference: Any, generation: str) -> dict[str, float]:
    """The normalised generation equals the reference ("yes and no" ≠ "yes", "not" ≠ "no")."""
    return {"exact_match_strict": float(_normalise(generation) == _normalise(render_reference(reference)))}


def lcs_length(a: Sequence[str], b: Sequence[str]) -> int:
    """Longest common subsequence length, one vectorised pass per token of ``a``.

    Row ``i`` of the DP is the running maximum of
    ``t_j = max(dp[i−1][j], dp[i−1][j−1] + 1 if a_i = b_j)``.
    """
    if not a or not b:
        return 0
    vocabulary: dict[str, int] = {}
    b_ids = np.array([vocabulary.setdefault(t, len(vocabulary)) for t in b])
    previous = np.zeros(len(b) + 1, dtype=np.int64)
    for token in a:
        token_id = vocabulary.get(token, -1)
        diagonal = np.where(b_ids == token_id, previous[:-1] + 1, 0)
        row = np.maximum(previous[1:], diagonal)
        previous = np.concatenate(([0], np.maximum.accumulate(row)))
    return int(previous[-1])


def _prf(hits: float, predicted: int, reference: int) -> tuple[float, float, float]:
    precision = hits / predicted if predicted else 0.0
    recall = hits / reference if reference else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return precision, recall, f1


def rouge(reference: Any, generation: str) -> dict[str, float]:
    """ROUGE-1 and ROUGE-L (F1, precision, recall) between reference and generation.

    Two texts without tokens are identical and score 1 (``rouge-score`` gives 0;
    one snapshot instance of ``processing_data_blocks`` has an empty reference).
    """
    ref = _ROUGE_TOKEN.findall(render_reference(reference).lower())
    gen = _ROUGE_TOKEN.findall(generation.lower())
    if not ref and not gen:
        return dict.fromkeys(("rouge-1", "rouge-L", "rouge-1_precision", "rouge-1_recall",
                              "rouge-L_precision", "rouge-L_recall"), 1.0)  # fmt: skip
    ref_counts: dict[str, int] = {}
    for token in ref:
        ref_counts[token] = ref_counts.get(token, 0) + 1
    overlap = 0
    for token in gen:
        if ref_counts.get(token, 0) > 0:
            ref_counts[token] -= 1
            overlap += 1
    p1, r1, f1 = _prf(overlap, len(gen), len(ref))
    pl, rl, fl = _prf(lcs_length(ref, gen), len(gen), len(ref))
    return {"rouge-1": f1, "rouge-L": fl, "rouge-1_precision": p1, "rouge-1_recall": r1,
            "rouge-L_precision": pl, "rouge-L_recall": rl}  # fmt: skip


def count_accuracy(reference: Any, generation: str) -> dict[str, float]:
    """1 if the stated count (a word like "twice", or "N times") equals the reference."""
    stated: int | None = None
    lowered = generation.lower()
    for word, count in COUNT_WORDS.items():
        if re.search(rf"\b{word}\b", lowered):
            stated = count
            break
    if stated is None:
        match = re.search(r"(\d+)\s*times", lowered) or re.match(r"\s*(\d+)\b", lowered)
        stated = int(match.group(1)) if match else None
    return {"count_accuracy": float(stated == int(reference))}


def _overlap(reference: Iterable[str], generated: Iterable[str]) -> dict[str, float]:
    ref, gen = set(reference), set(generated)
    hits = len(ref & gen)
    precision, recall, f1 = _prf(hits, len(gen), len(ref))
    union = len(ref | gen)
    return {"set_overlap_precision": precision, "set_overlap_recall": recall, "set_overlap_f1": f1,
            "set_overlap_jaccard_similarity": hits / union if union else 0.0}  # fmt: skip


def set_overlap(reference: Any, generation: str) -> dict[str, float]:
    """Overlap of the answer's ", "-separated items with the reference's."""
    items = reference if isinstance(reference, list) else str(reference).split(", ")
    answer = final_answer(generation)
    return _overlap((str(i) for i in items), (w.strip() for w in answer.split(",") if w.strip()))


def theory_of_mind(reference: Any, generation: str) -> dict[str, float]:
    """Set overlap per agent ("Agent A: w1, w2" lines after FINAL ANSWER), averaged over agents."""
    answer = final_answer(generation)
    stated: dict[str, list[str]] = {}
    for line in answer.splitlines():
        agent, sep, words = line.partition(":")
        if sep:
            stated[agent.strip()] = [w.strip() for w in words.split(",") if w.strip()]
    scores = [_overlap(words, stated.get(agent, [])) for agent, words in reference.items()]
    return {key: float(np.mean([s[key] for s in scores])) for key in scores[0]} if scores else {}


def final_answer_exact_match(reference: Any, generation: str) -> dict[str, float]:
    """The text after "FINAL ANSWER:" equals the rendered reference."""
    return {"exact_match": float(final_answer(generation) == render_reference(reference))}


METRICS: dict[str, Callable[[Any, str], dict[str, float]]] = {
    "exact_match": exact_match,
    "exact_match_strict": exact_match_strict,
    "rouge": rouge,
    "count_accuracy": count_accuracy,
    "set_overlap": set_overlap,
    "theory_of_mind": theory_of_mind,
    "final_answer_exact_match": final_answer_exact_match,
}
"""Scorers by name: ``scorer(reference, generation) -> {score name: value}``."""


def score(instance: Instance, generation: str | None, metrics: Sequence[str]) -> dict[str, float]:
    """Every score of ``generation`` (None counts as an empty answer) under ``metrics``."""
    text = generation or ""
    out: dict[str, float] = {}
    for name in metrics:
        if name not in METRICS:
            raise ConfigError(f"unknown metric {name!r}", hint=f"metrics are {', '.join(METRICS)}")
        out.update(METRICS[name](instance.reference, text))
    return out

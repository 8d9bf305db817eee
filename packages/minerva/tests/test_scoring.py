"""Scorers against exact cases, and against the rouge-score package."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from paperzoo_minerva.scoring import (
    count_accuracy,
    exact_match,
    exact_match_strict,
    final_answer_exact_match,
    lcs_length,
    render_reference,
    rouge,
    set_overlap,
    theory_of_mind,
)


def test_render_reference() -> None:
    assert render_reference(["a", "b"]) == "a, b"
    assert render_reference({"Agent A": ["x", "y"], "Agent B": []}) == "Agent A: x, y\nAgent B: \n"
    assert render_reference("YES") == "yes"
    assert render_reference(509) == "509"


def test_minervas_substring_rule_and_its_inflation() -> None:
    assert exact_match("yes", " Yes.")["exact_match"] == 1.0
    assert exact_match("yes", "yes and no")["exact_match"] == 1.0  # the known inflation
    assert exact_match("no", "it is not there")["exact_match"] == 1.0  # "no" inside "not"
    assert exact_match_strict("yes", "yes and no")["exact_match_strict"] == 0.0
    assert exact_match_strict("no", "it is not there")["exact_match_strict"] == 0.0
    assert exact_match_strict("yes", ' "Yes." ')["exact_match_strict"] == 1.0


def test_count_accuracy() -> None:
    assert count_accuracy("2", " twice.")["count_accuracy"] == 1.0
    assert count_accuracy(3, " 3 times")["count_accuracy"] == 1.0
    assert count_accuracy(3, " 4 times")["count_accuracy"] == 0.0
    assert count_accuracy(2, " I do not know")["count_accuracy"] == 0.0


def test_set_overlap_and_final_answer() -> None:
    scores = set_overlap(["a", "b", "c"], "thinking...\nFINAL ANSWER: a, b, d")
    assert scores["set_overlap_precision"] == pytest.approx(2 / 3)
    assert scores["set_overlap_recall"] == pytest.approx(2 / 3)
    assert scores["set_overlap_jaccard_similarity"] == pytest.approx(2 / 4)
    assert final_answer_exact_match(509, "5 + 4...\nFINAL ANSWER: 509.")["exact_match"] == 1.0
    assert final_answer_exact_match(509, "FINAL ANSWER: 510")["exact_match"] == 0.0


def test_theory_of_mind_averages_agents() -> None:
    reference = {"Agent A": ["x", "y"], "Agent B": ["z"]}
    perfect = theory_of_mind(reference, "FINAL ANSWER: Agent A: x, y\nAgent B: z")
    assert perfect["set_overlap_f1"] == 1.0
    half = theory_of_mind(reference, "Agent A: x, y")
    assert half["set_overlap_f1"] == pytest.approx(0.5)


def _lcs_reference(a: list[str], b: list[str]) -> int:
    dp = np.zeros((len(a) + 1, len(b) + 1), dtype=int)
    for i in range(1, len(a) + 1):
        for j in range(1, len(b) + 1):
            dp[i, j] = dp[i - 1, j - 1] + 1 if a[i - 1] == b[j - 1] else max(dp[i - 1, j], dp[i, j - 1])
    return int(dp[-1, -1])


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from("abcde"), max_size=12), st.lists(st.sampled_from("abcde"), max_size=12))
def test_vectorised_lcs_matches_the_textbook_dp(a: list[str], b: list[str]) -> None:
    assert lcs_length(a, b) == _lcs_reference(a, b)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from(["alpha", "beta", "Gamma", "7", "d-e"]), max_size=15),
       st.lists(st.sampled_from(["alpha", "beta", "gamma", "7", "e", "x"]), max_size=15))  # fmt: skip
def test_rouge_matches_the_rouge_score_package(a: list[str], b: list[str]) -> None:
    rouge_scorer = pytest.importorskip("rouge_score.rouge_scorer")
    assume(a or b)  # two empty texts: see test_two_empty_texts_are_identical
    reference, generation = " ".join(a), " ".join(b)
    expected = rouge_scorer.RougeScorer(["rouge1", "rougeL"], use_stemmer=False).score(
        reference.lower(), generation
    )
    ours = rouge(reference, generation)
    assert ours["rouge-1"] == pytest.approx(expected["rouge1"].fmeasure)
    assert ours["rouge-L"] == pytest.approx(expected["rougeL"].fmeasure)
    assert ours["rouge-L_recall"] == pytest.approx(expected["rougeL"].recall)


def test_two_empty_texts_are_identical() -> None:
    assert rouge("", "") == pytest.approx(dict.fromkeys(rouge("a", "a"), 1.0))
    assert rouge("", "word")["rouge-L"] == rouge("word", "")["rouge-1"] == 0.0

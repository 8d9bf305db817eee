"""The paper's Table 1, reproduced by property-based search, plus its counterexamples."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from paperzoo.errors import ConfigError
from paperzoo_revdiv.axioms import (
    AXIOMS,
    PAPER_TABLE,
    axiom_report,
    bribery_gain,
    fraud_gain,
    max_suspicious_profit,
    monotonicity_change,
    pigou_dalton_change,
    random_instance,
    sybil_gain,
)
from paperzoo_revdiv.rules import RULES, GlobalProp, ScaledUserProp, UserEq, UserProp

TABLE = PAPER_TABLE

SATISFIED = [(r, a) for r, row in TABLE.items() for a, ok in row.items() if ok]
VIOLATED = [(r, a) for r, row in TABLE.items() for a, ok in row.items() if not ok]


def test_table_covers_every_axiom_and_rule() -> None:
    assert set(TABLE) == set(RULES)
    assert all(set(row) == set(AXIOMS) for row in TABLE.values())


@pytest.mark.parametrize(("rule", "axiom"), SATISFIED)
@settings(max_examples=150, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), alpha=st.sampled_from([0.5, 0.7, 0.9, 1.0]))
def test_satisfied_axioms_hold_on_random_instances(rule: str, axiom: str, seed: int, alpha: float) -> None:
    rng = np.random.default_rng(seed)
    violation = AXIOMS[axiom](RULES[rule](alpha=alpha), random_instance(rng), rng)
    assert violation is None, f"{rule} violates {axiom}: {violation}"


@pytest.mark.parametrize(("rule", "axiom"), VIOLATED)
def test_violated_axioms_have_counterexamples(rule: str, axiom: str) -> None:
    found = axiom_report(RULES[rule](alpha=0.9), trials=3000, seed=1, axioms=[axiom])[axiom]
    assert found is not None, f"no counterexample to {axiom} found for {rule}"
    assert found.amount > 1e-9


def test_global_prop_fraud_counterexample_from_the_paper() -> None:
    """App. B.1: every user streams artist 0 once; one bot streams artist 1 n times."""
    n, alpha = 10, 0.5
    W = np.tile([1.0, 0.0], (n, 1))
    gain = fraud_gain(GlobalProp(alpha=alpha), W, [0.0, n], coalition=[1])
    assert gain == pytest.approx((n + 1) * alpha / 2 - 1)
    assert gain > 0


def test_fraud_gain_is_linear_in_bots_for_user_prop() -> None:
    W = random_instance(np.random.default_rng(0))
    bots = np.zeros((3, W.shape[1]))
    bots[:, 0] = 100.0
    assert fraud_gain(UserProp(alpha=0.8), W, bots, 0) == pytest.approx(3 * (0.8 - 1))


def test_scaled_user_prop_capped_bot_breaks_even() -> None:
    W = np.array([[1.0, 0.0], [2.0, 1.0], [0.0, 3.0]])
    W = np.column_stack([W, np.zeros(3)])  # artist 2: the fraudster's, no real listener
    assert fraud_gain(ScaledUserProp(alpha=0.9), W, [0.0, 0.0, 1e6], 2) == pytest.approx(0.0, abs=1e-12)


def test_bribery_gain_counts_the_bribes() -> None:
    W = np.array([[1.0, 0.0], [1.0, 0.0], [0.0, 1.0]])
    # GP: bribing user 2 to stream artist 1 a lot lifts artist 1 from 1/3·3α to nearly 3α
    gain = bribery_gain(GlobalProp(alpha=1.0), W, {2: [0.0, 1000.0]}, [1])
    assert gain == pytest.approx(3 * 1000 / 1002 - 1 - 1)
    assert bribery_gain(UserProp(alpha=1.0), W, {2: [0.0, 1000.0]}, [1]) == pytest.approx(-1.0)


def test_user_eq_gains_from_splitting_an_artist() -> None:
    W = np.array([[1.0, 1.0], [0.0, 2.0]])
    split = np.array([[0.5, 1.0, 0.5], [0.0, 2.0, 0.0]])  # artist 0 splits into 0 and 2
    assert sybil_gain(UserEq(), W, split, [0], [0, 2]) == pytest.approx(2 / 3 - 1 / 2)
    for rule in (GlobalProp(), UserProp(), ScaledUserProp(alpha=0.6)):
        assert sybil_gain(rule, W, split, [0], [0, 2]) == pytest.approx(0.0, abs=1e-12)


def test_user_prop_pigou_dalton_counterexample_from_the_paper() -> None:
    """App. B.7: rows (1, 2), (9, 0) → (1, 1), (9, 1) lowers artist 1 from 2α/3 to 3α/5."""
    W = np.array([[1.0, 2.0], [9.0, 0.0]])
    change = pigou_dalton_change(UserProp(alpha=1.0), W, artist=1, giver=0, receiver=1, delta=1.0)
    assert change == pytest.approx(3 / 5 - 2 / 3)


def test_scaled_user_prop_pigou_dalton_counterexample() -> None:
    W = np.array([[5.0, 5.0], [0.0, 3.0], [4.0, 1.0]])
    change = pigou_dalton_change(ScaledUserProp(alpha=0.9), W, artist=0, giver=0, receiver=2, delta=0.5)
    assert change < 0


def test_manipulations_are_validated() -> None:
    W = np.array([[2.0, 1.0], [1.0, 1.0]])
    with pytest.raises(ConfigError, match="not a Pigou–Dalton transfer"):
        pigou_dalton_change(UserProp(), W, artist=0, giver=1, receiver=0, delta=0.5)
    with pytest.raises(ConfigError, match="must raise engagement with artist 0"):
        monotonicity_change(UserProp(), W, W * 0.5, artist=0)
    with pytest.raises(ConfigError, match="unknown axiom"):
        axiom_report(UserProp(), axioms=["honesty"])


def _psp_naive(W: np.ndarray, U: tuple[int, ...], alpha: float) -> float:
    """Def. 3.4 written out with a loop over every V ⊆ N."""
    n = W.shape[0]
    best = 0.0
    for size in range(n + 1):
        for V in itertools.combinations(range(n), size):
            rest = [i for i in range(n) if i not in V]
            before = alpha * n * W[:, list(U)].sum() / W.sum()
            T = W[rest].sum()
            after = alpha * len(rest) * W[rest][:, list(U)].sum() / T if rest and T > 0 else 0.0
            best = max(best, before - after - len(V))
    return best


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), k=st.integers(1, 2), alpha=st.sampled_from([0.5, 1.0]))
def test_max_suspicious_profit_matches_definition(seed: int, k: int, alpha: float) -> None:
    W = random_instance(np.random.default_rng(seed))
    k = min(k, W.shape[1])
    profit, U, V = max_suspicious_profit(W, k, alpha)
    expected = max(
        _psp_naive(W, U_, alpha)
        for s in range(1, k + 1)
        for U_ in itertools.combinations(range(W.shape[1]), s)
    )
    assert profit == pytest.approx(expected, abs=1e-9)
    assert profit >= 0
    if profit > 0:
        assert _psp_naive(W, U, alpha) == pytest.approx(profit)


def test_suspicious_profit_finds_a_bot_farm() -> None:
    """Three bots streaming only artist 2 a lot: removing them costs GP-artist 2 most of its pay."""
    real = np.array([[3.0, 1.0, 0.0], [1.0, 2.0, 0.0], [2.0, 2.0, 0.0], [1.0, 1.0, 0.0]])
    bots = np.array([[0.0, 0.0, 50.0]] * 3)
    profit, U, V = max_suspicious_profit(np.vstack([real, bots]), k=1, alpha=1.0)
    assert U == (2,)
    assert V == (4, 5, 6)
    assert profit > 3


def test_max_suspicious_profit_refuses_large_instances() -> None:
    with pytest.raises(ConfigError, match="n <= 20"):
        max_suspicious_profit(np.ones((21, 2)), 1)

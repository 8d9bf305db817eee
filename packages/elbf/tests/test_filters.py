"""The learned filters: no false negatives, analytic FPR, bad input, oracles and sizes."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from paperzoo.errors import ConfigError, NotFittedError
from paperzoo_elbf.filters import (
    BudgetError,
    EnsembleLearnedBloomFilter,
    LearnedBloomFilter,
    PartitionedLearnedBloomFilter,
    SandwichedLearnedBloomFilter,
)
from paperzoo_elbf.oracles import MemoOracle, SklearnOracle, TableOracle, model_size_in_bits
from paperzoo_elbf.synthetic import synthetic_scores

SINGLE = [LearnedBloomFilter, SandwichedLearnedBloomFilter, PartitionedLearnedBloomFilter]


def _problem(
    n_keys: int = 1_000, n_holdout: int = 10_000, n_test: int = 10_000, rho: float = 0.0, seed: int = 0
):  # type: ignore[no-untyped-def]
    data = synthetic_scores(n_keys, n_holdout, n_test, sizes=[n_keys // 2, n_keys], correlation=rho, seed=seed,
                            d0=1.2, slope=0.6)  # fmt: skip
    X = np.concatenate([data.keys, data.holdout])
    y = np.r_[np.ones(len(data.keys), dtype=int), np.zeros(len(data.holdout), dtype=int)]
    return data, X, y


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**31), st.floats(0.8, 12.0), st.sampled_from([0.0, 0.5, 1.0]), st.integers(20, 600))
def test_no_structure_ever_rejects_a_key(seed: int, bits_per_key: float, rho: float, n_keys: int) -> None:
    data, X, y = _problem(n_keys, 2_000, 10, rho, seed)
    models = [cls(data.oracles[1], bits_per_key=bits_per_key, seed=seed) for cls in SINGLE]
    models += [EnsembleLearnedBloomFilter(data.oracles, groups=[0, 0, 1, 1], bits_per_key=bits_per_key,
                                          seed=seed, **kw) for kw in ({}, {"correlated": False},
                                          {"shared_backup": True, "min_oracles": 2})]  # fmt: skip
    for model in models:
        try:
            model.fit(X, y)
        except BudgetError:
            continue  # the oracle alone exceeds this budget: refused, not built wrong
        assert model.predict(data.keys).all(), type(model).__name__
        assert model.size_in_bits_ <= bits_per_key * n_keys + 1


def test_analytic_fpr_matches_a_million_fresh_queries() -> None:
    data, X, y = _problem(5_000, 100_000, 1_000_000)
    for model in (
        LearnedBloomFilter(data.oracles[3], bits_per_key=6),
        SandwichedLearnedBloomFilter(data.oracles[3], bits_per_key=6),
        PartitionedLearnedBloomFilter(data.oracles[3], bits_per_key=6),
        EnsembleLearnedBloomFilter(data.oracles, groups=data.groups, bits_per_key=6),
    ):
        model.fit(X, y)
        empirical = model.false_positive_rate(data.test)
        assert model.analytic_fpr_ == pytest.approx(empirical, rel=0.10), type(model).__name__


def test_analytic_fpr_on_fresh_non_keys_is_unbiased_where_the_held_out_one_is_optimistic() -> None:
    # 10 bits/key: thresholds pass few held-out non-keys, so their pass rate there is optimistic
    data, X, y = _problem(5_000, 20_000, 2_000_000)
    test, calibration = data.test[:1_000_000], data.test[1_000_000:]
    model = EnsembleLearnedBloomFilter(data.oracles, groups=data.groups, bits_per_key=10).fit(X, y)
    empirical = model.false_positive_rate(test)
    assert model.analytic_fpr(X[y == 0]) == pytest.approx(model.analytic_fpr_)
    assert model.analytic_fpr(calibration) == pytest.approx(empirical, rel=0.06)
    assert model.analytic_fpr_ < model.analytic_fpr(calibration)


def test_the_ensemble_beats_the_best_single_lbf_at_six_bits_per_key() -> None:
    data, X, y = _problem(5_000, 50_000, 200_000)
    single = min(
        LearnedBloomFilter(o, bits_per_key=6).fit(X, y).false_positive_rate(data.test) for o in data.oracles
    )
    ensemble = EnsembleLearnedBloomFilter(data.oracles, groups=data.groups, bits_per_key=6).fit(X, y)
    assert len(ensemble.used_) == 2
    assert ensemble.false_positive_rate(data.test) < single


def test_shared_backup_holds_every_key_some_oracle_rejects() -> None:
    data, X, y = _problem()
    model = EnsembleLearnedBloomFilter(data.oracles, groups=data.groups, bits_per_key=8, shared_backup=True,
                                       min_oracles=2).fit(X, y)  # fmt: skip
    assert len(model.backups_) == 1
    scores = np.column_stack([o.score(data.keys) for o in model.oracles_])
    assert model.backups_[0].n_items == int(np.sum(~(scores >= model.thresholds_).all(axis=1)))


@pytest.mark.parametrize(
    ("X", "y", "message"),
    [
        (np.arange(10), np.zeros(10), "no keys"),
        (np.arange(10), np.ones(10), "no held-out non-keys"),
        (np.arange(10), np.arange(10), "1 for keys and 0"),
        (np.arange(10), np.ones(3), "y has shape"),
        (np.zeros((5, 2), dtype=int), np.ones(5), "1-d collection"),
    ],
)
def test_bad_training_data_fails_clearly(X: np.ndarray, y: np.ndarray, message: str) -> None:
    oracle = TableOracle(np.zeros(10), 8)
    with pytest.raises(ConfigError, match=message):
        LearnedBloomFilter(oracle).fit(X, y)


def test_bad_settings_fail_clearly() -> None:
    data, X, y = _problem(200, 1_000, 10)
    with pytest.raises(BudgetError, match="does not fit the oracle"):
        LearnedBloomFilter(data.oracles[3], bits_per_key=0.5).fit(X, y)
    with pytest.raises(ConfigError, match="LearnedBloomFilter: bits_per_key must be a number > 0, got 0"):
        LearnedBloomFilter(data.oracles[0], bits_per_key=0).fit(X, y)
    with pytest.raises(ConfigError, match="budget_bits must be a number > 0 or none, got -5"):
        SandwichedLearnedBloomFilter(data.oracles[0], budget_bits=-5).fit(X, y)
    with pytest.raises(ConfigError, match="n_regions must be an integer ≥ 1, got 0"):
        PartitionedLearnedBloomFilter(data.oracles[0], n_regions=0).fit(X, y)
    with pytest.raises(ConfigError, match="min_oracles must be an integer ≥ 1, got 0"):
        EnsembleLearnedBloomFilter(data.oracles, min_oracles=0).fit(X, y)
    with pytest.raises(ConfigError, match="score\\(items\\) and size_in_bits"):
        LearnedBloomFilter(object()).fit(X, y)
    with pytest.raises(ConfigError, match="no oracles"):
        EnsembleLearnedBloomFilter([]).fit(X, y)
    with pytest.raises(ConfigError, match="groups has 1 entries for 4 oracles"):
        EnsembleLearnedBloomFilter(data.oracles, groups=[0]).fit(X, y)
    with pytest.raises(ConfigError, match="min_oracles must lie in"):
        EnsembleLearnedBloomFilter(data.oracles, groups=data.groups, min_oracles=3).fit(X, y)
    with pytest.raises(NotFittedError):
        EnsembleLearnedBloomFilter(data.oracles).predict(X)


def test_a_failed_refit_keeps_the_fitted_filter() -> None:
    data, X, y = _problem(300, 2_000, 10)
    model = LearnedBloomFilter(data.oracles[0], bits_per_key=8).fit(X, y)
    before = model.predict(data.test)
    with pytest.raises(ConfigError):
        model.set_params(bits_per_key=-1).fit(X, y)
    np.testing.assert_array_equal(model.predict(data.test), before)


def test_model_size_counts_stored_parameters() -> None:
    from sklearn.feature_extraction.text import CountVectorizer, HashingVectorizer
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.tree import DecisionTreeClassifier

    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(200, 7)), rng.integers(0, 2, 200)
    assert model_size_in_bits(LogisticRegression().fit(X, y)) == (7 + 1) * 32
    tree = DecisionTreeClassifier(max_depth=3, random_state=0).fit(X, y)
    internal = int(np.sum(tree.tree_.children_left != -1))
    leaves = tree.tree_.node_count - internal
    assert model_size_in_bits(tree, bits_per_parameter=16) == (4 * internal + 2 * leaves) * 16
    text = ["aa", "bb", "ab", "ba"] * 10
    hashed = make_pipeline(HashingVectorizer(n_features=16), LogisticRegression()).fit(
        text, [1, 0, 1, 0] * 10
    )
    assert SklearnOracle(hashed).size_in_bits == 17 * 32
    counted = make_pipeline(CountVectorizer(), LogisticRegression()).fit(text, [1, 0, 1, 0] * 10)
    with pytest.raises(ConfigError, match="vocabulary"):
        SklearnOracle(counted)
    with pytest.raises(ConfigError, match="neither predict_proba nor decision_function"):
        SklearnOracle(object())


def test_memo_oracle_scores_each_item_once() -> None:
    calls: list[int] = []

    class Counting:
        size_in_bits = 5

        def score(self, items: np.ndarray) -> np.ndarray:
            calls.append(len(items))
            return np.array([len(str(x)) for x in items], dtype=float)

    memo = MemoOracle(Counting())
    np.testing.assert_array_equal(memo.score(["a", "bb", "a"]), [1.0, 2.0, 1.0])
    np.testing.assert_array_equal(memo.score(["bb", "ccc"]), [2.0, 3.0])
    assert calls == [2, 1] and memo.size_in_bits == 5


def test_table_oracle_rejects_unknown_ids() -> None:
    with pytest.raises(ConfigError, match="ids must be integers"):
        TableOracle(np.zeros(3), 1).score(np.array([0, 3]))

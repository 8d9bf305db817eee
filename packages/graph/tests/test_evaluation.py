"""Split protocols and the linear probe."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from paperzoo.errors import ConfigError
from paperzoo_graph import evaluation
from paperzoo_graph.evaluation import (
    NEWTON_MAX_TRAIN,
    ProbeResult,
    Split,
    linear_probe,
    public_split,
    random_splits,
    ratio_splits,
)
from paperzoo_graph.graph import Graph, GraphError


def labels(per_class: list[int], unlabelled: int = 0, seed: int = 0) -> np.ndarray:
    y = np.concatenate([np.full(n, k) for k, n in enumerate(per_class)] + [np.full(unlabelled, -1)])
    return np.random.default_rng(seed).permutation(y)


def assert_valid(split: Split, y: np.ndarray) -> None:
    train, val, test = split
    for part in split:
        assert part.dtype == np.int64 and np.all(np.diff(part) > 0)  # sorted, no repeats
        assert (y[part] >= 0).all()  # never an unlabelled node
    assert not np.intersect1d(train, val).size
    assert not np.intersect1d(train, test).size
    assert not np.intersect1d(val, test).size


# ----------------------------------------------------------------- splits


@settings(max_examples=40, deadline=None)
@given(
    per_class=st.lists(st.integers(25, 80), min_size=2, max_size=6),
    unlabelled=st.integers(0, 30),
    seed=st.integers(0, 2**32 - 1),
)
def test_random_splits_take_k_per_class_then_val_and_test(
    per_class: list[int], unlabelled: int, seed: int
) -> None:
    y = labels(per_class, unlabelled, seed)
    rest = sum(per_class) - 20 * len(per_class)
    n_val, n_test = rest // 3, rest // 2
    splits = random_splits(y, n_splits=3, n_val=n_val, n_test=n_test, seed=seed)
    for split in splits:
        assert_valid(split, y)
        np.testing.assert_array_equal(np.bincount(y[split.train], minlength=len(per_class)), 20)
        assert (split.val.size, split.test.size) == (n_val, n_test)
    assert not np.array_equal(splits[0].train, splits[1].train)


@settings(max_examples=30, deadline=None)
@given(per_class=st.lists(st.integers(51, 120), min_size=2, max_size=6), seed=st.integers(0, 1000))
def test_per_class_validation_and_the_rest_as_test(per_class: list[int], seed: int) -> None:
    y = labels(per_class, unlabelled=7, seed=seed)
    for split in random_splits(y, n_splits=2, val_per_class=30, n_test=None, seed=seed):
        assert_valid(split, y)
        np.testing.assert_array_equal(np.bincount(y[split.train]), 20)
        np.testing.assert_array_equal(np.bincount(y[split.val]), 30)
        assert split.test.size == sum(per_class) - 50 * len(per_class)  # every other labelled node


def test_random_splits_are_reproducible_and_prefix_stable() -> None:
    y = labels([60, 70, 80])
    a = random_splits(y, n_splits=5, n_val=30, n_test=40, seed=7)
    b = random_splits(y, n_splits=2, n_val=30, n_test=40, seed=7)
    c = random_splits(y, n_splits=2, n_val=30, n_test=40, seed=8)
    for x, z in zip(a, b):
        for part_x, part_z in zip(x, z):
            np.testing.assert_array_equal(part_x, part_z)
    assert not np.array_equal(a[0].test, c[0].test)


def test_random_splits_do_not_touch_the_global_numpy_rng() -> None:
    np.random.seed(0)
    expected = np.random.rand()
    np.random.seed(0)
    random_splits(labels([40, 40]), n_splits=2, n_val=10, n_test=10)
    assert np.random.rand() == expected


def test_n_test_none_takes_every_remaining_node() -> None:
    y = labels([30, 30], unlabelled=5)
    split = random_splits(y, n_splits=1, n_val=10, n_test=None)[0]
    assert split.test.size == 60 - 40 - 10


def test_too_small_class_is_a_clear_error() -> None:
    y = labels([30, 12, 40])
    with pytest.raises(ConfigError, match="class 1 has 12 labelled nodes, fewer than the 20 needed") as info:
        random_splits(y)
    assert "lower train_per_class" in str(info.value) and "\n" not in str(info.value)
    with pytest.raises(ConfigError, match="fewer than the 50 needed per class"):
        random_splits(labels([60, 45]), val_per_class=30, n_test=None)


def test_not_enough_nodes_for_val_and_test_is_a_clear_error() -> None:
    with pytest.raises(ConfigError, match="160 labelled nodes are left .* but validation and test need 1500"):
        random_splits(labels([100, 100]))
    with pytest.raises(ConfigError, match="0 labelled nodes are left"):
        random_splits(labels([50, 50]), val_per_class=30, n_test=None)
    with pytest.raises(ConfigError, match="no node has a label"):
        random_splits(np.full(10, -1))
    with pytest.raises(ConfigError, match="n_splits must be an integer ≥ 1"):
        random_splits(labels([100, 100]), n_splits=0, n_val=10, n_test=10)


def test_ratio_splits_are_10_10_80_of_the_labelled_nodes() -> None:
    y = labels([300, 400, 300], unlabelled=50)
    splits = ratio_splits(y, n_splits=3, seed=1)
    for split in splits:
        assert_valid(split, y)
        assert (split.train.size, split.val.size, split.test.size) == (100, 100, 800)
    np.testing.assert_array_equal(ratio_splits(y, n_splits=1, seed=1)[0].test, splits[0].test)
    with pytest.raises(ConfigError, match="train \\+ val < 1"):
        ratio_splits(y, train=0.6, val=0.5)


def test_public_split_comes_from_the_masks_and_skips_unlabelled_nodes() -> None:
    y = np.array([0, 1, -1, 1, 0, 1])
    masks = {
        "train": np.array([1, 1, 0, 0, 0, 0], bool),
        "val": np.array([0, 0, 0, 1, 0, 0], bool),
        "test": np.array([0, 0, 1, 0, 1, 1], bool),
    }
    g = Graph(x=np.zeros((6, 1)), edge_index=np.zeros((2, 0), int), y=y, masks=masks)
    split = public_split(g)
    np.testing.assert_array_equal(split.train, [0, 1])
    np.testing.assert_array_equal(split.val, [3])
    np.testing.assert_array_equal(split.test, [4, 5])
    with pytest.raises(GraphError, match="has no public split"):
        public_split(g.replace(masks={}))


# ------------------------------------------------------------------ probe


def blobs(
    n_per_class: int = 200, classes: int = 4, dim: int = 16, spread: float = 0.3, seed: int = 0
) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    y = np.repeat(np.arange(classes), n_per_class)
    centres = rng.normal(size=(classes, dim)) * 3
    return centres[y] + spread * rng.normal(size=(y.size, dim)), y


def test_probe_separates_separable_classes() -> None:
    z, y = blobs()
    result = linear_probe(z, y, random_splits(y, n_splits=5, n_val=100, n_test=300))
    assert isinstance(result, ProbeResult)
    assert result.mean == pytest.approx(100.0) and result.std == 0.0
    assert len(result.accuracies) == len(result.chosen_c) == 5
    assert str(result) == "100.0 ± 0.0 % over 5 splits"


def test_probe_on_random_embeddings_is_near_chance() -> None:
    rng = np.random.default_rng(1)
    y = rng.integers(5, size=3_000)
    z = rng.normal(size=(3_000, 32))
    result = linear_probe(z, y, random_splits(y, n_splits=5, seed=1))
    assert 14.0 < result.mean < 26.0  # chance is 20 %


@pytest.mark.parametrize("preprocess", ["none", "l2", "standardize"])
def test_newton_solver_agrees_with_liblinear(preprocess: str) -> None:
    z, y = blobs(n_per_class=150, classes=5, dim=40, spread=6.0, seed=2)
    splits = random_splits(y, n_splits=3, n_val=100, n_test=300, seed=2)
    ours = linear_probe(z, y, splits, preprocess=preprocess)
    reference = linear_probe(z, y, splits, preprocess=preprocess, solver="liblinear")
    assert 40.0 < ours.mean < 99.0  # a problem where C matters
    assert ours.chosen_c == reference.chosen_c
    np.testing.assert_allclose(ours.accuracies, reference.accuracies, atol=0.5)


def test_newton_solution_is_liblinears_optimum() -> None:
    from sklearn.linear_model import LogisticRegression

    from paperzoo_graph.evaluation import _newton_ovr

    z, y = blobs(n_per_class=30, classes=3, dim=50, spread=3.0, seed=4)
    xt = np.hstack([z, np.ones((z.shape[0], 1))])
    targets = np.where(y[:, None] == np.arange(3)[None], 1.0, -1.0)
    for c in (0.01, 1.0, 100.0):
        w = xt.T @ _newton_ovr(xt @ xt.T, targets, c, np.zeros_like(targets))
        for k in range(3):
            model = LogisticRegression(solver="liblinear", C=c, tol=1e-10, max_iter=10_000)
            model.fit(z, (y == k).astype(int))
            np.testing.assert_allclose(w[:-1, k], model.coef_[0], rtol=1e-3, atol=1e-5)
            np.testing.assert_allclose(w[-1, k], model.intercept_[0], rtol=1e-3, atol=1e-5)


def test_probe_picks_the_smallest_c_on_ties_and_accepts_one_split_and_tensors() -> None:
    import torch

    z, y = blobs()
    split = random_splits(y, n_splits=1, n_val=100, n_test=300)[0]
    result = linear_probe(torch.from_numpy(z), y, split, Cs=(10.0, 0.1, 1.0))
    assert result.chosen_c == (0.1,)  # every C is perfect: the smallest wins


def _peaked_at(log_c: float, calls: list[float] | None = None):
    """A fake scorer: validation accuracy peaks at C = 10**log_c."""

    def score(c: float) -> tuple[float, float]:
        if calls is not None:
            calls.append(c)
        value = 1.0 / (1.0 + (np.log10(c) - log_c) ** 2)
        return value, value

    return score


DEFAULT_CS = [1e-4, 1e-3, 1e-2, 1e-1, 1.0, 10.0, 100.0]


@pytest.mark.parametrize(
    ("peak", "extend", "chosen", "added"),
    [
        (4.0, 3, 1e4, [1e3, 1e4, 1e5]),  # past the top edge; 1e5 shows 1e4 is the peak
        (-6.0, 3, 1e-6, [1e-5, 1e-6, 1e-7]),  # past the bottom edge (1e-05, not 1.0000000000000001e-05)
        (9.0, 3, 1e5, [1e3, 1e4, 1e5]),  # at most ``extend`` Cs per side
        (4.0, 0, 100.0, []),  # extend=0: exactly the grid
        (0.0, 3, 1.0, []),  # inside the grid: nothing added
    ],
)
def test_the_c_grid_grows_past_the_edge_it_lands_on(
    peak: float, extend: int, chosen: float, added: list[float]
) -> None:
    calls: list[float] = []
    _, _, c = evaluation._select_c(_peaked_at(peak, calls), DEFAULT_CS, extend)
    assert c == chosen
    assert calls == DEFAULT_CS + added


def test_a_flat_bottom_edge_does_not_grow_the_grid() -> None:
    calls: list[float] = []
    _, _, c = evaluation._select_c(lambda c: (calls.append(c) or 0.5, 0.5), DEFAULT_CS, 3)
    assert c == 1e-4 and calls == DEFAULT_CS  # every C ties: the smallest, and no more Cs


def test_probe_passes_extend_grid_to_the_c_selection(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[int] = []
    real = evaluation._select_c

    def spy(score, grid, extend):
        seen.append(extend)
        return real(score, grid, extend)

    monkeypatch.setattr(evaluation, "_select_c", spy)
    z, y = blobs()
    split = random_splits(y, n_splits=1, n_val=100, n_test=300)[0]
    linear_probe(z, y, split)
    linear_probe(z, y, split, extend_grid=0)
    assert seen == [3, 0]
    with pytest.raises(ConfigError, match="extend_grid"):
        linear_probe(z, y, split, extend_grid=-1)


def test_auto_solver_is_newton_up_to_the_threshold_then_liblinear(monkeypatch: pytest.MonkeyPatch) -> None:
    used: list[str] = []
    for name in ("_newton_scorer", "_liblinear_scorer"):
        real = getattr(evaluation, name)

        def spy(*args, _real=real, _name=name):
            used.append(_name)
            return _real(*args)

        monkeypatch.setattr(evaluation, name, spy)
    z, y = blobs(n_per_class=80, classes=3, dim=10, spread=3.0, seed=1)
    small, large = (random_splits(y, n_splits=1, train_per_class=k, n_val=20, n_test=20)[0] for k in (10, 40))
    assert small.train.size <= NEWTON_MAX_TRAIN
    monkeypatch.setattr(evaluation, "NEWTON_MAX_TRAIN", 100)  # large has 120 training nodes
    linear_probe(z, y, [small, large], Cs=(0.1, 1.0))
    assert used == ["_newton_scorer", "_liblinear_scorer"]
    used.clear()
    linear_probe(z, y, [small, large], Cs=(0.1, 1.0), solver="newton")
    assert used == ["_newton_scorer", "_newton_scorer"]


def test_numpy_solves_do_not_hang_after_torch_set_num_threads_2() -> None:
    """The probe's batched np.linalg.solve is numpy's OpenBLAS, not torch's MKL: no hang.

    torch 2.13 + MKL 2024.2 never return from a batched LU of ≥ ~180 × 180 once
    ``torch.set_num_threads(2)`` was called (issue 34); run in a subprocess so a
    hang fails the test instead of blocking the suite.
    """
    script = textwrap.dedent(
        """
        import numpy as np, torch
        torch.set_num_threads(2)
        from paperzoo_graph.evaluation import linear_probe, random_splits
        rng = np.random.default_rng(0)
        g = rng.normal(size=(4, 300, 320))
        a = g @ g.transpose(0, 2, 1) + 0.01 * np.eye(300)
        b = rng.normal(size=(4, 300, 1))
        assert np.allclose(a @ np.linalg.solve(a, b), b)
        y = np.repeat(np.arange(3), 150)
        z = rng.normal(size=(3, 16))[y] * 2 + rng.normal(size=(450, 16))
        split = random_splits(y, n_splits=1, train_per_class=100, n_val=50, n_test=100)[0]
        print(linear_probe(z, y, split, Cs=(0.1, 1.0), solver="newton", extend_grid=0))
        """
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "over 1 splits" in done.stdout


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"embeddings": np.zeros(5)}, "embeddings must be a non-empty"),
        ({"embeddings": np.full((6, 2), np.nan)}, "hold NaN or inf"),
        ({"y": np.zeros(5, int)}, "6 embeddings but 5 labels"),
        ({"Cs": ()}, "Cs must be positive"),
        ({"Cs": (1.0, -1.0)}, "Cs must be positive"),
        ({"preprocess": "whiten"}, "preprocess must be one of"),
        ({"solver": "lbfgs"}, "solver must be"),
        ({"splits": []}, "no splits given"),
        ({"splits": Split(np.array([0, 1]), np.array([2]), np.array([5]))}, "out of range or unlabelled"),
        ({"splits": Split(np.array([0, 1]), np.array([], int), np.array([3]))}, "empty val set"),
    ],
)
def test_probe_rejects_bad_input_with_one_clear_line(kwargs: dict, message: str) -> None:
    args = {
        "embeddings": np.arange(12.0).reshape(6, 2),
        "y": np.array([0, 1, 0, 1, 0, -1]),
        "splits": Split(np.array([0, 1]), np.array([2]), np.array([3])),
    } | kwargs
    with pytest.raises(ConfigError, match=message) as info:
        linear_probe(**args)
    assert "\n" not in str(info.value)

"""Linear-probe evaluation of frozen node embeddings, and the splits it runs on.

Self-supervised graph papers (GRACE, ML²-GCL, PiNGDA, ...) freeze the encoder and
fit a logistic regression on the embeddings of a few labelled nodes. The splits:

* :func:`random_splits` — per class ``train_per_class`` training nodes; then either
  ``n_val``/``n_test`` nodes drawn from the rest (the Planetoid-style "20 per class,
  500 validation, 1000 test" of Cora/CiteSeer) or, with ``val_per_class``,
  ``val_per_class`` validation nodes per class and the rest as test (the
  "20/30 per class" protocol of Amazon and Coauthor, Shchur et al. 2018);
* :func:`public_split` — a graph's own ``train``/``val``/``test`` masks (Planetoid);
* :func:`ratio_splits` — random 10 % / 10 % / 80 % of the labelled nodes (GRACE, GCA).

Unlabelled nodes (``y = -1``) are never in a split. Randomness comes only from
``numpy.random.default_rng(seed)``; split ``i`` of ``n_splits`` is the same
whatever ``n_splits`` is.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal, NamedTuple

import numpy as np

from paperzoo.base import check_int
from paperzoo.errors import ConfigError
from paperzoo_graph.graph import Graph, GraphError

__all__ = [
    "NEWTON_MAX_TRAIN",
    "PREPROCESSING",
    "ProbeResult",
    "Split",
    "linear_probe",
    "public_split",
    "random_splits",
    "ratio_splits",
]

PREPROCESSING = ("none", "l2", "standardize")
"""Choices of :func:`linear_probe`'s ``preprocess``."""

SOLVERS = ("auto", "newton", "liblinear")
NEWTON_MAX_TRAIN = 300
"""``solver="auto"`` uses Newton up to this many training nodes, liblinear above.

Measured on Amazon Photo (8 classes, 256-d embeddings, 7 Cs, one BLAS thread, a
shared 2-core machine; docs/plugins/graph.md): the two break even at 240–280
training nodes; Newton costs O(n³) per step and takes 0.7 s vs 0.4 s at 320,
5.7 s vs 0.6 s at 800 and 30 s vs 2.0 s at 1,376. 300 keeps the exact Newton
solver for every 20-per-class protocol of ML²-GCL's tables (Coauthor CS: 300).
"""


class Split(NamedTuple):
    """Sorted int64 node indices of one train/validation/test split."""

    train: np.ndarray
    val: np.ndarray
    test: np.ndarray


def _labels(y: Any) -> np.ndarray:
    labels = np.asarray(y)
    if labels.ndim != 1 or (labels.size and not np.issubdtype(labels.dtype, np.integer)):
        raise ConfigError(
            f"y must be a 1-D array of integer labels (-1 = unlabelled), got {labels.dtype} {labels.shape}"
        )
    return labels.astype(np.int64, copy=False)


def _check_count(name: str, value: Any, low: int = 0, *, allow_none: bool = False) -> None:
    check_int(name, value, low=low, allow_none=allow_none)


def _sorted(index: np.ndarray) -> np.ndarray:
    return np.sort(index).astype(np.int64, copy=False)


def random_splits(
    y: Any,
    n_splits: int = 20,
    train_per_class: int = 20,
    n_val: int = 500,
    n_test: int | None = 1000,
    val_per_class: int | None = None,
    seed: int = 0,
) -> list[Split]:
    """``n_splits`` random splits with ``train_per_class`` training nodes per class.

    Without ``val_per_class`` (Cora, CiteSeer): the nodes not used for training are
    shuffled; the first ``n_val`` validate and the next ``n_test`` test (all of the
    rest when ``n_test`` is None). With ``val_per_class`` (Amazon, Coauthor:
    ``val_per_class=30, n_test=None``): the next ``val_per_class`` nodes of each class
    validate and the rest test (``n_test`` of them, at random, if given).

    Args:
        y: ``(N,)`` integer labels, ``-1`` for unlabelled nodes.
        n_splits: How many splits.
        train_per_class: Training nodes per class.
        n_val: Validation nodes (ignored with ``val_per_class``).
        n_test: Test nodes, or None for every remaining labelled node.
        val_per_class: Validation nodes per class, or None for ``n_val`` in total.
        seed: Seed of the numpy generator.

    Raises:
        ConfigError: a class has too few labelled nodes, or too few are left for
            ``n_val`` + ``n_test``.
    """
    labels = _labels(y)
    _check_count("n_splits", n_splits, 1)
    _check_count("train_per_class", train_per_class, 1)
    _check_count("n_val", n_val, 0)
    _check_count("n_test", n_test, 1, allow_none=True)
    _check_count("val_per_class", val_per_class, 0, allow_none=True)
    _check_count("seed", seed, 0)
    labelled = np.flatnonzero(labels >= 0)
    if labelled.size == 0:
        raise ConfigError("random_splits: no node has a label (all y are -1)")
    classes, counts = np.unique(labels[labelled], return_counts=True)
    per_class = train_per_class + (val_per_class or 0)
    short = classes[counts < per_class]
    if short.size:
        worst = int(counts.min())
        raise ConfigError(
            f"random_splits: class {int(short[0])} has {worst} labelled nodes, fewer than the "
            f"{per_class} needed per class"
            + (f" ({short.size} classes are short)" if short.size > 1 else ""),
            hint="lower train_per_class (and val_per_class)",
        )
    rest = labelled.size - train_per_class * classes.size - (val_per_class or 0) * classes.size
    needed = (0 if val_per_class is not None else n_val) + (n_test or 1)  # a test set of at least 1
    if needed > rest:
        raise ConfigError(
            f"random_splits: {rest} labelled nodes are left after the per-class nodes, "
            f"but validation and test need {needed}",
            hint="lower n_val or n_test (n_test=None takes all the rest), or train_per_class",
        )
    rng = np.random.default_rng(seed)
    splits = []
    for _ in range(n_splits):
        # a random order, then grouped by class: each class's nodes in random order
        shuffled = labelled[rng.permutation(labelled.size)]
        grouped = shuffled[np.argsort(labels[shuffled], kind="stable")]
        rank = np.arange(grouped.size) - np.repeat(np.cumsum(counts) - counts, counts)
        train = grouped[rank < train_per_class]
        if val_per_class is not None:
            val = grouped[(rank >= train_per_class) & (rank < per_class)]
            test = grouped[rank >= per_class]
            if n_test is not None:
                test = rng.choice(test, size=n_test, replace=False)
        else:
            others = grouped[rank >= train_per_class]
            others = others[rng.permutation(others.size)]
            val = others[:n_val]
            test = others[n_val:] if n_test is None else others[n_val : n_val + n_test]
        splits.append(Split(_sorted(train), _sorted(val), _sorted(test)))
    return splits


def ratio_splits(
    y: Any, train: float = 0.1, val: float = 0.1, n_splits: int = 20, seed: int = 0
) -> list[Split]:
    """Random splits of the labelled nodes by fractions: ``train`` / ``val`` / the rest test.

    The GRACE/GCA protocol is ``train=0.1, val=0.1`` (test 80 %). Each split is a
    fresh permutation of the labelled nodes; the first ``round(train · n)`` train
    and the next ``round(val · n)`` validate. Not stratified.

    Raises:
        ConfigError: fractions outside (0, 1) or leaving no test node.
    """
    labels = _labels(y)
    _check_count("n_splits", n_splits, 1)
    _check_count("seed", seed, 0)
    if not (0.0 < train < 1.0 and 0.0 <= val < 1.0 and train + val < 1.0):
        raise ConfigError(
            f"ratio_splits: need 0 < train, 0 ≤ val and train + val < 1, got train={train!r}, val={val!r}",
            hint="e.g. train=0.1, val=0.1 (GRACE's 10/10/80)",
        )
    labelled = np.flatnonzero(labels >= 0)
    n_train, n_val = round(train * labelled.size), round(val * labelled.size)
    if n_train == 0 or n_train + n_val >= labelled.size:
        raise ConfigError(
            f"ratio_splits: {labelled.size} labelled nodes give {n_train} training and "
            f"{labelled.size - n_train - n_val} test nodes",
            hint="the graph has too few labelled nodes for these fractions",
        )
    rng = np.random.default_rng(seed)
    splits = []
    for _ in range(n_splits):
        order = labelled[rng.permutation(labelled.size)]
        splits.append(
            Split(
                _sorted(order[:n_train]),
                _sorted(order[n_train : n_train + n_val]),
                _sorted(order[n_train + n_val :]),
            )
        )
    return splits


def public_split(graph: Graph) -> Split:
    """The graph's own ``train``/``val``/``test`` masks as a Split (labelled nodes only).

    Raises:
        GraphError: the graph has no such masks (only Planetoid graphs have them).
    """
    missing = [k for k in ("train", "val", "test") if k not in graph.masks]
    if missing:
        raise GraphError(
            f"{graph.name} has no public split (masks {', '.join(missing)} missing)",
            hint="use random_splits(graph.y, ...) or ratio_splits(graph.y) instead",
        )
    labelled = graph.labelled
    return Split(
        *(np.flatnonzero(graph.masks[k] & labelled).astype(np.int64) for k in ("train", "val", "test"))
    )


@dataclass(frozen=True)
class ProbeResult:
    """Test accuracy of a linear probe over several splits.

    Attributes:
        mean: Mean test accuracy over the splits, in %.
        std: Standard deviation (population, ``ddof=0``, as GRACE and ML²-GCL report), in %.
        accuracies: Test accuracy of each split, in %.
        val_accuracies: Best validation accuracy of each split, in %.
        chosen_c: The C chosen on each split's validation set.
    """

    mean: float
    std: float
    accuracies: tuple[float, ...]
    val_accuracies: tuple[float, ...]
    chosen_c: tuple[float, ...]

    def __str__(self) -> str:
        return f"{self.mean:.1f} ± {self.std:.1f} % over {len(self.accuracies)} splits"


def _embeddings(embeddings: Any) -> np.ndarray:
    if hasattr(embeddings, "detach"):  # a torch tensor
        embeddings = embeddings.detach().cpu().numpy()
    z = np.asarray(embeddings, dtype=np.float64)
    if z.ndim != 2 or z.shape[0] == 0 or z.shape[1] == 0:
        raise ConfigError(f"linear_probe: embeddings must be a non-empty (N, d) array, got shape {z.shape}")
    if not np.isfinite(z).all():
        bad = np.flatnonzero(~np.isfinite(z).all(axis=1))
        raise ConfigError(
            f"linear_probe: {bad.size} embeddings hold NaN or inf (rows {', '.join(map(str, bad[:3]))}, ...)",
            hint="the encoder diverged; lower its learning rate",
        )
    return z


def _preprocess(z: np.ndarray, how: str) -> np.ndarray:
    if how == "l2":
        norms = np.linalg.norm(z, axis=1, keepdims=True)
        return z / np.where(norms > 0, norms, 1.0)
    if how == "standardize":
        std = z.std(axis=0)
        return (z - z.mean(axis=0)) / np.where(std > 0, std, 1.0)
    return z


def _newton_ovr(
    k: np.ndarray, targets: np.ndarray, c: float, beta: np.ndarray, *, tol: float = 1e-10, max_iter: int = 100
) -> np.ndarray:
    """Dual coefficients β of one-vs-rest L2 logistic regressions, all classes at once.

    Minimises f(β) = ½ βᵀKβ + C Σᵢ log(1 + e^{−tᵢ (Kβ)ᵢ}) for every column t of
    ``targets`` (±1, n × P), i.e. liblinear's primal ½‖w̃‖² + C Σᵢ log(1 + e^{−tᵢ w̃·x̃ᵢ})
    with w̃ = X̃ᵀβ (representer theorem) and x̃ = [x, 1] (its penalised intercept).
    Newton steps Δβ = −(I + C·D·K)⁻¹ (β − C·t·σ(−t·m)), D = diag σ(m)σ(−m), with
    backtracking; starts from ``beta`` (warm start along the C path).
    """
    n, p = targets.shape
    eye = np.eye(n)

    def objective(b: np.ndarray) -> np.ndarray:
        m = k @ b
        return 0.5 * np.einsum("ip,ip->p", b, m) + c * np.logaddexp(0.0, -targets * m).sum(axis=0)

    value = objective(beta)
    for _ in range(max_iter):
        m = k @ beta
        sig = 1.0 / (1.0 + np.exp(targets * m))  # σ(−t·m)
        r = beta - c * targets * sig  # gradient = K r
        d = sig * (1.0 - sig)
        system = eye[None] + c * d.T[:, :, None] * k[None]  # (P, n, n): I + C·D·K
        step = -np.linalg.solve(system, r.T[:, :, None])[:, :, 0].T
        slope = np.einsum("ip,ip->p", k @ r, step)  # ∇f·Δ = −(Newton decrement)², ≤ 0
        done = -slope <= tol * np.maximum(1.0, np.abs(value))
        if done.all():
            break
        step[:, done], slope[done] = 0.0, 0.0
        size = np.ones(p)
        for _ in range(50):  # backtracking (Armijo), per problem
            candidate = objective(beta + size * step)
            bad = candidate > value + 1e-4 * size * slope
            if not bad.any():
                break
            size = np.where(bad, size / 2, size)
        beta = beta + size * step
        value = objective(beta)
    return beta


Scorer = Callable[[float], tuple[float, float]]
"""Fits the probe at one C; returns (validation, test) accuracy as fractions."""


def _accuracy(pred: np.ndarray, truth: np.ndarray) -> float:
    return float((pred == truth).mean()) if truth.size else 0.0


def _newton_scorer(
    z: np.ndarray, labels: np.ndarray, train: np.ndarray, val: np.ndarray, test: np.ndarray
) -> Scorer:
    classes = np.unique(labels[train])
    xt = np.hstack([z[train], np.ones((train.size, 1))])
    k = xt @ xt.T
    targets = np.where(labels[train][:, None] == classes[None], 1.0, -1.0)
    last: dict[str, Any] = {"c": None, "beta": np.zeros_like(targets)}

    def score(c: float) -> tuple[float, float]:
        # warm start along increasing C; a smaller C than the last one starts from zero
        warm = last["c"] is not None and c > last["c"]
        beta = _newton_ovr(k, targets, c, last["beta"] if warm else np.zeros_like(targets))
        last["c"], last["beta"] = c, beta
        w = xt.T @ beta  # (d + 1, classes)
        return tuple(  # type: ignore[return-value]
            _accuracy(classes[(z[part] @ w[:-1] + w[-1]).argmax(axis=1)], labels[part]) if part.size else 0.0
            for part in (val, test)
        )

    return score


def _liblinear_scorer(
    z: np.ndarray, labels: np.ndarray, train: np.ndarray, val: np.ndarray, test: np.ndarray
) -> Scorer:
    from sklearn.exceptions import ConvergenceWarning
    from sklearn.linear_model import LogisticRegression
    from sklearn.multiclass import OneVsRestClassifier

    def score(c: float) -> tuple[float, float]:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            model = OneVsRestClassifier(LogisticRegression(solver="liblinear", C=c, random_state=0))
            model.fit(z[train], labels[train])
        return tuple(  # type: ignore[return-value]
            _accuracy(model.predict(z[part]), labels[part]) if part.size else 0.0 for part in (val, test)
        )

    return score


def _select_c(score: Scorer, grid: list[float], extend: int) -> tuple[float, float, float]:
    """(validation, test, C) of the best C: highest validation accuracy, smallest C on ties.

    While the best C is the largest (smallest) one tried, the grid grows past that
    edge by its own last (first) ratio, at most ``extend`` times on each side. The
    smallest C grows the grid only if it strictly beats the next one: a flat
    validation curve there (ties, which keep the smallest C) is not an edge.
    """
    results = {c: score(c) for c in sorted(set(grid))}
    grown = {"up": 0, "down": 0}
    while True:
        tried = sorted(results)
        best = max(tried, key=lambda c: results[c][0])  # max keeps the first: the smallest C on ties
        if len(tried) < 2:
            break
        if best == tried[-1] and grown["up"] < extend:
            grown["up"] += 1
            new = best * (tried[-1] / tried[-2])
        elif best == tried[0] and grown["down"] < extend and results[best][0] > results[tried[1]][0]:
            grown["down"] += 1
            new = best * (tried[0] / tried[1])
        else:
            break
        new = float(f"{new:.12g}")  # 1e-4 · 0.1 is 1e-05, not 1.0000000000000001e-05
        if not 0 < new < np.inf or new in results:
            break
        results[new] = score(new)
    return results[best][0], results[best][1], best


def linear_probe(
    embeddings: Any,
    y: Any,
    splits: Split | Sequence[Split],
    Cs: Sequence[float] = (1e-4, 1e-3, 1e-2, 1e-1, 1, 10, 100),
    preprocess: Literal["none", "l2", "standardize"] = "none",
    solver: Literal["auto", "newton", "liblinear"] = "auto",
    extend_grid: int = 3,
) -> ProbeResult:
    """Logistic regression on frozen embeddings: fit on train, pick C on validation, report test.

    For each split and each C of ``Cs``: one-vs-rest L2-regularised logistic
    regression with a penalised intercept (liblinear's model) fitted on the
    training nodes; the C with the highest validation accuracy wins (the smallest
    C on ties); its test accuracy is reported. When the winner is the largest
    (smallest, and strictly better than the next) C tried, the grid grows past
    that edge by its own step (× 10 for the default grid), up to ``extend_grid``
    times on each side; ``extend_grid=0`` keeps exactly ``Cs``. This is ML²-GCL's protocol
    (``main.py`` of a-hou/ML2-GCL: ``LogisticRegression(solver="liblinear",
    multi_class="ovr")``), which feeds the raw embeddings: ``preprocess="none"``.
    GRACE's evaluation L2-normalises each embedding first (``preprocess="l2"``; it
    then picks C by 5-fold cross-validation on the training nodes, which this probe
    does not do). ``"standardize"`` centres and scales each dimension with
    statistics of all N embeddings (no labels used).

    ``solver="newton"`` minimises the same objective exactly, for all classes at
    once, by Newton's method on the n × n kernel of the training nodes,
    warm-started along the C path: 20 Cora splits take well under a second, but
    each step costs O(n³). ``solver="liblinear"`` calls scikit-learn's liblinear
    as ML²-GCL does (to its tolerance 1e-4, so near-ties may be predicted
    differently): slower for small training sets, 15× faster at 1,376 nodes.
    ``solver="auto"`` (default) picks Newton for splits of at most
    :data:`NEWTON_MAX_TRAIN` (300) training nodes and liblinear above.

    Args:
        embeddings: ``(N, d)`` array (or torch tensor) of node embeddings.
        y: ``(N,)`` labels.
        splits: One Split or several; the validation sets must be non-empty
            when more than one C is given.
        Cs: Inverse regularisation strengths to choose from.
        preprocess: ``"none"`` (ML²-GCL), ``"l2"`` (GRACE) or ``"standardize"``.
        solver: ``"auto"``, ``"newton"`` or ``"liblinear"``.
        extend_grid: How many Cs the grid may grow by past each edge (0: never).

    Returns:
        Mean ± std of the test accuracy in %, per split accuracies and chosen Cs.
    """
    from threadpoolctl import threadpool_limits

    z = _embeddings(embeddings)
    labels = _labels(y)
    if labels.shape[0] != z.shape[0]:
        raise ConfigError(f"linear_probe: {z.shape[0]} embeddings but {labels.shape[0]} labels")
    if preprocess not in PREPROCESSING:
        raise ConfigError(
            f"linear_probe: preprocess must be one of {', '.join(PREPROCESSING)}, got {preprocess!r}"
        )
    if solver not in SOLVERS:
        raise ConfigError(f"linear_probe: solver must be one of {', '.join(SOLVERS)}, got {solver!r}")
    check_int("extend_grid", extend_grid, low=0)
    try:
        grid = [float(c) for c in Cs]
    except (TypeError, ValueError):
        grid = []
    if not grid or any(not 0 < c < np.inf for c in grid):
        raise ConfigError(f"linear_probe: Cs must be positive numbers, got {Cs!r}")
    split_list = [splits] if isinstance(splits, Split) else list(splits)
    if not split_list:
        raise ConfigError(
            "linear_probe: no splits given", hint="pass random_splits(y) or [public_split(graph)]"
        )
    for i, split in enumerate(split_list):
        for part, index in zip(Split._fields, split):
            index = np.asarray(index)
            if index.size == 0 and (part != "val" or len(grid) > 1):
                raise ConfigError(f"linear_probe: split {i} has an empty {part} set")
            if index.size and (index.min() < 0 or index.max() >= z.shape[0] or (labels[index] < 0).any()):
                raise ConfigError(
                    f"linear_probe: split {i}'s {part} set holds indices out of range or unlabelled"
                )
    z = _preprocess(z, preprocess)
    results = []
    # many small solves: one BLAS thread each is fastest, and immune to busy cores stalling the others
    with threadpool_limits(1, user_api="blas"):
        for split in split_list:
            parts = [np.asarray(index) for index in split]
            newton = solver == "newton" or (solver == "auto" and parts[0].size <= NEWTON_MAX_TRAIN)
            scorer = (_newton_scorer if newton else _liblinear_scorer)(z, labels, *parts)
            results.append(_select_c(scorer, grid, extend_grid))
    accuracies = [100.0 * acc for _, acc, _ in results]
    return ProbeResult(
        mean=float(np.mean(accuracies)),
        std=float(np.std(accuracies)),
        accuracies=tuple(accuracies),
        val_accuracies=tuple(100.0 * val for val, _, _ in results),
        chosen_c=tuple(c for _, _, c in results),
    )

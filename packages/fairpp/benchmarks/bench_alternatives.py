"""fairpp against the alternatives a user has, on Communities & Crime, in one run.

    python packages/fairpp/benchmarks/bench_alternatives.py --out packages/fairpp/benchmarks/results
    nox -s bench -- fairpp

Methods (all see the group, all fitted on the same 70% and scored on the same 30%):

* the unconstrained bases (ridge, random forest);
* fairpp: ``DemographicParityRegressor`` on each base (fairness 1 and 0.5);
* fairlearn's reductions, ``ExponentiatedGradient`` with ``BoundedGroupLoss``
  (square loss) — the constraint fairlearn supports for regression; it bounds
  each group's loss, not demographic parity;
* an in-processing penalty: ridge with a penalty on group mean differences
  (``PenalizedLinearRegression``).

Reported per method: test MSE, KS and W2 unfairness, fit time; mean over splits.
"""

from __future__ import annotations

import argparse
import time
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from sklearn.ensemble import RandomForestRegressor
from sklearn.linear_model import LinearRegression, RidgeCV
from sklearn.model_selection import train_test_split

from paperzoo.benchmarking import write_benchmark
from paperzoo_fairpp.baselines import PenalizedLinearRegression
from paperzoo_fairpp.datasets import communities_crime
from paperzoo_fairpp.metrics import ks_unfairness, mse, w2_unfairness
from paperzoo_fairpp.regressor import DemographicParityRegressor

Fit = Callable[[np.ndarray, np.ndarray, np.ndarray, int], Callable[[np.ndarray, np.ndarray], np.ndarray]]


def onehot(X: np.ndarray, s: np.ndarray) -> np.ndarray:
    return np.hstack([X, np.eye(2)[s]])


def base(make: Callable[[int], Any]) -> Fit:
    def fit(
        X: np.ndarray, y: np.ndarray, s: np.ndarray, seed: int
    ) -> Callable[[np.ndarray, np.ndarray], np.ndarray]:
        model = make(seed).fit(onehot(X, s), y)
        return lambda X_, s_: model.predict(onehot(X_, s_))

    return fit


def fairpp(make: Callable[[int], Any], fairness: float) -> Fit:
    def fit(
        X: np.ndarray, y: np.ndarray, s: np.ndarray, seed: int
    ) -> Callable[[np.ndarray, np.ndarray], np.ndarray]:
        model = DemographicParityRegressor(make(seed), fairness=fairness, random_state=seed).fit(
            X, y, sensitive_features=s
        )
        return lambda X_, s_: model.predict(X_, s_)

    return fit


def fairlearn_eg(upper_bound: float) -> Fit:
    def fit(
        X: np.ndarray, y: np.ndarray, s: np.ndarray, seed: int
    ) -> Callable[[np.ndarray, np.ndarray], np.ndarray]:
        from fairlearn.reductions import BoundedGroupLoss, ExponentiatedGradient, SquareLoss

        model = ExponentiatedGradient(
            LinearRegression(), constraints=BoundedGroupLoss(SquareLoss(0, 1), upper_bound=upper_bound)
        )
        model.fit(onehot(X, s), y, sensitive_features=s)
        return lambda X_, s_: model.predict(onehot(X_, s_))

    return fit


def penalized(penalty: float) -> Fit:
    def fit(
        X: np.ndarray, y: np.ndarray, s: np.ndarray, seed: int
    ) -> Callable[[np.ndarray, np.ndarray], np.ndarray]:
        model = PenalizedLinearRegression(penalty=penalty, ridge=1e-3).fit(X, y, sensitive_features=s)
        return lambda X_, s_: model.predict(X_, s_)

    return fit


def ridge(seed: int) -> Any:
    return RidgeCV(alphas=np.logspace(-3, 3, 13))


def forest(seed: int) -> Any:
    return RandomForestRegressor(n_estimators=200, min_samples_leaf=2, n_jobs=-1, random_state=seed)


METHODS: dict[str, Fit] = {
    "ridge (unconstrained)": base(ridge),
    "random forest (unconstrained)": base(forest),
    "fairpp: ridge, fairness 1": fairpp(ridge, 1.0),
    "fairpp: ridge, fairness 0.5": fairpp(ridge, 0.5),
    "fairpp: random forest, fairness 1": fairpp(forest, 1.0),
    "fairpp: random forest, fairness 0.5": fairpp(forest, 0.5),
    "fairlearn EG + BoundedGroupLoss (ub 0.02)": fairlearn_eg(0.02),
    "mean-matching penalty (λ = 1)": penalized(1.0),
    "mean-matching penalty (λ = 100)": penalized(100.0),
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "results")
    parser.add_argument("--splits", type=int, default=5)
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    data = communities_crime()
    scores: dict[str, dict[str, list[float]]] = {name: {} for name in METHODS}
    for seed in range(args.splits):
        X_tr, X_te, y_tr, y_te, s_tr, s_te = train_test_split(
            data.X, data.y, data.s, test_size=0.3, random_state=seed, stratify=data.s
        )
        for name, fit in METHODS.items():
            start = time.perf_counter()
            predict = fit(X_tr, y_tr, s_tr, seed)
            seconds = time.perf_counter() - start
            pred = predict(X_te, s_te)
            for key, value in (
                ("mse", mse(y_te, pred)),
                ("ks", ks_unfairness(pred, s_te)),
                ("w2", w2_unfairness(pred, s_te)),
                ("fit_s", seconds),
            ):
                scores[name].setdefault(key, []).append(value)
    rows = [
        {
            "method": name,
            **{k: float(np.mean(v)) for k, v in cells.items()},
            **{f"{k}_std": float(np.std(v)) for k, v in cells.items() if k != "fit_s"},
        }
        for name, cells in scores.items()
    ]
    print(f"{'method':44} {'MSE':>8} {'KS':>7} {'W2':>7} {'fit (s)':>8}")
    for r in rows:
        print(f"{r['method']:44} {r['mse']:8.4f} {r['ks']:7.3f} {r['w2']:7.3f} {r['fit_s']:8.3f}")
    path = write_benchmark(
        args.out / "alternatives.json",
        {"rows": rows},
        command=f"python packages/fairpp/benchmarks/bench_alternatives.py --splits {args.splits}",
        packages=("scikit-learn", "fairlearn"),
        data="Communities & Crime, 70/30 splits stratified by group, seeds 0..splits-1",
    )
    print(f"wrote {path}")


if __name__ == "__main__":
    main()

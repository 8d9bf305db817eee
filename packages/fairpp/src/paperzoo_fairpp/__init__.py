"""paperzoo-fairpp: demographic-parity fair regression by post-processing (ICML 2025).

Names are imported on first use, so that discovering the plugin
(``import paperzoo_fairpp.plugin``) loads neither numpy nor scikit-learn.
"""

from __future__ import annotations

import importlib
from typing import Any

_LAZY = {
    "DemographicParityRegressor": "regressor",
    "GroupwiseRegressor": "regressor",
    "BarycenterPostProcessor": "postprocess",
    "PenalizedLinearRegression": "baselines",
    "ks_unfairness": "metrics",
    "w2_unfairness": "metrics",
    "mse": "metrics",
    "risk_unfairness_curve": "metrics",
    "communities_crime": "datasets",
    "gaussian_linear_groups": "datasets",
    "FairnessError": "groups",
}

__all__ = sorted(_LAZY)


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'paperzoo_fairpp' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"paperzoo_fairpp.{module}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))

"""paperzoo-fairpp: demographic-parity fair regression by post-processing (ICML 2025).

Names are imported on first use, so that discovering the plugin
(``import paperzoo_fairpp.plugin``) loads neither numpy nor scikit-learn.
"""

from __future__ import annotations

from paperzoo.lazy import lazy_exports

_LAZY = {
    "DemographicParityRegressor": ".regressor",
    "GroupwiseRegressor": ".regressor",
    "BarycenterPostProcessor": ".postprocess",
    "PenalizedLinearRegression": ".baselines",
    "ks_unfairness": ".metrics",
    "w2_unfairness": ".metrics",
    "mse": ".metrics",
    "risk_unfairness_curve": ".metrics",
    "communities_crime": ".datasets",
    "gaussian_linear_groups": ".datasets",
    "FairnessError": ".groups",
}

__getattr__, __dir__, __all__ = lazy_exports(__name__, _LAZY)

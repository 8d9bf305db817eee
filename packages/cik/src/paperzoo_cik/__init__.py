"""paperzoo-cik: the Context-is-Key forecasting benchmark (Williams et al., ICML 2025).

>>> from paperzoo_cik import crps
>>> float(crps([[0.0], [2.0]], [1.0])[0])
0.0

Names are imported on first use, so discovering the plugin
(``import paperzoo_cik.plugin``) loads neither numpy nor statsmodels.
"""

from __future__ import annotations

from paperzoo.lazy import lazy_exports

_LAZY = {
    "TaskInstance": ".tasks",
    "Constraint": ".tasks",
    "load_tasks": ".tasks",
    "filter_instances": ".tasks",
    "crps": ".metrics",
    "rcrps": ".metrics",
    "rcrps_instance": ".metrics",
    "rcrps_variance": ".metrics",
    "aggregate": ".metrics",
    "breakdown": ".metrics",
    "Forecaster": ".forecasters",
    "Oracle": ".forecasters",
    "RandomReference": ".forecasters",
    "Naive": ".forecasters",
    "SeasonalNaive": ".forecasters",
    "ExpSmoothing": ".forecasters",
    "ETS": ".forecasters",
    "ARIMA": ".forecasters",
    "make_forecaster": ".forecasters",
    "DirectPrompt": ".direct_prompt",
    "ForecastFailedError": ".direct_prompt",
    "make_prompt": ".direct_prompt",
    "parse_forecast": ".direct_prompt",
}

__getattr__, __dir__, __all__ = lazy_exports(__name__, _LAZY)

"""paperzoo-pessimistic-transfer: zero-shot transfer RL with the pessimism principle (Zhang et al., ICML 2025).

>>> from paperzoo_pessimistic_transfer import frozenlake, optimal_q
>>> round(float(optimal_q(*(lambda m: (m.P, m.r, m.gamma))(frozenlake())).max(1)[0]), 5)
0.41464

Names are imported on first use, so that discovering the plugin
(``import paperzoo_pessimistic_transfer.plugin``) loads neither numpy nor jax.
"""

from __future__ import annotations

from paperzoo.lazy import lazy_exports

_LAZY = {
    "TabularMDP": ".mdps",
    "garnet": ".mdps",
    "frozenlake": ".mdps",
    "recycling_robot": ".mdps",
    "sources_at_discrepancy": ".mdps",
    "bad_source": ".mdps",
    "perturb_kernel": ".mdps",
    "l1_discrepancy": ".mdps",
    "robust_bellman": ".operators",
    "averaged_operator": ".operators",
    "minimal_pessimism_operator": ".operators",
    "solve": ".operators",
    "optimal_q": ".operators",
    "evaluate_policy": ".operators",
    "performance": ".operators",
    "MDTL": ".mdtl",
    "mdtl": ".mdtl",
    "mdtl_numpy": ".mdtl",
    "domain_randomisation": ".baselines",
    "target_only": ".baselines",
}

__getattr__, __dir__, __all__ = lazy_exports(__name__, _LAZY)

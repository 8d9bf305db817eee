"""paperzoo-revdiv: Fraud-Proof Revenue Division on Subscription Platforms (ICML 2025).

>>> from paperzoo_revdiv import ScaledUserProp, synthetic_streams
>>> W = synthetic_streams(1_000, 100, max_artists=20, seed=0)
>>> rule = ScaledUserProp(alpha=0.7, on_empty="drop").fit(W)
>>> round(float(rule.payments_.sum()), 6) == round(0.7 * rule.n_users_, 6)
True

Names are imported on first use, so that ``import paperzoo_revdiv.plugin`` (what
paperzoo does to discover the plugin) stays free of numpy and scipy.
"""

from __future__ import annotations

from paperzoo.lazy import lazy_exports

_LAZY = {
    "GlobalProp": ".rules",
    "UserProp": ".rules",
    "UserEq": ".rules",
    "ScaledUserProp": ".rules",
    "RULES": ".rules",
    "solve_gamma": ".rules",
    "EngagementError": ".engagement",
    "check_engagement": ".engagement",
    "fraud_gain": ".axioms",
    "bribery_gain": ".axioms",
    "sybil_gain": ".axioms",
    "monotonicity_change": ".axioms",
    "pigou_dalton_change": ".axioms",
    "max_suspicious_profit": ".axioms",
    "axiom_report": ".axioms",
    "pay_per_stream": ".metrics",
    "relative_pps": ".metrics",
    "max_envy": ".metrics",
    "synthetic_streams": ".datasets",
    "lastfm_hetrec": ".datasets",
}

__getattr__, __dir__, __all__ = lazy_exports(__name__, _LAZY)

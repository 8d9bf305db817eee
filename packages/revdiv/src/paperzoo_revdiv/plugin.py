"""paperzoo plugin ``revdiv``: hook implementations only.

Everything is named here and pointed at by a ``"module:attr"`` target, imported on
first use: listing plugins never imports numpy or scipy.
"""

from __future__ import annotations

from collections.abc import Callable

from paperzoo import DataFile, DatasetSpec, EstimatorSpec, ExperimentSpec, MetricSpec, PluginInfo, hookimpl

PAPER = "Fraud-Proof Revenue Division on Subscription Platforms"
ALPHAS = [round(0.1 * i, 2) for i in range(1, 11)]
FINE_ALPHAS = [round(0.05 * i, 2) for i in range(1, 21)]

LASTFM_FILE = DataFile(
    path="lastfm-hetrec2011/user_artists.dat",
    url=(
        "https://raw.githubusercontent.com/PPjamies/MusicApp-RecommenderSystem-FriendNetwork/"
        "dc53b8010953362936b209748c465704faec36bc/user_artists.dat"
    ),
    sha256="650cd69d5a68db24b439042557aa539aec47e473273e12cdfdca2cd944b3773a",
    size=1_296_453,
)


@hookimpl
def paperzoo_plugin_info() -> PluginInfo:
    return PluginInfo(
        id="revdiv", framework="numpy", paper=PAPER, venue="ICML 2025", url="https://arxiv.org/abs/2511.04465"
    )


@hookimpl
def paperzoo_register_estimators(register: Callable[[EstimatorSpec], None]) -> None:
    rules = {
        "global-prop": ("GlobalProp", "Pro-rata: φ(j) = αn Σ_i w_ij / Σ_ij w_ij (what platforms use)."),
        "user-prop": ("UserProp", "User-centric: each user's α split by engagement."),
        "user-eq": ("UserEq", "Each user's α split equally over artists streamed (Shapley)."),
        "scaled-user-prop": ("ScaledUserProp", "The paper's rule: user budgets min(γ L_i, 1) summing to αn."),
    }
    for name, (cls, summary) in rules.items():
        register(EstimatorSpec(f"revdiv.{name}", f"paperzoo_revdiv.rules:{cls}", summary, framework="numpy"))


@hookimpl
def paperzoo_register_metrics(register: Callable[[MetricSpec], None]) -> None:
    register(
        MetricSpec(
            "revdiv.pay-per-stream",
            "paperzoo_revdiv.metrics:pay_per_stream",
            "Pay per stream of every artist.",
            formula="PPS_j = φ(j) / Σ_i w_ij",
        )
    )
    register(
        MetricSpec(
            "revdiv.relative-pps",
            "paperzoo_revdiv.metrics:relative_pps",
            "Mean PPS of the top-k and bottom-k artists relative to GlobalProp.",
            formula="mean_{j in top-k} PPS_j / PPS_j^GP",
        )
    )
    register(
        MetricSpec(
            "revdiv.max-envy",
            "paperzoo_revdiv.metrics:max_envy",
            "Maximum envy between artists.",
            formula="ME = max_j PPS_j / min_j PPS_j",
            greater_is_better=False,
        )
    )


@hookimpl
def paperzoo_register_datasets(register: Callable[[DatasetSpec], None]) -> None:
    register(
        DatasetSpec(
            "revdiv.lastfm-hetrec2011",
            "paperzoo_revdiv.datasets:lastfm_hetrec",
            "Last.fm HetRec 2011: 1,892 users × 17,632 artists, play counts.",
            files=(LASTFM_FILE,),
            homepage="https://grouplens.org/datasets/hetrec-2011/",
            license="research use (HetRec 2011 terms)",
            citation="Cantador, Brusilovsky & Kuflik, HetRec 2011 workshop, RecSys 2011.",
        )
    )
    register(
        DatasetSpec(
            "revdiv.synthetic-streams",
            "paperzoo_revdiv.datasets:synthetic_streams",
            "The paper's generator: k ~ U{1..100} artists per user, Poisson(1) streams each.",
            homepage="https://arxiv.org/abs/2511.04465",
            license="generated (no licence needed)",
        )
    )


@hookimpl
def paperzoo_register_experiments(register: Callable[[ExperimentSpec], None]) -> None:
    register(
        ExperimentSpec(
            "revdiv.synthetic",
            "paperzoo_revdiv.experiments:synthetic",
            "Top/bottom-10 pay-per-stream relative to GlobalProp as α varies, synthetic data.",
            settings={
                "n_users": 10_000,
                "n_artists": 1_000,
                "max_artists": 100,
                "rate": 1.0,
                "repeats": 10,
                "alphas": ALPHAS,
                "k": 10,
            },
            scales={
                "smoke": {
                    "n_users": 2_000,
                    "n_artists": 200,
                    "max_artists": 20,
                    "repeats": 2,
                    "alphas": [0.2, 0.4, 0.6, 0.8, 1.0],
                },
                "paper": {"repeats": 100, "alphas": FINE_ALPHAS},
            },
            reproduces="Figure 1(c, d)",
        )
    )
    register(
        ExperimentSpec(
            "revdiv.lastfm",
            "paperzoo_revdiv.experiments:lastfm",
            "Top/bottom-100 pay-per-stream relative to GlobalProp as α varies, Last.fm listening data.",
            settings={"alphas": ALPHAS, "k": 100, "envy_alpha": 0.9},
            scales={"smoke": {"alphas": [0.5, 0.9, 1.0]}, "paper": {"alphas": FINE_ALPHAS}},
            reproduces="Figure 1(a, b), on Last.fm instead of MLHD",
        )
    )
    register(
        ExperimentSpec(
            "revdiv.fraud",
            "paperzoo_revdiv.experiments:fraud",
            "Net gain of bots streaming to a fake artist, per rule (illustrates Table 1).",
            settings={
                "n_users": 10_000,
                "n_artists": 1_000,
                "max_artists": 100,
                "alpha": 0.7,
                "bots": [1, 2, 5, 10, 20, 50, 100, 200],
                "bot_streams": 10_000.0,
            },
            scales={"smoke": {"n_users": 2_000, "n_artists": 200, "max_artists": 20, "bots": [1, 10, 100]}},
            reproduces="Table 1, fraud-proofness column (an illustration; not an experiment of the paper)",
        )
    )

"""paperzoo plugin ``revdiv``: the manifest.

Everything is named here and pointed at by a package-relative ``".module:attr"``
target, imported on first use: listing plugins never imports numpy or scipy.
"""

from __future__ import annotations

from paperzoo import DataFile, Plugin, Ref, Setting

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

plugin = Plugin(
    "revdiv",
    framework="numpy",
    paper="Fraud-Proof Revenue Division on Subscription Platforms",
    venue="ICML 2025",
    url="https://arxiv.org/abs/2511.04465",
)

for name, cls, summary in (
    ("global-prop", "GlobalProp", "Pro-rata: φ(j) = αn Σ_i w_ij / Σ_ij w_ij (what platforms use)."),
    ("user-prop", "UserProp", "User-centric: each user's α split by engagement."),
    ("user-eq", "UserEq", "Each user's α split equally over artists streamed (Shapley)."),
    ("scaled-user-prop", "ScaledUserProp", "The paper's rule: user budgets min(γ L_i, 1) summing to αn."),
):
    plugin.estimator(name, f".rules:{cls}", summary)

plugin.metric("pay-per-stream", ".metrics:pay_per_stream", "Pay per stream of every artist.",
              formula="PPS_j = φ(j) / Σ_i w_ij")  # fmt: skip
plugin.metric("relative-pps", ".metrics:relative_pps",
              "Mean PPS of the top-k and bottom-k artists relative to GlobalProp.",
              formula="mean_{j in top-k} PPS_j / PPS_j^GP")  # fmt: skip
plugin.metric("max-envy", ".metrics:max_envy", "Maximum envy between artists.",
              formula="ME = max_j PPS_j / min_j PPS_j", greater_is_better=False)  # fmt: skip

plugin.dataset(
    "lastfm-hetrec2011",
    ".datasets:lastfm_hetrec",
    "Last.fm HetRec 2011: 1,892 users × 17,632 artists, play counts.",
    files=(LASTFM_FILE,),
    homepage="https://grouplens.org/datasets/hetrec-2011/",
    license="research use (HetRec 2011 terms)",
    citation="Cantador, Brusilovsky & Kuflik, HetRec 2011 workshop, RecSys 2011.",
)
plugin.dataset(
    "synthetic-streams",
    ".datasets:synthetic_streams",
    "The paper's generator: k ~ U{1..100} artists per user, Poisson(1) streams each.",
    homepage="https://arxiv.org/abs/2511.04465",
    license="generated (no licence needed)",
)

ALPHA = Setting(0.5, low=0, high=1, low_open=True)
ALPHA_LIST = Setting(ALPHAS, each=ALPHA, min_len=1, help="the α values of the curve")
POPULATION = {
    "n_users": Setting(10_000, low=1),
    "n_artists": Setting(1_000, low=1),
    "max_artists": Setting(100, low=1, high="n_artists", help="most artists one user streams"),
}
SMALL = {"n_users": 300, "n_artists": 40, "max_artists": 10}
# Fig. 1 is drawn without numbers; these are exact consequences of the paper's results.
THEOREM_REFS = {
    "SCUP top PPS / GlobalProp below threshold": Ref(1.0, "Theorem 4.2 (SCUP = GP below the threshold)",
                                                     kind="theorem"),
    "SCUP top PPS / UserProp top PPS at α = 1": Ref(1.0, "SCUP(α = 1) = UserProp (§4)", kind="theorem"),
}  # fmt: skip

plugin.experiment(
    "synthetic",
    ".experiments:synthetic",
    "Top/bottom-10 pay-per-stream relative to GlobalProp as α varies, synthetic data.",
    settings={
        **POPULATION,
        "rate": Setting(1.0, low=0, low_open=True, help="Poisson mean of streams per (user, artist)"),
        "repeats": Setting(10, low=1),
        "alphas": ALPHA_LIST,
        "k": Setting(10, low=1),
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
    references=THEOREM_REFS,
    test_scale={**SMALL, "repeats": 2, "alphas": [0.3, 1.0], "k": 3},
    reproduces="Figure 1(c, d)",
)
plugin.experiment(
    "lastfm",
    ".experiments:lastfm",
    "Top/bottom-100 pay-per-stream relative to GlobalProp as α varies, Last.fm listening data.",
    settings={
        "alphas": ALPHA_LIST,
        "k": Setting(100, low=1),
        "envy_alpha": Setting(0.9, low=0, high=1, low_open=True),
    },
    scales={"smoke": {"alphas": [0.5, 0.9, 1.0]}, "paper": {"alphas": FINE_ALPHAS}},
    test_scale={"alphas": [0.5, 1.0], "k": 10},
    datasets=("lastfm-hetrec2011",),
    reproduces="Figure 1(a, b), on Last.fm instead of MLHD",
)
plugin.experiment(
    "fraud",
    ".experiments:fraud",
    "Net gain of bots streaming to a fake artist, per rule (illustrates Table 1).",
    settings={
        **POPULATION,
        "alpha": Setting(0.7, low=0, high=1, low_open=True),
        "bots": Setting([1, 2, 5, 10, 20, 50, 100, 200], each=Setting(1, low=1), min_len=1),
        "bot_streams": Setting(10_000.0, low=0, low_open=True),
    },
    scales={"smoke": {"n_users": 2_000, "n_artists": 200, "max_artists": 20, "bots": [1, 10, 100]}},
    test_scale={**SMALL, "bots": [1, 5]},
    reproduces="Table 1, fraud-proofness column (an illustration; not an experiment of the paper)",
)

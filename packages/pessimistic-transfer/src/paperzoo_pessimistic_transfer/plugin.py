"""paperzoo plugin ``pessimistic-transfer``: the manifest (no numpy, no jax at import)."""

from __future__ import annotations

from dataclasses import replace

from paperzoo import Plugin, Ref, Setting

BACKUP = Setting("kappa", choices=("kappa", "exact", "exact-simplex"), help="robust backup (see mdtl.mdtl)")
GAMMA = Setting(0.95, low=0, high=1, high_open=True, help="discount factor")
STEP_SIZE = Setting(0.05, low=0, high=1, low_open=True, help="λ, the local step size")
MDTL_SETTINGS = {
    "local_steps": Setting(5, low=1, help="E, local robust updates per round"),
    "step_size": STEP_SIZE,
    "rounds": Setting(300, low=1, help="T, synchronisations"),
    "sampling": Setting("model", choices=("model", "samples")),
    "n_samples": Setting(1, low=1, help="draws of s' per (s, a) and local step (sample-based)"),
    "mlmc_levels": Setting(4, low=0, help="L, MLMC levels of sample-based MDTL-Max"),
    "backup": BACKUP,
}
MDTL_DEFAULTS = {key: setting.default for key, setting in MDTL_SETTINGS.items()}
"""The paper's defaults: E = 5 local steps, λ = 0.05, 300 rounds (model-based), the κ-penalty backup."""

GARNET = {
    "n_states": Setting(30, low=1),
    "n_actions": Setting(4, low=1),
    "branching": Setting(3, low=1, high="n_states", help="next states per (s, a)"),
    "gamma": GAMMA,
}
DISCREPANCIES = Setting([0.1, 0.2, 0.3, 0.4], each=Setting(0.1, low=0, high=2), min_len=1,
                        help="Γ_k, the L1 distance of each source to the target")  # fmt: skip
SEEDS = Setting(20, low=1)
OFFICIAL = "official code (github.com/ChiZhang136/Zero-shot-transfer)"
LOWER_BOUND = Ref(
    1.0, "the paper's lower-bound results: V_AO ≤ V_MP ≤ V_P₀ at the fixed points", kind="theorem"
)

plugin = Plugin(
    "pessimistic-transfer",
    framework="jax",
    paper="Pessimism Principle Can Be Effective: Towards a Framework for Zero-Shot Transfer Reinforcement Learning",
    venue="ICML 2025",
    url="https://arxiv.org/abs/2505.18447",
)

plugin.estimator(
    "mdtl",
    ".mdtl:MDTL",
    "MDTL-Max / MDTL-Avg: distributed robust Q-iteration over K sources (vmap / shard_map).",
)

GARNET_NU = f"{OFFICIAL}, results/Garnet_exp1 (ν ≈ 0.99–1.0)"
plugin.experiment(
    "garnet",
    ".experiments:garnet_transfer",
    "Garnet(30,4,3): ν of MDTL-Max/Avg, DR and target-only; surrogates as lower bounds.",
    settings={
        **GARNET,
        **MDTL_SETTINGS,
        "discrepancies": DISCREPANCIES,
        "seeds": SEEDS,
        "target_samples": Setting(5, low=1, help="samples per (s, a) of target-only learning"),
        "curve_every": Setting(10, low=1, help="rounds between two points of the curves"),
    },
    scales={"smoke": {"seeds": 3, "rounds": 60}, "paper": {"seeds": 20}},
    references={
        "normalised target performance ν": [
            Ref(0.99, GARNET_NU, kind="official-code", setting="method=MDTL-Max"),
            Ref(0.99, GARNET_NU, kind="official-code", setting="method=MDTL-Avg"),
        ],
        "surrogate ≤ true value (share of seeds)": [
            replace(LOWER_BOUND, setting="method=MDTL-Max"),
            replace(LOWER_BOUND, setting="method=MDTL-Avg"),
        ],
        "MP surrogate ≥ AO surrogate (share of seeds)": LOWER_BOUND,
    },
    test_scale={"seeds": 1, "rounds": 10, "n_states": 8, "curve_every": 5},
    reproduces="Garnet transfer (official code's Garnet_exp1); AO ≤ MP ≤ true value at convergence",
)

FROZENLAKE = f"{OFFICIAL}, results/Frozenlake_exp2"
UNIFORM_BAD = {0.1: 0.997, 0.2: 0.984, 0.3: 0.956, 0.4: 0.966}
"""Mean ν of uniform averaging with one bad source at ε (official code, 10 runs)."""
plugin.experiment(
    "frozenlake",
    ".experiments:frozenlake_bad_source",
    "FrozenLake 8×8 slippery, one bad source (ε 0.1–0.4): MDTL-Max vs uniform averaging.",
    settings={
        "gamma": replace(GAMMA, default=0.99),
        **MDTL_SETTINGS,
        "step_size": replace(STEP_SIZE, default=0.5),
        "rounds": replace(MDTL_SETTINGS["rounds"], default=100),
        "backup": replace(BACKUP, default="exact-simplex"),
        "good_eps": Setting([0.010, 0.015, 0.020], each=Setting(0.01, low=0), help="ε of the good sources"),
        "bad_eps": Setting(
            [0.1, 0.2, 0.3, 0.4], each=Setting(0.1, low=0), min_len=1, help="ε of the bad source"
        ),
        "seeds": replace(SEEDS, default=10),
    },
    scales={"smoke": {"seeds": 2, "bad_eps": [0.1, 0.4], "rounds": 40}, "paper": {"seeds": 20}},
    references={
        "V*(s₀)": Ref(
            0.41464,
            f"{FROZENLAKE} (oracle_performance, exact value iteration)",
            kind="oracle",
            setting="γ=0.99",
        ),
        "normalised target performance ν": [
            Ref(
                1.0,
                f"{FROZENLAKE} (similarity-aware weighting ≈ 1.00)",
                kind="official-code",
                setting="method=MDTL-Max",
            ),
            *(
                Ref(
                    nu,
                    f"{FROZENLAKE} (uniform weights)",
                    kind="official-code",
                    setting=f"method=MDTL-Avg, bad ε={eps}",
                )
                for eps, nu in UNIFORM_BAD.items()
            ),
        ],
        "surrogate ≤ true value (share)": LOWER_BOUND,
    },
    test_scale={"seeds": 1, "rounds": 5, "bad_eps": [0.4]},
    reproduces="FrozenLake bad-source experiment (official code's Frozenlake_exp2): MP vs uniform averaging",
)

plugin.experiment(
    "local-steps",
    ".experiments:local_steps",
    "Garnet: distance to the exact fixed point and ν after T rounds for E ∈ {1, 2, 5, 10}.",
    settings={
        **GARNET,
        "local_steps_grid": Setting([1, 2, 5, 10], each=Setting(1, low=1), min_len=1, help="the values of E"),
        "step_size": STEP_SIZE,
        "rounds": MDTL_SETTINGS["rounds"],
        "discrepancies": DISCREPANCIES,
        "seeds": replace(SEEDS, default=10),
    },
    scales={"smoke": {"seeds": 2, "rounds": 60}, "paper": {"seeds": 20}},
    test_scale={"seeds": 1, "rounds": 10, "n_states": 8, "local_steps_grid": [1, 5]},
    reproduces="the paper's convergence in E (figure; Õ(1/(TK) + (E−1)Γ/T))",
)

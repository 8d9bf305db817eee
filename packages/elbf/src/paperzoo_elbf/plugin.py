"""paperzoo plugin ``elbf``: the manifest (nothing heavy imported).

Everything is named here and pointed at by a package-relative ``".module:attr"``
target, imported on first use: listing plugins never imports numpy, scikit-learn
or faker.
"""

from __future__ import annotations

from paperzoo import DataFile, Plugin, Ref, Setting

URL_FILE = DataFile(
    path="urls/urldata.csv",
    url=(
        "https://raw.githubusercontent.com/Mave-rick31/malicious-url-detection/"
        "14b2fc6b49dd20d2c9169635b9893835eff93d62/urldata.csv"
    ),
    sha256="9d78febafebb5b3876acc41586580be0822c55c0296433335ad6d7980fabd549",
    size=465_411,
)

METHODS = [
    "bloom",
    "lbf",
    "sandwiched",
    "plbf",
    "ensemble",
    "ensemble-independent",
    "ensemble-2",
    "ensemble-shared",
]
BITS_PER_KEY = [2.0, 4.0, 6.0, 8.0, 10.0]
PAPER_BITS_PER_KEY = [2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0]

PAPER = "Ensemble Learned Bloom Filters: Two Oracles are Better than One"
plugin = Plugin(
    "elbf", framework="numpy", paper=PAPER, venue="ICML 2025", url="https://proceedings.mlr.press/v267/"
)

FILTERS = {  # estimator name: (class in filters.py, summary)
    "ensemble-lbf": (
        "EnsembleLearnedBloomFilter",
        "Ensemble learned Bloom filter: several oracles, a backup each.",
    ),
    "lbf": ("LearnedBloomFilter", "Learned Bloom filter (Kraska et al. 2018): oracle + backup filter."),
    "sandwiched-lbf": ("SandwichedLearnedBloomFilter", "Sandwiched LBF (Mitzenmacher 2018)."),
    "plbf": ("PartitionedLearnedBloomFilter", "Partitioned LBF (Vaidya et al. 2021)."),
}
for name, (cls, summary) in FILTERS.items():
    plugin.estimator(name, f".filters:{cls}", summary)

plugin.dataset(
    "malicious-urls",
    ".urls:malicious_urls",
    "7,085 malicious URLs (6,534 distinct), the keys of elbf.urls; no benign URLs.",
    files=(URL_FILE,),
    homepage="https://github.com/Mave-rick31/malicious-url-detection",
    license="unstated by the source repository",
    citation="Mave-rick31/malicious-url-detection, urldata.csv",
)

plugin.metric("bloom-fpr", ".optimise:bloom_fpr",
              "False-positive rate of an optimal Bloom filter of b bits for n keys.",
              formula="ε(b, n) = exp(−(b/n)·ln²2)", greater_is_better=False)  # fmt: skip

BUDGETS = Setting(BITS_PER_KEY, each=Setting(6.0, low=0, low_open=True), min_len=1,
                  help="total bits per key of each structure (oracles included)")  # fmt: skip
METHOD_LIST = Setting.choice_list(METHODS)
NO_FALSE_NEGATIVES = Ref(0, "by construction: every key an oracle rejects is in its backup", kind="theorem")
# The paper's tables could not be read: these FPRs are the toy analytic model's at ρ = 0.
TOY = "toy analytic model at ρ = 0 [reconstructed; not a table of the paper]"
TOY_FPR = [
    Ref(value, TOY, setting=f"method={method}, ρ=0.0, bits/key={bits}")
    for method, bits, value in (
        ("lbf", 2.0, 0.257),
        ("ensemble-2", 2.0, 0.293),
        ("bloom", 6.0, 0.056),
        ("lbf", 6.0, 0.0199),
        ("ensemble", 6.0, 0.0143),
    )
]

plugin.experiment(
    "synthetic",
    ".experiments:synthetic",
    "FPR vs bits/key on the toy model: Bloom, LBF, sandwiched, PLBF and ensembles, at several ρ.",
    settings={
        "n_keys": Setting(10_000, low=1),
        "n_holdout": Setting(100_000, low=1, help="held-out non-keys the thresholds are chosen on"),
        "n_test": Setting(1_000_000, low=1, help="fresh non-keys the FPR is measured on"),
        "n_calibration": Setting(1_000_000, low=1, help="other fresh non-keys for the analytic FPR"),
        "bits_per_key": BUDGETS,
        "correlations": Setting(
            [0.0, 0.5, 0.9],
            each=Setting(0.0, low=0, high=1),
            min_len=1,
            help="score correlations ρ between the oracle families",
        ),
        "sizes_per_key": Setting(
            [0.5, 1.0, 2.0, 4.0, 8.0],
            each=Setting(1.0, low=0, low_open=True),
            min_len=1,
            help="oracle sizes of each family, in bits per key",
        ),
        "d0": Setting(1.2, low=0, help="score separation of the smallest oracle"),
        "slope": Setting(0.6, low=0, help="growth of the separation per doubling of the oracle size"),
        "methods": METHOD_LIST,
    },
    scales={
        "smoke": {
            "n_keys": 2_000,
            "n_holdout": 20_000,
            "n_test": 100_000,
            "n_calibration": 100_000,
            "bits_per_key": [2.0, 6.0],
            "correlations": [0.0],
        },
        "paper": {
            "bits_per_key": PAPER_BITS_PER_KEY,
            "correlations": [0.0, 0.25, 0.5, 0.75, 0.9, 1.0],
        },
    },
    references={"FPR": TOY_FPR, "false negatives": NO_FALSE_NEGATIVES},
    test_scale={
        "n_keys": 300,
        "n_holdout": 3_000,
        "n_test": 5_000,
        "bits_per_key": [6.0],
        "sizes_per_key": [0.5, 2.0],
    },
    reproduces="a reconstructed toy model (ensemble vs best single LBF at 2 and 6 bits/key) [reconstructed]",
)
plugin.experiment(
    "urls",
    ".experiments:urls",
    "FPR vs bits/key with malicious URLs as keys and URL oracles on disjoint features.",
    settings={
        "n_train": Setting(20_000, low=1, help="synthetic non-keys the oracles are trained on"),
        "n_holdout": Setting(50_000, low=1),
        "n_test": Setting(200_000, low=1),
        "n_calibration": Setting(200_000, low=1),
        "bits_per_key": BUDGETS,
        "host_bits": Setting(
            [6, 7, 8, 9, 10],
            each=Setting(6, low=1, high=30),
            min_len=1,
            help="log₂ of the hashed host 3-gram features of each host oracle",
        ),
        "tree_depths": Setting(
            [2, 3, 4, 6, 8], each=Setting(2, low=1), min_len=1, help="depths of the shape trees"
        ),
        "methods": METHOD_LIST,
    },
    scales={
        "smoke": {
            "n_train": 4_000,
            "n_holdout": 8_000,
            "n_test": 20_000,
            "n_calibration": 20_000,
            "bits_per_key": [4.0, 8.0],
            "host_bits": [6, 8],
            "tree_depths": [2, 4],
        },
        "paper": {"n_test": 1_000_000, "bits_per_key": PAPER_BITS_PER_KEY},
    },
    references={"false negatives": NO_FALSE_NEGATIVES},
    test_scale={
        "n_train": 1_000,
        "n_holdout": 2_000,
        "n_test": 2_000,
        "bits_per_key": [8.0],
        "host_bits": [6],
        "tree_depths": [2],
        "methods": ["bloom", "lbf", "ensemble"],
    },
    datasets=("malicious-urls",),
    reproduces="the paper's motivating task (malicious-URL filtering); no paper number",
)

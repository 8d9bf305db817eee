"""paperzoo plugin ``elbf``: hook implementations only (nothing heavy imported)."""

from __future__ import annotations

from collections.abc import Callable

from paperzoo import DatasetSpec, EstimatorSpec, ExperimentSpec, MetricSpec, PluginInfo, hookimpl
from paperzoo.data import DataFile

PAPER = "Ensemble Learned Bloom Filters: Two Oracles are Better than One"

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


@hookimpl
def paperzoo_plugin_info() -> PluginInfo:
    return PluginInfo(
        id="elbf",
        framework="numpy",
        paper=PAPER,
        venue="ICML 2025",
        url="https://proceedings.mlr.press/v267/",
    )


@hookimpl
def paperzoo_register_estimators(register: Callable[[EstimatorSpec], None]) -> None:
    for name, cls, summary in (
        (
            "ensemble-lbf",
            "EnsembleLearnedBloomFilter",
            "Ensemble learned Bloom filter: several oracles, a backup each.",
        ),
        ("lbf", "LearnedBloomFilter", "Learned Bloom filter (Kraska et al. 2018): oracle + backup filter."),
        ("sandwiched-lbf", "SandwichedLearnedBloomFilter", "Sandwiched LBF (Mitzenmacher 2018)."),
        ("plbf", "PartitionedLearnedBloomFilter", "Partitioned LBF (Vaidya et al. 2021)."),
    ):
        register(EstimatorSpec(f"elbf.{name}", f"paperzoo_elbf.filters:{cls}", summary, framework="numpy"))


@hookimpl
def paperzoo_register_metrics(register: Callable[[MetricSpec], None]) -> None:
    register(
        MetricSpec(
            "elbf.bloom-fpr",
            "paperzoo_elbf.optimise:bloom_fpr",
            "False-positive rate of an optimal Bloom filter of b bits for n keys.",
            formula="ε(b, n) = exp(−(b/n)·ln²2)",
            greater_is_better=False,
        )
    )


@hookimpl
def paperzoo_register_datasets(register: Callable[[DatasetSpec], None]) -> None:
    register(
        DatasetSpec(
            "elbf.malicious-urls",
            "paperzoo_elbf.urls:malicious_urls",
            "7,085 malicious URLs (6,534 distinct), the keys of elbf.urls; no benign URLs.",
            files=(URL_FILE,),
            homepage="https://github.com/Mave-rick31/malicious-url-detection",
            license="unstated by the source repository",
            citation="Mave-rick31/malicious-url-detection, urldata.csv",
        )
    )


@hookimpl
def paperzoo_register_experiments(register: Callable[[ExperimentSpec], None]) -> None:
    register(
        ExperimentSpec(
            "elbf.synthetic",
            "paperzoo_elbf.experiments:synthetic",
            "FPR vs bits/key on the toy model: Bloom, LBF, sandwiched, PLBF and ensembles, at several ρ.",
            settings={
                "n_keys": 10_000,
                "n_holdout": 100_000,
                "n_test": 1_000_000,
                "n_calibration": 1_000_000,
                "bits_per_key": [2.0, 4.0, 6.0, 8.0, 10.0],
                "correlations": [0.0, 0.5, 0.9],
                "sizes_per_key": [0.5, 1.0, 2.0, 4.0, 8.0],
                "d0": 1.2,
                "slope": 0.6,
                "methods": METHODS,
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
                    "bits_per_key": [2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0],
                    "correlations": [0.0, 0.25, 0.5, 0.75, 0.9, 1.0],
                },
            },
            reproduces="the note's toy model (ensemble vs best single LBF at 2 and 6 bits/key) [reconstructed]",
        )
    )
    register(
        ExperimentSpec(
            "elbf.urls",
            "paperzoo_elbf.experiments:urls",
            "FPR vs bits/key with malicious URLs as keys and URL oracles on disjoint features.",
            settings={
                "n_train": 20_000,
                "n_holdout": 50_000,
                "n_test": 200_000,
                "n_calibration": 200_000,
                "bits_per_key": [2.0, 4.0, 6.0, 8.0, 10.0],
                "host_bits": [6, 7, 8, 9, 10],
                "tree_depths": [2, 3, 4, 6, 8],
                "methods": METHODS,
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
                "paper": {
                    "n_test": 1_000_000,
                    "bits_per_key": [2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0],
                },
            },
            reproduces="the paper's motivating task (malicious-URL filtering); no paper number",
        )
    )

"""paperzoo-elbf: ensemble learned Bloom filters (Lin & Chen, ICML 2025) and their baselines.

>>> from paperzoo_elbf import BloomFilter
>>> bf = BloomFilter.for_capacity(1_000, 0.01).add(range(1_000))
>>> bool(bf.contains(range(1_000)).all())
True

Names are imported on first use, so that discovering the plugin
(``import paperzoo_elbf.plugin``) loads neither numpy nor scikit-learn.
"""

from __future__ import annotations

from paperzoo.lazy import lazy_exports

_LAZY = {
    "BloomFilter": ".bloom",
    "hash_keys": ".hashing",
    "LearnedBloomFilter": ".filters",
    "SandwichedLearnedBloomFilter": ".filters",
    "PartitionedLearnedBloomFilter": ".filters",
    "EnsembleLearnedBloomFilter": ".filters",
    "BudgetError": ".filters",
    "SklearnOracle": ".oracles",
    "TableOracle": ".oracles",
    "MemoOracle": ".oracles",
    "model_size_in_bits": ".oracles",
    "bloom_fpr": ".optimise",
    "compare_methods": ".compare",
    "synthetic_scores": ".synthetic",
    "malicious_urls": ".urls",
    "benign_urls": ".urls",
    "url_oracles": ".urls",
}

__getattr__, __dir__, __all__ = lazy_exports(__name__, _LAZY)

"""The core's contract suites on the filters, experiments and dataset; URL data and oracles."""

from __future__ import annotations

import subprocess
import sys
from collections import Counter
from typing import Any, ClassVar

import numpy as np
import pytest

from paperzoo.data import locate_unverified
from paperzoo.errors import DataError
from paperzoo.testing import DatasetContract, EstimatorContract, ExperimentContract
from paperzoo_elbf import plugin
from paperzoo_elbf.filters import EnsembleLearnedBloomFilter, LearnedBloomFilter
from paperzoo_elbf.synthetic import synthetic_scores

DATA = synthetic_scores(300, 3_000, 500, sizes=[150, 300], seed=1)
X = np.concatenate([DATA.keys, DATA.holdout])
Y = np.r_[np.ones(300, dtype=int), np.zeros(3_000, dtype=int)]

needs_urls = pytest.mark.skipif(
    locate_unverified(plugin.URL_FILE) is None,
    reason="urls/urldata.csv not available (set PAPERZOO_DATA_MIRROR)",
)


class TestLearnedBloomFilterContract(EstimatorContract):
    def make_estimator(self) -> LearnedBloomFilter:
        return LearnedBloomFilter(DATA.oracles[1], bits_per_key=6)

    def fit_args(self) -> tuple[Any, ...]:
        return (X, Y)

    def fitted_output(self, estimator: LearnedBloomFilter) -> Any:
        return estimator.predict(DATA.test)


class TestEnsembleContract(EstimatorContract):
    def make_estimator(self) -> EnsembleLearnedBloomFilter:
        return EnsembleLearnedBloomFilter(list(DATA.oracles), groups=list(DATA.groups), bits_per_key=6)

    def fit_args(self) -> tuple[Any, ...]:
        return (X, Y)

    def fitted_output(self, estimator: EnsembleLearnedBloomFilter) -> Any:
        return estimator.predict(DATA.test)


class TestSyntheticExperiment(ExperimentContract):
    plugin = plugin
    experiment = "elbf.synthetic"
    smoke_overrides: ClassVar[dict[str, Any]] = {"n_keys": 300, "n_holdout": 3_000, "n_test": 5_000,
                                                 "bits_per_key": [6.0], "sizes_per_key": [0.5, 2.0]}  # fmt: skip


@needs_urls
class TestUrlExperiment(ExperimentContract):
    plugin = plugin
    experiment = "elbf.urls"
    smoke_overrides: ClassVar[dict[str, Any]] = {
        "n_train": 1_000, "n_holdout": 2_000, "n_test": 2_000, "bits_per_key": [8.0], "host_bits": [6],
        "tree_depths": [2], "methods": ["bloom", "lbf", "ensemble"],
    }  # fmt: skip


class TestUrlDataset(DatasetContract):
    plugin = plugin
    dataset = "elbf.malicious-urls"


def test_plugin_module_imports_no_numerics() -> None:
    code = f"import sys, {plugin.__name__}; print(sorted({{'numpy', 'sklearn', 'faker'}} & set(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


@needs_urls
def test_benign_urls_keep_the_keys_structure_and_never_repeat_a_key() -> None:
    from paperzoo_elbf.urls import benign_urls, host_of, malicious_urls, shape_features

    keys = malicious_urls()
    assert len(keys) == 6_534 and len(set(keys)) == len(keys)
    benign = benign_urls(20_000, keys, seed=3)
    assert benign == benign_urls(20_000, keys, seed=3) and len(set(benign)) == 20_000
    assert not set(benign) & set(keys)
    tlds = Counter(host_of(u).rsplit(".", 1)[-1] for u in keys)
    benign_tlds = Counter(host_of(u).rsplit(".", 1)[-1] for u in benign)
    top = [t for t, _ in tlds.most_common(5)]
    for t in top:  # the TLD mix follows the keys'
        assert benign_tlds[t] / 20_000 == pytest.approx(tlds[t] / len(keys), abs=0.02)
    f_keys, f_benign = shape_features(keys), shape_features(benign)
    assert f_keys.shape == (len(keys), 16)
    np.testing.assert_allclose(f_benign[:, 0].mean(), f_keys[:, 0].mean(), rtol=0.1)  # URL length


def test_load_labelled_urls_reads_good_rows_and_rejects_bad_labels(tmp_path: Any) -> None:
    from paperzoo_elbf.urls import load_labelled_urls

    good = tmp_path / "ok.tsv"
    good.write_text("url\tlabel\na.com\tbad\nb.org\tgood\na.com\tbad\n")
    assert load_labelled_urls(good) == (["a.com"], ["b.org"])
    bad = tmp_path / "bad.tsv"
    bad.write_text("url\tlabel\na.com\tevil\n")
    with pytest.raises(DataError, match="bad.tsv:2: label 'evil'"):
        load_labelled_urls(bad)
    (tmp_path / "nohead.tsv").write_text("a.com,bad\n")
    with pytest.raises(DataError, match="url<TAB>label"):
        load_labelled_urls(tmp_path / "nohead.tsv")

"""The core's generated contract tests for everything the elbf manifest declares; URL data."""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

import numpy as np
import pytest

from paperzoo.data import locate_unverified
from paperzoo.errors import ConfigError, DataError
from paperzoo.testing import Example, PluginContract
from paperzoo_elbf.filters import (
    EnsembleLearnedBloomFilter,
    LearnedBloomFilter,
    PartitionedLearnedBloomFilter,
    SandwichedLearnedBloomFilter,
)
from paperzoo_elbf.plugin import METHODS, URL_FILE, plugin
from paperzoo_elbf.synthetic import synthetic_scores

DATA = synthetic_scores(300, 3_000, 500, sizes=[150, 300], seed=1)
X = np.concatenate([DATA.keys, DATA.holdout])
Y = np.r_[np.ones(300, dtype=int), np.zeros(3_000, dtype=int)]
SINGLE = {
    "lbf": LearnedBloomFilter,
    "sandwiched-lbf": SandwichedLearnedBloomFilter,
    "plbf": PartitionedLearnedBloomFilter,
}

needs_urls = pytest.mark.skipif(
    locate_unverified(URL_FILE) is None,
    reason="urls/urldata.csv not available (set PAPERZOO_DATA_MIRROR)",
)


def _answers(estimator: Any) -> Any:
    return estimator.predict(DATA.test)


class TestElbf(PluginContract):
    plugin = plugin

    def estimator_example(self, name: str) -> Example:
        if name == "ensemble-lbf":
            estimator = EnsembleLearnedBloomFilter(
                list(DATA.oracles), groups=list(DATA.groups), bits_per_key=6
            )
        else:
            estimator = SINGLE[name](DATA.oracles[1], bits_per_key=6)
        return Example(estimator, fit_args=(X, Y), fitted_output=_answers)


def test_the_manifest_names_every_method() -> None:
    from paperzoo_elbf import compare

    assert list(compare.METHODS) == METHODS


BAD = {  # (experiment, setting, value): what the one-line error says
    ("synthetic", "bits_per_key", ()): "bits_per_key must be a list of ≥ 1",
    ("synthetic", "bits_per_key", (2.0, 0.0)): "bits_per_key[1] must be a number > 0",
    ("synthetic", "methods", ("lbf", "magic")): "methods[1] must be one of 'bloom'",
    ("synthetic", "n_test", 0): "n_test must be an integer ≥ 1",
    ("synthetic", "correlations", (1.5,)): "correlations[0] must be a number in [0, 1]",
    ("synthetic", "sizes_per_key", (0.0,)): "sizes_per_key[0] must be a number > 0",
    ("urls", "host_bits", (0,)): "host_bits[0] must be an integer in [1, 30]",
    ("urls", "tree_depths", ()): "tree_depths must be a list of ≥ 1",
    ("urls", "n_train", -1): "n_train must be an integer ≥ 1",
}


@pytest.mark.parametrize(("case", "message"), BAD.items(), ids=[f"{e}-{k}" for e, k, _ in BAD])
def test_each_bad_setting_is_refused_in_one_line(case: tuple, message: str) -> None:
    experiment, key, value = case
    spec = {s.name: s for s in plugin.experiments}[f"elbf.{experiment}"]
    with pytest.raises(ConfigError, match=re.escape(message)):
        spec.settings_for("smoke", {key: list(value) if isinstance(value, tuple) else value})


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

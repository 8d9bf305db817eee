"""paperzoo's generated contract tests, run against this plugin, and its own tests."""

import numpy as np
import pytest

from paperzoo.errors import ConfigError
from paperzoo.testing import Example, PluginContract
from paperzoo_hello.mean import ShrunkMean
from paperzoo_hello.plugin import plugin


class TestHello(PluginContract):
    plugin = plugin

    def estimator_example(self, name):
        return Example(ShrunkMean(shrinkage=0.25), fit_args=(np.arange(10.0),))


def test_shrinkage_zero_is_the_sample_mean():
    assert ShrunkMean().fit([1.0, 2.0, 6.0]).mean_ == pytest.approx(3.0)


def test_rejects_shrinkage_above_one():
    with pytest.raises(ConfigError, match=r"shrinkage must be a number in \[0, 1\], got 1.5"):
        ShrunkMean(shrinkage=1.5).fit([1.0])

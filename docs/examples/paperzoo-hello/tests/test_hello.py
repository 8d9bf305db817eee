"""paperzoo's contract suites, run against this plugin."""

import subprocess
import sys
from typing import ClassVar

import numpy as np
import pytest

from paperzoo.errors import ConfigError
from paperzoo.testing import EstimatorContract, ExperimentContract
from paperzoo_hello import plugin
from paperzoo_hello.mean import ShrunkMean


class TestShrunkMean(EstimatorContract):
    def make_estimator(self):
        return ShrunkMean(shrinkage=0.25)

    def fit_args(self):
        return (np.arange(10.0),)


class TestMeanExperiment(ExperimentContract):
    plugin = plugin
    experiment = "hello.mean"
    smoke_overrides: ClassVar[dict] = {"n": 50}  # keep the test under a second


def test_shrinkage_zero_is_the_sample_mean():
    assert ShrunkMean().fit([1.0, 2.0, 6.0]).mean_ == pytest.approx(3.0)


def test_rejects_shrinkage_above_one():
    with pytest.raises(ConfigError):
        ShrunkMean(shrinkage=1.5).fit([1.0])


def test_plugin_module_imports_nothing_heavy():
    code = "import sys, paperzoo_hello.plugin; print('numpy' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False", "plugin.py imports numpy (directly or through its imports)"

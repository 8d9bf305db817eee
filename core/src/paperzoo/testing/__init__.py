"""Test support for plugin authors: contract suites and fixtures.

Subclass a contract in your package's tests, the way scikit-learn's
``check_estimator`` is used::

    from paperzoo.testing import EstimatorContract, ExperimentContract
    from paperzoo_mypaper import plugin
    from paperzoo_mypaper.rules import MyRule

    class TestMyRule(EstimatorContract):
        def make_estimator(self):
            return MyRule(alpha=0.5)

        def fit_args(self):
            return (make_small_instance(),)

    class TestSweep(ExperimentContract):
        plugin = plugin
        experiment = "mypaper.sweep"
        smoke_overrides = {"n": 50}   # keep the test under a few seconds

The fixtures ``paperzoo_home`` (a temporary ``PAPERZOO_HOME``) and
``paperzoo_host`` (a fresh host with no installed plugins) are available to every
test once paperzoo is installed (pytest plugin ``paperzoo``).
"""

from paperzoo.testing.contracts import DatasetContract, EstimatorContract, ExperimentContract
from paperzoo.testing.fixtures import fake_distribution, isolated_host

__all__ = [
    "DatasetContract",
    "EstimatorContract",
    "ExperimentContract",
    "fake_distribution",
    "isolated_host",
]

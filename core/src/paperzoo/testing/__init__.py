"""Test support for plugin authors: contract suites and fixtures.

One class generates every contract test of a plugin from its manifest, the way
scikit-learn's ``parametrize_with_checks`` is used::

    from paperzoo.testing import Example, PluginContract
    from paperzoo_mypaper.plugin import plugin
    from paperzoo_mypaper.rules import MyRule

    class TestMyPaper(PluginContract):
        plugin = plugin

        def estimator_example(self, name):      # one per registered estimator
            return Example(MyRule(alpha=0.5), fit_args=(make_small_instance(),))

The single-component suites (``EstimatorContract``, ``DatasetContract``,
``ExperimentContract``) remain for components that no manifest declares.

The fixtures ``paperzoo_home`` (a temporary ``PAPERZOO_HOME``) and
``paperzoo_host`` (a fresh host with no installed plugins) are available to every
test once paperzoo is installed (pytest plugin ``paperzoo``).
"""

from paperzoo.testing.contracts import DatasetContract, EstimatorContract, ExperimentContract
from paperzoo.testing.fixtures import fake_distribution, isolated_host
from paperzoo.testing.plugin_contract import HEAVY_MODULES, Example, PluginContract

__all__ = [
    "HEAVY_MODULES",
    "DatasetContract",
    "EstimatorContract",
    "Example",
    "ExperimentContract",
    "PluginContract",
    "fake_distribution",
    "isolated_host",
]

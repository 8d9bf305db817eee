"""The core's generated contract for the mlflow manifest.

It declares raw lifecycle hooks only, so what runs is the import guard (plugin.py
imports no mlflow) and the check that it registers nothing else.
"""

from __future__ import annotations

from paperzoo.testing import PluginContract
from paperzoo_mlflow.plugin import plugin


class TestMlflowManifest(PluginContract):
    plugin = plugin

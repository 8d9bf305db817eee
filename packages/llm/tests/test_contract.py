"""The core's generated contract tests for the llm manifest (it declares hooks only)."""

from __future__ import annotations

from paperzoo.testing import PluginContract
from paperzoo_llm.plugin import plugin


class TestLlm(PluginContract):
    plugin = plugin

"""The core's contract suites on the experiment and the two corpora; the import guard."""

from __future__ import annotations

import subprocess
import sys
from typing import Any, ClassVar

from paperzoo.testing import DatasetContract, ExperimentContract
from paperzoo_laser import plugin


class TestLMExperiment(ExperimentContract):
    plugin = plugin
    experiment = "laser.lm"
    smoke_overrides: ClassVar[dict[str, Any]] = {"seeds": 1, "d_model": 16, "n_heads": 2, "context": 16,
                                                 "steps": 6, "eval_every": 3, "eval_batches": 1}  # fmt: skip


class TestTinyShakespeare(DatasetContract):
    plugin = plugin
    dataset = "laser.tinyshakespeare"


class TestWikiText2(DatasetContract):
    plugin = plugin
    dataset = "laser.wikitext-2"


def test_plugin_module_imports_no_framework() -> None:
    code = f"import sys, {plugin.__name__}; print(sorted({{'numpy', 'torch', 'jax', 'flax'}} & set(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]", f"importing the plugin module imported {out.stdout.strip()}"

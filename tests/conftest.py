"""Fixtures of the cross-package tests."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

import pytest

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="session")
def catalog() -> ModuleType:
    """``tools/catalog.py``, loaded from its file (``tools/`` is not a package)."""
    spec = importlib.util.spec_from_file_location("paperzoo_tools_catalog", REPO / "tools" / "catalog.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module

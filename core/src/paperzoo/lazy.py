"""Names imported on first use (PEP 562), for packages that must stay cheap to import.

A plugin's ``__init__.py`` exports its public API without importing numpy, torch
or jax when paperzoo discovers the plugin::

    from paperzoo.lazy import lazy_exports

    __getattr__, __dir__, __all__ = lazy_exports(__name__, {"MyEstimator": ".estimators"})

A module starting with ``"."`` is relative to the package. The first access imports
the module and caches the value in the package, so later accesses are plain
attribute lookups.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["lazy_exports"]


def lazy_exports(
    package: str, exports: Mapping[str, str]
) -> tuple[Callable[[str], Any], Callable[[], list[str]], list[str]]:
    """``(__getattr__, __dir__, __all__)`` for ``package``, exporting ``name → module``."""
    table = dict(exports)

    def getattr_(name: str) -> Any:
        module = table.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module, package), name)
        setattr(sys.modules[package], name, value)
        return value

    def dir_() -> list[str]:
        return sorted(set(vars(sys.modules[package])) | set(table))

    return getattr_, dir_, sorted(table)

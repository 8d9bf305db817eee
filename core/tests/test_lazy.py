"""paperzoo.lazy: names imported on first use."""

from __future__ import annotations

import subprocess
import sys
import types

import pytest

import paperzoo
from paperzoo.lazy import lazy_exports


def test_core_names_load_on_first_use_and_are_cached() -> None:
    code = (
        "import sys, paperzoo; before = 'paperzoo.results' in sys.modules; r = paperzoo.Result; "
        "print(before, 'paperzoo.results' in sys.modules, 'Result' in vars(paperzoo))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "True", "True"]


def test_unknown_names_raise_attribute_error_and_dir_lists_exports() -> None:
    with pytest.raises(AttributeError, match="module 'paperzoo' has no attribute 'Nope'"):
        paperzoo.Nope  # noqa: B018
    assert {"Result", "hookimpl", "__version__"} <= set(dir(paperzoo))
    assert not hasattr(paperzoo, "Nope")


def test_relative_and_absolute_modules(monkeypatch: pytest.MonkeyPatch) -> None:
    package = types.ModuleType("fakepkg")
    package.__path__ = []  # a package, so ".x" could resolve under it
    monkeypatch.setitem(sys.modules, "fakepkg", package)
    getattr_, dir_, all_ = lazy_exports("fakepkg", {"Row": "paperzoo.results", "sqrt": "math"})
    assert all_ == ["Row", "sqrt"]
    from paperzoo.results import Row

    assert getattr_("Row") is Row
    assert package.Row is Row  # cached in the package
    assert "sqrt" in dir_()
    with pytest.raises(AttributeError, match="module 'fakepkg' has no attribute 'x'"):
        getattr_("x")

"""First-party plugins the core knows of, installed or not, for install hints.

``known_plugins.toml`` beside this module is generated from the monorepo's
``plugins.toml`` (``python tools/catalog.py table --write``), the way nerfstudio
lists methods that are known but not installed.
"""

from __future__ import annotations

import functools
import tomllib
from importlib import resources
from typing import Any

__all__ = ["install_hint", "known_plugins"]


@functools.cache
def known_plugins() -> dict[str, dict[str, Any]]:
    """``{id: {"distribution", "kind", "title"}}`` of every first-party plugin."""
    text = resources.files("paperzoo").joinpath("known_plugins.toml").read_text(encoding="utf-8")
    return tomllib.loads(text)


def install_hint(name: str, installed: set[str]) -> str | None:
    """``"pip install paperzoo-els"`` when ``name`` (``"els.mnist"`` or ``"els"``) belongs to a
    first-party plugin that is not in ``installed``; else ``None``."""
    known = known_plugins()
    pid = next(
        (p for p in sorted(known, key=len, reverse=True) if name == p or name.startswith(f"{p}.")), None
    )
    if pid is None or pid in installed:
        return None
    return f"{name!r} comes from the plugin {pid}, which is not installed: pip install {known[pid]['distribution']}"

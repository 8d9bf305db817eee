"""Finding installed plugins without importing them.

Each plugin package declares one entry point in the group ``paperzoo.plugins``,
pointing at its light ``plugin`` module::

    [project.entry-points."paperzoo.plugins"]
    revdiv = "paperzoo_revdiv.plugin"

Listing reads package metadata only. Which entry points are loaded is controlled
like pytest and llm do it:

* ``PAPERZOO_LOAD_PLUGINS=a,b`` loads only these (an empty value loads none);
* ``PAPERZOO_DISABLE_PLUGINS=a,b`` never loads these.

Names match the entry-point name or the distribution name.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from importlib import metadata

__all__ = ["DISABLE_ENV", "ENTRY_POINT_GROUP", "LOAD_ENV", "PluginEntry", "disabled_reason", "entries"]

ENTRY_POINT_GROUP = "paperzoo.plugins"
LOAD_ENV = "PAPERZOO_LOAD_PLUGINS"
DISABLE_ENV = "PAPERZOO_DISABLE_PLUGINS"


@dataclass(frozen=True)
class PluginEntry:
    """An installed plugin, as its package metadata declares it.

    Attributes:
        name: Entry-point name (the plugin id).
        value: What it points at, e.g. ``"paperzoo_revdiv.plugin"``.
        distribution: The distribution that declares it, e.g. ``"paperzoo-revdiv"``.
        version: That distribution's version.
    """

    name: str
    value: str
    distribution: str | None = None
    version: str | None = None

    def load(self) -> object:
        """Import and return the plugin object (a module, usually)."""
        ep = metadata.EntryPoint(self.name, self.value, ENTRY_POINT_GROUP)
        return ep.load()


def entries() -> list[PluginEntry]:
    """Installed plugin entry points, sorted by name; imports no plugin.

    When two installed distributions declare the same entry-point name (an
    editable and a regular install side by side), the first one found on
    ``sys.path`` wins, as for Python imports.
    """
    found: dict[str, PluginEntry] = {}
    for ep in metadata.entry_points(group=ENTRY_POINT_GROUP):
        if ep.name in found:
            continue
        dist = ep.dist
        found[ep.name] = PluginEntry(
            name=ep.name,
            value=ep.value,
            distribution=dist.metadata["Name"] if dist is not None else None,
            version=dist.version if dist is not None else None,
        )
    return [found[name] for name in sorted(found)]


def _names(env: str) -> set[str] | None:
    raw = os.environ.get(env)
    if raw is None:
        return None
    return {n.strip() for n in raw.split(",") if n.strip()}


def disabled_reason(entry: PluginEntry) -> str | None:
    """Why ``entry`` must not be loaded, or ``None`` if it may be."""
    keys = {entry.name, entry.distribution or entry.name}
    allow = _names(LOAD_ENV)
    if allow is not None and not keys & allow:
        return f"not in {LOAD_ENV}"
    deny = _names(DISABLE_ENV)
    if deny is not None and keys & deny:
        return f"in {DISABLE_ENV}"
    return None

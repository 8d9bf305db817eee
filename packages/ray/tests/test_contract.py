"""Generated contract checks of the ray manifest (one raw hook, ``paperzoo_executor``):
importing plugin.py imports no Ray, and nothing but the hook is registered."""

from __future__ import annotations

from paperzoo.testing import PluginContract
from paperzoo_ray.plugin import plugin


class TestRayManifest(PluginContract):
    plugin = plugin

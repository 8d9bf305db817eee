from __future__ import annotations

from collections.abc import Iterator

import pytest

from paperzoo.host import PluginHost
from paperzoo_llm.backends.scripted import ScriptedBackend
from paperzoo_llm.plugin import plugin
from paperzoo_llm.server import LLMServer


@pytest.fixture
def server() -> Iterator[LLMServer]:
    """A scripted ``count`` backend served over HTTP on 127.0.0.1."""
    with LLMServer(ScriptedBackend("count")) as srv:
        yield srv


@pytest.fixture
def host(paperzoo_host: PluginHost) -> PluginHost:
    """A fresh home and a host with only the llm plugin, as the process-wide host."""
    paperzoo_host.register(plugin)
    return paperzoo_host

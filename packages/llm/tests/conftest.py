from __future__ import annotations

from collections.abc import Iterator

import pytest

from paperzoo.host import PluginHost, reset_host
from paperzoo_llm import plugin
from paperzoo_llm.backends.scripted import ScriptedBackend
from paperzoo_llm.server import LLMServer


@pytest.fixture
def server() -> Iterator[LLMServer]:
    """A scripted ``count`` backend served over HTTP on 127.0.0.1."""
    with LLMServer(ScriptedBackend("count")) as srv:
        yield srv


@pytest.fixture
def host(tmp_path: object, monkeypatch: pytest.MonkeyPatch) -> Iterator[PluginHost]:
    """A host with only the llm plugin, as the process-wide host."""
    monkeypatch.setenv("PAPERZOO_HOME", str(tmp_path))
    h = PluginHost(entry_points=False)
    h.register(plugin, name="llm")
    reset_host(h)
    yield h
    reset_host(None)

"""paperzoo plugin ``llm``: the manifest, adding the backend hook, the built-in backends and ``paperzoo llm``.

Imports nothing heavy: the backends (openai, transformers, torch) load on first use.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from paperzoo import Plugin

if TYPE_CHECKING:
    import click
    import pluggy

    from paperzoo_llm.registry import BackendSpec

plugin = Plugin("llm", framework="python", url="https://github.com/paperzoo/paperzoo/tree/main/packages/llm")


@plugin.hook
def paperzoo_addhooks(pluginmanager: pluggy.PluginManager) -> None:
    from paperzoo_llm import hookspecs

    pluginmanager.add_hookspecs(hookspecs)


@plugin.hook(optionalhook=True)
def paperzoo_llm_backends(register: Callable[[BackendSpec], None]) -> None:
    from paperzoo_llm.registry import BackendSpec

    register(BackendSpec("scripted", "paperzoo_llm.backends.scripted:ScriptedBackend",
                         "Deterministic answers (echo, yes, count, oracle) for tests."))  # fmt: skip
    register(BackendSpec("openai", "paperzoo_llm.backends.openai_api:OpenAIBackend",
                         "Any OpenAI-compatible server: OpenAI, vLLM, llama.cpp, Ollama."))  # fmt: skip
    register(BackendSpec("transformers", "paperzoo_llm.backends.transformers_local:TransformersBackend",
                         "A local Hugging Face or GGUF model, in process (CPU)."))  # fmt: skip


@plugin.hook
def paperzoo_register_commands(cli: click.Group) -> None:
    from paperzoo_llm.cli import llm

    cli.add_command(llm)

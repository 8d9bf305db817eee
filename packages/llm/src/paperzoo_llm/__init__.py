"""paperzoo-llm: one language-model interface for every LLM-facing paperzoo plugin.

>>> from paperzoo_llm import get_backend
>>> backend = get_backend("scripted:echo")            # or "openai:gpt-4o-mini", "transformers:smollm2"
>>> backend.chat("Hello!").text
'Hello!'

Names are imported on first use, so that discovering the plugin
(``import paperzoo_llm.plugin``) loads neither the openai SDK nor torch.
"""

from __future__ import annotations

from paperzoo.lazy import lazy_exports

_LAZY = {
    "LLMBackend": ".backend",
    "get_backend": ".registry",
    "backends": ".registry",
    "BackendSpec": ".registry",
    "ChatResponse": ".chat",
    "ChatParams": ".chat",
    "Completion": ".chat",
    "Usage": ".chat",
    "Capabilities": ".chat",
    "TokenLogprob": ".chat",
    "Message": ".chat",
    "LLMError": ".chat",
    "LLMConnectionError": ".chat",
    "LLMAuthError": ".chat",
    "LLMRateLimitError": ".chat",
    "LLMServerError": ".chat",
    "LLMTimeoutError": ".chat",
    "LLMResponseError": ".chat",
    "LLMUnsupportedError": ".chat",
    "CostMeter": ".cost",
    "ResponseCache": ".cache",
    "LLMServer": ".server",
}

__getattr__, __dir__, __all__ = lazy_exports(__name__, _LAZY)

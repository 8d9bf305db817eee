"""Messages, parameters, responses and errors shared by every backend.

A conversation is a list of ``{"role": "system" | "user" | "assistant",
"content": str}`` mappings, as in the OpenAI chat API. A call returns a
:class:`ChatResponse`: ``n`` :class:`Completion` objects and the token
:class:`Usage` of the call.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from paperzoo.errors import ConfigError, PaperzooError

__all__ = [
    "Capabilities",
    "ChatParams",
    "ChatResponse",
    "Completion",
    "LLMAuthError",
    "LLMConnectionError",
    "LLMError",
    "LLMRateLimitError",
    "LLMResponseError",
    "LLMServerError",
    "LLMTimeoutError",
    "LLMUnsupportedError",
    "Message",
    "TokenLogprob",
    "Usage",
    "check_messages",
]

ROLES = ("system", "user", "assistant")
MAX_N = 128
"""Most completions one call may ask for."""


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


class LLMError(PaperzooError):
    """A language-model call failed."""


class LLMConnectionError(LLMError):
    """The server could not be reached."""


class LLMAuthError(LLMError):
    """The server refused the credentials."""


class LLMRateLimitError(LLMError):
    """The server kept answering 429 after every retry."""


class LLMServerError(LLMError):
    """The server kept failing (5xx) after every retry."""


class LLMTimeoutError(LLMError):
    """The server did not answer in time."""


class LLMResponseError(LLMError):
    """The server answered something that is not a valid chat completion."""


class LLMUnsupportedError(LLMError):
    """The backend cannot do what was asked (e.g. log-probabilities over HTTP)."""


@dataclass(frozen=True)
class Message:
    """One turn of a conversation."""

    role: str
    content: str

    def to_dict(self) -> dict[str, str]:
        """``{"role": ..., "content": ...}``."""
        return {"role": self.role, "content": self.content}


def check_messages(messages: Iterable[Message | Mapping[str, Any]] | str) -> list[Message]:
    """Validate a conversation; a plain string is one user message.

    Raises:
        ConfigError: empty, a role other than system/user/assistant, or non-text content.
    """
    if isinstance(messages, str):
        return [Message("user", messages)]
    out: list[Message] = []
    for i, item in enumerate(messages):
        if isinstance(item, Message):
            role, content = item.role, item.content
        elif isinstance(item, Mapping):
            role, content = item.get("role"), item.get("content")
        else:
            raise ConfigError(f"message {i} is a {type(item).__name__}, not a {{'role', 'content'}} mapping")
        if role not in ROLES:
            raise ConfigError(f"message {i} has role {role!r}", hint=f"roles are {', '.join(ROLES)}")
        if not isinstance(content, str):
            raise ConfigError(f"message {i} has {type(content).__name__} content; it must be text")
        out.append(Message(role, content))
    if not out:
        raise ConfigError("the conversation has no message")
    return out


@dataclass(frozen=True)
class ChatParams:
    """Sampling parameters of a call (validated on construction).

    Attributes:
        n: Completions to return.
        temperature: Sampling temperature in [0, 2]; 0 is greedy.
        top_p: Nucleus sampling mass in (0, 1].
        max_tokens: Longest completion, or ``None`` for the backend's default.
        stop: Strings that end a completion (not included in it).
        seed: Seed for reproducible sampling, where the backend supports it.
    """

    n: int = 1
    temperature: float = 1.0
    top_p: float = 1.0
    max_tokens: int | None = None
    stop: tuple[str, ...] = ()
    seed: int | None = None

    def __post_init__(self) -> None:
        stop = self.stop
        if isinstance(stop, str):
            stop = (stop,)
        if stop is None:
            stop = ()
        if not isinstance(stop, (list, tuple)) or not all(isinstance(s, str) and s for s in stop):
            raise ConfigError(f"stop must be a string or a list of non-empty strings, got {self.stop!r}")
        object.__setattr__(self, "stop", tuple(stop))
        if not _is_int(self.n) or not 1 <= self.n <= MAX_N:
            raise ConfigError(f"n must be an integer from 1 to {MAX_N}, got {self.n!r}")
        for name, low, high, low_open in (("temperature", 0.0, 2.0, False), ("top_p", 0.0, 1.0, True)):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise ConfigError(f"{name} must be a number, got {value!r}")
            if not (low < value <= high if low_open else low <= value <= high) or value != value:
                raise ConfigError(
                    f"{name} must be in {'(' if low_open else '['}{low:g}, {high:g}], got {value!r}"
                )
            object.__setattr__(self, name, float(value))  # 0 and 0.0 are the same request
        if self.max_tokens is not None and (not _is_int(self.max_tokens) or self.max_tokens < 1):
            raise ConfigError(f"max_tokens must be an integer >= 1 (or None), got {self.max_tokens!r}")
        if self.seed is not None and (not _is_int(self.seed) or not -(2**63) <= self.seed < 2**63):
            raise ConfigError(f"seed must be a 64-bit integer (or None), got {self.seed!r}")

    def to_dict(self) -> dict[str, Any]:
        """Plain data (the cache key and the HTTP request use it)."""
        data = asdict(self)
        data["stop"] = list(self.stop)
        return data


@dataclass(frozen=True)
class Usage:
    """Tokens of one call: the prompt once, the completions summed over ``n``.

    Attributes:
        prompt_tokens: Tokens of the conversation.
        completion_tokens: Tokens generated, over all ``n`` completions.
        reported: False when the server gave no usage (the counts are then 0 and
            a :class:`~paperzoo_llm.cost.CostMeter` reports the cost as unknown).
    """

    prompt_tokens: int = 0
    completion_tokens: int = 0
    reported: bool = True

    @property
    def total_tokens(self) -> int:
        """Prompt plus completion tokens."""
        return self.prompt_tokens + self.completion_tokens


@dataclass(frozen=True)
class Completion:
    """One generated answer.

    Attributes:
        text: The text (stop string excluded).
        finish_reason: ``"stop"`` (end of turn or a stop string) or ``"length"``.
        index: Its position among the ``n`` completions.
    """

    text: str
    finish_reason: str = "stop"
    index: int = 0


@dataclass(frozen=True)
class ChatResponse:
    """What a chat call returns.

    Attributes:
        completions: The ``n`` completions.
        usage: Token usage of the call (zero for a cache hit's new cost).
        model: Model that answered.
        backend: Backend name (``"openai"``, ``"transformers"``, ``"scripted"``...).
        cached: Whether it came from the response cache.
        latency_s: Wall time of the call (of the original call for a cache hit).
    """

    completions: tuple[Completion, ...]
    usage: Usage
    model: str
    backend: str
    cached: bool = False
    latency_s: float = 0.0

    @property
    def text(self) -> str:
        """The first completion's text."""
        return self.completions[0].text

    @property
    def texts(self) -> list[str]:
        """Every completion's text."""
        return [c.text for c in self.completions]

    def to_dict(self) -> dict[str, Any]:
        """Plain data (what the cache stores)."""
        return {
            "completions": [asdict(c) for c in self.completions],
            "usage": asdict(self.usage),
            "model": self.model,
            "backend": self.backend,
            "latency_s": self.latency_s,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], *, cached: bool = False) -> ChatResponse:
        """Inverse of :meth:`to_dict`."""
        return cls(
            completions=tuple(Completion(**c) for c in data["completions"]),
            usage=Usage(**data["usage"]),
            model=data["model"],
            backend=data["backend"],
            cached=cached,
            latency_s=float(data.get("latency_s", 0.0)),
        )


@dataclass(frozen=True)
class Capabilities:
    """What a backend can do.

    Attributes:
        native_n: Returns ``n`` completions in one call (else they are emulated).
        system_role: Accepts system messages.
        context_length: Longest prompt + completion in tokens, if known.
        logprobs: Offers :meth:`LLMBackend.logprobs`.
        seed: Honours ``seed``.
    """

    native_n: bool = True
    system_role: bool = True
    context_length: int | None = None
    logprobs: bool = False
    seed: bool = False


@dataclass(frozen=True)
class TokenLogprob:
    """Log-probability of one token given the tokens before it.

    Attributes:
        token: The token's text.
        token_id: Its id in the model's vocabulary.
        logprob: ``log p(token | prefix)`` (natural log).
        top: The ``k`` most likely tokens at this position, ``(text, logprob)``.
    """

    token: str
    token_id: int
    logprob: float
    top: tuple[tuple[str, float], ...] = field(default_factory=tuple)


def completions_from_texts(
    texts: Sequence[str], finish: Sequence[str] | None = None
) -> tuple[Completion, ...]:
    """``Completion`` objects for ``texts`` (finish reason ``"stop"`` unless given)."""
    reasons = finish or ["stop"] * len(texts)
    return tuple(Completion(t, r, i) for i, (t, r) in enumerate(zip(texts, reasons)))

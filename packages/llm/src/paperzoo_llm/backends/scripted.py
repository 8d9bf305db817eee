"""``scripted``: deterministic answers for tests and pipelines without a model.

Policies (the model name): ``echo`` repeats the last user message, ``yes`` always
answers "yes", ``count`` answers "sample <i>" for the i-th completion, and
``oracle`` looks the last user message up in ``answers`` (a mapping, or a function
of the conversation). Any callable ``policy(messages, params, index) -> str`` can
be passed instead. Tokens are counted with a word-level tokenizer.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from paperzoo.errors import ConfigError
from paperzoo_llm.backend import LLMBackend
from paperzoo_llm.chat import Capabilities, ChatParams, ChatResponse, Completion, Message, Usage
from paperzoo_llm.tokens import word_tokens

__all__ = ["POLICIES", "ScriptedBackend"]

Policy = Callable[[list[Message], ChatParams, int], str]


def _last_user(messages: list[Message]) -> str:
    return next((m.content for m in reversed(messages) if m.role == "user"), "")


POLICIES: dict[str, Policy] = {
    "echo": lambda messages, params, i: _last_user(messages),
    "yes": lambda messages, params, i: "yes",
    "count": lambda messages, params, i: f"sample {i}",
}


class ScriptedBackend(LLMBackend):
    """A backend that answers by a fixed policy.

    Args:
        model: A policy name: ``echo``, ``yes``, ``count`` or ``oracle``.
        policy: A callable ``(messages, params, index) -> text`` overriding ``model``.
        answers: For ``oracle``: last user message → answer, or a function of the
            conversation; unknown prompts answer ``default``.
        default: The oracle's answer to an unknown prompt.
    """

    name = "scripted"

    def __init__(
        self,
        model: str = "echo",
        *,
        policy: Policy | None = None,
        answers: Mapping[str, str] | Callable[[list[Message]], str] | None = None,
        default: str = "",
        **options: Any,
    ) -> None:
        super().__init__(model, **options)
        if policy is None:
            if model == "oracle":
                policy = self._oracle
            elif model in POLICIES:
                policy = POLICIES[model]
            else:
                raise ConfigError(
                    f"unknown scripted policy {model!r}",
                    hint=f"use one of {', '.join([*POLICIES, 'oracle'])}, or pass policy=",
                )
        self.policy = policy
        self.answers = answers
        self.default = default

    def _oracle(self, messages: list[Message], params: ChatParams, index: int) -> str:
        if callable(self.answers):
            return self.answers(messages)
        return (self.answers or {}).get(_last_user(messages), self.default)

    def _chat(self, messages: list[Message], params: ChatParams) -> ChatResponse:
        completions = []
        completion_tokens = 0
        for i in range(params.n):
            text, finish = self.policy(messages, params, i), "stop"
            for stop in params.stop:
                if stop in text:
                    text = text[: text.index(stop)]
            tokens = word_tokens(text)
            if params.max_tokens is not None and len(tokens) > params.max_tokens:
                text = " ".join(tokens[: params.max_tokens])
                tokens = tokens[: params.max_tokens]
                finish = "length"
            completion_tokens += len(tokens)
            completions.append(Completion(text, finish, i))
        prompt_tokens = sum(self.count_tokens(m.content) for m in messages)
        return ChatResponse(
            tuple(completions), Usage(prompt_tokens, completion_tokens), self.model, self.name
        )

    def cache_identity(self) -> dict[str, Any]:
        """The policy, and the oracle's answers: two scripts never share cached answers."""
        identity: dict[str, Any] = {"policy": f"{getattr(self.policy, '__module__', '')}."
                                              f"{getattr(self.policy, '__qualname__', repr(self.policy))}"}  # fmt: skip
        if isinstance(self.answers, Mapping):
            identity["answers"] = sorted(self.answers.items())
        elif self.answers is not None:
            identity["answers"] = f"{self.answers.__module__}.{self.answers.__qualname__}"
        identity["default"] = self.default
        return identity

    def count_tokens(self, text: str) -> int:
        """Words and punctuation marks of ``text``."""
        return len(word_tokens(text))

    def capabilities(self) -> Capabilities:
        return Capabilities(native_n=True, system_role=True, context_length=None, logprobs=False, seed=True)

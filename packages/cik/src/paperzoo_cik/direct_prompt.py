"""The paper's "direct prompt" forecaster: an instruction-tuned LLM writes the forecast as text.

Williams et al. (ICML 2025, §5.1 and App. D.1): the system message is "You are a useful
forecasting assistant."; the user message gives the context (background, constraints,
scenario) in ``<context>``, the history as ``(YYYY-MM-DD HH:MM:SS, value)`` lines in
``<history>``, the future timestamps, and asks for ``(timestamp, value)`` lines between
``<forecast>`` and ``</forecast>``. Sampling at temperature 1; a completion that misses
any future timestamp (or has a non-number) is rejected; the first call asks for all
``n_samples`` completions, retries ask for ``batch_size_on_retry`` more, ``n_retries``
calls in all; fewer than ``n_samples`` valid completions is an error
(:class:`ForecastFailedError`), which the benchmark scores as a missing instance (5).

The model is any ``paperzoo-llm`` backend (``"transformers:smollm2"``, ``"openai:gpt-4o"``,
...). Unlike the official code, local models are not constrained-decoded: small models
therefore lose more completions to rejection.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from paperzoo.errors import PaperzooError
from paperzoo.settings import Setting
from paperzoo_cik.forecasters import Forecaster

if TYPE_CHECKING:
    from paperzoo_cik.tasks import TaskInstance

__all__ = ["SYSTEM_PROMPT", "DirectPrompt", "ForecastFailedError", "make_prompt", "parse_forecast"]

SYSTEM_PROMPT = "You are a useful forecasting assistant."

_FORECAST = re.compile(r"<forecast>(.*?)</forecast>", re.DOTALL)
_PAIR = re.compile(r"\(\s*['\"]?([^,()'\"]+?)['\"]?\s*,\s*([-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)\s*\)")


class ForecastFailedError(PaperzooError, RuntimeError):
    """The model gave fewer valid forecasts than asked for."""


def _value(y: float, max_digits: int = 6) -> str:
    """Up to ``max_digits`` significant digits; large values as integers (no scientific notation)."""
    return f"{y:.{max_digits}g}" if abs(y) < 10**max_digits else f"{y:.0f}"


def make_prompt(instance: TaskInstance, *, use_context: bool = True) -> str:
    """The user message of the direct prompt for ``instance``."""
    context = ""
    if use_context:
        for label, text in (
            ("Background", instance.background),
            ("Constraints", instance.constraints_text),
            ("Scenario", instance.scenario),
        ):
            if text:
                context += f"{label}: {text}\n"
    history = "\n".join(f"({t}, {_value(y)})" for t, y in zip(instance.past_time, instance.past_values))
    future = "[" + " ".join(f"'{t}'" for t in instance.future_time) + "]"
    return (
        "I have a time series forecasting task for you.\n\n"
        "Here is some context about the task. Make sure to factor in any background knowledge,\n"
        "satisfy any constraints, and respect any scenarios.\n"
        f"<context>\n{context}\n</context>\n\n"
        "Here is a historical time series in (timestamp, value) format:\n"
        f"<history>\n{history}\n</history>\n\n"
        f"Now please predict the value at the following timestamps: {future}.\n\n"
        "Return the forecast in (timestamp, value) format in between <forecast> and </forecast> tags.\n"
        "Do not include any other information (e.g., comments) in the forecast.\n\n"
        "Example:\n<history>\n(t1, v1)\n(t2, v2)\n(t3, v3)\n</history>\n"
        "<forecast>\n(t4, v4)\n(t5, v5)\n</forecast>\n"
    )


def parse_forecast(text: str, timestamps: tuple[str, ...]) -> np.ndarray | None:
    """The values at ``timestamps`` from the first ``<forecast>`` block, or ``None`` if any is missing."""
    block = _FORECAST.search(text)
    if block is None:
        return None
    found = {t.strip(): float(v) for t, v in _PAIR.findall(block.group(1))}
    try:
        values = np.array([found[t] for t in timestamps], dtype=float)
    except KeyError:
        return None
    return values if np.isfinite(values).all() else None


class DirectPrompt(Forecaster):
    """Direct prompting of an LLM for ``n_samples`` sampled forecasts, with rejection and retries.

    Args:
        n_samples: Valid forecasts to collect (the paper: 25).
        seed: Base of the per-call sampling seeds (where the backend supports seeds).
        model: A ``paperzoo-llm`` backend spec, or an ``LLMBackend`` instance.
        use_context: Put the background, constraints and scenario in the prompt.
        n_retries: Calls in all, the first included (the official default: 3).
        batch_size_on_retry: Completions asked for on each retry (5).
        temperature: Sampling temperature (1.0).
        max_tokens: Longest completion; ``None``: 24 tokens a future step plus 64.
        backend_options: Options of the backend (``base_url``, ``cache``, ...).

    Attributes:
        completions_: Instance key → (valid, asked) completions of its last forecast.
        backend_: The backend, once built.
    """

    name = "direct-prompt"
    _parameters: ClassVar[Mapping[str, Setting]] = {
        **Forecaster._parameters,
        "n_retries": Setting(low=1),
        "batch_size_on_retry": Setting(low=1),
        "max_tokens": Setting(None, type="int", low=1, allow_none=True),
    }

    def __init__(
        self,
        n_samples: int = 25,
        seed: int = 0,
        *,
        model: Any = "transformers:smollm2",
        use_context: bool = True,
        n_retries: int = 3,
        batch_size_on_retry: int = 5,
        temperature: float = 1.0,
        max_tokens: int | None = None,
        backend_options: dict[str, Any] | None = None,
    ):
        super().__init__(n_samples, seed)
        self.model = model
        self.use_context = use_context
        self.n_retries = n_retries
        self.batch_size_on_retry = batch_size_on_retry
        self.temperature = temperature
        self.max_tokens = max_tokens
        self.backend_options = backend_options

    @property
    def backend(self) -> Any:
        """The LLM backend, built on first use (``model`` may already be one)."""
        if not hasattr(self, "backend_"):
            if isinstance(self.model, str):
                from paperzoo_llm import get_backend

                self.backend_ = get_backend(self.model, **(self.backend_options or {}))
            else:
                self.backend_ = self.model
        return self.backend_

    def _forecast(self, instance, rng):
        if not hasattr(self, "completions_"):
            self.completions_: dict[str, tuple[int, int]] = {}
        messages = [
            {"role": "system", "content": SYSTEM_PROMPT},
            {"role": "user", "content": make_prompt(instance, use_context=self.use_context)},
        ]
        max_tokens = self.max_tokens or 24 * instance.horizon + 64
        valid: list[np.ndarray] = []
        asked = rejected = 0
        batch = self.n_samples
        for _ in range(self.n_retries):
            response = self.backend.chat(
                messages,
                n=batch,
                temperature=self.temperature,
                max_tokens=max_tokens,
                seed=int(rng.integers(2**31)),
            )
            asked += batch
            for text in response.texts:
                values = parse_forecast(text, instance.future_time)
                if values is None:
                    rejected += 1
                else:
                    valid.append(values)
            if len(valid) >= self.n_samples:
                break
            batch = self.batch_size_on_retry
        self.completions_[instance.key] = (asked - rejected, asked)
        if len(valid) < self.n_samples:
            raise ForecastFailedError(
                f"{self.model} gave {len(valid)} valid forecast(s) of {self.n_samples} for {instance.key} "
                f"({rejected} of {asked} completions rejected in {self.n_retries} calls)",
                hint="raise n_retries, or use a larger instruction-tuned model",
            )
        return np.stack(valid[: self.n_samples])

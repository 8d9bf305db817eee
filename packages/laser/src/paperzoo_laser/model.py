"""A causal transformer language model in Flax NNX with pluggable attention.

Pre-LayerNorm GPT blocks: x ← x + W_O·attn(W_Q h, W_K h, W_V h), h = LN(x);
x ← x + MLP(LN(x)); learned token and position embeddings, an untied output
head. ``attention="laser"`` swaps softmax attention for LASER and changes
nothing else (LASER adds no parameter), so both models start from the same
weights for the same seed.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Literal

import jax
import jax.numpy as jnp
from flax import nnx

from paperzoo.errors import ConfigError
from paperzoo_laser.attention import attention_probabilities, laser_attention, softmax_attention

__all__ = ["PROJECTIONS", "LMConfig", "TransformerLM"]

PROJECTIONS = ("W_Q", "W_K", "W_V", "W_O")
"""Names of the attention projections, as in the paper's gradient analysis."""


@dataclass(frozen=True)
class LMConfig:
    """Shape of a :class:`TransformerLM` and its attention.

    ``laser_shift`` is LASER's shift m under the causal mask: ``"global"`` (the
    paper's max over the sequence, the default here) or ``"prefix"`` (exact per-query
    prefix max, slower on CPU); see :func:`~paperzoo_laser.attention.laser_attention`.
    """

    vocab_size: int = 256
    context: int = 128
    d_model: int = 128
    n_layers: int = 4
    n_heads: int = 4
    mlp_ratio: int = 4
    attention: Literal["softmax", "laser"] = "laser"
    laser_shift: Literal["prefix", "global"] = "global"

    def __post_init__(self) -> None:
        if self.attention not in ("softmax", "laser"):
            raise ConfigError(f"attention must be 'softmax' or 'laser', got {self.attention!r}")
        if min(self.vocab_size, self.context, self.d_model, self.n_layers, self.n_heads, self.mlp_ratio) < 1:
            raise ConfigError(f"every size of the model must be ≥ 1, got {asdict(self)}")
        if self.d_model % self.n_heads:
            raise ConfigError(
                f"d_model={self.d_model} is not divisible by n_heads={self.n_heads}",
                hint="pick n_heads that divides d_model",
            )


class CausalSelfAttention(nnx.Module):
    """Multi-head causal self-attention with separate W_Q, W_K, W_V, W_O."""

    def __init__(self, config: LMConfig, *, rngs: nnx.Rngs) -> None:
        d = config.d_model
        self.config = config
        self.W_Q, self.W_K, self.W_V, self.W_O = (
            nnx.Linear(d, d, use_bias=False, rngs=rngs) for _ in PROJECTIONS
        )

    def _heads(self, x: jax.Array) -> tuple[jax.Array, jax.Array, jax.Array]:
        b, t, d = x.shape
        shape = (b, t, self.config.n_heads, d // self.config.n_heads)
        return self.W_Q(x).reshape(shape), self.W_K(x).reshape(shape), self.W_V(x).reshape(shape)

    def __call__(self, x: jax.Array) -> jax.Array:
        q, k, v = self._heads(x)
        if self.config.attention == "laser":
            out = laser_attention(q, k, v, is_causal=True, shift=self.config.laser_shift)
        else:
            out = softmax_attention(q, k, v, is_causal=True)
        return self.W_O(out.reshape(x.shape))

    def probabilities(self, x: jax.Array) -> jax.Array:
        """The causal attention probabilities, (batch, heads, queries, keys)."""
        q, k, _ = self._heads(x)
        return attention_probabilities(q, k, is_causal=True)


class Block(nnx.Module):
    """x + attn(LN(x)), then + MLP(LN(x)) (GELU, width mlp_ratio · d)."""

    def __init__(self, config: LMConfig, *, rngs: nnx.Rngs) -> None:
        d = config.d_model
        self.ln_attn = nnx.LayerNorm(d, rngs=rngs)
        self.attn = CausalSelfAttention(config, rngs=rngs)
        self.ln_mlp = nnx.LayerNorm(d, rngs=rngs)
        self.up = nnx.Linear(d, config.mlp_ratio * d, rngs=rngs)
        self.down = nnx.Linear(config.mlp_ratio * d, d, rngs=rngs)

    def __call__(self, x: jax.Array) -> jax.Array:
        x = x + self.attn(self.ln_attn(x))
        return x + self.down(jax.nn.gelu(self.up(self.ln_mlp(x))))


class TransformerLM(nnx.Module):
    """Causal LM: logits (batch, length, vocab) of the next token at every position."""

    def __init__(self, config: LMConfig, *, rngs: nnx.Rngs) -> None:
        self.config = config
        init = nnx.initializers.normal(0.02)
        self.tokens = nnx.Embed(config.vocab_size, config.d_model, embedding_init=init, rngs=rngs)
        self.positions = nnx.Embed(config.context, config.d_model, embedding_init=init, rngs=rngs)
        self.blocks = nnx.List([Block(config, rngs=rngs) for _ in range(config.n_layers)])
        self.ln_out = nnx.LayerNorm(config.d_model, rngs=rngs)
        self.head = nnx.Linear(config.d_model, config.vocab_size, use_bias=False, rngs=rngs)

    def _embed(self, tokens: jax.Array) -> jax.Array:
        if tokens.shape[-1] > self.config.context:
            raise ConfigError(
                f"sequence of length {tokens.shape[-1]} exceeds the context {self.config.context}"
            )
        return self.tokens(tokens) + self.positions(jnp.arange(tokens.shape[-1]))

    def __call__(self, tokens: jax.Array) -> jax.Array:
        x = self._embed(tokens)
        for block in self.blocks:
            x = block(x)
        return self.head(self.ln_out(x))

    def attention_probabilities(self, tokens: jax.Array) -> jax.Array:
        """Attention probabilities of every layer, (layers, batch, heads, queries, keys)."""
        x, maps = self._embed(tokens), []
        for block in self.blocks:
            maps.append(block.attn.probabilities(block.ln_attn(x)))
            x = block(x)
        return jnp.stack(maps)

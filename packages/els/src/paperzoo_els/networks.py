"""Conv-only reference networks (Flax NNX): the ResNet and the UNet of the paper, no attention.

Both predict the noise ε̂(x_t, t) of a DDPM and use no normalisation layers; their
convolutions pad with zeros (``"zeros"``) or wrap (``"circular"``), which is what the
machines' ``padding`` must match.
"""

from __future__ import annotations

import itertools

import jax
import jax.numpy as jnp
from flax import nnx

__all__ = ["ConvResNet", "ConvUNet", "build_network"]

ARCHITECTURES = ("resnet", "unet")
_PAD = {"zeros": "SAME", "circular": "CIRCULAR"}


def _sinusoid(t: jax.Array, dim: int) -> jax.Array:
    """Sinusoidal embedding of t ∈ [0, 1] (times 1000, as a DDPM step index), (B,) → (B, dim)."""
    freqs = jnp.exp(-jnp.log(10_000.0) * jnp.arange(dim // 2) / (dim // 2))
    angles = 1000.0 * t[:, None] * freqs[None, :]
    return jnp.concatenate([jnp.sin(angles), jnp.cos(angles)], axis=-1)


class TimeEmbedding(nnx.Module):
    """t → MLP(sinusoid(t)), one vector added to the channels of every block."""

    def __init__(self, dim: int, out: int, *, rngs: nnx.Rngs):
        self.dim = dim
        self.hidden = nnx.Linear(dim, dim, rngs=rngs)
        self.out = nnx.Linear(dim, out, rngs=rngs)

    def __call__(self, t: jax.Array) -> jax.Array:
        return self.out(jax.nn.relu(self.hidden(_sinusoid(t, self.dim))))


class ConvResNet(nnx.Module):
    """3 × 3 up-projection, ``depth`` residual layers h ← h + ReLU(conv₃ₓ₃(h) + e_l(t)), 3 × 3 read-out."""

    def __init__(
        self, channels: int, width: int = 64, depth: int = 6, padding: str = "zeros", *, rngs: nnx.Rngs
    ):
        pad = _PAD[padding]
        self.depth, self.width = depth, width
        self.up = nnx.Conv(channels, width, (3, 3), padding=pad, rngs=rngs)
        self.time = TimeEmbedding(64, width * depth, rngs=rngs)
        self.layers = nnx.List([nnx.Conv(width, width, (3, 3), padding=pad, rngs=rngs) for _ in range(depth)])
        self.out = nnx.Conv(width, channels, (3, 3), padding=pad, rngs=rngs)

    def __call__(self, x: jax.Array, t: jax.Array) -> jax.Array:
        emb = self.time(t).reshape(-1, self.depth, 1, 1, self.width)
        h = self.up(x)
        for i, conv in enumerate(self.layers):
            h = h + jax.nn.relu(conv(h) + emb[:, i])
        return self.out(h)


class _Block(nnx.Module):
    """Two conv₃ₓ₃ + ReLU with the time embedding added after the first."""

    def __init__(self, cin: int, cout: int, pad: str, *, rngs: nnx.Rngs):
        self.a = nnx.Conv(cin, cout, (3, 3), padding=pad, rngs=rngs)
        self.b = nnx.Conv(cout, cout, (3, 3), padding=pad, rngs=rngs)
        self.t = nnx.Linear(64, cout, rngs=rngs)

    def __call__(self, x: jax.Array, emb: jax.Array) -> jax.Array:
        h = jax.nn.relu(self.a(x) + self.t(emb)[:, None, None, :])
        return jax.nn.relu(self.b(h))


class ConvUNet(nnx.Module):
    """Conv-only UNet: widths (w, 2w, 4w) = (64, 128, 256) by default, max-pool down,
    transposed-conv up, skip concatenation, no attention and no normalisation."""

    def __init__(
        self, channels: int, width: int = 64, depth: int = 2, padding: str = "zeros", *, rngs: nnx.Rngs
    ):
        pad = _PAD[padding]
        widths = [width * 2**i for i in range(depth + 1)]
        self.time = TimeEmbedding(64, 64, rngs=rngs)
        self.down = nnx.List(
            [_Block(c, w, pad, rngs=rngs) for c, w in zip([channels, *widths[:-2]], widths[:-1])]
        )
        self.mid = _Block(widths[-2], widths[-1], pad, rngs=rngs)
        self.ups = nnx.List(
            [
                nnx.ConvTranspose(w2, w1, (2, 2), strides=(2, 2), rngs=rngs)
                for w1, w2 in itertools.pairwise(widths)
            ]
        )
        self.up_blocks = nnx.List([_Block(2 * w, w, pad, rngs=rngs) for w in widths[:-1]])
        self.out = nnx.Conv(width, channels, (3, 3), padding=pad, rngs=rngs)

    def __call__(self, x: jax.Array, t: jax.Array) -> jax.Array:
        emb = jax.nn.relu(self.time(t))
        skips = []
        h = x
        for block in self.down:
            h = block(h, emb)
            skips.append(h)
            h = nnx.max_pool(h, (2, 2), strides=(2, 2), padding="SAME")
        h = self.mid(h, emb)
        for up, block, skip in reversed(list(zip(self.ups, self.up_blocks, skips))):
            h = up(h)[:, : skip.shape[1], : skip.shape[2]]
            h = block(jnp.concatenate([h, skip], axis=-1), emb)
        return self.out(h)


def build_network(
    architecture: str, channels: int, width: int, depth: int, padding: str, seed: int
) -> nnx.Module:
    """A fresh ResNet (``depth`` residual layers) or UNet (``depth`` down-samplings)."""
    cls = ConvResNet if architecture == "resnet" else ConvUNet
    return cls(channels, width, depth, padding, rngs=nnx.Rngs(seed))

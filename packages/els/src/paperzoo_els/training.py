"""Training the reference networks with the DDPM objective, cached by config hash.

L(θ) = E_{φ, t ~ U(0, 1], η} ‖ε_θ(√ᾱ_t φ + √(1 − ᾱ_t) η, t) − η‖² (ε-MSE), AdamW. A trained
network is checkpointed with orbax under ``<paperzoo home>/cache/els/networks/<hash>``,
the hash covering every hyperparameter and the training images' bytes, and reused by
later fits with the same configuration.
"""

from __future__ import annotations

import functools
import hashlib
import json
import shutil
import tempfile
from pathlib import Path
from typing import ClassVar

import numpy as np

from paperzoo import BaseEstimator, Setting, check_is_fitted, paths
from paperzoo.errors import ConfigError
from paperzoo_els.machines import check_images
from paperzoo_els.networks import ARCHITECTURES
from paperzoo_els.patches import PADDINGS
from paperzoo_els.schedule import COSINE_S, alpha_bar, ddim_sample

__all__ = ["DDPMNetwork", "cache_dir"]


def cache_dir() -> Path:
    """``<paperzoo home>/cache/els/networks``: one orbax checkpoint per configuration."""
    return paths.cache_dir("els") / "networks"


class DDPMNetwork(BaseEstimator):
    """A conv-only ResNet or UNet trained as a DDPM noise predictor on ``fit``'s images.

    Args:
        architecture: ``"resnet"`` (paper: 256 channels, 6–8 layers) or ``"unet"``
            (paper: widths 64/128/256).
        width: Channels of the ResNet, first-level channels of the UNet.
        depth: Residual layers of the ResNet, down-samplings of the UNet.
        padding: ``"zeros"`` or ``"circular"`` convolutions.
        train_steps: AdamW steps (paper: 300 epochs at batch 128).
        batch_size: Images per step (paper: 128).
        learning_rate: Peak AdamW rate, cosine-decayed to 0 (paper: 1e-4, slow exponential decay).
        warmup_steps: Linear warm-up from 0 to ``learning_rate`` (0: none; < ``train_steps``).
        clip_norm: Global gradient-norm clip (``None``: none). The networks have no
            normalisation layers; without clipping the short CPU-scale runs end at about
            twice the loss and sample far outside [−1, 1].
        seed: Initialisation and noise seed.
        cache: Reuse/write the orbax checkpoint under :func:`cache_dir`.
    """

    _parameters: ClassVar[dict[str, Setting]] = {
        "architecture": Setting(choices=ARCHITECTURES),
        "padding": Setting(choices=PADDINGS),
        "width": Setting(low=1),
        "depth": Setting(low=1),
        "train_steps": Setting(low=1),
        "batch_size": Setting(low=1),
        "learning_rate": Setting(low=0, low_open=True),
        "warmup_steps": Setting(low=0, high="train_steps", high_open=True),
        "clip_norm": Setting(low=0, low_open=True, allow_none=True),
        "seed": Setting(low=0),
    }

    def __init__(self, architecture: str = "resnet", width: int = 64, depth: int = 6, padding: str = "zeros",
                 train_steps: int = 2000, batch_size: int = 128, learning_rate: float = 2e-3,
                 warmup_steps: int = 50, clip_norm: float | None = 1.0, seed: int = 0,
                 cache: bool = True):  # fmt: skip
        self.architecture = architecture
        self.width = width
        self.depth = depth
        self.padding = padding
        self.train_steps = train_steps
        self.batch_size = batch_size
        self.learning_rate = learning_rate
        self.warmup_steps = warmup_steps
        self.clip_norm = clip_norm
        self.seed = seed
        self.cache = cache

    def config_hash(self, images: np.ndarray) -> str:
        """sha256 (16 hex digits) of the hyperparameters and the training images."""
        return _config_hash(self._validate_params(), images)

    def fit(self, images: object) -> DDPMNetwork:
        """Train on images (N, H, W, C) in [−1, 1], or load the cached checkpoint."""
        params = self._validate_params()
        arr = check_images(images)
        from flax import nnx

        from paperzoo_els.networks import build_network

        self.config_hash_ = _config_hash(params, arr)
        path = cache_dir() / self.config_hash_
        model = build_network(
            self.architecture, arr.shape[-1], params["width"], params["depth"], self.padding, params["seed"]
        )
        if self.cache and (path / "state").is_dir():
            import orbax.checkpoint as ocp

            graphdef, abstract = nnx.split(nnx.eval_shape(lambda: model))
            state = ocp.StandardCheckpointer().restore((path / "state").resolve(), abstract)
            model = nnx.merge(graphdef, state)
            self.losses_ = np.asarray(json.loads((path / "config.json").read_text())["losses"])
            self.from_cache_ = True
        else:
            self.losses_ = _train(model, arr, params)
            self.from_cache_ = False
            if self.cache:
                _save(model, path, {**params, "losses": self.losses_.tolist()})
        self.model_ = model
        self.image_shape_ = arr.shape[1:]
        return self

    def eps(self, x_t: object, t: float) -> np.ndarray:
        """ε̂_θ(x_t, t) for x_t of shape (B, H, W, C)."""
        check_is_fitted(self)
        x = np.asarray(x_t, dtype=np.float32)
        if x.shape[1:] != self.image_shape_:
            raise ConfigError(
                f"x_t must have shape (B, {', '.join(map(str, self.image_shape_))}), got {x.shape}"
            )
        return np.asarray(_predict(self.model_, x, np.full(x.shape[0], t, np.float32)))

    def score(self, x_t: object, t: float) -> np.ndarray:
        """s_θ(x_t, t) = −ε̂_θ(x_t, t) / √(1 − ᾱ_t)."""
        return -self.eps(x_t, t) / np.sqrt(1.0 - float(alpha_bar(t)))

    def sample(
        self, noise: object, steps: int = 20, *, trajectory: list[np.ndarray] | None = None
    ) -> np.ndarray:
        """The same deterministic DDIM sampler as the machines, from ``noise`` at t = 1."""
        return ddim_sample(lambda x, t, k: self.eps(x, t), np.asarray(noise, np.float32), steps,
                           trajectory=trajectory)  # fmt: skip

    def __getstate__(self) -> dict:
        state = dict(self.__dict__)
        if "model_" in state:
            from flax import nnx

            state["model_"] = nnx.split(state["model_"])
        return state

    def __setstate__(self, state: dict) -> None:
        if "model_" in state:
            from flax import nnx

            state["model_"] = nnx.merge(*state["model_"])
        self.__dict__.update(state)


def _config_hash(params: dict, images: np.ndarray) -> str:
    digest = hashlib.sha256(json.dumps(params, sort_keys=True).encode())
    digest.update(str(images.shape).encode())
    digest.update(np.ascontiguousarray(images).tobytes())
    return digest.hexdigest()[:16]


def _predict(model, x: np.ndarray, t: np.ndarray):
    """ε̂_θ(x, t) through one jitted function (compiled once per architecture and shape)."""
    return _compiled()["apply"](model, x, t)


@functools.cache
def _compiled() -> dict:
    from flax import nnx

    @nnx.jit
    def apply(model, x, t):
        return model(x, t)

    return {"apply": apply}


@functools.cache
def _train_step(learning_rate: float, train_steps: int, warmup_steps: int, clip_norm: float | None):
    """(optax transformation, jitted step): cached so refits with equal settings reuse the compilation.

    AdamW with a linear warm-up and cosine decay, after clipping the global gradient norm.
    """
    import jax
    import jax.numpy as jnp
    import optax
    from flax import nnx

    schedule = optax.warmup_cosine_decay_schedule(0.0, learning_rate, warmup_steps, train_steps)
    tx = optax.adamw(schedule)
    if clip_norm is not None:
        tx = optax.chain(optax.clip_by_global_norm(clip_norm), tx)

    @nnx.jit
    def step(model, optimizer, batch, key):
        k_t, k_eta = jax.random.split(key)
        t = jax.random.uniform(k_t, (batch.shape[0],), minval=1e-3, maxval=1.0)
        ab = jnp.cos(jnp.pi * t / (2.0 * COSINE_S))[:, None, None, None] ** 2  # schedule.alpha_bar, traced
        eta = jax.random.normal(k_eta, batch.shape)
        x_t = jnp.sqrt(ab) * batch + jnp.sqrt(1.0 - ab) * eta

        def loss_fn(model):
            return jnp.mean((model(x_t, t) - eta) ** 2)

        loss, grads = nnx.value_and_grad(loss_fn)(model)
        optimizer.update(model, grads)
        return loss

    return tx, step


def _train(model, images: np.ndarray, params: dict) -> np.ndarray:
    """AdamW on the ε-MSE with the validated ``params``; returns the loss of every step."""
    import jax
    import jax.numpy as jnp
    from flax import nnx

    n_steps = params["train_steps"]
    tx, step = _train_step(params["learning_rate"], n_steps, params["warmup_steps"], params["clip_norm"])
    optimizer = nnx.Optimizer(model, tx, wrt=nnx.Param)
    rng = np.random.default_rng(params["seed"])
    keys = jax.random.split(jax.random.key(params["seed"]), n_steps)
    data = jnp.asarray(images)
    losses = np.empty(n_steps)
    for i in range(n_steps):
        batch = data[rng.integers(0, len(images), min(params["batch_size"], len(images)))]
        losses[i] = float(step(model, optimizer, batch, keys[i]))
    return losses


def _save(model, path: Path, config: dict) -> None:
    """Write the orbax checkpoint and config into a temporary folder, then rename it into place."""
    import orbax.checkpoint as ocp
    from flax import nnx

    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(dir=path.parent, prefix=".tmp-"))
    checkpointer = ocp.StandardCheckpointer()
    checkpointer.save((tmp / "state").resolve(), nnx.state(model))
    checkpointer.wait_until_finished()
    (tmp / "config.json").write_text(json.dumps(config))
    try:
        tmp.rename(path)
    except OSError:  # another process cached the same configuration first
        shutil.rmtree(tmp, ignore_errors=True)

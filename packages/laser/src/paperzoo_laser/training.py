"""Training and evaluation of :class:`~paperzoo_laser.model.TransformerLM` with optax.

The step is one ``@nnx.jit`` function (loss, gradients, AdamW update, and the
gradient norm of each attention projection); everything with side effects
(logging, hooks, checkpoints) happens on the host between steps, through the
``on_eval`` callback.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache, partial
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
import optax
from flax import nnx

from paperzoo.errors import ConfigError
from paperzoo_laser.model import PROJECTIONS, LMConfig, TransformerLM
from paperzoo_laser.text import sample_windows

__all__ = [
    "TrainConfig",
    "TrainHistory",
    "evaluate",
    "make_optimizer",
    "projection_grad_norms",
    "restore_checkpoint",
    "save_checkpoint",
    "small_probability_fraction",
    "train",
]


@dataclass(frozen=True)
class TrainConfig:
    """AdamW with linear warm-up and cosine decay to ``lr / 10``, global-norm clipping."""

    steps: int = 1000
    batch_size: int = 16
    lr: float = 1e-3
    warmup: int = 50
    weight_decay: float = 0.1
    clip: float = 1.0
    eval_every: int = 100
    eval_batches: int = 8

    def __post_init__(self) -> None:
        if min(self.steps, self.batch_size, self.eval_every, self.eval_batches) < 1 or self.lr <= 0:
            raise ConfigError(f"steps, batch_size, eval_every, eval_batches and lr must be positive: {self}")


@dataclass
class TrainHistory:
    """What :func:`train` records: validation loss and projection gradient norms per evaluation."""

    steps: list[int] = field(default_factory=list)
    val_loss: list[float] = field(default_factory=list)
    train_loss: list[float] = field(default_factory=list)
    grad_norms: dict[str, list[float]] = field(default_factory=lambda: {p: [] for p in PROJECTIONS})
    step_seconds: float = 0.0


def make_optimizer(model: TransformerLM, config: TrainConfig) -> nnx.Optimizer[TransformerLM]:
    """nnx.Optimizer over the model's parameters."""
    return nnx.Optimizer(model, _transform(config), wrt=nnx.Param)


@cache
def _transform(config: TrainConfig) -> optax.GradientTransformation:
    """One optax transformation per config: jitted steps are cached on it, so it is reused."""
    schedule = optax.warmup_cosine_decay_schedule(
        0.0, config.lr, config.warmup, max(config.steps, config.warmup + 1), config.lr / 10
    )
    return optax.chain(
        optax.clip_by_global_norm(config.clip),
        optax.adamw(schedule, b1=0.9, b2=0.99, weight_decay=config.weight_decay),
    )


def _loss(model: TransformerLM, batch: jax.Array) -> jax.Array:
    logits = model(batch[:, :-1])
    return optax.softmax_cross_entropy_with_integer_labels(logits.astype(jnp.float32), batch[:, 1:]).mean()


def projection_grad_norms(grads: nnx.State) -> dict[str, jax.Array]:
    """‖∂L/∂W‖_F of each attention projection, over all layers: √(Σ_layers ‖G_l‖²)."""
    flat = jax.tree_util.tree_flatten_with_path(grads)[0]
    norms = {}
    for name in PROJECTIONS:
        leaves = [g for path, g in flat if any(getattr(key, "key", None) == name for key in path)]
        norms[name] = jnp.sqrt(sum(jnp.sum(jnp.square(g)) for g in leaves))
    return norms


@nnx.jit
def _train_step(
    model: TransformerLM, optimizer: nnx.Optimizer[TransformerLM], batch: jax.Array
) -> tuple[jax.Array, dict[str, jax.Array]]:
    loss, grads = nnx.value_and_grad(_loss)(model, batch)
    optimizer.update(model, grads)
    return loss, projection_grad_norms(grads)


@partial(nnx.jit, static_argnums=(0, 1))
def _create(
    model_config: LMConfig, config: TrainConfig, key: jax.Array
) -> tuple[TransformerLM, nnx.Optimizer[TransformerLM]]:
    """Model and optimiser built in one compiled call (instead of one small compile per initialiser)."""
    model = TransformerLM(model_config, rngs=nnx.Rngs(params=key))
    return model, make_optimizer(model, config)


@nnx.jit
def _attention_probabilities(model: TransformerLM, tokens: jax.Array) -> jax.Array:
    return model.attention_probabilities(tokens)


@nnx.jit
def _eval_loss(model: TransformerLM, batch: jax.Array) -> jax.Array:
    return _loss(model, batch)


def evaluate(model: TransformerLM, batches: np.ndarray) -> float:
    """Mean next-token cross-entropy (nats per token) over ``batches`` (n, batch, length + 1)."""
    return float(np.mean([float(_eval_loss(model, jnp.asarray(b))) for b in batches]))


def small_probability_fraction(model: TransformerLM, batch: np.ndarray, threshold: float = 1e-3) -> float:
    """Share of the visible (causal) attention probabilities below ``threshold``, all layers and heads."""
    probs = np.asarray(_attention_probabilities(model, jnp.asarray(batch[:, :-1])))
    visible = np.tril(np.ones(probs.shape[-2:], bool))
    return float((probs[..., visible] < threshold).mean())


def train(
    model_config: LMConfig,
    config: TrainConfig,
    train_tokens: np.ndarray,
    eval_batches: np.ndarray,
    *,
    seed: int,
    on_eval: Callable[[int, float, float, dict[str, float]], None] | None = None,
) -> tuple[TransformerLM, TrainHistory]:
    """Train from initial weights ``seed`` on windows drawn in the order fixed by ``seed``.

    Two calls with the same ``seed`` and different ``model_config.attention`` start
    from identical weights and see identical batches. The projection gradient norms
    of step 1 (taken before its update) are those at initialisation, recorded at step 0
    with the initial validation loss; later evaluations record the last step's norms. ``on_eval(step, val_loss,
    train_loss, grad_norms)`` runs on the host after each evaluation.
    """
    model, optimizer = _create(model_config, config, jax.random.key(seed))
    order = np.random.default_rng([seed, 1])
    history = TrainHistory()

    def record(step: int, val: float, train_loss: float, norms: dict[str, jax.Array]) -> None:
        values = {k: float(v) for k, v in norms.items()}
        history.steps.append(step)
        history.val_loss.append(val)
        history.train_loss.append(train_loss)
        for name in PROJECTIONS:
            history.grad_norms[name].append(values[name])
        if on_eval is not None:
            on_eval(step, val, train_loss, values)

    timed, initial_val = 0.0, evaluate(model, eval_batches)
    for step in range(1, config.steps + 1):
        batch = jnp.asarray(sample_windows(train_tokens, config.batch_size, model_config.context + 1, order))
        start = time.perf_counter()
        loss, norms = _train_step(model, optimizer, batch)
        train_loss = float(loss)  # waits for the step
        if step > 1:  # the first step compiles
            timed += time.perf_counter() - start
        if step == 1:
            record(0, initial_val, train_loss, norms)
        if step % config.eval_every == 0 or step == config.steps:
            record(step, evaluate(model, eval_batches), train_loss, norms)
    history.step_seconds = timed / max(config.steps - 1, 1)
    return model, history


def save_checkpoint(model: TransformerLM, path: Path) -> Path:
    """Write the model's state with orbax to the (new) directory ``path``."""
    import orbax.checkpoint as ocp

    path = Path(path).absolute()
    with ocp.StandardCheckpointer() as checkpointer:
        checkpointer.save(path, nnx.state(model))
    return path


def restore_checkpoint(config: LMConfig, path: Path) -> TransformerLM:
    """A :class:`TransformerLM` of ``config`` with the state saved at ``path``."""
    import orbax.checkpoint as ocp

    abstract = nnx.eval_shape(lambda: TransformerLM(config, rngs=nnx.Rngs(0)))
    graphdef, state = nnx.split(abstract)
    with ocp.StandardCheckpointer() as checkpointer:
        state = checkpointer.restore(Path(path).absolute(), state)
    return nnx.merge(graphdef, state)

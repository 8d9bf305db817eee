"""The Flax NNX language model, its training loop, checkpoints and the corpora."""

from __future__ import annotations

from pathlib import Path

import jax.numpy as jnp
import numpy as np
import pytest
from flax import nnx

from paperzoo.errors import ConfigError
from paperzoo_laser.model import PROJECTIONS, LMConfig, TransformerLM
from paperzoo_laser.text import decode, encode, sample_windows
from paperzoo_laser.training import (
    TrainConfig,
    evaluate,
    restore_checkpoint,
    save_checkpoint,
    small_probability_fraction,
    train,
)

TINY = {"context": 16, "d_model": 16, "n_layers": 1, "n_heads": 2}
TEXT = encode("to be, or not to be, that is the question. " * 40)


def test_byte_tokens_round_trip() -> None:
    text = "Thou art — ö"
    assert decode(encode(text)) == text
    assert encode(text).max() < 256


def test_same_seed_gives_identical_initial_weights_for_both_attentions() -> None:
    a = TransformerLM(LMConfig(**TINY, attention="softmax"), rngs=nnx.Rngs(params=3))
    b = TransformerLM(LMConfig(**TINY, attention="laser"), rngs=nnx.Rngs(params=3))
    flat_a, flat_b = nnx.to_flat_state(nnx.state(a, nnx.Param)), nnx.to_flat_state(nnx.state(b, nnx.Param))
    assert [path for path, _ in flat_a] == [path for path, _ in flat_b]
    for (_, x), (_, y) in zip(flat_a, flat_b):
        np.testing.assert_array_equal(x[...], y[...])


def test_attention_probabilities_are_causal_rows_summing_to_one() -> None:
    model = TransformerLM(LMConfig(**TINY), rngs=nnx.Rngs(0))
    probs = np.asarray(model.attention_probabilities(jnp.asarray(TEXT[None, :16].astype(np.int32))))
    assert probs.shape == (1, 1, 2, 16, 16)
    np.testing.assert_allclose(probs.sum(-1), 1.0, rtol=1e-5)
    assert (np.triu(probs[0, 0, 0], 1) == 0).all()


def test_training_lowers_validation_loss_and_records_projection_norms() -> None:
    evals = sample_windows(TEXT, 8, 17, np.random.default_rng(0)).reshape(2, 4, 17)
    seen: list[int] = []
    model, history = train(
        LMConfig(**TINY, attention="laser"),
        TrainConfig(steps=30, batch_size=8, lr=3e-3, warmup=5, eval_every=15, eval_batches=2),
        TEXT,
        evals,
        seed=0,
        on_eval=lambda step, *_: seen.append(step),
    )
    assert seen == history.steps == [0, 15, 30]
    assert history.val_loss[-1] < history.val_loss[0] - 0.5
    assert set(history.grad_norms) == set(PROJECTIONS)
    assert all(len(v) == 3 and min(v) > 0 for v in history.grad_norms.values())
    assert 0.0 <= small_probability_fraction(model, evals[0]) < 1.0


def test_checkpoint_round_trip_restores_the_same_predictions(tmp_path: Path) -> None:
    config = LMConfig(**TINY)
    model = TransformerLM(config, rngs=nnx.Rngs(5))
    evals = sample_windows(TEXT, 4, 17, np.random.default_rng(1))[None]
    restored = restore_checkpoint(config, save_checkpoint(model, tmp_path / "ckpt"))
    assert evaluate(restored, evals) == pytest.approx(evaluate(model, evals), abs=0)


def test_rejects_heads_that_do_not_divide_the_width() -> None:
    with pytest.raises(ConfigError, match="not divisible by n_heads"):
        LMConfig(d_model=30, n_heads=4)


def test_rejects_unknown_attention() -> None:
    with pytest.raises(ConfigError, match="'softmax' or 'laser'"):
        LMConfig(attention="linear")  # type: ignore[arg-type]


def test_rejects_sequences_longer_than_the_context() -> None:
    model = TransformerLM(LMConfig(**TINY), rngs=nnx.Rngs(0))
    with pytest.raises(ConfigError, match="exceeds the context"):
        model(jnp.zeros((1, 17), jnp.int32))


def test_rejects_a_split_shorter_than_the_window() -> None:
    with pytest.raises(ConfigError, match="too short"):
        sample_windows(TEXT[:10], 2, 17, np.random.default_rng(0))


def test_rejects_non_positive_training_settings() -> None:
    with pytest.raises(ConfigError, match="must be positive"):
        TrainConfig(steps=0)


def test_readme_usage_example_runs() -> None:
    pytest.importorskip("torch")
    readme = (Path(__file__).parents[1] / "README.md").read_text()
    code = readme.split("```python\n", 1)[1].split("```", 1)[0]
    namespace: dict = {}
    exec(code, namespace)
    assert namespace["out"].shape == (2, 8, 4, 16) and tuple(namespace["o"].shape) == (2, 4, 8, 16)


def test_rejects_an_unknown_corpus_naming_the_known_ones() -> None:
    from paperzoo_laser.text import load_corpus

    with pytest.raises(ConfigError, match="unknown corpus 'shakespeare'") as info:
        load_corpus("shakespeare")
    assert "tinyshakespeare" in (info.value.hint or "")

"""LASER attention in JAX against exact cases: a float64 reference, invariances, bounds, gradients."""

from __future__ import annotations

from collections.abc import Iterator
from functools import partial

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax.test_util import check_grads

from paperzoo.errors import ConfigError
from paperzoo_laser.attention import init_cache, laser_attention, laser_decode, softmax_attention

B, T, H, D = 2, 21, 3, 5


@pytest.fixture
def x64() -> Iterator[None]:
    with jax.enable_x64(True):
        yield


def qkv(seed: int = 0, v_scale: float = 3.0, dtype: type = np.float64) -> tuple[np.ndarray, ...]:
    rng = np.random.default_rng(seed)
    q, k, v = (rng.normal(size=(B, T, H, D)) for _ in range(3))
    return q.astype(dtype), k.astype(dtype), (v_scale * v).astype(dtype)


def reference(q, k, v, causal=False, lengths=None, log_domain=False) -> np.ndarray:
    """log(softmax(QKᵀ/√d) exp(V)) in float64 numpy: the direct formula, or (``log_domain``)
    log Σ_j exp(log a_ij + v_jd) with its own max per (i, d), for values whose exp overflows."""
    s = np.einsum("bqhd,bkhd->bhqk", q, k) / np.sqrt(q.shape[-1])
    visible = np.ones((B, 1, T, T), bool)
    if causal:
        visible &= np.tril(np.ones((T, T), bool))
    if lengths is not None:
        visible &= (np.arange(T) < np.asarray(lengths)[:, None])[:, None, None, :]
    s = np.where(visible, s, -np.inf)
    a = np.exp(s - s.max(-1, keepdims=True))
    a /= a.sum(-1, keepdims=True)
    if log_domain:
        with np.errstate(divide="ignore"):
            terms = np.log(a)[..., None] + np.swapaxes(v, 1, 2)[:, :, None]  # (b, h, q, k, d)
        top = terms.max(3, keepdims=True)
        return np.swapaxes((top + np.log(np.exp(terms - top).sum(3, keepdims=True)))[:, :, :, 0], 1, 2)
    return np.log(np.einsum("bhqk,bkhd->bqhd", a, np.exp(v)))


CASES = [
    {"is_causal": False},
    {"is_causal": True, "shift": "prefix"},
    {"is_causal": True, "shift": "global"},
    {"is_causal": True, "shift": "prefix", "block_size": 4},  # T = 21 is not a multiple: padded chunks
    {"is_causal": True, "shift": "prefix", "block_size": 1},
]


@pytest.mark.parametrize("kwargs", CASES)
@pytest.mark.parametrize("lengths", [None, [T, 9]])
def test_equals_float64_reference(x64: None, kwargs: dict, lengths: list[int] | None) -> None:
    q, k, v = qkv()
    key_lengths = None if lengths is None else jnp.array(lengths)
    out = laser_attention(q, k, v, key_lengths=key_lengths, **kwargs)
    assert out.dtype == jnp.float64
    expected = reference(q, k, v, kwargs["is_causal"], lengths)
    np.testing.assert_allclose(out, expected, rtol=1e-12, atol=1e-12)


def test_float32_matches_float64_reference() -> None:
    q, k, v = qkv(1, dtype=np.float32)
    out = laser_attention(q, k, v, is_causal=True)
    np.testing.assert_allclose(out, reference(*(x.astype(np.float64) for x in (q, k, v)), True), atol=2e-5)


@pytest.mark.parametrize("kwargs", CASES)
def test_shift_invariance_adding_c_to_v_adds_c_to_output(x64: None, kwargs: dict) -> None:
    q, k, v = qkv(2)
    c = np.random.default_rng(3).normal(size=(1, 1, H, D)) * 50  # per head and feature
    np.testing.assert_allclose(
        laser_attention(q, k, v + c, **kwargs), laser_attention(q, k, v, **kwargs) + c, atol=1e-10
    )


def test_prefix_and_global_shift_give_the_same_output(x64: None) -> None:
    q, k, v = qkv(4)
    prefix = laser_attention(q, k, v, is_causal=True, shift="prefix")
    np.testing.assert_allclose(laser_attention(q, k, v, is_causal=True, shift="global"), prefix, atol=1e-12)


@pytest.mark.parametrize("kwargs", CASES)
def test_constant_values_are_returned_unchanged(kwargs: dict) -> None:
    q, k, _ = qkv(5, dtype=np.float32)
    v = np.broadcast_to(np.linspace(-30, 30, D, dtype=np.float32), (B, T, H, D))
    np.testing.assert_allclose(laser_attention(q, k, v, **kwargs), v, atol=1e-5)


@pytest.mark.parametrize("kwargs", CASES)
def test_output_is_at_least_softmax_output_and_at_most_max_v(x64: None, kwargs: dict) -> None:
    """Jensen: log Σ a exp(v) ≥ Σ a v; and log Σ a exp(v) ≤ max over the keys seen of v."""
    q, k, v = qkv(6)
    causal = kwargs["is_causal"]
    out = np.asarray(laser_attention(q, k, v, **kwargs))
    assert (out >= np.asarray(softmax_attention(q, k, v, is_causal=causal)) - 1e-12).all()
    seen_max = np.maximum.accumulate(v, axis=1) if causal else v.max(1, keepdims=True)
    assert (out <= seen_max + 1e-12).all()


def test_gradients_match_finite_differences(x64: None) -> None:
    q, k, v = (x[:, :9] for x in qkv(7))
    for kwargs in CASES[:4]:
        check_grads(jax.jit(partial(laser_attention, **kwargs)), (q, k, v), order=1, modes=["rev"])


def test_value_gradient_is_the_responsibility_a_exp_v_minus_output(x64: None) -> None:
    """∂O_id/∂v_jd = a_ij exp(v_jd − O_id): the stop-gradient on the shift leaves the exact gradient."""
    q, k, v = qkv(8)
    out = np.asarray(laser_attention(q, k, v, is_causal=True))
    grad = jax.grad(lambda v: laser_attention(q, k, v, is_causal=True).sum())(v)
    s = np.einsum("bqhd,bkhd->bhqk", q, k) / np.sqrt(D)
    s = np.where(np.tril(np.ones((T, T), bool)), s, -np.inf)
    a = np.exp(s - s.max(-1, keepdims=True))
    a /= a.sum(-1, keepdims=True)
    expected = np.einsum("bhqk,bkhd,bqhd->bkhd", a, np.exp(v), np.exp(-out))
    np.testing.assert_allclose(grad, expected, rtol=1e-10)


@pytest.mark.parametrize("shift", ["prefix", "global"])
def test_no_nan_with_causal_mask_on_adversarial_values(shift: str) -> None:
    q, k, v = qkv(9, dtype=np.float32)
    v = v.copy()
    v[:, 15:] += 1000.0  # late keys far above every early one: a global max underflows early queries
    v[:, :3] -= 1000.0
    out, grads = jax.value_and_grad(lambda v: laser_attention(q, k, v, is_causal=True, shift=shift).sum())(v)
    assert np.isfinite(out) and np.isfinite(grads).all()
    full = laser_attention(q, k, v, is_causal=True, shift=shift)
    assert np.isfinite(full).all()
    if shift == "prefix":  # exact for any values
        expected = reference(*(x.astype(np.float64) for x in (q, k, v)), True, log_domain=True)
        np.testing.assert_allclose(full, expected, rtol=1e-5, atol=5e-4)  # float32 ulp at |v| ≈ 1000


def test_padding_is_excluded_from_softmax_and_max() -> None:
    q, k, v = qkv(10, dtype=np.float32)
    padded = v.copy()
    padded[1, 12:] = 1e6  # huge garbage in padding must not change the real keys' result
    lengths = jnp.array([T, 12])
    for kw in CASES:
        a = laser_attention(q, k, padded, key_lengths=lengths, **kw)
        b = laser_attention(q, k, v, key_lengths=lengths, **kw)
        np.testing.assert_allclose(a, b, atol=1e-5)


def test_bf16_inputs_give_bf16_output_close_to_float32() -> None:
    q, k, v = qkv(11, dtype=np.float32)
    bf = [jnp.asarray(x, jnp.bfloat16) for x in (q, k, v)]
    out = laser_attention(*bf, is_causal=True)
    assert out.dtype == jnp.bfloat16 and np.isfinite(np.asarray(out, np.float32)).all()
    exact = laser_attention(*(np.asarray(x, np.float32) for x in bf), is_causal=True)
    np.testing.assert_allclose(np.asarray(out, np.float32), exact, atol=0.1)


def test_decode_with_running_max_equals_causal_attention(x64: None) -> None:
    q, k, v = qkv(12)
    v[:, 10] += 80.0
    cache = init_cache(B, T, H, D, jnp.float64)
    steps = []
    for t in range(T):
        out, cache = laser_decode(q[:, t : t + 1], k[:, t : t + 1], v[:, t : t + 1], cache)
        steps.append(out)
    np.testing.assert_allclose(np.concatenate(steps, 1), laser_attention(q, k, v, is_causal=True), atol=1e-10)
    np.testing.assert_allclose(cache.v_max, v.max(1))
    assert int(cache.length) == T


def test_decode_step_is_jittable() -> None:
    q, k, v = qkv(13, dtype=np.float32)
    step = jax.jit(laser_decode)
    out, cache = step(q[:, :1], k[:, :1], v[:, :1], init_cache(B, T, H, D))
    np.testing.assert_allclose(out, v[:, :1], atol=1e-5)  # one key: the output is its value


def test_rejects_wrong_rank_with_a_hint() -> None:
    q, k, v = qkv(dtype=np.float32)
    with pytest.raises(ConfigError, match=r"\(batch, length, heads, dim\)"):
        laser_attention(q[:, :, 0], k, v)


def test_rejects_causal_with_unequal_lengths() -> None:
    q, k, v = qkv(dtype=np.float32)
    with pytest.raises(ConfigError, match="as many queries as keys"):
        laser_attention(q[:, :5], k, v, is_causal=True)


def test_rejects_unknown_shift_and_bad_block() -> None:
    q, k, v = qkv(dtype=np.float32)
    with pytest.raises(ConfigError, match="shift must be"):
        laser_attention(q, k, v, shift="max")  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="block_size"):
        laser_attention(q, k, v, is_causal=True, block_size=0)


def test_decode_rejects_more_than_one_position() -> None:
    q, k, v = qkv(dtype=np.float32)
    with pytest.raises(ConfigError, match="one position at a time"):
        laser_decode(q[:, :2], k[:, :2], v[:, :2], init_cache(B, T, H, D))


def test_uniform_attention_output_lies_within_log_n_of_max_v() -> None:
    """With q = 0 (uniform weights) O = log mean exp(v) ∈ [max v − log n, max v] (non-causal, n = T)."""
    _, k, v = qkv(14, dtype=np.float32)
    out = np.asarray(laser_attention(np.zeros_like(k), k, v))
    top = v.max(1, keepdims=True)
    assert (out <= top + 1e-5).all() and (out >= top - np.log(T) - 1e-5).all()

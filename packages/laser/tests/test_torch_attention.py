"""The PyTorch twin: agrees with the JAX implementation, exact gradients, drop-in for a torch model."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from paperzoo.errors import ConfigError  # noqa: E402
from paperzoo_laser.attention import laser_attention as jax_laser  # noqa: E402
from paperzoo_laser.attention import softmax_attention as jax_softmax  # noqa: E402
from paperzoo_laser.torch_attention import laser_attention, softmax_attention  # noqa: E402

B, H, T, D = 2, 3, 21, 5
CASES = [
    {"is_causal": False},
    {"is_causal": True, "shift": "prefix"},
    {"is_causal": True, "shift": "global"},
    {"is_causal": True, "shift": "prefix", "block_size": 4},
]


def qkv(seed: int = 0, dtype: torch.dtype = torch.float32) -> tuple[torch.Tensor, ...]:
    g = torch.Generator().manual_seed(seed)
    q, k, v = (torch.randn(B, H, T, D, generator=g, dtype=torch.float64) for _ in range(3))
    return q.to(dtype), k.to(dtype), (3 * v).to(dtype)


@pytest.mark.parametrize("kwargs", CASES)
@pytest.mark.parametrize("lengths", [None, [T, 9]])
def test_torch_and_jax_agree_to_1e_5(kwargs: dict, lengths: list[int] | None) -> None:
    q, k, v = qkv(1)
    key_lengths = None if lengths is None else torch.tensor(lengths)
    out = laser_attention(q, k, v, key_lengths=key_lengths, **kwargs).numpy()
    jq, jk, jv = (x.transpose(1, 2).numpy() for x in (q, k, v))
    jax_lengths = None if lengths is None else np.array(lengths)
    expected = np.asarray(jax_laser(jq, jk, jv, key_lengths=jax_lengths, **kwargs))
    np.testing.assert_allclose(out, expected.transpose(0, 2, 1, 3), atol=1e-5, rtol=1e-5)
    soft = softmax_attention(q, k, v, is_causal=kwargs["is_causal"], key_lengths=key_lengths).numpy()
    jsoft = np.asarray(jax_softmax(jq, jk, jv, is_causal=kwargs["is_causal"], key_lengths=jax_lengths))
    np.testing.assert_allclose(soft, jsoft.transpose(0, 2, 1, 3), atol=1e-5)


@pytest.mark.parametrize("kwargs", CASES)
def test_gradcheck_in_float64(kwargs: dict) -> None:
    q, k, v = (x[:1, :1, :9].clone().requires_grad_() for x in qkv(2, torch.float64))
    assert torch.autograd.gradcheck(lambda q, k, v: laser_attention(q, k, v, **kwargs), (q, k, v))


def test_matches_sdpa_logic_for_constant_values_and_jensen() -> None:
    q, k, _ = qkv(3)
    v = torch.linspace(-20, 20, D).expand(B, H, T, D)
    torch.testing.assert_close(laser_attention(q, k, v, is_causal=True), v, atol=1e-5, rtol=0)
    _, _, v = qkv(3)
    ours = laser_attention(q, k, v, is_causal=True)
    sdpa = torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True)
    assert (ours >= sdpa - 1e-5).all()


def test_no_nan_with_causal_mask_on_adversarial_values() -> None:
    q, k, v = qkv(4)
    v = v.clone()
    v[:, :, 15:] += 1000.0
    v.requires_grad_()
    out = laser_attention(q, k, v, is_causal=True)
    out.sum().backward()
    assert torch.isfinite(out).all() and torch.isfinite(v.grad).all()


def test_bf16_inputs_stay_bf16_and_finite() -> None:
    q, k, v = qkv(5, torch.bfloat16)
    out = laser_attention(q, k, v, is_causal=True)
    assert out.dtype == torch.bfloat16 and torch.isfinite(out).all()


def test_rejects_attn_mask_and_dropout_with_what_to_do() -> None:
    q, k, v = qkv()
    with pytest.raises(ConfigError, match="takes no attn_mask") as info:
        laser_attention(q, k, v, attn_mask=torch.ones(T, T, dtype=torch.bool))
    assert "is_causal" in (info.value.hint or "")
    with pytest.raises(ConfigError, match="dropout"):
        laser_attention(q, k, v, dropout_p=0.1)


class TinyTorchLM(torch.nn.Module):
    """A small pre-LN causal transformer whose attention function is a constructor argument."""

    def __init__(
        self, attention, vocab: int = 32, d: int = 32, heads: int = 4, layers: int = 2, context: int = 16
    ):
        super().__init__()
        self.attention, self.heads = attention, heads
        self.embed = torch.nn.Embedding(vocab, d)
        self.pos = torch.nn.Parameter(torch.zeros(context, d))
        self.qkv = torch.nn.ModuleList(torch.nn.Linear(d, 3 * d) for _ in range(layers))
        self.out = torch.nn.ModuleList(torch.nn.Linear(d, d) for _ in range(layers))
        self.norm = torch.nn.ModuleList(torch.nn.LayerNorm(d) for _ in range(layers))
        self.head = torch.nn.Linear(d, vocab)

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        x = self.embed(tokens) + self.pos[: tokens.shape[1]]
        b, t, d = x.shape
        for qkv, out, norm in zip(self.qkv, self.out, self.norm):
            q, k, v = qkv(norm(x)).view(b, t, 3, self.heads, d // self.heads).permute(2, 0, 3, 1, 4)
            x = x + out(self.attention(q, k, v, is_causal=True).transpose(1, 2).reshape(b, t, d))
        return self.head(x)


@pytest.fixture
def one_thread():
    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # tiny tensors: threads only contend
    yield
    torch.set_num_threads(threads)


def test_drop_in_for_scaled_dot_product_attention_in_a_torch_transformer(one_thread: None) -> None:
    """Same model code, attention swapped: LASER trains a torch model as SDPA does (loss falls, no NaN)."""
    g = torch.Generator().manual_seed(0)
    data = torch.randint(0, 8, (32, 17), generator=g) * 3 % 32  # a learnable, repetitive token stream
    data[:, 1::2] = (data[:, 0::2][:, : data[:, 1::2].shape[1]] + 1) % 32
    losses = {}
    for name, attention in (
        ("sdpa", torch.nn.functional.scaled_dot_product_attention),
        ("laser", laser_attention),
    ):
        torch.manual_seed(0)
        model = TinyTorchLM(attention)
        optimiser = torch.optim.AdamW(model.parameters(), lr=3e-3)
        for _ in range(40):
            logits = model(data[:, :-1])
            loss = torch.nn.functional.cross_entropy(logits.reshape(-1, 32), data[:, 1:].reshape(-1))
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
        losses[name] = loss.item()
    assert np.isfinite(list(losses.values())).all()
    assert max(losses.values()) < 0.6 * np.log(32), losses

"""paperzoo plugin ``laser``: the manifest.

Everything is named here and pointed at by a package-relative ``".module:attr"``
target, imported on first use: listing plugins never imports numpy, torch or jax.
"""

from __future__ import annotations

from paperzoo import DataFile, Plugin, Ref, Setting

TINYSHAKESPEARE = DataFile(
    path="tinyshakespeare/input.txt",
    url="https://raw.githubusercontent.com/karpathy/char-rnn/master/data/tinyshakespeare/input.txt",
    sha256="86c4e6aa9db7c042ec79f339dcb96d42b0075e16b8fc2e86bf0ca57e2dc565ed",
    size=1_115_394,
)

_WIKITEXT2_URL = (
    "https://raw.githubusercontent.com/pytorch/examples/main/word_language_model/data/wikitext-2/"
)
WIKITEXT2 = (
    DataFile(
        path="wikitext-2/valid.txt",
        url=_WIKITEXT2_URL + "valid.txt",
        sha256="f0737ed31fc1329026e95cb8b98e19c2a182c39c240ab909dc31abf2f8af58e8",
        size=1_121_681,
    ),
    DataFile(
        path="wikitext-2/test.txt",
        url=_WIKITEXT2_URL + "test.txt",
        sha256="d790b833ef8cf03a90db7bf1271b7520b83c45ce07ba3c1a9699df81e239eca0",
        size=1_256_449,
    ),
)

plugin = Plugin(
    "laser",
    framework="jax",
    paper="LASER: Attention with Exponential Transformation",
    venue="ICML 2025",
    url="https://arxiv.org/abs/2411.03493",
)

plugin.metric(
    "small-attention-fraction",
    ".training:small_probability_fraction",
    "Share of visible causal attention probabilities below 1e-3 (the paper's vanishing-gradient cue).",
    formula="mean over layers, heads and i ≥ j of [a_ij < 1e-3]",
)

plugin.dataset("tinyshakespeare", ".text:load_tinyshakespeare",
               "tiny-shakespeare as byte tokens: first 90 % train, last 10 % validation.",
               files=(TINYSHAKESPEARE,), homepage="https://github.com/karpathy/char-rnn", license="MIT",
               citation="Karpathy, char-rnn (2015), data/tinyshakespeare/input.txt")  # fmt: skip
plugin.dataset("wikitext-2", ".text:load_wikitext2",
               "WikiText-2 (tokenised) as byte tokens: its valid split trains, its test split validates.",
               files=WIKITEXT2, homepage="https://github.com/pytorch/examples/tree/main/word_language_model",
               license="CC BY-SA 3.0", citation="Merity et al., Pointer Sentinel Mixture Models, ICLR 2017")  # fmt: skip

LM_SETTINGS = {
    "corpus": Setting("tinyshakespeare", choices=("tinyshakespeare", "wikitext-2")),
    "attentions": Setting.choice_list(("softmax", "laser")),
    "laser_shift": Setting("global", choices=("global", "prefix"), help="LASER's shift m under the causal mask"),
    "seeds": Setting(3, low=1, help="training runs per attention"),
    "d_model": Setting(64, low=1),
    "n_layers": Setting(2, low=1),
    "n_heads": Setting(4, low=1, help="must divide d_model"),
    "context": Setting(64, low=1),
    "batch_size": Setting(16, low=1),
    "steps": Setting(1000, low=1, help="AdamW steps"),
    "lr": Setting(2e-3, low=0, low_open=True, help="peak learning rate"),
    "warmup": Setting(30, low=0, help="linear warm-up steps"),
    "eval_every": Setting(100, low=1),
    "eval_batches": Setting(8, low=1),
    "checkpoint": True,
}  # fmt: skip
"""``laser.lm`` at the default scale (≤ 10 min on 2 CPU cores, all seeds and both attentions)."""

plugin.experiment(
    "lm",
    ".experiments:lm",
    "Causal LM on tiny-shakespeare, softmax vs LASER: validation loss, gradient norms, small probs.",
    settings=LM_SETTINGS,
    scales={
        "smoke": {
            "seeds": 2,
            "d_model": 32,
            "n_layers": 1,
            "context": 32,
            "steps": 40,
            "eval_every": 20,
            "eval_batches": 2,
            "checkpoint": False,
        },
        "paper": {
            "seeds": 3,
            "d_model": 128,
            "n_layers": 4,
            "context": 128,
            "steps": 1000,
            "lr": 1e-3,
            "warmup": 50,
            "eval_every": 100,
        },  # a CPU re-run of the paper's setup; the paper's 301M-parameter C4 model is out of reach
    },
    references={
        "LASER vs softmax, final validation loss": Ref(
            -1.74, "§4.1: 301M-parameter LM on C4, test loss 2.595 (LASER) vs 2.641 (softmax), arXiv v2"
        )
    },
    test_scale={
        "seeds": 1,
        "d_model": 16,
        "n_heads": 2,
        "context": 16,
        "steps": 6,
        "eval_every": 3,
        "eval_batches": 1,
    },
    datasets=("tinyshakespeare",),
    reproduces="301M C4 LM: LASER test loss 2.595 vs softmax 2.641 (−1.74 %); CPU re-run of the paper's setup −1.6 %",
)

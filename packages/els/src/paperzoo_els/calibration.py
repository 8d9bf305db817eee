"""Calibrating the time-dependent patch size P(t) against a trained network (§5).

Along the network's own deterministic trajectory x_t, at every sampler step pick the P
maximising the cosine similarity between the machine's score and the network's,
cos(s_M(x_t, t; P), s_θ(x_t, t)); the schedule is the median over calibration samples.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from paperzoo.errors import ConfigError
from paperzoo_els.metrics import cosine_similarity
from paperzoo_els.schedule import time_grid

__all__ = ["Calibration", "calibrate_patch_sizes", "cosine_similarity"]


@dataclass(frozen=True)
class Calibration:
    """A calibrated schedule: ``schedule[k]`` is P at t = (k + 1)/steps (index 0 = the last,
    least noisy step), ``similarity`` (samples, steps, candidates) the cosines behind it."""

    schedule: list[int]
    candidates: list[int]
    similarity: np.ndarray


def calibrate_patch_sizes(machine, network, noise: np.ndarray, candidates: Sequence[int], steps: int = 20) -> Calibration:  # fmt: skip
    """Best P per step along the network's trajectories from ``noise``; median over samples.

    Args:
        machine: A fitted LS or ELS machine (``score(x_t, t, patch_size)``).
        network: A fitted :class:`~paperzoo_els.training.DDPMNetwork`.
        noise: (S, H, W, C) initial noise of the S calibration samples.
        candidates: Odd patch sizes to try (the official code: 3, 5, …, 17).
    """
    candidates = sorted(int(p) for p in candidates)
    if not candidates:
        raise ConfigError("calibration needs at least one candidate patch size", hint="e.g. [3, 5, 7, 9]")
    trajectory: list[np.ndarray] = []
    network.sample(noise, steps, trajectory=trajectory)
    sims = np.empty((noise.shape[0], steps, len(candidates)))
    for x, t in zip(trajectory, time_grid(steps)):
        k = round(t * steps) - 1
        target = network.score(x, float(t))
        sims[:, k, :] = np.stack(
            [cosine_similarity(machine.score(x, float(t), p), target) for p in candidates], axis=1
        )
    best = np.asarray(candidates)[sims.argmax(axis=2)]  # (S, steps)
    lower_median = np.sort(best, axis=0)[(best.shape[0] - 1) // 2]
    return Calibration([int(p) for p in lower_median], candidates, sims)

"""Experiments: ELS, LS and IS machines against a trained conv-only network (Table 1).

``els.mnist``, ``els.fashion-mnist`` and ``els.cifar10`` share one procedure:

1. the first ``n_train`` training images, resized to ``image_size`` and scaled to [−1, 1];
2. a conv-only network (ResNet or UNet) trained with the DDPM ε-MSE (orbax-cached);
3. P(t) calibrated for ELS and LS on the network's trajectories (``calib_samples`` seeds,
   machines built on the first ``calib_train`` images);
4. ``n_samples`` seeds: network, ELS, LS and IS sampled from the same noise with the same
   20-step DDIM sampler; per seed the Pearson r of mean-centred images (the paper's "r²"),
   r², and the distance to the nearest training image.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

import numpy as np

from paperzoo.results import Result
from paperzoo_els.calibration import calibrate_patch_sizes
from paperzoo_els.datasets import LOADERS, to_unit_range
from paperzoo_els.machines import EquivariantLocalScoreMachine, IdealScoreMachine, LocalScoreMachine
from paperzoo_els.metrics import nearest_training_distance, pearson_r, provenance_diversity
from paperzoo_els.training import DDPMNetwork

if TYPE_CHECKING:
    from paperzoo.runs import Run

__all__ = ["compare"]

BATCH = 8  # machine samples per call: bounds memory at B·(H·W)²·chunk floats


def _batched(machine, noise: np.ndarray, steps: int, schedule: list[int]) -> tuple[np.ndarray, np.ndarray]:
    """Machine samples in batches of :data:`BATCH`, and the provenance of their last step."""
    outs, provs = [], []
    for start in range(0, len(noise), BATCH):
        trajectory: list[np.ndarray] = []
        outs.append(machine.sample(noise[start : start + BATCH], steps, schedule, trajectory=trajectory))
        provs.append(machine.denoise_with_provenance(trajectory[-1], 1.0 / steps, schedule[0])[1])
    return np.concatenate(outs), np.concatenate(provs)


def compare(run: Run) -> Result:
    """Median r (and r²) of ELS, LS and IS against the trained network; creativity vs memorisation."""
    s = dict(run.settings)
    start = time.perf_counter()
    images = to_unit_range(LOADERS[s["dataset"]](), s["n_train"], s["image_size"])
    network = DDPMNetwork(s["architecture"], s["width"], s["depth"], s["padding"], s["train_steps"],
                          s["batch_size"], s["learning_rate"], s["warmup_steps"], s["clip_norm"],
                          seed=run.seed).fit(images)  # fmt: skip
    train_s = time.perf_counter() - start
    for i, loss in enumerate(network.losses_[:: max(1, len(network.losses_) // 50)]):
        run.log_step(i, loss=float(loss))
    shape = images.shape[1:]
    machines = {
        "ELS": EquivariantLocalScoreMachine(padding=s["padding"], chunk_size=s["chunk_size"]),
        "LS": LocalScoreMachine(padding=s["padding"], chunk_size=s["chunk_size"]),
        "IS": IdealScoreMachine(chunk_size=s["chunk_size"]),
    }
    candidates = [p for p in s["patch_sizes"] if s["padding"] == "zeros" or p <= min(shape[:2])]
    calib_noise = run.rng(1).standard_normal((s["calib_samples"], *shape)).astype(np.float32)
    schedules: dict[str, list[int]] = {"IS": [1] * s["steps"]}
    calibrations = {}
    for name in ("ELS", "LS"):
        subset = type(machines[name])(padding=s["padding"], chunk_size=s["chunk_size"]).fit(
            images[: s["calib_train"]]
        )
        calibrations[name] = calibrate_patch_sizes(subset, network, calib_noise, candidates, s["steps"])
        schedules[name] = calibrations[name].schedule
    calib_s = time.perf_counter() - start - train_s

    noise = run.rng(2).standard_normal((s["n_samples"], *shape)).astype(np.float32)
    outputs = {"network": network.sample(noise, s["steps"])}
    provenance = {}
    for name, machine in machines.items():
        machine.fit(images)
        outputs[name], provenance[name] = _batched(machine, noise, s["steps"], schedules[name])
    sample_s = time.perf_counter() - start - train_s - calib_s

    setting = {"data": s["dataset"], "size": s["image_size"], "N": s["n_train"], "net": s["architecture"],
               "padding": s["padding"], "seeds": s["n_samples"]}  # fmt: skip
    result = Result()
    r = {name: pearson_r(outputs[name], outputs["network"]) for name in machines}
    for name in machines:
        where = {"machine": name, **setting}
        result.add("median r vs network (paper's 'r²')", float(np.median(r[name])), setting=where)
        result.add("median r² vs network", float(np.median(r[name] ** 2)), setting=where)
    result.add("share of seeds with r(ELS) > r(IS)", float(np.mean(r["ELS"] > r["IS"])), setting=setting)
    nearest = {}
    for name in ("network", *machines):
        dist, idx = nearest_training_distance(outputs[name], images)
        nearest[name] = idx
        result.add("median distance to nearest training image", float(np.median(dist)),
                   unit="L2, pixels in [−1, 1]", setting={"output": name, **setting})  # fmt: skip
    result.add("median training images per ELS output (provenance)",
               float(np.median(provenance_diversity(provenance["ELS"]))), setting=setting)  # fmt: skip
    result.add("final training loss (ε-MSE)", float(np.mean(network.losses_[-20:])), setting=setting)
    for label, seconds in (("train", train_s), ("calibrate", calib_s), ("sample", sample_s)):
        result.add(f"wall time: {label}", seconds, unit="s", setting=setting)

    run.save_json(
        {
            "settings": s,
            "schedules": schedules,
            "calibration_similarity": {k: c.similarity.tolist() for k, c in calibrations.items()},
            "candidates": candidates,
            "r": {k: v.tolist() for k, v in r.items()},
            "network_from_cache": bool(network.from_cache_),
            "network_hash": network.config_hash_,
        },
        "comparison",
    )
    from paperzoo_els.plots import plot_grid, plot_mosaic, plot_schedule

    plot_grid(run, {"network": outputs["network"], "ELS": outputs["ELS"], "IS": outputs["IS"],
                    "nearest training": images[nearest["network"]]}, "grid",
              f"{s['dataset']}: network | ELS | IS | nearest training image")  # fmt: skip
    plot_mosaic(run, outputs["ELS"], provenance["ELS"], "mosaic",
                f"{s['dataset']}: ELS outputs as mosaics of training patches")  # fmt: skip
    plot_schedule(run, {k: v for k, v in schedules.items() if k != "IS"}, "patch_schedule")
    result.notes = (
        f"{s['n_train']} training images of {s['dataset']} at {s['image_size']}×{s['image_size']}"
        + (" (MNIST's t10k split: the mirror has no train split)" if s["dataset"] == "mnist" else "")
        + f"; {s['architecture']} width {s['width']} depth {s['depth']}, {s['padding']} padding, "
        f"{s['train_steps']} AdamW steps (network {'from cache' if network.from_cache_ else 'trained now'}); "
        f"P(t) calibrated on {s['calib_samples']} seeds with machines on the first {s['calib_train']} images; "
        f"{s['steps']}-step DDIM for network and machines. r is Pearson r of mean-centred images "
        "(the paper's 'r²' column); r² is its square."
    )
    return result

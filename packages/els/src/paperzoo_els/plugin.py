"""paperzoo plugin ``els``: hook implementations only.

Everything is named here and pointed at by a ``"module:attr"`` target, imported on
first use: listing plugins never imports numpy, torch or jax.
"""

from __future__ import annotations

from collections.abc import Callable

from paperzoo import EstimatorSpec, ExperimentSpec, PluginInfo, hookimpl


@hookimpl
def paperzoo_plugin_info() -> PluginInfo:
    return PluginInfo(
        id="els",
        framework="jax",
        paper="An analytic theory of creativity in convolutional diffusion models",
        venue="ICML 2025",
        url="",
    )


@hookimpl
def paperzoo_register_estimators(register: Callable[[EstimatorSpec], None]) -> None:
    register(
        EstimatorSpec(
            name="els.shrunk-mean",
            target="paperzoo_els.estimators:ShrunkMean",
            summary="Placeholder: the training mean of y, shrunk towards zero.",
            framework="numpy",  # what importing the target costs
        )
    )


@hookimpl
def paperzoo_register_experiments(register: Callable[[ExperimentSpec], None]) -> None:
    register(
        ExperimentSpec(
            name="els.example",
            target="paperzoo_els.experiments:example",
            summary="Placeholder: error of the shrunk mean against the true mean.",
            settings={"n": 10_000, "shrinkage": 0.1},  # the default scale (≤ 10 min)
            scales={
                "smoke": {"n": 200},  # ≤ 1 min on 2 CPU cores
                "paper": {"n": 1_000_000},  # the paper's own setting
            },
            reproduces="(placeholder)",
        )
    )

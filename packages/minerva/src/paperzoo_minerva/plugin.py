"""paperzoo plugin ``minerva``: hook implementations only (nothing heavy imported)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from paperzoo import DatasetSpec, ExperimentSpec, MetricSpec, PluginInfo, hookimpl

if TYPE_CHECKING:
    import click

PAPER = "Minerva: A Programmable Memory Test Benchmark for Language Models"

_RUN_SETTINGS = {
    "responder": ["oracle", "always-yes"],
    "tasks": [],
    "limit": 0,
    "max_tokens": 4096,
    "max_concurrency": 4,
    "base_url": "",
}


@hookimpl
def paperzoo_plugin_info() -> PluginInfo:
    return PluginInfo(
        id="minerva",
        framework="python",
        paper=PAPER,
        venue="ICML 2025",
        url="https://arxiv.org/abs/2502.03358",
    )


@hookimpl
def paperzoo_register_metrics(register: Callable[[MetricSpec], None]) -> None:
    for name, formula in (
        ("exact_match", "reference is a substring of the lower-cased answer (Minerva's rule)"),
        ("exact_match_strict", "normalised answer == reference"),
        ("rouge", "ROUGE-1 / ROUGE-L F1 (no stemming)"),
        ("set_overlap", "precision, recall, F1, Jaccard of the ', '-separated items"),
        ("theory_of_mind", "set overlap per agent, averaged"),
        ("count_accuracy", "stated count == reference count"),
    ):
        register(MetricSpec(f"minerva.{name.replace('_', '-')}", f"paperzoo_minerva.scoring:{name}",
                            f"Minerva scorer {name}.", formula=formula, greater_is_better=True))  # fmt: skip


@hookimpl
def paperzoo_register_datasets(register: Callable[[DatasetSpec], None]) -> None:
    from paperzoo_minerva.snapshot import SNAPSHOT_FILES

    register(
        DatasetSpec(
            "minerva.snapshot",
            "paperzoo_minerva.snapshot:load_snapshot",
            "The published Minerva snapshot: 1,180 prompts in 28 tasks and 7 categories.",
            files=tuple(SNAPSHOT_FILES.values()),
            homepage="https://github.com/microsoft/minerva_memory_test",
            license="CDLA-Permissive-2.0 (data), MIT (code)",
            citation="Xia, Rühle, Rajmohan & Shokri, Minerva, ICML 2025.",
        )
    )


@hookimpl
def paperzoo_register_experiments(register: Callable[[ExperimentSpec], None]) -> None:
    register(
        ExperimentSpec(
            "minerva.snapshot",
            "paperzoo_minerva.experiments:snapshot",
            "The published snapshot answered by the oracle, always-yes and any LLM backends.",
            settings=_RUN_SETTINGS,
            scales={
                "smoke": {"limit": 3},
                "paper": {"responder": ["oracle", "always-yes", "transformers:smollm2"]},
            },
            reproduces="Table 2 / Figure 3 protocol (per-task and per-category scores)",
        )
    )
    register(
        ExperimentSpec(
            "minerva.generated",
            "paperzoo_minerva.experiments:generated",
            "A freshly generated suite, checked against the snapshot's statistics and answered.",
            settings={**_RUN_SETTINGS, "context_length": 4000, "compare_snapshot": True},
            scales={
                "smoke": {"limit": 2, "tasks": ["string_search_word", "count", "iterate_first", "set_state"]}
            },
            reproduces="the benchmark generator (task counts, yes/no balance, context lengths)",
        )
    )


@hookimpl
def paperzoo_register_commands(cli: click.Group) -> None:
    from paperzoo_minerva.cli import minerva

    cli.add_command(minerva)

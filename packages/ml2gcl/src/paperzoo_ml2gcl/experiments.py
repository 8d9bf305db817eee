"""Experiments: node classification by linear probe, and efficiency as N grows.

Each returns a :class:`paperzoo.Result` and never prints. The reference values
are declared in the manifest (``plugin.py``): the official code run on a 2-core
CPU with its defaults (Cora 82.1, CiteSeer 69.5 over 20 random splits); the
paper's own table could not be read, so Amazon-Photo and Coauthor-CS have none.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from paperzoo import Result
from paperzoo_graph.datasets import load_graph
from paperzoo_graph.evaluation import linear_probe, public_split, random_splits
from paperzoo_graph.grace import GRACE
from paperzoo_ml2gcl.efficiency import measure_in_subprocess
from paperzoo_ml2gcl.estimator import ML2GCL
from paperzoo_ml2gcl.plots import plot_accuracy, plot_efficiency

if TYPE_CHECKING:
    from paperzoo import Run

__all__ = ["efficiency", "node_classification"]

PLANETOID = ("cora", "citeseer")
LABELS = {"ml2gcl": "ML²-GCL", "grace": "GRACE"}


def _splits(graph: Any, n_splits: int, seed: int) -> list[Any]:
    """20 per class / 500 / 1000 on Planetoid graphs; 20 / 30 per class / rest elsewhere."""
    if graph.name in PLANETOID:
        return random_splits(graph.y, n_splits=n_splits, seed=seed)
    return random_splits(graph.y, n_splits=n_splits, val_per_class=30, n_test=None, seed=seed)


def _fit(method: str, dataset: str, graph: Any, settings: dict[str, Any], seed: int) -> tuple[Any, float]:
    start = time.perf_counter()
    if method == "ml2gcl":
        sampled = graph.num_nodes > settings["exact_loss_max_nodes"]
        model = ML2GCL(
            epochs=settings["epochs"],
            negatives=settings["negatives"],
            num_negatives=settings["num_negatives"] if sampled else None,
            seed=seed,
        ).fit(graph)
    elif method == "grace":
        overrides = {"seed": seed}
        if settings["grace_epochs"] is not None:
            overrides["epochs"] = settings["grace_epochs"]
        model = GRACE.for_dataset(dataset, **overrides).fit(graph)
    else:
        raise ValueError(f"unknown method {method!r}; choose ml2gcl or grace")
    return model, time.perf_counter() - start


def node_classification(run: Run) -> Result:
    """Linear-probe accuracy of ML²-GCL (and GRACE) embeddings, mean ± std over random splits."""
    s = run.settings
    result = Result()
    records = []
    for dataset in run.progress(s["datasets"], description="datasets"):
        graph = load_graph(dataset)
        splits = _splits(graph, s["n_splits"], run.seed)
        for method in s["methods"]:
            if method != "ml2gcl" and graph.num_nodes > s["baseline_max_nodes"]:
                result.add(
                    f"{LABELS[method]} skipped",
                    None,
                    setting={
                        "dataset": dataset,
                        "reason": f"N > baseline_max_nodes={s['baseline_max_nodes']}",
                    },
                )
                continue
            model, fit_s = _fit(method, dataset, graph, s, run.seed)
            probe = linear_probe(model.embeddings_, graph.y, splits)
            setting = {"dataset": dataset, "method": LABELS[method]}
            result.add(f"accuracy, {s['n_splits']} random splits", probe.mean, unit="%", setting=setting)
            result.add("accuracy std over splits", probe.std, unit="%", setting=setting)
            record = {
                "dataset": dataset,
                "method": method,
                "mean": probe.mean,
                "std": probe.std,
                "fit_s": fit_s,
            }
            if dataset in PLANETOID:
                public = linear_probe(model.embeddings_, graph.y, [public_split(graph)])
                result.add("accuracy, public split", public.mean, unit="%", setting=setting)
                record["public"] = public.mean
            result.add("training time", fit_s, unit="s", setting=setting)
            if method == "ml2gcl":
                result.add("closed-form weights time", model.timings_["weights"], unit="s", setting=setting)
            run.log_metric(f"{dataset}/{method}/accuracy", probe.mean)
            records.append(record)
    run.save_json(records, "accuracy.json", title="accuracy per dataset and method")
    plot_accuracy(run, records)
    result.notes = (
        "'paper' = the official code (github.com/a-hou/ML2-GCL) on a 2-core CPU with its defaults, 20 "
        "random splits; the paper's own table could not be read. Probe: logistic regression, C chosen on the validation nodes."
    )
    return result


def _large_graph_options(method: str, n: int, s: Mapping[str, Any]) -> dict[str, Any]:
    """Above ``exact_loss_max_nodes``: sampled negatives for ML²-GCL, a row-blocked loss for GRACE."""
    if n <= s["exact_loss_max_nodes"]:
        return {}
    return {"num_negatives": s["num_negatives"]} if method == "ml2gcl" else {"batch_size": 1024}


def efficiency(run: Run) -> Result:
    """Seconds per epoch, weight time and peak memory against N on SBM graphs, ML²-GCL vs GRACE."""
    s = run.settings
    result = Result()
    records = []
    cases = [(n, m) for n in s["n_nodes"] for m in s["methods"]]
    for n, method in run.progress(cases, description="graphs"):
        spec = {
            "method": method,
            "n_nodes": int(n),
            "epochs": s["epochs"],
            "n_features": s["n_features"],
            "seed": run.seed,
            "options": _large_graph_options(method, n, s),
        }
        if method == "grace" and n > s["baseline_max_nodes"]:
            record = {**spec, "status": "skipped"}
        else:
            record = measure_in_subprocess(spec, timeout_s=s["timeout_s"])
        records.append(record)
        setting = {"N": n, "method": LABELS[method]}
        if record["status"] != "ok":
            result.add(f"not measured ({record['status']})", None, setting=setting)
            continue
        result.add("time per epoch", record["epoch_s"], unit="s", setting=setting)
        result.add("peak memory", record["peak_rss_mb"], unit="MiB", setting=setting)
        result.add(
            "memory for training",
            record["peak_rss_mb"] - record["rss_before_mb"],
            unit="MiB",
            setting=setting,
        )
        if method == "ml2gcl":
            result.add("closed-form weights time", record["weights_s"], unit="s", setting=setting)
    run.save_json(records, "efficiency.json", title="time and memory per graph size")
    plot_efficiency(run, records)
    result.notes = (
        f"SBM graphs ({s['n_features']} binary features, average degree 10); each measurement in a fresh "
        f"process; above {s['exact_loss_max_nodes']:,} nodes ML²-GCL uses {s['num_negatives']} sampled negatives "
        "and GRACE its loss in blocks of 1,024 rows (both exact below)."
    )
    return result

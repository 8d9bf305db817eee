"""Experiments: FPR against bits per key, on synthetic scores and on malicious URLs.

* ``elbf.synthetic`` — a reconstructed toy model [reconstructed]: two oracle families
  at five sizes each, Gaussian scores whose separation grows with log(size), at
  several correlations ρ. Every method of :mod:`paperzoo_elbf.compare` at each
  budget; the empirical FPR over ``n_test`` fresh non-keys beside the analytic
  FPR of the built filters.
* ``elbf.urls`` — keys: the mirror's malicious URLs; non-keys: synthetic benign
  URLs with the keys' structure (the mirror has no benign URLs; see
  :mod:`paperzoo_elbf.urls`). Oracles: host 3-gram logistic regressions and
  shape trees at several sizes.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from paperzoo.results import Result
from paperzoo_elbf.compare import MethodResult, compare_methods
from paperzoo_elbf.oracles import MemoOracle
from paperzoo_elbf.plots import plot_analytic, plot_fpr
from paperzoo_elbf.synthetic import synthetic_scores
from paperzoo_elbf.urls import benign_urls, malicious_urls, url_oracles

if TYPE_CHECKING:
    from paperzoo.runs import Run

__all__ = ["synthetic", "urls"]


def _rows(result: Result, found: Sequence[MethodResult], setting: dict[str, Any]) -> None:
    """The rows of one budget; the reference values come from the manifest's ``references``."""
    for r in found:
        where = {"method": r.method, **setting}
        result.add("FPR", r.fpr, setting=where)
        result.add("FPR, analytic", r.analytic_fpr, setting=where)
        result.add("bits used / key", r.size_in_bits / setting["keys"], unit="bits", setting=where)
        result.add("false negatives", r.false_negatives, setting=where)


def synthetic(run: Run) -> Result:
    """FPR vs bits/key for every method on the toy model, at each correlation."""
    s = run.settings
    result = Result()
    records: list[dict[str, Any]] = []
    for rho in run.progress(s["correlations"], total=len(s["correlations"]), description="correlations"):
        data = synthetic_scores(
            s["n_keys"], s["n_holdout"], s["n_test"] + s["n_calibration"], sizes=[max(1, round(f * s["n_keys"])) for f in s["sizes_per_key"]],
            d0=s["d0"], slope=s["slope"], correlation=rho, seed=int(run.rng(0).integers(2**31)),
        )  # fmt: skip
        for bpk in s["bits_per_key"]:
            test, calibration = data.test[: s["n_test"]], data.test[s["n_test"] :]
            found = compare_methods(data.oracles, data.groups, data.keys, data.holdout, test, bpk,
                                    methods=s["methods"], seed=run.seed, calibration=calibration)  # fmt: skip
            setting = {"ρ": rho, "bits/key": bpk, "keys": s["n_keys"]}
            _rows(result, found, setting)
            records += [{"correlation": rho, "bits_per_key": bpk, **r.__dict__} for r in found]
    run.save_json(records, "fpr")
    plot_fpr(run, records, by="correlation")
    plot_analytic(run, records)
    result.notes = (
        "'paper' is a reconstructed toy analytic model at ρ = 0 (reconstructed: the paper's own tables were not "
        f"readable); FPR measured on {s['n_test']:,} fresh non-keys; analytic = the built filters' "
        f"(1 − e^(−kn/m))^k with the oracles' pass rates on {s['n_calibration']:,} other fresh non-keys "
        "(not the held-out ones the thresholds were chosen on, where they are optimistic)."
    )
    return result


def urls(run: Run) -> Result:
    """FPR vs bits/key on malicious URLs against synthetic structure-matched benign URLs."""
    s = run.settings
    keys = malicious_urls()
    counts = np.cumsum([s["n_train"], s["n_holdout"], s["n_test"], s["n_calibration"]])
    negatives = benign_urls(int(counts[-1]), keys, seed=run.seed)
    train, holdout, test, calibration = np.split(np.array(negatives, dtype=object), counts[:-1])
    oracles, groups = url_oracles(
        keys, train, host_bits=s["host_bits"], tree_depths=s["tree_depths"], seed=run.seed
    )
    memo = [MemoOracle(o) for o in oracles]
    as_array = np.array  # object arrays keep arbitrary-length strings without padding
    result = Result()
    records: list[dict[str, Any]] = []
    for bpk in run.progress(s["bits_per_key"], total=len(s["bits_per_key"]), description="budgets"):
        found = compare_methods(memo, groups, as_array(keys, dtype=object), holdout, test, bpk,
                                methods=s["methods"], seed=run.seed, calibration=calibration)  # fmt: skip
        _rows(result, found, {"bits/key": bpk, "keys": len(keys)})
        records += [{"bits_per_key": bpk, **r.__dict__} for r in found]
    for o in oracles:
        result.add("oracle size", o.size_in_bits, unit="bits", setting={"oracle": o.name})
    run.save_json(records, "fpr")
    plot_fpr(run, records, by=None)
    result.notes = (
        f"{len(keys):,} distinct malicious URLs (the mirror's urldata.csv) as keys; its file has no benign URLs, so "
        f"the {len(test):,} test non-keys are synthetic: keys with every word replaced by a benign word of the same "
        f"length. Analytic FPR: oracle pass rates on {len(calibration):,} further synthetic non-keys. The paper "
        "reports no number for this setting."
    )
    return result

"""How paperzoo names, settings and results become MLflow keys, params and tables."""

from __future__ import annotations

import csv
import io
import re

from paperzoo import Result
from paperzoo_mlflow import keys
from paperzoo_mlflow.tables import result_csv, result_markdown

VALID = re.compile(r"^[\w./\- ]{1,250}$")  # MLflow's rule for keys, without colons (Windows)


def test_keys_are_valid_mlflow_names() -> None:
    for name in [
        "relative PPS (top 10)",
        "α threshold mean(L)/max(L)",
        "a:b",
        "x" * 400,
        "=",
        "a//b",
        "../x",
    ]:
        out = keys.key(name)
        assert VALID.match(out), f"{name!r} → {out!r} is not a valid MLflow key"
        assert ".." not in out and "//" not in out


def test_metric_key_reads_like_the_row() -> None:
    assert keys.metric_key("relative PPS (top 10)", "alpha=0.5, rule=SCUP") == (
        "result/relative PPS _top 10_/alpha_0.5 rule_SCUP"
    )
    assert keys.metric_key("accuracy") == "result/accuracy"


def test_unique_keeps_colliding_keys_apart() -> None:
    taken: set[str] = set()
    names = [keys.unique(keys.metric_key("a (b)"), taken), keys.unique(keys.metric_key("a [b]"), taken)]
    assert names == ["result/a _b_", "result/a _b_ 2"]


def test_flatten_nested_settings() -> None:
    flat = dict(keys.flatten({"opt": {"lr": 0.1, "betas": [0.9, 0.99]}, "n": 3, "empty": {}}))
    assert flat == {"opt.lr": 0.1, "opt.betas": [0.9, 0.99], "n": 3, "empty": {}}


def test_text_stringifies_and_truncates_to_the_limit() -> None:
    assert keys.text([0.1, 0.2], 500) == "[0.1,0.2]"
    assert keys.text(None, 500) == "None"
    long = keys.text("x" * 1000, keys.MAX_PARAM)
    assert len(long) == keys.MAX_PARAM and long.endswith("…")


def result() -> Result:
    return (
        Result(notes="two rows")
        .add("top | PPS", 1.23456789, paper=1.2, setting={"alpha": 0.5})
        .add("undefined", float("nan"), unit="%")
    )


def test_csv_keeps_full_precision_and_empty_cells_for_none() -> None:
    rows = list(csv.DictReader(io.StringIO(result_csv(result()))))
    assert rows[0] == {
        "metric": "top | PPS",
        "setting": "alpha=0.5",
        "value": "1.23456789",
        "paper": "1.2",
        "unit": "",
    }
    assert (rows[1]["value"], rows[1]["paper"], rows[1]["unit"]) == ("", "", "%")


def test_markdown_table_escapes_pipes_and_ends_with_notes() -> None:
    text = result_markdown(result())
    lines = text.splitlines()
    assert lines[0] == "| metric | setting | value | paper | unit |"
    assert lines[2] == "| top \\| PPS | alpha=0.5 | 1.235 | 1.2 |  |"
    assert lines[3] == "| undefined |  | — | — | % |"
    assert lines[-1] == "two rows"

from __future__ import annotations

import re
from pathlib import Path

from paperzoo.host import PluginHost
from paperzoo.paths import store_path
from paperzoo.report import write_report
from paperzoo.runs import RunRequest, execute
from paperzoo.store import ResultsStore


def test_report_shows_ours_beside_paper_and_embeds_figures(host: PluginHost, tmp_path: Path) -> None:
    ok = execute(RunRequest("demo.noisy-mean", seed=0), host=host)
    execute(RunRequest("demo.noisy-mean", overrides={"fail": True}), host=host)
    assert ok.result is not None
    html_path, md_path = write_report(ResultsStore(store_path()), tmp_path / "report")
    page = html_path.read_text()
    ours = ok.result.rows[0].value
    assert ours is not None
    assert f"{ours:.4g}" in page
    assert "<td class='num'>1</td>" in page  # the paper's value for the mean
    assert "RuntimeError: failing on purpose" in page
    sources = re.findall(r"src='([^']*)'", page)
    assert sources
    assert all(s.startswith("data:image/png;base64,") for s in sources)  # self-contained
    markdown = md_path.read_text()
    assert "| mean | n=50 |" in markdown
    images = re.findall(r"\]\((figures/[^)]+)\)", markdown)
    assert images
    assert all((tmp_path / "report" / i).is_file() for i in images)


def test_report_averages_a_sweep(host: PluginHost, tmp_path: Path) -> None:
    for seed in range(3):
        execute(RunRequest("demo.noisy-mean", seed=seed, sweep="s1"), host=host)
    values = [
        ResultsStore(store_path()).result(r.id).rows[0].value for r in ResultsStore(store_path()).runs()
    ]
    _, md_path = write_report(ResultsStore(store_path()), tmp_path / "report")
    markdown = md_path.read_text()
    mean = sum(v for v in values if v is not None) / 3
    assert f"| mean | n=50 | {mean:.4g} |" in markdown
    assert "From 3 run(s)" in markdown


def test_empty_store_gives_a_helpful_report(tmp_path: Path) -> None:
    html_path, _ = write_report(ResultsStore(tmp_path / "none.sqlite"), tmp_path / "report")
    assert "No runs yet" in html_path.read_text()

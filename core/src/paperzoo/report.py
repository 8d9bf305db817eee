"""``paperzoo report``: one self-contained HTML page and one Markdown file.

For every experiment in the results store: our values beside the paper's (from
the latest successful run, averaged over its sweep's seeds when it was a sweep),
the latest runs, the run's figures and, when matplotlib is installed, a chart of
ours/paper per row. Figures are embedded as data URIs in the HTML and copied
next to the Markdown file.
"""

from __future__ import annotations

import base64
import html
import io
import shutil
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from paperzoo._version import __version__
from paperzoo.plotting import pyplot
from paperzoo.results import Artifact, format_value
from paperzoo.store import ResultsStore, RunRecord
from paperzoo.summary import Aggregate, aggregate

__all__ = ["write_report"]

_CSS = """
body{font:15px/1.45 system-ui,sans-serif;max-width:1100px;margin:2em auto;padding:0 1em;color:#222}
h1{margin-bottom:0}h2{border-bottom:1px solid #ddd;padding-bottom:.2em;margin-top:2em}
table{border-collapse:collapse;margin:.6em 0 1.2em}th,td{padding:.25em .7em;border-bottom:1px solid #eee;
text-align:left}th{background:#f6f6f6}td.num{text-align:right;font-variant-numeric:tabular-nums}
.ok{color:#17803d}.failed{color:#b42318}.running{color:#a15c00}.muted{color:#777}
figure{display:inline-block;margin:.5em 1em .5em 0;max-width:48%}figure img{max-width:100%}
figcaption{font-size:.85em;color:#555}code{background:#f3f3f3;padding:0 .25em}
"""


@dataclass
class _Section:
    experiment: str
    plugin: str
    chosen: list[RunRecord]
    recent: list[RunRecord]
    cells: list[Aggregate]
    figures: list[tuple[Path, Artifact]]
    notes: str
    chart: bytes | None


def _html_label(cell: Aggregate) -> str:
    label = cell.reference_label
    return f" <small class='muted'>({html.escape(label)})</small>" if label and cell.paper is not None else ""


def _md_label(cell: Aggregate) -> str:
    label = cell.reference_label
    return f" ({_md_cell(label)})" if label and cell.paper is not None else ""


def _ratio(cell: Aggregate) -> str:
    if cell.mean is None or not cell.paper:
        return ""
    return f"{cell.mean / cell.paper:.3f}"


def _chart(experiment: str, cells: list[Aggregate]) -> bytes | None:
    """A horizontal bar chart of ours/paper, or ``None`` without matplotlib."""
    compared = [c for c in cells if c.mean is not None and c.paper]
    if not compared:
        return None
    plt = pyplot()
    if plt is None:
        return None
    labels = [f"{c.metric} ({c.setting})" if c.setting else c.metric for c in compared]
    ratios = [c.mean / c.paper for c in compared if c.mean is not None and c.paper]
    fig, ax = plt.subplots(figsize=(7, 0.35 * len(compared) + 1.2))
    ax.barh(range(len(ratios)), ratios, color=["#2f6fb0" if r >= 0 else "#b42318" for r in ratios])
    ax.axvline(1.0, color="#444", lw=1, ls="--")
    ax.set_yticks(range(len(labels)), labels, fontsize=8)
    ax.invert_yaxis()
    ax.set_xlabel("ours / paper (1 = reproduced exactly)")
    ax.set_title(f"{experiment}: our values relative to the paper's")
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=110, bbox_inches="tight")
    plt.close(fig)
    return buf.getvalue()


def _section(store: ResultsStore, experiment: str) -> _Section:
    recent = store.runs(experiment=experiment, limit=5)
    succeeded = store.runs(experiment=experiment, status="succeeded", limit=1)
    chosen: list[RunRecord] = []
    if succeeded:
        latest = succeeded[0]
        chosen = (
            store.runs(experiment=experiment, status="succeeded", sweep=latest.sweep)
            if latest.sweep
            else [latest]
        )
    results = [(r, store.result(r.id)) for r in chosen]
    keys = {k for r in chosen for k in r.settings}
    varying = sorted(k for k in keys if len({repr(r.settings.get(k)) for r in chosen}) > 1)
    cells = aggregate(({k: r.settings.get(k) for k in varying}, res) for r, res in results)
    figures = []
    if results:
        record, result = results[0]
        figures = [(Path(record.dir) / a.path, a) for a in result.artifacts if a.kind == "figure"]
    notes = results[0][1].notes if results else ""
    plugin = recent[0].plugin if recent else ""
    return _Section(experiment, plugin, chosen, recent, cells, figures, notes, _chart(experiment, cells))


def _status_class(status: str) -> str:
    return {"succeeded": "ok", "failed": "failed"}.get(status, "running")


def _html(sections: Sequence[_Section], generated: str) -> str:
    e = html.escape
    out = [
        "<!doctype html><html lang='en'><head><meta charset='utf-8'>",
        "<title>paperzoo report</title>",
        f"<style>{_CSS}</style></head><body>",
        "<h1>paperzoo report</h1>",
        f"<p class='muted'>Generated {e(generated)} by paperzoo {e(__version__)}: "
        f"{len(sections)} experiment(s). Values are ours; <em>reference</em> is the number "
        "we compare with for the same cell, labelled with its kind and source.</p>",
    ]
    if not sections:
        out.append("<p>No runs yet. Start one with <code>paperzoo run EXPERIMENT</code>.</p>")
    else:
        out.append(
            "<table><tr><th>experiment</th><th>plugin</th><th>latest run</th><th>scale</th>"
            "<th>status</th><th>rows</th></tr>"
        )
        for s in sections:
            last = s.recent[0]
            out.append(
                f"<tr><td><a href='#{e(s.experiment)}'>{e(s.experiment)}</a></td><td>{e(s.plugin)}</td>"
                f"<td>{e(last.id)}</td><td>{e(last.scale)}</td>"
                f"<td class='{_status_class(last.status)}'>{e(last.status)}</td><td class='num'>{len(s.cells)}</td></tr>"
            )
        out.append("</table>")
    for s in sections:
        out.append(f"<h2 id='{e(s.experiment)}'>{e(s.experiment)}</h2>")
        if s.chosen:
            first = s.chosen[0]
            seeds = ", ".join(str(r.seed) for r in s.chosen)
            out.append(
                f"<p>From {len(s.chosen)} run(s) at scale <b>{e(first.scale)}</b> (seeds {e(seeds)}), "
                f"latest {e(first.id)}.</p>"
            )
            out.append(
                "<table><tr><th>metric</th><th>setting</th><th>ours</th><th>± std</th><th>n</th>"
                "<th>reference</th><th>unit</th><th>ours/reference</th></tr>"
            )
            for c in s.cells:
                out.append(
                    f"<tr><td>{e(c.metric)}</td><td>{e(c.setting)}</td><td class='num'>{format_value(c.mean)}</td>"
                    f"<td class='num'>{format_value(c.std) if c.std is not None else ''}</td><td class='num'>{c.n}</td>"
                    f"<td class='num'>{format_value(c.paper)}{_html_label(c)}</td><td>{e(c.unit)}</td>"
                    f"<td class='num'>{_ratio(c)}</td></tr>"
                )
            out.append("</table>")
            if s.notes:
                out.append(f"<p><b>Note.</b> {e(s.notes)}</p>")
        else:
            out.append("<p class='failed'>No successful run yet.</p>")
        if s.chart is not None:
            data = base64.b64encode(s.chart).decode()
            out.append(
                f"<figure><img alt='ours/paper' src='data:image/png;base64,{data}'>"
                "<figcaption>Our values relative to the paper's.</figcaption></figure>"
            )
        for path, artifact in s.figures:
            if path.is_file():
                data = base64.b64encode(path.read_bytes()).decode()
                out.append(
                    f"<figure><img alt='{e(artifact.title)}' src='data:image/png;base64,{data}'>"
                    f"<figcaption>{e(artifact.title)}</figcaption></figure>"
                )
        out.append(
            "<h3>Latest runs</h3><table><tr><th>run</th><th>scale</th><th>seed</th><th>status</th>"
            "<th>time (s)</th><th>error</th></tr>"
        )
        for r in s.recent:
            duration = "" if r.duration is None else f"{r.duration:.1f}"
            out.append(
                f"<tr><td>{e(r.id)}</td><td>{e(r.scale)}</td><td class='num'>{r.seed}</td>"
                f"<td class='{_status_class(r.status)}'>{e(r.status)}</td><td class='num'>{duration}</td>"
                f"<td>{e(r.error or '')}</td></tr>"
            )
        out.append("</table>")
    out.append("</body></html>\n")
    return "\n".join(out)


def _md_cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _markdown(sections: Sequence[_Section], generated: str, figures_dir: Path) -> str:
    lines = [
        "# paperzoo report",
        "",
        f"Generated {generated} by paperzoo {__version__}: {len(sections)} experiment(s). "
        "Values are ours; *reference* is the number we compare with for the same cell, labelled with "
        "its kind (paper, theorem, official-code, oracle) and source.",
        "",
    ]
    for s in sections:
        lines += [f"## {s.experiment}", ""]
        if s.chosen:
            first = s.chosen[0]
            lines += [
                f"From {len(s.chosen)} run(s) at scale **{first.scale}** "
                f"(seeds {', '.join(str(r.seed) for r in s.chosen)}), latest `{first.id}`.",
                "",
                "| metric | setting | ours | ± std | n | reference | unit | ours/reference |",
                "|---|---|---:|---:|---:|---:|---|---:|",
            ]
            for c in s.cells:
                std = format_value(c.std) if c.std is not None else ""
                lines.append(
                    f"| {_md_cell(c.metric)} | {_md_cell(c.setting)} | {format_value(c.mean)} | {std} | {c.n} "
                    f"| {format_value(c.paper)}{_md_label(c)} | {_md_cell(c.unit)} | {_ratio(c)} |"
                )
            lines.append("")
            if s.notes:
                lines += [f"**Note.** {s.notes}", ""]
        else:
            lines += ["No successful run yet.", ""]
        images: list[tuple[str, str]] = []
        if s.chart is not None:
            name = f"{s.experiment}-ours-vs-paper.png"
            (figures_dir / name).write_bytes(s.chart)
            images.append((name, "Our values relative to the paper's"))
        for path, artifact in s.figures:
            if path.is_file():
                name = f"{s.chosen[0].id}-{path.name}"
                shutil.copyfile(path, figures_dir / name)
                images.append((name, artifact.title))
        for name, title in images:
            lines += [f"![{title}](figures/{name})", ""]
        lines += [
            "Latest runs:",
            "",
            "| run | scale | seed | status | time (s) | error |",
            "|---|---|---:|---|---:|---|",
        ]
        for r in s.recent:
            duration = "" if r.duration is None else f"{r.duration:.1f}"
            lines.append(
                f"| `{r.id}` | {r.scale} | {r.seed} | {r.status} | {duration} | {_md_cell(r.error or '')} |"
            )
        lines.append("")
    return "\n".join(lines)


def write_report(store: ResultsStore, out: Path, *, experiment: str | None = None) -> tuple[Path, Path]:
    """Write ``index.html`` and ``report.md`` (with ``figures/``) into ``out``.

    Args:
        store: The results store to report on.
        out: Output directory (created; previous report files replaced).
        experiment: Only this experiment, or a prefix ending in ``*``.

    Returns:
        The paths of the HTML page and the Markdown file.
    """
    names = store.experiments()
    if experiment is not None:
        prefix = experiment[:-1] if experiment.endswith("*") else None
        names = [n for n in names if (n.startswith(prefix) if prefix is not None else n == experiment)]
    sections = [_section(store, name) for name in names]
    generated = time.strftime("%Y-%m-%d %H:%M:%S %Z")
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    staging = out / ".figures.tmp"
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir()
    markdown = _markdown(sections, generated, staging)
    page = _html(sections, generated)
    figures = out / "figures"
    shutil.rmtree(figures, ignore_errors=True)
    staging.replace(figures)
    html_path, md_path = out / "index.html", out / "report.md"
    for path, text in ((html_path, page), (md_path, markdown)):
        tmp = path.with_name(f".{path.name}.tmp")
        tmp.write_text(text, encoding="utf-8")
        tmp.replace(path)
    return html_path, md_path

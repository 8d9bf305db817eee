"""Export a suite as an lm-evaluation-harness task group.

``export_lm_eval(suite, "minerva_lm_eval")`` writes, in a new directory:

* ``<group>_<task>.jsonl`` — the task's instances (reference and parameters as
  JSON text, so every row has the same columns; ``target`` is the rendered answer);
* ``<group>_<task>.yaml`` — a ``generate_until`` task over that file, greedy, up
  to ``max_gen_toks`` tokens, scored by the task's headline metric;
* ``<group>.yaml`` — the group: the unweighted mean over tasks (Minerva's overall);
* ``utils.py`` — ``process_results``, which scores with ``paperzoo_minerva``
  (install ``paperzoo-minerva`` next to ``lm-eval``).

Run it with ``lm_eval --include_path DIR --tasks <group> --apply_chat_template
--system_instruction "You are a helpful AI assistant." --model ...``. The data
paths in the YAML files are absolute: move the directory and export again.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from collections.abc import Iterable
from pathlib import Path

from paperzoo.errors import ConfigError
from paperzoo_minerva.instance import SYSTEM_PROMPT, Instance
from paperzoo_minerva.scoring import render_reference
from paperzoo_minerva.tasks import get_task

__all__ = ["export_lm_eval"]

_UTILS = '''"""Scores exported Minerva tasks with paperzoo-minerva (written by paperzoo_minerva.export)."""

import json

from paperzoo_minerva.instance import Instance
from paperzoo_minerva.scoring import score
from paperzoo_minerva.tasks import get_task


def process_results(doc, results):
    """{"score": the task's headline metric of the generation}."""
    data = {k: v for k, v in doc.items() if k not in ("params", "target")}
    data = {**json.loads(doc["params"]), **data, "reference": json.loads(doc["reference"])}
    instance = Instance.from_dict(data)
    spec = get_task(instance.task)
    return {"score": score(instance, results[0], spec.metrics)[spec.primary]}
'''


def _task_yaml(name: str, group: str, data: Path, max_gen_toks: int) -> str:
    q = json.dumps  # a JSON string is a YAML string
    return "\n".join([
        f"task: {q(name)}",
        "dataset_path: json",
        "dataset_kwargs:",
        "  data_files:",
        f"    test: {q(str(data))}",
        "test_split: test",
        "output_type: generate_until",
        "doc_to_text: prompt",
        "doc_to_target: target",
        "generation_kwargs:",
        "  until: []",
        "  do_sample: false",
        "  temperature: 0.0",
        f"  max_gen_toks: {max_gen_toks}",
        "process_results: !function utils.process_results",
        "metric_list:",
        "  - metric: score",
        "    aggregation: mean",
        "    higher_is_better: true",
        "metadata:",
        "  version: 1.0",
        f"  system_instruction: {q(SYSTEM_PROMPT)}",
        "",
    ])  # fmt: skip


def export_lm_eval(
    instances: Iterable[Instance],
    directory: str | os.PathLike[str],
    *,
    group: str = "minerva",
    max_gen_toks: int = 4096,
) -> Path:
    """Write ``instances`` as an lm-evaluation-harness task group in a new ``directory``.

    Returns:
        The directory (absolute).

    Raises:
        ConfigError: ``directory`` exists and is not empty, the suite is empty,
            ``group`` is not a plain name, or ``max_gen_toks`` < 1.
    """
    target = Path(directory).resolve()
    if target.exists() and (not target.is_dir() or any(target.iterdir())):
        raise ConfigError(f"{target} already exists and is not empty", hint="choose a new directory")
    if not group.replace("_", "").isalnum():
        raise ConfigError(f"group {group!r} must be letters, digits and underscores")
    if max_gen_toks < 1:
        raise ConfigError(f"max_gen_toks must be at least 1, got {max_gen_toks}")
    by_task: dict[str, list[Instance]] = {}
    for instance in instances:
        get_task(instance.task)  # an unknown task: one clear error, before anything is written
        by_task.setdefault(instance.task, []).append(instance)
    if not by_task:
        raise ConfigError("the suite is empty; nothing to export")
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{target.name}.", dir=target.parent))
    try:
        names = []
        for task, items in by_task.items():
            name = f"{group}_{task}"
            names.append(name)
            with open(staging / f"{name}.jsonl", "w", encoding="utf-8") as fh:
                for i in items:
                    row = {"id": i.id, "task": i.task, "category": i.category, "prompt": i.prompt,
                           "target": render_reference(i.reference), "reference": json.dumps(i.reference),
                           "params": json.dumps(dict(i.params))}  # fmt: skip
                    fh.write(json.dumps(row, ensure_ascii=False) + "\n")
            yaml = _task_yaml(name, group, target / f"{name}.jsonl", max_gen_toks)
            (staging / f"{name}.yaml").write_text(yaml, encoding="utf-8")
        members = "\n".join(f"  - {n}" for n in names)
        (staging / f"{group}.yaml").write_text(
            f"group: {group}\ntask:\n{members}\naggregate_metric_list:\n  - metric: score\n"
            "    aggregation: mean\n    weight_by_size: false\nmetadata:\n  version: 1.0\n",
            encoding="utf-8",
        )
        (staging / "utils.py").write_text(_UTILS, encoding="utf-8")
        if target.exists():
            target.rmdir()  # empty, checked above
        staging.replace(target)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return target

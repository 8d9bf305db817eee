"""paperzoo-minerva: Minerva, a programmable memory test benchmark for language models.

Generate a suite, answer it with any ``paperzoo-llm`` backend, score it::

    from paperzoo_minerva import evaluate, generate_suite, make_responder, run_suite, summarise

    suite = generate_suite(0, tasks=["string_search_word", "count"], common={"context_length": 2000})
    answers = run_suite(suite, make_responder("transformers:smollm2"), "answers.jsonl")
    summarise(evaluate(suite, answers))

Names are imported on first use, so that discovering the plugin
(``import paperzoo_minerva.plugin``) loads neither numpy nor a tokenizer.
"""

from __future__ import annotations

from paperzoo.lazy import lazy_exports

_LAZY = {
    "Instance": ".instance",
    "read_suite": ".instance",
    "write_suite": ".instance",
    "TASKS": ".tasks",
    "CATEGORIES": ".tasks",
    "get_task": ".tasks",
    "generate_suite": ".tasks",
    "ContextBuilder": ".context",
    "get_tokenizer": ".context",
    "load_snapshot": ".snapshot",
    "score": ".scoring",
    "Responder": ".responders",
    "make_responder": ".responders",
    "run_suite": ".runner",
    "evaluate": ".runner",
    "summarise": ".runner",
    "suite_statistics": ".suite_stats",
}

__getattr__, __dir__, __all__ = lazy_exports(__name__, _LAZY)

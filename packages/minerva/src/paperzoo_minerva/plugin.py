"""paperzoo plugin ``minerva``: the manifest (nothing heavy imported).

Everything is named here and pointed at by a package-relative ``".module:attr"``
target, imported on first use: listing plugins never imports numpy or a tokenizer.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from paperzoo import DataFile, Plugin, Ref, Setting

if TYPE_CHECKING:
    import click

_COMMIT = (
    "7864ff26dc4dd87ed8718339eb8e6d88b8ef848b"  # microsoft/minerva_memory_test, checked against the mirror
)
_BASE = "https://raw.githubusercontent.com/microsoft/minerva_memory_test/{commit}/resource/minerva_snapshot/{path}"

# (category/task, sha256 of the JSONL file)
_FILES = {
    "composite/processing_data_blocks": "06302c66e3a5989db57108ff8bd3152c6ead478a16099cdd0496f4732225c5e5",
    "composite/theory_of_mind": "1c1bffe4be573bb6a3bd3caa0a184a8a4fcd1284ee096641c6f6cb0b64f17b50",
    "compute_on_sets_and_lists/alternating_group_association": "745614c52bc5fe02817d786027d309d8db48b06be93e0f410bf03443e7bab62b",
    "compute_on_sets_and_lists/group_association": "37e0e7901b99e77ad6d92f893a7e2e2179d0c13d2446c65c76c47a9768b2b6e2",
    "compute_on_sets_and_lists/group_membership": "49d209576adb964356f12ada1c81ce52acb86869088cfd087d574d62fe2466af",
    "compute_on_sets_and_lists/iterate_first": "0a3df9374b43a32f3750aa23fc883450f923e657b1f99d65271699ede0f33da5",
    "compute_on_sets_and_lists/iterate_last": "5e232f494a390d4ff12d8606ada1dd869755d3c08ea80befb3d392ae64374eb4",
    "match_and_compare/check_association": "04285d3102668e68a050d5504c98ed5fdc7ed8cf73258dae8e103a9277e7e4c3",
    "match_and_compare/compare_positions": "13e5895894ac2af617df4dd6b82c26b8d0502a4b8f23ae93dd5373040b391fe0",
    "match_and_compare/count": "4539ea6edef59b8bfac517530880ce738dd454ed6dc06e9d684e33cdec470ec7",
    "match_and_compare/find_duplicates": "a5b9a73d3891adabd553c98bb11b226e902bf7c3b8fcfad9b1035cc35d32ab2f",
    "recall_and_edit/functional_updates": "d56ffef03e78f9ef1505b9e720ab46c32e72c4cd514852501352d9e87f5ad739",
    "recall_and_edit/overwrite_positions": "9855267e50824c283e6633d1f2aeca22f661abd9fb06fb06c845d9d9b870a00d",
    "recall_and_edit/overwrite_positions_nth_to_null": "602dd41881a2c317f01ad0c9269a2e3da1eecae43a4a0a9208cffa5030abc3b4",
    "recall_and_edit/replace_all": "a5e4d59105bef2ca196ad8f7b7d79c3ae6ac3dedccd8df24e13e7a5e16254aeb",
    "recall_and_edit/replace_all_x_to_null": "2786813d12d82f98432bf9463359a375307a71f96ba1c73e4f4c854abb01bfb9",
    "recall_and_edit/snapshot_random_numbers": "6e3cc84a2983137cd2351435d4abfc8fba0f62a89f597fbd0eca38092200bbc5",
    "recall_and_edit/snapshot_unique_words": "0888dcc9d69bc06c0d1f58a3d5d244a84d6668eb5cafe34ec6096326d8ba02f2",
    "search/batch_key_value_search": "756ddea4cace695e32a740110d019eedf9bf8fdcc996e72abeaef9ebb3de2755",
    "search/key_value_search": "0f8a7ef56a3574e039142d4b25beae224858cb2ee304228731a8c74dd38a659e",
    "search/string_search_gibberish": "55cf78019aaa47cf69e3a44e539afcf9f4d13f0cdacaae62b37aef1be1dbb415",
    "search/string_search_sequence": "ed4021a17f4f8a8c7f60a65620e6bec22e3f02f67b2d068da9a200aedf21d9e5",
    "search/string_search_word": "d34ea2203ec18a1495cafb2243697c18a8dcaa46e8cc09fcdc67bf2af07c0d73",
    "spot_the_differences/compare_two_lists": "26cc7d7956dcf33f91a0c425ccefc36c2b87eff9eb0705445fc5343674c65f7c",
    "spot_the_differences/identify_odd_group": "669d7a913967df9b727d3c640ddd44a153b7d147785bf1216b9cec0e92a32452",
    "spot_the_differences/patch_the_difference": "729af82718887605650c69ae644259980d1dd89d7e716e74d50dd48b523eff21",
    "stateful_processing/quantity_state": "4e9d1b9af83aca81b3f4c7eade6a815d4cb61d624316cefab27e7fae63b1b468",
    "stateful_processing/set_state": "3e72a8be6dfad7b6cf0dd1683f0de5d9ba6e27a0303a445293ba3bc374b4db6d",
}

SNAPSHOT_FILES: dict[str, DataFile] = {
    name.split("/")[1]: DataFile(
        path=f"minerva-snapshot/{name}.jsonl",
        url=_BASE.format(commit=_COMMIT, path=f"{name}.jsonl"),
        sha256=sha,
    )
    for name, sha in _FILES.items()
}
"""The snapshot's files by task name."""

CATEGORY = {name.split("/")[1]: name.split("/")[0] for name in _FILES}
"""The category of each task, as the snapshot's folders name it."""

SNAPSHOT_YES_SHARE = {
    "string_search_word": 25 / 50,
    "string_search_sequence": 40 / 80,
    "compare_positions": 45 / 75,
    "group_association": 20 / 40,
    "alternating_group_association": 25 / 50,
    "check_association": 25 / 50,
}
"""The published snapshot's yes/no balance (yes / all), which "always yes" must score."""

ALWAYS_YES_REFS: dict[str, list[Ref]] = {}
for task, share in SNAPSHOT_YES_SHARE.items():  # yes/no tasks are scored by exact match
    ALWAYS_YES_REFS.setdefault(f"{CATEGORY[task]}: exact_match", []).append(
        Ref(share, "yes/no balance of the published snapshot", kind="oracle",
            setting=f"responder=always-yes, task={task}, limit=0")  # whole tasks only
    )  # fmt: skip

plugin = Plugin(
    "minerva",
    framework="python",
    paper="Minerva: A Programmable Memory Test Benchmark for Language Models",
    venue="ICML 2025",
    url="https://arxiv.org/abs/2502.03358",
)

for name, formula in (
    ("exact_match", "reference is a substring of the lower-cased answer (Minerva's rule)"),
    ("exact_match_strict", "normalised answer == reference"),
    ("rouge", "ROUGE-1 / ROUGE-L F1 (no stemming)"),
    ("set_overlap", "precision, recall, F1, Jaccard of the ', '-separated items"),
    ("theory_of_mind", "set overlap per agent, averaged"),
    ("count_accuracy", "stated count == reference count"),
):
    plugin.metric(name.replace("_", "-"), f".scoring:{name}", f"Minerva scorer {name}.", formula=formula,
                  greater_is_better=True)  # fmt: skip

plugin.dataset(
    "snapshot",
    ".snapshot:load_snapshot",
    "The published Minerva snapshot: 1,180 prompts in 28 tasks and 7 categories.",
    files=tuple(SNAPSHOT_FILES.values()),
    homepage="https://github.com/microsoft/minerva_memory_test",
    license="CDLA-Permissive-2.0 (data), MIT (code)",
    citation="Xia, Rühle, Rajmohan & Shokri, Minerva, ICML 2025.",
)

RUN_SETTINGS = {
    "responder": Setting(["oracle", "always-yes"], each=Setting(type="str"), min_len=1,
                         help="who answers: oracle, always-yes or paperzoo-llm backends (no repeats)"),
    "tasks": Setting([], each=Setting(type="str"), help="task names; empty: all"),
    "limit": Setting(0, low=0, help="prompts per task; 0: all"),
    "max_tokens": Setting(4096, low=1, help="longest answer"),
    "max_concurrency": Setting(4, low=1, help="prompts in flight at once"),
    "base_url": Setting("", help="base_url of the LLM responders; empty: their default"),
}  # fmt: skip

plugin.experiment(
    "snapshot",
    ".experiments:snapshot",
    "The published snapshot answered by the oracle, always-yes and any LLM backends.",
    settings=RUN_SETTINGS,
    scales={
        "smoke": {"limit": 3},
        "paper": {"responder": ["oracle", "always-yes", "transformers:smollm2"]},
    },
    references=ALWAYS_YES_REFS,
    test_scale={"limit": 1},
    datasets=("snapshot",),
    reproduces="Table 2 / Figure 3 protocol (per-task and per-category scores)",
)
plugin.experiment(
    "generated",
    ".experiments:generated",
    "A freshly generated suite, checked against the snapshot's statistics and answered.",
    settings={
        **RUN_SETTINGS,
        "context_length": Setting(4000, low=1, help="context tokens (cl100k) of every prompt"),
        "compare_snapshot": Setting(True, help="compare the suite's statistics with the snapshot's"),
    },
    scales={"smoke": {"limit": 2, "tasks": ["string_search_word", "count", "iterate_first", "set_state"]}},
    references=ALWAYS_YES_REFS,
    test_scale={"limit": 1, "tasks": ["string_search_word", "set_state"]},
    datasets=("snapshot",),
    reproduces="the benchmark generator (task counts, yes/no balance, context lengths)",
)


@plugin.hook
def paperzoo_register_commands(cli: click.Group) -> None:
    from paperzoo_minerva.cli import minerva

    cli.add_command(minerva)

"""The published Minerva snapshot: 28 JSONL files, 1,180 prompts in 7 categories."""

from __future__ import annotations

import json

from paperzoo.data import DataFile, fetch
from paperzoo_minerva.instance import Instance

__all__ = ["SNAPSHOT_FILES", "load_snapshot"]

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


def load_snapshot(tasks: list[str] | None = None) -> list[Instance]:
    """The snapshot's instances (all tasks, or ``tasks``), in file order."""
    out: list[Instance] = []
    for name, file in SNAPSHOT_FILES.items():
        if tasks is not None and name not in tasks:
            continue
        with open(fetch(file), encoding="utf-8") as fh:
            out.extend(Instance.from_dict(json.loads(line)) for line in fh if line.strip())
    return out

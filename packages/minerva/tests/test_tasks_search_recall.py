"""The search and recall-and-edit tasks against the published snapshot and on hand-made cases."""

from __future__ import annotations

import re
from collections import Counter
from functools import cache
from types import MappingProxyType

import numpy as np
import pytest

from paperzoo.data import locate_unverified
from paperzoo.errors import ConfigError
from paperzoo_minerva.context import ContextBuilder
from paperzoo_minerva.instance import Instance
from paperzoo_minerva.scoring import render_reference, score
from paperzoo_minerva.snapshot import SNAPSHOT_FILES, load_snapshot
from paperzoo_minerva.tasks import TaskContext, depth_index, generate_suite, get_task
from paperzoo_minerva.tasks.recall_and_edit import OPERATIONS, delete_every_nth, ordinal, overwrite_every_nth
from paperzoo_minerva.tasks.search import spread_indices

SEARCH = ["string_search_word", "string_search_gibberish", "string_search_sequence", "key_value_search",
          "batch_key_value_search"]  # fmt: skip
RECALL = ["snapshot_unique_words", "snapshot_random_numbers", "replace_all", "replace_all_x_to_null",
          "overwrite_positions", "overwrite_positions_nth_to_null", "functional_updates"]  # fmt: skip
TASKS = SEARCH + RECALL
YES_NO = ["string_search_word", "string_search_gibberish", "string_search_sequence"]
SMALL = {"context_length": 300}


def split_prompt(prompt: str) -> tuple[str, str]:
    """``(context, instruction and closing)`` of a Minerva prompt."""
    assert prompt.startswith("Context:\n")
    context, instruction = prompt[len("Context:\n") :].split("\n\nInstruction:\n")
    return context, instruction


def normalise(instruction: str) -> str:
    """The instruction with every quoted word, sequence or key list replaced by ``"X"``."""
    return re.sub(r'"[^"]*"', '"X"', instruction)


def quoted(instruction: str) -> list[str]:
    return re.findall(r'"([^"]*)"', instruction)


def param_counts(instances: list[Instance]) -> dict[str, Counter]:
    keys = {k for inst in instances for k in inst.params}
    return {k: Counter(inst.params.get(k) for inst in instances) for k in keys}


@cache
def generated(name: str) -> tuple[Instance, ...]:
    return tuple(generate_suite(0, tasks=[name]))


@cache
def snapshot(name: str) -> tuple[Instance, ...]:
    if locate_unverified(SNAPSHOT_FILES[name]) is None:
        pytest.skip(f"the snapshot file of {name} is not available locally")
    return tuple(load_snapshot(tasks=[name]))


@cache
def count_tokens(text: str) -> int:
    return ContextBuilder(np.random.default_rng(0)).count(text)


def run(name: str, words: list[str], seed: int = 0, **params) -> list[Instance]:
    """Run task ``name`` on a builder over a hand-made word list."""
    spec = get_task(name)
    builder = ContextBuilder(np.random.default_rng(seed), words=words)
    return spec.generate(TaskContext(spec, MappingProxyType({**spec.defaults, **params}), builder, seed))


# Twelve single-token words: 11 tokens of "w1, w2, ..." hold exactly six of them.
TINY = ["cat", "dog", "sun", "car", "tree", "book", "fish", "bird", "milk", "door", "lamp", "ship"]


# --------------------------------------------------------- against the snapshot


@pytest.mark.parametrize("name", TASKS)
def test_default_grid_matches_snapshot(name):
    ours, theirs = list(generated(name)), list(snapshot(name))
    assert len(ours) == len(theirs)
    assert param_counts(ours) == param_counts(theirs)
    assert Counter(type(i.reference) for i in ours) == Counter(type(i.reference) for i in theirs)
    assert {i.task for i in ours} == {name}
    assert {i.category for i in ours} == {theirs[0].category}


@pytest.mark.parametrize("name", YES_NO)
def test_yes_no_balance_matches_snapshot(name):
    ours, theirs = generated(name), snapshot(name)
    assert Counter(i.reference for i in ours) == Counter(i.reference for i in theirs)
    assert Counter((i.reference, *sorted(i.params.items())) for i in ours) == Counter(
        (i.reference, *sorted(i.params.items())) for i in theirs
    )


@pytest.mark.parametrize("name", TASKS)
def test_instructions_match_snapshot_up_to_quoted_content(name):
    ours = Counter(normalise(split_prompt(i.prompt)[1]) for i in generated(name))
    theirs = Counter(normalise(split_prompt(i.prompt)[1]) for i in snapshot(name))
    assert ours == theirs


@pytest.mark.parametrize("name", TASKS)
def test_context_length_within_five_percent_of_snapshot(name):
    ours = np.mean([count_tokens(split_prompt(i.prompt)[0]) for i in generated(name)])
    theirs = np.mean([count_tokens(split_prompt(i.prompt)[0]) for i in snapshot(name)])
    assert abs(ours / theirs - 1) < 0.05, (ours, theirs)


@pytest.mark.parametrize("name", TASKS)
def test_oracle_scores_one_on_primary_metric(name):
    spec = get_task(name)
    for inst in generated(name):
        scores = score(inst, render_reference(inst.reference), spec.metrics)
        assert scores[spec.primary] == 1.0
        if spec.yes_no:
            assert scores["exact_match_strict"] == 1.0


@pytest.mark.parametrize("name", YES_NO)
def test_always_yes_scores_the_share_of_yes(name):
    spec = get_task(name)
    strict = [score(i, "yes", spec.metrics)["exact_match_strict"] for i in generated(name)]
    assert np.mean(strict) == 0.5


def test_metrics_and_primary_follow_upstream():
    for name in YES_NO:
        spec = get_task(name)
        assert (spec.metrics, spec.primary, spec.yes_no) == (
            ("exact_match", "exact_match_strict"),
            "exact_match",
            True,
        )
    assert get_task("key_value_search").metrics == ("exact_match",)
    for name in ["batch_key_value_search", *RECALL]:
        spec = get_task(name)
        assert (spec.metrics, spec.primary, spec.yes_no) == (("exact_match", "rouge"), "rouge-L", False)


# ------------------------------------------------------ determinism, overrides


@pytest.mark.parametrize("name", TASKS)
def test_same_seed_same_suite_other_seed_other_suite(name):
    first = generate_suite(3, tasks=[name], common=SMALL)
    assert first == generate_suite(3, tasks=[name], common=SMALL)
    other = generate_suite(4, tasks=[name], common=SMALL)
    assert [i.prompt for i in first] != [i.prompt for i in other]


def test_overrides_change_the_grid():
    suite = generate_suite(
        0,
        tasks=["string_search_word", "string_search_sequence", "overwrite_positions", "functional_updates"],
        overrides={
            "string_search_word": {"context_depth": [0.5], "answers": ["yes"], "samples": 2},
            "string_search_sequence": {"sequence_length": [4], "n_corrupt": [2]},
            "overwrite_positions": {"nth": [5], "edit_words": ["kiwi"]},
            "functional_updates": {"operation": ["multiply"], "context_length": [100, 200]},
        },
        common=SMALL,
    )
    by_task: dict[str, list[Instance]] = {}
    for inst in suite:
        by_task.setdefault(inst.task, []).append(inst)
    assert [(i.reference, i.params["context_depth"]) for i in by_task["string_search_word"]] == [
        ("yes", 0.5)
    ] * 2
    assert {i.params["sequence_length"] for i in by_task["string_search_sequence"]} == {4}
    assert all(i.params["context_length"] == 300 for i in by_task["string_search_sequence"])
    assert len(by_task["string_search_sequence"]) == 10 * 2
    assert {split_prompt(i.prompt)[1] for i in by_task["overwrite_positions"]} == {
        'Repeat the previous context and replace every fifth word with "kiwi".\n\nAnswer:'
    }
    assert Counter(i.params["context_length"] for i in by_task["functional_updates"]) == {100: 5, 200: 5}


def test_rejects_unknown_parameter():
    with pytest.raises(ConfigError, match="no parameter"):
        generate_suite(0, tasks=["replace_all"], overrides={"replace_all": {"densities": [0.5]}})


@pytest.mark.parametrize(
    ("name", "params", "message"),
    [
        ("string_search_word", {"context_depth": [1.5]}, "context_depth"),
        ("string_search_word", {"answers": ["maybe"]}, "answers"),
        ("string_search_sequence", {"sequence_length": [10_000]}, "does not fit"),
        ("string_search_sequence", {"n_corrupt": [0]}, "n_corrupt"),
        ("batch_key_value_search", {"n_words": [10_000]}, "keys"),
        ("replace_all", {"edit_words": ["only"]}, "edit_words"),
        ("replace_all_x_to_null", {"density": [1.2]}, "density"),
        ("overwrite_positions_nth_to_null", {"nth": [1]}, "nth"),
        ("functional_updates", {"operation": ["divide"]}, "divide"),
        ("snapshot_unique_words", {"samples": 0}, "samples"),
    ],
)
def test_rejects_bad_parameters(name, params, message):
    with pytest.raises(ConfigError, match=message):
        generate_suite(0, tasks=[name], overrides={name: params}, common=SMALL)


# ------------------------------------------------------------ task logic


def test_depth_index_matches_upstream_positions():
    # Positions measured in the snapshot's string_search_word contexts of 1069 and 1055 words.
    assert [depth_index(1069, d) for d in (0, 0.25, 0.5, 0.75, 1)] == [0, 267, 534, 801, 1068]
    assert [depth_index(1055, d) for d in (0, 0.25, 0.5, 0.75, 1)] == [0, 263, 527, 791, 1054]


def test_spread_indices_include_first_and_last():
    assert spread_indices(10, 4).tolist() == [0, 3, 6, 9]
    assert spread_indices(531, 2).tolist() == [0, 530]
    assert spread_indices(5, 1).tolist() == [4]


def test_overwrite_and_delete_every_nth_on_six_words():
    words = np.array(["a", "b", "c", "d", "e", "f"], dtype=object)
    assert overwrite_every_nth(words, 2, "x").tolist() == ["a", "x", "c", "x", "e", "x"]
    assert overwrite_every_nth(words, 4, "x").tolist() == ["a", "b", "c", "x", "e", "f"]
    assert delete_every_nth(words, 3).tolist() == ["a", "b", "d", "e"]
    assert words.tolist() == ["a", "b", "c", "d", "e", "f"]  # the input is not modified


def test_ordinals_of_the_instruction():
    assert [ordinal(n) for n in (2, 3, 4, 5, 11, 12, 21, 22, 23)] == [
        "other", "third", "fourth", "fifth", "11th", "12th", "21st", "22nd", "23rd"]  # fmt: skip


def test_operations_on_known_numbers():
    numbers = np.array([0, 7, 1000])
    assert {op: f(numbers).tolist() for op, (_, f) in OPERATIONS.items()} == {
        "add": [3, 10, 1003], "subtract": [-1, 6, 999], "multiply": [0, 14, 2000]}  # fmt: skip


def test_absent_words_are_distinct_and_absent():
    builder = ContextBuilder(np.random.default_rng(0), words=TINY)
    present = set(TINY[:10])
    assert sorted(builder.absent(present, 2)) == sorted(TINY[10:])
    with pytest.raises(ConfigError, match="absent"):
        builder.absent(present, 3)
    gibberish = builder.absent(present, 5, kind="gibberish")
    assert len(set(gibberish)) == 5 and all(w.isalpha() and 2 <= len(w) <= 9 for w in gibberish)


def test_replace_all_on_a_six_word_context():
    (inst,) = run(
        "replace_all", TINY, context_length=11, density=[0.5], samples=1, edit_words=["fruit", "orange"]
    )
    context, instruction = split_prompt(inst.prompt)
    items = context.split(", ")
    assert len(items) == 6 and items.count("fruit") == 3
    assert quoted(instruction) in (["fruit", "orange"], ["orange", "fruit"])
    word, substitute = quoted(instruction)
    assert inst.reference == ", ".join(substitute if w == word else w for w in items)
    assert inst.params == {"context_length": 11, "density": 0.5}


def test_replace_all_replaces_a_word_that_was_already_there():
    # Query words drawn from the context's own word list, none inserted: every occurrence is natural.
    instances = run("replace_all", TINY, context_length=11, density=[0.0], samples=8, edit_words=TINY)
    natural = 0
    for inst in instances:
        items = split_prompt(inst.prompt)[0].split(", ")
        word, substitute = quoted(split_prompt(inst.prompt)[1])
        natural += word in items
        assert inst.reference == ", ".join(substitute if w == word else w for w in items)
        assert word not in inst.reference.split(", ")
    assert natural > 0


def test_replace_all_x_to_null_on_a_six_word_context():
    (inst,) = run(
        "replace_all_x_to_null", TINY, context_length=11, density=[0.5], samples=1, edit_words=["fruit"]
    )
    context, instruction = split_prompt(inst.prompt)
    items = context.split(", ")
    assert items.count("fruit") == 3 and quoted(instruction) == ["fruit"]
    assert inst.reference == ", ".join(w for w in items if w != "fruit")
    assert len(inst.reference.split(", ")) == 3


def test_overwrite_positions_on_a_six_word_context():
    instances = run("overwrite_positions", TINY, context_length=11, samples=1, edit_words=["fruit"])
    for inst, expected in zip(instances, (["fruit"] * 3, ["fruit"] * 2, ["fruit"])):
        context, instruction = split_prompt(inst.prompt)
        items, reference = context.split(", "), inst.reference.split(", ")
        nth = inst.params["nth"]
        assert reference[nth - 1 :: nth] == expected
        assert [r for i, r in enumerate(reference) if (i + 1) % nth] == [
            w for i, w in enumerate(items) if (i + 1) % nth
        ]


def test_overwrite_positions_nth_to_null_on_a_six_word_context():
    instances = run("overwrite_positions_nth_to_null", TINY, context_length=11, samples=1)
    for inst in instances:
        items = split_prompt(inst.prompt)[0].split(", ")
        keep = {2: [0, 2, 4], 3: [0, 1, 3, 4], 4: [0, 1, 2, 4, 5]}[inst.params["nth"]]
        assert inst.reference == ", ".join(items[i] for i in keep)


def test_functional_updates_apply_the_operation_to_every_number():
    for inst in generate_suite(0, tasks=["functional_updates"], common={"context_length": 60}):
        numbers = [int(x) for x in split_prompt(inst.prompt)[0].split(", ")]
        shift = {"add": lambda x: x + 3, "subtract": lambda x: x - 1, "multiply": lambda x: 2 * x}
        assert inst.reference == ", ".join(str(shift[inst.params["operation"]](x)) for x in numbers)


def test_snapshot_tasks_reference_is_the_context():
    for name in ("snapshot_unique_words", "snapshot_random_numbers"):
        for inst in generate_suite(0, tasks=[name], common=SMALL):
            assert inst.reference == split_prompt(inst.prompt)[0]


def test_word_search_yes_is_at_depth_and_no_is_absent():
    for name in ("string_search_word", "string_search_gibberish"):
        for inst in generate_suite(0, tasks=[name], common=SMALL):
            context, instruction = split_prompt(inst.prompt)
            items = context.split(", ")
            (word,) = quoted(instruction)
            if inst.reference == "yes":
                assert items[depth_index(len(items), inst.params["context_depth"])] == word
            else:
                assert word not in items


def test_gibberish_no_word_can_be_gibberish():
    suite = generate_suite(0, tasks=["string_search_gibberish"], overrides={"string_search_gibberish": {
        "answers": ["no"], "absent_kind": "gibberish"}}, common=SMALL)  # fmt: skip
    for inst in suite:
        context, instruction = split_prompt(inst.prompt)
        (word,) = quoted(instruction)
        assert word not in context.split(", ") and 2 <= len(word) <= 9


def test_sequence_yes_is_a_run_and_no_differs_in_n_corrupt_words():
    suite = generate_suite(0, tasks=["string_search_sequence"], overrides={"string_search_sequence": {
        "sequence_length": [5], "n_corrupt": [2]}}, common=SMALL)  # fmt: skip
    for yes, no in zip(suite[::2], suite[1::2]):
        assert (yes.reference, no.reference) == ("yes", "no")
        context = split_prompt(yes.prompt)[0]
        (run_yes,), (run_no,) = quoted(split_prompt(yes.prompt)[1]), quoted(split_prompt(no.prompt)[1])
        assert f", {run_yes}, " in f", {context}, "
        assert f", {run_no}, " not in f", {context}, "
        words = context.split(", ")
        changed = [(a, b) for a, b in zip(run_yes.split(", "), run_no.split(", ")) if a != b]
        assert len(changed) == 2 and all(b not in words for _, b in changed)


def test_key_value_reference_is_the_value_of_the_queried_key():
    for inst in generate_suite(0, tasks=["key_value_search"], common=SMALL):
        context, instruction = split_prompt(inst.prompt)
        pairs = dict(item.split(": ") for item in context.split(", "))
        key = quoted(instruction)[1]
        assert pairs[key] == inst.reference
        assert list(pairs).index(key) == depth_index(len(pairs), inst.params["context_depth"])
        assert not inst.prompt.endswith("Answer:") and inst.prompt.endswith("second word is:")


def test_batch_key_value_reference_lists_the_values_in_order():
    suite = generate_suite(0, tasks=["batch_key_value_search"], overrides={"batch_key_value_search": {
        "n_words": [2, 4]}}, common=SMALL)  # fmt: skip
    for inst in suite:
        context, instruction = split_prompt(inst.prompt)
        pairs = dict(item.split(": ") for item in context.split(", "))
        keys = quoted(instruction)[1].split(", ")
        assert len(keys) == inst.params["n_words"]
        assert [list(pairs).index(k) for k in keys] == spread_indices(len(pairs), len(keys)).tolist()
        assert inst.reference == ", ".join(pairs[k] for k in keys)

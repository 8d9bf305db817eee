"""Compute-on-sets-and-lists and composite tasks: logic on hand-made cases, and
generated suites against the published snapshot (grid, layout, lengths, answers)."""

from __future__ import annotations

import re
from collections import Counter
from functools import cache

import numpy as np
import pytest

from paperzoo.data import locate_unverified
from paperzoo.errors import ConfigError
from paperzoo_minerva.context import get_tokenizer
from paperzoo_minerva.instance import Instance
from paperzoo_minerva.scoring import render_reference, score
from paperzoo_minerva.snapshot import SNAPSHOT_FILES, load_snapshot
from paperzoo_minerva.tasks import generate_suite, get_task
from paperzoo_minerva.tasks.composite import (
    Action,
    apply_action,
    describe_action,
    describe_start,
    play_theory_of_mind,
    words_after,
)
from paperzoo_minerva.tasks.sets_and_lists import (
    deal_lists,
    deal_roles,
    format_lists,
    format_roles,
    list_ends,
)

SETS = [
    "group_membership",
    "group_association",
    "alternating_group_association",
    "iterate_first",
    "iterate_last",
]
COMPOSITE = ["processing_data_blocks", "theory_of_mind"]
TASKS = SETS + COMPOSITE
LENGTH_TASKS = [*SETS, "processing_data_blocks"]  # tasks with a context_length in tokens
YES_NO = ["group_association", "alternating_group_association"]


def _needs_snapshot(name: str) -> None:
    if locate_unverified(SNAPSHOT_FILES[name]) is None:
        pytest.skip(f"snapshot file for {name} not available (set PAPERZOO_DATA_MIRROR)")


@cache
def _generated(name: str, seed: int = 0) -> tuple[Instance, ...]:
    return tuple(generate_suite(seed, tasks=[name]))


@cache
def _snapshot(name: str) -> tuple[Instance, ...]:
    _needs_snapshot(name)
    return tuple(load_snapshot(tasks=[name]))


# ---------------------------------------------------------------- prompt parsing


def _context(prompt: str) -> str:
    """The text between the header line and the instruction."""
    return prompt.split("\n", 1)[1].split("\n\nInstruction:\n")[0]


def _blocks(prompt: str, label: str) -> list[tuple[int, list[str]]]:
    """``(number, words)`` of every ``"List n: …"`` / ``"Role n: …"`` line, in order."""
    return [
        (int(n), words.split(", "))
        for n, words in re.findall(rf"(?m)^{label} (\d+): (.*)$", _context(prompt))
    ]


def _quoted(prompt: str) -> list[str]:
    return re.findall(r'"([^"\n]*)"', prompt.split("\nInstruction:\n")[1])


def _replay(prompt: str) -> dict[str, list[str]]:
    """Final hands of a theory-of-mind prompt, replayed from its text alone."""
    hands: dict[str, list[str]] = {}
    for line in _context(prompt).strip("\n").split("\n"):
        if m := re.fullmatch(r"(Agent \w) (starts with|draws) the following words: (.*)\.", line):
            hands.setdefault(m[1], []).extend(m[3].split(", "))
        elif m := re.fullmatch(r"(Agent \w) discards the following words: (.*)\.", line):
            gone = m[2].split(", ")
            hands[m[1]] = [w for w in hands[m[1]] if w not in gone]
        elif m := re.fullmatch(
            r'(Agent \w) swaps the following words "(.*)" with (Agent \w) for the following words "(.*)"\.',
            line,
        ):
            give, take = m[2].split(", "), m[4].split(", ")
            hands[m[1]] = [w for w in hands[m[1]] if w not in give] + take
            hands[m[3]] = [w for w in hands[m[3]] if w not in take] + give
        else:
            raise AssertionError(f"unparsed action line {line!r}")
    return hands


def _solve(name: str, prompt: str) -> object:
    """The right answer, worked out from the prompt text alone."""
    quoted = _quoted(prompt)
    if name == "theory_of_mind":
        return _replay(prompt)
    if name in ("alternating_group_association", "processing_data_blocks"):
        roles = _blocks(prompt, "Role")
        if name == "processing_data_blocks":
            sequence = [w for r, words in roles if f"Role {r}" == quoted[0] for w in words]
            return ", ".join(sequence[sequence.index(quoted[1]) + 1 :])
        owner = {w: r for r, words in roles for w in words}
        return "yes" if owner[quoted[0]] == owner[quoted[1]] else "no"
    lists = _blocks(prompt, "List")
    if name == "iterate_first":
        return ", ".join(words[0] for _, words in lists)
    if name == "iterate_last":
        return ", ".join(words[-1] for _, words in lists)
    owner = {w: n for n, words in lists for w in words}
    if name == "group_membership":
        return f"List {owner[quoted[0]]}" if quoted[0] in owner else "no"
    return "yes" if owner[quoted[0]] == owner[quoted[1]] else "no"


def _skeleton(prompt: str) -> tuple[str, frozenset[str], str]:
    """The prompt with the random content replaced: (layout, line templates, instruction)."""
    head, _, instruction = prompt.partition("\nInstruction:\n")
    line = r"(?:List|Role|Agent) [^\n]*"
    layout = re.sub(rf"(?m)^{line}(?:\n{line})*", "<lines>", head)
    templates = set()
    for text in re.findall(rf"(?m)^{line}$", head):
        text = re.sub(r'"[^"]*"', '"W"', text)
        text = re.sub(r"^(List|Role) \d+: .*", r"\1 N: W", text)
        text = re.sub(r"Agent [A-Z]", "Agent X", text)
        templates.add(re.sub(r"words: [a-z, ]+\.$", "words: W.", text))
    return layout, frozenset(templates), re.sub(r'"[^"\n]*"', '"Q"', instruction)


def _mean_context_tokens(instances: tuple[Instance, ...]) -> float:
    encode, _ = get_tokenizer("cl100k")
    return float(np.mean([len(encode(_context(i.prompt))) for i in instances]))


def _shape(instance: Instance) -> tuple[int, ...]:
    """What the metadata does not record: lists, roles × turns, or agents and action lines."""
    if instance.task == "theory_of_mind":
        lines = _context(instance.prompt).strip("\n").split("\n")
        return len(instance.reference), len(lines) - len(instance.reference)
    return (len(_blocks(instance.prompt, "List")), len(_blocks(instance.prompt, "Role")))


# ------------------------------------------------------------ hand-made cases

WORDS = [f"w{i}" for i in range(23)]


def test_lists_deal_round_robin():
    lists = deal_lists(["a", "b", "c", "d", "e", "f", "g"], 3)
    assert lists == [["a", "d", "g"], ["b", "e"], ["c", "f"]]
    assert format_lists(lists) == "List 1: a, d, g\nList 2: b, e\nList 3: c, f\n"


def test_list_ends_are_first_and_last_word_of_each_list():
    first, last = list_ends(7, 3)
    assert first.tolist() == [0, 1, 2]
    assert last.tolist() == [6, 4, 5]
    for n in (1, 4, 5, 23):
        lists = deal_lists(WORDS, n)
        first, last = list_ends(len(WORDS), n)
        assert [WORDS[i] for i in first] == [words[0] for words in lists]
        assert [WORDS[i] for i in last] == [words[-1] for words in lists]


def test_roles_are_contiguous_shares_cut_into_turns():
    blocks = deal_roles(WORDS, 2, 3)  # share 11, segment 3: w9, w10, w20-w22 are not shown
    assert blocks.shape == (2, 3, 3)
    assert blocks[0].tolist() == [["w0", "w1", "w2"], ["w3", "w4", "w5"], ["w6", "w7", "w8"]]
    assert blocks[1, 0].tolist() == ["w11", "w12", "w13"]
    assert format_roles(blocks).split("\n")[:3] == [
        "Role 1: w0, w1, w2",
        "Role 2: w11, w12, w13",
        "Role 1: w3, w4, w5",
    ]
    assert not format_roles(blocks).endswith("\n")


def test_words_after_crosses_turn_boundaries_within_one_role():
    blocks = deal_roles(WORDS, 2, 3)
    assert words_after(blocks, 1, 1) == ["w13", "w14", "w15", "w16", "w17", "w18", "w19"]
    assert words_after(blocks, 0, 7) == ["w8"]


def test_too_many_blocks_is_a_clear_error():
    with pytest.raises(ConfigError, match="no word per block"):
        deal_roles(WORDS, 8, 10)
    with pytest.raises(ConfigError, match="cannot fill"):
        deal_lists(WORDS[:3], 4)


def test_theory_of_mind_draw_discard_swap_bookkeeping():
    hands = [["a", "b", "c", "d"], ["e", "f"]]
    hands = apply_action(hands, Action("draw", 0, ("x", "y")))
    assert hands == [["a", "b", "c", "d", "x", "y"], ["e", "f"]]
    hands = apply_action(hands, Action("discard", 0, ("b", "x")))
    assert hands == [["a", "c", "d", "y"], ["e", "f"]]
    swap = Action("swap", 0, ("a",), 1, ("f",))
    assert apply_action(hands, swap) == [["c", "d", "y", "f"], ["e", "a"]]
    assert hands == [["a", "c", "d", "y"], ["e", "f"]]  # the input is not modified
    assert describe_start(1, ["e", "f"]) == "Agent B starts with the following words: e, f."
    assert describe_action(Action("discard", 0, ("b", "x"))) == "Agent A discards the following words: b, x."
    assert (
        describe_action(swap)
        == 'Agent A swaps the following words "a" with Agent B for the following words "f".'
    )


def test_theory_of_mind_game_keeps_hands_disjoint_and_within_size():
    pool = [f"p{i}" for i in range(200)]
    lines, hands = play_theory_of_mind(np.random.default_rng(3), pool, 3, 5, 300)
    assert len(lines) == 3 + 300
    assert all(1 <= len(hand) <= 5 for hand in hands)
    held = [w for hand in hands for w in hand]
    assert len(held) == len(set(held))
    prompt = "Agents actions:\n\n" + "".join(f"{line}\n" for line in lines) + "\n\nInstruction:\nx"
    assert _replay(prompt) == {f"Agent {c}": hand for c, hand in zip("ABC", hands)}
    with pytest.raises(ConfigError, match="state_size"):
        play_theory_of_mind(np.random.default_rng(0), pool, 2, 1, 10)


# ----------------------------------------------------- against the snapshot


@pytest.mark.parametrize("name", TASKS)
def test_grid_matches_snapshot(name):
    snapshot, generated = _snapshot(name), _generated(name)
    assert len(generated) == len(snapshot)
    assert Counter(tuple(sorted(i.params.items())) for i in generated) == Counter(
        tuple(sorted(i.params.items())) for i in snapshot
    )
    assert {type(i.reference) for i in generated} == {type(i.reference) for i in snapshot}
    assert Counter(map(_shape, generated)) == Counter(map(_shape, snapshot))
    if name in [*YES_NO, "group_membership"]:  # yes/no balance; which lists are asked about
        assert Counter(i.reference for i in generated) == Counter(i.reference for i in snapshot)
    assert {i.task for i in generated} == {name}
    assert {i.category for i in generated} == {i.category for i in snapshot}


@pytest.mark.parametrize("name", TASKS)
def test_prompt_layout_and_instruction_match_snapshot(name):
    expected = {_skeleton(i.prompt) for i in _snapshot(name)}
    got = {_skeleton(i.prompt) for i in _generated(name)}
    assert len(expected) == 1
    assert got == expected


@pytest.mark.parametrize("name", LENGTH_TASKS)
def test_context_length_matches_snapshot(name):
    ratio = _mean_context_tokens(_generated(name)) / _mean_context_tokens(_snapshot(name))
    assert ratio == pytest.approx(1.0, abs=0.05)


def test_theory_of_mind_length_near_snapshot():
    ratio = _mean_context_tokens(_generated("theory_of_mind")) / _mean_context_tokens(
        _snapshot("theory_of_mind")
    )
    assert ratio == pytest.approx(1.0, abs=0.15)  # the word lists differ; agents and steps are equal


@pytest.mark.parametrize("name", TASKS)
def test_references_follow_from_the_prompt(name):
    for instance in _generated(name):
        assert _solve(name, instance.prompt) == instance.reference, instance.id


@pytest.mark.parametrize("name", TASKS)
def test_solver_agrees_with_snapshot(name):
    # checks the test's own solver (and so our reading of upstream's rules) on the published data
    for instance in _snapshot(name):
        assert _solve(name, instance.prompt) == instance.reference, instance.id


# ------------------------------------------------------------------- scoring


@pytest.mark.parametrize("name", TASKS)
def test_oracle_scores_one(name):
    spec = get_task(name)
    for instance in _generated(name):
        assert score(instance, render_reference(instance.reference), spec.metrics)[spec.primary] == 1.0


@pytest.mark.parametrize("name", YES_NO)
def test_always_yes_scores_half(name):
    spec = get_task(name)
    scores = [score(i, "Yes.", spec.metrics)["exact_match_strict"] for i in _generated(name)]
    assert np.mean(scores) == 0.5


def test_membership_strict_match_refuses_a_longer_list_number():
    instance = next(i for i in _generated("group_membership") if i.reference == "List 1")
    scores = score(instance, "List 13", get_task("group_membership").metrics)
    assert scores == {"exact_match": 1.0, "exact_match_strict": 0.0}  # upstream's substring rule inflates


# ------------------------------------------------- determinism and overrides

SMALL = {
    "group_membership": {"context_length": 600, "samples": 1},
    "group_association": {"context_length": 600, "samples": 1},
    "alternating_group_association": {"context_length": 1600, "samples": 1},
    "iterate_first": {"context_length": 600, "samples": 1},
    "iterate_last": {"context_length": 600, "samples": 1},
    "processing_data_blocks": {"context_length": 1600, "samples": 1},
    "theory_of_mind": {"samples": 1, "step": [30]},
}


@pytest.mark.parametrize("name", TASKS)
def test_seed_reproduces_and_other_seed_differs(name):
    def run(seed):
        return [i.to_dict() for i in generate_suite(seed, tasks=[name], overrides={name: SMALL[name]})]

    first = run(0)
    assert first == run(0)
    assert [d["prompt"] for d in run(1)] != [d["prompt"] for d in first]


def test_list_count_and_length_overrides():
    instances = generate_suite(
        0,
        tasks=["group_membership"],
        overrides={"group_membership": {"n_list": [2, 3], "samples": 2, "context_length": 1000}},
    )
    assert len(instances) == 2 * 2 * 5
    assert Counter(len(_blocks(i.prompt, "List")) for i in instances) == {2: 10, 3: 10}
    assert {i.params["context_length"] for i in instances} == {1000}
    assert _mean_context_tokens(tuple(instances)) == pytest.approx(1000, rel=0.05)


def test_theory_of_mind_overrides():
    instances = generate_suite(
        0,
        tasks=["theory_of_mind"],
        overrides={"theory_of_mind": {"num_agents": [5], "step": [20], "state_size": [4], "samples": 3}},
    )
    assert len(instances) == 3
    assert {_shape(i) for i in instances} == {(5, 20)}
    assert {(i.params["step"], i.params["state_size"]) for i in instances} == {(20, 4)}
    assert all(1 <= len(hand) <= 4 for i in instances for hand in i.reference.values())


def test_roles_override_and_unknown_parameter():
    instances = generate_suite(
        0,
        tasks=["processing_data_blocks"],
        overrides={"processing_data_blocks": {"n_roles": [3], "n_turns": [4], "samples": 2}},
    )
    assert {len(_blocks(i.prompt, "Role")) for i in instances} == {12}
    with pytest.raises(ConfigError, match="no parameter"):
        generate_suite(0, tasks=["iterate_first"], overrides={"iterate_first": {"n_lists": [4]}})

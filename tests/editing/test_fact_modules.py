"""A fact is one module: its edits (``Fact.edits``) and label kernels (``register_kernel``)
live beside its derivation and wording, and every stage looks the fact up instead of naming it.

``examples/first_direction.py`` is a second new fact in one file that also declares what the
ops do to it: the built-in ops then edit its questions (the declared answer checked against
the edited states) and its declared answers (through its own kernels), with no other file
touched. An op it says nothing about, or a kernel it does not register, is refused by name."""

from __future__ import annotations

import importlib.util
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from tempogen.builders.exports.videott import question_set
from tempogen.builders.exports.videott.writers import WRITERS, generic_set, writer_of
from tempogen.editing import Clip, EditError, Loop, Mirror, Reverse, Rotate, Speed, algebra
from tempogen.facts import FACTS, fact_names, get_fact
from tempogen.facts.kernels import (
    EDIT_NAMES,
    KERNEL_NAMES,
    KERNELS,
    RULES,
    get_kernel,
    register_kernel,
)
from tempogen.generators.build import labels_json
from tempogen.questions import WordingError, check_declared_wording, check_wording
from tempogen.retrieval.corpus import library_caption

ROOT = Path(__file__).resolve().parents[2]
BUILTIN_MODULES = {
    "direction": "direction",
    "rotation": "rotation",
    "speed": "speed",
    "frequency": "frequency",
    "count": "count",
    "order": "order",
    "trajectory": "trajectory",
    "more": "more",
    "faster": "faster",
    "approach": "approach",
    "next": "next_gesture",
}


@pytest.fixture
def first_direction():
    spec = importlib.util.spec_from_file_location(
        "first_direction", ROOT / "examples" / "first_direction.py"
    )
    mod = importlib.util.module_from_spec(spec)
    sys.modules["first_direction"] = mod
    spec.loader.exec_module(mod)
    try:
        yield mod.FirstDirection
    finally:
        FACTS.pop("first_direction", None)
        for key in [k for k in KERNELS if k[1] == "first_direction"]:
            del KERNELS[key]
        sys.modules.pop("first_direction", None)


def _asking(clip: Clip, fact: str) -> Clip:
    """The clip with its question asking ``fact`` instead."""
    return clip.evolve(labels=replace(clip.labels, query=replace(clip.labels.query, fact=fact)))


def test_each_builtin_fact_is_its_own_module_declaring_only_known_edits() -> None:
    for name, module in BUILTIN_MODULES.items():
        fact = get_fact(name)
        assert type(fact).__module__ == f"tempogen.facts.{module}"
        assert set(fact.edits) <= set(EDIT_NAMES), name
        assert set(fact.edits.values()) <= set(RULES), name
    assert list(fact_names())[: len(BUILTIN_MODULES)] == list(BUILTIN_MODULES)
    assert {kernel for kernel, _ in KERNELS} <= set(KERNEL_NAMES)


def test_a_kernel_registered_twice_or_unknown_is_refused() -> None:
    with pytest.raises(
        ValueError, match="kernel 'time_reversal' of fact 'direction' is registered twice"
    ):
        register_kernel("time_reversal", "direction")(lambda value: value)
    with pytest.raises(ValueError, match="unknown label kernel 'shuffle'; known: time_reversal"):
        register_kernel("shuffle", "direction")


def test_an_unregistered_kernel_is_refused_naming_op_and_fact() -> None:
    with pytest.raises(
        EditError, match="^loop 2: cannot transform label 'colour' soundly: no rule"
    ):
        get_kernel("repeat", "colour", "loop 2")
    # faster registers no time reversal, though the reverse op keeps its questions
    with pytest.raises(EditError, match="^reverse: cannot transform label 'faster' soundly"):
        algebra.facts_reverse({"faster": "obj1"})


def test_a_new_fact_in_one_file_is_edited_by_the_builtin_ops(first_direction, generated) -> None:
    clip = _asking(generated("slide", "left-up"), "first_direction")
    fact = get_fact("first_direction")
    assert fact.key(fact.derive(clip.labels)) == "left"
    # mapped by its own kernels, and the states agree (Op checks them after every edit)
    for op, want in ((Mirror("horizontal"), "right"), (Mirror("vertical"), "left"),
                     (Rotate(90), "up"), (Rotate(180), "right"), (Rotate(270), "down")):  # fmt: skip
        out = op(clip)
        assert fact.key(fact.derive(out.labels)) == want, op
    assert fact.key(fact.derive(Reverse()(clip).labels)) == "down"  # read from the states
    assert fact.key(fact.derive(Speed(0.5)(clip).labels)) == "left"
    with pytest.raises(
        EditError,
        match=r"^loop\(times=2\): cannot transform label 'first_direction'.*does not declare",
    ):
        Loop(2)(clip)
    with pytest.raises(EditError, match="speed.*'first_direction'.*does not declare"):
        Speed(2.0)(clip)  # dropping frames is declared apart (``speed_up``): not by this fact


def test_a_new_facts_declared_answers_go_through_its_kernels(first_direction) -> None:
    clip = Clip.from_array(
        np.zeros((12, 16, 16, 3), np.uint8), 4.0, facts={"first_direction": "left"}
    )
    assert Mirror("horizontal")(clip).facts == {"first_direction": "right"}
    assert Rotate(90)(clip).facts == {"first_direction": "up"}
    assert Speed(0.5)(clip).facts == {"first_direction": "left"}
    with pytest.raises(EditError, match="reverse.*'first_direction'.*per-frame states"):
        Reverse()(clip)  # read from states, which a declared answer has none of
    # a kernel the fact does not register (it reads a reversal from the states)
    with pytest.raises(
        EditError, match="^reverse: cannot transform label 'first_direction' soundly: no rule"
    ):
        algebra.facts_reverse({"first_direction": "left"})


def test_video_tt_words_a_fact_without_a_writer_of_its_own(first_direction, generated) -> None:
    assert "first_direction" not in WRITERS and writer_of("first_direction") is generic_set
    clip = _asking(generated("slide", "left-up"), "first_direction")
    row = {
        "id": "first-0", "labels": labels_json(clip.labels), "answer_key": "left",
        "question": "Which way does the shape move first?", "options": ["Leftwards.", "Upwards."],
        "answer": 0, "video": "videos/first-0.mp4",
    }  # fmt: skip
    entry = question_set(row)
    kinds = [q["kind"] for q in entry["questions"]]
    assert kinds == ["primary", "rephrased", "correctly_led", "wrongly_led", "multiple_choice"]
    primary, led, wrong = entry["questions"][0], entry["questions"][2], entry["questions"][3]
    assert primary["question"] == row["question"] and primary["answer"] == "Leftwards."
    assert led["question"] == "The video lasts 3.1 s. Which way does the shape move first?"
    assert wrong["question"] == "Why is the answer rightwards? Which way does the shape move first?"
    assert wrong["answer"] == "It is not; leftwards."
    assert entry["sampling_check"]["answerable"] is True
    with pytest.raises(ValueError, match="answer_key 'up' disagrees with the labels"):
        question_set({**row, "answer_key": "up"})


def test_the_library_caption_is_the_facts_own(first_direction) -> None:
    row = {
        "question": "Which way does it move first?", "answer_key": "up",
        "labels": {"query": {"fact": "first_direction", "objects": ["subject"]},
                   "meta": {"nouns": {"subject": "the red star"}}},
    }  # fmt: skip
    assert library_caption(row) == "the red star heads upwards first"
    row["labels"]["meta"]["nouns"]["subject"] = "the feet"
    assert library_caption(row) == "the feet head upwards first"
    row["answer_key"] = "none"
    assert library_caption(row) == "the feet do not move"
    # a fact without a caption of its own: the question with its answer
    row["labels"]["query"]["fact"] = "no_such_fact"
    assert library_caption(row) == "which way does it move first? none"


def test_the_time_words_a_fact_reads_are_its_own(first_direction, generated) -> None:
    """An edited clip keeps "first" in its question when its fact reads that word (the
    fact's ``words``); a fact that does not cannot show it still holds, so it refuses."""
    labels = _asking(generated("slide", "left-up"), "first_direction").labels
    check_wording("Which way does {subject} move first?", labels)
    check_declared_wording("Which way does it move first?", "first_direction")
    asking_direction = replace(labels, query=replace(labels.query, fact="direction"))
    with pytest.raises(WordingError, match="'first' depends on time"):
        check_wording("Which way does {subject} move first?", asking_direction)
    with pytest.raises(WordingError, match="'first' depends on time"):
        check_declared_wording("Which way does it move first?", "direction")

"""Library captions read as plain English for every registered fact and answer key."""

from __future__ import annotations

import re
from functools import cache
from typing import Any

import numpy as np
import pytest

import tempogen.generators  # noqa: F401  (registers the built-in patterns)
from tempogen.facts import FACTS
from tempogen.generators.motion import MOTIONS, Style, make_labels
from tempogen.retrieval.corpus import library_caption

BAD = {
    "an article before a negation": re.compile(r"\b(a|an) (no|none|not)\b"),
    "a doubled word": re.compile(r"\b(\w+) \1\b"),
    "an empty slot": re.compile(r"\{|\}|\(\s*\)|\s[,.;:?]|^\s|\s$|\s{2}"),
    "a Python value": re.compile(r"\b(None|True|False|nan)\b"),
    "a count of zero": re.compile(r"\b(0|no) (times|full loops)\b"),
    "an unconjugated kind": re.compile(r"\b(hand|person|ball) (raise|flash|bounce|loop)\b"),
}


@cache
def _rows() -> list[dict[str, Any]]:
    """One clip per (pattern, fact kind), worded with each of its fact's keys."""
    rows: list[dict[str, Any]] = []
    done: set[tuple[str, str]] = set()
    for name, motion in sorted(MOTIONS.items()):
        if motion.needs_source:  # cut from a motion file: tests/generators/test_mocap_plan.py
            continue
        labels = make_labels(
            motion,
            motion.keys()[0],
            np.random.default_rng(0),
            width=480,
            height=270,
            fps=20,
            num_frames=100,
            style=Style(),
        )
        if (motion.fact, labels.query.kind) in done:
            continue
        done.add((motion.fact, labels.query.kind))
        for key in FACTS[motion.fact].keys(labels.query.objects):
            rows.append(
                {
                    "id": f"{name}/{key}",
                    "question": motion.question_text(labels),
                    "answer_key": key,
                    "labels": labels.to_json(),
                }
            )
    return rows


def test_every_fact_and_key_is_worded_without_bad_patterns() -> None:
    rows = _rows()
    assert {r["labels"]["query"]["fact"] for r in rows} == set(FACTS)
    bad = []
    for row in rows:
        caption = library_caption(row)
        bad += [
            f"{row['id']}: {what}: {caption!r}" for what, rx in BAD.items() if rx.search(caption)
        ]
        if not caption.strip():
            bad.append(f"{row['id']}: empty caption")
    assert not bad, "\n".join(bad)


@pytest.mark.parametrize(
    "fact,kind,key,want",
    [
        ("speed", "position", "none", "the person's cyan hand does not move"),
        ("speed", "angle", "none", "the magenta rotor does not turn"),
        ("count", "flash", "0", "the magenta circle never flashes"),
        ("frequency", "raise", "none", "the feet of the person in beige never go up"),
    ],
)
def test_none_answers_read_as_negations(fact: str, kind: str, key: str, want: str) -> None:
    row = next(
        r
        for r in _rows()
        if r["labels"]["query"]["fact"] == fact
        and r["labels"]["query"]["kind"] == kind
        and r["answer_key"] == key
    )
    assert library_caption(row) == want

"""The machinery every Video-TT writer shares: one row's context, one question's entry, the
writers registered per fact, and the generic writer a fact without its own gets.

A writer turns one row (:class:`Ctx`) into its four open-ended questions and a rationale
(:func:`open_questions`). The built-in facts' writers (``motion.py``, ``events.py``) word their
answers from what the states show; a fact with no writer of its own (a plugin's, like the
README's ``last_direction``) gets :func:`generic_set`, worded from the fact's own options, so
a build never stops on a fact the export does not know.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tempogen.builders.exports.videott.text import (
    cap,
    open_questions,
    same_at_ends,
    secs,
    uniq,
)
from tempogen.facts import answer_of, describe, get_fact
from tempogen.labels import Labels
from tempogen.questions import answer_key

Writer = Callable[["Ctx"], dict[str, Any]]
WRITERS: dict[str, Writer] = {}


def register_writer(fact: str) -> Callable[[Writer], Writer]:
    """Decorator: ``fn`` writes the Video-TT question set of rows asking ``fact``."""

    def add(fn: Writer) -> Writer:
        if fact in WRITERS:
            raise ValueError(f"Video-TT writer of fact {fact!r} is registered twice")
        WRITERS[fact] = fn
        return fn

    return add


def writer_of(fact: str) -> Writer:
    """The writer of ``fact``'s question sets: its own, else :func:`generic_set`."""
    return WRITERS.get(fact, generic_set)


class Ctx:
    """Everything the writers of one row's questions share."""

    def __init__(self, row: dict[str, Any]) -> None:
        self.row = row
        self.id = str(row["id"])
        self.labels = Labels.from_json(row["labels"])
        q = self.labels.query
        self.fact, self.kind, self.objects = q.fact, q.kind, q.objects
        value = answer_of(self.labels)
        if value is None:
            raise ValueError(f"row {self.id!r}: the labels do not determine an answer")
        self.key = answer_key(self.fact, value)
        if row.get("answer_key") not in (None, self.key):
            raise ValueError(
                f"row {self.id!r}: answer_key {row['answer_key']!r} disagrees with the labels "
                f"({self.key!r})"
            )
        self.subject = self.labels.subject
        # who performs the action, when that is not the tracked part ("the person" jumps,
        # though the labels follow the feet)
        self.subj = self.labels.meta.get("actor") or self.noun(self.objects[0])
        self.n = self.labels.num_frames
        self.duration = self.n / self.labels.fps

    def noun(self, name: str) -> str:
        """An object's noun phrase (``the red star``)."""
        return describe(name, self.labels)

    @property
    def center(self) -> str:
        """The second object's noun (an orbit's centre), or ``its centre``."""
        return self.noun(self.objects[1]) if len(self.objects) > 1 else "its centre"


def question_entry(
    ctx: Ctx, kind: str, question: str, answer: str, accepted: list[str]
) -> dict[str, Any]:
    """One question of a set: its id, kind, words, answer and the answers accepted."""
    return {
        "qid": f"{ctx.id}/{kind}",
        "kind": kind,
        "question": question,
        "answer": answer,
        "accepted": uniq([answer.rstrip("."), *accepted]),
    }


def still_led(ctx: Ctx, ask: str, answer: str) -> tuple[str, str, list[str]]:
    """Correctly-led question for a still subject: a verified premise, else the duration."""
    if same_at_ends(ctx.subject):
        premise = f"{cap(ctx.subj)} looks the same in the last frame as in the first."
    else:
        premise = f"The video lasts {secs(ctx.duration)}."
    return f"{premise} {ask}", answer, []


def generic_set(ctx: Ctx) -> dict[str, Any]:
    """A question set for a fact with no writer of its own, worded from the fact itself: the
    row's question, the answer's option text, a premise the states verify (the subject looks
    the same at both ends, or the clip's length) and a wrong answer's words as the false one."""
    fact = get_fact(ctx.fact)
    labels = ctx.labels
    question = str(ctx.row.get("question") or f"What is the {ctx.fact} in the video?").strip()
    answer = fact.option_text(ctx.key, labels)
    words = fact.phrase(ctx.key, labels)
    accepted = uniq([words, ctx.key])
    wrong = next((k for k in fact.keys(ctx.objects) if k != ctx.key), None)
    rationale = (
        f"Read from the per-frame states of all {ctx.n} frames ({secs(ctx.duration)}): {words}."
    )
    ask = question[:1].lower() + question[1:]
    rephrased = f"Watching the whole video from the first frame to the last: {ask}"
    led = still_led(ctx, question, answer)
    led = (led[0], led[1], list(accepted))
    if wrong is None:
        false = (f"{question} Why is the answer not {words}?", f"It is {words}.")
    else:
        false = (
            f"Why is the answer {fact.phrase(wrong, labels)}? {question}",
            f"It is not; {words}.",
        )
    return open_questions(rationale, question, rephrased, answer, accepted, led, false)

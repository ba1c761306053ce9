"""What a fact's library caption is written from: a clip's nouns, query and answer, and the
grammar that makes a verb agree with its subject (``the feet land``, ``the ball lands``)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

# a repeated action (``query.kind``) as a verb, third person singular
KIND_VERB = {"flash": "flashes", "bounce": "bounces", "raise": "goes up", "loop": "loops"}
NOT_PLURAL = ("ss", "us", "is")


def is_plural(noun: str) -> bool:
    """Whether a noun phrase's head word is plural ("the feet of the person" -> feet)."""
    head = re.split(r" (?:of|on|in|with|at) | \(", noun.strip())[0].split()[-1:]
    word = head[0].lower() if head else ""
    return word in ("feet", "people", "children") or (
        word.endswith("s") and not word.endswith(NOT_PLURAL) and "'" not in word
    )


def agree(subject: str, verb: str) -> str:
    """A verb phrase (third person singular) made to agree with ``subject``."""
    if not is_plural(subject):
        return verb
    first, _, rest = verb.partition(" ")
    if first in ("goes", "does"):
        first = first[:-2]
    elif first.endswith(("shes", "ches", "xes", "sses")):
        first = first[:-2]
    elif first.endswith("s"):
        first = first[:-1]
    return f"{first} {rest}".rstrip()


@dataclass(frozen=True)
class CaptionParts:
    """One clip as a caption sees it: the subject's and the second object's nouns, the query's
    objects and kind, the answer key and its words, and the labels' meta."""

    subject: str
    other: str
    objects: tuple[str, ...]
    nouns: dict[str, str]
    kind: str
    key: str
    answer: str
    meta: dict[str, Any] = field(default_factory=dict)

    def says(self, verb: str) -> str:
        """``subject verb``, the verb agreeing with the subject."""
        return f"{self.subject} {agree(self.subject, verb)}"

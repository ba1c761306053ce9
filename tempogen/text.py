"""Small text helpers shared by the CLI and registries."""

from __future__ import annotations

import re


def first_sentence(doc: str | None) -> str:
    """The first sentence of a docstring, whole even when it wraps over several lines
    (help texts and registries show it; cutting at the first line break cut mid-sentence)."""
    text = " ".join((doc or "").split())
    m = re.search(r"(?<=[.!?])\s+(?=[A-Z`(\"'])", text)
    return text[: m.start()] if m else text

"""The default dataset's specs certify: the odd half of the plan (test_patterns.py holds the
even half, so that each of make test's two workers takes one)."""

from __future__ import annotations

import pytest
from kit import certify_default_questions


@pytest.mark.slow
def test_every_default_question_certifies_odd_half() -> None:
    """The default dataset's specs all produce labels that pass the 16-frame certificate."""
    certify_default_questions(1, 2)

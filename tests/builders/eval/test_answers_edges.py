"""Parser and grader edge cases found by mutation testing (`make mutate MODULES=answers`).

Each case pins behaviour that test_answers.py left open: a mutant of builders/eval/answers.py
passed every test there and fails here (BENCHMARKS.md, "Mutation testing", lists which).
"""

from __future__ import annotations

import pytest

from tempogen.builders.eval.answers import grade_open, parse_choice

SPIN = ["Clockwise.", "Counterclockwise.", "No rotation.", "Both."]
SIDE = ["Left.", "Right.", "Up.", "Down."]


@pytest.mark.parametrize(
    ("response", "options", "expected"),
    [
        # markdown around a letter is dropped before the letter is read
        ("```C B```", SPIN, 1),  # a fence's language tag ("C") is not a letter
        ("```left\nB\n```", SIDE, 1),  # ... nor option text ("left")
        ("```\nb\n```", SPIN, 1),  # a lower-case letter alone once the fences are gone
        ("__B__", SPIN, 1),
        ("**B:** Left", SIDE, 1),  # the leading marker wins over the option text after it
        ("`B:` Left", SIDE, 1),
        ("B: Left", SIDE, 1),
        # JSON: the answer key decides even where the free text names other letters
        ('{"reasoning": "A is wrong, so is D", "answer": "C"}', SPIN, 2),
        ('{"Reasoning": "not A", "Answer": "C"}', SPIN, 2),  # keys in any case
        ('{\n  "why": "A and D fail",\n  "choice": "C"\n}', SPIN, 2),  # across lines
        ('{"answer": false, "choice": "C", "why": "A and B fail"}', SPIN, 2),  # a bool is no answer
        ("{B}", SPIN, 1),  # braces that are not JSON
        # a statement whose letter does not stand alone is skipped, not the end of the search
        ("The answer is a clockwise turn... no, the answer is B.", SPIN, 1),
        # a weak cue and the option text agree or contradict
        ("Option B, counterclockwise.", SPIN, 1),
        ("Option B, clockwise.", SPIN, None),
        # a negation too far before the option text does not negate it
        ("There is no doubt the square turns clockwise.", SPIN, 0),
        # an option inside a longer matched option (same end) does not count
        ("It turns left.", ["Left.", "Turns left.", "Up.", "Down."], 1),
        # duplicate options count once, as the first
        ("It turns left.", ["Left.", "Right.", "Left.", "Up."], 0),
        # a capital letter on its own line, or before a capitalised word, stands alone
        ("A \nbecause it never stops.", SPIN, 0),
        ("The answer is A Xeroxed copy.", SPIN, 0),
        # "A"/"I" before a lower-case word is the article or the pronoun
        ("A orB", SPIN, None),
        ("A mRNA strand.", SPIN, None),
        # ... but only "A" and "I": a lone "X" names the 24th option
        ("X marks the spot", [str(i) for i in range(26)], 23),
    ],
)
def test_parse_choice_edges(response, options, expected):
    assert parse_choice(response, options) == expected


@pytest.mark.parametrize(
    ("response", "answer", "rejected", "expected"),
    [
        # an answer with no words, and a bare "No" read from the response's first word
        ("No.", "?", None, False),
        ("Nope.", "No.", None, True),
        ("Maybe.", "No.", None, False),
        ("Well, yes.", "Yes.", None, False),
        ("Yes.", "Yes, left.", None, False),
        # an answer of stop words only must appear as a phrase
        ("Yes, it is.", "It is.", None, True),
        ("No.", "It is.", None, False),
        # a wrong answer stated by the same words as the right one (a tie) is covered by it
        ("It went to the left.", "Left.", ["To the left."], True),
        ("No.", "No.", ["No"], True),
        ("Yes.", "Yes.", ["Yeah."], True),
        ("It is.", "It is.", ["It is!"], True),
        ("It never stops.", "It does not stop.", ["Not stopping."], True),
        ("It turns left.", "Turns left.", ["Left."], True),
        # a span ends one past its last key word (a stop-word answer is matched as a phrase)
        ("It turns to the left.", "Turns to the left.", ["to the"], True),
        ("It turns left then.", "Turns left.", ["then"], False),
        ("No it is not.", "No it is not", ["No."], True),
        # ... but not a wrong answer that overlaps it without being inside it
        ("It moves up, down, then left.", "Down, then left.", ["Up, then down."], False),
        ("It turns left quickly.", "Turns left.", ["Turns quickly."], False),
        # a wrong answer is covered when the right one spans it and says more
        ("Up, down, left.", "Up, down, then left.", ["Up, then left."], True),
        (
            "Left, then up and down, then it stops, then right.",
            "Left, then right.",
            ["Up and down, then it stops."],
            True,
        ),
    ],
)
def test_grade_open_edges(response, answer, rejected, expected):
    assert grade_open(response, answer, rejected=rejected) is expected


@pytest.mark.parametrize(
    ("response", "answer", "expected"),
    [
        # the stemmer: inflections of one word match, different words do not
        ("It keeps turning.", "It turns.", True),
        ("It will run.", "It runs.", True),
        ("It moves.", "Move.", True),
        ("It shows two rings.", "A ring.", True),
        ("Its speeds vary.", "The speed.", True),
        ("Two glasses.", "A glass.", True),
        ("It uses a ramp.", "Use.", True),
        ("A life.", "Lift.", False),
    ],
)
def test_grade_open_stems(response, answer, expected):
    assert grade_open(response, answer) is expected

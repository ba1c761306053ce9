"""Response parsing: option letters and texts in many formats, and conservative open-ended grading."""

from __future__ import annotations

import pytest

from tempogen.builders.eval.answers import grade_open, normalize_text, parse_choice

ROTATION = [
    "Counter-clockwise then clockwise.",  # A
    "Clockwise then counter-clockwise.",  # B
    "Clockwise throughout.",  # C
    "No rotation.",  # D
    "Counter-clockwise throughout.",  # E
]
DIRECTION = ["Leftwards.", "Leftwards then downwards.", "Rightwards.", "No movements."]
COUNT = ["1", "2", "3", "4"]


@pytest.mark.parametrize(
    ("response", "expected"),
    [
        # a bare letter, bracketed or punctuated; lower case when it is the whole response
        ("B", 1),
        (" B \n", 1),
        ("(B)", 1),
        ("[C]", 2),
        ("B.", 1),
        ("b", 1),
        ("(e)", 4),
        # a leading marker, then the option text (the letter wins)
        ("B. Clockwise then counter-clockwise.", 1),
        ("(C) Clockwise throughout", 2),
        ("C) Clockwise throughout", 2),
        ("E: Counter-clockwise throughout.", 4),
        ("D - No rotation", 3),
        # explicit answer statements
        ("Answer: B", 1),
        ("answer: c.", 2),
        ("The answer is (C) Clockwise throughout.", 2),
        ("The correct answer is E.", 4),
        ("**Answer:** **D**", 3),
        ("After looking at the frames, the moon goes around... Final answer: (A)", 0),
        ("<answer>B</answer>", 1),
        ("Answer: Option C", 2),
        ("Option A is wrong; the answer is E", 4),  # the explicit statement beats a cue
        ("Answer: A. Wait. Final answer: C", 2),  # a final answer beats an earlier one
        # JSON answers, fenced or not
        ('```json\n{"answer": "D"}\n```', 3),
        ('{"Answer": "Clockwise throughout."}', 2),
        # weaker cues
        ("I would go with D.", 3),
        ("Between A and B, I pick B.", 1),
        ("My choice is (E), since it keeps turning left.", 4),
        # option text, case / punctuation / hyphen insensitive
        ("Clockwise throughout", 2),
        ("clockwise THROUGHOUT!!", 2),
        ("It rotates counter-clockwise throughout.", 4),  # not C inside E
        ("It rotates counterclockwise throughout", 4),
        ("anticlockwise throughout", 4),
        ("Counter clockwise then clockwise", 0),
        ("There is no rotation.", 3),
        ("It is not clockwise throughout; it is counter-clockwise throughout.", 4),
        # a lone capital letter
        ("I think it is C.", 2),
        ("Looking at frames 1-16 the answer must be\nE", 4),
    ],
)
def test_parse_choice_rotation(response, expected):
    assert parse_choice(response, ROTATION) == expected


@pytest.mark.parametrize(
    "response",
    [
        "",
        "   ",
        "A man rotates the wheel.",  # the article, not option A
        "Answer: A man turns it",
        "The answer is a clockwise rotation.",  # lower-case 'a' is an article here
        "I cannot tell from these frames.",
        "A or B",
        "A, C",
        "F",  # out of range for 5 options
        "Answer: F",
        "Between clockwise throughout and counter-clockwise throughout, hard to say.",
        "Clockwise throughout, so B",  # text and letter disagree
        "Option A or option C",
        "e.g. something else",
        "None of the above",
    ],
)
def test_parse_choice_unparsable_or_ambiguous(response):
    assert parse_choice(response, ROTATION) is None


def test_parse_choice_longest_option_wins():
    assert parse_choice("It moves leftwards, then downwards.", DIRECTION) == 1
    assert parse_choice("It moves leftwards.", DIRECTION) == 0
    assert parse_choice("Leftwards then downwards", DIRECTION) == 1
    assert parse_choice("It does not move; no movements.", DIRECTION) == 3


def test_parse_choice_numbers():
    assert parse_choice("3", COUNT) == 2
    assert parse_choice("The ball bounces three times.", COUNT) == 2
    assert parse_choice("It flashes twice.", COUNT) == 1
    assert parse_choice("I count 3, maybe 4.", COUNT) is None
    assert parse_choice("Answer: D", COUNT) == 3


def test_parse_choice_odd_inputs():
    assert parse_choice(None, ROTATION) is None  # type: ignore[arg-type]
    assert parse_choice("B", []) is None
    assert parse_choice(["B"], ROTATION) is None  # type: ignore[arg-type]
    # duplicated option texts count once (as the first)
    assert parse_choice("Left", ["Left", "Right", "Left"]) == 0


def test_normalize_text():
    assert normalize_text("It turns Anti-clockwise, TWICE!") == "it turns counterclockwise 2"
    assert normalize_text("counter clockwise") == normalize_text("Counter-Clockwise.")
    assert normalize_text("Doesn\u2019t") == "doesnt"
    assert normalize_text("Infinity-shape") == "infinity shape"


FAN_A = "No, it turns counter-clockwise."
FAN_ACCEPTED = ["counter-clockwise", "anticlockwise"]


@pytest.mark.parametrize(
    ("response", "expected"),
    [
        ("It actually turns counterclockwise.", True),
        ("It doesn't turn clockwise, it turns counter clockwise.", True),
        ("Counter-clockwise.", True),  # an accepted phrasing
        ("Anti-clockwise!", True),
        ("Yes, because the motor drives it that way.", False),  # accepts the false premise
        ("Yes, it turns counter-clockwise.", False),
        ("It turns clockwise, not counterclockwise.", False),  # negated
        ("It does not turn clockwise.", False),  # no corrected content
        ("Because the wind pushes it.", False),
    ],
)
def test_grade_open_wrongly_led(response, expected):
    assert grade_open(response, FAN_A, FAN_ACCEPTED) is expected


def test_grade_open_needs_every_key_word_of_the_answer():
    # without an accepted short form, "turns" is part of the answer
    assert grade_open("Counter-clockwise.", FAN_A) is False
    assert grade_open("It turns counter-clockwise.", FAN_A) is True
    assert grade_open("It does not; it moves up.", "It does not; it moves up.") is True
    assert grade_open("Yes, it moves up.", "It does not; it moves up.") is False


@pytest.mark.parametrize(
    ("response", "answer", "accepted", "expected"),
    [
        ("The ball bounced three times.", "3 times", None, True),
        ("It bounces 3 times.", "three", None, True),
        ("Twice.", "3 times", None, False),
        ("It moves left and then right.", "First left, then right", None, True),
        ("It moves right, then left.", "First left, then right", None, False),
        ("The red car.", "red", None, True),
        ("The car is not red, it is blue.", "red", None, False),
        ("It is reddish.", "red", None, False),  # conservative: no fuzzy stems
        ("The crimson one.", "red", ["crimson"], True),  # an accepted phrasing
        ("He tapped the goalkeeper.", "The goalkeeper", None, True),
        ("The fan turned.", "It turns", None, True),  # turned / turns share a stem
        ("There is no rotation.", "No rotation", None, True),
        ("It rotates slowly.", "No rotation", None, False),
        ("Yes, it does.", "Yes", None, True),
        ("No.", "Yes", None, False),
        ("No, he doesn't.", "No.", None, True),
        ("Yes he does.", "No.", None, False),
        ("He stays still and never jumps.", "He does not jump", None, True),
        ("He jumps.", "He does not jump", None, False),
        ("The sky is blue.", "He does not jump", None, False),
        (
            "It never reverses; it turns clockwise.",
            "It never reverses; it turns clockwise.",
            None,
            True,
        ),
        ("It reverses and turns clockwise.", "It never reverses; it turns clockwise.", None, False),
        ("", "red", None, False),
    ],
)
def test_grade_open(response, answer, accepted, expected):
    assert grade_open(response, answer, accepted) is expected


CW_ACCEPTED = ["clockwise", "clockwise throughout"]
CW_REJECTED = [
    "Clockwise, then counter-clockwise.",
    "Counter-clockwise, then clockwise.",
    "Counter-clockwise the whole time.",
]


@pytest.mark.parametrize(
    ("response", "expected"),
    [
        ("Clockwise.", True),
        ("It turns clockwise throughout.", True),
        ("Clockwise the whole time.", True),
        ("Counter-clockwise, then clockwise.", False),  # "clockwise" only inside a wrong answer
        ("First clockwise, then counter-clockwise.", False),
        ("Counter-clockwise the whole time.", False),
        ("Not counter-clockwise: clockwise.", True),  # the wrong answer is negated
    ],
)
def test_grade_open_rejected_answers(response, expected):
    answer = "Clockwise the whole time."
    assert grade_open(response, answer, CW_ACCEPTED, CW_REJECTED) is expected
    if expected is False:  # without the wrong answers to compare, the sub-phrase passes
        assert grade_open(response, answer, CW_ACCEPTED) is (response != CW_REJECTED[2])


def test_grade_open_rejected_sequences_and_hedges():
    answer, accepted = "It does not; it moves up.", ["up", "upwards"]
    rejected = ["It does not; it moves left first, then up.", "It does not; it moves down."]
    assert grade_open("It does not; it moves up.", answer, accepted, rejected) is True
    assert grade_open("Upwards.", answer, accepted, rejected) is True
    # says more than the answer, in the words of a wrong one (equal span, more key words)
    assert (
        grade_open("It does not; it moves left first, then up.", answer, accepted, rejected)
        is False
    )
    # a hedge between the right answer and a wrong one
    assert grade_open("Either left or right.", "Left.", None, ["Right."]) is False
    assert grade_open("Either left or right.", "Left.") is True
    # a wrong answer that is the right one's own words does not count against it
    assert grade_open("Left, then up.", "Left, then up.", None, ["Left.", "Up."]) is True


def test_grade_open_non_strings():
    assert grade_open(None, "red") is False  # type: ignore[arg-type]
    assert grade_open("red", None) is False  # type: ignore[arg-type]
    assert grade_open("red", "blue", [None, "", "red"]) is True  # type: ignore[list-item]
    assert grade_open("red", "red", None, [None, ""]) is True  # type: ignore[list-item]


# -- conflicting and repeated answers, against TOMATO's and Vinoground's own scorers ---------
VINO = ["The ball rolls left, then it stops.", "The ball stops, then it rolls left."]


@pytest.mark.parametrize(
    ("response", "expected"),
    [
        ("B", 1),  # a single letter
        ("b", 1),  # upper-cased
        ("B: Clockwise then counter-clockwise.", 1),  # "letter: option" verbatim
        ("Answer is:(C)", 2),  # their one answer-statement pattern
        ("Answer is:C", 2),
    ],
)
def test_what_tomato_decides_without_an_llm_we_decide_alike(response, expected):
    """TOMATO's ``pre_parser`` (yale-nlp/TOMATO, src/parse_result.py) decides a response by
    rule only when it is one letter (upper-cased), a "<letter>: <option>" string verbatim, or
    the whole response matches ``Answer is:?(?<letter>)?``; all else goes to a GPT parser
    told to pick a random letter when nothing matches, then to ``random.choice``. What its
    rules decide, ours decides the same."""
    assert parse_choice(response, ROTATION) == expected


@pytest.mark.parametrize(
    ("response", "expected"),
    [
        # two different explicit answers, no "final answer": a self-correction is no answer
        ("The answer is A. Actually, the answer is C.", None),
        ("Answer: B. No wait, the answer is D.", None),
        # the same answer repeated is that answer
        ("The answer is C. The answer is C.", 2),
        ("The answer is (B). Final answer: B", 1),
        # several "final answer"s: the last one is the model's last word
        ("Final answer: A. Hmm, re-checking the frames. Final answer: C", 2),
        ("Final answer: D\nFinal answer: B\nThe answer is C", 1),
        ("Final answer: C. Final answer: C.", 2),
        # a leading letter is one more statement: contradicted, no answer; a final one wins
        ("A. Actually, the answer is C.", None),
        ("A. The answer is A.", 0),
        ("A. Wait. Final answer: C", 2),
    ],
)
def test_conflicting_and_repeated_answers(response, expected):
    """Cases TOMATO's ``pre_parser`` (yale-nlp/TOMATO, src/parse_result.py) leaves to a GPT
    parser whose last resort is ``random.choice(all_choices)``: a guess scores 1/n in the
    model's favour, so where statements conflict we return no answer instead, and only a
    repeated answer or a last "final answer" decides."""
    assert parse_choice(response, ROTATION) == expected


@pytest.mark.parametrize(
    ("response", "first_character", "expected"),
    [
        ("A", 0, 0),
        ("b.", 1, 1),
        ("B\n\nThe ball stops first.", 1, 1),
        # where the first-character rule is wrong, we are not
        ("Answer: B", 0, 1),  # "A" of "Answer"
        ("A. Actually, the answer is B.", 0, None),  # a self-correction
        ("Both A and B fit.", 1, None),  # "B" of "Both"
        ("As I see it, the ball stops, then it rolls left.", 0, 1),  # "A" of "As"
        # a letter past the last option in an explicit answer is no answer, not a fallback
        # to another letter elsewhere in the reply
        ("The answer is A. Actually, the answer is C.", None, None),
        ("The answer is C, not A.", None, None),
        ("Answer: C (not A)", 0, None),
        ("Answer: A. Final answer: C. Answer: B", 0, None),
    ],
)
def test_two_option_replies_against_vinoground_first_character_rule(
    response, first_character, expected
):
    """Vinoground scores a reply by its first character(s): ``response[:len(gt)].lower() ==
    gt.lower()`` (Vinoground/Vinoground, get_score_all.py, after prompting "Please only output
    one English character", eval/llava-onevision.py). ``first_character`` is what that rule
    reads (None: neither A nor B); where it misreads a reply, our parser must not."""
    head = response[:1].upper()
    assert (("AB".index(head)) if head in "AB" else None) == first_character
    assert parse_choice(response, VINO) == expected

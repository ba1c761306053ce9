"""facts: the edges of the fact registry that questions, twins and edits rely on.

Each case pins behaviour a user sees: an answer key, an option's words, the options a reader is
shown, a refusal's words, or the plugin registry's errors. Hand-built labels, no rendering.
"""

from __future__ import annotations

import numpy as np
import pytest

from tempogen import observe
from tempogen.facts import (
    COUNT_RANGE,
    FACTS,
    Fact,
    FactError,
    answer_of,
    describe,
    fact_names,
    gesture_words,
    get_fact,
    register_fact,
)
from tempogen.labels import Labels, Query, Track

N = 40


def still(name: str, n: int = N, **kw) -> Track:
    return Track.build(name, n, x=50.0, y=50.0, **kw)


def lab(fact: str, objects=("subject",), kind: str = "", meta=None, tracks=None) -> Labels:
    tracks = tracks or tuple(still(o) for o in objects)
    return Labels(200, 100, 10.0, tuple(tracks), Query(fact, tuple(objects), kind), meta or {})


def flashing(name: str, onsets, n: int = N) -> Track:
    lit = np.zeros(n, bool)
    for s in onsets:
        lit[s : s + 2] = True
    return still(name, n, lit=lit)


# -- the registry -------------------------------------------------------------------------------


def test_the_builtin_facts_are_registered_in_order():
    # fact_names lists built-ins first, in registration order (the README's table follows it)
    assert list(fact_names())[:11] == [
        "direction", "rotation", "speed", "frequency", "count", "order", "trajectory",
        "more", "faster", "approach", "next",
    ]  # fmt: skip
    assert all(get_fact(n).name == n for n in fact_names())


def test_unknown_fact_names_the_known_ones():
    # a typo in a pattern or a manifest is a FactError (exit 2) listing every known fact
    with pytest.raises(FactError) as err:
        get_fact("smell")
    assert str(err.value).startswith("unknown fact 'smell'; known: direction, rotation, speed,")


def test_register_fact_adds_a_plugin_and_refuses_a_nameless_or_twice_registered_one():
    class Colour(Fact):
        """A plugin fact: the subject's colour name."""

        name = "colour_probe"

        def keys(self, objects=()):
            return ["red", "blue"]

        def option_text(self, key, labels):
            return key.capitalize() + "."

    try:
        assert register_fact(Colour) is Colour  # a decorator hands the class back
        assert isinstance(get_fact("colour_probe"), Colour)
        assert list(fact_names())[-1] == "colour_probe"
        with pytest.raises(ValueError, match="^fact 'colour_probe' is registered twice$"):
            register_fact(Colour)
    finally:
        FACTS.pop("colour_probe", None)

    class Nameless(Fact):
        pass

    with pytest.raises(ValueError, match="^Nameless: set a name$"):
        register_fact(Nameless)
    assert "" not in FACTS


# -- the base class a plugin inherits -----------------------------------------------------------


class Bare(Fact):
    """A fact that only names itself: what a plugin gets for free."""

    name = "bare"


def test_base_fact_defaults():
    bare = Bare()
    lab_ = lab("direction")
    # a plugin that forgets derive, keys or option_text fails loudly, never answers
    for call in (
        lambda: bare.derive(lab_),
        lambda: bare.keys(),
        lambda: bare.option_text("a", lab_),
    ):
        with pytest.raises(NotImplementedError):
            call()
    assert bare.key(3) == "3" and bare.value("x") == "x"
    with pytest.raises(ValueError, match="^fact 'bare' is undetermined: no answer key$"):
        bare.key(None)
    # no twin until the fact says how it flips
    assert bare.twin("a", ["a", "b"]) is None


def test_frames_reads_every_frame_or_the_samples_as_integers():
    lab_ = lab("direction", tracks=(still("subject", 7),))
    assert Fact.frames(lab_, None).tolist() == list(range(7))
    got = Fact.frames(lab_, [0.0, 3.0, 6.0])
    assert got.tolist() == [0, 3, 6] and got.dtype == np.int64


# -- wording ------------------------------------------------------------------------------------


def test_describe_falls_back_to_the_track_name():
    # no nouns at all (an imported or hand-built row), or none for this track
    assert describe("obj1", lab("order", ("obj1", "obj2"))) == "the obj1"
    with_nouns = lab("order", ("obj1", "obj2"), meta={"nouns": {"obj1": "the red star"}})
    assert describe("obj1", with_nouns) == "the red star"
    assert describe("obj2", with_nouns) == "the obj2"


@pytest.mark.parametrize(
    "fact,key,text,phrase",
    [
        ("direction", "left-up", "Leftwards then upwards.", "leftwards then upwards"),
        ("speed", "constant", "Constant speed.", "constant speed"),
        ("frequency", "none", "It does not happen at all.", "it does not happen at all"),
        ("trajectory", "square", "Square/rectangle.", "square/rectangle"),
        ("approach", "away-towards", "Away from the camera, then back towards it.",
         "away from the camera, then back towards it"),
        ("count", "3", "3", "3"),
    ],
)  # fmt: skip
def test_option_text_and_phrase(fact, key, text, phrase):
    # the phrase is what captions and Video-TT sentences embed: lower-cased first letter, no stop
    lab_ = lab(fact)
    assert get_fact(fact).option_text(key, lab_) == text
    assert get_fact(fact).phrase(key, lab_) == phrase


def test_phrase_of_a_named_object_and_of_padded_text():
    two = lab("faster", ("a", "b"), meta={"nouns": {"a": "the Red star"}})
    assert get_fact("faster").phrase("a", two) == "the Red star"  # only the first letter lowers
    # only full stops come off the end, never a letter before them
    marked = lab("faster", ("a", "b"), meta={"nouns": {"a": "the sign marked X"}})
    assert get_fact("faster").phrase("a", marked) == "the sign marked X"

    class Padded(Bare):
        def option_text(self, key, labels):
            return "  Spins  . "

    assert Padded().phrase("x", two) == "spins"


def test_named_options_of_more_and_faster():
    meta = {"nouns": {"a": "the red star", "b": "the blue square"}}
    faster = lab("faster", ("a", "b"), meta=meta)
    assert get_fact("faster").keys(("a", "b")) == ["a", "b"]
    assert get_fact("faster").option_text("b", faster) == "The blue square."
    more = lab("more", ("a", "fa", "b", "fb"), kind="flash", meta=meta)
    assert get_fact("more").keys(("a", "fa", "b", "fb")) == ["a", "b"]
    assert get_fact("more").keys() == []
    assert get_fact("more").option_text("a", more) == "The red star."


def test_next_words_name_hands_by_glove_colour():
    gloved = lab(
        "next", ("person",), kind="clap", meta={"gloves": {"left": "red", "right": "blue"}}
    )
    nxt = get_fact("next")
    assert nxt.keys() == list(observe.GESTURES)
    assert nxt.option_text("left_up", gloved) == "Raises the red hand."
    assert nxt.option_text("right_up", gloved) == "Raises the blue hand."
    assert nxt.option_text("arms_out", gloved) == "Holds both arms out to the sides."
    # without gloves (or without a glove for a side) the side is the word
    both = "raising the {left} hand, then the {right} hand"
    assert gesture_words(both, lab("next", ("person",))) == (
        "raising the left hand, then the right hand"
    )
    assert gesture_words(both, lab("next", ("person",), meta={"gloves": {}})) == (
        "raising the left hand, then the right hand"
    )
    assert nxt.twin("clap", nxt.keys()) is None


# -- options ------------------------------------------------------------------------------------


def test_next_options_never_offer_the_anchor_gesture():
    # the question names the anchor ("right after clapping"): offering it would be a free miss
    nxt = get_fact("next")
    assert nxt.num_options() == 4
    gloved = lab("next", ("person",), kind="clap")
    for pos in range(6):
        opts = nxt.choose_options("both_up", gloved, np.random.default_rng(pos), answer_pos=pos)
        assert sorted(opts) == sorted(g for g in observe.GESTURES if g != "clap")
        assert opts[pos % 4] == "both_up"
    seen = {
        tuple(nxt.choose_options("both_up", gloved, np.random.default_rng(s))) for s in range(80)
    }
    # the answer lands in every slot, and the distractors are shuffled, when no slot is asked
    assert {o.index("both_up") for o in seen} == {0, 1, 2, 3}
    assert len({tuple(g for g in o if g != "both_up") for o in seen}) == 6
    with pytest.raises(ValueError) as err:
        nxt.choose_options("clap", gloved, np.random.default_rng(0))
    assert str(err.value) == (
        "answer 'clap' is not a valid next option; valid: "
        "['left_up', 'right_up', 'both_up', 'arms_out']"
    )


def test_count_options_refuse_what_no_count_can_be():
    count = get_fact("count")
    one = lab("count", kind="flash")
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError) as err:
        count.choose_options("two", one, rng)
    assert str(err.value) == "answer 'two' is not a valid count option"
    with pytest.raises(ValueError) as err:
        count.choose_options("-1", one, rng)
    assert str(err.value) == "answer '-1' is not a valid count option: below zero"
    with pytest.raises(ValueError) as err:
        count.choose_options("13", one, rng)
    assert str(err.value) == f"answer '13' is not a valid count option (0..{COUNT_RANGE.stop - 1})"


def test_options_of_a_key_outside_every_pool_name_the_valid_ones():
    with pytest.raises(ValueError) as err:
        get_fact("speed").choose_options("fast", lab("speed"), np.random.default_rng(0))
    assert str(err.value) == (
        "answer 'fast' is not a valid speed option; "
        "valid: ['accelerating', 'decelerating', 'constant', 'none']"
    )


def test_num_options_counts_only_the_patterns_answers():
    speed, direction = get_fact("speed"), get_fact("direction")
    assert speed.num_options() == 4
    assert speed.num_options((), ["accelerating", "decelerating"]) == 2
    # keys a fact cannot give are not counted; direction caps at six
    assert speed.num_options((), ["accelerating", "sideways"]) == 1
    assert direction.num_options() == 6
    assert direction.num_options((), ["left", "right", "left-right"]) == 3
    assert get_fact("order").num_options(("a", "b", "c")) == 5


# -- derive: the multi-actor facts --------------------------------------------------------------


def more_labels(onsets_a, onsets_b) -> Labels:
    tracks = (
        flashing("a", onsets_a), still("fa"), flashing("b", onsets_b), still("fb")
    )  # fmt: skip
    return lab("more", ("a", "fa", "b", "fb"), kind="flash", tracks=tracks)


def test_more_names_the_actor_with_the_strictly_highest_count():
    assert answer_of(more_labels([2, 10, 20], [5])) == "a"
    assert answer_of(more_labels([2], [5, 15])) == "b"
    assert get_fact("more").counts(more_labels([2], [5, 15])) == {"a": 1, "b": 2}
    # a tie names nobody: no question can be asked of it
    assert answer_of(more_labels([2, 10], [5, 15])) is None
    # one frame: the counts are undetermined, so the answer is too
    assert answer_of(more_labels([2], [5, 15]), np.array([3])) is None
    assert get_fact("more").twin("a", ["a", "b"]) == "b"


@pytest.mark.parametrize("objects", [("a", "fa"), ("a", "fa", "b"), ()])
def test_more_refuses_objects_that_are_not_pairs(objects):
    with pytest.raises(ValueError, match=r"^fact 'more' reads \(track, anchor\) pairs, got "):
        get_fact("more").pairs(objects)


def test_each_actor_is_a_count_question_of_its_own():
    # ``actors`` hands each (track, anchor) pair on as a one-actor count query: re-answering
    # it as a question gives that actor's count
    actors = get_fact("more").actors(more_labels([2], [5, 15]))
    assert {name: answer_of(one) for name, one in actors.items()} == {"a": 1, "b": 2}
    assert actors["b"].query == Query("count", ("b", "fb"), "flash")


# -- order ----------------------------------------------------------------------------------


def test_order_keys_offer_a_tie_and_nobody():
    order = get_fact("order")
    assert order.keys(("a", "b")) == ["a", "b", "same", "none"]
    two = lab("order", ("a", "b"))
    for key in ("same", "none"):
        opts = order.choose_options(key, two, np.random.default_rng(1), answer_pos=3)
        assert opts[3] == key and sorted(opts) == ["a", "b", "none", "same"]
    with pytest.raises(ValueError, match="^fact 'order' is undetermined: no answer key$"):
        order.key(None)


# -- minimal pairs ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "fact,key,want",
    [
        ("speed", "decelerating", "accelerating"),
        ("speed", "accelerating", "decelerating"),
        ("frequency", "increasing", "decreasing"),
        ("frequency", "decreasing", "increasing"),
    ],
)
def test_trends_flip_both_ways(fact, key, want):
    assert get_fact(fact).twin(key, get_fact(fact).keys()) == want


def test_a_twin_outside_the_patterns_answers_is_refused():
    # a pattern that only moves left or up has no "right" clip to pair with "left"
    assert get_fact("direction").twin("left", ["left", "up"]) is None
    assert get_fact("direction").twin("left-up", ["left-up", "right-down"]) == "right-down"
    assert get_fact("speed").twin("accelerating", ["accelerating", "constant"]) is None


def test_count_twins_are_half_the_range_away_in_number_order():
    # 1..12: 1 pairs with 7, 4 with 10 (not the order of the strings, where "10" < "2")
    answers = [str(i) for i in range(1, 13)]
    twins = [get_fact("count").twin(k, answers) for k in answers]
    assert twins == [str((i + 5) % 12 + 1) for i in range(1, 13)]


# -- options: the plugin hooks and the answer's slot ---------------------------------------------


def test_a_plugins_distractors_hook_sees_the_right_key():
    class Size(Fact):
        """A plugin fact whose distractors are the sizes nearest the answer."""

        name = "size_probe"
        options = 3

        def keys(self, objects=()):
            return [str(i) for i in range(1, 8)]

        def distractors(self, key, others, k, rng):
            return sorted(others, key=lambda o: abs(int(o) - int(key)))[: k - 1]

    size = Size()
    one = lab("size_probe")
    assert size.num_options() == 3
    for s in range(5):
        assert sorted(size.choose_options("5", one, np.random.default_rng(s))) == ["4", "5", "6"]


def test_count_answer_lands_in_every_slot_when_none_is_asked():
    one = lab("count", kind="flash", meta={"answer_keys": [str(i) for i in range(1, 7)]})
    seen = {
        get_fact("count").choose_options("3", one, np.random.default_rng(s)).index("3")
        for s in range(80)
    }
    assert seen == set(range(6))

"""questions: answer keys, option text and the option sets shown to a reader."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from tempogen import questions as Q
from tempogen.labels import Labels, Query, Track


def labels_for(fact: str, objects=("subject",), nouns=None) -> Labels:
    tracks = tuple(Track.build(o, 4, x=10.0 * k, y=5.0) for k, o in enumerate(objects))
    meta = {"nouns": nouns} if nouns else {}
    return Labels(64, 48, 10.0, tracks, Query(fact, tuple(objects)), meta)


ORDER3 = ("obj1", "obj2", "obj3")


@pytest.mark.parametrize(
    "fact,value,key",
    [
        ("direction", ("left",), "left"),
        ("direction", ("left", "up"), "left-up"),
        ("direction", (), "none"),
        ("rotation", ("cw",), "cw"),
        ("rotation", ("ccw", "cw"), "ccw-cw"),
        ("rotation", (), "none"),
        ("speed", "accelerating", "accelerating"),
        ("frequency", "none", "none"),
        ("count", 3, "3"),
        ("count", 0, "0"),
        ("trajectory", "infinity", "infinity"),
        ("order", (("obj2",), ("obj1", "obj3")), "obj2"),
        ("order", (("obj1", "obj2", "obj3"),), "same"),
        ("order", (("obj1", "obj2"), ("obj3",)), "same"),
        ("order", (), "none"),
    ],
)
def test_answer_key(fact, value, key):
    assert Q.answer_key(fact, value) == key


def test_answer_key_of_undetermined_value_raises():
    with pytest.raises(ValueError, match="undetermined"):
        Q.answer_key("direction", None)


def test_option_text():
    lab = labels_for("order", ("obj1", "obj2"), {"obj1": "the red star"})
    assert Q.option_text("direction", "left-up", lab) == "Leftwards then upwards."
    assert Q.option_text("direction", "down", lab) == "Downwards."
    assert Q.option_text("direction", "none", lab) == "No movements."
    assert Q.option_text("rotation", "cw-ccw", lab) == "Clockwise then counter-clockwise."
    assert Q.option_text("count", "5", lab) == "5"
    assert Q.option_text("order", "obj1", lab) == "The red star."
    assert Q.option_text("order", "obj2", lab) == "The obj2."
    assert Q.option_text("order", "same", lab) == "Both at the same time."
    assert Q.option_text("order", "none", lab) == "Neither of them."
    lab3 = labels_for("order", ORDER3)
    assert Q.option_text("order", "same", lab3) == "All at the same time."
    assert Q.option_text("order", "none", lab3) == "None of them."
    with pytest.raises(ValueError, match="unknown fact"):
        Q.option_text("smell", "x", lab)


def test_all_direction_keys():
    keys = Q.all_direction_keys()
    assert len(keys) == 4 + 4 * 3 + 1 == len(set(keys))
    assert "left-left" not in keys and "none" in keys and "up-down" in keys


# choose_options ------------------------------------------------------------------------------

CASES = [
    ("direction", ("subject",)),
    ("rotation", ("subject",)),
    ("speed", ("subject",)),
    ("frequency", ("subject",)),
    ("trajectory", ("subject",)),
    ("count", ("subject",)),
    ("order", ("obj1", "obj2")),
    ("order", ORDER3),
]
EXPECTED_K = {
    "direction": 6,
    "rotation": 5,
    "speed": 4,
    "frequency": 4,
    "trajectory": 6,
    "count": 6,
}


def _all_keys(fact, objects):
    return Q.candidate_keys(fact, objects)


@pytest.mark.parametrize("fact,objects", CASES, ids=lambda v: str(v))
def test_choose_options_every_key_every_position(fact, objects):
    lab = labels_for(fact, objects)
    k = EXPECTED_K.get(fact, len(objects) + 2)
    assert Q.num_options(fact, objects) == k
    pool = set(_all_keys(fact, objects))
    for key in _all_keys(fact, objects):
        for pos in range(k):
            opts = Q.choose_options(fact, key, lab, np.random.default_rng(pos), answer_pos=pos)
            assert len(opts) == k
            assert len(set(opts)) == k, opts
            assert opts[pos] == key and opts.count(key) == 1
            assert set(opts) <= pool
        # a position past the end wraps around
        opts = Q.choose_options(fact, key, lab, np.random.default_rng(0), answer_pos=k + 1)
        assert opts[1] == key


@pytest.mark.parametrize("fact,objects", CASES, ids=lambda v: str(v))
def test_choose_options_same_seed_same_options(fact, objects):
    lab = labels_for(fact, objects)
    key = _all_keys(fact, objects)[0]
    runs = [
        Q.choose_options(fact, key, lab, np.random.default_rng(s), answer_pos=None)
        for s in (5, 5, 6, 7, 8, 9, 10, 11)
    ]
    assert runs[0] == runs[1]
    # different seeds do vary the order (and, where the pool is bigger, the set)
    assert len({tuple(r) for r in runs}) > 2


def test_choose_options_random_position_covers_every_slot():
    lab = labels_for("rotation")
    seen = {
        Q.choose_options("rotation", "cw", lab, np.random.default_rng(s)).index("cw")
        for s in range(60)
    }
    assert seen == set(range(5))


def _inverse(key: str) -> str:
    flip = {"left": "right", "right": "left", "up": "down", "down": "up"}
    return "-".join(flip[t] for t in key.split("-")) if key != "none" else key


def test_direction_options_carry_no_structure_tell():
    """issue 14: an option's inverse is on offer as often for the answer as for a wrong
    option (always offering the answer's inverse let a blind reader find it)."""
    lab = labels_for("direction")
    keys = [k for k in _all_keys("direction", ()) if k != "none"]
    rng = np.random.default_rng(0)
    right = wrong = n_right = n_wrong = 0
    for s in range(1200):
        key = keys[s % len(keys)]
        opts = Q.choose_options("direction", key, lab, rng)
        for o in opts:
            if o == "none":
                continue
            has = _inverse(o) in opts
            if o == key:
                right, n_right = right + has, n_right + 1
            else:
                wrong, n_wrong = wrong + has, n_wrong + 1
    assert abs(right / n_right - wrong / n_wrong) < 0.05, (right / n_right, wrong / n_wrong)


def test_options_come_from_the_patterns_own_answers():
    """A side step answers left, right, left-right or right-left: no option offers "up"."""
    lab = labels_for("direction")
    lab.meta["answer_keys"] = ["left", "right", "left-right", "right-left"]
    for s in range(20):
        opts = Q.choose_options("direction", "left", lab, np.random.default_rng(s))
        assert sorted(opts) == sorted(lab.meta["answer_keys"])
    assert Q.num_options("direction", (), lab.meta["answer_keys"]) == 4
    # an edit that made an answer the pattern does not give falls back to every key
    opts = Q.choose_options("direction", "up", lab, np.random.default_rng(0))
    assert "up" in opts and len(opts) == 6


def test_direction_none_answer_has_only_movement_distractors():
    lab = labels_for("direction")
    for s in range(10):
        opts = Q.choose_options("direction", "none", lab, np.random.default_rng(s))
        assert opts.count("none") == 1 and len(opts) == 6


@pytest.mark.parametrize("answer", range(13))
def test_count_options_outside_a_patterns_range_are_six_consecutive_numbers(answer):
    lab = labels_for("count")
    ranks = set()
    for s in range(60):
        opts = Q.choose_options("count", str(answer), lab, np.random.default_rng(s))
        nums = sorted(int(o) for o in opts)
        assert nums == list(range(nums[0], nums[0] + 6)), opts
        assert answer in nums and 0 <= nums[0] and nums[-1] <= 12
        ranks.add(nums.index(answer))
    # every rank that keeps the window within 0..12 is drawn, not only the middle ones
    assert ranks == set(range(max(0, answer - 7), min(answer, 5) + 1))


@pytest.mark.parametrize("given,answer", [(range(1, 7), 4), (range(1, 4), 1)])
def test_count_options_are_the_patterns_whole_range(given, answer):
    """A pattern giving counts 1..6 always offers 1..6 (1..3: 1, 2, 3): neither the set nor
    the answer's rank in it tells anything the answer balance does not."""
    lab = labels_for("count")
    lab = replace(lab, meta={**lab.meta, "answer_keys": [str(g) for g in given]})
    for pos in range(6):
        opts = Q.choose_options("count", str(answer), lab, np.random.default_rng(pos), pos)
        assert sorted(int(o) for o in opts) == list(given)
        assert opts[pos % len(given)] == str(answer)


@pytest.mark.parametrize(
    "fact,key,objects",
    [
        ("direction", "sideways", ("subject",)),
        ("direction", "left-left", ("subject",)),
        ("rotation", "spin", ("subject",)),
        ("count", "13", ("subject",)),
        ("count", "two", ("subject",)),
        ("count", "-1", ("subject",)),
        ("trajectory", "hexagon", ("subject",)),
        ("order", "obj3", ("obj1", "obj2")),
    ],
)
def test_invalid_answer_key_raises(fact, key, objects):
    with pytest.raises(ValueError, match="is not a valid"):
        Q.choose_options(fact, key, labels_for(fact, objects), np.random.default_rng(0))


def test_unknown_fact_raises():
    with pytest.raises(ValueError, match="unknown fact"):
        Q.candidate_keys("smell")
    with pytest.raises(ValueError, match="unknown fact"):
        Q.choose_options("smell", "x", labels_for("direction"), np.random.default_rng(0))

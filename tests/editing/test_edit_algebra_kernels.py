"""Declared-facts kernels of editing/algebra.py: the approach fact and every refusal's words.

Found by mutation testing (`make mutate MODULES=algebra`): these mutants of the kernels passed
test_edit_facts.py; BENCHMARKS.md ("Mutation testing") lists them. A refusal must name the op,
the label and the reason, so the messages are asserted in full.
"""

from __future__ import annotations

import pytest

from tempogen.editing import EditError
from tempogen.editing import algebra as A


@pytest.mark.parametrize(
    ("kernel", "facts", "expected"),
    [
        (A.facts_reverse, {"approach": ["towards"]}, {"approach": ["away"]}),
        (A.facts_reverse, {"approach": ["towards", "away"]}, {"approach": ["towards", "away"]}),
        (lambda f: A.facts_mirror(f, "horizontal"), {"approach": ["away"]}, {"approach": ["away"]}),
        (
            lambda f: A.facts_mirror(f, "vertical"),
            {"trajectory": "circle"},
            {"trajectory": "circle"},
        ),
        (lambda f: A.facts_rotate(f, 90), {"approach": ["towards"]}, {"approach": ["towards"]}),
        (
            lambda f: A.facts_rotate(f, 270),
            {"frequency": "increasing", "trajectory": "line", "order": [["a"], ["b"]]},
            {"frequency": "increasing", "trajectory": "line", "order": [["a"], ["b"]]},
        ),
        (lambda f: A.facts_speed(f, 1.0), {"count": 3, "rotation": ["cw"]}, None),
        (
            lambda f: A.facts_concat(f, {"approach": ["towards", "away"]}),
            {"approach": ["towards"]},
            {"approach": ["towards", "away"]},
        ),
        (
            lambda f: A.facts_concat(f, {"approach": ["away"]}),
            {"approach": ["towards", "away"]},
            {"approach": ["towards", "away"]},
        ),
        (
            lambda f: A.facts_concat(f, {"approach": ["away", "towards"]}),
            {"approach": ["towards"]},
            {"approach": ["towards", "away", "towards"]},
        ),
        (
            lambda f: A.facts_concat(f, {"frequency": "none", "speed": "constant"}),
            {"frequency": "none", "speed": "constant"},
            {"frequency": "none", "speed": "constant"},
        ),
        (
            lambda f: A.facts_concat(f, {"frequency": "constant"}),
            {"frequency": "constant"},
            {"frequency": "constant"},
        ),
    ],
)
def test_kernels_keep_or_map_facts(kernel, facts, expected):
    assert kernel(facts) == (facts if expected is None else expected)


@pytest.mark.parametrize(
    ("kernel", "facts", "message"),
    [
        (
            A.facts_reverse,
            {"approach": ["closer"]},
            "label 'approach': expected a list of tokens from ['away', 'towards'], got ['closer']",
        ),
        (A.facts_reverse, {"approach": "towards"}, "label 'approach': expected a list"),
        (
            lambda f: A.facts_mirror(f, "horizontal"),
            {"direction": "left"},
            "label 'direction': expected a list of tokens",
        ),
        (lambda f: A.facts_mirror(f, "vertical"), {"rotation": ["left", 1]}, "label 'rotation'"),
        (lambda f: A.facts_mirror(f, "vertical"), {"approach": [None]}, "label 'approach'"),
        (
            lambda f: A.facts_mirror(f, "horizontal"),
            {"colour": "red"},
            "mirror horizontal: cannot transform label 'colour' soundly: no rule for this label",
        ),
        (lambda f: A.facts_rotate(f, 180), {"direction": ["west"]}, "label 'direction'"),
        (lambda f: A.facts_rotate(f, 90), {"approach": ["west"]}, "label 'approach'"),
        (
            lambda f: A.facts_rotate(f, 90),
            {"colour": "red"},
            "rotate 90: cannot transform label 'colour' soundly: no rule for this label",
        ),
        (
            lambda f: A.facts_speed(f, 2.0),
            {"colour": "red"},
            "speed x2: cannot transform label 'colour' soundly: no rule for this label",
        ),
        *(
            (
                lambda f: A.facts_speed(f, 1.5),
                {fact: value},
                f"speed x1.5: cannot transform label '{fact}' soundly: "
                "dropped frames may hide events or alias a turn",
            )
            for fact, value in (("count", 2), ("frequency", "constant"), ("rotation", ["cw"]))
        ),
        (
            lambda f: A.facts_loop(f, 2),
            {"direction": ["left"]},
            "loop 2: cannot transform label 'direction' soundly: the clip restarts at each seam",
        ),
        (
            lambda f: A.facts_concat(f, {"direction": ["west"]}),
            {"direction": ["left"]},
            "label 'direction'",
        ),
        (
            lambda f: A.facts_concat(f, {"direction": ["left"]}),
            {"direction": ["west"]},
            "label 'direction'",
        ),
        (
            lambda f: A.facts_concat(f, {"approach": ["west"]}),
            {"approach": ["away"]},
            "label 'approach'",
        ),
        (
            lambda f: A.facts_concat(f, {"approach": ["away"]}),
            {"approach": ["west"]},
            "label 'approach'",
        ),
        (
            lambda f: A.facts_concat(f, {"speed": "accelerating"}),
            {"speed": "accelerating"},
            "concat: cannot transform label 'speed' soundly: "
            "joining 'accelerating' and 'accelerating'",
        ),
        (
            lambda f: A.facts_unchanged(f, "crop", ("direction",)),
            {"count": 1},
            "crop: cannot transform label 'count' soundly: no rule for this label",
        ),
    ],
)
def test_kernels_refuse_naming_op_label_and_reason(kernel, facts, message):
    with pytest.raises(EditError) as err:
        kernel(facts)
    assert message in str(err.value)

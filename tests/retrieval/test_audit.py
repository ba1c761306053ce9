"""audit: a labelled set of good and bad pairs (Vinoground's examples and ours) is classified
exactly in both near-duplicate modes; offline pairs all pass; the Jaccard search is exact and
any search is pluggable. Embedding near-duplicates: test_near_duplicates.py."""

from __future__ import annotations

import json
from itertools import combinations

import pytest

from tempogen.retrieval.audit import (
    NearDuplicateIndex,
    audit_pair,
    audit_pairs,
    jaccard,
    jaccard_neighbors,
    pair_items,
    parse_events,
    report_rows,
    suggest_categories,
    summary_table,
)
from tempogen.retrieval.captions import CaptionPair, offline_pairs

# (pos, neg, expected reasons); near-duplicates refer to earlier rows of this list
LABELLED: list[tuple[str, str, list[str]]] = [
    # good: the same events in the other order, several connectives
    ("a man eats then watches TV", "a man watches TV then eats", []),  # paper, App. F
    ("a girl sings and then dances.", "a girl dances and then sings.", []),
    ("a woman jumps before she runs", "a woman runs before she jumps", []),
    ("a boy laughs after he falls", "a boy falls after he laughs", []),
    ("water turning into ice", "ice turning into water", []),  # paper, object
    (
        "the calligrapher writes with his pen before he dips it into the ink",
        "the calligrapher dips his pen into the ink before he writes with it",
        [],
    ),  # paper, interaction + cyclical
    (
        "the biker rides down the street before he goes down the stairs",
        "the biker goes down the stairs before he rides down the street",
        [],
    ),  # paper, contextual
    (
        "a man waves at a woman before he talks to her",
        "a man talks to a woman before he waves at her",
        [],
    ),  # paper, Sec. 3.1
    ("the man ran from left to right", "the man ran from right to left", []),  # paper, spatial
    (
        "first the camera zooms in, then it pans left",
        "first the camera pans left, then it zooms in",
        [],
    ),
    (
        "a chef chopping onions followed by a chef stirring soup",
        "a chef stirring soup followed by a chef chopping onions",
        [],
    ),
    ("before she whistles, a nurse knocks", "before she knocks, a nurse whistles", []),
    ("a caterpillar becomes a butterfly", "a butterfly becomes a caterpillar", []),
    ("a toddler crawls then claps then sleeps", "a toddler sleeps then claps then crawls", []),
    (
        "a dog chases a cat, then a cat chases a dog",
        "a cat chases a dog, then a dog chases a cat",
        [],
    ),
    (
        "The traffic light turns green; then it turns red.",
        "The traffic light turns red; then it turns green.",
        [],
    ),
    (
        "a man lifts weights in a gym, then a kitten plays on the grass",
        "a kitten plays on the grass, then a man lifts weights in a gym",
        [],
    ),  # TempCompass-style unrelated events
    # bad: identical
    ("a girl reads a book then sleeps", "a girl reads a book then sleeps", ["identical"]),
    ("The kettle boils, then whistles.", "the kettle boils then whistles", ["identical"]),
    # bad: not the same words
    ("a boy kicks the ball then runs", "a boy runs then throws the ball", ["word-multiset"]),
    ("the pony trots then the pony halts", "the pony halts then trots", ["word-multiset"]),
    # bad: a difference visible in one frame (who does what), or no order at all; and the
    # role swap across time that looks like one but is good
    ("a man is waving at a woman", "a woman is waving at a man", ["not-temporal"]),  # paper
    (
        "the old man is working hard before the young man is playing",
        "the young man is working hard before the old man is playing",
        [],
    ),  # App. F's second example: a role swap across time is temporal (issue 14)
    ("a singer hums while a drummer taps", "a drummer hums while a singer taps", ["not-temporal"]),
    ("a student writes and yawns", "a student yawns and writes", ["not-temporal"]),
    (
        "a cook stirs the pot before she tastes it",
        "before she tastes it, a cook stirs the pot",
        ["not-temporal"],
    ),  # same words, same order of events: the same video
    ("the cup is left of the plate", "the plate is left of the cup", ["not-temporal"]),
    (
        "the red ball hits the blue ball then stops",
        "the blue ball hits the red ball then stops",
        ["not-temporal"],
    ),
    # bad: a copy (pos and neg swapped) and near-duplicates of earlier good rows
    ("a man watches TV then eats", "a man eats then watches TV", ["duplicate"]),
    (
        "a woman jumps before she runs quickly",
        "a woman runs quickly before she jumps",
        ["near-duplicate"],
    ),
    (
        "the calligrapher writes with his pen before he dips it into ink",
        "the calligrapher dips his pen into ink before he writes with it",
        ["near-duplicate"],
    ),
]


@pytest.mark.parametrize("mode", ["embedding", "jaccard"])
def test_labelled_set_is_classified_exactly(mode):
    assert len(LABELLED) >= 25
    verdicts = audit_pairs([(p, n) for p, n, _ in LABELLED], near_dup=mode)
    wrong = [
        (i, p, n, want, v.reasons, v.messages)
        for i, ((p, n, want), v) in enumerate(zip(LABELLED, verdicts))
        if v.reasons != want or v.ok != (not want)
    ]
    assert not wrong, "\n".join(map(str, wrong))
    assert sum(not want for *_, want in LABELLED) >= 12


def test_messages_say_precisely_what_is_wrong():
    v = audit_pair(("a man eats then watches tv", "a man drinks then watches tv"))
    assert v.messages == ["word-multiset: 'drinks' in neg only; 'eats' appears in pos only"]
    v = audit_pair(("the pony trots then the pony halts", "the pony halts then trots"))
    assert v.details["word_difference"] == "'pony' 2x in pos, 1x in neg; 'the' 2x in pos, 1x in neg"
    (msg,) = audit_pair(("a man is waving at a woman", "a woman is waving at a man")).messages
    assert msg.startswith("not-temporal: pos has no temporal connective")
    assert "single frame" in msg
    (msg,) = audit_pair(
        ("a singer hums while a drummer taps", "a drummer hums while a singer taps")
    ).messages
    assert "'while' joins events without ordering them" in msg
    (msg,) = audit_pair(("a student writes and yawns", "a student yawns and writes")).messages
    assert "write 'and then'" in msg
    (msg,) = audit_pair(
        ("a cook stirs the pot before she tastes it", "before she tastes it, a cook stirs the pot")
    ).messages
    assert "same order of events ([a cook stirs the pot] -> [she tastes it])" in msg
    ball = audit_pair(LABELLED[27][:2])
    assert "into different events" in ball.messages[0]
    assert ball.details["pos_events"] == "[the red ball hits the blue ball] -> [stops]"
    old = audit_pair(LABELLED[22][:2])
    assert old.ok and old.details["swap"] == "event 1: old -> young; event 2: young -> old"
    same = audit_pair(("The kettle boils, then whistles.", "the kettle boils then whistles"))
    assert same.messages == ["identical: pos and neg are the same text up to case and punctuation"]


def test_parse_events_orders_by_meaning_not_by_position():
    assert parse_events("a boy laughs after he falls").events == (
        ("he", "falls"),
        ("a", "boy", "laughs"),
    )
    assert parse_events("before she whistles, a nurse knocks").events == (
        ("a", "nurse", "knocks"),
        ("she", "whistles"),
    )
    assert (
        parse_events("first the camera zooms in, then it pans left").connective == "first ... then"
    )
    ev = parse_events("the man ran from left to right")
    assert (ev.context, ev.events) == (("the", "man", "ran"), (("left",), ("right",)))
    assert "only a chain of 'then'" in parse_events("a man sits after he runs then jumps")


def test_duplicates_and_jaccard_near_duplicates_name_the_colliding_pairs():
    pairs = [
        CaptionPair("a man eats then watches tv", "a man watches tv then eats"),
        CaptionPair("a dog barks then sits", "a dog sits then barks"),
        CaptionPair("a man watches tv then eats", "A man eats, then watches TV."),
        CaptionPair("a man eats and then watches tv", "a man watches tv and then eats"),
    ]
    v = audit_pairs(pairs, near_dup="jaccard")
    assert [x.ok for x in v] == [True, True, False, False]
    assert [x.reasons for x in v] == [[], [], ["duplicate"], ["near-duplicate"]]
    assert v[0].details["duplicates"] == [2] and v[0].details["near_duplicates"] == [3]
    assert v[2].details["duplicate_of"] == [0]
    assert v[2].messages == [
        "duplicate: the same captions as pair 1 ('a man eats then watches tv' /"
        " 'a man watches tv then eats'), pos and neg swapped"
    ]
    # the copy (pair 2) is not named again as a near-duplicate
    assert v[3].details["near_duplicate_of"] == [0]
    assert v[3].details["similarity"] == {"0": 0.857}
    assert v[3].details["near_duplicate_method"] == "jaccard"
    assert (
        v[3]
        .messages[-1]
        .startswith("near-duplicate: 86% similar to pair 1 ('a man eats then watches tv' /")
    )
    assert [x.ok for x in audit_pairs(pairs, threshold=1.0, near_dup="jaccard")] == [
        True,
        True,
        False,
        True,
    ]
    # exact copies are found in every mode, near-duplicates not when the search is off
    off = audit_pairs(pairs, near_dup="off")
    assert [x.reasons for x in off] == [[], [], ["duplicate"], []]
    with pytest.raises(ValueError, match="near_dup must be one of"):
        audit_pairs(pairs, near_dup="fuzzy")  # type: ignore[arg-type]


def test_a_similarity_can_be_plugged_in():
    """An embedding + FAISS search would return (i, j, score) the same way."""
    pairs = [(p, n) for p, n, want in LABELLED if not want][:6]
    calls = []

    def same_first_letter(items, threshold):
        calls.append(threshold)
        return [
            (j, i, 0.99)
            for i, j in combinations(range(len(items)), 2)
            if items[i].pos[0] == items[j].pos[0]
        ]

    v = audit_pairs(pairs, threshold=0.5, neighbors=same_first_letter)
    assert calls == [0.5]
    firsts = [p[0] for p, _ in pairs]
    for j, x in enumerate(v):
        earlier = [i for i in range(j) if firsts[i] == firsts[j]]
        assert x.details.get("near_duplicate_of", []) == earlier
        assert x.ok == (not earlier)


def test_prefix_filter_finds_exactly_what_brute_force_finds():
    pairs = offline_pairs(250, seed=3, near_dup="jaccard")
    pairs += [CaptionPair(p, n) for p, n, _ in LABELLED]
    bags = [pair_items(p) for p in pairs]
    for t in (0.5, 0.7, 0.8):
        brute = {
            (i, j) for i, j in combinations(range(len(pairs)), 2) if jaccard(bags[i], bags[j]) >= t
        }
        assert {(i, j) for i, j, _ in jaccard_neighbors(pairs, t)} == brute
    with pytest.raises(ValueError, match="threshold"):
        NearDuplicateIndex(pairs, 0)


@pytest.mark.parametrize(
    ("seed", "mode", "n"),
    [pytest.param(0, "embedding", 300, marks=pytest.mark.slow), (1, "jaccard", 600)],
)  # the embedding case loads the model: make test runs it, make test-fast does not
def test_offline_pairs_all_pass_and_carry_the_suggested_labels(seed, mode, n):
    pairs = offline_pairs(n, seed=seed, near_dup=mode)
    verdicts = audit_pairs(pairs, near_dup=mode)
    bad = [(p.pos, p.neg, v.messages) for p, v in zip(pairs, verdicts) if not v.ok]
    assert not bad, bad[:5]
    agree = sum((p.major, p.minor) == (v.major, v.minor) for p, v in zip(pairs, verdicts))
    assert agree == len(pairs)


@pytest.mark.parametrize(
    ("pos", "neg", "major", "minor"),
    [
        ("water turning into ice", "ice turning into water", "object", ()),
        (
            "the camera zooms in then pans left",
            "the camera pans left then zooms in",
            "viewpoint",
            (),
        ),
        (*LABELLED[5][:2], "action", ("interaction", "cyclical")),
        (*LABELLED[6][:2], "action", ("contextual",)),
        (
            "the man ran from left to right",
            "the man ran from right to left",
            "action",
            ("spatial",),
        ),
        ("a man eats then watches tv", "a man watches tv then eats", "action", ()),
        (
            "the lamp turns on then turns off",
            "the lamp turns off then turns on",
            "object",
            ("cyclical",),
        ),
        (
            "a man cuts the apple then eats it",
            "a man eats the apple then cuts it",
            "action",
            ("interaction",),
        ),
    ],
)
def test_suggested_categories(pos, neg, major, minor):
    assert suggest_categories(pos, neg) == (major, minor)


def test_report_rows_and_summary_table():
    pairs = [CaptionPair(p, n, "action") for p, n, _ in LABELLED]
    verdicts = audit_pairs(pairs)
    rows = report_rows(pairs, verdicts)
    assert len(rows) == len(LABELLED)
    for row, (p, n, want) in zip(rows, LABELLED):
        assert {
            "pos",
            "neg",
            "ok",
            "reasons",
            "details",
            "suggested_major",
            "suggested_minor",
        } <= set(row)
        assert (row["pos"], row["neg"], row["reasons"], row["ok"]) == (p, n, want, not want)
        assert row["major"] == "action"
        json.dumps(row)
    table = summary_table(verdicts)
    lines = {tuple(line.split()[:-2]): int(line.split()[-2]) for line in table.splitlines()[1:]}
    assert lines[("pairs", "total")] == len(LABELLED)
    assert lines[("pairs", "ok")] == sum(not w for *_, w in LABELLED)
    assert (
        lines[("reason", "not-temporal")] == sum(w == ["not-temporal"] for *_, w in LABELLED) == 6
    )
    assert lines[("reason", "near-duplicate")] == 2
    assert lines[("reason", "duplicate")] == 1
    assert lines[("major", "(suggested)", "viewpoint")] == 1
    assert "identical" in table and "contextual" in table
    with pytest.raises(ValueError, match="2 pairs but 1 verdicts"):
        report_rows(pairs[:2], verdicts[:1])
    assert "0    0.0%" not in summary_table([]) and "total" in summary_table([])


VERBS = "eats drinks sits stands runs walks jumps waves claps reads writes sings dances sleeps"


def test_many_events_are_audited_in_polynomial_time_and_a_limit_is_clear():
    # issue 13 item 2: trying every order of 12 events took 12! steps and hung
    import time

    from tempogen.retrieval.events import MAX_EVENTS, temporal_problem

    verbs = VERBS.split()[:12]

    def cap(events: list[str]) -> str:
        return "a man " + " then ".join(events)

    start = time.perf_counter()
    assert temporal_problem(cap(verbs), cap(verbs[::-1]))[0] is None
    other = verbs[::-1][:-1] + ["swims"]  # one event that pos never has: not a reordering
    assert "different events" in temporal_problem(cap(verbs), cap(other))[0]
    assert time.perf_counter() - start < 1.0
    many = [f"{v} {w}" for v in VERBS.split() for w in ("fast", "slowly")][: MAX_EVENTS + 1]
    why = temporal_problem(cap(many), cap(many[::-1]))[0]
    assert why.startswith(f"pos has {MAX_EVENTS + 1} events, more than the {MAX_EVENTS}")

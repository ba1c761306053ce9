"""Near-duplicates by sentence embeddings + FAISS: the labelled rewordings and different pairs
that chose the audit's cosine threshold, and the audit / CLI behaviour on them."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from kit import run_cli

from tempogen.retrieval.audit import (
    EMBEDDING_THRESHOLD,
    NEAR_DUPLICATE_THRESHOLD,
    audit_pairs,
    embedding_neighbors,
    jaccard,
    pair_items,
    pair_vectors,
)
from tempogen.retrieval.captions import CaptionPair
from tempogen.retrieval.embed import shared_encoder

# (pair, the same pair reworded): a near-duplicate the audit should catch
PARAPHRASES = [
    (
        ("a man eats then watches tv", "a man watches tv then eats"),
        (
            "a guy has a meal and then watches television",
            "a guy watches television and then has a meal",
        ),
    ),
    (
        ("a man eats then watches tv", "a man watches tv then eats"),
        ("a man eats before he watches tv", "a man watches tv before he eats"),
    ),
    (
        ("a man eats then watches tv", "a man watches tv then eats"),
        ("a man watches tv after he eats", "a man eats after he watches tv"),
    ),
    (
        ("a man eats then watches tv", "a man watches tv then eats"),
        ("a man watches tv then eats", "a man eats then watches tv"),
    ),
    (
        ("a woman jumps before she runs", "a woman runs before she jumps"),
        ("first a woman jumps, then she runs", "first a woman runs, then she jumps"),
    ),
    (
        ("water turning into ice", "ice turning into water"),
        ("water freezes into ice", "ice melts into water"),
    ),
    (
        ("water turning into ice", "ice turning into water"),
        ("liquid water slowly becomes ice", "ice slowly becomes liquid water"),
    ),
    (
        ("the camera zooms in then pans left", "the camera pans left then zooms in"),
        ("the camera pans left after it zooms in", "the camera zooms in after it pans left"),
    ),
    (
        ("the camera zooms in then pans left", "the camera pans left then zooms in"),
        (
            "the view zooms in and then the camera pans to the left",
            "the camera pans to the left and then the view zooms in",
        ),
    ),
    (
        ("a girl sings and then dances", "a girl dances and then sings"),
        (
            "a young girl sings a song then starts dancing",
            "a young girl starts dancing then sings a song",
        ),
    ),
    (
        ("a boy kicks the ball then picks it up", "a boy picks the ball up then kicks it"),
        (
            "a kid kicks a football and then picks it up",
            "a kid picks up a football and then kicks it",
        ),
    ),
    (
        ("the lamp turns on then turns off", "the lamp turns off then turns on"),
        (
            "the light is switched on and then switched off",
            "the light is switched off and then switched on",
        ),
    ),
    (
        ("a chef chops onions then stirs the soup", "a chef stirs the soup then chops onions"),
        (
            "a cook cuts up onions before stirring the soup",
            "a cook stirs the soup before cutting up onions",
        ),
    ),
    (
        ("a man opens the door then closes it", "a man closes the door then opens it"),
        ("a man opens a door and then shuts it", "a man shuts a door and then opens it"),
    ),
    (
        (
            "the biker rides down the street before he goes down the stairs",
            "the biker goes down the stairs before he rides down the street",
        ),
        (
            "a cyclist rides along the street and then goes down some stairs",
            "a cyclist goes down some stairs and then rides along the street",
        ),
    ),
    (
        ("a woman sits down then stands up", "a woman stands up then sits down"),
        ("a lady takes a seat and then gets up", "a lady gets up and then takes a seat"),
    ),
    (
        ("a dog barks then sits", "a dog sits then barks"),
        ("a puppy barks and then sits down", "a puppy sits down and then barks"),
    ),
    (
        ("a caterpillar turning into a butterfly", "a butterfly turning into a caterpillar"),
        ("a caterpillar transforms into a butterfly", "a butterfly transforms into a caterpillar"),
    ),
    (
        ("the balloon inflates then deflates", "the balloon deflates then inflates"),
        ("a balloon is blown up and then deflates", "a balloon deflates and then is blown up"),
    ),
    (
        ("a man runs from left to right", "a man runs from right to left"),
        (
            "a man runs from the left side to the right side",
            "a man runs from the right side to the left side",
        ),
    ),
    (
        ("a boy throws the ball then catches it", "a boy catches the ball then throws it"),
        ("a boy tosses a ball and then catches it", "a boy catches a ball and then tosses it"),
    ),
    (
        ("a woman reads a book then drinks water", "a woman drinks water then reads a book"),
        (
            "a woman reads a book before she drinks some water",
            "a woman drinks some water before she reads a book",
        ),
    ),
    (
        (
            "a person turns on the light and then leaves the room",
            "a person leaves the room and then turns on the light",
        ),
        (
            "someone switches the light on, then walks out of the room",
            "someone walks out of the room, then switches the light on",
        ),
    ),
    (
        ("a man pours coffee then drinks it", "a man drinks coffee then pours it"),
        (
            "a man pours a cup of coffee and then drinks it",
            "a man drinks a cup of coffee and then pours it",
        ),
    ),
    (
        (
            "a girl brushes her teeth then washes her face",
            "a girl washes her face then brushes her teeth",
        ),
        (
            "a young girl brushes her teeth before washing her face",
            "a young girl washes her face before brushing her teeth",
        ),
    ),
    (
        ("a man parks the car then gets out", "a man gets out then parks the car"),
        (
            "a driver parks his car and then gets out of it",
            "a driver gets out of his car and then parks it",
        ),
    ),
    (
        (
            "a woman puts on her coat then opens the umbrella",
            "a woman opens the umbrella then puts on her coat",
        ),
        (
            "a woman puts her coat on before opening her umbrella",
            "a woman opens her umbrella before putting her coat on",
        ),
    ),
    (
        ("the candle is lit then blown out", "the candle is blown out then lit"),
        (
            "someone lights the candle and then blows it out",
            "someone blows the candle out and then lights it",
        ),
    ),
    (
        ("ice cream melting into a puddle", "a puddle melting into ice cream"),
        ("an ice cream melts into a puddle", "a puddle melts into an ice cream"),
    ),
    (
        ("a baby cries then laughs", "a baby laughs then cries"),
        ("an infant cries and then starts laughing", "an infant starts laughing and then cries"),
    ),
    (
        (
            "a man climbs the ladder then paints the wall",
            "a man paints the wall then climbs the ladder",
        ),
        (
            "a painter climbs up a ladder and then paints a wall",
            "a painter paints a wall and then climbs up a ladder",
        ),
    ),
    (
        (
            "a cat jumps onto the table then knocks over a glass",
            "a cat knocks over a glass then jumps onto the table",
        ),
        (
            "a cat leaps onto the table and knocks a glass over",
            "a cat knocks a glass over and leaps onto the table",
        ),
    ),
]

# (pair, another pair): similar wording, different pair; the audit should not flag it
DIFFERENT = [
    (
        ("a man eats then watches tv", "a man watches tv then eats"),
        ("a woman eats then watches tv", "a woman watches tv then eats"),
        "subject",
    ),
    (
        ("a man eats then watches tv", "a man watches tv then eats"),
        ("a dog eats then sleeps", "a dog sleeps then eats"),
        "other",
    ),
    (
        ("a man eats then watches tv", "a man watches tv then eats"),
        ("a man eats then reads a book", "a man reads a book then eats"),
        "one event",
    ),
    (
        ("a man eats then watches tv", "a man watches tv then eats"),
        ("a man drinks water then watches tv", "a man watches tv then drinks water"),
        "one event",
    ),
    (
        ("a man eats then watches tv", "a man watches tv then eats"),
        ("an old man eats then watches tv", "an old man watches tv then eats"),
        "subject",
    ),
    (
        ("a girl sings and then dances", "a girl dances and then sings"),
        ("a girl sings and then claps", "a girl claps and then sings"),
        "one event",
    ),
    (
        ("a girl sings and then dances", "a girl dances and then sings"),
        ("a boy sings and then dances", "a boy dances and then sings"),
        "subject",
    ),
    (
        ("water turning into ice", "ice turning into water"),
        ("water turning into steam", "steam turning into water"),
        "one event",
    ),
    (
        ("the camera zooms in then pans left", "the camera pans left then zooms in"),
        ("the camera zooms in then pans right", "the camera pans right then zooms in"),
        "direction",
    ),
    (
        ("the camera zooms in then pans left", "the camera pans left then zooms in"),
        ("the camera zooms out then tilts up", "the camera tilts up then zooms out"),
        "direction",
    ),
    (
        ("the camera zooms in then pans left", "the camera pans left then zooms in"),
        ("the drone camera zooms in then pans left", "the drone camera pans left then zooms in"),
        "subject",
    ),
    (
        ("the lamp turns on then turns off", "the lamp turns off then turns on"),
        (
            "the fountain starts spraying then stops spraying",
            "the fountain stops spraying then starts spraying",
        ),
        "other",
    ),
    (
        ("a man opens the door then closes it", "a man closes the door then opens it"),
        ("a man opens the window then closes it", "a man closes the window then opens it"),
        "one event",
    ),
    (
        ("a man runs from left to right", "a man runs from right to left"),
        ("a man runs from the door to the window", "a man runs from the window to the door"),
        "one event",
    ),
    (
        ("a man runs from left to right", "a man runs from right to left"),
        ("a man swims from left to right", "a man swims from right to left"),
        "one event",
    ),
    (
        ("a woman sits down then stands up", "a woman stands up then sits down"),
        ("a woman lies down then gets up", "a woman gets up then lies down"),
        "one event",
    ),
    (
        ("a boy throws the ball then catches it", "a boy catches the ball then throws it"),
        ("a boy kicks the ball then picks it up", "a boy picks the ball up then kicks it"),
        "one event",
    ),
    (
        (
            "a man waves at a woman before he talks to her",
            "a man talks to a woman before he waves at her",
        ),
        ("a man is waving at a woman", "a woman is waving at a man"),
        "other",
    ),
    (
        ("a chef chops onions then stirs the soup", "a chef stirs the soup then chops onions"),
        ("a chef chops carrots then stirs the soup", "a chef stirs the soup then chops carrots"),
        "one event",
    ),
    (
        (
            "the biker rides down the street before he goes down the stairs",
            "the biker goes down the stairs before he rides down the street",
        ),
        (
            "the skier rides down the street before she goes down the stairs",
            "the skier goes down the stairs before she rides down the street",
        ),
        "subject",
    ),
    (
        ("a seed turning into a flower", "a flower turning into a seed"),
        ("a tadpole turning into a frog", "a frog turning into a tadpole"),
        "other",
    ),
    (
        (
            "a person turns on the light and then leaves the room",
            "a person leaves the room and then turns on the light",
        ),
        (
            "a person turns off the tv and then leaves the room",
            "a person leaves the room and then turns off the tv",
        ),
        "one event",
    ),
    (
        ("a man pours coffee then drinks it", "a man drinks coffee then pours it"),
        ("a man pours tea then drinks it", "a man drinks tea then pours it"),
        "one event",
    ),
    (
        (
            "a girl brushes her teeth then washes her face",
            "a girl washes her face then brushes her teeth",
        ),
        (
            "a girl brushes her hair then washes her face",
            "a girl washes her face then brushes her hair",
        ),
        "one event",
    ),
    (
        ("a man parks the car then gets out", "a man gets out then parks the car"),
        ("a man washes the car then gets in", "a man gets in then washes the car"),
        "one event",
    ),
    (
        ("the candle is lit then blown out", "the candle is blown out then lit"),
        ("the oven is switched on then opened", "the oven is opened then switched on"),
        "other",
    ),
    (
        ("a baby cries then laughs", "a baby laughs then cries"),
        ("a baby crawls then sleeps", "a baby sleeps then crawls"),
        "other",
    ),
    (
        (
            "a man climbs the ladder then paints the wall",
            "a man paints the wall then climbs the ladder",
        ),
        (
            "a man climbs the ladder then fixes the roof",
            "a man fixes the roof then climbs the ladder",
        ),
        "one event",
    ),
    (
        (
            "a cat jumps onto the table then knocks over a glass",
            "a cat knocks over a glass then jumps onto the table",
        ),
        (
            "a dog jumps onto the sofa then falls asleep",
            "a dog falls asleep then jumps onto the sofa",
        ),
        "other",
    ),
    (
        (
            "a woman walks into the kitchen then opens the fridge",
            "a woman opens the fridge then walks into the kitchen",
        ),
        (
            "a woman walks into the garage then opens the car door",
            "a woman opens the car door then walks into the garage",
        ),
        "one event",
    ),
    (
        (
            "the traffic light turns green then turns red",
            "the traffic light turns red then turns green",
        ),
        (
            "the traffic light turns yellow then turns red",
            "the traffic light turns red then turns yellow",
        ),
        "one event",
    ),
    (
        ("a man lifts the box then puts it down", "a man puts the box down then lifts it"),
        ("a man lifts the child then hugs her", "a man hugs the child then lifts her"),
        "one event",
    ),
]


def _cosines(rows: list[tuple]) -> np.ndarray:
    a = pair_vectors([CaptionPair(*r[0]) for r in rows], shared_encoder())
    b = pair_vectors([CaptionPair(*r[1]) for r in rows], shared_encoder())
    return np.sum(a * b, axis=1)


def _jaccards(rows: list[tuple]) -> np.ndarray:
    return np.array(
        [jaccard(pair_items(CaptionPair(*r[0])), pair_items(CaptionPair(*r[1]))) for r in rows]
    )


def test_the_threshold_separates_rewordings_from_different_pairs():
    """The figures in retrieval/audit.py's docstring: at cosine 0.88 the embedding catches most
    rewordings and few different pairs; word overlap catches almost no rewording."""
    assert len(PARAPHRASES) >= 30 and len(DIFFERENT) >= 30
    para, diff = _cosines(PARAPHRASES), _cosines(DIFFERENT)
    caught = float(np.mean(para >= EMBEDDING_THRESHOLD))
    false_alarms = float(np.mean(diff >= EMBEDDING_THRESHOLD))
    jac_caught = float(np.mean(_jaccards(PARAPHRASES) >= NEAR_DUPLICATE_THRESHOLD))
    print(
        f"\nrewordings {para.min():.2f}-{para.max():.2f}, different {diff.min():.2f}-"
        f"{diff.max():.2f}; at {EMBEDDING_THRESHOLD}: caught {caught:.0%}, false alarms "
        f"{false_alarms:.0%}; jaccard >= {NEAR_DUPLICATE_THRESHOLD} caught {jac_caught:.0%}"
    )
    assert caught >= 0.6 and false_alarms <= 0.1
    assert jac_caught <= 0.1
    # the chosen threshold is the best Youden index among thresholds with <= 10% false alarms
    grid = np.round(np.arange(0.70, 0.99, 0.01), 2)
    best = max(
        (float(np.mean(para >= t) - np.mean(diff >= t)), -t)
        for t in grid
        if np.mean(diff >= t) <= 0.1
    )
    assert -best[1] == pytest.approx(EMBEDDING_THRESHOLD)


# a file of pairs as an LLM writes them: two rewordings of earlier pairs among unrelated ones
FILE = [
    ("a man eats then watches tv", "a man watches tv then eats"),
    ("water turning into ice", "ice turning into water"),
    ("the lamp turns on then turns off", "the lamp turns off then turns on"),
    ("a girl reads a book before she sleeps", "a girl sleeps before she reads a book"),
    ("a man watches tv after he eats", "a man eats after he watches tv"),  # reworded 0
    ("a dog barks then sits", "a dog sits then barks"),
    ("a puppy barks and then sits down", "a puppy sits down and then barks"),  # reworded 5
    ("the balloon inflates then deflates", "the balloon deflates then inflates"),
]


def test_embedding_mode_catches_rewordings_that_jaccard_misses(tmp_path: Path):
    emb = audit_pairs(FILE, cache_dir=tmp_path)
    assert [v.reasons for v in emb] == [[]] * 4 + [["near-duplicate"], [], ["near-duplicate"], []]
    assert emb[4].details["near_duplicate_of"] == [0]
    assert emb[6].details["near_duplicate_of"] == [5]
    assert emb[0].details["near_duplicates"] == [4]
    assert emb[4].details["near_duplicate_method"] == "embedding"
    assert emb[4].details["similarity"]["0"] >= EMBEDDING_THRESHOLD
    assert emb[4].messages[-1].startswith("near-duplicate: ")
    assert "similar to pair 1 ('a man eats then watches tv' /" in emb[4].messages[-1]
    jac = audit_pairs(FILE, near_dup="jaccard")
    assert all(v.ok for v in jac), [v.messages for v in jac]
    # unrelated pairs are never close: no pair but the rewordings is found at any mode
    found = embedding_neighbors([CaptionPair(*p) for p in FILE])
    assert [(i, j) for i, j, _ in found] == [(0, 4), (5, 6)]


def test_the_embedding_cache_is_reused(tmp_path: Path):
    audit_pairs(FILE, cache_dir=tmp_path)
    files = sorted(tmp_path.glob("emb-*.npy"))
    assert len(files) == 1
    stamp = files[0].stat().st_mtime_ns
    again = audit_pairs(FILE, cache_dir=tmp_path)
    assert sorted(tmp_path.glob("emb-*.npy")) == files and files[0].stat().st_mtime_ns == stamp
    assert [v.reasons for v in again][4] == ["near-duplicate"]


def test_embedding_neighbors_are_exact_and_checked():
    pairs = [CaptionPair(*r[0]) for r in DIFFERENT] + [CaptionPair(*r[1]) for r in PARAPHRASES]
    vec = pair_vectors(pairs, shared_encoder())
    sims = vec @ vec.T
    want = {
        (i, j) for i in range(len(pairs)) for j in range(i + 1, len(pairs)) if sims[i, j] >= 0.8
    }
    got = embedding_neighbors(pairs, 0.8)
    assert {(i, j) for i, j, _ in got} == want and len(want) > 5
    assert all(abs(s - sims[i, j]) < 1e-4 for i, j, s in got)
    with pytest.raises(ValueError, match="cosine in"):
        embedding_neighbors(pairs, 1.5)
    assert embedding_neighbors(pairs[:1]) == []


def test_cli_reports_near_duplicates_with_lines_and_modes(tmp_path: Path):
    f = tmp_path / "pairs.csv"
    f.write_text("pos,neg\n" + "".join(f'"{p}","{n}"\n' for p, n in FILE), encoding="utf-8")
    report = tmp_path / "r.jsonl"
    run = run_cli(
        "captions", "audit", str(f), "--strict", "--report", str(report),
        "--cache-dir", str(tmp_path / "cache"),
    )  # fmt: skip
    assert run.returncode == 2, run.stderr
    rows = [json.loads(line) for line in report.read_text().splitlines()]
    assert [r["index"] for r in rows if "near-duplicate" in r["reasons"]] == [4, 6]
    assert rows[4]["details"]["near_duplicate_of"] == [0]
    # pairs count from 1 (the file's first pair is on line 2, under the header)
    assert "pair 5 (line 6): 'a man watches tv after he eats'" in run.stdout
    assert "similar to pair 1 (line 2) ('a man eats then watches tv' /" in run.stdout
    assert "6/8 pairs pass (near-duplicates by embedding >= 0.88)" in run.stdout
    jac = run_cli("captions", "audit", str(f), "--strict", "--near-dup", "jaccard")
    assert (
        jac.returncode == 0 and "8/8 pairs pass (near-duplicates by jaccard >= 0.8)" in jac.stdout
    )
    loose = run_cli("captions", "audit", str(f), "--near-dup", "off", "--threshold", "0.5")
    assert loose.returncode == 0 and "near-duplicates not searched" in loose.stdout

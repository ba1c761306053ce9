"""Questions and options in TOMATO's wording, written from a fact's value.

A fact value (``("left", "up")``, ``"accelerating"``, ``3``...) maps to an answer *key*
(``"left-up"``, ``"accelerating"``, ``"3"``); a key maps to option text. Options for a
question are the right key plus distractors drawn with the sample's generator, so the same
seed always gives the same options, and edits regenerate them from the new fact.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tempogen.labels import Labels

# TOMATO's variation flags: what kind of edit made a clip (edit ops set them).
VARIATION_KEYS = ("counterfactual", "composite", "zoom", "first_person")
TASKS = ("count", "direction", "rotation", "shape&trend", "velocity&frequency", "visual_cues")

DIRECTION_WORD = {"left": "Leftwards", "right": "Rightwards", "up": "Upwards", "down": "Downwards"}
ROTATION_TEXT = {
    "cw": "Clockwise throughout.",
    "ccw": "Counter-clockwise throughout.",
    "cw-ccw": "Clockwise then counter-clockwise.",
    "ccw-cw": "Counter-clockwise then clockwise.",
    "none": "No rotation.",
}
SPEED_TEXT = {
    "accelerating": "Accelerating.",
    "decelerating": "Decelerating.",
    "constant": "Constant speed.",
    "none": "No movement.",
}
FREQUENCY_TEXT = {
    "increasing": "The frequency increases.",
    "decreasing": "The frequency decreases.",
    "constant": "The frequency stays constant.",
    "none": "It does not happen at all.",
}
TRAJECTORY_TEXT = {
    "circle": "Circle.",
    "triangle": "Triangle.",
    "square": "Square/rectangle.",
    "trapezoid": "Trapezoid.",
    "diamond": "Diamond.",
    "infinity": "Infinity-shape.",
    "star": "Star.",
    "none": "Not drawing at all.",
}
COUNT_RANGE = range(0, 8)
OPTIONS_PER_QUESTION = {"direction": 6, "trajectory": 6, "count": 6}


def answer_key(fact: str, value: Any) -> str:
    """Stable string key of a fact value (``None`` means undetermined and has no key)."""
    if value is None:
        raise ValueError(f"fact {fact!r} is undetermined: no answer key")
    if fact in ("direction", "rotation"):
        return "-".join(value) if value else "none"
    if fact == "order":
        if not value:
            return "none"
        first = value[0]
        return first[0] if len(first) == 1 else "same"
    return str(value)


def direction_text(key: str) -> str:
    if key == "none":
        return "No movements."
    words = [DIRECTION_WORD[t] for t in key.split("-")]
    return (words[0] if len(words) == 1 else words[0] + " then " + words[1].lower()) + "."


def describe(track_name: str, labels: Labels) -> str:
    """Noun phrase for an object: ``the red star``."""
    return str(labels.meta.get("nouns", {}).get(track_name, f"the {track_name}"))


def option_text(fact: str, key: str, labels: Labels) -> str:
    """The option sentence a reader sees for an answer key."""
    if fact == "direction":
        return direction_text(key)
    if fact == "rotation":
        return ROTATION_TEXT[key]
    if fact == "speed":
        return SPEED_TEXT[key]
    if fact == "frequency":
        return FREQUENCY_TEXT[key]
    if fact == "trajectory":
        return TRAJECTORY_TEXT[key]
    if fact == "count":
        return key
    if fact == "order":
        if key == "same":
            n = len(labels.query.objects)
            return "Both at the same time." if n == 2 else "All at the same time."
        if key == "none":
            return "None of them." if len(labels.query.objects) > 2 else "Neither of them."
        phrase = describe(key, labels)
        return phrase[0].upper() + phrase[1:] + "."
    raise ValueError(f"unknown fact {fact!r}")


def all_direction_keys() -> list[str]:
    singles = list(DIRECTION_WORD)
    pairs = [f"{a}-{b}" for a in singles for b in singles if a != b]
    return singles + pairs + ["none"]


def candidate_keys(fact: str, objects: tuple[str, ...] = ()) -> list[str]:
    """Every answer key a question about this fact could have (``objects`` for ``order``)."""
    if fact == "direction":
        return all_direction_keys()
    if fact == "rotation":
        return list(ROTATION_TEXT)
    if fact == "speed":
        return list(SPEED_TEXT)
    if fact == "frequency":
        return list(FREQUENCY_TEXT)
    if fact == "trajectory":
        return list(TRAJECTORY_TEXT)
    if fact == "count":
        return [str(i) for i in COUNT_RANGE]
    if fact == "order":
        return list(objects) + ["same", "none"]
    raise ValueError(f"unknown fact {fact!r}")


def _hard_direction_distractors(key: str) -> list[str]:
    """Distractors a temporal reader must rule out: reversed order, inverted tokens."""
    inv = {"left": "right", "right": "left", "up": "down", "down": "up"}
    if key == "none":
        return []
    toks = key.split("-")
    out = ["-".join(inv[t] for t in toks), "-".join(reversed(toks))]
    out.append("-".join(reversed([inv[t] for t in toks])))
    return [k for k in out if k != key]


def choose_options(
    fact: str, key: str, labels: Labels, rng: np.random.Generator, answer_pos: int | None = None
) -> list[str]:
    """Answer keys in display order: the right one plus distractors, shuffled by ``rng``.

    With ``answer_pos`` the right key lands at that position (builders balance positions).
    """
    pool = candidate_keys(fact, labels.query.objects)
    if key not in pool:
        raise ValueError(f"answer {key!r} is not a valid {fact} option; valid: {pool}")
    k = OPTIONS_PER_QUESTION.get(fact, len(pool))
    k = min(k, len(pool))
    others = [p for p in pool if p != key]
    if fact == "direction":
        hard = [h for h in dict.fromkeys(_hard_direction_distractors(key)) if h in others]
        rest = [p for p in others if p not in hard]
        rng.shuffle(rest)
        if key != "none" and "none" in rest:
            rest.remove("none")
            rest.insert(0, "none")
        distract = (hard + rest)[: k - 1]
    elif fact == "count":
        c = int(key)
        lo = int(np.clip(c - rng.integers(0, k), COUNT_RANGE.start, COUNT_RANGE.stop - k))
        distract = [str(i) for i in range(lo, lo + k) if i != c][: k - 1]
    else:
        rng.shuffle(others)
        distract = others[: k - 1]
    distract = list(distract)
    rng.shuffle(distract)
    pos = int(rng.integers(0, k)) if answer_pos is None else answer_pos % k
    return distract[:pos] + [key] + distract[pos:]


def num_options(fact: str, objects: tuple[str, ...] = ()) -> int:
    """How many options a question about this fact shows."""
    return min(OPTIONS_PER_QUESTION.get(fact, 10**6), len(candidate_keys(fact, objects)))

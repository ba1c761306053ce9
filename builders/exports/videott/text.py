"""Video-TT wording: the words for directions, turns, shapes and events, and what the states show."""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np

from tempogen import observe
from tempogen.labels import Labels, Track

FILE_NAME = "videott.json"
KINDS = ("primary", "rephrased", "correctly_led", "wrongly_led", "multiple_choice")
FACTORS = (
    "unclear_content",
    "movement_speed",
    "spatial_temporal_arrangement",
    "illusions",
    "narrative_editing",
    "technical_editing",
)
SAMPLING_FRAMES = 16  # the uniform samples every tempogen question is certified at
FAST = 0.5  # canvas diagonals per second: a subject this fast is hard to track between frames
ALIASING_TURN = 60.0  # degrees between two of the 16 samples: near the wagon-wheel limit
TECHNICAL_OPS = ("reverse", "speed", "speed_ramp", "mirror", "rotate", "zoom_in", "crop")
NARRATIVE_OPS = ("concat", "pair_with_black_gap", "composite")

ROTATION_WORDS = {
    "cw": ("clockwise",),
    "ccw": ("counter-clockwise", "counterclockwise", "anticlockwise", "anti-clockwise"),
}
DIRECTION_WORDS = {
    "left": ("left", "leftwards", "to the left"),
    "right": ("right", "rightwards", "to the right"),
    "up": ("up", "upwards", "upward"),
    "down": ("down", "downwards", "downward"),
}
APPROACH_WORDS = {
    "towards": ("towards the camera", "toward the camera", "closer", "it approaches"),
    "away": ("away from the camera", "away", "farther away", "it recedes"),
}
NUMBER_WORDS = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine")
SHAPE_NAMES = {
    "circle": "circle",
    "triangle": "triangle",
    "square": "square or rectangle",
    "trapezoid": "trapezoid",
    "diamond": "diamond",
    "infinity": "infinity sign (figure eight)",
    "star": "five-pointed star",
}
SHAPE_ACCEPTED = {
    "circle": ["circle", "a circle", "round", "oval"],
    "triangle": ["triangle", "a triangle"],
    "square": ["square", "rectangle", "a square", "a rectangle", "square/rectangle"],
    "trapezoid": ["trapezoid", "a trapezoid", "trapezium"],
    "diamond": ["diamond", "a diamond", "rhombus"],
    "infinity": ["infinity", "infinity sign", "figure eight", "figure 8", "8"],
    "star": ["star", "a star", "five-pointed star", "pentagram"],
}
WRONG_SHAPE = {
    "circle": "square",
    "square": "circle",
    "triangle": "square",
    "trapezoid": "circle",
    "diamond": "circle",
    "infinity": "circle",
    "star": "triangle",
    "none": "circle",
}
EVENT_WORDS = {  # kind -> (verb 3rd person, verb base, noun plural, noun singular)
    "flash": ("flashes", "flash", "flashes", "flash"),
    "bounce": ("bounces", "bounce", "bounces", "bounce"),
    "loop": ("completes a loop", "complete a loop", "loops", "loop"),
}


# --- small text helpers -----------------------------------------------------------------------
def secs(t: float) -> str:
    """Seconds as the rationale writes them."""
    return f"{t:.1f} s"


def cap(text: str) -> str:
    return text[:1].upper() + text[1:]


def join_words(items: Sequence[str]) -> str:
    items = list(items)
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]


def number_word(n: int) -> str:
    return NUMBER_WORDS[n] if 0 <= n < len(NUMBER_WORDS) else str(n)


def times_word(n: int) -> str:
    return {1: "once", 2: "twice"}.get(n, f"{n} times")


def uniq(items: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(i.strip().lower() for i in items if i.strip()))


def seq_accepted(tokens: Sequence[str], words: Mapping[str, tuple[str, ...]]) -> list[str]:
    """Equivalent phrasings of a token sequence: ``clockwise then anticlockwise``..."""
    if len(tokens) == 1:
        return list(words[tokens[0]])
    a, b = words[tokens[0]], words[tokens[1]]
    out = [f"{x} then {y}" for x in a[:2] for y in b[:2]]
    out += [f"{a[0]}, then {b[0]}", f"first {a[0]}, then {b[0]}", f"{a[0]} and then {b[0]}"]
    out += [f"{a[0]} then {y}" for y in b[2:]]
    return out


def rejecting(correct: list[str]) -> list[str]:
    """Accepted answers to a wrongly-led question: reject the premise, then state the truth."""
    heads = ("it does not", "it doesn't", "no")
    return uniq([f"{h}; {c}" for h in heads for c in correct[:2]] + correct[:3])


# --- what the states show ---------------------------------------------------------------------
def has_states(row: dict[str, Any]) -> bool:
    """True when the row's labels carry per-frame tracks (generated or edited simulated clips)."""
    labels = row.get("labels")
    return isinstance(labels, dict) and bool(labels.get("tracks")) and "query" in labels


def _segments(tokens: Sequence[str | None], t: np.ndarray, amounts: np.ndarray) -> list[dict]:
    """Runs of equal per-step tokens (``None`` steps are pauses and never split a run).

    Step ``i`` goes from frame ``i`` to ``i + 1``; a run spans its first to its last step.
    """
    out: list[dict] = []
    for i, tok in enumerate(tokens):
        if tok is None:
            continue
        if out and out[-1]["token"] == tok:
            out[-1]["end"] = float(t[i + 1])
            out[-1]["amount"] += float(amounts[i])
        else:
            out.append(
                {"token": tok, "start": float(t[i]), "end": float(t[i + 1]), "amount": amounts[i]}
            )
    for seg in out:
        seg["amount"] = float(seg["amount"])
        seg["duration"] = seg["end"] - seg["start"]
    return out


def rotation_segments(labels: Labels) -> list[dict]:
    """Clockwise / counter-clockwise runs over every frame, with degrees turned in each."""
    n = labels.num_frames
    idx = np.arange(n)
    steps = observe.turn_steps(labels, idx)
    t = idx / labels.fps
    rate = np.abs(steps) * labels.fps
    tokens = [
        None if r < observe.TURN_EPS else ("cw" if a > 0 else "ccw") for a, r in zip(steps, rate)
    ]
    return _segments(tokens, t, np.abs(steps))


def direction_segments(labels: Labels, track: Track) -> list[dict]:
    """Runs of one dominant screen direction over every frame, with the distance covered."""
    n = labels.num_frames
    t = np.arange(n) / labels.fps
    dx, dy = np.diff(track.x), np.diff(track.y)
    dist = np.hypot(dx, dy)
    still = dist * labels.fps < observe.MOVE_EPS * math.hypot(labels.width, labels.height)
    tokens: list[str | None] = []
    for ax, ay, s in zip(dx, dy, still):
        if s:
            tokens.append(None)
        elif abs(ax) >= observe.DOMINANCE * abs(ay):
            tokens.append("right" if ax > 0 else "left")
        elif abs(ay) >= observe.DOMINANCE * abs(ax):
            tokens.append("down" if ay > 0 else "up")
        else:
            tokens.append(None)
    return _segments(tokens, t, dist)


def peak_speed(labels: Labels, names: Sequence[str]) -> tuple[float, float, str]:
    """Highest per-frame speed (canvas diagonals per second), its time and its object."""
    diag = math.hypot(labels.width, labels.height)
    best = (0.0, 0.0, "")
    for name in names:
        tr = labels.track(name)
        if tr.role == "anchor" or tr.num_frames < 2:
            continue
        v = np.hypot(np.diff(tr.x), np.diff(tr.y)) * labels.fps / diag
        v[~(tr.visible[1:] & tr.visible[:-1])] = 0.0
        i = int(np.argmax(v))
        if v[i] > best[0]:
            best = (float(v[i]), float((i + 1) / labels.fps), name)
    return best


def path_corners(labels: Labels, track: Track) -> tuple[list[float], int]:
    """Times of the sharp corners of the track's path (as a viewer sees them) and how many
    times the simplified path crosses itself (the observer's own reading of the outline)."""
    pts = np.stack([track.x, track.y], 1)
    shape = observe.outline(pts)
    if shape is None:
        return [], 0
    frames = [int(np.argmin(np.hypot(*(pts[:-1] - p).T))) for p in shape.ring]
    return sorted(frames[k] / labels.fps for k in shape.corners), shape.crossings


def same_at_ends(track: Track, tol: float = 0.5) -> bool:
    """The track shows the same position and orientation in its first and last frame."""
    return (
        abs(track.x[-1] - track.x[0]) <= tol
        and abs(track.y[-1] - track.y[0]) <= tol
        and abs(track.angle[-1] - track.angle[0]) <= tol
    )


def open_questions(
    rationale: str,
    primary: str,
    rephrased: str,
    answer: str,
    accepted: list[str],
    led: tuple[str, str, list[str]],
    wrong: tuple[str, str],
) -> dict[str, Any]:
    """A set's four open-ended questions: the primary and rephrased ones share ``answer``,
    the correctly-led one has its own (question, answer, accepted), and the wrongly-led
    (question, answer) must reject its premise."""
    return {
        "rationale": rationale,
        "primary": (primary, answer, accepted),
        "rephrased": (rephrased, answer, accepted),
        "correctly_led": led,
        "wrongly_led": (*wrong, rejecting(accepted)),
    }

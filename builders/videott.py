"""Video-TT-style question sets written from exact labels: five questions, a rationale, factors.

Video-TT (Zhang et al., 2025) asks one primary open-ended question per video plus four natural
adversarial variants (rephrased, correctly-led, wrongly-led, multiple-choice), gives the primary
a rationale, and tags each video with the complexity factors that make it hard. Here every
answer, every premise and every time in a rationale is computed from the per-frame states in a
row's labels (via :mod:`tempogen.observe`), so a premise called true is true and one called
false is false. Rows without per-frame states (external clips with declared facts only) get no
question set.

Output: ``out_dir/videott.json``, a JSON list of ``{"video_id", "video", "task", ...,
"complexity_factors", "questions"}``. ``video`` is the clip's path relative to ``out_dir``
(by default ``out_dir`` sits inside the dataset folder, so paths read ``../videos/{id}.mp4``);
videos are referenced, never copied.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from tempogen import observe
from tempogen.io import write_json
from tempogen.labels import Labels, Track
from tempogen.questions import answer_key, describe

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
OPPOSITE = {"left": "right", "right": "left", "up": "down", "down": "up", "cw": "ccw", "ccw": "cw"}
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
def _s(t: float) -> str:
    """Seconds as the rationale writes them."""
    return f"{t:.1f} s"


def _cap(text: str) -> str:
    return text[:1].upper() + text[1:]


def _join(items: Sequence[str]) -> str:
    items = list(items)
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]


def _num(n: int) -> str:
    return NUMBER_WORDS[n] if 0 <= n < len(NUMBER_WORDS) else str(n)


def _times(n: int) -> str:
    return {1: "once", 2: "twice"}.get(n, f"{n} times")


def _uniq(items: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(i.strip().lower() for i in items if i.strip()))


def _seq_accepted(tokens: Sequence[str], words: dict[str, tuple[str, ...]]) -> list[str]:
    """Equivalent phrasings of a token sequence: ``clockwise then anticlockwise``..."""
    if len(tokens) == 1:
        return list(words[tokens[0]])
    a, b = words[tokens[0]], words[tokens[1]]
    out = [f"{x} then {y}" for x in a[:2] for y in b[:2]]
    out += [f"{a[0]}, then {b[0]}", f"first {a[0]}, then {b[0]}", f"{a[0]} and then {b[0]}"]
    out += [f"{a[0]} then {y}" for y in b[2:]]
    return out


def _rejecting(correct: list[str]) -> list[str]:
    """Accepted answers to a wrongly-led question: reject the premise, then state the truth."""
    heads = ("it does not", "it doesn't", "no")
    return _uniq([f"{h}; {c}" for h in heads for c in correct[:2]] + correct[:3])


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


def _peak_speed(labels: Labels, names: Sequence[str]) -> tuple[float, float, str]:
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


def _path_corners(labels: Labels, track: Track) -> tuple[list[float], int]:
    """Times of the sharp corners of the track's path (as a viewer sees them) and how many
    times the simplified path crosses itself (the observer's own reading of the outline)."""
    pts = np.stack([track.x, track.y], 1)
    shape = observe.outline(pts)
    if shape is None:
        return [], 0
    frames = [int(np.argmin(np.hypot(*(pts[:-1] - p).T))) for p in shape.ring]
    return sorted(frames[k] / labels.fps for k in shape.corners), shape.crossings


def _same_at_ends(track: Track, tol: float = 0.5) -> bool:
    """The track shows the same position and orientation in its first and last frame."""
    return (
        abs(track.x[-1] - track.x[0]) <= tol
        and abs(track.y[-1] - track.y[0]) <= tol
        and abs(track.angle[-1] - track.angle[0]) <= tol
    )


# --- one question set -------------------------------------------------------------------------
class _Ctx:
    """Everything the writers of one row's questions share."""

    def __init__(self, row: dict[str, Any]) -> None:
        self.row = row
        self.id = str(row["id"])
        self.labels = Labels.from_json(row["labels"])
        q = self.labels.query
        self.fact, self.kind, self.objects = q.fact, q.kind, q.objects
        value = observe.answer(self.labels)
        if value is None:
            raise ValueError(f"row {self.id!r}: the labels do not determine an answer")
        self.key = answer_key(self.fact, value)
        if row.get("answer_key") not in (None, self.key):
            raise ValueError(
                f"row {self.id!r}: answer_key {row['answer_key']!r} disagrees with the labels "
                f"({self.key!r})"
            )
        self.subject = self.labels.subject
        # who performs the action, when that is not the tracked part ("the person" jumps,
        # though the labels follow the feet)
        self.subj = self.labels.meta.get("actor") or self.noun(self.objects[0])
        self.n = self.labels.num_frames
        self.duration = self.n / self.labels.fps

    def noun(self, name: str) -> str:
        return describe(name, self.labels)

    @property
    def center(self) -> str:
        return self.noun(self.objects[1]) if len(self.objects) > 1 else "its centre"


def _q(ctx: _Ctx, kind: str, question: str, answer: str, accepted: list[str]) -> dict[str, Any]:
    return {
        "qid": f"{ctx.id}/{kind}",
        "kind": kind,
        "question": question,
        "answer": answer,
        "accepted": _uniq([answer.rstrip("."), *accepted]),
    }


def _rotation(ctx: _Ctx) -> dict[str, Any]:
    segs = rotation_segments(ctx.labels)
    toks = [] if ctx.key == "none" else ctx.key.split("-")
    if [s["token"] for s in segs] != toks:
        raise ValueError(f"row {ctx.id!r}: rotation runs {segs} disagree with answer {ctx.key!r}")
    orbit = ctx.kind in ("orbit", "loop")
    w = {k: v[0] for k, v in ROTATION_WORDS.items()}
    s, S = ctx.subj, _cap(ctx.subj)
    verb = f"moves around {ctx.center}" if orbit else "turns"
    if orbit:
        primary = f"Which way does {s} travel around {ctx.center} over the video, from the viewer's perspective?"
        rephrased = f"Seen from the viewer's side, in which sense does {s} circle {ctx.center} from start to finish?"
    elif ctx.labels.meta.get("viewpoint") == "above":  # a turn about the vertical axis
        primary = f"Seen from above, which way does {s} turn over the video?"
        rephrased = f"Looking down from above, in which sense does {s} turn from the first frame to the last?"
    else:
        primary = f"Which way does {s} rotate over the video, from the viewer's perspective?"
        rephrased = f"Seen from the viewer's side, in which sense does {s} spin from the first frame to the last?"
    if toks:
        parts = [
            f"{w[g['token']]} for {_s(g['duration'])} ({_s(g['start'])} to {_s(g['end'])}, "
            f"about {g['amount']:.0f} degrees)"
            for g in segs
        ]
        rationale = f"{S} {verb} " + ", then ".join(parts) + "."
        if len(toks) == 1:
            answer = f"{_cap(w[toks[0]])} the whole time."
            rationale += f" It never reverses, so the answer is {w[toks[0]]} throughout."
        else:
            answer = f"{_cap(w[toks[0]])}, then {w[toks[1]]}."
            rationale += f" It reverses once, at {_s(segs[1]['start'])}."
        accepted = _seq_accepted(toks, ROTATION_WORDS)
        if len(toks) == 1:
            accepted += [f"{x} throughout" for x in ROTATION_WORDS[toks[0]][:2]]
    else:
        total = float(np.abs(observe.turn_steps(ctx.labels, np.arange(ctx.n))).sum())
        what = "its position around " + ctx.center if orbit else "its orientation"
        rationale = (
            f"{S} keeps {what} for the whole {_s(ctx.duration)} video: it turns by "
            f"{total:.0f} degrees in all, so it does not rotate."
        )
        answer = f"It does not {'move around it' if orbit else 'rotate'}."
        accepted = [
            "it does not rotate",
            "it does not move",
            "no rotation",
            "none",
            "it doesn't rotate",
            "not at all",
        ]
    # correctly-led: a true premise about part of the motion
    if len(toks) == 2:
        led = f"{S} first {'goes' if orbit else 'turns'} {w[toks[0]]}. Which way does it {'go' if orbit else 'turn'} after that?"
        led_answer = f"{_cap(w[toks[1]])}."
        led_acc = list(ROTATION_WORDS[toks[1]])
    elif len(toks) == 1:
        led = f"{S} is {'going' if orbit else 'turning'} {w[toks[0]]} at the start of the video. Which way is it {'going' if orbit else 'turning'} at the end?"
        led_answer = f"{_cap(w[toks[0]])}; it keeps {'going' if orbit else 'turning'} {w[toks[0]]} the whole time."
        led_acc = list(ROTATION_WORDS[toks[0]])
    else:
        led, led_answer, led_acc = _still_led(ctx, "Does it rotate, and if so which way?", answer)
        led_acc += accepted
    # wrongly-led: a false premise the answer must reject
    if len(toks) == 2:
        wrong = (
            f"Why does {s} keep {'going' if orbit else 'turning'} {w[toks[0]]} for the whole video?"
        )
        wrong_answer = (
            f"It does not; it {'goes' if orbit else 'turns'} {w[toks[0]]}, then {w[toks[1]]}."
        )
    elif len(toks) == 1:
        wrong = f"After {s} reverses, which way does it {'go' if orbit else 'turn'}?"
        wrong_answer = (
            f"It never reverses; it {'goes' if orbit else 'turns'} {w[toks[0]]} the whole time."
        )
    else:
        wrong = f"Which way does {s} {'go around ' + ctx.center if orbit else 'turn'} once it starts rotating?"
        wrong_answer = "It never starts; it does not rotate at all."
    return {
        "rationale": rationale,
        "primary": (primary, answer, accepted),
        "rephrased": (rephrased, answer, accepted),
        "correctly_led": (led, led_answer, led_acc),
        "wrongly_led": (wrong, wrong_answer, _rejecting(accepted)),
    }


def _still_led(ctx: _Ctx, ask: str, answer: str) -> tuple[str, str, list[str]]:
    """Correctly-led question for a still subject: a verified premise, else the duration."""
    if _same_at_ends(ctx.subject):
        premise = f"{_cap(ctx.subj)} looks the same in the last frame as in the first."
    else:
        premise = f"The video lasts {_s(ctx.duration)}."
    return f"{premise} {ask}", answer, []


def _direction(ctx: _Ctx) -> dict[str, Any]:
    segs = direction_segments(ctx.labels, ctx.subject)
    toks = [] if ctx.key == "none" else ctx.key.split("-")
    if [g["token"] for g in segs] != toks:
        raise ValueError(f"row {ctx.id!r}: direction runs disagree with answer {ctx.key!r}")
    s, S = ctx.subj, _cap(ctx.subj)
    primary = f"Which way does {s} move over the video?"
    rephrased = (
        f"In which direction or directions does {s} travel across the frame, from start to finish?"
    )
    if toks:
        parts = [
            f"{g['token']} for {_s(g['duration'])} ({_s(g['start'])} to {_s(g['end'])}, "
            f"about {g['amount']:.0f} pixels)"
            for g in segs
        ]
        rationale = f"{S} moves " + ", then ".join(parts) + "."
        if len(toks) == 2:
            rationale += f" It changes direction at {_s(segs[1]['start'])}."
            answer = f"{_cap(toks[0])}, then {toks[1]}."
        else:
            answer = f"{_cap(toks[0])}."
        accepted = _seq_accepted(toks, DIRECTION_WORDS)
    else:
        dist = float(np.hypot(np.diff(ctx.subject.x), np.diff(ctx.subject.y)).sum())
        rationale = (
            f"{S} stays in the same spot for the whole {_s(ctx.duration)} video (it covers "
            f"{dist:.0f} pixels in all): it does not move."
        )
        answer = "It does not move."
        accepted = ["it does not move", "no movement", "none", "it stays still", "not at all"]
    if len(toks) == 2:
        led = f"{S} first moves {toks[0]}. Which way does it move after that?"
        led_answer, led_acc = f"{_cap(toks[1])}.", list(DIRECTION_WORDS[toks[1]])
        wrong = f"Why does {s} move {toks[1]} first and {toks[0]} afterwards?"
        wrong_answer = f"It does not; it moves {toks[0]} first, then {toks[1]}."
    elif len(toks) == 1:
        led = (
            f"{S} is moving {toks[0]} at the start of the video. Which way is it moving at the end?"
        )
        led_answer = f"{_cap(toks[0])}; it moves {toks[0]} the whole time."
        led_acc = list(DIRECTION_WORDS[toks[0]])
        wrong = f"Why does {s} move {OPPOSITE[toks[0]]}?"
        wrong_answer = f"It does not; it moves {toks[0]}."
    else:
        led, led_answer, led_acc = _still_led(ctx, "Which way does it move?", answer)
        led_acc += accepted
        wrong = f"Which way does {s} go once it starts moving?"
        wrong_answer = "It never starts; it does not move at all."
    return {
        "rationale": rationale,
        "primary": (primary, answer, accepted),
        "rephrased": (rephrased, answer, accepted),
        "correctly_led": (led, led_answer, led_acc),
        "wrongly_led": (wrong, wrong_answer, _rejecting(accepted)),
    }


SPEED_ANSWER = {
    "accelerating": (
        "It speeds up (accelerates).",
        ["accelerating", "it accelerates", "it speeds up", "speeds up", "faster and faster"],
    ),
    "decelerating": (
        "It slows down (decelerates).",
        ["decelerating", "it decelerates", "it slows down", "slows down", "slower and slower"],
    ),
    "constant": (
        "It moves at a constant speed.",
        ["constant", "constant speed", "steady speed", "the same speed", "it stays the same"],
    ),
    "none": ("It does not move.", ["it does not move", "no movement", "none", "it stays still"]),
}
SPEED_WRONG = {
    "accelerating": (
        "Why does {s} slow down toward the end of the video?",
        "It does not; it speeds up.",
    ),
    "decelerating": (
        "Why does {s} speed up toward the end of the video?",
        "It does not; it slows down.",
    ),
    "constant": (
        "Why does {s} speed up toward the end of the video?",
        "It does not; its speed stays constant.",
    ),
    "none": (
        "Why does {s} slow down toward the end of the video?",
        "It does not; it does not move at all.",
    ),
}


def _speed(ctx: _Ctx) -> dict[str, Any]:
    tr, fps = ctx.subject, ctx.labels.fps
    angular = ctx.kind == "angle"
    if angular:
        v = np.abs(observe.wrap(np.diff(tr.angle), 360.0)) * fps
        unit = "degrees per second"
    else:
        v = np.hypot(np.diff(tr.x), np.diff(tr.y)) * fps
        unit = "pixels per second"
    k = max(1, len(v) // 3)
    first, last = float(v[:k].mean()), float(v[-k:].mean())
    t1, t2 = k / fps, (len(v) - k) / fps
    s, S = ctx.subj, _cap(ctx.subj)
    answer, accepted = SPEED_ANSWER[ctx.key]
    primary = f"How does the speed of {s} change over the video?"
    rephrased = f"Compare how fast {s} {'turns' if angular else 'travels'} near the start of the video with near the end: what happens to its speed?"
    if ctx.key == "none":
        rationale = f"{S} stays in place for the whole {_s(ctx.duration)} video, so it has no speed to change."
        led, led_answer, led_acc = _still_led(ctx, "How does its speed change?", answer)
        led_acc += accepted
    else:
        verdict = {
            "accelerating": "it speeds up",
            "decelerating": "it slows down",
            "constant": "its speed stays the same",
        }[ctx.key]
        ratio = last / first if first > 0 else float("inf")
        rationale = (
            f"{S} averages {first:.0f} {unit} in the first third of the video (0.0 s to "
            f"{_s(t1)}) and {last:.0f} {unit} in the last third ({_s(t2)} to "
            f"{_s(len(v) / fps)}); the later speed is {ratio:.2f} times the earlier: {verdict}."
        )
        dist = float(v[:k].sum() / fps)
        amount = f"{dist:.0f} degrees" if angular else f"about {dist:.0f} pixels"
        led = f"In the first {_s(t1)} of the video {s} {'turns' if angular else 'covers'} {amount}. How does its speed change after that?"
        led_answer, led_acc = answer, accepted
    wq, wa = SPEED_WRONG[ctx.key]
    return {
        "rationale": rationale,
        "primary": (primary, answer, accepted),
        "rephrased": (rephrased, answer, accepted),
        "correctly_led": (led, led_answer, led_acc),
        "wrongly_led": (wq.format(s=s), wa, _rejecting(accepted)),
    }


def _words(ctx: _Ctx) -> tuple[str, str, str, str]:
    """How the rationale names the query's events: by kind, or as the pattern declared them
    in ``labels.meta["event_words"]`` (a jump, a squat, a clap all read as ``raise``)."""
    if ctx.kind in EVENT_WORDS:
        return EVENT_WORDS[ctx.kind]
    words = ctx.labels.meta.get("event_words")
    if not words or len(words) != 4:
        raise ValueError(f"row {ctx.id!r}: events of kind {ctx.kind!r} need meta.event_words")
    return tuple(words)  # type: ignore[return-value]


def _events(ctx: _Ctx) -> list[float]:
    ev = observe.events(ctx.labels, np.arange(ctx.n)) or []
    return [float(a) for a, _ in ev]


def _event_text(ctx: _Ctx, starts: list[float]) -> str:
    verb, _, nouns, _ = _words(ctx)
    where = f" around {ctx.center}" if ctx.kind == "loop" else ""
    where += " on the floor" if ctx.kind == "bounce" else ""
    if not starts:
        return f"{_cap(ctx.subj)} never {verb}{where} in the {_s(ctx.duration)} video"
    if ctx.kind == "loop":
        done = "completing the loop" if len(starts) == 1 else "completing loops"
        return f"{_cap(ctx.subj)} goes around {ctx.center} {_times(len(starts))}, {done} at {_join([_s(t) for t in starts])}"
    return (
        f"{_cap(ctx.subj)} {verb}{where} {_times(len(starts))}, at {_join([_s(t) for t in starts])}"
    )


FREQ_ANSWER = {
    "increasing": (
        "The frequency increases: they come more and more often.",
        [
            "increasing",
            "it increases",
            "the frequency increases",
            "more and more often",
            "faster and faster",
            "more frequent",
        ],
    ),
    "decreasing": (
        "The frequency decreases: they come less and less often.",
        [
            "decreasing",
            "it decreases",
            "the frequency decreases",
            "less and less often",
            "slower and slower",
            "less frequent",
        ],
    ),
    "constant": (
        "The frequency stays constant: they come at a steady rate.",
        [
            "constant",
            "it stays constant",
            "the frequency stays the same",
            "steady",
            "at a steady rate",
            "regularly",
        ],
    ),
    "none": (
        "It never happens at all.",
        ["never", "it does not happen", "none", "not at all", "zero times"],
    ),
}


def _frequency(ctx: _Ctx) -> dict[str, Any]:
    starts = _events(ctx)
    verb, base, nouns, _ = _words(ctx)
    s, S = ctx.subj, _cap(ctx.subj)
    answer, accepted = FREQ_ANSWER[ctx.key]
    primary = f"How does the rate at which {s} {verb} change over the video?"
    rephrased = f"As the video goes on, what happens to how often {s} {verb}?"
    gaps = np.diff(starts)
    if starts and len(gaps):
        trend = {
            "increasing": "the gaps shrink, so they come more often",
            "decreasing": "the gaps grow, so they come less often",
            "constant": "the gaps stay about equal, so the rate is steady",
        }.get(ctx.key, "")
        rationale = (
            f"{_event_text(ctx, starts)}. The gaps between them are "
            f"{_join([f'{g:.1f}' for g in gaps])} s: {trend}."
        )
    else:
        rationale = f"{_event_text(ctx, starts)}, so there is no rate to change."
    if starts:
        led = f"{S} {verb} {_times(len(starts))} in the video. Do the {nouns} come more often, less often, or at a steady rate as it goes on?"
        led_answer, led_acc = answer, accepted
    else:
        led, led_answer, led_acc = _still_led(ctx, f"How often does it {base}?", answer)
        led_acc += accepted
    wrong = {
        "increasing": (
            f"Why do the {nouns} of {s} get further and further apart?",
            "They do not; they get closer together: the frequency increases.",
        ),
        "decreasing": (
            f"Why do the {nouns} of {s} come closer and closer together?",
            "They do not; they get further apart: the frequency decreases.",
        ),
        "constant": (
            f"Why do the {nouns} of {s} come faster and faster?",
            "They do not; they come at a steady rate.",
        ),
        "none": (
            f"How much time passes between the first two {nouns} of {s}?",
            f"None; {s} never {verb}.",
        ),
    }[ctx.key]
    return {
        "rationale": rationale,
        "primary": (primary, answer, accepted),
        "rephrased": (rephrased, answer, accepted),
        "correctly_led": (led, led_answer, led_acc),
        "wrongly_led": (*wrong, _rejecting(accepted)),
    }


def _open_set(
    rationale: str,
    primary: str,
    rephrased: str,
    led: str,
    answer: str,
    accepted: list[str],
    wrong: str,
    wrong_answer: str,
) -> dict[str, Any]:
    """The four open-ended questions of a set: three share the answer, the wrongly-led one
    must reject its premise."""
    return {
        "rationale": rationale,
        "primary": (primary, answer, accepted),
        "rephrased": (rephrased, answer, accepted),
        "correctly_led": (led, answer, accepted),
        "wrongly_led": (wrong, wrong_answer, _rejecting(accepted)),
    }


def _count(ctx: _Ctx) -> dict[str, Any]:
    starts = _events(ctx)
    c = int(ctx.key)
    if len(starts) != c:
        raise ValueError(f"row {ctx.id!r}: {len(starts)} events disagree with answer {c}")
    verb, base, nouns, noun = _words(ctx)
    s, S = ctx.subj, _cap(ctx.subj)
    if ctx.kind == "loop":
        primary = f"How many full loops does {s} complete around {ctx.center}?"
        rephrased = f"Counting from the first frame to the last, how many complete laps around {ctx.center} does {s} make?"
    elif ctx.kind == "bounce":
        primary = f"How many times does {s} hit the floor over the whole video?"
        rephrased = f"Count the bounces of {s}: how many are there from start to end?"
    else:
        primary = f"How many times does {s} {base} over the whole video?"
        rephrased = f"Count the {nouns} of {s}: how many are there from start to end?"
    answer = f"{c}."
    accepted = [str(c), _num(c), f"{c} times", _times(c), f"{c} {nouns if c != 1 else noun}"]
    rationale = f"{_event_text(ctx, starts)}: {c} in all."
    if c:
        first = "completes its first loop" if ctx.kind == "loop" else f"{verb} for the first time"
        led = f"{S} {first} at {_s(starts[0])}. How many {nouns} does it make in total?"
    else:
        led = f"The video lasts {_s(ctx.duration)}. How many {nouns} does {s} make?"
    wrong_n = c + 1
    wrong = f"Why does {s} {'complete ' + str(wrong_n) + ' loops' if ctx.kind == 'loop' else base + ' ' + _times(wrong_n)}?"
    wrong_answer = f"It does not; it makes {c} {nouns if c != 1 else noun}."
    return _open_set(rationale, primary, rephrased, led, answer, accepted, wrong, wrong_answer)


def _order(ctx: _Ctx) -> dict[str, Any]:
    lab, kind = ctx.labels, ctx.kind
    idx = np.arange(ctx.n)
    onsets: dict[str, float | None] = {}
    for name in ctx.objects:
        k = observe.onset(lab, idx, lab.track(name), kind)
        onsets[name] = None if k is None else float(k / lab.fps)
    nouns = [ctx.noun(o) for o in ctx.objects]
    action, act_base = (
        ("lights up", "light up") if kind == "lit" else ("starts moving", "start moving")
    )
    listed = _join(nouns)
    both = len(nouns) == 2
    primary = f"Of {listed}, which {action} first?"
    rephrased = (
        f"Which of {listed} is the first to turn on?"
        if kind == "lit"
        else f"Which of {listed} is the first to set off?"
    )
    never = "never lights up" if kind == "lit" else "never moves"
    parts = [
        f"{ctx.noun(o)} {action} at {_s(t)}" if t is not None else f"{ctx.noun(o)} {never}"
        for o, t in onsets.items()
    ]
    started = {o: t for o, t in onsets.items() if t is not None}
    if ctx.key == "none":
        answer = "Neither of them." if both else "None of them."
        accepted = ["neither", "none", "none of them", "neither of them", "no object"]
        rationale = f"{_cap(_join(parts))} during the {_s(ctx.duration)} video."
        led = f"The video lasts {_s(ctx.duration)}. Which object {action} first?"
        wrong = f"Why does {nouns[0]} {act_base} before the {'other' if both else 'others'}?"
        verb = "lights up" if kind == "lit" else "moves"
        wrong_answer = f"It does not; {'neither' if both else 'none'} of them {verb}."
    elif ctx.key == "same":
        t0 = min(started.values())
        answer = "Both at the same time." if both else "All at the same time."
        accepted = [
            "at the same time",
            "same time",
            "simultaneously",
            "both" if both else "all",
            "together",
        ]
        rationale = f"{_cap(_join(parts))}: they {act_base} together."
        led = f"{_cap(nouns[0])} {action} at {_s(t0)}. Which object {action} first?"
        wrong = f"Why does {nouns[0]} {act_base} before {nouns[1]}?"
        wrong_answer = f"It does not; they {act_base} at the same time."
    else:
        first = ctx.key
        fnoun = ctx.noun(first)
        answer = f"{_cap(fnoun)}."
        accepted = [fnoun, fnoun.removeprefix("the ")]
        other = next(o for o in ctx.objects if o != first)
        later = [t for o, t in started.items() if o != first]
        lead = f", {min(later) - started[first]:.1f} s before any other" if later else ""
        rationale = f"{_cap(_join(parts))}, so {fnoun} is first{lead}."
        if onsets[other] is not None:
            led = f"{_cap(ctx.noun(other))} {action} at {_s(onsets[other])}, after another object. Which object {action} first?"
        else:
            led = f"{_cap(ctx.noun(other))} {never}. Which object {action} first?"
        rest = fnoun if both else "the others"
        wrong = f"Why does {ctx.noun(other)} {act_base} before {rest}?"
        wrong_answer = f"It does not; {fnoun} {action} first, at {_s(started[first])}."
    return _open_set(rationale, primary, rephrased, led, answer, accepted, wrong, wrong_answer)


def _trajectory(ctx: _Ctx) -> dict[str, Any]:
    tr = ctx.subject
    s, S = ctx.subj, _cap(ctx.subj)
    primary = f"What shape does the path of {s} trace over the video?"
    rephrased = f"If you drew a line following {s} from start to finish, what figure would it make?"
    end_t = (ctx.n - 1) / ctx.labels.fps
    if ctx.key == "none":
        spread = float(max(np.ptp(tr.x), np.ptp(tr.y)))
        answer = "It does not draw a shape; it barely moves."
        accepted = ["none", "no shape", "not drawing", "it does not move", "not drawing at all"]
        where = (
            "never leaves its starting point"
            if spread < 1
            else f"stays within {spread:.0f} pixels of where it starts"
        )
        rationale = (
            f"{S} {where} for the whole {_s(ctx.duration)} video, so its path draws no shape."
        )
        led, led_answer, led_acc = _still_led(ctx, "What shape does its path trace?", answer)
        led_acc += accepted
    else:
        name = SHAPE_NAMES[ctx.key]
        answer = f"A {name}." if not name.startswith(("a", "i")) else f"An {name}."
        accepted = SHAPE_ACCEPTED[ctx.key]
        corners, crossings = _path_corners(ctx.labels, tr)
        expect = {"triangle": 3, "square": 4, "trapezoid": 4, "diamond": 4, "star": 5}.get(ctx.key)
        gap = float(np.hypot(tr.x[-1] - tr.x[0], tr.y[-1] - tr.y[0]))
        closes = (
            "ends where it started" if gap < 1 else f"ends {gap:.0f} pixels from where it started"
        )
        if expect and len(corners) == expect:
            times = _join([_s(t) for t in corners])
            detail = f"its path has {_num(expect)} sharp corners, reached at {times}"
        elif ctx.key == "circle" and not corners:
            detail = "its path curves smoothly, with no sharp corner"
        elif ctx.key == "infinity" and crossings == 1:
            detail = "its path crosses itself once, in the middle"
        else:  # the simplified outline does not show the features plainly: claim less
            detail = "it traces one closed outline"
        extra = {
            "square": "; the sides run horizontally and vertically",
            "diamond": "; the sides run diagonally",
            "trapezoid": "; exactly one pair of sides is parallel",
            "star": "; its strokes cross each other",
        }.get(ctx.key, "")
        shape = answer[0].lower() + answer[1:-1]
        rationale = (
            f"{S} moves for {_s(end_t)}: {detail}{extra}, and it {closes}. The path is {shape}."
        )
        led = f"{S} ends where it started. What shape does its path trace?"
        led_answer, led_acc = answer, accepted
    wrong_shape = WRONG_SHAPE[ctx.key]
    wrong = f"Why does {s} trace a {wrong_shape}?"
    low = answer[0].lower() + answer[1:]
    wrong_answer = (
        "It does not; it barely moves and draws no shape."
        if ctx.key == "none"
        else f"It does not; it traces {low}"
    )
    return {
        "rationale": rationale,
        "primary": (primary, answer, accepted),
        "rephrased": (rephrased, answer, accepted),
        "correctly_led": (led, led_answer, led_acc),
        "wrongly_led": (wrong, wrong_answer, _rejecting(accepted)),
    }


WRITERS = {
    "rotation": _rotation,
    "direction": _direction,
    "speed": _speed,
    "frequency": _frequency,
    "count": _count,
    "order": _order,
    "trajectory": _trajectory,
}


def _edit_ops(edits: Any) -> list[str]:
    """Every op name in a row's edit records, nested concat/composite parts included."""
    out: list[str] = []
    for e in edits or []:
        if isinstance(e, dict):
            if isinstance(e.get("op"), str):
                out.append(e["op"])
            for part in e.get("parts") or []:
                out.extend(_edit_ops(part))
            if isinstance(e.get("with"), str):
                out.append(e["with"])
    return out


def complexity_factors(row: dict[str, Any]) -> dict[str, str]:
    """Video-TT's complexity factors (Sec. 3.1) that the clip really has, each with evidence.

    Computed from the states and the edit records: movement speed (peak speed above
    ``FAST`` canvas diagonals per second), spatial-temporal arrangement (an order question, or
    three or more visible objects), illusions (a turn near the aliasing limit between two of
    the 16 samples, or a symmetric shape that turns), unclear content (misleading text on the
    subject, or distractors), technical editing (reverse, speed, mirror, rotate, zoom, crop)
    and narrative editing (concatenated or composited clips).
    """
    out: dict[str, str] = {}
    ops = _edit_ops(row.get("edits"))
    if has_states(row):
        lab = Labels.from_json(row["labels"])
        q = lab.query
        subj = lab.subject
        text = [t for t in lab.tracks if t.text and t.name in q.objects]
        distractors = [t for t in lab.tracks if t.role == "distractor"]
        reasons = [f"{describe(t.name, lab)} carries the misleading word {t.text!r}" for t in text]
        if distractors:
            reasons.append(f"{len(distractors)} distractor object(s) share the frame")
        if reasons:
            out["unclear_content"] = "; ".join(reasons)
        peak, at, who = _peak_speed(lab, q.objects)
        if peak > FAST:
            out["movement_speed"] = (
                f"{describe(who, lab)} peaks at {peak:.2f} frame diagonals per second at {_s(at)}"
            )
        shown = [t for t in lab.tracks if t.role != "anchor" and t.visible.any()]
        if q.fact == "order":
            out["spatial_temporal_arrangement"] = (
                f"the answer depends on when each of {len(q.objects)} objects starts"
            )
        elif len(shown) >= 3:
            out["spatial_temporal_arrangement"] = f"{len(shown)} objects are on screen"
        if q.fact == "rotation" or q.kind in ("orbit", "loop"):
            idx = observe.uniform_indices(lab.num_frames, SAMPLING_FRAMES)
            steps = observe.turn_steps(lab, idx)
            worst = float(np.abs(steps).max()) if len(steps) else 0.0
            order = observe.SYMMETRY.get(subj.shape, 1)
            turns = bool(np.any(np.abs(observe.turn_steps(lab, np.arange(lab.num_frames))) > 0))
            why = []
            if worst > ALIASING_TURN:
                why.append(
                    f"it turns up to {worst:.0f} degrees between two of {SAMPLING_FRAMES} "
                    "uniform samples, near the wagon-wheel limit"
                )
            if q.kind == "spin" and order >= 2 and turns:
                why.append(
                    f"the {subj.shape.replace('_', ' ')} looks the same every "
                    f"{360 // order} degrees"
                )
            if why:
                out["illusions"] = "; ".join(why)
    tech = [o for o in ops if o in TECHNICAL_OPS]
    if tech:
        out["technical_editing"] = "edited with " + ", ".join(dict.fromkeys(tech))
    narr = [o for o in ops if o in NARRATIVE_OPS]
    if narr:
        out["narrative_editing"] = "assembled with " + ", ".join(dict.fromkeys(narr))
    return {k: out[k] for k in FACTORS if k in out}


def _multiple_choice(ctx: _Ctx) -> dict[str, Any]:
    row = ctx.row
    options = [str(o) for o in row["options"]]
    i = int(row["answer"])
    if not 0 <= i < len(options):
        raise ValueError(f"row {ctx.id!r}: answer index {i} out of range")
    letter = chr(ord("A") + i)
    return {
        "qid": f"{ctx.id}/multiple_choice",
        "kind": "multiple_choice",
        "question": str(row["question"]),
        "options": options,
        "answer_index": i,
        "answer": options[i],
        "accepted": _uniq([letter, f"{letter}. {options[i]}", options[i].rstrip(".")]),
    }


def question_set(row: dict[str, Any]) -> dict[str, Any]:
    """The five Video-TT questions of one row, its rationale, complexity factors and 16-frame
    sampling check (without ``video``, which depends on where the set is written).

    Raises ``ValueError`` for a row without per-frame states, or whose states disagree with
    its answer key.
    """
    if not has_states(row):
        raise ValueError(
            f"row {row.get('id', '?')!r}: no per-frame states (labels.tracks); a Video-TT "
            "question set needs them"
        )
    ctx = _Ctx(row)
    parts = WRITERS[ctx.fact](ctx)
    rationale = parts["rationale"]
    questions = []
    for kind in KINDS[:-1]:
        q = _q(ctx, kind, *parts[kind])
        q["rationale"] = rationale
        questions.append(q)
    questions.append(_multiple_choice(ctx))
    idx = observe.uniform_indices(ctx.n, SAMPLING_FRAMES)
    sampled = observe.answer(ctx.labels, idx)
    factors = complexity_factors(row)
    return {
        "video_id": ctx.id,
        "task": row.get("task"),
        "generator": row.get("generator"),
        "answer_key": ctx.key,
        "duration_s": round(ctx.duration, 3),
        "rationale": rationale,
        "complexity_factors": list(factors),
        "complexity_evidence": factors,
        "sampling_check": {
            "uniform_frames": SAMPLING_FRAMES,
            "answer_from_samples": None if sampled is None else answer_key(ctx.fact, sampled),
            "answerable": sampled is not None and answer_key(ctx.fact, sampled) == ctx.key,
        },
        "questions": questions,
    }


def export_videott(
    rows: Iterable[dict[str, Any]],
    out_dir: str | os.PathLike[str],
    dataset_dir: str | os.PathLike[str] | None = None,
) -> Path:
    """Write ``out_dir/videott.json`` (atomically) for every row with per-frame states.

    ``dataset_dir`` is the folder the rows' ``video`` paths are relative to (the manifest's
    folder); by default ``out_dir``'s parent, so entries reference ``../videos/{id}.mp4``.
    Rows without states are skipped. Returns the written path.
    """
    out = Path(out_dir)
    base = Path(dataset_dir) if dataset_dir is not None else out.parent
    entries = []
    seen: set[str] = set()
    for row in rows:
        if not has_states(row):
            continue
        entry = question_set(row)
        if entry["video_id"] in seen:
            raise ValueError(f"row {entry['video_id']!r}: duplicated id")
        seen.add(entry["video_id"])
        rel = os.path.relpath(os.path.abspath(base / row["video"]), os.path.abspath(out))
        entries.append({"video_id": entry["video_id"], "video": Path(rel).as_posix(), **entry})
    path = out / FILE_NAME
    write_json(path, entries)
    return path


ENTRY_FIELDS = {
    "video_id": str,
    "video": str,
    "complexity_factors": list,
    "questions": list,
}
QUESTION_FIELDS = {"qid": str, "kind": str, "question": str, "answer": str, "accepted": list}


def _check_entry(entry: Any, where: str, base: Path, check_videos: bool) -> None:
    if not isinstance(entry, dict):
        raise ValueError(f"{where}: expected an object, got {type(entry).__name__}")
    for k, typ in ENTRY_FIELDS.items():
        if not isinstance(entry.get(k), typ):
            raise ValueError(f"{where}: field {k!r} must be a {typ.__name__}, got {entry.get(k)!r}")
    vid = entry["video_id"]
    bad = [f for f in entry["complexity_factors"] if f not in FACTORS]
    if bad:
        raise ValueError(f"{where}: unknown complexity factor(s) {bad}; known: {FACTORS}")
    kinds = [q.get("kind") if isinstance(q, dict) else None for q in entry["questions"]]
    if kinds != list(KINDS):
        raise ValueError(f"{where}: questions must be {list(KINDS)} in order, got {kinds}")
    for q in entry["questions"]:
        qw = f"{where}: question {q['kind']!r}"
        for k, typ in QUESTION_FIELDS.items():
            if not isinstance(q.get(k), typ) or (typ is str and not q[k]):
                raise ValueError(f"{qw}: field {k!r} must be a non-empty {typ.__name__}")
        if q["qid"] != f"{vid}/{q['kind']}":
            raise ValueError(f"{qw}: qid {q['qid']!r} must be {vid + '/' + q['kind']!r}")
        if not q["accepted"] or not all(isinstance(a, str) for a in q["accepted"]):
            raise ValueError(f"{qw}: 'accepted' must be a non-empty list of strings")
        if q["kind"] == "multiple_choice":
            opts, i = q.get("options"), q.get("answer_index")
            if not isinstance(opts, list) or len(opts) < 2:
                raise ValueError(f"{qw}: 'options' must list at least two strings")
            if isinstance(i, bool) or not isinstance(i, int) or not 0 <= i < len(opts):
                raise ValueError(f"{qw}: 'answer_index' {i!r} is not an index into options")
            if opts[i] != q["answer"]:
                raise ValueError(f"{qw}: answer {q['answer']!r} is not options[{i}]")
    if check_videos and not (base / entry["video"]).is_file():
        raise FileNotFoundError(f"{where}: video {entry['video']!r} not found under {base}")


def read_videott(path: str | os.PathLike[str], check_videos: bool = False) -> list[dict[str, Any]]:
    """Read a ``videott.json`` back, validating every entry; errors name the entry and field.

    With ``check_videos`` every referenced video must exist (paths are relative to the file).
    """
    path = Path(path)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise ValueError(f"{path}: not valid JSON: {exc.msg} (line {exc.lineno})") from exc
    if not isinstance(data, list):
        raise ValueError(f"{path}: expected a JSON list of question sets")
    seen: set[str] = set()
    for i, entry in enumerate(data):
        vid = entry.get("video_id") if isinstance(entry, dict) else None
        where = f"{path}: entry {i}" + (f" ({vid})" if vid else "")
        _check_entry(entry, where, path.parent, check_videos)
        if vid in seen:
            raise ValueError(f"{where}: video_id {vid!r} is duplicated")
        seen.add(vid)
    return data

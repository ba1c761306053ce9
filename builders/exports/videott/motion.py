"""Video-TT question sets for motion facts: rotation, direction and speed."""

from __future__ import annotations

from typing import Any

import numpy as np

from tempogen import observe
from tempogen.builders.exports.videott.text import (
    APPROACH_WORDS,
    DIRECTION_WORDS,
    ROTATION_WORDS,
    cap,
    direction_segments,
    open_questions,
    rejecting,
    rotation_segments,
    secs,
    seq_accepted,
)
from tempogen.builders.exports.videott.writers import Ctx, register_writer, still_led
from tempogen.facts.kernels import OPPOSITE


@register_writer("rotation")
def rotation_set(ctx: Ctx) -> dict[str, Any]:
    segs = rotation_segments(ctx.labels)
    toks = [] if ctx.key == "none" else ctx.key.split("-")
    if [s["token"] for s in segs] != toks:
        raise ValueError(f"row {ctx.id!r}: rotation runs {segs} disagree with answer {ctx.key!r}")
    orbit = ctx.kind in ("orbit", "loop")
    w = {k: v[0] for k, v in ROTATION_WORDS.items()}
    s, S = ctx.subj, cap(ctx.subj)
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
            f"{w[g['token']]} for {secs(g['duration'])} ({secs(g['start'])} to {secs(g['end'])}, "
            f"about {g['amount']:.0f} degrees)"
            for g in segs
        ]
        rationale = f"{S} {verb} " + ", then ".join(parts) + "."
        if len(toks) == 1:
            answer = f"{cap(w[toks[0]])} the whole time."
            rationale += f" It never reverses, so the answer is {w[toks[0]]} throughout."
        else:
            answer = f"{cap(w[toks[0]])}, then {w[toks[1]]}."
            rationale += f" It reverses once, at {secs(segs[1]['start'])}."
        accepted = seq_accepted(toks, ROTATION_WORDS)
        if len(toks) == 1:
            accepted += [f"{x} throughout" for x in ROTATION_WORDS[toks[0]][:2]]
    else:
        total = float(np.abs(observe.turn_steps(ctx.labels, np.arange(ctx.n))).sum())
        what = "its position around " + ctx.center if orbit else "its orientation"
        rationale = (
            f"{S} keeps {what} for the whole {secs(ctx.duration)} video: it turns by "
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
        led_answer = f"{cap(w[toks[1]])}."
        led_acc = list(ROTATION_WORDS[toks[1]])
    elif len(toks) == 1:
        led = f"{S} is {'going' if orbit else 'turning'} {w[toks[0]]} at the start of the video. Which way is it {'going' if orbit else 'turning'} at the end?"
        led_answer = f"{cap(w[toks[0]])}; it keeps {'going' if orbit else 'turning'} {w[toks[0]]} the whole time."
        led_acc = list(ROTATION_WORDS[toks[0]])
    else:
        led, led_answer, led_acc = still_led(ctx, "Does it rotate, and if so which way?", answer)
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
    return open_questions(
        rationale, primary, rephrased, answer, accepted, (led, led_answer, led_acc),
        (wrong, wrong_answer),
    )  # fmt: skip


@register_writer("direction")
def direction_set(ctx: Ctx) -> dict[str, Any]:
    segs = direction_segments(ctx.labels, ctx.subject)
    toks = [] if ctx.key == "none" else ctx.key.split("-")
    if [g["token"] for g in segs] != toks:
        raise ValueError(f"row {ctx.id!r}: direction runs disagree with answer {ctx.key!r}")
    s, S = ctx.subj, cap(ctx.subj)
    primary = f"Which way does {s} move over the video?"
    rephrased = (
        f"In which direction or directions does {s} travel across the frame, from start to finish?"
    )
    if toks:
        parts = [
            f"{g['token']} for {secs(g['duration'])} ({secs(g['start'])} to {secs(g['end'])}, "
            f"about {g['amount']:.0f} pixels)"
            for g in segs
        ]
        rationale = f"{S} moves " + ", then ".join(parts) + "."
        if len(toks) == 2:
            rationale += f" It changes direction at {secs(segs[1]['start'])}."
            answer = f"{cap(toks[0])}, then {toks[1]}."
        else:
            answer = f"{cap(toks[0])}."
        accepted = seq_accepted(toks, DIRECTION_WORDS)
    else:
        dist = float(np.hypot(np.diff(ctx.subject.x), np.diff(ctx.subject.y)).sum())
        rationale = (
            f"{S} stays in the same spot for the whole {secs(ctx.duration)} video (it covers "
            f"{dist:.0f} pixels in all): it does not move."
        )
        answer = "It does not move."
        accepted = ["it does not move", "no movement", "none", "it stays still", "not at all"]
    if len(toks) == 2:
        led = f"{S} first moves {toks[0]}. Which way does it move after that?"
        led_answer, led_acc = f"{cap(toks[1])}.", list(DIRECTION_WORDS[toks[1]])
        wrong = f"Why does {s} move {toks[1]} first and {toks[0]} afterwards?"
        wrong_answer = f"It does not; it moves {toks[0]} first, then {toks[1]}."
    elif len(toks) == 1:
        led = (
            f"{S} is moving {toks[0]} at the start of the video. Which way is it moving at the end?"
        )
        led_answer = f"{cap(toks[0])}; it moves {toks[0]} the whole time."
        led_acc = list(DIRECTION_WORDS[toks[0]])
        wrong = f"Why does {s} move {OPPOSITE[toks[0]]}?"
        wrong_answer = f"It does not; it moves {toks[0]}."
    else:
        led, led_answer, led_acc = still_led(ctx, "Which way does it move?", answer)
        led_acc += accepted
        wrong = f"Which way does {s} go once it starts moving?"
        wrong_answer = "It never starts; it does not move at all."
    return open_questions(
        rationale, primary, rephrased, answer, accepted, (led, led_answer, led_acc),
        (wrong, wrong_answer),
    )  # fmt: skip


def depth_runs(ctx: Ctx) -> list[tuple[str, float, float, float]]:
    """Runs of the subject's apparent size, every frame: (token, start s, end s, size ratio)."""
    scale = ctx.subject.scale
    turns = [0]
    toks = list(observe.approach(ctx.labels, np.arange(ctx.n), ctx.subject) or ())
    if len(toks) == 2:  # the turning point: the largest (towards-away) or smallest size
        turns.append(int(np.argmax(scale) if toks[0] == "towards" else np.argmin(scale)))
    turns.append(ctx.n - 1)
    fps = ctx.labels.fps
    return [
        (tok, turns[i] / fps, turns[i + 1] / fps, float(scale[turns[i + 1]] / scale[turns[i]]))
        for i, tok in enumerate(toks)
    ]


@register_writer("approach")
def approach_set(ctx: Ctx) -> dict[str, Any]:
    """Towards the camera or away from it, told by how the subject's size on screen changes."""
    toks = [] if ctx.key == "none" else ctx.key.split("-")
    runs = depth_runs(ctx)
    if [r[0] for r in runs] != toks:
        raise ValueError(f"row {ctx.id!r}: size runs disagree with answer {ctx.key!r}")
    s, S = ctx.subj, cap(ctx.subj)
    words = {"towards": "towards the camera", "away": "away from the camera"}
    primary = f"Does {s} move towards the camera or away from it?"
    rephrased = f"Over the video, does {s} come closer to the camera, go farther away, or neither?"
    if toks:
        parts = [
            f"{words[t]} from {secs(a)} to {secs(b)} (looking {r:.2f} times as big by the end)"
            for t, a, b, r in runs
        ]
        rationale = f"{S} moves " + ", then ".join(parts) + "."
        answer = cap(" then ".join(words[t] for t in toks)) + "."
        accepted = seq_accepted(toks, APPROACH_WORDS)
    else:
        ratio = float(np.exp(np.ptp(np.log(ctx.subject.scale))))
        rationale = (
            f"{S} stays the same size on screen for the whole {secs(ctx.duration)} video (within "
            f"{100 * (ratio - 1):.0f}%): it neither approaches nor recedes."
        )
        answer = "Neither; it stays at the same distance."
        accepted = ["neither", "none", "it stays at the same distance", "it does not move"]
    if len(toks) == 2:
        led = f"{S} first moves {words[toks[0]]}. Which way does it move after that?"
        led_answer, led_acc = f"{cap(words[toks[1]])}.", list(APPROACH_WORDS[toks[1]])
        wrong = f"Why does {s} move {words[toks[1]]} first and {words[toks[0]]} afterwards?"
        wrong_answer = f"It does not; it moves {words[toks[0]]} first, then {words[toks[1]]}."
    elif len(toks) == 1:
        led = f"{S} is moving {words[toks[0]]} at the start. Which way is it moving at the end?"
        led_answer = f"{cap(words[toks[0]])}; it keeps going that way."
        led_acc = list(APPROACH_WORDS[toks[0]])
        wrong = f"Why does {s} move {words[OPPOSITE[toks[0]]]}?"
        wrong_answer = f"It does not; it moves {words[toks[0]]}."
    else:
        led, led_answer, led_acc = still_led(ctx, "Does it come closer or go away?", answer)
        led_acc += accepted
        wrong = f"Why does {s} walk towards the camera?"
        wrong_answer = "It does not; it stays at the same distance."
    return open_questions(
        rationale, primary, rephrased, answer, accepted, (led, led_answer, led_acc),
        (wrong, wrong_answer),
    )  # fmt: skip


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


@register_writer("speed")
def speed_set(ctx: Ctx) -> dict[str, Any]:
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
    s, S = ctx.subj, cap(ctx.subj)
    answer, accepted = SPEED_ANSWER[ctx.key]
    primary = f"How does the speed of {s} change over the video?"
    rephrased = f"Compare how fast {s} {'turns' if angular else 'travels'} near the start of the video with near the end: what happens to its speed?"
    if ctx.key == "none":
        rationale = f"{S} stays in place for the whole {secs(ctx.duration)} video, so it has no speed to change."
        led, led_answer, led_acc = still_led(ctx, "How does its speed change?", answer)
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
            f"{secs(t1)}) and {last:.0f} {unit} in the last third ({secs(t2)} to "
            f"{secs(len(v) / fps)}); the later speed is {ratio:.2f} times the earlier: {verdict}."
        )
        dist = float(v[:k].sum() / fps)
        amount = f"{dist:.0f} degrees" if angular else f"about {dist:.0f} pixels"
        led = f"In the first {secs(t1)} of the video {s} {'turns' if angular else 'covers'} {amount}. How does its speed change after that?"
        led_answer, led_acc = answer, accepted
    wq, wa = SPEED_WRONG[ctx.key]
    return {
        "rationale": rationale,
        "primary": (primary, answer, accepted),
        "rephrased": (rephrased, answer, accepted),
        "correctly_led": (led, led_answer, led_acc),
        "wrongly_led": (wq.format(s=s), wa, rejecting(accepted)),
    }

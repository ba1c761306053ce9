"""Video-TT question sets for event facts: frequency, count, order and the shape a path draws."""

from __future__ import annotations

from typing import Any

import numpy as np

from tempogen import observe
from tempogen.builders.exports.videott.text import (
    EVENT_WORDS,
    SHAPE_ACCEPTED,
    SHAPE_NAMES,
    WRONG_SHAPE,
    cap,
    join_words,
    number_word,
    open_questions,
    path_corners,
    rejecting,
    secs,
    times_word,
)
from tempogen.builders.exports.videott.writers import Ctx, register_writer, still_led
from tempogen.facts import NEXT_ANCHOR, NEXT_TEXT, More, gesture_words, get_fact


def _words(ctx: Ctx) -> tuple[str, str, str, str]:
    """How the rationale names the query's events: by kind, or as the pattern declared them
    in ``labels.meta["event_words"]`` (a jump, a squat, a clap all read as ``raise``)."""
    if ctx.kind in EVENT_WORDS:
        return EVENT_WORDS[ctx.kind]
    words = ctx.labels.meta.get("event_words")
    if not words or len(words) != 4:
        raise ValueError(f"row {ctx.id!r}: events of kind {ctx.kind!r} need meta.event_words")
    return tuple(words)  # type: ignore[return-value]


def _events(ctx: Ctx) -> list[float]:
    ev = observe.events(ctx.labels, np.arange(ctx.n)) or []
    return [float(a) for a, _ in ev]


def _event_text(ctx: Ctx, starts: list[float]) -> str:
    verb, _, nouns, _ = _words(ctx)
    where = f" around {ctx.center}" if ctx.kind == "loop" else ""
    where += " on the floor" if ctx.kind == "bounce" else ""
    if not starts:
        return f"{cap(ctx.subj)} never {verb}{where} in the {secs(ctx.duration)} video"
    if ctx.kind == "loop":
        done = "completing the loop" if len(starts) == 1 else "completing loops"
        return f"{cap(ctx.subj)} goes around {ctx.center} {times_word(len(starts))}, {done} at {join_words([secs(t) for t in starts])}"
    return f"{cap(ctx.subj)} {verb}{where} {times_word(len(starts))}, at {join_words([secs(t) for t in starts])}"


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


@register_writer("frequency")
def frequency_set(ctx: Ctx) -> dict[str, Any]:
    starts = _events(ctx)
    verb, base, nouns, _ = _words(ctx)
    s, S = ctx.subj, cap(ctx.subj)
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
            f"{join_words([f'{g:.1f}' for g in gaps])} s: {trend}."
        )
    else:
        rationale = f"{_event_text(ctx, starts)}, so there is no rate to change."
    if starts:
        led = f"{S} {verb} {times_word(len(starts))} in the video. Do the {nouns} come more often, less often, or at a steady rate as it goes on?"
        led_answer, led_acc = answer, accepted
    else:
        led, led_answer, led_acc = still_led(ctx, f"How often does it {base}?", answer)
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
        "wrongly_led": (*wrong, rejecting(accepted)),
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
    return open_questions(
        rationale, primary, rephrased, answer, accepted, (led, answer, accepted),
        (wrong, wrong_answer),
    )  # fmt: skip


@register_writer("count")
def count_set(ctx: Ctx) -> dict[str, Any]:
    starts = _events(ctx)
    c = int(ctx.key)
    if len(starts) != c:
        raise ValueError(f"row {ctx.id!r}: {len(starts)} events disagree with answer {c}")
    verb, base, nouns, noun = _words(ctx)
    s, S = ctx.subj, cap(ctx.subj)
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
    accepted = [
        str(c),
        number_word(c),
        f"{c} times",
        times_word(c),
        f"{c} {nouns if c != 1 else noun}",
    ]
    rationale = f"{_event_text(ctx, starts)}: {c} in all."
    if c:
        first = "completes its first loop" if ctx.kind == "loop" else f"{verb} for the first time"
        led = f"{S} {first} at {secs(starts[0])}. How many {nouns} does it make in total?"
    else:
        led = f"The video lasts {secs(ctx.duration)}. How many {nouns} does {s} make?"
    wrong_n = c + 1
    wrong = f"Why does {s} {'complete ' + str(wrong_n) + ' loops' if ctx.kind == 'loop' else base + ' ' + times_word(wrong_n)}?"
    wrong_answer = f"It does not; it makes {c} {nouns if c != 1 else noun}."
    return _open_set(rationale, primary, rephrased, led, answer, accepted, wrong, wrong_answer)


@register_writer("order")
def order_set(ctx: Ctx) -> dict[str, Any]:
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
    listed = join_words(nouns)
    both = len(nouns) == 2
    primary = f"Of {listed}, which {action} first?"
    rephrased = (
        f"Which of {listed} is the first to turn on?"
        if kind == "lit"
        else f"Which of {listed} is the first to set off?"
    )
    never = "never lights up" if kind == "lit" else "never moves"
    parts = [
        f"{ctx.noun(o)} {action} at {secs(t)}" if t is not None else f"{ctx.noun(o)} {never}"
        for o, t in onsets.items()
    ]
    started = {o: t for o, t in onsets.items() if t is not None}
    if ctx.key == "none":
        answer = "Neither of them." if both else "None of them."
        accepted = ["neither", "none", "none of them", "neither of them", "no object"]
        rationale = f"{cap(join_words(parts))} during the {secs(ctx.duration)} video."
        led = f"The video lasts {secs(ctx.duration)}. Which object {action} first?"
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
        rationale = f"{cap(join_words(parts))}: they {act_base} together."
        led = f"{cap(nouns[0])} {action} at {secs(t0)}. Which object {action} first?"
        wrong = f"Why does {nouns[0]} {act_base} before {nouns[1]}?"
        wrong_answer = f"It does not; they {act_base} at the same time."
    else:
        first = ctx.key
        fnoun = ctx.noun(first)
        answer = f"{cap(fnoun)}."
        accepted = [fnoun, fnoun.removeprefix("the ")]
        other = next(o for o in ctx.objects if o != first)
        later = [t for o, t in started.items() if o != first]
        lead = f", {min(later) - started[first]:.1f} s before any other" if later else ""
        rationale = f"{cap(join_words(parts))}, so {fnoun} is first{lead}."
        if (later_onset := onsets[other]) is not None:
            led = f"{cap(ctx.noun(other))} {action} at {secs(later_onset)}, after another object. Which object {action} first?"
        else:
            led = f"{cap(ctx.noun(other))} {never}. Which object {action} first?"
        rest = fnoun if both else "the others"
        wrong = f"Why does {ctx.noun(other)} {act_base} before {rest}?"
        wrong_answer = f"It does not; {fnoun} {action} first, at {secs(started[first])}."
    return _open_set(rationale, primary, rephrased, led, answer, accepted, wrong, wrong_answer)


@register_writer("more")
def more_set(ctx: Ctx) -> dict[str, Any]:
    """Who of several people repeats the action more: each one's events, then the winner."""
    at = np.arange(ctx.n)
    more = get_fact("more")
    assert isinstance(more, More)  # the built-in registered under that name
    per = {
        name: [float(a) for a, _ in observe.events(one, at) or []]
        for name, one in more.actors(ctx.labels).items()
    }
    top = per[ctx.key]
    if any(len(t) >= len(top) for n, t in per.items() if n != ctx.key):
        raise ValueError(f"row {ctx.id!r}: event counts {per} disagree with answer {ctx.key!r}")
    verb, base, nouns, _ = _words(ctx)
    w = ctx.noun(ctx.key)
    other = next(n for n in per if n != ctx.key)
    listed = join_words([ctx.noun(n) for n in per])
    primary = f"Of {listed}, who {verb} more times?"
    rephrased = f"Count the {nouns} of {listed}: which of them makes more?"
    answer = f"{cap(w)}."
    accepted = [w, w.removeprefix("the ")]
    told = [
        f"{ctx.noun(n)} {verb} {times_word(len(t))}"
        + (f", at {join_words([secs(x) for x in t])}" if t else "")
        for n, t in per.items()
    ]
    rationale = f"{cap('; '.join(told))}: {w} {verb} more."
    led = f"{cap(ctx.noun(other))} {verb} {times_word(len(per[other]))}. Who {verb} more times?"
    wrong = f"Why does {ctx.noun(other)} {base} more times than {w}?"
    wrong_answer = f"It does not; {w} {verb} {times_word(len(top))}, {ctx.noun(other)} {times_word(len(per[other]))}."
    return _open_set(rationale, primary, rephrased, led, answer, accepted, wrong, wrong_answer)


@register_writer("faster")
def faster_set(ctx: Ctx) -> dict[str, Any]:
    """Who of several people moves faster: each one's mean speed, then the winner."""
    at = np.arange(ctx.n)
    v = {name: observe.mean_speed(ctx.labels, at, ctx.labels.track(name)) or 0.0
         for name in ctx.objects}  # fmt: skip
    if max(v, key=lambda name: v[name]) != ctx.key:
        raise ValueError(f"row {ctx.id!r}: mean speeds {v} disagree with answer {ctx.key!r}")
    w = ctx.noun(ctx.key)
    other = next(n for n in v if n != ctx.key)
    listed = join_words([ctx.noun(n) for n in v])
    primary = f"Of {listed}, who walks faster?"
    rephrased = f"Compare how far {listed} each walk in the same time: which of them is quicker?"
    answer = f"{cap(w)}."
    accepted = [w, w.removeprefix("the ")]
    told = [f"{ctx.noun(n)} covers about {x:.0f} pixels per second" for n, x in v.items()]
    rationale = (
        f"{cap('; '.join(told))}, {v[ctx.key] / max(v[other], 1e-9):.1f} times: {w} is faster."
    )
    led = f"{cap(ctx.noun(other))} walks at a steady pace. Who walks faster?"
    wrong = f"Why does {ctx.noun(other)} walk faster than {w}?"
    wrong_answer = f"It does not; {w} walks faster."
    return _open_set(rationale, primary, rephrased, led, answer, accepted, wrong, wrong_answer)


@register_writer("next")
def next_set(ctx: Ctx) -> dict[str, Any]:
    """What a person does right after a named gesture: each gesture and when it starts, then
    the one that follows the anchor."""
    lab = ctx.labels
    per_frame = observe.gesture_frames(lab, np.arange(ctx.n))
    runs: list[tuple[str, float]] = []
    for i, g in enumerate(per_frame):
        if g is not None and (not runs or runs[-1][0] != g):
            runs.append((g, i / lab.fps))
    seq = [g for g, _ in runs]
    anchor = ctx.kind
    if (
        anchor not in seq
        or seq.index(anchor) + 1 >= len(seq)
        or seq[seq.index(anchor) + 1] != ctx.key
    ):
        raise ValueError(
            f"row {ctx.id!r}: gestures {seq} after {anchor!r} disagree with {ctx.key!r}"
        )

    def does(g: str) -> str:  # "raises the red hand"
        text = gesture_words(NEXT_TEXT[g], lab).rstrip(".")
        return text[:1].lower() + text[1:]

    def doing(g: str) -> str:  # "raising the red hand"
        return gesture_words(NEXT_ANCHOR[g], lab)

    s = ctx.subj
    told = [f"{does(g)} at {secs(t)}" for g, t in runs]
    rationale = (
        f"{cap(s)} {join_words(told)}, resting the hands between: right after "
        f"{doing(anchor)}, {s} {does(ctx.key)}."
    )
    primary = f"What does {s} do right after {doing(anchor)}?"
    rephrased = f"Once {s} has finished {doing(anchor)}, what is the next thing they do?"
    answer = cap(does(ctx.key)) + "."
    accepted = [does(ctx.key), doing(ctx.key)]
    led = (
        f"{cap(s)} makes {len(seq)} different gestures one after another. What do they do "
        f"right after {doing(anchor)}?"
    )
    other = next(g for g in observe.GESTURES if g not in (anchor, ctx.key))
    verb, rest = (does(other) + " ").split(" ", 1)
    base = (verb[:-1] + " " + rest).strip()  # "raise the red hand", "clap"
    wrong = f"Why does {s} {base} right after {doing(anchor)}?"
    wrong_answer = f"It does not; right after {doing(anchor)}, {s} {does(ctx.key)}."
    return _open_set(rationale, primary, rephrased, led, answer, accepted, wrong, wrong_answer)


@register_writer("trajectory")
def trajectory_set(ctx: Ctx) -> dict[str, Any]:
    tr = ctx.subject
    s, S = ctx.subj, cap(ctx.subj)
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
            f"{S} {where} for the whole {secs(ctx.duration)} video, so its path draws no shape."
        )
        led, led_answer, led_acc = still_led(ctx, "What shape does its path trace?", answer)
        led_acc += accepted
    else:
        name = SHAPE_NAMES[ctx.key]
        answer = f"A {name}." if not name.startswith(("a", "i")) else f"An {name}."
        accepted = SHAPE_ACCEPTED[ctx.key]
        corners, crossings = path_corners(ctx.labels, tr)
        expect = {"triangle": 3, "square": 4, "trapezoid": 4, "diamond": 4, "star": 5}.get(ctx.key)
        gap = float(np.hypot(tr.x[-1] - tr.x[0], tr.y[-1] - tr.y[0]))
        closes = (
            "ends where it started" if gap < 1 else f"ends {gap:.0f} pixels from where it started"
        )
        if expect and len(corners) == expect:
            times = join_words([secs(t) for t in corners])
            detail = f"its path has {number_word(expect)} sharp corners, reached at {times}"
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
            f"{S} moves for {secs(end_t)}: {detail}{extra}, and it {closes}. The path is {shape}."
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
    return open_questions(
        rationale, primary, rephrased, answer, accepted, (led, led_answer, led_acc),
        (wrong, wrong_answer),
    )  # fmt: skip

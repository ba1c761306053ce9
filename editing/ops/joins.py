"""Ops that join two clips: ``concat`` (A then B), ``composite`` (side by side, or picture in
picture) and Vinoground's ``pair_with_black_gap``. In a YAML pipeline the second clip is the
input clip through a sub-pipeline: ``{concat: {other: [reverse], gap: 0.5}}``."""

from __future__ import annotations

import contextlib
import math
from collections.abc import Generator
from dataclasses import dataclass, field, replace
from typing import Any, ClassVar

import cv2
import numpy as np

from tempogen.config import MAX_SECONDS
from tempogen.editing import algebra
from tempogen.editing.clip import Clip, Stream
from tempogen.editing.effects import PRESERVED, Effect, check, declared, mapped, require
from tempogen.editing.ops.base import COMPOSITE, Op, asked_facts, register_op
from tempogen.errors import EditError
from tempogen.facts import get_fact
from tempogen.labels import Labels


def _join(fact: str, a: Any, b: Any) -> Any:
    """A's answer then B's: sequences join (a repeated element merges), counts add, a steady
    trend stays only when both are the same steady trend."""
    return algebra.facts_concat({fact: a}, {fact: b})[fact]


JOIN = mapped("join", lambda fact, value: value)  # a two-clip kernel: see ``_join``


def concat_effect(fact: str) -> Effect:
    """What A-then-B does to ``fact``, as the fact declares it (``Fact.edits["concat"]``)."""
    return declared("concat", fact, JOIN)


def composite_effect(fact: str) -> Effect:
    """A's question, A's answer: what the fact declares for ``composite``."""
    return declared("composite", fact)


def _require_joinable(a: Clip, b: Clip) -> None:
    for fact in dict.fromkeys(asked_facts(a) + asked_facts(b)):
        require("concat", concat_effect(fact), fact, a.labels is not None)


def _same_format(a: Clip, b: Clip, op: str) -> None:
    if a.size != b.size or not math.isclose(a.fps, b.fps):
        raise EditError(f"{op}: clips differ in size or fps: {a.size}@{a.fps} vs {b.size}@{b.fps}")


def _joined_labels(a: Labels, b: Labels, gap: int, op: str) -> Labels:
    """A's states, then ``gap`` hidden frames holding A's last state, then B's states."""
    if a.query != b.query or [t.name for t in a.tracks] != [t.name for t in b.tracks]:
        raise EditError(
            f"{op}: clips show different objects or questions; their labels cannot be joined"
        )
    tracks = []
    for ta, tb in zip(a.tracks, b.tracks, strict=True):
        if (ta.shape, ta.color, ta.size) != (tb.shape, tb.color, tb.size):
            raise EditError(f"{op}: object {ta.name!r} looks different in the two clips")
        hold = (
            ta.take(np.full(gap, ta.num_frames - 1)).with_states(visible=np.zeros(gap, bool))
            if gap
            else None
        )
        parts = [ta] + ([hold] if hold is not None else []) + [tb]
        tracks.append(
            ta.with_states(
                **{
                    k: np.concatenate([getattr(p, k) for p in parts])
                    for k in ("x", "y", "angle", "scale", "visible", "lit")
                }
            )
        )
    return algebra.unprojected(a).with_tracks(tuple(tracks))


def _one_after_another(
    a: Clip, b: Clip, gap: int, labels: Labels | None, facts: dict[str, Any]
) -> Clip:
    """A's frames, ``gap`` black frames, B's frames: streamed, one frame at a time."""
    w, h = a.size

    def frames() -> Generator[np.ndarray, None, None]:
        yield from a.frames()
        blank = np.zeros((h, w, 3), np.uint8)
        for _ in range(gap):
            yield blank
        yield from b.frames()

    n = a.num_frames + gap + b.num_frames
    black = np.zeros(n, bool)
    black[a.num_frames : a.num_frames + gap] = True
    ca, cb = a.content_ids(), b.content_ids()
    cb = np.where(cb >= 0, cb + int(ca.max(initial=-1)) + 1, -1)  # B's pictures are new ones
    content = np.concatenate([ca, np.full(gap, -1), cb])
    out = Clip.from_stream(Stream(frames, n, (w, h), content), a.fps, labels, facts)
    return out.evolve(black=black, audio=a.audio or b.audio)


def gap_frames(op: str, name: str, seconds: object, fps: float | None = None) -> int:
    """``seconds`` of black as whole frames at ``fps`` (none: the value is only checked).

    A negative gap would overlap the clips, dropping frames of the second while its labels
    still count them, so it is refused, as is a gap that is not a finite number.
    """
    if seconds is None:
        return 0
    if (
        isinstance(seconds, bool)
        or not isinstance(seconds, int | float)
        or not 0 <= seconds < 2.0**53  # nan, inf and an int past a float's range too
    ):
        raise EditError(f"{op}: {name} must be a number of seconds >= 0, got {seconds!r}")
    return 0 if fps is None else int(round(seconds * fps))


def concat(a: Clip, b: Clip, gap: float | None = None) -> Clip:
    """A then B (TOMATO's composite motions), with an optional black gap of ``gap`` seconds.

    Both clips must show the same objects and question; the joined states answer it anew.
    """
    _same_format(a, b, "concat")
    g = gap_frames("concat", "gap", gap, a.fps)
    labels = (
        _joined_labels(a.labels, b.labels, g, "concat")
        if a.labels is not None and b.labels is not None
        else None
    )
    if (a.labels is None) != (b.labels is None):
        raise EditError("concat: one clip has per-frame labels and the other does not")
    _require_joinable(a, b)
    facts = algebra.facts_concat(a.facts, b.facts) if (a.facts or b.facts) else {}
    out = _one_after_another(a, b, g, labels, facts)
    if labels is not None:
        fact = labels.query.fact
        eff = concat_effect(fact)
        if eff.kind == "mapped":
            va, vb = (None if c.labels is None else get_fact(fact).derive(c.labels) for c in (a, b))
            want = None if va is None or vb is None else _join(fact, va, vb)
            check("concat", eff, fact, want, labels)
    record = {"op": "concat", "gap": gap, "parts": [list(a.edits), list(b.edits)]}
    return out.evolve(
        edits=(record,), variation=tuple(dict.fromkeys(a.variation + b.variation + (COMPOSITE,)))
    )


def pair_with_black_gap(pos: Clip, neg: Clip, seconds: float = 2.0) -> Clip:
    """Vinoground's video-score format: positive clip, ``seconds`` of black, negative clip.

    The result carries which frames belong to which caption, not merged object labels.
    """
    _same_format(pos, neg, "pair_with_black_gap")
    g = gap_frames("pair_with_black_gap", "seconds", seconds, pos.fps)
    if g < 1:
        raise EditError(
            f"pair_with_black_gap: the gap must hold at least one frame, got {seconds} s"
        )
    total = pos.num_frames + g + neg.num_frames
    segments = {
        "pos": [0, pos.num_frames - 1],
        "gap": [pos.num_frames, pos.num_frames + g - 1],
        "neg": [pos.num_frames + g, total - 1],
    }
    out = _one_after_another(pos, neg, g, None, {"segments": segments})
    return out.evolve(
        edits=({"op": "pair_with_black_gap", "seconds": seconds},), variation=(COMPOSITE,)
    )


def composite(a: Clip, b: Clip, layout: str = "side_by_side") -> Clip:
    """Two clips in one frame: side by side (each at half size) or B as a picture in A.

    The question stays A's; B's objects join as extra objects (renamed ``b:<name>``).
    """
    for fact in asked_facts(a):
        require("composite", composite_effect(fact), fact, a.labels is not None)
    if layout not in ("side_by_side", "picture_in_picture"):
        raise EditError(
            f"composite: layout must be 'side_by_side' or 'picture_in_picture', got {layout!r}"
        )
    _same_format(a, b, "composite")
    n = min(a.num_frames, b.num_frames)
    w, h = a.size
    if layout == "side_by_side":
        ma = np.array([[0.5, 0, 0], [0, 0.5, h / 4]])
        mb = np.array([[0.5, 0, w / 2], [0, 0.5, h / 4]])
    else:
        ma = np.array([[1.0, 0, 0], [0, 1, 0]])
        s = 0.3
        mb = np.array([[s, 0, w * (1 - s) - 8], [0, s, 8]])
    mask = cv2.warpAffine(np.ones((h, w), np.uint8), mb, (w, h), flags=cv2.INTER_NEAREST).astype(
        bool
    )

    def frames() -> Generator[np.ndarray, None, None]:
        frame = np.zeros((h, w, 3), np.uint8)
        small = np.zeros((h, w, 3), np.uint8)
        with contextlib.closing(a.frames()) as fa, contextlib.closing(b.frames()) as fb:
            for _, pa, pb in zip(range(n), fa, fb):
                cv2.warpAffine(pa, ma, (w, h), dst=frame, flags=cv2.INTER_AREA)
                cv2.warpAffine(pb, mb, (w, h), dst=small, flags=cv2.INTER_AREA)
                frame[mask] = small[mask]
                yield frame

    labels = None
    if a.labels is not None:
        la = algebra.move(
            algebra.retime(a.labels, np.arange(n), op="composite"),
            np.broadcast_to(ma, (n, 2, 3)),
            (w, h),
            "composite",
        )
        tracks = list(la.tracks)
        if b.labels is not None:
            lb = algebra.move(
                algebra.retime(b.labels, np.arange(n), op="composite"),
                np.broadcast_to(mb, (n, 2, 3)),
                (w, h),
                "composite",
            )
            for t in lb.tracks:
                role = "distractor" if t.role != "anchor" else "anchor"
                tracks.append(replace(t, name=f"b:{t.name}", role=role))
        labels = la.with_tracks(tuple(tracks))
    # the question is A's: the frames show A's moments (B's picture rides along)
    stream = Stream(frames, n, (w, h), a.content_ids()[:n])
    out = Clip.from_stream(stream, a.fps, labels, dict(a.facts))
    out = out.evolve(audio=a.audio or b.audio)
    if labels is not None and a.labels is not None:
        fact = a.labels.query.fact
        check("composite", PRESERVED, fact, get_fact(fact).derive(a.labels), labels)
    record = {"op": "composite", "layout": layout, "parts": [list(a.edits), list(b.edits)]}
    return out.evolve(
        edits=(record,), variation=tuple(dict.fromkeys(a.variation + b.variation + (COMPOSITE,)))
    )


def _other(clip: Clip, spec: Any, op: str) -> Clip:
    """The second clip of a two-clip op in a pipeline: the input through ``spec``'s ops."""
    from tempogen.editing.pipeline import parse_pipeline, run_pipeline

    return run_pipeline(clip, parse_pipeline(list(spec or []), f"{op}.other"))


@register_op
@dataclass(frozen=True)
class Concat(Op):
    """A then B, where B is this clip through the ``other`` ops; ``gap`` seconds of black."""

    other: tuple[Any, ...] = field(default=())
    gap: float | None = None
    name: ClassVar[str] = "concat"
    variation: ClassVar[str] = COMPOSITE
    edit: ClassVar[str] = "concat"  # each fact declares it (``Fact.edits``)

    def declaration(self) -> tuple[str, Effect | None]:
        return self.edit, JOIN

    def __post_init__(self) -> None:
        object.__setattr__(self, "other", tuple(self.other or ()))
        gap_frames("concat", "gap", self.gap)

    def validate(self) -> None:
        if self.gap is not None and self.gap > MAX_SECONDS:
            raise EditError(f"gap: at most {MAX_SECONDS:g} s, got {self.gap!r}")

    def __call__(self, clip: Clip) -> Clip:
        return concat(clip, _other(clip, self.other, "concat"), self.gap)


@register_op
@dataclass(frozen=True)
class Composite(Op):
    """This clip and the same clip through the ``other`` ops in one frame (A's question)."""

    other: tuple[Any, ...] = field(default=())
    layout: str = "side_by_side"
    name: ClassVar[str] = "composite"
    variation: ClassVar[str] = COMPOSITE
    edit: ClassVar[str] = "composite"  # each fact declares it (``Fact.edits``)

    def __post_init__(self) -> None:
        object.__setattr__(self, "other", tuple(self.other or ()))

    def __call__(self, clip: Clip) -> Clip:
        return composite(clip, _other(clip, self.other, "composite"), self.layout)

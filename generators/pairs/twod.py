"""The machinery of the 2D pair kinds: events and their timing, both orders' labels and
captions, and their frames (through a moving camera or over a changing backdrop)."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from tempogen.choices import BACKGROUNDS
from tempogen.errors import GenerationError
from tempogen.generators.motion import Look, Scene
from tempogen.generators.pairs.common import (
    SLOTS,
    TOL,
    Atom,
    PairScene,
    PairSpec,
    Step,
    certify,
    observed_script,
)
from tempogen.generators.render2d import Compositor, make_background
from tempogen.labels import Labels

# -- the script: which events happen when ------------------------------------------------------


def ease(u: np.ndarray) -> np.ndarray:
    """Smoothstep of ``u`` clipped to 0..1: starts and ends at rest."""
    u = np.clip(u, 0.0, 1.0)
    return u * u * (3.0 - 2.0 * u)


def progress(scene: Scene, slot: tuple[int, int]) -> np.ndarray:
    """0 up to the slot's first sampled frame, 1 from its last one on, linear between."""
    f0, f1 = scene.sample_frame(slot[0]), scene.sample_frame(slot[1])
    return np.clip((scene.frames - f0) / (f1 - f0), 0.0, 1.0)


@dataclass
class Event:
    """One event of a 2D pair: who does it, its caption words, what it does to the states as
    its progress goes 0 -> 1, and the changes a viewer sees in order (its signature)."""

    subject: str
    verb: str
    effect: Callable[[np.ndarray], dict[tuple[str, str], np.ndarray]]
    signature: list[Step]
    # the event's own timing, for events made of phases that must meet on a sampled frame:
    # ``timed(scene, slot)`` replaces ``effect(progress over the slot)``
    timed: Callable[[Scene, tuple[int, int]], dict[tuple[str, str], np.ndarray]] | None = None


def step(*atoms: Atom) -> Step:
    """One step of a script: the changes a viewer sees at once."""
    return frozenset(atoms)


def caption(events: list[Event]) -> str:
    """``A x then y`` when one subject acts on, ``A x then B y`` when the subject changes."""
    words = f"{events[0].subject} {events[0].verb}"
    for prev, ev in zip(events, events[1:]):
        words += (
            f" then {ev.verb}" if ev.subject == prev.subject else f" then {ev.subject} {ev.verb}"
        )
    return words


@dataclass
class Setup2D:
    """A 2D pair before timing: objects at rest, the two events, how often each recurs, and
    optional camera and backdrop."""

    scene: Scene
    looks: dict[str, Look]
    rest: dict[str, dict[str, Any]]  # per track: x, y (and role) at rest
    events: tuple[Event, ...]  # the two events (checked), in the positive clip's order
    background: np.ndarray
    repeats: int = 1  # the events take turns this many times (cyclical pairs: 2)
    view: tuple[float, float] | None = None  # zoom centre (x, y) when the camera moves
    backdrop: np.ndarray | None = None  # the other background, when the backdrop changes
    base: dict[tuple[str, str], float] = field(default_factory=dict)  # scene states at rest

    def __post_init__(self) -> None:
        if len(self.events) != 2:  # a pair swaps the order of exactly two events
            raise GenerationError(f"a 2D pair has two events, got {len(self.events)}")


def event_order(setup: Setup2D, first: int) -> list[int]:
    """Event indices in time order when event ``first`` leads."""
    return [(first + k) % 2 for k in range(2 * setup.repeats)]


def states(setup: Setup2D, first: int) -> dict[tuple[str, str], np.ndarray]:
    """Per (track or scene, state): every frame's value with the events in this order."""
    scene = setup.scene
    script = event_order(setup, first)
    out: dict[tuple[str, str], np.ndarray] = {}
    for name, rest in setup.rest.items():
        for s, v in (("x", rest["x"]), ("y", rest["y"]), ("angle", 0.0), ("scale", 1.0)):
            out[(name, s)] = np.full(scene.n, float(v))
        out[(name, "lit")] = np.zeros(scene.n)
    for key, v in setup.base.items():
        out[key] = np.full(scene.n, float(v))
    for slot, e in zip(SLOTS[len(script)], script):
        ev = setup.events[e]
        deltas = ev.timed(scene, slot) if ev.timed else ev.effect(progress(scene, slot))
        for key, delta in deltas.items():
            out[key] = out[key] + delta
    return out


def labels_2d(setup: Setup2D, first: int, world: bool = False) -> Labels:
    """Labels of one order (on screen; ``world``: before the camera, what the compositor
    draws when the camera moves)."""
    st = states(setup, first)
    scene = setup.scene
    n = scene.n
    zoom, pan = np.ones(n), np.zeros(n)
    if setup.view is not None and not world:
        zoom, pan = np.exp(st[("scene", "logzoom")]), st[("scene", "pan")]
    cx, cy = setup.view if setup.view is not None else (0.0, 0.0)
    out = Scene(np.random.default_rng(0), scene.width, scene.height, scene.fps, n)
    out.fact = "order"
    for name, look in setup.looks.items():
        x, y = st[(name, "x")], st[(name, "y")]
        out.add(
            name,
            look,
            role=setup.rest[name].get("role", "subject"),
            x=cx + zoom * (x - cx) + pan,
            y=cy + zoom * (y - cy),
            angle=st[(name, "angle")],
            scale=st[(name, "scale")] * zoom,
            lit=st[(name, "lit")] > 0.5,
        )
    if setup.backdrop is not None:
        out.meta["backdrop"] = [round(float(v), 6) for v in st[("scene", "dark")]]
    if setup.view is not None:
        out.meta["view"] = {
            "zoom": [round(float(v), 6) for v in zoom],
            "pan": [round(float(v), 6) for v in pan],
        }
    names = tuple(setup.looks)
    out.ask(names, kind="event")
    return out.labels()


# -- the 2D kinds ------------------------------------------------------------------------------


def _bounce(name: str, h: float) -> Callable[[np.ndarray], dict]:
    return lambda u: {(name, "y"): -h * np.sin(math.pi * u)}


# a glide three units along one screen axis: (state, sign); screen y grows downwards
_GLIDES = {
    "slides right": ("x", 1), "moves right": ("x", 1), "slides left": ("x", -1),
    "moves left": ("x", -1), "moves up": ("y", -1), "moves down": ("y", 1),
}  # fmt: skip


def object_event(name: str, look: Look, kind: str, unit: float) -> Event:
    """One object of an ``object`` pair (or an ``action`` subject) doing ``kind``."""
    up, down = step((name, "y", -1)), step((name, "y", 1))
    if kind == "bounces":
        return Event(look.noun, kind, _bounce(name, 3.0 * unit), [up, down])
    if kind == "spins":
        return Event(
            look.noun, kind, lambda u: {(name, "angle"): 360.0 * u}, [step((name, "angle", 1))]
        )
    if kind == "flashes":
        on = lambda u: {(name, "lit"): ((u > 0.2) & (u < 0.8)).astype(float)}  # noqa: E731
        return Event(look.noun, kind, on, [step((name, "lit", 1)), step((name, "lit", -1))])
    if kind == "grows":
        return Event(
            look.noun,
            kind,
            lambda u: {(name, "scale"): 0.6 * ease(u)},
            [step((name, "scale", 1))],
        )
    if kind in _GLIDES:
        axis, sign = _GLIDES[kind]
        return Event(
            look.noun,
            kind,
            lambda u: {(name, axis): sign * 3.0 * unit * ease(u)},
            [step((name, axis, sign))],
        )
    raise ValueError(f"unknown event {kind!r}")


def base_scene(spec: PairSpec) -> tuple[Scene, np.random.Generator, np.ndarray]:
    """A 2D pair's empty scene, its seeded generator and its background (drawn first)."""
    rng = np.random.default_rng(spec.seed)
    scene = Scene(rng, spec.width, spec.height, spec.fps, spec.num_frames)
    background = make_background(str(rng.choice(BACKGROUNDS)), spec.width, spec.height, rng)
    return scene, rng, background


def _frames_2d(setup: Setup2D, labels: Labels, first: int) -> Iterator[np.ndarray]:
    """The frames of one order: the compositor's, seen through the camera or over a changing
    backdrop where the pair has one."""
    if setup.view is not None:
        import cv2

        world = labels_2d(setup, first, world=True)
        still = Compositor(world, setup.background).frame(0).copy()
        cx, cy = setup.view
        out = np.empty_like(still)
        for z, p in zip(labels.meta["view"]["zoom"], labels.meta["view"]["pan"]):
            m = np.array([[z, 0.0, cx - z * cx + p], [0.0, z, cy - z * cy]], dtype=np.float64)
            cv2.warpAffine(still, m, (labels.width, labels.height), dst=out, flags=cv2.INTER_LINEAR)
            yield out
        return
    light = Compositor(labels, setup.background)
    if setup.backdrop is None:
        yield from light.frames()
        return
    dark = Compositor(labels, setup.backdrop)
    out = np.empty((labels.height, labels.width, 3), np.uint8)
    for i, w in enumerate(labels.meta["backdrop"]):
        if w <= 0.0:
            yield light.frame(i)
        elif w >= 1.0:
            yield dark.frame(i)
        else:
            mix = light.frame(i).astype(np.float32) * (1.0 - w)
            mix += dark.frame(i).astype(np.float32) * w
            np.copyto(out, np.clip(mix + 0.5, 0, 255).astype(np.uint8))
            yield out


def _in_view(labels: Labels) -> bool:
    b = np.concatenate([t.bbox() for t in labels.tracks])
    return bool(
        b[:, 0].min() >= 0
        and b[:, 1].min() >= 0
        and b[:, 2].max() <= labels.width
        and b[:, 3].max() <= labels.height
    )


def _view_covered(view: tuple[float, float], labels: Labels) -> bool:
    """The warped world covers the whole screen in every frame (no empty border)."""
    cx, _ = view
    w = labels.width
    for z, p in zip(labels.meta["view"]["zoom"], labels.meta["view"]["pan"]):
        if z < 1.0 or not ((w - cx) * (1.0 - z) - TOL <= p <= cx * (z - 1.0) + TOL):
            return False
    return True


def plan_2d(spec: PairSpec, setup_kind: Callable[[PairSpec], Setup2D]) -> PairScene:
    """Both orders of a 2D pair whose scene ``setup_kind`` sets up, checked in view and
    certified."""
    setup = setup_kind(spec)
    labels = {"pos": labels_2d(setup, 0), "neg": labels_2d(setup, 1)}
    for side, lab in labels.items():
        if not _in_view(lab):
            raise GenerationError(
                f"pair {spec.index} ({spec.kind}): the {side} clip leaves the frame"
            )
        if setup.view is not None and not _view_covered(setup.view, lab):
            raise GenerationError(f"pair {spec.index}: the camera shows past the scene's edge")
    expected = {
        side: tuple(s for e in event_order(setup, first) for s in setup.events[e].signature)
        for side, first in (("pos", 0), ("neg", 1))
    }
    # merge repeats the way the observer does (two equal steps in a row read as one)
    expected = {
        k: tuple(s for i, s in enumerate(v) if i == 0 or v[i - 1] != s) for k, v in expected.items()
    }
    cert = certify(spec, labels, expected, observed_script)
    captions = {
        side: caption([setup.events[e] for e in event_order(setup, first)])
        for side, first in (("pos", 0), ("neg", 1))
    }
    return PairScene(
        spec,
        labels["pos"],
        labels["neg"],
        captions["pos"],
        captions["neg"],
        cert,
        {
            "pos": lambda: _frames_2d(setup, labels["pos"], 0),
            "neg": lambda: _frames_2d(setup, labels["neg"], 1),
        },
    )


def planner(setup: Callable[[PairSpec], Setup2D]) -> Callable[[PairSpec], PairScene]:
    """A 2D kind's planner: :func:`plan_2d` of the scene ``setup`` sets up."""
    return lambda spec: plan_2d(spec, setup)

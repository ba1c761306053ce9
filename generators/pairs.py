"""Natural synthetic caption pairs: one two-event scene rendered in both event orders.

Both clips of a pair show the same things on the same background, start in the same state and
end in the same state; only the order of the events differs (no reversal, no cut), so the
captions ("A x then B y" / "B y then A x") use exactly the same words and only temporal order
tells them apart (Vinoground's counterfactual pairs). Pair kinds cover Vinoground's categories:
two objects acting (object), one actor doing two things (action: a 2D shape or a simulated
human), the camera zooming and panning (viewpoint), one object hitting another (interaction),
a procedure repeated in turn (cyclical), moves in two directions (spatial) and the background
changing (contextual).

Every pair carries a certificate: the order of events read from the states at TOMATO's 16
uniform samples equals the order read from every frame and the script the pair was planned
with, and the two orders' first and last frames hold the same states, so no single frame
tells them apart.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from tempogen import observe
from tempogen.errors import GenerationError
from tempogen.generators.motion import SAMPLES, Look, Scene
from tempogen.generators.render2d import BACKGROUNDS, Compositor, make_background
from tempogen.labels import Labels
from tempogen.registry import Registry
from tempogen.video import VideoWriter

# Vinoground's categories of each pair kind: (major, minors); see seed 001, Sec. 3.3.
KINDS: Registry[tuple[str, tuple[str, ...]]] = Registry("pair kind")
for _kind, _categories in {
    "object": ("object", ()),
    "action": ("action", ()),
    "human": ("action", ()),
    "viewpoint": ("viewpoint", ()),
    "interaction": ("object", ("interaction",)),
    "cyclical": ("action", ("cyclical",)),
    "spatial": ("action", ("spatial",)),
    "contextual": ("object", ("contextual",)),
}.items():
    KINDS.add(_kind, _categories)
del _kind, _categories
OBJECT_EVENTS = ("bounces", "spins", "flashes", "slides right")
ACTION_EVENTS = ("spins", "bounces", "grows")
ZOOMS = ("zooms in", "zooms out")
PANS = ("pans to the left", "pans to the right")
MOVES_H = ("moves left", "moves right")
MOVES_V = ("moves up", "moves down")
BACKDROPS = ("darkens", "brightens")
CONTEXT_MOVES = ("slides right", "slides left", "bounces")
CYCLE = ("flashes", "bounces")
GESTURES = observe.GESTURES


def _ordered(a: tuple[str, ...], b: tuple[str, ...] | None = None) -> tuple[tuple[str, str], ...]:
    """Ordered pairs of distinct events from ``a`` (or one of ``a`` and one of ``b``, each
    order)."""
    if b is None:
        return tuple((x, y) for x in a for y in a if x != y)
    return tuple((x, y) for x in a for y in b) + tuple((y, x) for x in a for y in b)


# The events of each kind a pair may show, as (first in the positive clip, second).
EVENT_PAIRS: dict[str, tuple[tuple[str, str], ...]] = {
    "object": _ordered(OBJECT_EVENTS),
    "action": _ordered(ACTION_EVENTS),
    "human": _ordered(GESTURES),
    "viewpoint": _ordered(ZOOMS, PANS),
    "interaction": (("hits", "hits"),),
    "cyclical": _ordered(CYCLE),
    "spatial": _ordered(MOVES_H, MOVES_V),
    "contextual": _ordered(BACKDROPS, CONTEXT_MOVES),
}
# Where events happen, in TOMATO's sample intervals (0..15): two events, or four in turn.
SLOTS = {2: ((1, 7), (8, 14)), 4: ((1, 3), (4, 6), (8, 10), (11, 13))}
HUMAN_STARTS = (2, 9)  # a gesture rises over one interval, is held over one, comes down
DEFAULT_SECONDS = 3.0
GAP_SECONDS = 2.0  # black between the two clips of the video-score clip (Vinoground Sec. 4.2)
TOL = 1e-6  # a state change smaller than this is no change (states are exact)
STATES = ("x", "y", "angle", "scale", "lit")
MAX_TURN = 90.0  # degrees between two samples (the arrow has no rotational symmetry)

Atom = tuple[str, str, int]  # (track or "scene", state, sign of the change)
Step = frozenset[Atom]


@dataclass(frozen=True)
class PairSpec:
    """Everything needed to render one pair: its kind and the events of the positive clip, in
    order (the negative clip shows them in the other order)."""

    index: int
    seed: int
    width: int
    height: int
    fps: float
    seconds: float = DEFAULT_SECONDS
    kind: str = "object"
    events: tuple[str, str] = ("bounces", "spins")

    @property
    def num_frames(self) -> int:
        return int(round(self.seconds * self.fps))

    @property
    def major(self) -> str:
        return KINDS[self.kind][0]

    @property
    def minors(self) -> tuple[str, ...]:
        minors = KINDS[self.kind][1]
        if self.kind == "object" and "slides right" in self.events:
            minors = ("spatial",)
        return minors

    def to_json(self) -> dict[str, Any]:
        return {
            "index": self.index,
            "seed": self.seed,
            "width": self.width,
            "height": self.height,
            "fps": self.fps,
            "seconds": self.seconds,
            "kind": self.kind,
            "events": list(self.events),
        }


@dataclass(frozen=True)
class PairScene:
    """Labels, captions and certificate of both orders of one pair, and how to draw them."""

    spec: PairSpec
    pos_labels: Labels
    neg_labels: Labels
    pos_caption: str
    neg_caption: str
    certificate: dict[str, Any]
    draw: dict[str, Callable[[], Iterator[np.ndarray]]] = field(repr=False)

    @property
    def minor(self) -> str:
        return ";".join(self.spec.minors)


def plan_pairs(
    n: int,
    seed: int,
    width: int,
    height: int,
    fps: float,
    seconds: float = DEFAULT_SECONDS,
    kinds: tuple[str, ...] = tuple(KINDS),
) -> list[PairSpec]:
    """``n`` pair specs: kinds take turns (each round a seeded permutation, so any ``n`` at
    least ``len(kinds)`` covers every kind and the counts differ by at most one), and each
    kind's event pairs cycle through a seeded permutation of all of them."""
    KINDS.check(kinds)
    # an unsampled frame between every two of TOMATO's samples, whatever the frame rate
    seconds = max(seconds, math.ceil(2 * SAMPLES / fps * 100) / 100)
    rng = np.random.default_rng(seed)
    order: list[str] = []
    while len(order) < n:
        order.extend(kinds[int(i)] for i in rng.permutation(len(kinds)))
    cycles: dict[str, list[tuple[str, str]]] = {k: [] for k in kinds}
    specs = []
    for i in range(n):
        kind = order[i]
        if not cycles[kind]:
            cycles[kind] = [
                EVENT_PAIRS[kind][int(j)] for j in rng.permutation(len(EVENT_PAIRS[kind]))
            ]
        specs.append(
            PairSpec(
                index=i,
                seed=int(np.random.SeedSequence([seed, i]).generate_state(1)[0]),
                width=width,
                height=height,
                fps=fps,
                seconds=seconds,
                kind=kind,
                events=cycles[kind].pop(0),
            )
        )
    return specs


# -- the script: which events happen when ------------------------------------------------------


def _ease(u: np.ndarray) -> np.ndarray:
    u = np.clip(u, 0.0, 1.0)
    return u * u * (3.0 - 2.0 * u)


def _progress(scene: Scene, slot: tuple[int, int]) -> np.ndarray:
    """0 up to the slot's first sampled frame, 1 from its last one on, linear between."""
    f0, f1 = scene.sample_frame(slot[0]), scene.sample_frame(slot[1])
    return np.clip((scene.frames - f0) / (f1 - f0), 0.0, 1.0)


@dataclass
class _Event:
    """One event of a 2D pair: who does it, its caption words, what it does to the states as
    its progress goes 0 -> 1, and the changes a viewer sees in order (its signature)."""

    subject: str
    verb: str
    effect: Callable[[np.ndarray], dict[tuple[str, str], np.ndarray]]
    signature: list[Step]
    # the event's own timing, for events made of phases that must meet on a sampled frame:
    # ``timed(scene, slot)`` replaces ``effect(progress over the slot)``
    timed: Callable[[Scene, tuple[int, int]], dict[tuple[str, str], np.ndarray]] | None = None


def _step(*atoms: Atom) -> Step:
    return frozenset(atoms)


def _caption(events: list[_Event]) -> str:
    """``A x then y`` when one subject acts on, ``A x then B y`` when the subject changes."""
    words = f"{events[0].subject} {events[0].verb}"
    for prev, ev in zip(events, events[1:]):
        words += (
            f" then {ev.verb}" if ev.subject == prev.subject else f" then {ev.subject} {ev.verb}"
        )
    return words


@dataclass
class _Setup2D:
    """A 2D pair before timing: objects at rest, the two events, how often each recurs, and
    optional camera and backdrop."""

    scene: Scene
    looks: dict[str, Look]
    rest: dict[str, dict[str, Any]]  # per track: x, y (and role) at rest
    events: tuple[_Event, _Event]
    background: np.ndarray
    repeats: int = 1  # the events take turns this many times (cyclical pairs: 2)
    view: tuple[float, float] | None = None  # zoom centre (x, y) when the camera moves
    backdrop: np.ndarray | None = None  # the other background, when the backdrop changes
    base: dict[tuple[str, str], float] = field(default_factory=dict)  # scene states at rest


def _script(setup: _Setup2D, first: int) -> list[int]:
    """Event indices in time order when event ``first`` leads."""
    return [(first + k) % 2 for k in range(2 * setup.repeats)]


def _states(setup: _Setup2D, first: int) -> dict[tuple[str, str], np.ndarray]:
    """Per (track or scene, state): every frame's value with the events in this order."""
    scene = setup.scene
    script = _script(setup, first)
    out: dict[tuple[str, str], np.ndarray] = {}
    for name, rest in setup.rest.items():
        for s, v in (("x", rest["x"]), ("y", rest["y"]), ("angle", 0.0), ("scale", 1.0)):
            out[(name, s)] = np.full(scene.n, float(v))
        out[(name, "lit")] = np.zeros(scene.n)
    for key, v in setup.base.items():
        out[key] = np.full(scene.n, float(v))
    for slot, e in zip(SLOTS[len(script)], script):
        ev = setup.events[e]
        deltas = ev.timed(scene, slot) if ev.timed else ev.effect(_progress(scene, slot))
        for key, delta in deltas.items():
            out[key] = out[key] + delta
    return out


def _labels_2d(setup: _Setup2D, first: int, world: bool = False) -> Labels:
    """Labels of one order (on screen; ``world``: before the camera, what the compositor
    draws when the camera moves)."""
    st = _states(setup, first)
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


# -- reading the order back from states --------------------------------------------------------


def observed_script(labels: Labels, idx: np.ndarray) -> tuple[Step, ...]:
    """The changes the frames ``idx`` show, step by step: per pair of consecutive frames, which
    state of which track (or the backdrop) rose or fell; still steps dropped, repeats merged."""
    idx = np.asarray(idx)
    series: dict[tuple[str, str], np.ndarray] = {}
    for t in labels.tracks:
        for s in STATES:
            series[(t.name, s)] = getattr(t, s).astype(np.float64)
    if "backdrop" in labels.meta:
        series[("scene", "dark")] = np.asarray(labels.meta["backdrop"], dtype=np.float64)
    steps: list[Step] = []
    for k in range(len(idx) - 1):
        atoms = set()
        for (name, s), v in series.items():
            d = v[idx[k + 1]] - v[idx[k]]
            if abs(d) > TOL:
                atoms.add((name, s, 1 if d > 0 else -1))
        step = frozenset(atoms)
        if step and (not steps or steps[-1] != step):
            steps.append(step)
    return tuple(steps)


def _step_text(step: Step) -> list[str]:
    return sorted(f"{n}.{s}{'+' if d > 0 else '-'}" for n, s, d in step)


def _script_json(script: tuple[Step, ...] | tuple[str, ...] | None) -> Any:
    if script is None:
        return None
    return [s if isinstance(s, str) else _step_text(s) for s in script]


def _max_turn(labels: Labels, idx: np.ndarray) -> float:
    turns = [np.abs(np.diff(t.angle[idx])).max() for t in labels.tracks if len(idx) > 1]
    return float(max(turns, default=0.0))


def _ends_equal(a: Labels, b: Labels) -> bool:
    """The two orders hold the same states in their first frame and in their last."""
    for ta, tb in zip(a.tracks, b.tracks, strict=True):
        for s in (*STATES, "visible"):
            va, vb = getattr(ta, s), getattr(tb, s)
            for f in (0, a.num_frames - 1):
                if abs(float(va[f]) - float(vb[f])) > TOL:
                    return False
    for key in ("backdrop",):
        if key in a.meta:
            for f in (0, -1):
                if abs(a.meta[key][f] - b.meta[key][f]) > TOL:
                    return False
    return True


def _certify(
    spec: PairSpec,
    labels: dict[str, Labels],
    expected: dict[str, tuple[Any, ...]],
    read: Callable[[Labels, np.ndarray], tuple[Any, ...]],
) -> dict[str, Any]:
    """Check both orders: the script read at TOMATO's 16 samples equals the one read from
    every frame and the planned one, the orders differ, and their first and last frames agree;
    return the certificate (JSON-ready) or refuse the pair."""
    cert: dict[str, Any] = {}
    for side, lab in labels.items():
        n = lab.num_frames
        idx = observe.uniform_indices(n, SAMPLES)
        sampled, full = read(lab, idx), read(lab, np.arange(n))
        turn = _max_turn(lab, idx)
        cert[side] = {
            "expected": _script_json(expected[side]),
            "sampled": _script_json(sampled),
            "full": _script_json(full),
            "first_only": _script_json(read(lab, np.array([0]))),
            "max_turn": round(turn, 3),
        }
        if sampled != expected[side] or full != expected[side] or turn > MAX_TURN:
            raise GenerationError(
                f"pair {spec.index} ({spec.kind}, {spec.events}): the {side} clip does not show "
                f"its events in order at {SAMPLES} samples: {cert[side]}"
            )
    if expected["pos"] == expected["neg"]:
        raise GenerationError(f"pair {spec.index}: both orders show the same script")
    same_ends = _ends_equal(labels["pos"], labels["neg"])
    if not same_ends:
        raise GenerationError(
            f"pair {spec.index} ({spec.kind}): the two orders differ in their first or last "
            "frame, so one frame would tell them apart"
        )
    cert["same_ends"] = same_ends
    return cert


# -- the 2D kinds ------------------------------------------------------------------------------


def _bounce(name: str, h: float) -> Callable[[np.ndarray], dict]:
    return lambda u: {(name, "y"): -h * np.sin(math.pi * u)}


# a glide three units along one screen axis: (state, sign); screen y grows downwards
_GLIDES = {
    "slides right": ("x", 1), "moves right": ("x", 1), "slides left": ("x", -1),
    "moves left": ("x", -1), "moves up": ("y", -1), "moves down": ("y", 1),
}  # fmt: skip


def _object_event(name: str, look: Look, kind: str, unit: float) -> _Event:
    """One object of an ``object`` pair (or an ``action`` subject) doing ``kind``."""
    up, down = _step((name, "y", -1)), _step((name, "y", 1))
    if kind == "bounces":
        return _Event(look.noun, kind, _bounce(name, 3.0 * unit), [up, down])
    if kind == "spins":
        return _Event(
            look.noun, kind, lambda u: {(name, "angle"): 360.0 * u}, [_step((name, "angle", 1))]
        )
    if kind == "flashes":
        on = lambda u: {(name, "lit"): ((u > 0.2) & (u < 0.8)).astype(float)}  # noqa: E731
        return _Event(look.noun, kind, on, [_step((name, "lit", 1)), _step((name, "lit", -1))])
    if kind == "grows":
        return _Event(
            look.noun,
            kind,
            lambda u: {(name, "scale"): 0.6 * _ease(u)},
            [_step((name, "scale", 1))],
        )
    if kind in _GLIDES:
        axis, sign = _GLIDES[kind]
        return _Event(
            look.noun,
            kind,
            lambda u: {(name, axis): sign * 3.0 * unit * _ease(u)},
            [_step((name, axis, sign))],
        )
    raise ValueError(f"unknown event {kind!r}")


def _base(spec: PairSpec) -> tuple[Scene, np.random.Generator, np.ndarray]:
    rng = np.random.default_rng(spec.seed)
    scene = Scene(rng, spec.width, spec.height, spec.fps, spec.num_frames)
    background = make_background(str(rng.choice(BACKGROUNDS)), spec.width, spec.height, rng)
    return scene, rng, background


SHAPES_FOR = {
    "bounces": ("circle", "square", "triangle", "star"),
    "spins": ("arrow",),  # no rotational symmetry: a full turn is visible
    "flashes": ("circle",),  # a lamp (role "cue"): dim when off, lit with a halo when on
    "slides right": ("circle", "square", "triangle", "star"),
}


def _setup_object(spec: PairSpec) -> _Setup2D:
    """Two objects side by side, each doing its own event."""
    scene, rng, background = _base(spec)
    unit = scene.unit
    sizes = [float(s) for s in rng.permutation([1.4 * unit, 1.9 * unit])]
    looks = {n: scene.look(SHAPES_FOR[k], s) for n, k, s in zip("ab", spec.events, sizes)}
    xs = [0.3 * spec.width, 0.62 * spec.width]
    if rng.random() < 0.5:
        xs.reverse()
    y0 = float(rng.uniform(0.55, 0.65) * spec.height)
    rest = {
        n: {"x": x, "y": y0, "role": "cue" if k == "flashes" else "subject"}
        for n, x, k in zip("ab", xs, spec.events)
    }
    events = tuple(_object_event(n, looks[n], k, unit) for n, k in zip("ab", spec.events))
    return _Setup2D(scene, looks, rest, events, background)  # type: ignore[arg-type]


def _setup_action(spec: PairSpec) -> _Setup2D:
    """One arrow doing two things."""
    scene, rng, background = _base(spec)
    look = scene.look(("arrow",), float(rng.uniform(1.5, 1.9)) * scene.unit)
    rest = {"a": {"x": float(rng.uniform(0.4, 0.6)) * spec.width, "y": 0.6 * spec.height}}
    events = tuple(_object_event("a", look, k, scene.unit) for k in spec.events)
    return _Setup2D(scene, {"a": look}, rest, events, background)  # type: ignore[arg-type]


def _setup_spatial(spec: PairSpec) -> _Setup2D:
    """One shape moving one way, then another."""
    scene, rng, background = _base(spec)
    look = scene.look(("circle", "square", "triangle", "star"), 1.5 * scene.unit)
    rest = {"a": {"x": 0.5 * spec.width, "y": 0.5 * spec.height}}
    events = tuple(_object_event("a", look, k, scene.unit) for k in spec.events)
    return _Setup2D(scene, {"a": look}, rest, events, background)  # type: ignore[arg-type]


def _setup_cyclical(spec: PairSpec) -> _Setup2D:
    """A lamp flashes and a ball bounces in turn, twice: the procedure in one order or the
    other."""
    scene, rng, background = _base(spec)
    unit = scene.unit
    names = {"flashes": "lamp", "bounces": "ball"}
    looks = {
        "lamp": scene.look(("circle",), 1.5 * unit),
        "ball": scene.look(("circle", "square", "star"), 1.5 * unit),
    }
    xs = [0.3 * spec.width, 0.65 * spec.width]
    if rng.random() < 0.5:
        xs.reverse()
    rest = {
        "lamp": {"x": xs[0], "y": 0.6 * spec.height, "role": "cue"},
        "ball": {"x": xs[1], "y": 0.6 * spec.height},
    }
    events = tuple(_object_event(names[k], looks[names[k]], k, unit) for k in spec.events)
    return _Setup2D(scene, looks, rest, events, background, repeats=2)  # type: ignore[arg-type]


def _setup_interaction(spec: PairSpec) -> _Setup2D:
    """Two rows; in each one object slides into another and knocks it on."""
    scene, rng, background = _base(spec)
    unit = scene.unit
    w, h = spec.width, spec.height
    looks, rest, events = {}, {}, []
    for row, y in (("1", 0.33 * h), ("2", 0.72 * h)):
        hitter, target = f"hitter{row}", f"target{row}"
        looks[hitter] = scene.look(("circle", "square"), 1.3 * unit)
        looks[target] = scene.look(("circle", "square"), 1.3 * unit)
        sign = 1 if rng.random() < 0.5 else -1
        x_t = w / 2 + sign * 0.12 * w
        x_h = x_t - sign * 0.42 * w
        rest[hitter], rest[target] = {"x": x_h, "y": y}, {"x": x_t, "y": y}
        travel = abs(x_t - x_h) - 2 * 1.3 * unit  # until the two touch

        def timed(sc: Scene, slot: tuple[int, int], hn=hitter, tn=target, s=sign, d=travel):
            # the hitter arrives on a sampled frame and the target starts from that frame
            touch = slot[0] + 3
            return {
                (hn, "x"): s * d * _ease(_progress(sc, (slot[0], touch))),
                (tn, "x"): s * 2.5 * unit * _ease(_progress(sc, (touch, slot[1]))),
            }

        signature = [_step((hitter, "x", sign)), _step((target, "x", sign))]
        events.append(
            _Event(looks[hitter].noun, f"hits {looks[target].noun}", dict, signature, timed)
        )
    return _Setup2D(scene, looks, rest, tuple(events), background)  # type: ignore[arg-type]


def _setup_viewpoint(spec: PairSpec) -> _Setup2D:
    """Two still objects, the camera zooming about their midpoint and panning sideways."""
    scene, rng, background = _base(spec)
    unit = scene.unit
    w, h = spec.width, spec.height
    cx, cy = w / 2, float(rng.uniform(0.45, 0.55)) * h
    looks = {
        "a": scene.look(("circle", "square", "triangle", "star"), 1.2 * unit),
        "b": scene.look(("circle", "square", "triangle", "star"), 1.2 * unit),
    }
    rest = {"a": {"x": cx - 0.14 * w, "y": cy}, "b": {"x": cx + 0.14 * w, "y": cy}}
    near, far = math.log(1.75), math.log(1.3)
    zoom_in = "zooms in" in spec.events
    base = {("scene", "logzoom"): far if zoom_in else near, ("scene", "pan"): 0.0}
    shift = 0.11 * w
    events = []
    for ev in spec.events:
        if ev in ZOOMS:
            sign = 1 if ev == "zooms in" else -1
            effect = lambda u, s=sign: {("scene", "logzoom"): s * (near - far) * _ease(u)}  # noqa: E731
            sig = [
                _step(
                    ("a", "x", -sign), ("b", "x", sign), ("a", "scale", sign), ("b", "scale", sign)
                )
            ]
        else:
            # the camera pans right: the scene slides left on screen
            sign = -1 if ev.endswith("right") else 1
            effect = lambda u, s=sign: {("scene", "pan"): s * shift * _ease(u)}  # noqa: E731
            sig = [_step(("a", "x", sign), ("b", "x", sign))]
        events.append(_Event("the camera", ev, effect, sig))
    return _Setup2D(
        scene,
        looks,
        rest,
        tuple(events),
        background,
        view=(cx, cy),
        base=base,  # type: ignore[arg-type]
    )


def _setup_contextual(spec: PairSpec) -> _Setup2D:
    """The background darkens (or brightens) while one object slides or bounces."""
    scene, rng, background = _base(spec)
    unit = scene.unit
    look = scene.look(("circle", "square", "triangle", "star"), 1.5 * unit)
    rest = {"a": {"x": float(rng.uniform(0.4, 0.5)) * spec.width, "y": 0.6 * spec.height}}
    dark = (background.astype(np.float32) * 0.35).astype(np.uint8)
    events = []
    base = {}
    for ev in spec.events:
        if ev in BACKDROPS:
            sign = 1 if ev == "darkens" else -1
            base[("scene", "dark")] = 0.0 if sign > 0 else 1.0
            effect = lambda u, s=sign: {("scene", "dark"): s * _ease(u)}  # noqa: E731
            events.append(_Event("the background", ev, effect, [_step(("scene", "dark", sign))]))
        else:
            events.append(_object_event("a", look, ev, unit))
    return _Setup2D(
        scene,
        {"a": look},
        rest,
        tuple(events),
        background,
        backdrop=dark,
        base=base,  # type: ignore[arg-type]
    )


SETUPS: dict[str, Callable[[PairSpec], _Setup2D]] = {
    "object": _setup_object,
    "action": _setup_action,
    "spatial": _setup_spatial,
    "cyclical": _setup_cyclical,
    "interaction": _setup_interaction,
    "viewpoint": _setup_viewpoint,
    "contextual": _setup_contextual,
}


def _frames_2d(setup: _Setup2D, labels: Labels, first: int) -> Iterator[np.ndarray]:
    """The frames of one order: the compositor's, seen through the camera or over a changing
    backdrop where the pair has one."""
    if setup.view is not None:
        import cv2

        world = _labels_2d(setup, first, world=True)
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


def _view_covered(setup: _Setup2D, labels: Labels) -> bool:
    """The warped world covers the whole screen in every frame (no empty border)."""
    cx, _ = setup.view  # type: ignore[misc]
    w = labels.width
    for z, p in zip(labels.meta["view"]["zoom"], labels.meta["view"]["pan"]):
        if z < 1.0 or not ((w - cx) * (1.0 - z) - TOL <= p <= cx * (z - 1.0) + TOL):
            return False
    return True


def _plan_2d(spec: PairSpec) -> PairScene:
    setup = SETUPS[spec.kind](spec)
    labels = {"pos": _labels_2d(setup, 0), "neg": _labels_2d(setup, 1)}
    for side, lab in labels.items():
        if not _in_view(lab):
            raise GenerationError(
                f"pair {spec.index} ({spec.kind}): the {side} clip leaves the frame"
            )
        if setup.view is not None and not _view_covered(setup, lab):
            raise GenerationError(f"pair {spec.index}: the camera shows past the scene's edge")
    expected = {
        side: tuple(s for e in _script(setup, first) for s in setup.events[e].signature)
        for side, first in (("pos", 0), ("neg", 1))
    }
    # merge repeats the way the observer does (two equal steps in a row read as one)
    expected = {
        k: tuple(s for i, s in enumerate(v) if i == 0 or v[i - 1] != s) for k, v in expected.items()
    }
    cert = _certify(spec, labels, expected, observed_script)
    captions = {
        side: _caption([setup.events[e] for e in _script(setup, first)])
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


# -- simulated humans --------------------------------------------------------------------------


def _plan_human(spec: PairSpec) -> PairScene:
    """A simulated person making two gestures, in one order or the other (3D, pyrender)."""
    from tempogen.facts import NEXT_TEXT, gesture_words
    from tempogen.generators.patterns.human_actions import ActionOrder

    motion = ActionOrder()
    labels: dict[str, Labels] = {}
    worlds: dict[str, Any] = {}
    background = ""
    for side, seq in (("pos", list(spec.events)), ("neg", list(spec.events[::-1]))):
        rng = np.random.default_rng(spec.seed)
        background = str(rng.choice(BACKGROUNDS))
        scene = Scene(rng, spec.width, spec.height, spec.fps, spec.num_frames)
        scene.fact = "next"
        motion.perform(scene, seq, list(HUMAN_STARTS))
        scene.ask(list(motion.objects), kind=seq[0])
        labels[side], worlds[side] = scene.labels(), scene.world
    expected = {"pos": tuple(spec.events), "neg": tuple(spec.events[::-1])}
    cert = _certify(spec, labels, expected, observe.gestures)
    person = str(labels["pos"].meta.get("person", "the person"))

    def words(g: str) -> str:
        text = gesture_words(NEXT_TEXT[g], labels["pos"])
        return text[0].lower() + text[1:].rstrip(".")

    a, b = (words(g) for g in spec.events)

    def draw(side: str) -> Iterator[np.ndarray]:
        return worlds[side].frames(background, np.random.default_rng(spec.seed + 1))

    return PairScene(
        spec,
        labels["pos"],
        labels["neg"],
        f"{person} {a} then {b}",
        f"{person} {b} then {a}",
        cert,
        {"pos": lambda: draw("pos"), "neg": lambda: draw("neg")},
    )


def plan_scene(spec: PairSpec) -> PairScene:
    """Both orders' labels, captions, certificate and drawing of one pair (refused with a
    :class:`GenerationError` if the order cannot be read from TOMATO's 16 samples)."""
    KINDS.lookup(spec.kind, f"pair {spec.index}")
    if tuple(spec.events) not in EVENT_PAIRS[spec.kind]:
        raise ValueError(
            f"pair {spec.index}: events {spec.events} are not a {spec.kind} pair; "
            f"known: {EVENT_PAIRS[spec.kind]}"
        )
    if spec.num_frames < 2 * SAMPLES:
        raise ValueError(
            f"pair {spec.index}: {spec.num_frames} frames is fewer than {2 * SAMPLES} "
            "(an unsampled frame between every two samples)"
        )
    return _plan_human(spec) if spec.kind == "human" else _plan_2d(spec)


def concat_name(index: int) -> str:
    """Where a pair's video-score clip lives (positive, black gap, negative)."""
    return f"videos/pair{index}_concat.mp4"


def render_pair(spec: PairSpec, out_dir: Path) -> dict[str, Any]:
    """Render both orders to ``out_dir/videos/pair{index}_{pos,neg}.mp4`` and, from the same
    frames, Vinoground's video-score clip (positive, ``GAP_SECONDS`` of black, negative);
    return the record. Each file is renamed into place only when complete."""
    out_dir = Path(out_dir)
    scene = plan_scene(spec)
    rel = {side: f"videos/pair{spec.index}_{side}.mp4" for side in ("pos", "neg")}
    lab = scene.pos_labels
    size = (lab.fps, lab.width, lab.height)
    with VideoWriter(out_dir / concat_name(spec.index), *size, background=True) as both:
        for side in ("pos", "neg"):
            if side == "neg":
                black = np.zeros((lab.height, lab.width, 3), np.uint8)
                for _ in range(int(round(GAP_SECONDS * lab.fps))):
                    both.write(black)
            with VideoWriter(out_dir / rel[side], *size, background=True) as one:
                for frame in scene.draw[side]():
                    one.write(frame)
                    both.write(frame)
    return {
        "index": spec.index,
        "kind": spec.kind,
        "pos_caption": scene.pos_caption,
        "neg_caption": scene.neg_caption,
        "major": spec.major,
        "minor": scene.minor,
        "pos_video": rel["pos"],
        "neg_video": rel["neg"],
        "num_frames": spec.num_frames,
        "fps": spec.fps,
        "certificate": scene.certificate,
    }

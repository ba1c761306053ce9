"""What every pair kind shares: the kinds' registry, a pair's spec and scene, the plan of a
set of pairs, and the certificate that reads each order back from its states.

A kind registers itself (:func:`register_kind`) with its Vinoground categories, the event
pairs it may show and the function that plans its scene; ``generators/pairs/__init__.py``
imports the kinds in a fixed order, which is the order :func:`plan_pairs` deals them in.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from tempogen import observe
from tempogen.errors import GenerationError
from tempogen.generators.motion import MAX_TURN_PER_SAMPLE, SAMPLES
from tempogen.labels import Labels
from tempogen.registry import Registry

# Vinoground's categories of each pair kind: (major, minors); see seed 001, Sec. 3.3.
KINDS: Registry[tuple[str, tuple[str, ...]]] = Registry("pair kind")
# The events of each kind a pair may show, as (first in the positive clip, second).
EVENT_PAIRS: dict[str, tuple[tuple[str, str], ...]] = {}


def ordered(a: tuple[str, ...], b: tuple[str, ...] | None = None) -> tuple[tuple[str, str], ...]:
    """Ordered pairs of distinct events from ``a`` (or one of ``a`` and one of ``b``, each
    order)."""
    if b is None:
        return tuple((x, y) for x in a for y in a if x != y)
    return tuple((x, y) for x in a for y in b) + tuple((y, x) for x in a for y in b)


# Where events happen, in TOMATO's sample intervals (0..15): two events, or four in turn.
SLOTS = {2: ((1, 7), (8, 14)), 4: ((1, 3), (4, 6), (8, 10), (11, 13))}
DEFAULT_SECONDS = 3.0
GAP_SECONDS = 2.0  # black between the two clips of the video-score clip (Vinoground Sec. 4.2)
TOL = 1e-6  # a state change smaller than this is no change (states are exact)
STATES = ("x", "y", "angle", "scale", "lit")
# degrees between two samples (the arrow has no rotational symmetry): the patterns' limit
MAX_TURN = MAX_TURN_PER_SAMPLE

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


# How each kind plans its scene (both orders' labels, captions, certificate and drawing).
PLANNERS: Registry[Callable[[PairSpec], PairScene]] = Registry("pair kind")


def register_kind(
    name: str,
    categories: tuple[str, tuple[str, ...]],
    events: tuple[tuple[str, str], ...],
    planner: Callable[[PairSpec], PairScene],
) -> None:
    """Register a pair kind: its Vinoground ``(major, minors)``, the event pairs it may show
    and the function that plans one pair's scene."""
    KINDS.add(name, categories)
    EVENT_PAIRS[name] = events
    PLANNERS.add(name, planner)


def plan_pairs(
    n: int,
    seed: int,
    width: int,
    height: int,
    fps: float,
    seconds: float = DEFAULT_SECONDS,
    kinds: tuple[str, ...] | None = None,
) -> list[PairSpec]:
    """``n`` pair specs: kinds take turns (each round a seeded permutation, so any ``n`` at
    least ``len(kinds)`` covers every kind and the counts differ by at most one), and each
    kind's event pairs cycle through a seeded permutation of all of them (``kinds``: every
    registered one, in registration order, unless given)."""
    kinds = tuple(KINDS) if kinds is None else kinds
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


def step_text(step: Step) -> list[str]:
    """A step as sorted ``track.state+`` / ``track.state-`` words (the certificate's form)."""
    return sorted(f"{n}.{s}{'+' if d > 0 else '-'}" for n, s, d in step)


def script_json(script: tuple[Step, ...] | tuple[str, ...] | None) -> Any:
    """A script as the certificate stores it: steps as words, gestures as they are."""
    if script is None:
        return None
    return [s if isinstance(s, str) else step_text(s) for s in script]


def max_turn(labels: Labels, idx: np.ndarray) -> float:
    """The largest turn of any track between two of the frames ``idx``, in degrees, read
    from the angles as they are (not wrapped: every track counts, whatever its shape)."""
    turns = [np.abs(np.diff(t.angle[idx])).max() for t in labels.tracks if len(idx) > 1]
    return float(max(turns, default=0.0))


def ends_equal(a: Labels, b: Labels) -> bool:
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


def certify(
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
        turn = max_turn(lab, idx)
        cert[side] = {
            "expected": script_json(expected[side]),
            "sampled": script_json(sampled),
            "full": script_json(full),
            "first_only": script_json(read(lab, np.array([0]))),
            "max_turn": round(turn, 3),
        }
        if sampled != expected[side] or full != expected[side] or turn > MAX_TURN:
            raise GenerationError(
                f"pair {spec.index} ({spec.kind}, {spec.events}): the {side} clip does not show "
                f"its events in order at {SAMPLES} samples: {cert[side]}"
            )
    if expected["pos"] == expected["neg"]:
        raise GenerationError(f"pair {spec.index}: both orders show the same script")
    same_ends = ends_equal(labels["pos"], labels["neg"])
    if not same_ends:
        raise GenerationError(
            f"pair {spec.index} ({spec.kind}): the two orders differ in their first or last "
            "frame, so one frame would tell them apart"
        )
    cert["same_ends"] = same_ends
    return cert

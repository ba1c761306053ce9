"""Exact labels of a clip: per-object per-frame state, and what the question asks about.

Everything a question's answer depends on is either a per-frame state array here (position,
angle, scale, visibility, lit) or a declared attribute in :class:`Query`. Task facts
(direction sequence, rotation sequence, ...) are never stored by hand: they are derived from
these states by :mod:`tempogen.observe`, so an edit that maps the states exactly also maps the
facts exactly.

Conventions (image coordinates, as the viewer sees the frame):
  * ``x`` grows to the right, ``y`` grows downwards, both in pixels of the clip's canvas;
  * ``angle`` is cumulative (unwrapped) degrees, positive = clockwise on screen;
  * frame ``i`` is shown at time ``i / fps``.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, TypedDict, cast

import numpy as np

ROLES = ("subject", "distractor", "cue", "prop", "anchor")


class LabelsMeta(TypedDict, total=False):
    """What a clip's labels record beyond its states (``Labels.meta``, ``labels.meta`` of a
    row): every key is optional and set by the generator that knows it.

    A ``TypedDict``, not a dataclass: ``meta`` is written into every manifest row as the dict
    it is, its keys in the order the generator set them and only those it set, so a record
    type would have to replay both to keep the bytes; a ``TypedDict`` is that same dict at
    run time while the type checker holds every key's name and type. Plugin patterns may add
    keys of their own (read them through ``cast`` or ``dict.get`` on a plain dict).
    """

    nouns: dict[str, str]  # track name -> how the question names it ("the red ball")
    answer_keys: list[str]  # every answer the clip's pattern can give (its options' keys)
    variation: dict[str, int]  # TOMATO's flags and counts (misleading_text, distractors, ...)
    measured: bool  # states measured from pixels (wider tolerances), not generated
    renderer: str  # "human" for the simulated-human renderer
    person: str  # how the question names the clip's person
    actor: str  # who does a counted or compared action ("the person", "the man in red")
    people: list[dict[str, Any]]  # each person's look, when a scene has several
    owners: dict[str, int]  # track name -> index of the person it belongs to in ``people``
    props: list[list[int]]  # colours of props people hold
    look: dict[str, Any]  # the (main) person's clothes, gloves and body shape
    gloves: dict[str, Any]  # side -> glove colour name: how a hand is named
    gestures: list[str]  # a gesture sequence's gestures, in order
    event_words: list[str]  # the verb forms of a counted event ("jumps", "jump", ...)
    viewpoint: str  # "above": an angle is a yaw, its sense read from above
    joints3d: dict[str, Any]  # subject -> per-frame 3D joints (millimetres); moves with frames
    camera: dict[str, Any]  # the camera projecting ``joints3d`` into the picture
    paints: list[Any]  # every paint colour in a 3D scene (what the pixel audit looks for)
    decor: dict[str, Any]  # a 3D scene's sign and distractors: text and where they show
    encoding: dict[str, Any]  # a temporal-noise clip's encoding (its cell size, ...)
    backdrop: list[float]  # a minimal pair's backdrop darkness per frame
    view: dict[str, list[float]]  # a minimal pair's per-frame camera zoom and pan
    mocap: dict[str, Any]  # a mocap clip's file, sha256, window and joint map (the row's too)
    marks: dict[str, list[int]]  # a mocap person's belt and collars: what the audit reads


def _arr(values: Any, n: int, dtype: Any, name: str) -> np.ndarray:
    a: np.ndarray = np.asarray(values, dtype=dtype)
    if a.ndim == 0:
        a = np.full(n, a, dtype=dtype)
    if a.shape != (n,):
        raise ValueError(f"track field {name!r}: expected shape ({n},), got {a.shape}")
    a = a.copy()
    a.setflags(write=False)
    return a


@dataclass(frozen=True, eq=False)
class Track:
    """One object's state in every frame of a clip.

    ``size`` is the object's nominal radius in pixels at scale 1: its drawn extent lies inside
    the circle of radius ``size * scale`` around ``(x, y)``, which is what :meth:`bbox` returns.
    """

    name: str
    role: str
    shape: str
    color: tuple[int, int, int]
    size: float
    x: np.ndarray
    y: np.ndarray
    angle: np.ndarray
    scale: np.ndarray
    visible: np.ndarray
    lit: np.ndarray
    text: str = ""

    @classmethod
    def build(
        cls,
        name: str,
        n: int,
        *,
        x: Any,
        y: Any,
        role: str = "subject",
        shape: str = "circle",
        color: tuple[int, int, int] = (255, 255, 255),
        size: float = 20.0,
        angle: Any = 0.0,
        scale: Any = 1.0,
        visible: Any = True,
        lit: Any = False,
        text: str = "",
    ) -> Track:
        """Make a track of ``n`` frames; scalars broadcast to every frame."""
        if role not in ROLES:
            raise ValueError(f"track {name!r}: role must be one of {ROLES}, got {role!r}")
        return cls(
            name=name,
            role=role,
            shape=shape,
            color=cast(tuple[int, int, int], tuple(int(c) for c in color)),
            size=float(size),
            x=_arr(x, n, np.float64, "x"),
            y=_arr(y, n, np.float64, "y"),
            angle=_arr(angle, n, np.float64, "angle"),
            scale=_arr(scale, n, np.float64, "scale"),
            visible=_arr(visible, n, bool, "visible"),
            lit=_arr(lit, n, bool, "lit"),
            text=text,
        )

    @property
    def num_frames(self) -> int:
        """How many frames the track has states for."""
        return int(self.x.shape[0])

    def bbox(self) -> np.ndarray:
        """Per-frame axis-aligned box (x0, y0, x1, y1) that contains the drawn object."""
        r = self.size * self.scale
        return np.stack([self.x - r, self.y - r, self.x + r, self.y + r], axis=1)

    def with_states(self, **arrays: Any) -> Track:
        """A copy with some per-frame arrays replaced (lengths may change for temporal ops)."""
        n = len(next(iter(arrays.values()))) if arrays else self.num_frames
        fields = {k: getattr(self, k) for k in ("x", "y", "angle", "scale", "visible", "lit")}
        fields.update(arrays)
        dtypes = {"visible": bool, "lit": bool}
        built: dict[str, Any] = {
            k: _arr(v, n, dtypes.get(k, np.float64), k) for k, v in fields.items()
        }
        return replace(self, **built)

    def take(self, index: np.ndarray) -> Track:
        """The states at the given frame indices, in that order (reverse, speed, trim, loop)."""
        index = np.asarray(index, dtype=np.int64)
        return self.with_states(
            **{k: getattr(self, k)[index] for k in ("x", "y", "angle", "scale", "visible", "lit")}
        )

    def to_json(self, decimals: int = 2) -> dict[str, Any]:
        """A JSON-ready dict; floats rounded so manifests stay small and byte-stable."""

        def r(a: np.ndarray) -> list[float]:
            return [float(v) for v in np.round(a, decimals)]

        return {
            "name": self.name,
            "role": self.role,
            "shape": self.shape,
            "color": list(self.color),
            "size": round(self.size, decimals),
            "text": self.text,
            "x": r(self.x),
            "y": r(self.y),
            "angle": r(self.angle),
            "scale": r(self.scale),
            "visible": [int(v) for v in self.visible],
            "lit": [int(v) for v in self.lit],
            "bbox": [[float(v) for v in row] for row in np.round(self.bbox(), decimals)],
        }

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> Track:
        n = len(d["x"])
        return cls.build(
            d["name"],
            n,
            x=d["x"],
            y=d["y"],
            role=d["role"],
            shape=d["shape"],
            color=tuple(d["color"]),
            size=d["size"],
            angle=d["angle"],
            scale=d["scale"],
            visible=np.asarray(d["visible"], dtype=bool),
            lit=np.asarray(d["lit"], dtype=bool),
            text=d.get("text", ""),
        )


@dataclass(frozen=True)
class Query:
    """What the question asks, declared by the motion pattern.

    ``fact`` names the derived fact that answers it (see :data:`tempogen.facts.FACTS`).
    ``objects`` are track names it reads: the subject first; for ``rotation`` about a centre
    (an orbit) the second is the centre; for ``order`` all compared objects; for bounces the
    second is the floor anchor. ``kind`` refines the fact: ``speed`` of ``position`` or
    ``angle``; ``frequency``/``count`` of ``flash``, ``bounce`` or ``loop``; ``order`` of
    ``move`` or ``lit``. ``declared`` holds the few answers no state can show (the shape a
    trajectory draws): each edit op must state what it does to them or refuse.
    """

    fact: str
    objects: tuple[str, ...]
    kind: str = ""
    declared: tuple[tuple[str, Any], ...] = ()

    def declared_value(self, key: str, default: Any = None) -> Any:
        """The declared answer ``key`` (``default`` when the pattern declared none)."""
        return dict(self.declared).get(key, default)

    @property
    def about_turning(self) -> bool:
        """The question reads a turn: a rotation, an orbit about a centre, or laps of a loop
        (what the turn-per-sample limit and the wagon-wheel checks apply to)."""
        return self.fact == "rotation" or self.kind in ("orbit", "loop")

    def to_json(self) -> dict[str, Any]:
        return {
            "fact": self.fact,
            "objects": list(self.objects),
            "kind": self.kind,
            "declared": {k: v for k, v in self.declared},
        }

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> Query:
        return cls(
            fact=d["fact"],
            objects=tuple(d["objects"]),
            kind=d.get("kind", ""),
            declared=tuple(sorted(d.get("declared", {}).items())),
        )


@dataclass(frozen=True, eq=False)
class Labels:
    """All ground truth of one clip: canvas, time base, tracks and the query."""

    width: int
    height: int
    fps: float
    tracks: tuple[Track, ...]
    query: Query
    meta: LabelsMeta = field(default_factory=lambda: LabelsMeta())

    def __post_init__(self) -> None:
        lengths = {t.num_frames for t in self.tracks}
        if len(lengths) > 1:
            raise ValueError(f"labels: tracks differ in length: {sorted(lengths)}")
        names = [t.name for t in self.tracks]
        if len(set(names)) != len(names):
            raise ValueError(f"labels: duplicate track names in {names}")
        for obj in self.query.objects:
            if obj not in names:
                raise ValueError(f"labels: query names track {obj!r}, not among {names}")

    @property
    def num_frames(self) -> int:
        """How many frames the clip has (every track has one state per frame)."""
        return self.tracks[0].num_frames if self.tracks else 0

    def track(self, name: str) -> Track:
        """The track named ``name``; a ``KeyError`` naming it when there is none."""
        for t in self.tracks:
            if t.name == name:
                return t
        raise KeyError(f"no track named {name!r}")

    @property
    def subject(self) -> Track:
        """The track the question asks about first (``query.objects[0]``)."""
        return self.track(self.query.objects[0])

    def with_tracks(self, tracks: tuple[Track, ...], **changes: Any) -> Labels:
        """A copy with these tracks (and any other fields in ``changes``) replaced."""
        return replace(self, tracks=tuple(tracks), **changes)

    def to_json(self) -> dict[str, Any]:
        return {
            "width": self.width,
            "height": self.height,
            "fps": self.fps,
            "num_frames": self.num_frames,
            "query": self.query.to_json(),
            "meta": self.meta,
            "tracks": [t.to_json() for t in self.tracks],
        }

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> Labels:
        return cls(
            width=int(d["width"]),
            height=int(d["height"]),
            fps=float(d["fps"]),
            tracks=tuple(Track.from_json(t) for t in d["tracks"]),
            query=Query.from_json(d["query"]),
            meta=cast(LabelsMeta, dict(d.get("meta", {}))),
        )

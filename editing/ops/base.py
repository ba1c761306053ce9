"""The op base classes, the op registry and the effect checks every op goes through.

An op is a small frozen dataclass: ``op(clip)`` returns the edited clip. Subclasses say what
happens to frames (a :class:`TimeOp`'s ``select``, a :class:`SpaceOp`'s ``maps``; the base
classes move the states with them, and a subclass may not replace that ``apply``) and declare,
per fact, what happens to the answer (``effects``, or ``effect(fact)`` when it depends on
parameters; see :mod:`tempogen.editing.effects`). ``Op.__call__`` refuses questions about
undeclared facts, checks declared facts of external clips against the op's time map and moves
them through the kernels, checks declared answers against the edited states, checks that an
op with its own ``apply`` moved the states with its frames, and records the edit.
"""

from __future__ import annotations

import dataclasses
import math
import typing
from collections.abc import Mapping
from dataclasses import asdict
from typing import Any, ClassVar

import numpy as np

from tempogen.editing import effects as E
from tempogen.editing.clip import Clip
from tempogen.errors import EditError
from tempogen.facts import get_fact
from tempogen.labels import Labels
from tempogen.registry import Registry

# TOMATO's variation flag each kind of edit sets.
COUNTERFACTUAL, COMPOSITE, ZOOM = "counterfactual", "composite", "zoom"

OPS: Registry[type[Op]] = Registry("op", EditError)

_JSON_TYPES = {int: "integer", float: "number", str: "string", bool: "boolean"}


def _json_type(hint: Any) -> dict[str, Any]:
    """A JSON-schema type for a parameter's annotation (unions become ``anyOf``)."""
    origin = typing.get_origin(hint)
    if origin in (typing.Union, getattr(__import__("types"), "UnionType", None)):
        return {"anyOf": [_json_type(a) for a in typing.get_args(hint)]}
    if hint is type(None):
        return {"type": "null"}
    if origin in (tuple, list) or hint in (tuple, list):
        return {"type": "array"}
    if hint in _JSON_TYPES:
        t = _JSON_TYPES[hint]
        return {"type": ["integer", "number"]} if t == "number" else {"type": t}
    return {}


def params_schema(cls: type) -> dict[str, Any]:
    """A JSON Schema of an op's parameters, from its dataclass fields and their annotations."""
    hints = typing.get_type_hints(cls)
    props, required = {}, []
    for f in dataclasses.fields(cls):
        props[f.name] = _json_type(hints.get(f.name))
        if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
            required.append(f.name)
    return {
        "type": "object",
        "properties": props,
        "required": required,
        "additionalProperties": False,
    }


def register_op(cls: type[Op]) -> type[Op]:
    """Class decorator: add an op to the registry under its ``name`` (YAML, ``tempogen edit``)."""
    if not cls.name:
        raise ValueError(f"{cls.__name__}: set a name")
    cls.schema = params_schema(cls)
    OPS.add(cls.name, cls, same=lambda old, new: old is new)
    return cls


def asked_facts(clip: Clip) -> list[str]:
    """The facts a clip's question reads: its query's fact, or each declared fact."""
    out = [clip.labels.query.fact] if clip.labels is not None else []
    return out + [k for k in clip.facts if k not in out and k != "segments"]


class Op:
    """Base of the single-clip ops."""

    name: ClassVar[str] = ""
    variation: ClassVar[str] = COUNTERFACTUAL
    effects: ClassVar[Mapping[str, E.Effect]] = {}
    # the name facts declare this op's effect under (``Fact.edits``); empty: ``effects`` only
    edit: ClassVar[str] = ""
    schema: ClassVar[dict[str, Any]] = {}

    def validate(self) -> None:
        """Check parameter ranges (types are checked from the annotations first): raise
        :class:`EditError` naming the parameter (``"size: ..."``). Called by :func:`make_op`."""

    def effect(self, fact: str) -> E.Effect:
        """What this op does to answers of ``fact``: the op's own ``effects`` entry, else what
        the fact's module declares for the op's :meth:`declaration` (undeclared: unknown, so
        refused)."""
        if fact in self.effects:
            return self.effects[fact]
        edit, kernel = self.declaration()
        return E.declared(edit, fact, kernel) if edit else E.UNKNOWN

    def declaration(self) -> tuple[str, E.Effect | None]:
        """The name facts declare this op under (:attr:`edit`, which may depend on the op's
        parameters) and its mapped effect, for facts that declare it ``mapped``."""
        return self.edit, None

    @property
    def upright(self) -> bool:
        """Whether down stays down on screen: false for picture flips and turns, which put a
        filmed person or a falling ball the wrong way up (kept off 3D scenes' variants)."""
        return True

    def __init_subclass__(cls, **kwargs: Any) -> None:
        """Refuse, when the class is defined, an op that could move frames without their
        states: a :class:`TimeOp` or :class:`SpaceOp` that replaces ``apply``, or an op outside
        tempogen's own that replaces ``__call__`` (where every check lives)."""
        super().__init_subclass__(**kwargs)
        base = next((b for b in cls.__mro__[1:] if b.__dict__.get("_moves_states")), None)
        if base is not None and "apply" in cls.__dict__:
            raise TypeError(
                f"op {cls.__name__}: a {base.__name__} may not override apply (it moves frames "
                f"and states together); say which frames it shows in "
                f"{'select' if base.__name__ == 'TimeOp' else 'maps'} instead"
            )
        if "__call__" in cls.__dict__ and not cls.__module__.startswith("tempogen.editing."):
            raise TypeError(
                f"op {cls.__name__}: may not override __call__, which checks every edit's "
                "labels; subclass TimeOp or SpaceOp, or implement apply"
            )

    def __call__(self, clip: Clip) -> Clip:
        label = f"{self.name}" + (f"({self._args()})" if self._args() else "")
        declared = {}
        for fact in asked_facts(clip):
            eff = self.effect(fact)
            E.require(label, eff, fact, has_states=clip.labels is not None and fact == _q(clip))
            declared[fact] = eff
        out = self.apply(clip)
        sel = time_map(self, clip, out)
        if clip.labels is not None and not isinstance(self, TimeOp | SpaceOp):
            _check_states_follow(label, clip, out, sel)
        if clip.facts:
            rel = None if sel is None else _relative_maps(clip, out, sel)
            moved = {}
            for k, v in clip.facts.items():
                if k != "segments":
                    E.check_time(label, declared[k], k, sel)
                    if rel is not None:
                        E.check_space(label, declared[k], k, rel)
                moved[k] = (
                    _move_segments(label, v, sel) if k == "segments" else declared[k].map(k, v)
                )
            out = out.evolve(facts=moved)
        if clip.labels is not None and out.labels is not None:
            fact = clip.labels.query.fact
            before = get_fact(fact).derive(clip.labels)
            eff = declared[fact]
            expected = None if before is None or eff.kind == "states" else eff.map(fact, before)
            E.check(label, eff, fact, expected, out.labels)
        record = {"op": self.name, **asdict(self)}  # type: ignore[call-overload]
        keep = not self.variation or self.variation in clip.variation
        flags = clip.variation if keep else clip.variation + (self.variation,)
        return out.evolve(edits=clip.edits + (record,), variation=flags)

    def _args(self) -> str:
        if not dataclasses.is_dataclass(self):
            return ""
        return ", ".join(f"{f.name}={getattr(self, f.name)!r}" for f in dataclasses.fields(self))

    def apply(self, clip: Clip) -> Clip:
        """The edited clip: frames (time map, per-frame transforms) and states moved."""
        raise NotImplementedError


def _move_segments(
    label: str, segments: Mapping[str, Any], sel: np.ndarray | None
) -> dict[str, list[int]]:
    """A pair's frame ranges (``pos``, ``gap``, ``neg``) after an edit: the output frames that
    show each range's input frames. Refused where a range is lost, split or shown twice."""
    if sel is None:
        raise EditError(f"{label}: cannot tell which frames show the pair's segments after it")
    out = {}
    for name, (start, end) in segments.items():
        j = np.flatnonzero((sel >= start) & (sel <= end))
        if len(j) == 0:
            raise EditError(f"{label}: drops the pair's {name!r} frames ({start}-{end})")
        if j[-1] - j[0] + 1 != len(j):
            raise EditError(
                f"{label}: the pair's {name!r} frames ({start}-{end}) would no longer be one run"
            )
        out[name] = [int(j[0]), int(j[-1])]
    return out


def _q(clip: Clip) -> str:
    return clip.labels.query.fact if clip.labels is not None else ""


def time_map(op: Op, clip: Clip, out: Clip) -> np.ndarray | None:
    """Output frame ``j`` of ``op(clip)`` shows input frame ``time_map[j]``: a TimeOp's
    ``select``, every frame in turn for a SpaceOp; for another op, traced from the frame
    indices the output records (the first input frame showing each source frame, in order
    where one repeats). None when the output's frames cannot be traced to the input's (a new
    frame source, a frame the input never showed). Not a method: no op can state its own."""
    if isinstance(op, SpaceOp):
        return np.arange(clip.num_frames)
    if isinstance(op, TimeOp):
        sel = np.asarray(op.select(clip))
        if len(sel) != out.num_frames or not np.array_equal(clip.index[sel], out.index):
            raise EditError(f"{op.name}: select() gave another time map on a second call")
        return sel
    if out.source is not clip.source:
        return None
    shown: dict[int, list[int]] = {}
    for j, s in enumerate(clip.index.tolist()):
        shown.setdefault(s, []).append(j)
    picked: list[int] = []
    prev = -1
    for s in out.index.tolist():
        cands = shown.get(s)
        if not cands:
            return None
        picked.append(next((j for j in cands if j >= prev), cands[0]))
        prev = picked[-1]
    return np.array(picked, dtype=int)


def _invert(maps: np.ndarray) -> np.ndarray:
    """Per-frame inverses of 2x3 affine maps."""
    lin = np.linalg.inv(maps[:, :, :2])
    t = -np.einsum("nij,nj->ni", lin, maps[:, :, 2])
    return np.concatenate([lin, t[:, :, None]], axis=2)


def _relative_maps(clip: Clip, out: Clip, sel: np.ndarray) -> np.ndarray:
    """Per output frame, the map from the input frame it shows (``sel``) to output pixels."""
    return compose(out.affine, _invert(clip.affine[sel]))


def _check_states_follow(label: str, clip: Clip, out: Clip, sel: np.ndarray | None) -> None:
    """Refuse an op with its own ``apply`` whose output states are not the input's states
    moved through the output's own time map and per-frame transforms."""
    from tempogen.editing import algebra

    if sel is None:
        raise EditError(
            f"{label}: its output frames cannot be traced to the input's, so its labels cannot "
            "be checked; write it as a TimeOp (select) or a SpaceOp (maps)"
        )
    if out.labels is None or clip.labels is None:
        raise EditError(f"{label}: the output lost the input's per-frame labels")
    rel = _relative_maps(clip, out, sel)
    want = algebra.retime(clip.labels, sel)
    if not np.allclose(rel, np.broadcast_to(np.eye(2, 3), rel.shape), atol=1e-9):
        want = algebra.move(want, rel, out.size, label)
    bad = _first_mismatch(want, out.labels)
    if bad is not None:
        raise EditError(
            f"{label}: the output's labels do not follow its frames ({bad}): the op moved "
            "frames without moving their states; write it as a TimeOp (select) or a SpaceOp "
            "(maps), which move both"
        )


def _first_mismatch(want: Labels, got: Labels) -> str | None:
    """Where two sets of per-frame states first differ, or None when they agree."""
    if got.num_frames != want.num_frames:
        return f"{got.num_frames} labelled frames for {want.num_frames} shown"
    names = [t.name for t in want.tracks]
    if [t.name for t in got.tracks] != names:
        return f"objects {[t.name for t in got.tracks]} for {names}"
    for a, b in zip(want.tracks, got.tracks, strict=True):
        for field in ("x", "y", "scale", "visible", "lit"):
            wa, ga = getattr(a, field), getattr(b, field)
            diff = ~np.isclose(wa, ga, atol=1e-6) if wa.dtype.kind == "f" else wa != ga
            if diff.any():
                return f"object {a.name!r} {field} at frame {int(np.flatnonzero(diff)[0])}"
        # angles are degrees: the same orientation a whole turn apart is no mismatch
        turn = np.angle(np.exp(1j * np.deg2rad(a.angle - b.angle)))
        if (np.abs(turn) > 1e-6).any():
            return f"object {a.name!r} angle at frame {int(np.flatnonzero(np.abs(turn) > 1e-6)[0])}"
    return None


class TimeOp(Op):
    """An op that only chooses which current frames are shown, in what order."""

    _moves_states: ClassVar[bool] = True

    def select(self, clip: Clip) -> np.ndarray:
        """Output frame ``j`` shows current frame ``select(clip)[j]``."""
        raise NotImplementedError

    def apply(self, clip: Clip) -> Clip:
        from tempogen.editing import algebra

        sel = np.asarray(self.select(clip))
        if len(sel) == 0:
            raise EditError(f"{self.name}: the edit leaves no frames")
        if sel.dtype.kind not in "iu" or sel.min() < 0 or sel.max() >= clip.num_frames:
            raise EditError(
                f"{self.name}: select() must give frame numbers 0..{clip.num_frames - 1}, "
                f"got {sel.dtype} from {sel.min()} to {sel.max()}"
            )
        check_cost(self, len(sel), clip.size)
        labels = algebra.retime(clip.labels, sel, op=self.name) if clip.labels is not None else None
        black = clip.black[sel] if clip.black is not None else None
        return clip.evolve(
            index=clip.index[sel], affine=clip.affine[sel], labels=labels, black=black
        )


def check_cost(op: Op, frames: int, size: tuple[int, int]) -> None:
    """Refuse an edit whose clip would pass the cost limits of :mod:`tempogen.config` (a clip
    longer than generate makes, too much memory or time), before any frame is made."""
    from tempogen.config import check_estimate, estimate

    label = f"{op.name}({op._args()})"
    check_estimate(estimate(frames, *size, kind="edit"), label, error=EditError)


def compose(m: np.ndarray, maps: np.ndarray) -> np.ndarray:
    """Per-frame ``m[j] o maps[j]`` for 2x3 affine maps (``m`` may be one map or one per frame)."""
    m = np.broadcast_to(m, maps.shape)
    lin = np.einsum("nij,njk->nik", m[:, :, :2], maps[:, :, :2])
    t = np.einsum("nij,nj->ni", m[:, :, :2], maps[:, :, 2]) + m[:, :, 2]
    return np.concatenate([lin, t[:, :, None]], axis=2)


class SpaceOp(Op):
    """An op that maps every frame's pixels through a similarity transform."""

    _moves_states: ClassVar[bool] = True

    def maps(self, clip: Clip) -> tuple[np.ndarray, tuple[int, int]]:
        """Per-frame 2x3 maps (or one) from current to output pixels, and the output size."""
        raise NotImplementedError

    def apply(self, clip: Clip) -> Clip:
        from tempogen.editing import algebra

        m, size = self.maps(clip)
        check_cost(self, clip.num_frames, size)
        m = np.broadcast_to(m, (clip.num_frames, 2, 3))
        labels = algebra.move(clip.labels, m, size, self.name) if clip.labels is not None else None
        return clip.evolve(affine=compose(m, clip.affine), size=size, labels=labels)


def make_op(name: str, params: Any = None) -> Op:
    """Build a registered op from its name and parameters (a mapping, a list, one value, none).

    Every parameter is checked against its annotation (a number where ``float`` is annotated,
    finite; a whole number for ``int``; a list of the right length for a tuple), then the op's
    own :meth:`Op.validate` checks ranges: errors name the op and the parameter."""
    cls: Any = OPS.lookup(name)  # an Op dataclass: its fields are its parameters
    fields = [f.name for f in dataclasses.fields(cls)]
    if isinstance(params, dict):
        unknown = [k for k in params if k not in fields]
        if unknown:
            raise EditError(
                f"{name}: unknown parameter(s) {unknown}; parameters: {', '.join(fields) or 'none'}"
            )
    try:
        if params is None:
            op = cls()
        elif isinstance(params, dict):
            op = cls(**params)
        elif isinstance(params, list | tuple) and getattr(cls, "takes_list", False) is False:
            op = cls(*params)
        else:
            op = cls(params)
    except TypeError as exc:
        raise EditError(f"{name}: bad parameters {params!r}: {exc}") from None
    check_params(op)
    try:
        op.validate()
    except EditError as exc:
        raise EditError(f"{name}: {exc}") from None
    return op


def check_params(op: Op) -> None:
    """Each parameter of ``op`` against its annotation; an error names the op and parameter."""
    hints = typing.get_type_hints(type(op))
    for f in dataclasses.fields(op):  # type: ignore[arg-type]
        problem = _mismatch(getattr(op, f.name), hints.get(f.name, Any))
        if problem is not None:
            where, detail = problem
            raise EditError(f"{op.name}: {f.name}{where}: {detail}")


def _mismatch(value: Any, hint: Any, where: str = "") -> tuple[str, str] | None:
    """Where in ``value`` it does not fit ``hint``, and why; None when it fits."""
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if hint is Any or (origin is None and not isinstance(hint, type)):
        return None
    if origin in (typing.Union, getattr(__import__("types"), "UnionType", None)):
        problems = [_mismatch(value, a, where) for a in args]
        if all(p is not None for p in problems):
            # an arm of the right type says what is wrong with the value (``inf``, ``[2]``)
            closer = [p for p in problems if p and (p[0] != where or "expected" not in p[1])]
            return closer[0] if closer else (where, f"expected {_words(hint)}, got {value!r}")
        return None
    if hint is type(None):
        return None if value is None else (where, f"expected null, got {value!r}")
    if origin in (tuple, list) or hint in (tuple, list):
        if not isinstance(value, tuple | list):
            return where, f"expected {_words(hint)}, got {value!r}"
        if origin is tuple and args and args[-1] is not Ellipsis and len(args) != len(value):
            return where, f"expected {len(args)} values, got {len(value)}: {list(value)!r}"
        items = args[:1] if origin is list or (args and args[-1] is Ellipsis) else args
        for i, v in enumerate(value):
            inner = items[0] if len(items) == 1 else items[i] if items else Any
            problem = _mismatch(v, inner, f"{where}[{i}]")
            if problem is not None:
                return problem
        return None
    if hint is float:
        if isinstance(value, bool) or not isinstance(value, int | float):
            return where, f"expected a number, got {value!r}"
        try:
            finite = math.isfinite(value)
        except OverflowError:  # an integer past any float
            finite = False
        if not finite:
            return where, f"must be a finite number, got {value!r}"
        return None
    if hint is int:
        if isinstance(value, bool) or not isinstance(value, int):
            return where, f"expected a whole number, got {value!r}"
        return None
    if hint in (str, bool) and not isinstance(value, hint):
        return where, f"expected {_words(hint)}, got {value!r}"
    return None


def _words(hint: Any) -> str:
    """An annotation in words: ``float | None`` -> ``a number or null``."""
    args = typing.get_args(hint)
    if typing.get_origin(hint) in (typing.Union, getattr(__import__("types"), "UnionType", None)):
        return " or ".join(_words(a) for a in args)
    names = {float: "a number", int: "a whole number", str: "a string", bool: "true or false"}
    if hint is type(None):
        return "null"
    if typing.get_origin(hint) is tuple and args and args[-1] is not Ellipsis:
        return f"a list of {len(args)} values"
    if typing.get_origin(hint) in (tuple, list) or hint in (tuple, list):
        return "a list"
    return names.get(hint, getattr(hint, "__name__", str(hint)))

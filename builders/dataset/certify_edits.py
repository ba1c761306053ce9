"""Whether an edited clip can still show its answer: enough distinct moments among TOMATO's 16
samples for a declared fact, and, for per-frame states, a certificate that 16 (and 80)
uniform samples give the answer every frame gives; refusals say which reading disagrees."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from tempogen.builders.dataset.edited_clips import VariantRejected
from tempogen.editing import Clip
from tempogen.facts import FACTS, Fact
from tempogen.generators.build import certificate_json
from tempogen.generators.motion import (
    LAP_MARGIN,
    MAX_TURN_PER_SAMPLE,
    SAMPLES,
    VIDEOTT_SAMPLES,
    Certificate,
    certify,
)
from tempogen.labels import Labels
from tempogen.observe import uniform_indices
from tempogen.questions import answer_key


def shown_moments(clip: Clip) -> int:
    """The moments TOMATO's 16 uniform samples of ``clip`` show: runs of one source picture
    among the samples that are not black gap frames (a freeze repeats one moment)."""
    ids = clip.content_ids()[uniform_indices(clip.num_frames, SAMPLES)]
    ids = ids[ids >= 0]
    return int(len(ids) and 1 + np.count_nonzero(ids[1:] != ids[:-1]))


def distinct_frames(clip: Clip) -> int:
    """How many different source pictures ``clip`` shows (black gap frames are none)."""
    ids = clip.content_ids()
    return len(np.unique(ids[ids >= 0]))


def moments_needed(fact: str, value: Any) -> int:
    """The fewest sampled moments that can show a declared answer (the fact says:
    :meth:`Fact.moments_needed`); a frame range of a pair needs none."""
    if fact == "segments":
        return 0
    return (FACTS.get(fact) or Fact()).moments_needed(value)


def require_shown(source: Clip, edited: Clip) -> None:
    """Refuse an edit of a clip without per-frame states that leaves too few frames to show
    its declared facts: fewer distinct frames than TOMATO's 16 samples (or the source's, if
    it had fewer), or 16 samples showing fewer moments than a fact needs (``speed: 1e9``
    leaves one frame; a loop of a counted clip may count more than 16 samples can show)."""
    had, kept = distinct_frames(source), distinct_frames(edited)
    if kept < min(SAMPLES, had):
        raise VariantRejected(
            f"the edited clip shows {kept} distinct frame(s) of the source's {had}, fewer than "
            f"TOMATO's {SAMPLES} samples: too few to show its declared "
            + ", ".join(k for k in source.facts if k != "segments")
        )
    shown = shown_moments(edited)
    for fact, value in edited.facts.items():
        need = moments_needed(fact, value)
        if shown < need:
            raise VariantRejected(
                f"TOMATO's {SAMPLES} samples of the edited clip show {shown} distinct "
                f"moment(s); its declared {fact} {value!r} needs {need}"
            )


def _key(fact: str, value: Any) -> str:
    return "nothing" if value is None else repr(answer_key(fact, value))


def uncertified_reason(cert: Certificate, fact: str) -> str:
    """Why a certificate fails, in words (which reading disagrees with every frame's)."""
    if cert.full is None:
        return f"not certified at {SAMPLES} frames: the edited states determine no answer"
    full = _key(fact, cert.full)
    why = [
        f"TOMATO's {SAMPLES} samples show {_key(fact, cert.sampled)}"
        if _key(fact, cert.sampled) != full
        else "",
        f"Video-TT's {VIDEOTT_SAMPLES} samples show {_key(fact, cert.sampled_80)}"
        if _key(fact, cert.sampled_80) != full
        else "",
        f"the first frame alone shows {_key(fact, cert.first_only)}"
        if cert.first_only is not None
        else "",
        f"the last frame alone shows {_key(fact, cert.last_only)}"
        if cert.last_only is not None
        else "",
        f"it turns {cert.max_turn:.0f} degrees between samples (over {MAX_TURN_PER_SAMPLE:g})"
        if cert.max_turn > MAX_TURN_PER_SAMPLE
        else "",
        f"its laps end {cert.lap_margin:.1f} degrees from a whole lap (under {LAP_MARGIN:g})"
        if cert.lap_margin is not None and cert.lap_margin < LAP_MARGIN
        else "",
    ]
    return f"not certified at {SAMPLES} frames: every frame shows {full}, but " + "; ".join(
        w for w in why if w
    )


def certificate_of(labels: Labels, fact: str, require: bool) -> dict[str, Any]:
    """The stored certificate of edited states; an answer TOMATO's 16 samples (or Video-TT's
    80, or one frame) would not give is refused, or with ``require`` off kept and marked
    ``ok: false``."""
    cert = certify(labels)
    if cert.full is not None and cert.ok(fact, answer_key(fact, cert.full)):
        return certificate_json(cert)
    if require:
        raise VariantRejected(uncertified_reason(cert, fact))
    return {"ok": False, **certificate_json(cert)}


def stored_certified(row: Mapping[str, Any], fact: str) -> bool:
    """Whether a written row's own certificate holds for its answer (read from the record,
    as :meth:`Certificate.ok` reads the states): a record an earlier run wrote without
    certifying it is not taken as certified."""
    cert, labels = row.get("certificate"), row.get("labels")
    if not isinstance(cert, dict) or not isinstance(labels, dict) or cert.get("ok") is False:
        return False
    try:
        key = answer_key(fact, labels["answer"])

        def same(v: Any) -> bool:
            return v is not None and answer_key(fact, v) == key

        return (
            same(cert["sampled"])
            and same(cert["sampled_80"])
            and cert["first_frame_only"] is None
            and cert["last_frame_only"] is None
            and cert["max_turn_per_sample"] <= MAX_TURN_PER_SAMPLE
        )
    except (KeyError, TypeError, ValueError):
        return False

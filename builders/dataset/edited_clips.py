"""A manifest row's clip, and the row of an edited clip: the video read with its labels (per-frame
states, or declared facts in each fact's own tokens), the row's words made true of the edited
states, and its question, options and answer written anew from the edited answer."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from tempogen.editing import Clip, EditError
from tempogen.facts import FACTS, answer_of
from tempogen.generators.motion import Motion
from tempogen.labels import Labels, Query
from tempogen.manifest import Row
from tempogen.questions import (
    WordingError,
    answer_key,
    check_declared_wording,
    choose_options,
    option_text,
)


class VariantRejected(EditError):
    """A variant that is sound but unusable (its answer is not certified at 16 frames)."""


def normalise_facts(facts: dict[str, Any], where: str) -> dict[str, Any]:
    """Declared facts in each fact's own tokens (``clockwise`` -> ``cw``: :meth:`Fact.declared`)."""
    if not isinstance(facts, dict):
        raise EditError(f"{where}: labels must be a mapping of fact to value, got {facts!r}")
    out: dict[str, Any] = {}
    for k, v in facts.items():
        if k not in tuple(FACTS):
            raise EditError(f"{where}: labels.{k}: unknown label; known: {', '.join(tuple(FACTS))}")
        out[k] = FACTS[k].declared(v)
    return out


def load_clip(row: dict[str, Any], manifest_dir: Path) -> Clip:
    """A row's video with its labels: per-frame states when present, else declared facts."""
    where = f"row {row.get('id', '?')}"
    if "video" not in row:
        raise EditError(f"{where}: missing field 'video'")
    video = manifest_dir / row["video"]
    labels = row.get("labels") or {}
    if "tracks" in labels:
        return Clip.from_video(video, Labels.from_json(labels))
    return Clip.from_video(video, facts=normalise_facts(labels, where))


def reworded(clip: Clip, motion: Motion | None) -> Clip:
    """An edited clip whose row's words (its question's time words, nouns that name a side)
    are made true of its states by its pattern (:meth:`Motion.reword`), or refused."""
    if clip.labels is None or motion is None:
        return clip
    try:
        return clip.evolve(labels=motion.reword(clip.labels))
    except WordingError as exc:
        raise VariantRejected(f"{motion.name}: {exc}") from exc


def question_fields(
    row: dict[str, Any], clip: Clip, rng: np.random.Generator, motion: Motion | None
) -> dict[str, Any]:
    """Question and options rewritten from the edited clip's answer (``motion``: the source
    row's pattern, for clips with per-frame labels)."""
    if clip.labels is not None and motion is not None:
        asked = motion.fact
        value = answer_of(clip.labels)
        if value is None:
            raise VariantRejected("the edited states do not determine an answer")
        key = answer_key(asked, value)
        keys = choose_options(asked, key, clip.labels, rng)
        return {
            "question": motion.question_text(clip.labels),
            "options": [option_text(asked, k, clip.labels) for k in keys],
            "option_keys": keys,
            "answer": keys.index(key),
            "answer_text": option_text(asked, key, clip.labels),
            "answer_key": key,
        }
    fact = row.get("fact") or (next(iter(clip.facts)) if len(clip.facts) == 1 else None)
    if fact is None or fact not in clip.facts or "question" not in row:
        return {}
    check_declared_wording(row["question"], fact)
    key = answer_key(fact, clip.facts[fact])
    dummy = Labels(clip.size[0], clip.size[1], clip.fps, (), Query(fact, ()), {})
    keys = choose_options(fact, key, dummy, rng)
    return {
        "question": row["question"],
        "options": [option_text(fact, k, dummy) for k in keys],
        "option_keys": keys,
        "answer": keys.index(key),
        "answer_text": option_text(fact, key, dummy),
        "answer_key": key,
    }


def edited_row(source: Row | dict[str, Any], /, **changes: Any) -> dict[str, Any]:
    """The row of an edited clip: the source row with ``changes`` (``None`` drops a field).

    A manifest row (a :class:`Row`) gives a manifest row again; a user's clip record (a dict)
    keeps its own fields, as given, with the changes on top.
    """
    changes = {"pair": None, **changes}  # a variant of a minimal pair's member is in no pair
    if isinstance(source, Row):
        return source.edited(**changes).to_json()
    kept = {k: v for k, v in source.items() if k not in changes}
    return {**kept, **{k: v for k, v in changes.items() if v is not None}}

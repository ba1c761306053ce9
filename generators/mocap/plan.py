"""The mocap share of a plan: which human questions are cut from motion files, their
patterns, answers and windows.

``mocap.share`` of each task's human questions (rounded up), picked by a generator of their
own, go to the mocap patterns that have certified windows for the task, taking turns; each
pattern's answers cycle through the keys its windows offer (as :func:`plan` cycles a
pattern's own keys), and the window for an answer is drawn from those that give it, each used
once before any is used again.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from tempogen.generators.mocap.catalogue import (
    Candidate,
    Catalogue,
    build_catalogue,
    mocap_files,
)
from tempogen.generators.mocap.source import Source, file_sha256
from tempogen.generators.motion import Motion, get_motion, motions_for
from tempogen.io import content_hash

if TYPE_CHECKING:
    from tempogen.config import DatasetConfig

MOCAP_DRAW = 16  # tag of the config-level draw of mocap slots (planning.py lists the others)
_BUILT: dict[str, Catalogue] = {}  # catalogues built in this process, by config and folder


def mocap_motions(cfg: DatasetConfig) -> list[Motion]:
    """The mocap patterns of the config's tasks (and of its ``motions``, if it names any)."""
    return [
        m
        for task in cfg.tasks
        for m in motions_for(task, sourced=True)
        if not cfg.motions or m.name in cfg.motions
    ]


def catalogue(cfg: DatasetConfig, cache: Path | None, version: int) -> Catalogue:
    """The config's catalogue, built once per process for the files' present bytes (and
    kept under ``cache``)."""
    files = [(rel, file_sha256(path)) for rel, path, _ in mocap_files(cfg)]
    key = content_hash([cfg.to_json(), cfg.source, str(cache), version, files])
    if key not in _BUILT:
        _BUILT[key] = build_catalogue(cfg, mocap_motions(cfg), cache, version)
    return _BUILT[key]


@dataclass
class MocapPlan:
    """The catalogue and the state of the cycles that hand out its windows."""

    catalogue: Catalogue
    keys: dict[str, list[str]] = field(default_factory=dict)
    windows: dict[tuple[str, str], list[Candidate]] = field(default_factory=dict)

    def assign(self, cfg: DatasetConfig, t_index: int, task: str, slots: list[Motion]) -> list[str]:
        """Per slot of a task's questions: the mocap pattern that takes it, or ""."""
        out = [""] * len(slots)
        have = sorted({c.motion for c in self.catalogue.for_task(task)})
        human = [i for i, m in enumerate(slots) if m.renderer == "human"]
        if not have or not human:
            return out
        rng = np.random.default_rng([cfg.seed, MOCAP_DRAW, t_index])
        k = min(len(human), math.ceil(cfg.mocap.share * len(human) - 1e-9))
        turn: list[str] = []
        for j in sorted(int(human[i]) for i in rng.permutation(len(human))[:k]):
            if not turn:
                turn = [have[i] for i in rng.permutation(len(have))]
            out[j] = turn.pop()
        return out

    def take(self, name: str, rng: np.random.Generator) -> tuple[Motion, str, str]:
        """The next answer of mocap pattern ``name`` and a window that gives it."""
        mine = [c for c in self.catalogue.candidates if c.motion == name]
        keys = self.keys.setdefault(name, [])
        if not keys:
            offered = sorted({c.key for c in mine})
            keys.extend(offered[j] for j in rng.permutation(len(offered)))
        key = keys.pop()
        pool = self.windows.setdefault((name, key), [])
        if not pool:
            given = [c for c in mine if c.key == key]
            pool.extend(given[j] for j in rng.permutation(len(given)))
        return get_motion(name), key, pool.pop().source

    @staticmethod
    def frames(source: str) -> int:
        return Source.from_json(source).frames


def mocap_plan(cfg: DatasetConfig, cache: Path | None, version: int) -> MocapPlan:
    """A fresh plan over the config's catalogue."""
    return MocapPlan(catalogue(cfg, cache, version))


def mocap_line(cfg: DatasetConfig, cache: Path | None, version: int, questions: int) -> str:
    """The build report's mocap line (see :meth:`Catalogue.line`)."""
    return catalogue(cfg, cache, version).line(questions)

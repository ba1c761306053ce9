"""Temporal-only encoding (SpookyBench's idea): every frame alone is noise, and the objects a
question reads show only through temporal coherence.

The canvas is a grid of square cells, each one grey level out of ``LEVELS``. A cell under a
foreground object (more than half covered in that frame) shows a fixed texture drawn once per
clip, static in screen space; every other cell is drawn afresh each frame. Each frame alone is
therefore i.i.d. uniform levels inside and outside the objects, the same distribution (no
shape information), while between consecutive frames the foreground cells keep their level
and the background ones mostly change: the moving window of still noise is the subject.

``recover_cells`` is the motion signal a viewer (and the pixel audit) reads: cells unchanged
over three consecutive frames. ``single_frame_stats`` is the single-frame observer's test:
level histograms and neighbour agreement inside versus outside a mask.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Any

import cv2
import numpy as np

from tempogen.errors import GenerationError
from tempogen.labels import Labels

TEMPORAL_NOISE = "temporal_noise"
ENCODINGS = ("", TEMPORAL_NOISE)  # "" = plain rendering
LEVELS = 8  # grey levels of a cell: far enough apart that the codec never moves one (with 16,
# x264 smooths still texture enough that a single frame shows where it is)
STILL_TOL = 0.5  # a cell is unchanged when its level moved by less than half a step
MIN_NEIGHBOURS = 3  # a still cell counts when this many of its 8 neighbours are still too
MIN_REGION = 5  # cells: a smaller still region is chance agreement of redrawn noise
MIN_IOU = 0.5  # recovered motion-signal mask vs the true one, at every sampled frame
MIN_P = 1e-3  # a single frame's chi-square p-value (inside vs outside) must stay above this
FG_COVER = 0.5  # a cell belongs to the foreground when objects cover more than this share


class NotNoiseable(GenerationError):
    """A pattern, or one clip of it, that a noise encoding cannot show soundly."""


def cell_size(width: int, height: int) -> int:
    """Side of a noise cell in pixels: 1/90 of the shorter side (4 at 360p), at least 2."""
    return max(2, int(round(min(width, height) / 90)))


def grid_shape(width: int, height: int, cell: int) -> tuple[int, int]:
    """Cells down and across (the last ones may stick out of the canvas)."""
    return math.ceil(height / cell), math.ceil(width / cell)


class NoiseEncoder:
    """Turns per-frame foreground masks into noise frames, one at a time, reusing buffers.

    ``rng`` draws the static texture once, then each frame's background noise, so the same
    seed gives the same bytes.
    """

    def __init__(
        self, width: int, height: int, rng: np.random.Generator, cell: int | None = None
    ) -> None:
        self.width, self.height = int(width), int(height)
        self.cell = cell or cell_size(width, height)
        self.gh, self.gw = grid_shape(width, height, self.cell)
        self.rng = rng
        self.palette = np.round(np.linspace(0, 255, LEVELS)).astype(np.uint8)
        self.texture = self.palette[rng.integers(0, LEVELS, (self.gh, self.gw))]
        self._pad = np.zeros((self.gh * self.cell, self.gw * self.cell), np.uint8)
        self._cover = np.empty((self.gh, self.gw), np.uint8)
        self._cells = np.empty((self.gh, self.gw), np.uint8)
        self._big = np.empty_like(self._pad)
        self._out = np.empty((self.height, self.width, 3), np.uint8)

    def cells_of(self, mask: np.ndarray) -> np.ndarray:
        """Foreground cells (gh, gw) of a pixel mask (H, W): those covered more than half."""
        view = self._pad[: self.height, : self.width]
        np.copyto(view, mask, casting="unsafe")
        if mask.dtype == bool:
            view *= 255
        cv2.resize(self._pad, (self.gw, self.gh), dst=self._cover, interpolation=cv2.INTER_AREA)
        return self._cover > int(255 * FG_COVER)

    def encode(self, fg: np.ndarray) -> np.ndarray:
        """The noise frame (H, W, 3) uint8 for foreground cells ``fg`` (gh, gw); the array is
        reused by the next call."""
        drawn = self.rng.integers(0, LEVELS, (self.gh, self.gw), dtype=np.uint8)
        np.take(self.palette, drawn, out=self._cells)
        np.copyto(self._cells, self.texture, where=fg)
        cv2.resize(
            self._cells, self._big.shape[::-1], dst=self._big, interpolation=cv2.INTER_NEAREST
        )
        cv2.cvtColor(self._big[: self.height, : self.width], cv2.COLOR_GRAY2RGB, dst=self._out)
        return self._out


def level_cells(frame: np.ndarray, cell: int) -> np.ndarray:
    """A decoded frame's cells as level indices (gh, gw) (0..LEVELS-1), the codec's error
    rounded away: each cell's mean grey, to the nearest level."""
    grey = frame if frame.ndim == 2 else frame[..., 1]  # grey noise: any channel is the luma
    h, w = grey.shape
    gh, gw = grid_shape(w, h, cell)
    pad = cv2.copyMakeBorder(
        np.ascontiguousarray(grey), 0, gh * cell - h, 0, gw * cell - w, cv2.BORDER_REPLICATE
    ).astype(np.float32)
    mean = cv2.resize(pad, (gw, gh), interpolation=cv2.INTER_AREA)
    step = 255.0 / (LEVELS - 1)
    return np.clip(np.round(mean / step), 0, LEVELS - 1).astype(np.int16)


def recover_cells(cur: np.ndarray, nxt: np.ndarray) -> np.ndarray:
    """The motion signal: cells (gh, gw) whose level holds from one frame to the next (level
    cells, :func:`level_cells`), chance agreements of redrawn noise (1 in ``LEVELS``) removed:
    a still cell counts when :data:`MIN_NEIGHBOURS` of its neighbours are still too, in a
    region of :data:`MIN_REGION` cells or more."""
    still = (np.abs(nxt - cur) < STILL_TOL).astype(np.uint8)
    near = cv2.boxFilter(still, cv2.CV_16U, (3, 3), normalize=False, borderType=cv2.BORDER_CONSTANT)
    kept = ((still > 0) & (near >= 1 + MIN_NEIGHBOURS)).astype(np.uint8)
    n, lab, stats, _ = cv2.connectedComponentsWithStats(kept, connectivity=8)
    return np.isin(lab, 1 + np.flatnonzero(stats[1:, cv2.CC_STAT_AREA] >= MIN_REGION))


def pair(i: int, n: int) -> tuple[int, int]:
    """The two consecutive frames read for frame ``i`` (the last frame pairs backwards)."""
    return (i, i + 1) if i + 1 < n else (i - 1, i)


MAX_STEP = 0.35  # a foreground object moves at most this share of its radius per frame
MIN_RADIUS = 5.0  # cells: a smaller object's still region is mostly rim, which noise erodes


def too_fast(labels: Labels) -> str:
    """Why a noise clip of these labels could not be read ("" if it can): still noise shows an
    object only where it overlaps itself from one frame to the next, so none may move (a
    turn counted at its rim) more than :data:`MAX_STEP` of its radius per frame, nor be under
    :data:`MIN_RADIUS` cells in radius."""
    cell = cell_size(labels.width, labels.height)
    if labels.meta.get("renderer") == "human":
        return _too_fast_human(labels, cell)
    for name in foreground(labels):
        t = labels.track(name)
        r = t.size * np.maximum(t.scale, 1e-6)
        if float(r.min()) < MIN_RADIUS * cell:
            return f"{name} is {float(r.min()) / cell:.1f} cells in radius (at least {MIN_RADIUS})"
        step = np.hypot(np.diff(t.x), np.diff(t.y)) + np.radians(np.abs(np.diff(t.angle))) * r[1:]
        worst = float(np.max(step / r[1:])) if len(step) else 0.0
        if worst > MAX_STEP:
            return f"{name} moves {worst:.2f} of its radius in one frame (at most {MAX_STEP})"
    return ""


BODY_RADIUS = 0.08  # of the frame's height: the torso's half-width of a person framed whole
# (the eligible patterns' cameras fill 0.8 of the height or more with the standing person)


def _too_fast_human(labels: Labels, cell: int) -> str:
    """:func:`too_fast` for a simulated person, whose silhouette (the whole body, far larger
    than the tracked feet or pelvis) is the still region: at every sampled frame and the one
    paired with it (all the motion signal reads), the tracks the question reads may move at
    most :data:`MAX_STEP` of the torso's half-width."""
    from tempogen.generators.motion import SAMPLES
    from tempogen.observe import uniform_indices

    r = BODY_RADIUS * labels.height
    if r < MIN_RADIUS * cell:
        return f"the person is {r / cell:.1f} cells in half-width (at least {MIN_RADIUS})"
    n = labels.num_frames
    for name in foreground(labels):
        t = labels.track(name)
        for i in uniform_indices(n, SAMPLES):
            a, b = pair(int(i), n)
            step = float(np.hypot(t.x[b] - t.x[a], t.y[b] - t.y[a]))
            if step > MAX_STEP * r:
                return (
                    f"{name} moves {step / r:.2f} of the body's half-width between frames "
                    f"{a} and {b} (at most {MAX_STEP})"
                )
    return ""


def iou(a: np.ndarray, b: np.ndarray) -> float:
    """Intersection over union of two boolean masks (1.0 when both are empty)."""
    union = int((a | b).sum())
    return 1.0 if union == 0 else float((a & b).sum()) / union


def single_frame_stats(levels: np.ndarray, inside: np.ndarray) -> dict[str, float]:
    """What one frame says about a region: chi-square p-value of its level histogram against
    the rest's, and how often a cell equals its right neighbour inside and outside (a shape
    drawn in a single frame, by level or by texture, moves one or the other)."""
    from scipy.stats import chi2_contingency

    a = np.bincount(levels[inside].ravel(), minlength=LEVELS)
    b = np.bincount(levels[~inside].ravel(), minlength=LEVELS)
    table = np.stack([a, b]) + 1  # +1: no empty column
    p = float(chi2_contingency(table)[1]) if a.sum() and b.sum() else 1.0
    same = levels[:, 1:] == levels[:, :-1]
    pair_in = inside[:, 1:] & inside[:, :-1]
    pair_out = ~inside[:, 1:] & ~inside[:, :-1]
    return {
        "chi2_p": p,
        "neighbour_same_in": float(same[pair_in].mean()) if pair_in.any() else 0.0,
        "neighbour_same_out": float(same[pair_out].mean()) if pair_out.any() else 0.0,
        "cells_in": int(a.sum()),
    }


def single_frame_blind(stats: list[dict[str, float]]) -> bool:
    """Whether single frames carry no region information: every chi-square p-value (Bonferroni
    over the frames) above :data:`MIN_P`, and neighbour agreement inside within a binomial
    band (five standard errors of one frame's cells, plus 0.02) of the outside's."""
    for s in stats:
        if s["chi2_p"] < MIN_P / max(len(stats), 1):
            return False
    # the still texture is the same cells from frame to frame: one frame's count is the
    # number of independent draws (a clip at rest shows one patch sixteen times)
    pairs = min((s["cells_in"] for s in stats if s["cells_in"]), default=0)
    if not pairs:
        return True
    mean_in = float(np.mean([s["neighbour_same_in"] for s in stats]))
    mean_out = float(np.mean([s["neighbour_same_out"] for s in stats]))
    p0 = 1.0 / LEVELS
    band = 5.0 * math.sqrt(p0 * (1 - p0) / pairs) + 0.02
    return abs(mean_in - mean_out) <= band


# eligibility and wording ------------------------------------------------------------------


def check_eligible(motion: Any, labels: Labels | None = None) -> None:
    """Refuse (GenerationError) a pattern whose question a noise clip cannot show: one that is
    not marked ``temporal_noise`` (its answer needs colour, light or a painted mark), or whose
    labels read a lamp."""
    if not getattr(motion, "temporal_noise", False):
        raise NotNoiseable(
            f"motion {motion.name!r} cannot be noise-encoded: its question needs appearance "
            "(colour, a light, a painted mark or a person's gloves), which noise hides; "
            "noise-encodable patterns set temporal_noise = True"
        )
    if labels is not None:
        q = labels.query
        cues = [o for o in q.objects if labels.track(o).role == "cue"]
        if q.kind in ("flash", "lit") or cues:
            raise NotNoiseable(
                f"motion {motion.name!r} cannot be noise-encoded: it reads a light "
                f"({', '.join(cues) or q.kind}), which noise hides"
            )
        if labels.meta.get("renderer") == "human" and (
            labels.meta.get("people") or labels.meta.get("props")
        ):
            raise NotNoiseable(
                f"motion {motion.name!r}: this clip cannot be noise-encoded: a second person or "
                "a held prop would be a second silhouette, which noise cannot name apart"
            )
        fast = too_fast(labels)
        if fast:
            raise NotNoiseable(f"motion {motion.name!r}: this clip cannot be noise-encoded: {fast}")


def foreground(labels: Labels) -> list[str]:
    """Tracks drawn as still noise: every drawn object (distractors are off in noise clips)."""
    return [t.name for t in labels.tracks if t.role not in ("anchor", "distractor")]


def _bare(noun: str) -> str:
    from tempogen.generators.motion import COLORS

    words = [w for w in noun.split() if w not in COLORS]
    return " ".join(words) if len(words) > 1 else "the object"


def noise_nouns(labels: Labels, kind: str = "shape") -> tuple[dict[str, str], dict[str, Any]]:
    """Nouns for a noise clip (no colours: noise has none) and how the pixel audit tells the
    objects apart: ``{"by": "one" | "size" | "x", "order": [names]}``.

    One object is named by its kind alone ("the circle"); two or three by their drawn size
    ("the smaller shape") when each is at least 1.25 times the next, else by where they stand
    ("the left shape"), in every frame. Objects that neither tells apart are refused.
    """
    names = foreground(labels)
    nouns = dict(labels.meta.get("nouns", {}))
    if len(names) == 1:
        nouns[names[0]] = _bare(nouns.get(names[0], "the object"))
        return nouns, {"by": "one", "order": names}
    if len(names) > 3:
        raise NotNoiseable(f"{len(names)} objects in one noise clip cannot be named apart")
    # the names must hold in every frame: the audit tells regions apart frame by frame
    sizes = {n: labels.track(n).size * np.asarray(labels.track(n).scale, float) for n in names}
    by_size = sorted(names, key=lambda n: float(sizes[n][0]))
    if all(np.all(sizes[b] >= 1.25 * sizes[a]) for a, b in zip(by_size[:-1], by_size[1:])):
        words = ["smaller", "larger"] if len(names) == 2 else ["smallest", "middle", "largest"]
        nouns.update({n: f"the {w} {kind}" for n, w in zip(by_size, words)})
        return nouns, {"by": "size", "order": by_size}
    xs = {n: np.asarray(labels.track(n).x, float) for n in names}
    by_x = sorted(names, key=lambda n: float(xs[n][0]))
    gap = min(float(np.min(xs[b] - xs[a])) for a, b in zip(by_x[:-1], by_x[1:]))
    if gap >= 2.5 * max(float(np.max(v)) for v in sizes.values()):
        words = ["left", "right"] if len(names) == 2 else ["left", "middle", "right"]
        nouns.update({n: f"the {w} {kind}" for n, w in zip(by_x, words)})
        return nouns, {"by": "x", "order": by_x}
    raise NotNoiseable(
        f"objects {names} are neither sized nor placed apart enough to be named in noise"
    )


def encoding_meta(labels: Labels, cell: int, tell: dict[str, Any]) -> dict[str, Any]:
    """What ``labels.meta["encoding"]`` records of a noise clip."""
    return {"style": TEMPORAL_NOISE, "cell": cell, "levels": LEVELS, **tell}


class NoiseClip:
    """One noise-encoded clip being rendered: streams its noise frames, keeps what its
    certificate needs (the true foreground cells of the audited frames, the clean samples),
    then certifies the encoded video.

    ``clean_and_masks`` yields each clean frame and its foreground coverage (H, W); ``idx``
    are the frames a viewer samples (TOMATO's 16).
    """

    def __init__(
        self,
        labels: Labels,
        clean_and_masks: Iterator[tuple[np.ndarray, np.ndarray]],
        rng: np.random.Generator,
        idx: np.ndarray,
    ) -> None:
        self.labels = labels
        self.n = labels.num_frames
        self.cell = int(labels.meta["encoding"]["cell"])
        self.encoder = NoiseEncoder(labels.width, labels.height, rng, self.cell)
        self.idx = [int(i) for i in idx]
        self.read = sorted({f for i in self.idx for f in pair(i, self.n)})
        self.truth: dict[int, np.ndarray] = {}
        self.clean: dict[int, np.ndarray] = {}
        self._source = clean_and_masks

    def frames(self) -> Iterator[np.ndarray]:
        """The noise frames, in order (one reused array)."""
        keep, samples = set(self.read), set(self.idx)
        for i, (clean, mask) in enumerate(self._source):
            fg = self.encoder.cells_of(mask)
            if i in keep:
                self.truth[i] = fg.copy()
            if i in samples:
                self.clean[i] = clean.copy()
            yield self.encoder.encode(fg)

    def certify(self, decoded: dict[int, np.ndarray]) -> tuple[dict[str, Any], list[np.ndarray]]:
        """The certificate (JSON-ready) from the decoded frames at :attr:`read`, and the
        motion-signal cells at each sample. Raises GenerationError when a single frame shows
        the foreground or the motion signal misses it."""
        cert, motion = certify_levels(
            {i: level_cells(decoded[i], self.cell) for i in self.read}, self.idx, self.n,
            self.truth,
        )  # fmt: skip
        if not cert["single_frame_blind"]:
            raise GenerationError(f"noise clip: a single frame shows the foreground: {cert}")
        if cert["min_iou"] < MIN_IOU:
            raise GenerationError(
                f"noise clip: the motion signal misses the foreground (IoU {cert['min_iou']:.2f}"
                f" < {MIN_IOU}): {cert}"
            )
        return cert, motion


def certify_levels(
    levels: dict[int, np.ndarray],
    idx: list[int],
    n: int,
    truth: dict[int, np.ndarray] | None = None,
) -> tuple[dict[str, Any], list[np.ndarray]]:
    """Single-frame statistics and the motion signal at each sampled frame of ``idx`` from
    level cells of the frames :func:`pair` reads. The single-frame test is run inside the
    true foreground (``truth``, cells per frame) when given, else inside the recovered one."""
    motion = [recover_cells(*(levels[f] for f in pair(i, n))) for i in idx]
    inside = [
        truth[i] if truth is not None else m for i, m in zip(idx, motion)
    ]  # fmt: skip
    stats = [single_frame_stats(levels[i], m) for i, m in zip(idx, inside)]
    cert: dict[str, Any] = {
        "single_frame_min_p": round(min(s["chi2_p"] for s in stats), 6),
        "neighbour_same_in": round(float(np.mean([s["neighbour_same_in"] for s in stats])), 4),
        "neighbour_same_out": round(float(np.mean([s["neighbour_same_out"] for s in stats])), 4),
        "single_frame_blind": single_frame_blind(stats),
    }
    if truth is not None:
        ious = [iou(m, truth[a] & truth[b]) for m, (a, b) in zip(motion, (pair(i, n) for i in idx))]
        cert["min_iou"] = round(min(ious), 4)
        cert["mean_iou"] = round(float(np.mean(ious)), 4)
    return cert, motion

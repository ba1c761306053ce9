"""Export rendered caption pairs in Vinoground's layout, read it back, and build it end to end.

The layout (formats.md, Vinoground section) is what Vinoground's own scripts and our
``score_vinoground`` read: ``vinoground.csv`` plus the text-score and video-score question lists.
"""

from __future__ import annotations

import csv
import io
import json
import math
import random
from pathlib import Path
from typing import Any

import cv2

from tempogen.editing.clip import Clip
from tempogen.editing.ops import pair_with_black_gap
from tempogen.errors import OutputError
from tempogen.executor import Executor, LocalExecutor, Stage
from tempogen.generators.pairs import GAP_SECONDS, PairSpec, concat_name, plan_pairs, render_pair
from tempogen.io import write_json, write_text
from tempogen.resume import commit, lookup, spec_hash
from tempogen.video import opencv_frames, sha256_file

CSV_COLUMNS = (
    "index",
    "major",
    "minor",
    "pos_vid",
    "pos_start",
    "pos_end",
    "pos_cal",
    "neg_vid",
    "neg_start",
    "neg_end",
    "neg_cal",
)
TEXT_QUESTION = "Which caption best describes this video? A. {a}, B. {b}"
VIDEO_QUESTION = (
    "Which video segment matches this caption? Note: The video contains two segments separated "
    "by a 2-second black frame. Caption: {caption}. A. First segment (before black frame), "
    "B. Second segment (after black frame)"
)
BLACK_LEVEL = 16.0  # mean pixel value below which a decoded frame counts as black
# How unlikely under fair seeded coin flips the positive captions' places may be before the
# export refuses them as a broken order (a one-in-a-million draw; 64 of 64 at A is 1e-19).
MIN_ORDER_P = 1e-6


def _seconds(pair: dict[str, Any]) -> float:
    return round(pair["num_frames"] / pair["fps"], 3)


def export_vinoground(pairs: list[dict[str, Any]], out_dir: Path, seed: int = 0) -> Path:
    """Write ``vinoground.csv`` and both question lists for rendered ``pairs`` (records from
    ``render_pair``) under ``out_dir``; concatenated video-score clips are written if missing."""
    out_dir = Path(out_dir)
    pairs = sorted(pairs, key=lambda p: int(p["index"]))
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    text_qs: list[dict[str, str]] = []
    video_qs: list[dict[str, str]] = []
    for p in pairs:
        i = int(p["index"])
        end = _seconds(p)
        pos_vid, neg_vid = Path(p["pos_video"]).stem, Path(p["neg_video"]).stem
        writer.writerow(
            [i, p["major"], p["minor"], pos_vid, 0, end, p["pos_caption"]]
            + [neg_vid, 0, end, p["neg_caption"]]
        )
        # One seeded caption order per pair, shared by its two text questions.
        swap = random.Random(f"{seed}:{i}").random() < 0.5
        options = (
            [p["neg_caption"], p["pos_caption"]] if swap else [p["pos_caption"], p["neg_caption"]]
        )
        for side in ("pos", "neg"):
            text_qs.append(
                {
                    "idx": f"{i}_{side}",
                    "question": TEXT_QUESTION.format(a=options[0], b=options[1]),
                    "video_name": p[f"{side}_video"],
                    "GT": "AB"[options.index(p[f"{side}_caption"])],
                }
            )
        concat = concat_name(i)
        if not (out_dir / concat).is_file():
            _write_concat(out_dir, p)
        for side, gt in (("pos", "A"), ("neg", "B")):
            video_qs.append(
                {
                    "idx": f"{i}_{side}",
                    "question": VIDEO_QUESTION.format(caption=p[f"{side}_caption"]),
                    "video_name": concat,
                    "GT": gt,
                }
            )
    check_caption_order(text_qs)
    write_text(out_dir / "vinoground.csv", buf.getvalue())
    write_json(out_dir / "vinoground_textscore.json", text_qs)
    write_json(out_dir / "vinoground_videoscore.json", video_qs)
    return out_dir


def check_caption_order(text_qs: list[dict[str, str]]) -> None:
    """Refuse text questions whose positive caption sits at A (or at B) in more pairs than
    fair coin flips would give (two-sided binomial tail under :data:`MIN_ORDER_P`): a model
    that learns "the original's caption comes first" would score without watching."""
    n = sum(q["idx"].endswith("_pos") for q in text_qs)
    k = sum(q["idx"].endswith("_pos") and q["GT"] == "A" for q in text_qs)
    off = abs(2 * k - n)  # twice the distance from n / 2
    p = sum(math.comb(n, j) for j in range(n + 1) if abs(2 * j - n) >= off) / 2**n
    if p < MIN_ORDER_P:
        raise OutputError(
            f"vinoground: the positive caption is option A in {k} of {n} pairs; seeded coin "
            f"flips give an order this lopsided with probability {p:.1e}: the order is broken"
        )


def _write_concat(out_dir: Path, pair: dict[str, Any]) -> Path:
    """Write a pair's video-score clip (positive, black gap, negative); return its path."""
    path = out_dir / concat_name(int(pair["index"]))
    clip = pair_with_black_gap(
        Clip.from_video(out_dir / pair["pos_video"]),
        Clip.from_video(out_dir / pair["neg_video"]),
        GAP_SECONDS,
    )
    clip.write(path)
    return path


def _frame_mean(path: Path, index: int) -> float:
    """Mean pixel value of frame ``index``, reached by decoding sequentially (exact)."""
    cap = cv2.VideoCapture(str(path))
    try:
        for _ in range(index):
            cap.grab()
        ok, frame = cap.read()
    finally:
        cap.release()
    if not ok:
        raise ValueError(f"{path}: no frame {index}")
    return float(frame.mean())


def read_vinoground(out_dir: Path) -> list[dict[str, Any]]:
    """Read the layout as Vinoground does (csv header skipped, questions by idx) and check
    every video decodes and every concatenated clip is black in the middle of its gap."""
    out_dir = Path(out_dir)
    with open(out_dir / "vinoground.csv", encoding="utf-8", newline="") as f:
        rows = list(csv.reader(f))[1:]
    questions: dict[str, dict[str, dict[str, Any]]] = {}
    for kind in ("text", "video"):
        data = json.loads((out_dir / f"vinoground_{kind}score.json").read_text(encoding="utf-8"))
        if not isinstance(data, list):
            raise ValueError(f"vinoground_{kind}score.json: expected a JSON list")
        questions[kind] = {str(q["idx"]): q for q in data}
    pairs = []
    for row in rows:
        if len(row) != len(CSV_COLUMNS):
            raise ValueError(
                f"vinoground.csv: row {row!r} does not have {len(CSV_COLUMNS)} columns"
            )
        rec: dict[str, Any] = dict(zip(CSV_COLUMNS, row, strict=True))
        i = rec["index"]
        for kind in ("text", "video"):
            rec[kind] = []
            for side in ("pos", "neg"):
                q = questions[kind].get(f"{i}_{side}")
                if q is None or q.get("GT") not in ("A", "B"):
                    raise ValueError(f"vinoground_{kind}score.json: no valid question {i}_{side}")
                rec[kind].append(q)
        for q in rec["text"]:
            opencv_frames(out_dir / q["video_name"])
        concat = out_dir / rec["video"][0]["video_name"]
        _, fps = opencv_frames(concat)
        n_pos = int(round((float(rec["pos_end"]) - float(rec["pos_start"])) * fps))
        middle = n_pos + int(round(GAP_SECONDS * fps / 2))
        if _frame_mean(concat, middle) > BLACK_LEVEL:
            raise ValueError(f"{concat}: frame {middle} (middle of the gap) is not black")
        pairs.append(rec)
    return pairs


def _record_path(out_dir: Path, index: int) -> Path:
    return out_dir / "records" / f"pair{index}.json"


def _videos(out_dir: Path, index: int) -> dict[str, Path]:
    """A pair's three videos by the record field holding each one's sha256."""
    return {
        "pos_sha256": out_dir / f"videos/pair{index}_pos.mp4",
        "neg_sha256": out_dir / f"videos/pair{index}_neg.mp4",
        "concat_sha256": out_dir / concat_name(index),
    }


def render_pair_unit(spec: PairSpec, out_dir: Path) -> dict[str, Any]:
    """A pair's record (``render_pair``'s), reused when its spec and the render version match
    and its three videos are intact, else rendered (both orders and the concatenated clip)."""
    from tempogen.generators import planning

    out_dir = Path(out_dir)
    key = spec_hash(spec.to_json(), planning.RENDER_VERSION)
    videos = _videos(out_dir, spec.index)
    record = _record_path(out_dir, spec.index)
    done = lookup(record, key, digests=videos)
    if done is not None:
        return done["pair"]
    pair = render_pair(spec, out_dir)
    digests = {field: sha256_file(path) for field, path in videos.items()}
    commit(record, {"spec": spec.to_json(), "spec_hash": key, "pair": pair, **digests})
    return pair


def _renders_3d(spec: PairSpec) -> bool:
    return spec.kind == "human"


# A Vinoground pair: both orders and the concatenated clip, one record.
PAIRS = Stage("vinoground pairs", render_pair_unit, gl=_renders_3d)


def render_pairs(
    specs: list[PairSpec], out_dir: Path, executor: Executor | None = None
) -> list[dict[str, Any]]:
    """Every pair's record (:func:`render_pair_unit`) on ``executor`` (default: this process),
    costliest first so no worker finishes a human pair alone; records come back in spec order."""
    costly = sorted(specs, key=lambda s: -s.num_frames * (20.0 if _renders_3d(s) else 1.0))
    done = (executor or LocalExecutor(1)).imap(PAIRS, costly, Path(out_dir))
    by_index = {int(r["index"]): r for r in done}
    return [by_index[s.index] for s in specs]


def build_vinoground(
    out_dir: Path,
    n_pairs: int,
    seed: int,
    width: int = 640,
    height: int = 360,
    fps: float = 30.0,
    jobs: int | None = None,
    executor: Executor | None = None,
) -> Path:
    """Plan, render (reusing pairs already rendered with the same spec and render version) and
    export ``n_pairs`` two-event pairs of every kind as a Vinoground dataset in ``out_dir``;
    returns it. The pairs render on ``executor`` (a local pool or Ray), else over ``jobs``
    local processes (default: one)."""
    out_dir = Path(out_dir)
    specs = plan_pairs(n_pairs, seed, width, height, fps)
    records = render_pairs(specs, out_dir, executor or LocalExecutor(jobs or 1))
    return export_vinoground(records, out_dir, seed=seed)

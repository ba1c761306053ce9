"""Export rendered caption pairs in Vinoground's layout, read it back, and build it end to end.

The layout (formats.md, Vinoground section) is what Vinoground's own scripts and our
``score_vinoground`` read: ``vinoground.csv`` plus the text-score and video-score question lists.
"""

from __future__ import annotations

import csv
import io
import json
import random
from pathlib import Path
from typing import Any

import cv2

from tempogen.editing.clip import Clip
from tempogen.editing.ops import pair_with_black_gap
from tempogen.generators.pairs import PairSpec, plan_pairs, render_pair
from tempogen.io import write_json, write_text

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
GAP_SECONDS = 2.0
TEXT_QUESTION = "Which caption best describes this video? A. {a}, B. {b}"
VIDEO_QUESTION = (
    "Which video segment matches this caption? Note: The video contains two segments separated "
    "by a 2-second black frame. Caption: {caption}. A. First segment (before black frame), "
    "B. Second segment (after black frame)"
)
BLACK_LEVEL = 16.0  # mean pixel value below which a decoded frame counts as black


def _concat_name(index: int) -> str:
    return f"videos/pair{index}_concat.mp4"


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
        concat = _concat_name(i)
        if not (out_dir / concat).is_file():
            clip = pair_with_black_gap(
                Clip.from_video(out_dir / p["pos_video"]),
                Clip.from_video(out_dir / p["neg_video"]),
                GAP_SECONDS,
            )
            clip.write(out_dir / concat)
        for side, gt in (("pos", "A"), ("neg", "B")):
            video_qs.append(
                {
                    "idx": f"{i}_{side}",
                    "question": VIDEO_QUESTION.format(caption=p[f"{side}_caption"]),
                    "video_name": concat,
                    "GT": gt,
                }
            )
    write_text(out_dir / "vinoground.csv", buf.getvalue())
    write_json(out_dir / "vinoground_textscore.json", text_qs)
    write_json(out_dir / "vinoground_videoscore.json", video_qs)
    return out_dir


def _frame_count(path: Path) -> tuple[int, float]:
    """Decode a video with OpenCV (as Vinoground's scripts do); return frames and fps."""
    if not path.is_file():
        raise ValueError(f"{path}: video named in the dataset does not exist")
    cap = cv2.VideoCapture(str(path))
    try:
        if not cap.isOpened():
            raise ValueError(f"{path}: OpenCV cannot open this video")
        fps = float(cap.get(cv2.CAP_PROP_FPS))
        n = 0
        while cap.grab():
            n += 1
    finally:
        cap.release()
    if n == 0:
        raise ValueError(f"{path}: decoded no frames")
    return n, fps


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
            _frame_count(out_dir / q["video_name"])
        concat = out_dir / rec["video"][0]["video_name"]
        _, fps = _frame_count(concat)
        n_pos = int(round((float(rec["pos_end"]) - float(rec["pos_start"])) * fps))
        middle = n_pos + int(round(GAP_SECONDS * fps / 2))
        if _frame_mean(concat, middle) > BLACK_LEVEL:
            raise ValueError(f"{concat}: frame {middle} (middle of the gap) is not black")
        pairs.append(rec)
    return pairs


def _record_path(out_dir: Path, index: int) -> Path:
    return out_dir / "records" / f"pair{index}.json"


def _spec_json(spec: PairSpec) -> dict[str, Any]:
    return {
        "index": spec.index,
        "seed": spec.seed,
        "width": spec.width,
        "height": spec.height,
        "fps": spec.fps,
        "seconds": spec.seconds,
        "kinds": list(spec.kinds),
    }


def _resume(out_dir: Path, spec: PairSpec) -> dict[str, Any] | None:
    """The stored record of an already rendered pair with this exact spec, else None."""
    path = _record_path(out_dir, spec.index)
    if not path.is_file():
        return None
    try:
        stored = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError:
        return None
    record = stored.get("record", {})
    if stored.get("spec") != _spec_json(spec):
        return None
    if not all((out_dir / record.get(k, "")).is_file() for k in ("pos_video", "neg_video")):
        return None
    return record


def build_vinoground(
    out_dir: Path,
    n_pairs: int,
    seed: int,
    width: int = 640,
    height: int = 360,
    fps: float = 30.0,
) -> Path:
    """Plan, render (skipping pairs already rendered with the same spec) and export
    ``n_pairs`` two-event pairs as a Vinoground dataset in ``out_dir``; returns ``out_dir``."""
    out_dir = Path(out_dir)
    records = []
    for spec in plan_pairs(n_pairs, seed, width, height, fps):
        record = _resume(out_dir, spec)
        if record is None:
            concat = out_dir / _concat_name(spec.index)
            concat.unlink(missing_ok=True)  # stale: its sources are rendered anew
            record = render_pair(spec, out_dir)
            write_json(
                _record_path(out_dir, spec.index), {"spec": _spec_json(spec), "record": record}
            )
        records.append(record)
    return export_vinoground(records, out_dir, seed=seed)

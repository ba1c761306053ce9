"""Ask a model through any OpenAI-compatible chat endpoint: each question's frames as images.

``run_model`` shows a model every question of a built dataset at TOMATO's settings (16
uniform frames, the same 16 shuffled, one random frame, one hand-picked frame; the frames
come from :mod:`tempogen.builders.audit.sampling`, as the audits see them), and writes the
replies as a predictions JSONL that ``tempogen eval tomato`` scores, so κ, τ and ρ come from a
real model. Replies are cached per request (a rerun asks nothing twice, an interrupted run
resumes) and failures are retried with the caption generator's client.
"""

from __future__ import annotations

import base64
import json
import os
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import cv2
import numpy as np
from tqdm import tqdm

from tempogen.builders.audit.sampling import SETTINGS, frames_at, setting_indices
from tempogen.builders.audit.validity import dataset_seed, row_seed
from tempogen.errors import InputFileError, MissingFileError
from tempogen.io import write_json, write_jsonl
from tempogen.labels import Labels
from tempogen.manifest import read_manifest
from tempogen.retrieval.llm import LLMConfig, LLMResult, ask_chat, cache_key, chat_client

LETTERS = "ABCDEFGH"
JPEG_QUALITY = 90
PROMPT = (
    "You are shown {n} frame{s} of a video, in the order given{order}.\n{question}\n"
    "{options}\nAnswer with the option's letter only."
)


@dataclass
class RunResult:
    """What a run did: predictions written, requests made (retries included), cache hits."""

    predictions: Path
    asked: int = 0
    cache_hits: int = 0
    requests: int = 0
    log: list[str] = field(default_factory=list)


def _data_url(frame: np.ndarray) -> str:
    ok, buf = cv2.imencode(
        ".jpg", cv2.cvtColor(frame, cv2.COLOR_RGB2BGR), [cv2.IMWRITE_JPEG_QUALITY, JPEG_QUALITY]
    )
    if not ok:
        raise InputFileError("a frame could not be encoded as JPEG")
    return "data:image/jpeg;base64," + base64.b64encode(buf.tobytes()).decode("ascii")


def messages_for(row: dict[str, Any], frames: np.ndarray, setting: str) -> list[dict[str, Any]]:
    """One user message: the question, its lettered options, then the frames as images."""
    n = len(frames)
    order = " (shuffled: not in time order)" if setting.startswith("shuffled") else ""
    options = "\n".join(f"{LETTERS[i]}. {o}" for i, o in enumerate(row["options"]))
    text = PROMPT.format(n=n, s="" if n == 1 else "s", order=order,
                         question=row["question"], options=options)  # fmt: skip
    images = [{"type": "image_url", "image_url": {"url": _data_url(f)}} for f in frames]
    return [{"role": "user", "content": [{"type": "text", "text": text}, *images]}]


def run_model(
    dataset: str | os.PathLike[str],
    config: LLMConfig,
    out: str | os.PathLike[str],
    settings: Sequence[str] = ("uniform16",),
    *,
    cache_dir: str | os.PathLike[str] | None = None,
    limit: int | None = None,
    progress: bool = True,
    sleep: Callable[[float], None] | None = None,
) -> RunResult:
    """Ask ``config``'s model every question of ``dataset`` (or the first ``limit``) at each of
    ``settings`` and write ``out``: one JSONL line per answer with ``task``, ``id``,
    ``setting``, ``frames`` and ``response``, the format ``tempogen eval tomato`` reads."""
    unknown = [s for s in settings if s not in SETTINGS]
    if unknown:
        raise InputFileError(f"unknown setting(s) {unknown}; known: {', '.join(SETTINGS)}")
    root = Path(dataset)
    manifest = root / "manifest.jsonl"
    if not manifest.is_file():
        raise MissingFileError(f"{root}: no manifest.jsonl (build a dataset first)")
    rows = [r for r in read_manifest(manifest) if (r.get("labels") or {}).get("tracks")]
    rows = rows[:limit] if limit is not None else rows
    seed = dataset_seed(manifest)
    cache = Path(cache_dir) if cache_dir else root / "model_cache" / _safe(config.model)
    client = chat_client(config)
    result = RunResult(Path(out))
    stats = LLMResult(pairs=[])
    lines: list[dict[str, Any]] = []
    with tqdm(total=len(rows) * len(settings), unit="question", disable=not progress) as bar:
        for row in rows:
            labels = Labels.from_json(row["labels"])
            rs = row_seed(seed, str(row["id"]))  # the frames the validity audit shows
            shown = {s: setting_indices(s, labels, rs) for s in settings}
            wanted = sorted({int(i) for idx in shown.values() for i in idx})
            decoded = dict(zip(wanted, frames_at(root / row["video"], wanted)))  # once a clip
            for setting, idx in shown.items():
                frames = np.stack([decoded[int(i)] for i in idx])
                messages = messages_for(row, frames, setting)
                key = cache_key(config.base_url, config.model, messages)
                path = cache / key[:2] / f"{key}.json"
                if path.is_file():
                    reply = json.loads(path.read_text(encoding="utf-8"))["response"]
                    result.cache_hits += 1
                else:
                    reply = ask_chat(client, config, messages, sleep or time.sleep, stats)
                    write_json(path, {"model": config.model, "response": reply})
                    result.asked += 1
                lines.append({"task": row["task"], "id": str(row["id"]), "setting": setting,
                              "frames": len(idx), "response": reply})  # fmt: skip
                bar.update(1)
    write_jsonl(out, lines)
    result.requests, result.log = stats.requests, stats.log
    return result


def _safe(name: str) -> str:
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in name) or "model"

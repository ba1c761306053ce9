"""Ask a model through any OpenAI-compatible chat endpoint: each question's frames as images.

``run_sets`` shows a model a built dataset's benchmarks and scores the replies:

* TOMATO (``run_model``): every question at TOMATO's settings (16 uniform frames, the same 16
  shuffled, one random frame, one hand-picked frame; the frames come from
  :mod:`tempogen.builders.audit.sampling`, as the audits see them), written as the JSONL that
  ``tempogen eval tomato`` reads, so κ, τ and ρ come from a real model;
* Vinoground: every pair's two text questions (one clip, two captions) and two video questions
  (one caption, the pair's concatenated clip with its 2-second black gap, sampled so that a
  black frame is always shown, as Vinoground's paper does), written in Vinoground's own
  results layout (``{model}/textscore-response.jsonl``, ``videoscore-response.jsonl``) that
  its ``get_score_all.py`` and ``tempogen eval vinoground`` read;
* Video-TT: every question of ``videott/videott.json`` (open-ended and multiple choice) with
  the clip's uniform frames, written as the JSONL that ``tempogen eval videott`` reads.

Replies are cached per request in one cache (a rerun asks nothing twice, an interrupted run
resumes; a Video-TT multiple-choice question is TOMATO's uniform16 request, asked once) and
failures are retried with the caption generator's client.
"""

from __future__ import annotations

import base64
import os
import sys
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import cv2
import numpy as np
from tqdm import tqdm

from tempogen.builders.audit.sampling import (
    SAMPLES,
    SETTINGS,
    frames_at,
    setting_indices,
    uniform,
    vinoground,
)
from tempogen.builders.audit.validity import dataset_seed, row_seed
from tempogen.builders.eval.answers import parse_choice
from tempogen.builders.eval.vinoground import load_vinoground
from tempogen.builders.exports import RunContext, format_with, formats_with
from tempogen.errors import InputFileError, MissingFileError
from tempogen.generators.pairs import GAP_SECONDS
from tempogen.io import read_json, write_json, write_jsonl
from tempogen.labels import Labels
from tempogen.manifest import Row, read_manifest
from tempogen.retrieval.llm import (
    LLMConfig,
    LLMResult,
    ask_chat,
    cache_key,
    chat_client,
    read_cached_reply,
)
from tempogen.video import probe

LETTERS = "ABCDEFGH"
JPEG_QUALITY = 90
PROMPT = (
    "You are shown {n} frame{s} of a video, in the order given{order}.\n{question}\n"
    "{options}\nAnswer with the option's letter only."
)
VINO_PROMPT = (
    "You are shown {n} frames of a video, in the order given.\n{question}\n"
    "Answer with the option's letter only."
)
OPEN_PROMPT = (
    "You are shown {n} frames of a video, in the order given.\n{question}\nAnswer in a few words."
)


@dataclass
class RunResult:
    """What a run did: predictions written per set, requests made (retries included), cache
    hits, and the scores of each set."""

    predictions: Path
    asked: int = 0
    cache_hits: int = 0
    requests: int = 0
    log: list[str] = field(default_factory=list)
    files: dict[str, Path] = field(default_factory=dict)
    scores: dict[str, dict[str, Any]] = field(default_factory=dict)


class _Asker:
    """One cache and one client for every request of a run; counts what it asked."""

    def __init__(
        self, config: LLMConfig, cache: Path, sleep: Callable[[float], None] | None
    ) -> None:
        self.config, self.cache = config, cache
        self.client = chat_client(config)
        self.sleep = sleep or time.sleep
        self.notify = lambda line: tqdm.write(f"tempogen: {line}", file=sys.stderr)
        self.stats = LLMResult(pairs=[])
        self.asked = self.cache_hits = 0

    def __call__(self, messages: list[dict[str, Any]]) -> str:
        key = cache_key(self.config.base_url, self.config.model, messages)
        path = self.cache / key[:2] / f"{key}.json"
        if path.is_file():
            cached, why = read_cached_reply(path)
            if cached is not None:
                self.cache_hits += 1
                return cached
            self.stats.log.append(f"{path}: damaged cache entry ({why}); asked again")
            self.notify(self.stats.log[-1])
        reply = ask_chat(self.client, self.config, messages, self.sleep, self.stats, self.notify)
        write_json(path, {"model": self.config.model, "response": reply})
        self.asked += 1
        return reply


def _data_url(frame: np.ndarray) -> str:
    ok, buf = cv2.imencode(
        ".jpg", cv2.cvtColor(frame, cv2.COLOR_RGB2BGR), [cv2.IMWRITE_JPEG_QUALITY, JPEG_QUALITY]
    )
    if not ok:
        raise InputFileError("a frame could not be encoded as JPEG")
    return "data:image/jpeg;base64," + base64.b64encode(buf.tobytes()).decode("ascii")


def _message(text: str, frames: Iterable[np.ndarray]) -> list[dict[str, Any]]:
    images = [{"type": "image_url", "image_url": {"url": _data_url(f)}} for f in frames]
    return [{"role": "user", "content": [{"type": "text", "text": text}, *images]}]


def messages_for(
    row: Row | Mapping[str, Any], frames: np.ndarray, setting: str
) -> list[dict[str, Any]]:
    """One user message: the question, its lettered options, then the frames as images;
    ``row`` is a manifest :class:`Row` or an export's question (``question``, ``options``)."""
    question, given = (
        (row.question, row.options) if isinstance(row, Row) else (row["question"], row["options"])
    )
    n = len(frames)
    order = " (shuffled: not in time order)" if setting.startswith("shuffled") else ""
    options = "\n".join(f"{LETTERS[i]}. {o}" for i, o in enumerate(given))
    text = PROMPT.format(n=n, s="" if n == 1 else "s", order=order,
                         question=question, options=options)  # fmt: skip
    return _message(text, frames)


def available_sets(dataset: str | os.PathLike[str]) -> list[str]:
    """The benchmarks ``dataset`` holds: each format with a runner whose ``run_needs`` file is
    there (tomato: the manifest; vinoground, videott: their exports)."""
    root = Path(dataset)
    return [f.name for f in formats_with("run") if f.run_needs and (root / f.run_needs).is_file()]


def run_sets(
    dataset: str | os.PathLike[str],
    config: LLMConfig,
    out_dir: str | os.PathLike[str],
    sets: Sequence[str] | None = None,
    settings: Sequence[str] = ("uniform16",),
    *,
    cache_dir: str | os.PathLike[str] | None = None,
    limit: int | None = None,
    progress: bool = True,
    sleep: Callable[[float], None] | None = None,
    tomato_out: str | os.PathLike[str] | None = None,
) -> RunResult:
    """Ask ``config``'s model each of ``sets`` (default: every one ``dataset`` holds), write
    the predictions under ``out_dir`` (``tomato.jsonl``, ``vinoground/{model}/``,
    ``videott.jsonl``; ``tomato_out`` moves the first), score them with our scorers and
    write ``scores.json`` beside them. ``limit``: the first N questions, pairs or videos."""
    root, out = Path(dataset), Path(out_dir)
    have = available_sets(root)
    sets = list(have if sets is None else sets)
    runners = {name: format_with("run", name, "eval run: --set") for name in sets}
    missing = [s for s in sets if s not in have]
    if missing or not sets:
        raise MissingFileError(
            f"{root}: holds no {', '.join(missing) or 'benchmark'} (it holds: "
            f"{', '.join(have) or 'nothing'}; build a dataset first)"
        )
    unknown = [s for s in settings if s not in SETTINGS]
    if unknown:
        raise InputFileError(f"unknown setting(s) {unknown}; known: {', '.join(SETTINGS)}")
    cache = Path(cache_dir) if cache_dir else root / "model_cache" / safe_model_name(config.model)
    ask = _Asker(config, cache, sleep)
    result = RunResult(Path(tomato_out) if tomato_out else out / "tomato.jsonl")
    for name, fmt in runners.items():
        ctx = RunContext(root, ask, out, config.model, settings, limit, progress,
                         result.predictions if name == "tomato" else None)  # fmt: skip
        assert fmt.run is not None  # format_with("run") returns only formats that run
        result.files[name], result.scores[name] = fmt.run(ctx)
    write_json(out / "scores.json", result.scores)
    result.asked, result.cache_hits = ask.asked, ask.cache_hits
    result.requests, result.log = ask.stats.requests, ask.stats.log
    return result


def run_tomato_set(ctx: RunContext) -> tuple[Path, dict[str, Any]]:
    """TOMATO's questions (the manifest's) at ``ctx.settings``, then their scores."""
    from tempogen.builders.eval.scoring import score_tomato

    path = ctx.predictions or ctx.out / "tomato.jsonl"
    _run_tomato(ctx.root, _asker(ctx), path, ctx.settings, ctx.limit, ctx.progress)
    return path, score_tomato(ctx.root, path)


def run_vinoground_set(ctx: RunContext) -> tuple[Path, dict[str, Any]]:
    """Vinoground's four questions a pair, in its results layout, then their scores."""
    from tempogen.builders.eval.scoring import score_vinoground

    folder = ctx.predictions or ctx.out / "vinoground"
    _run_vinoground(ctx.root / "vinoground", _asker(ctx), folder / safe_model_name(ctx.model), ctx.limit,
                    ctx.progress)  # fmt: skip
    return folder, score_vinoground(ctx.root / "vinoground", folder)


def run_videott_set(ctx: RunContext) -> tuple[Path, dict[str, Any]]:
    """Every Video-TT question, then their scores."""
    from tempogen.builders.eval.scoring import score_videott

    path = ctx.predictions or ctx.out / "videott.jsonl"
    _run_videott(ctx.root / "videott", _asker(ctx), path, ctx.limit, ctx.progress)
    return path, score_videott(ctx.root / "videott", path)


def _asker(ctx: RunContext) -> _Asker:
    """The run's :class:`_Asker` (the built-in sets read its model and cache from it)."""
    if not isinstance(ctx.ask, _Asker):
        raise TypeError("the built-in sets are asked through run_sets")
    return ctx.ask


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
    """Ask ``config``'s model every TOMATO question of ``dataset`` (or the first ``limit``) at
    each of ``settings`` and write ``out``: one JSONL line per answer with ``task``, ``id``,
    ``setting``, ``frames``, ``model`` and ``response``, the format ``tempogen eval tomato``
    reads."""
    unknown = [s for s in settings if s not in SETTINGS]
    if unknown:
        raise InputFileError(f"unknown setting(s) {unknown}; known: {', '.join(SETTINGS)}")
    root = Path(dataset)
    cache = Path(cache_dir) if cache_dir else root / "model_cache" / safe_model_name(config.model)
    ask = _Asker(config, cache, sleep)
    result = RunResult(Path(out), files={"tomato": Path(out)})
    _run_tomato(root, ask, Path(out), settings, limit, progress)
    result.asked, result.cache_hits = ask.asked, ask.cache_hits
    result.requests, result.log = ask.stats.requests, ask.stats.log
    return result


def _run_tomato(
    root: Path,
    ask: _Asker,
    out: Path,
    settings: Sequence[str],
    limit: int | None,
    progress: bool,
) -> None:
    """TOMATO's questions at ``settings``, written to ``out``."""
    manifest = root / "manifest.jsonl"
    if not manifest.is_file():
        raise MissingFileError(f"{root}: no manifest.jsonl (build a dataset first)")
    rows = [r for r in read_manifest(manifest) if r.tracks]
    rows = rows[:limit] if limit is not None else rows
    seed = dataset_seed(manifest)
    lines: list[dict[str, Any]] = []
    with tqdm(total=len(rows) * len(settings), unit="question", desc="tomato",
              disable=not progress) as bar:  # fmt: skip
        for row in rows:
            labels = Labels.from_json(row.labels)
            rs = row_seed(seed, row.id)  # the frames the validity audit shows
            shown = {s: setting_indices(s, labels, rs) for s in settings}
            wanted = sorted({int(i) for idx in shown.values() for i in idx})
            decoded = dict(zip(wanted, frames_at(root / row.video, wanted)))  # once a clip
            for setting, idx in shown.items():
                frames = np.stack([decoded[int(i)] for i in idx])
                reply = ask(messages_for(row, frames, setting))
                lines.append({"task": row.task.value, "id": row.id, "setting": setting,
                              "frames": len(idx), "model": ask.config.model,
                              "response": reply})  # fmt: skip
                bar.update(1)
    write_jsonl(out, lines)


def _load_list(path: Path) -> list[dict[str, Any]]:
    data = read_json(path, "export")
    if not isinstance(data, list) or not all(isinstance(q, dict) for q in data):
        raise InputFileError(f"{path}: expected a JSON list of objects")
    return data


def _vino_reply(reply: str, options: list[str]) -> dict[str, str]:
    """A Vinoground results line's reply: ``response`` is the chosen letter when our parser
    finds one among ``options`` (Vinoground's ``get_score_all.py`` compares a response's first
    character with GT), else the reply itself; ``raw_response`` always keeps the reply."""
    choice = parse_choice(reply, options)
    return {"response": "AB"[choice] if choice is not None else reply, "raw_response": reply}


def _run_vinoground(root: Path, ask: _Asker, out: Path, limit: int | None, progress: bool) -> None:
    """Both tasks of every pair (or the first ``limit`` pairs) of the Vinoground export in
    ``root``, written as ``out/textscore-response.jsonl`` and ``out/videoscore-response.jsonl``.

    Text task: :data:`SAMPLES` uniform frames of one clip. Video task: as many frames of the
    concatenated clip (positive, 2 s of black, negative), uniform with at least one black
    frame (``sampling.vinoground``); the parts' lengths come from the two clips themselves.
    """
    text_qs = _load_list(root / "vinoground_textscore.json")
    video_qs = _load_list(root / "vinoground_videoscore.json")
    by_pair: dict[str, dict[str, dict[str, Any]]] = {}
    for kind, listed in (("text", text_qs), ("video", video_qs)):
        for i, q in enumerate(listed):
            idx = str(q.get("idx", ""))
            pair, _, side = idx.rpartition("_")
            if side not in ("pos", "neg") or not q.get("video_name") or not q.get("question"):
                raise InputFileError(
                    f"{root / f'vinoground_{kind}score.json'}[{i}]: needs idx '{{i}}_pos' or "
                    "'{i}_neg', question and video_name"
                )
            by_pair.setdefault(pair, {})[f"{kind}:{side}"] = q
    # each question's options in its order, the captions read from vinoground.csv (as the
    # scorer reads them), never from the question's wording
    options = {key: q["options"] for key, q in load_vinoground(root)[1].items()}
    pairs = list(by_pair.items())[:limit] if limit is not None else list(by_pair.items())
    lines: dict[str, list[dict[str, Any]]] = {"text": [], "video": []}
    with tqdm(total=4 * len(pairs), unit="question", desc="vinoground",
              disable=not progress) as bar:  # fmt: skip
        for pair, qs in pairs:
            lacking = [k for k in ("text:pos", "text:neg", "video:pos", "video:neg") if k not in qs]
            if lacking:
                raise InputFileError(f"{root}: pair {pair!r} lacks question(s) {lacking}")
            clips = {}
            for side in ("pos", "neg"):
                path = root / qs[f"text:{side}"]["video_name"]
                n = probe(path).num_frames
                clips[side] = n
                frames = frames_at(path, uniform(n, SAMPLES))
                q = qs[f"text:{side}"]
                reply = ask(_message(VINO_PROMPT.format(n=SAMPLES, question=q["question"]),
                                     frames))  # fmt: skip
                lines["text"].append(
                    {
                        "idx": q["idx"],
                        "kind": "text",
                        **_vino_reply(reply, options[("text", f"{pair}_{side}")]),
                    }
                )
                bar.update(1)
            concat = root / qs["video:pos"]["video_name"]
            info = probe(concat)
            gap = info.num_frames - clips["pos"] - clips["neg"]
            if gap != round(GAP_SECONDS * info.fps):
                raise InputFileError(
                    f"{concat}: {info.num_frames} frames are not pos ({clips['pos']}) + "
                    f"{GAP_SECONDS:g} s of black + neg ({clips['neg']}) at {info.fps:g} fps"
                )
            frames = frames_at(concat, vinoground(clips["pos"], gap, clips["neg"], SAMPLES))
            for side in ("pos", "neg"):
                q = qs[f"video:{side}"]
                reply = ask(_message(VINO_PROMPT.format(n=SAMPLES, question=q["question"]),
                                     frames))  # fmt: skip
                lines["video"].append(
                    {
                        "idx": q["idx"],
                        "kind": "video",
                        **_vino_reply(reply, options[("video", f"{pair}_{side}")]),
                    }
                )
                bar.update(1)
    write_jsonl(out / "textscore-response.jsonl", lines["text"])
    write_jsonl(out / "videoscore-response.jsonl", lines["video"])


def _run_videott(root: Path, ask: _Asker, out: Path, limit: int | None, progress: bool) -> None:
    """Every question of the Video-TT export in ``root`` (or those of the first ``limit``
    videos) with the clip's :data:`SAMPLES` uniform frames, written to ``out``."""
    path = root / "videott.json"
    videos = _load_list(path)
    videos = videos[:limit] if limit is not None else videos
    lines: list[dict[str, Any]] = []
    total = sum(len(v.get("questions") or []) for v in videos)
    with tqdm(total=total, unit="question", desc="videott", disable=not progress) as bar:
        for i, video in enumerate(videos):
            if not video.get("video") or not isinstance(video.get("questions"), list):
                raise InputFileError(f"{path}[{i}]: needs video and a list of questions")
            clip = root / video["video"]
            frames = frames_at(clip, uniform(probe(clip).num_frames, SAMPLES))
            for q in video["questions"]:
                if q.get("kind") == "multiple_choice":
                    messages = messages_for(q, frames, "uniform16")  # TOMATO's uniform16 ask
                else:
                    text = OPEN_PROMPT.format(n=len(frames), question=q["question"])
                    messages = _message(text, frames)
                lines.append({"qid": q["qid"], "video_id": video["video_id"], "kind": q["kind"],
                              "model": ask.config.model, "response": ask(messages)})  # fmt: skip
                bar.update(1)
    write_jsonl(out, lines)


def safe_model_name(name: str) -> str:
    """A model name as one file-name part (``runs/<model>``, ``model_cache/<model>``)."""
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in name) or "model"

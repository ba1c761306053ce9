"""`tempogen eval run` against a real OpenAI-compatible HTTP server on 127.0.0.1.

The server is a toy model that must decode what it is sent: every image is a JPEG of the
dataset's frame size (else HTTP 400), and its answer is the letter at (number of images) mod
(number of options), parsed from the prompt's lettered lines. Our client, cache, retries,
frame sampling and scorer are the real ones.
"""

from __future__ import annotations

import base64
import csv
import json
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import cv2
import numpy as np
import pytest
from kit import run_cli
from openai_server import ChatHandler, ChatServer, running

CONFIG = """
seed: 3
size: [192, 108]
fps: 10
duration: [3, 4]
samples_per_task: 2
variants: {share: 0}
vinoground: {pairs: 2}
retrieval: {pairs: 0}
shortcuts: "off"
"""


class ToyModel(ChatServer):
    """Answers chat completions from the images it decodes; the first request gets a 500."""

    def __init__(self, size: tuple[int, int]) -> None:
        super().__init__(Handler)
        self.size = size
        self.seen: list[tuple[str, list[float]]] = []  # (prompt, each image's mean level)
        self.requests = 0

    def answer(self, text: str, images: list[np.ndarray]) -> str | None:
        """TOMATO's rule: the letter at (number of images) mod (number of options)."""
        letters = re.findall(r"^([A-H])\. ", text, flags=re.M)
        return f"Answer: {letters[len(images) % len(letters)]}"


class Handler(ChatHandler):
    server: ToyModel

    def do_POST(self) -> None:  # noqa: N802 - http.server's name
        body = self.read_json()
        with self.server.lock:
            self.server.requests += 1
            first = self.server.requests == 1
        if first:
            self.send_json(500, {"error": {"message": "warming up", "type": "server_error"}})
            return
        parts = body["messages"][0]["content"]
        text = next(p["text"] for p in parts if p["type"] == "text")
        images = []
        for p in parts:
            if p["type"] != "image_url":
                continue
            head, data = p["image_url"]["url"].split(",", 1)
            img = cv2.imdecode(np.frombuffer(base64.b64decode(data), np.uint8), cv2.IMREAD_COLOR)
            w, h = self.server.size
            if head != "data:image/jpeg;base64" or img is None or img.shape[:2] != (h, w):
                self.send_json(
                    400, {"error": {"message": "not a frame", "type": "invalid_request"}}
                )
                return
            images.append(img)
        with self.server.lock:
            self.server.seen.append((text, [float(img.mean()) for img in images]))
        reply = self.server.answer(text, images)
        if reply is None:
            self.send_json(400, {"error": {"message": "unknown frames", "type": "invalid_request"}})
            return
        self.send_reply(body["model"], reply)


@pytest.fixture(scope="module")
def dataset(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("runner")
    (root / "c.yaml").write_text(CONFIG)
    subprocess.run(
        [sys.executable, "-m", "tempogen.cli", "generate", "--config", str(root / "c.yaml"),
         "--out", str(root / "ds"), "-j", "2", "-q"],
        check=True, capture_output=True, timeout=600,
    )  # fmt: skip
    return root / "ds"


@pytest.fixture
def model() -> Iterator[ToyModel]:
    with running(ToyModel((192, 108)), limit_s=300) as server:
        yield server


def _run(dataset: Path, url: str, out: Path, cache: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "tempogen.cli", "eval", "run", "--dataset", str(dataset),
         "--endpoint", url, "--model", "toy", "--settings", "uniform16,shuffled16,random1",
         "--set", "tomato",
         "--out", str(out), "--cache", str(cache), "-q"],
        capture_output=True, text=True, timeout=600,
    )  # fmt: skip


@pytest.mark.slow
def test_round_trip_scores_a_model_that_reads_the_frames(dataset, model, tmp_path) -> None:
    out, cache = tmp_path / "preds.jsonl", tmp_path / "cache"
    proc = _run(dataset, model.url, out, cache)
    assert proc.returncode == 0, proc.stderr[-3000:]
    rows = {r["id"]: r for r in map(json.loads, (dataset / "manifest.jsonl").open())}
    preds = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(preds) == 3 * len(rows) == len(model.seen)
    assert model.requests == len(model.seen) + 1  # the first reply was a 500, retried
    for p in preds:
        n = len(rows[p["id"]]["options"])
        assert p["frames"] == (1 if p["setting"] == "random1" else 16)
        assert p["response"] == f"Answer: {'ABCDEFGH'[p['frames'] % n]}"
    # the scorer reads them: accuracy per setting is the share the toy model got right
    from tempogen.builders.eval.scoring import score_tomato

    scores = score_tomato(dataset, out)
    runs = next(iter(scores["models"].values()))["runs"]
    for setting, frames in (("uniform16", 16), ("shuffled16", 16), ("random1", 1)):
        right = sum(frames % len(r["options"]) == r["answer"] for r in rows.values())
        assert (runs[setting]["correct"], runs[setting]["total"]) == (right, len(rows)), setting
        assert runs[setting]["unparsable"] == runs[setting]["missing"] == 0
    # shuffled shows the same frames as uniform, in another order, for some question
    by_question: dict[str, list[list[float]]] = {}
    for prompt, means in model.seen:
        by_question.setdefault("\n".join(prompt.split("\n")[1:]), []).append(means)
    reordered = 0
    for seen in by_question.values():
        sixteen = [m for m in seen if len(m) == 16]
        if len(sixteen) == 2:
            a, b = sixteen
            assert np.allclose(sorted(a), sorted(b), atol=1.0)
            reordered += not np.allclose(a, b, atol=1.0)
    assert reordered >= 1
    # a rerun asks nothing: every reply comes from the cache, the same predictions
    before = out.read_bytes()
    model.shutdown()
    again = _run(dataset, model.url, out, cache)
    assert again.returncode == 0, again.stderr[-3000:]
    assert "asked 0, from cache" in again.stdout
    assert out.read_bytes() == before


@pytest.mark.slow
def test_unreachable_endpoint_is_one_clear_error(dataset, tmp_path) -> None:
    proc = run_cli(
        "eval", "run", "--dataset", dataset, "--endpoint", "http://127.0.0.1:9/v1",
        "--model", "toy", "--attempts", "1", "--out", tmp_path / "run", "--cache",
        tmp_path / "c", "-q", timeout=120, fork=True,
    )  # fmt: skip
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.startswith("tempogen: error: http://127.0.0.1:9/v1 (model toy)")
    assert "cannot connect" in proc.stderr
    assert not (tmp_path / "run").exists()  # nothing half-written


def _thumbs(frames: list[np.ndarray]) -> np.ndarray:
    """Small grey thumbnails: what the toy compares frames by (JPEG noise averages out)."""
    return np.stack([
        cv2.resize(cv2.cvtColor(f, cv2.COLOR_BGR2GRAY), (48, 27), interpolation=cv2.INTER_AREA)
        for f in frames
    ]).astype(np.float32)  # fmt: skip


def _decode(path: Path) -> list[np.ndarray]:
    cap = cv2.VideoCapture(str(path))
    frames = []
    while True:
        ok, frame = cap.read()
        if not ok:
            break
        frames.append(frame)
    cap.release()
    return frames


class BenchModel(ToyModel):
    """The toy model, which also knows each Vinoground clip's frames and captions and each
    Video-TT clip's frames and answers, recognises what it is shown by its pixels alone, and
    answers: Vinoground text questions right; video questions right for even pairs and wrong
    for odd ones (its known blind spot); Video-TT open questions right except wrongly-led ones
    ("I cannot tell."); multiple choice by TOMATO's image-count rule. A request whose frames it
    cannot place (a video question without a black frame between two clips) gets HTTP 400."""

    def __init__(self, size: tuple[int, int], dataset: Path) -> None:
        super().__init__(size)
        vino = dataset / "vinoground"
        self.clips = []  # (pair, caption, thumbnails of every frame)
        with open(vino / "vinoground.csv", newline="") as f:
            for row in list(csv.DictReader(f)):
                for side in ("pos", "neg"):
                    frames = _decode(vino / "videos" / f"{row[f'{side}_vid']}.mp4")
                    self.clips.append((int(row["index"]), row[f"{side}_cal"], _thumbs(frames)))
        self.videos = []  # (thumbnails of TOMATO's 16 uniform frames, {question: (kind, answer)})
        for v in json.loads((dataset / "videott" / "videott.json").read_text()):
            frames = _decode(dataset / "videott" / v["video"])
            idx = np.linspace(0, len(frames) - 1, 16, dtype=int)
            qs = {q["question"]: (q["kind"], q["answer"]) for q in v["questions"]}
            self.videos.append((_thumbs([frames[i] for i in idx]), qs))
        self.placed = {"text": 0, "video": 0, "videott": 0}

    def _clip(self, images: list[np.ndarray]) -> tuple[int, str] | None:
        """The Vinoground clip whose frames, in time order, best match ``images``: the least
        total distance of each image to a frame, the frames non-decreasing (a clip and its
        counterfactual hold the same frames in another order)."""
        thumbs = _thumbs(images)
        best, cost = None, np.inf
        for pair, caption, frames in self.clips:
            d = np.abs(thumbs[:, None] - frames[None]).mean(axis=(2, 3))  # image x frame
            total = d[0]
            for row in d[1:]:
                total = row + np.minimum.accumulate(total)
            if total.min() < cost:
                best, cost = (pair, caption), float(total.min())
        return best if cost / len(images) < 4.0 else None

    def answer(self, text: str, images: list[np.ndarray]) -> str | None:
        if "Which caption best describes this video?" in text:
            clip = self._clip(images)
            m = re.search(r"A\. (.*), B\. (.*)\nAnswer", text)
            if clip is None or m is None or clip[1] not in m.groups():
                return None
            self.placed["text"] += 1
            return "AB"[m.groups().index(clip[1])]
        if "Which video segment matches this caption?" in text:
            black = [float(img.mean()) < 16 for img in images]
            if True not in black:
                return None
            start = black.index(True)
            end = start + black[start:].index(False) if False in black[start:] else len(black)
            first, second = self._clip(images[:start]), self._clip(images[end:])
            caption = re.search(r"Caption: (.*)\. A\. First segment", text)
            if first is None or second is None or first[0] != second[0] or caption is None:
                return None
            self.placed["video"] += 1
            right = first[1] == caption.group(1)
            return "A" if right == (first[0] % 2 == 0) else "B"
        if text.rstrip().endswith("Answer in a few words."):
            thumbs = _thumbs(images)
            costs = [np.abs(thumbs - t).mean() if len(t) == len(thumbs) else np.inf
                     for t, _ in self.videos]  # fmt: skip
            question = text.split("\n")[1]
            qs = self.videos[int(np.argmin(costs))][1]
            if min(costs) > 4.0 or question not in qs:
                return None
            self.placed["videott"] += 1
            kind, answer = qs[question]
            return "I cannot tell." if kind == "wrongly_led" else answer
        return super().answer(text, images)


@pytest.mark.slow
def test_every_set_is_asked_written_as_the_scorers_read_and_scored(dataset, tmp_path) -> None:
    out, cache = tmp_path / "run", tmp_path / "cache"
    with running(BenchModel((192, 108), dataset), limit_s=300) as model:
        proc = subprocess.run(
            [sys.executable, "-m", "tempogen.cli", "eval", "run", "--dataset", str(dataset),
             "--endpoint", model.url, "--model", "toy", "--settings", "uniform16",
             "--out", str(out), "--cache", str(cache), "-q"],
            capture_output=True, text=True, timeout=600,
        )  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-3000:]
    rows = [json.loads(line) for line in (dataset / "manifest.jsonl").open()]
    videott = json.loads((dataset / "videott" / "videott.json").read_text())
    pairs = list(csv.DictReader((dataset / "vinoground" / "vinoground.csv").open(newline="")))
    assert len(pairs) == 2
    # every request was placed by its pixels; a Video-TT multiple-choice question is TOMATO's
    # uniform16 request, answered from the one cache
    assert model.placed == {"text": 4, "video": 4, "videott": 4 * len(videott)}
    assert model.requests == 1 + len(rows) + 8 + 4 * len(videott)
    scores = json.loads((out / "scores.json").read_text())
    assert sorted(scores) == ["tomato", "videott", "vinoground"]

    # Vinoground: Vinoground's own results layout, a letter first in every response (its
    # get_score_all.py compares a response's first character with GT), scored by ours
    results = out / "vinoground" / "toy"
    gt = {}
    for kind in ("text", "video"):
        for q in json.loads((dataset / "vinoground" / f"vinoground_{kind}score.json").read_text()):
            gt[(kind, q["idx"])] = q["GT"]
    first_char = {}
    for kind in ("text", "video"):
        for line in (results / f"{kind}score-response.jsonl").read_text().splitlines():
            p = json.loads(line)
            first_char[(kind, p["idx"])] = p["response"][0] == gt[(kind, p["idx"])]
    assert len(first_char) == 8
    for i in range(2):
        text_ok = first_char[("text", f"{i}_pos")] and first_char[("text", f"{i}_neg")]
        video_ok = first_char[("video", f"{i}_pos")] and first_char[("video", f"{i}_neg")]
        assert (text_ok, video_ok) == (True, i % 2 == 0), i
    vino = scores["vinoground"]["models"]["toy"]
    assert (vino["text"], vino["video"], vino["group"]) == (100.0, 50.0, 50.0)
    assert vino["questions"]["video"] == {"answered": 4, "correct": 2, "unparsable": 0,
                                          "missing": 0}  # fmt: skip
    from tempogen.builders.eval.scoring import score_videott, score_vinoground

    assert score_vinoground(dataset / "vinoground", results)["models"]["toy"] == vino

    # Video-TT: right on every open kind but wrongly-led; multiple choice by the letter rule
    tt = scores["videott"]["models"]["toy"]
    n = len(videott)
    for kind in ("primary", "rephrased", "correctly_led"):
        assert tt["per_kind"][kind] == {"correct": n, "total": n, "accuracy": 100.0}, kind
    assert tt["per_kind"]["wrongly_led"]["correct"] == 0
    mc = sum(
        16 % len(q["options"]) == q["answer_index"]
        for v in videott for q in v["questions"] if q["kind"] == "multiple_choice"
    )  # fmt: skip
    assert tt["per_kind"]["multiple_choice"]["correct"] == mc
    assert tt["robustness"] == {"all_correct": 0, "primary_correct": n, "score": 0.0}
    assert tt["missing"] == tt["unparsable"] == 0
    assert score_videott(dataset / "videott", out / "videott.jsonl")["models"]["toy"] == tt

    # TOMATO: as before, one setting here
    runs = scores["tomato"]["models"]["toy"]["runs"]
    right = sum(16 % len(r["options"]) == r["answer"] for r in rows)
    assert (runs["uniform16"]["correct"], runs["uniform16"]["total"]) == (right, len(rows))
    # a rerun asks nothing (the server is gone)
    again = subprocess.run(
        [sys.executable, "-m", "tempogen.cli", "eval", "run", "--dataset", str(dataset),
         "--endpoint", model.url, "--model", "toy", "--settings", "uniform16",
         "--out", str(out), "--cache", str(cache), "-q", "--set", "vinoground"],
        capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert again.returncode == 0 and "asked 0, from cache 8" in again.stdout, again.stderr


class QuotingModel(ToyModel):
    """Places each Vinoground clip by its pixels (as :class:`BenchModel` does) and answers in
    words, never a letter: a text question with the right clip's caption, a video question
    with the segment that the caption names (always right)."""

    _clip = BenchModel._clip

    def __init__(self, size: tuple[int, int], vino: Path) -> None:
        super().__init__(size)
        self.clips = []
        with open(vino / "vinoground.csv", newline="") as f:
            for row in csv.DictReader(f):
                for side in ("pos", "neg"):
                    frames = _decode(vino / "videos" / f"{row[f'{side}_vid']}.mp4")
                    self.clips.append((int(row["index"]), row[f"{side}_cal"], _thumbs(frames)))

    def answer(self, text: str, images: list[np.ndarray]) -> str | None:
        black = [float(img.mean()) < 16 for img in images]
        if True not in black:
            clip = self._clip(images)
            return None if clip is None else f"The video shows {clip[1]}."
        first = self._clip(images[: black.index(True)])
        caption = re.search(r"Caption: (.*)\. A\. First segment", text)
        if first is None or caption is None:
            return None
        return f"It is the {'first' if first[1] == caption.group(1) else 'second'} segment."


@pytest.mark.slow
def test_vinoground_captions_come_from_the_csv_not_the_question_wording(dataset, tmp_path):
    # the text questions reworded: no "A. ..., B. ..." left to read the captions back from
    vino = tmp_path / "ds" / "vinoground"
    shutil.copytree(dataset / "vinoground", vino)
    path = vino / "vinoground_textscore.json"
    questions = json.loads(path.read_text())
    pattern = re.compile(r"Which caption best describes this video\? A\. (.*), B\. (.*)")
    for q in questions:
        a, b = pattern.fullmatch(q["question"]).groups()
        q["question"] = f"Pick the caption that fits the clip.\n(A) {a}\n(B) {b}"
    path.write_text(json.dumps(questions))
    out = tmp_path / "run"
    with running(QuotingModel((192, 108), vino), limit_s=300) as model:
        proc = subprocess.run(
            [sys.executable, "-m", "tempogen.cli", "eval", "run", "--dataset", str(vino.parent),
             "--endpoint", model.url, "--model", "toy", "--set", "vinoground",
             "--out", str(out), "--cache", str(tmp_path / "cache"), "-q"],
            capture_output=True, text=True, timeout=600,
        )  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-3000:]
    gt = {q["idx"]: q["GT"] for q in questions}
    lines = (out / "vinoground" / "toy" / "textscore-response.jsonl").read_text().splitlines()
    replies = [json.loads(line) for line in lines]
    assert len(replies) == 4 and all(r["raw_response"].startswith("The video") for r in replies)
    # each worded reply became the letter of the caption it quotes
    assert [r["response"] for r in replies] == [gt[r["idx"]] for r in replies]
    vino_scores = json.loads((out / "scores.json").read_text())["vinoground"]["models"]["toy"]
    assert (vino_scores["text"], vino_scores["video"], vino_scores["group"]) == (100.0,) * 3


@pytest.mark.slow
def test_a_damaged_reply_cache_entry_is_reported_and_asked_again(dataset, model, tmp_path):
    """A cache entry cut short (a killed run, a full disk) is named on stderr and asked again;
    the rerun's predictions equal the first run's (issue 25: it was a JSONDecodeError)."""
    out, cache = tmp_path / "preds.jsonl", tmp_path / "cache"
    args = [sys.executable, "-m", "tempogen.cli", "eval", "run", "--dataset", str(dataset),
            "--endpoint", model.url, "--model", "toy", "--settings", "uniform16", "--set",
            "tomato", "--limit", "2", "--out", str(out), "--cache", str(cache), "-q"]  # fmt: skip
    first = subprocess.run(args, capture_output=True, text=True, timeout=300)
    assert first.returncode == 0, first.stderr[-3000:]
    entries = sorted(cache.rglob("*.json"))
    assert len(entries) == 2
    entries[0].write_bytes(b'{"model": "toy", "respo')
    entries[1].write_bytes(b"\xff\xfe not even text")
    before = out.read_bytes()
    again = subprocess.run(args, capture_output=True, text=True, timeout=300)
    assert again.returncode == 0, again.stderr[-3000:]
    assert "Traceback" not in again.stderr
    for entry in entries:
        assert f"tempogen: {entry}: damaged cache entry (not JSON" in again.stderr
        assert json.loads(entry.read_text())["response"].startswith("Answer: ")
    assert "asked 2, from cache 0" in again.stdout
    assert out.read_bytes() == before


@pytest.mark.parametrize(
    ("flag", "value"), [("--attempts", "0"), ("--attempts", "-2"), ("--limit", "0")]
)
def test_eval_run_costly_options_are_bounded_up_front(flag, value, tmp_path):
    proc = subprocess.run(
        [sys.executable, "-m", "tempogen.cli", "eval", "run", "--dataset", str(tmp_path),
         "--endpoint", "http://127.0.0.1:9/v1", "--model", "toy", flag, value,
         "--out", str(tmp_path / "run"), "-q"],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert proc.returncode == 2 and "Traceback" not in proc.stderr, proc.stderr
    assert f"argument {flag}: must be from" in proc.stderr
    assert not (tmp_path / "run").exists()


@pytest.mark.parametrize("set_", ["tomato", "all"])
def test_eval_run_out_over_the_dataset_is_refused_before_any_request(set_, tmp_path):
    """``--out`` naming the manifest (the TOMATO predictions file) would write predictions
    over the dataset: refused, exit 2, nothing asked (the endpoint is a closed port) and the
    manifest unchanged."""
    manifest = tmp_path / "manifest.jsonl"
    manifest.write_text('{"id": "x"}\n', encoding="utf-8")
    before = manifest.read_bytes()
    proc = run_cli(
        "eval", "run", "--dataset", tmp_path, "--endpoint", "http://127.0.0.1:9/v1",
        "--model", "toy", "--set", set_, "--out", manifest, "-q", timeout=120, fork=True,
    )  # fmt: skip
    assert proc.returncode == 2 and "Traceback" not in proc.stderr, proc.stderr
    if set_ == "tomato":
        assert f"--out {manifest}: is the input {manifest}" in proc.stderr
    assert manifest.read_bytes() == before

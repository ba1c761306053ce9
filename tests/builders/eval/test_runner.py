"""`tempogen eval run` against a real OpenAI-compatible HTTP server on 127.0.0.1.

The server is a toy model that must decode what it is sent: every image is a JPEG of the
dataset's frame size (else HTTP 400), and its answer is the letter at (number of images) mod
(number of options), parsed from the prompt's lettered lines. Our client, cache, retries,
frame sampling and scorer are the real ones.
"""

from __future__ import annotations

import base64
import json
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import cv2
import numpy as np
import pytest
from openai_server import ChatHandler, ChatServer, running

CONFIG = """
seed: 3
size: [192, 108]
fps: 10
duration: [3, 4]
samples_per_task: 2
variants: {share: 0}
vinoground: {pairs: 0}
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
        means = []
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
            means.append(float(img.mean()))
        letters = re.findall(r"^([A-H])\. ", text, flags=re.M)
        with self.server.lock:
            self.server.seen.append((text, means))
        self.send_reply(body["model"], f"Answer: {letters[len(means) % len(letters)]}")


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
    proc = subprocess.run(
        [sys.executable, "-m", "tempogen.cli", "eval", "run", "--dataset", str(dataset),
         "--endpoint", "http://127.0.0.1:9/v1", "--model", "toy", "--attempts", "1",
         "--out", str(tmp_path / "p.jsonl"), "--cache", str(tmp_path / "c"), "-q"],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.startswith("tempogen: error: http://127.0.0.1:9/v1 (model toy)")
    assert "cannot connect" in proc.stderr
    assert not (tmp_path / "p.jsonl").exists()  # nothing half-written

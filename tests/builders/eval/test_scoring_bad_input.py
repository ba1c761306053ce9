"""`tempogen eval tomato|vinoground|videott` fed malformed prediction files through the CLI:
each is scored around (a problem named by file:line) or refused with exit 2 naming the file,
never a traceback (issue 25)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest


from test_scoring import tomato, videott, vino  # noqa: E402,F401  (fixtures)

BAD_LINES = [
    '{"task": ["rotation"], "id": "0", "response": "A"}',
    '{"task": "rotation", "id": {"a": 1}, "response": "A"}',
    '{"task": "rotation", "id": ["0"], "response": "A"}',
    '{"task": "rotation", "id": "0", "response": {"x": 1}}',
    '{"task": "rotation", "id": "0", "response": "A", "setting": 5}',
    '{"task": "rotation", "id": "0", "response": "A", "setting": ["uniform"]}',
    '{"task": "rotation", "id": "0", "response": "A", "frames": "abc"}',
    '{"task": "rotation", "id": "0", "response": "A", "frames": 1e400}',
    '{"task": "rotation", "id": "0", "response": "A", "frames": -1}',
    '{"task": "rotation", "id": "0", "response": "A", "frames": NaN}',
    '{"task": "rotation", "id": "0", "response": "A", "frames": true}',
    '{"task": "rotation", "id": "0", "response": "A", "model": ["x"]}',
    '{"task": "rotation", "id": "0", "response": "A", "model": {"x": 1}}',
    '{"task": "rotation", "id": "0", "response": "A\\ud800"}',
    '{"task": "rotation", "id": "0\\ud800", "response": "A"}',
    '{"task": null, "id": null, "response": null}',
    '{"idx": 5, "kind": "text", "response": "A"}',
    '{"idx": ["0_pos"], "kind": "text", "response": "A"}',
    '{"idx": "0_pos", "kind": ["text"], "response": "A"}',
    '{"idx": "0_pos", "kind": "text", "response": 3}',
    '{"idx": "0_pos", "kind": "text", "response": "A", "model": 7}',
    '{"qid": ["fan-p"], "response": "x"}',
    '{"qid": {"a": 1}, "response": "x"}',
    '{"video_id": {"a": 1}, "kind": "primary", "response": "x"}',
    '{"video_id": "fan", "kind": ["primary"], "response": "x"}',
    '{"qid": "fan-p", "response": ["a", 1]}',
    '{"qid": "fan-m", "response": {"a": 1}}',
    '{"qid": "fan-p", "response": "x", "model": [1]}',
    '{"qid": "fan-p", "qid": "fan-m", "response": "x"}',
    "[1, 2]",
    "{",
    '"just a string"',
]


def _eval(bench: str, dataset: Path, preds: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "tempogen.cli", "eval", bench, "--dataset", str(dataset),
         "--predictions", str(preds)],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip


@pytest.mark.parametrize("line", BAD_LINES)
@pytest.mark.parametrize("bench", ["tomato", "vinoground", "videott"])
def test_a_malformed_prediction_line_is_never_a_traceback(bench, line, tomato, vino, videott, tmp_path):
    dataset = {"tomato": tomato, "vinoground": vino, "videott": videott}[bench]
    preds = tmp_path / "p.jsonl"
    preds.write_text(line + "\n", encoding="utf-8")
    proc = _eval(bench, dataset, preds)
    assert "Traceback" not in proc.stderr, proc.stderr
    assert proc.returncode in (0, 2), proc.stderr
    if proc.returncode == 2:
        assert str(preds) in proc.stderr

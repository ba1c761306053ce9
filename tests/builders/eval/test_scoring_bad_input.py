"""`tempogen eval tomato|videott` fed files with a key given twice, through the CLI: JSON keeps
the last of two equal keys without a word, so a repeated question id or prediction id would be
scored as something it is not; each is named by file and line instead (issue 25)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from test_scoring import tomato, videott  # noqa: F401  (fixtures)


def _eval(bench: str, dataset: Path, preds: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "tempogen.cli", "eval", bench, "--dataset", str(dataset),
         "--predictions", str(preds)],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip


def test_a_question_id_given_twice_in_tomato_data_names_both_lines(tomato, tmp_path):  # noqa: F811
    path = tomato / "data" / "count.json"
    entries = json.loads(path.read_text())
    lines = ["{"] + [f"  {json.dumps(k)}: {json.dumps(v)}," for k, v in entries.items()]
    lines.append(f'  "0": {json.dumps(entries["1"])}')  # line 5: question 0 again
    path.write_text("\n".join(lines + ["}"]) + "\n")
    preds = tmp_path / "p.jsonl"
    preds.write_text(json.dumps({"task": "count", "id": "0", "response": "C"}) + "\n")
    proc = _eval("tomato", tomato, preds)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr, proc.stderr
    assert f"{path}:5: key '0' appears twice in one object (first on line 2)" in proc.stderr


def test_a_prediction_with_a_key_given_twice_is_a_named_problem(videott, tmp_path):  # noqa: F811
    preds = tmp_path / "p.jsonl"
    preds.write_text('{"qid": "fan-p", "qid": "fan-m", "response": "(B) Counter-clockwise"}\n')
    proc = _eval("videott", videott, preds)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr, proc.stderr
    assert f"{preds}:1: key 'qid' appears twice in one object" in proc.stderr

"""A benchmark format is one object registered once: a plugin module that registers a format
(writer, validator, scorer, owned folder) gets every command that reads the format registry,
through the CLI's real ``--plugins`` path, with no change to the core: ``generate`` writes it,
``validate`` checks it (a broken file is exit 2 naming it), ``eval`` scores it, ``eval run``
asks a model its questions and ``generate --replace`` deletes what it wrote."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import kit
import pytest
from openai_server import ChatHandler, ChatServer, running

# generate, validate, eval and eval run, each a fresh process over a build: end to end
pytestmark = pytest.mark.slow

PLUGIN = '''
"""A plugin format: every question as one CSV row, plus one answer file per clip."""
import csv
import json
import shutil
from pathlib import Path

from tempogen.builders.exports import FileCheck, Format, register_format
from tempogen.io import atomic_path

COLUMNS = ["id", "task", "question", "answer"]


def write(rows, dataset_dir, out_dir):
    (out_dir / "answers").mkdir(parents=True, exist_ok=True)
    path = out_dir / "questions.csv"
    with atomic_path(path) as tmp, open(tmp, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(COLUMNS)
        for r in rows:
            w.writerow([r["id"], r["task"], r["question"], r["answer_text"]])
    for r in rows:
        (out_dir / "answers" / f"{r['id']}.txt").write_text(r["answer_text"], encoding="utf-8")
    return path


def claims(path):
    return (path / "questions.csv").is_file() if path.is_dir() else path.name == "questions.csv"


def validate(path):
    path = path / "questions.csv" if path.is_dir() else path
    with open(path, newline="", encoding="utf-8") as f:
        lines = list(csv.reader(f))
    problems = [] if lines[:1] == [COLUMNS] else [f"{path}:1: header: expected {COLUMNS}"]
    for n, line in enumerate(lines[1:], 2):
        if len(line) != len(COLUMNS) or not all(line):
            problems.append(f"{path}:{n}: expected {len(COLUMNS)} non-empty fields")
    return [FileCheck(path, "questions CSV", len(lines) - 1, "question", tuple(problems))]


def score(dataset, predictions):
    with open(dataset / "questions.csv", newline="", encoding="utf-8") as f:
        answers = {r["id"]: r["answer"] for r in csv.DictReader(f)}
    preds = [json.loads(t) for t in Path(predictions).read_text().splitlines()]
    known = [p for p in preds if p["id"] in answers]
    right = sum(answers[p["id"]] == p["response"] for p in known)
    problems = [{"where": str(predictions), "reason": f"unknown id {p['id']!r}"}
                for p in preds if p["id"] not in answers]
    models = {"m": {"right": right, "asked": len(known)}} if known else {}
    return {"benchmark": "qcsv", "dataset": str(dataset), "predictions": str(predictions),
            "models": models, "problems": problems}


def run(ctx):
    with open(ctx.root / "csvq" / "questions.csv", newline="", encoding="utf-8") as f:
        questions = list(csv.DictReader(f))
    path = ctx.out / "qcsv.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    replies = [{"id": q["id"], "response": ctx.ask([{"role": "user", "content": q["question"]}])}
               for q in questions[: ctx.limit]]
    path.write_text("".join(json.dumps(r) + "\\n" for r in replies), encoding="utf-8")
    return path, score(ctx.root / "csvq", path)


register_format(Format(
    "qcsv", folder="csvq", write=write, description="questions as one CSV", claims=claims,
    validate=validate, score=score, data_file="questions.csv", reads=("questions.csv",),
    run=run, run_needs="csvq/questions.csv", run_writes=("qcsv.jsonl",),
))
'''

CONFIG = """seed: 3
size: [96, 64]
fps: 10
duration: [4, 4]
tasks: [direction]
motions: [slide]
samples_per_task: {n}
variants: {{share: 0}}
vinoground: {{pairs: 0}}
retrieval: {{pairs: 0}}
scenes3d: {{humans: 0, objects: 0}}
shortcuts: "off"
"""


def tempogen(cwd: Path, *args: str | Path):
    """The CLI from ``cwd`` (where the plugin module lies), nothing else on the path."""
    return kit.tempogen(*args, cwd=cwd, pythonpath="", env={"PYTHONDONTWRITEBYTECODE": "1"})


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Path:
    """A small dataset generated with the plugin format loaded by ``--plugins qcsv``."""
    root = tmp_path_factory.mktemp("fmt")
    (root / "qcsv.py").write_text(PLUGIN, encoding="utf-8")
    (root / "two.yaml").write_text(CONFIG.format(n=2), encoding="utf-8")
    (root / "one.yaml").write_text(CONFIG.format(n=1), encoding="utf-8")
    res = tempogen(root, "generate", "--plugins", "qcsv", "--config", "two.yaml",
                   "--out", "ds", "-j", "1", "-q")  # fmt: skip
    assert res.returncode == 0, res.stderr[-3000:]
    (root / "generate.out").write_text(res.stdout, encoding="utf-8")
    return root


def test_generate_writes_the_plugin_format(built) -> None:
    rows = kit.read_jsonl(built / "ds" / "manifest.jsonl")
    text = (built / "ds" / "csvq" / "questions.csv").read_text(encoding="utf-8").splitlines()
    assert text[0] == "id,task,question,answer" and len(text) == 1 + len(rows) == 3
    assert sorted(p.stem for p in (built / "ds" / "csvq" / "answers").iterdir()) == sorted(
        r["id"] for r in rows
    )
    # the build's index links every format it wrote, the plugin's too (read from the registry)
    index = (built / "ds" / "index.html").read_text(encoding="utf-8")
    for folder in ("tomato", "videott", "hf", "lmms_eval", "csvq"):
        assert f'href="{folder}"' in index, folder
    # and its summary names what it wrote: no Vinoground folder with vinoground.pairs 0
    (also,) = [ln for ln in (built / "generate.out").read_text().splitlines() if "also:" in ln]
    assert "csvq/: " in also and "hf/: " in also and "vinoground/" not in also, also
    assert not (built / "ds" / "vinoground").exists()


def test_validate_checks_the_plugin_format_and_refuses_a_broken_file(built) -> None:
    csv_path = built / "ds" / "csvq" / "questions.csv"
    res = tempogen(built, "validate", "ds", "--plugins", "qcsv")
    assert res.returncode == 0, res.stderr
    assert (
        f"{Path('ds') / 'csvq' / 'questions.csv'}: valid questions CSV, 2 questions" in res.stdout
    )
    good = csv_path.read_text(encoding="utf-8")
    lines = good.splitlines()
    try:
        csv_path.write_text("\n".join([*lines[:2], lines[2].rsplit(",", 1)[0]]) + "\n")
        for target in ("ds", "ds/csvq", "ds/csvq/questions.csv"):  # folder, export, file
            res = tempogen(built, "validate", target, "--plugins", "qcsv")
            assert res.returncode == 2, (target, res.stdout, res.stderr)
            assert "csvq/questions.csv:3: expected 4 non-empty fields" in res.stderr, target
            assert "Traceback" not in res.stderr
    finally:
        csv_path.write_text(good, encoding="utf-8")


def test_eval_scores_the_plugin_format(built) -> None:
    ids = [r["id"] for r in kit.read_jsonl(built / "ds" / "manifest.jsonl")]
    answers = {r["id"]: r["answer_text"] for r in kit.read_jsonl(built / "ds" / "manifest.jsonl")}
    preds = [{"id": ids[0], "response": answers[ids[0]]}, {"id": ids[1], "response": "no"}]
    kit.write_jsonl(built / "preds.jsonl", preds)
    res = tempogen(built, "eval", "qcsv", "--dataset", "ds", "--predictions", "preds.jsonl",
                   "--plugins", "qcsv", "--out", "scores.json")  # fmt: skip
    assert res.returncode == 0, res.stderr
    scores = json.loads((built / "scores.json").read_text(encoding="utf-8"))
    assert scores["models"] == {"m": {"right": 1, "asked": 2}}
    assert scores["dataset"] == str(Path("ds") / "csvq")  # the dataset root's own export
    assert "m: {'right': 1, 'asked': 2}" in res.stdout
    res = tempogen(built, "eval", "qcsv", "--dataset", "ds", "--predictions", "preds.jsonl")
    assert res.returncode == 2 and "Traceback" not in res.stderr
    assert "eval: unknown format 'qcsv'; known: tomato, vinoground, videott, run" in res.stderr


def test_replace_deletes_what_the_plugin_format_wrote(built) -> None:
    """Built again from a config with one clip, the old build's second answer file goes."""
    shutil.copytree(built / "ds", built / "again")  # the other tests keep their dataset
    before = {p.name for p in (built / "again" / "csvq" / "answers").iterdir()}
    res = tempogen(built, "generate", "--plugins", "qcsv", "--config", "one.yaml",
                   "--out", "again", "-j", "1", "-q", "--replace")  # fmt: skip
    assert res.returncode == 0, res.stderr[-3000:]
    rows = kit.read_jsonl(built / "again" / "manifest.jsonl")
    after = {p.name for p in (built / "again" / "csvq" / "answers").iterdir()}
    assert len(before) == 2 and after == {f"{r['id']}.txt" for r in rows} and len(after) == 1
    ledger = json.loads((built / "again" / ".tempogen-files.json").read_text(encoding="utf-8"))
    assert "csvq/questions.csv" in ledger["files"]


def test_formats_lists_the_plugin_format(built) -> None:
    res = tempogen(built, "formats", "--plugins", "qcsv")
    assert res.returncode == 0, res.stderr
    header, *lines = res.stdout.splitlines()
    assert header.split() == ["FORMAT", "FOLDER", "DOES", "DESCRIPTION"]
    assert [line.split()[0] for line in lines] == [
        "tomato", "vinoground", "videott", "hf", "lmms_eval", "qcsv",
    ]  # fmt: skip
    assert lines[-1].split() == [
        "qcsv",
        "csvq/",
        "write,validate,score,run",
        "questions",
        "as",
        "one",
        "CSV",
    ]


class Yes(ChatHandler):
    """A model that answers every question "yes"."""

    def do_POST(self) -> None:  # noqa: N802 - http.server's name
        self.send_reply(self.read_json()["model"], "yes")


def test_eval_run_asks_a_model_the_plugin_format(built) -> None:
    with running(ChatServer(Yes)) as server:
        res = tempogen(built, "eval", "run", "--dataset", "ds", "--set", "qcsv", "--plugins",
                       "qcsv", "--endpoint", server.url, "--model", "toy", "--out", "run",
                       "--cache", "cache", "-q")  # fmt: skip
    assert res.returncode == 0, res.stderr
    replies = kit.read_jsonl(built / "run" / "qcsv.jsonl")
    assert [r["response"] for r in replies] == ["yes", "yes"]
    scores = json.loads((built / "run" / "scores.json").read_text(encoding="utf-8"))
    assert list(scores) == ["qcsv"] and scores["qcsv"]["models"]["m"]["asked"] == 2

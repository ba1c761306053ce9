"""The lmms-eval task folder: YAML parses; utils.py, loaded as lmms-eval loads it (by file
path), scores like ``tempogen score`` with tempogen installed and, in a Python without
tempogen, from the answer parser copied beside it."""

from __future__ import annotations

import importlib.util
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from tempogen.builders.eval import answers, lmms_utils
from tempogen.builders.eval.answers import parse_choice
from tempogen.builders.eval.scoring import score_tomato
from tempogen.builders.exports.lmms_eval import TASK, export_lmms_eval, letter
from tempogen.builders.exports.tomato import export_tomato
from tempogen.config import config_from_dict
from tempogen.generators.build import plan, render_spec


class FunctionLoader(yaml.SafeLoader):
    """Reads ``!function utils.x`` as ``("function", "utils.x")``, as lmms-eval's loader does."""


FunctionLoader.add_constructor(
    "!function", lambda loader, node: ("function", loader.construct_scalar(node))
)


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    """One rendered clip per task, exported; returns (dataset dir, rows, task dir, yaml, utils)."""
    ds = tmp_path_factory.mktemp("lmms")
    cfg = config_from_dict(
        {"size": [160, 90], "fps": 10, "duration": [3, 3], "samples_per_task": 1}
    )
    rows = [render_spec(s, ds) for s in plan(cfg)]
    task_dir = export_lmms_eval(rows, ds, ds / "lmms_eval")
    cfg_yaml = yaml.load((task_dir / f"{TASK}.yaml").read_text(), Loader=FunctionLoader)
    spec = importlib.util.spec_from_file_location("tempogen_tomato_utils", task_dir / "utils.py")
    utils = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(utils)
    return ds, rows, task_dir, cfg_yaml, utils


def docs_of(task_dir: Path) -> list[dict]:
    return [json.loads(line) for line in (task_dir / "test.jsonl").read_text().splitlines()]


def test_folder_layout_and_yaml(exported) -> None:
    ds, rows, task_dir, cfg, utils = exported
    assert task_dir == ds.resolve() / "lmms_eval" / TASK
    assert sorted(p.name for p in task_dir.iterdir()) == [
        "tempogen_answers.py",
        "tempogen_tomato.yaml",
        "test.jsonl",
        "utils.py",
    ]
    assert cfg["task"] == TASK and cfg["test_split"] == "test"
    assert cfg["output_type"] == "generate_until"
    assert cfg["dataset_path"] == "json"
    data = Path(cfg["dataset_kwargs"]["data_files"]["test"])
    assert data.is_absolute() and data == task_dir / "test.jsonl"
    for key in ("doc_to_visual", "doc_to_text", "doc_to_target", "process_results"):
        tag, name = cfg[key]
        assert tag == "function" and name.startswith("utils.")
        assert callable(getattr(utils, name.split(".", 1)[1]))
    metrics = cfg["metric_list"]
    assert [m["metric"] for m in metrics] == ["accuracy", "instance_accuracy"]
    for metric in metrics:
        assert metric["higher_is_better"] is True
        assert callable(getattr(utils, metric["aggregation"][1].split(".", 1)[1]))
    assert cfg["generation_kwargs"]["do_sample"] is False
    prompts = cfg["lmms_eval_specific_kwargs"]["default"]
    assert "16 frames" in prompts["pre_prompt"]
    assert "Answer with the option's letter" in prompts["post_prompt"]
    assert Path(cfg["metadata"]["dataset_dir"]) == ds.resolve()


def test_utils_is_our_module_copied_as_it_is(exported) -> None:
    task_dir, utils = exported[2], exported[4]
    assert (task_dir / "utils.py").read_bytes() == Path(lmms_utils.__file__).read_bytes()
    assert (task_dir / "tempogen_answers.py").read_bytes() == Path(answers.__file__).read_bytes()
    assert utils.parse_choice is parse_choice  # tempogen installed: its parser


# Loads utils.py as lmms-eval does (by file path) in a Python that cannot import tempogen, and
# prints what the YAML's functions return for every document and response.
STANDALONE = """
import importlib.util, json, sys
try:
    import tempogen
    sys.exit("tempogen is importable here")
except ImportError:
    pass
task_dir, responses = sys.argv[1], json.loads(sys.argv[2])
spec = importlib.util.spec_from_file_location("utils", task_dir + "/utils.py")
utils = importlib.util.module_from_spec(spec)
spec.loader.exec_module(utils)
docs = [json.loads(line) for line in open(task_dir + "/test.jsonl", encoding="utf-8")]
results = [
    [utils.tempogen_process_results(doc, [r.format(**doc)])["accuracy"] for doc in docs]
    for r in responses
]
print(json.dumps({
    "parser": utils.parse_choice.__module__,
    "text": [utils.tempogen_doc_to_text(doc) for doc in docs],
    "target": [utils.tempogen_doc_to_target(doc) for doc in docs],
    "results": results,
    "accuracy": [utils.tempogen_aggregate_accuracy(r) for r in results],
}))
"""
# {answer} is the right letter, {answer_text} the right option's text
RESPONSES = [
    "The answer is ({answer}).",
    "{answer_text}",
    "I am not sure, maybe it is {answer_text} Or not.",
    '```json\n{{"answer": "{answer}"}}\n```',
    "A",
    "B. I think so",
    "A or B",
    "no idea",
]


def test_task_folder_alone_scores_like_tempogen(exported, tmp_path) -> None:
    ds, rows, task_dir, _, utils = exported
    # -I -S: no site-packages (so no tempogen, nor any other installed package), no cwd
    proc = subprocess.run(
        [sys.executable, "-I", "-S", "-c", STANDALONE, str(task_dir), json.dumps(RESPONSES)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    alone = json.loads(proc.stdout)
    assert alone["parser"] == "tempogen_answers"  # the copy beside utils.py
    docs = docs_of(task_dir)
    assert alone["text"] == [utils.tempogen_doc_to_text(d) for d in docs]
    assert alone["target"] == [d["answer"] for d in docs]
    # the same predictions as our parser, and the same scores as `tempogen score`
    export_tomato(rows, ds, ds / "tomato")
    lines = []
    for m, (response, results) in enumerate(zip(RESPONSES, alone["results"])):
        for doc, row, res in zip(docs, rows, results):
            text = response.format(**doc)
            k = parse_choice(text, doc["options"])
            assert res["pred"] == (None if k is None else letter(k)), (text, doc["options"])
            assert res == utils.tempogen_process_results(doc, [text])["accuracy"]
            lines.append({"model": f"m{m}", "task": row["task"], "id": row["id"], "response": text})
    preds = tmp_path / "preds.jsonl"
    preds.write_text("".join(json.dumps(line) + "\n" for line in lines))
    scored = score_tomato(ds / "tomato", preds)["models"]
    for m, results in enumerate(alone["results"]):
        run = scored[f"m{m}"]["runs"]["uniform16"]
        assert run["correct"] == sum(r["score"] for r in results), RESPONSES[m]
        assert run["total"] == len(docs)
        assert alone["accuracy"][m] == pytest.approx(run["correct"] / run["total"])
    assert alone["accuracy"][0] == 1.0 and alone["accuracy"][-1] == 0.0


def test_docs_match_manifest(exported) -> None:
    ds, rows, task_dir, cfg, utils = exported
    docs = docs_of(task_dir)
    assert [d["id"] for d in docs] == [r["id"] for r in rows]
    kwargs = cfg["lmms_eval_specific_kwargs"]["default"]
    for doc, row in zip(docs, rows):
        assert doc["answer"] == letter(row["answer"]) == chr(65 + row["answer"])
        assert doc["options"][ord(doc["answer"]) - 65] == row["answer_text"]
        assert utils.tempogen_doc_to_target(doc) == doc["answer"]
        (video,) = utils.tempogen_doc_to_visual(doc)
        assert Path(video).is_absolute() and Path(video) == (ds / row["video"]).resolve()
        text = utils.tempogen_doc_to_text(doc, kwargs)
        assert row["question"] in text
        for i, opt in enumerate(row["options"]):
            assert f"\n{chr(65 + i)}. {opt}" in text
        assert text.endswith("Answer with the option's letter from the given choices directly.")
        assert utils.tempogen_doc_to_text(doc) == text  # the same defaults without kwargs


def test_env_var_overrides_dataset_dir(exported, tmp_path, monkeypatch) -> None:
    ds, rows, task_dir, _, utils = exported
    doc = docs_of(task_dir)[0]
    moved = tmp_path / "moved"
    (moved / "videos").mkdir(parents=True)
    shutil.copy(ds / doc["video"], moved / doc["video"])
    monkeypatch.setenv("TEMPOGEN_DATASET_DIR", str(moved))
    assert utils.tempogen_doc_to_visual(doc) == [str((moved / doc["video"]).resolve())]
    monkeypatch.setenv("TEMPOGEN_DATASET_DIR", str(tmp_path / "nowhere"))
    with pytest.raises(FileNotFoundError, match="video not found"):
        utils.tempogen_doc_to_visual(doc)


@pytest.mark.parametrize(
    "response, pred",
    [
        ("B", "B"),
        ("b", "B"),
        ("(C)", "C"),
        ("C. Rightwards.", "C"),
        ("The answer is D.", "D"),
        ("Answer: (A)", "A"),
        ("<answer>B</answer>", "B"),
        ("**C**", "C"),
        ("I think the answer is option B because it moves.", "B"),
        ("A rotation: it goes counter-clockwise then clockwise.", "D"),
        ("answer is a guess", None),
        ("no idea", None),
    ],
)
def test_letter_parsing(exported, response, pred) -> None:
    utils = exported[4]
    options = [
        "Clockwise throughout.",
        "Counter-clockwise throughout.",
        "Clockwise then counter-clockwise.",
        "Counter-clockwise then clockwise.",
        "No rotation.",
    ]
    assert utils.parse_letter(response, options) == pred


def test_process_results_and_aggregate(exported) -> None:
    utils = exported[4]
    docs = docs_of(exported[2])
    results = []
    for doc in docs:
        right = utils.tempogen_process_results(doc, [f"The answer is {doc['answer']}."])
        wrong_letter = "A" if doc["answer"] != "A" else "B"
        wrong = utils.tempogen_process_results(doc, [wrong_letter])
        assert right["accuracy"]["score"] == 1.0 and right["accuracy"]["id"] == doc["id"]
        assert wrong["accuracy"]["score"] == 0.0 and wrong["accuracy"]["pred"] == wrong_letter
        results += [right["accuracy"], wrong["accuracy"]]
    assert utils.tempogen_aggregate_accuracy(results) == pytest.approx(0.5)
    assert utils.tempogen_aggregate_accuracy([]) == 0.0


def test_instance_accuracy_needs_both_members_of_a_pair(exported) -> None:
    utils = exported[4]
    doc = docs_of(exported[2])[0]
    wrong_letter = "A" if doc["answer"] != "A" else "B"

    def one(qid: str, pair: str, response: str) -> dict:
        d = {**doc, "id": qid, "pair": pair}
        return utils.tempogen_process_results(d, [response])["instance_accuracy"]

    right = f"The answer is {doc['answer']}."
    results = [one("a", "a", right), one("a-twin", "a", wrong_letter)]  # half right: 0
    results += [one("b", "b", right), one("b-twin", "b", right), one("c", "", right)]
    assert utils.tempogen_aggregate_instance_accuracy(results) == pytest.approx(0.5)
    assert utils.tempogen_aggregate_instance_accuracy(results[:2]) == 0.0


def test_data_file_loads_with_datasets(exported, monkeypatch) -> None:
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    import datasets

    cfg = exported[3]
    ds = datasets.load_dataset(
        cfg["dataset_path"],
        **cfg["dataset_kwargs"],
        cache_dir=str(exported[0] / "hf_cache"),
    )[cfg["test_split"]]
    assert [d["id"] for d in ds] == [r["id"] for r in exported[1]]
    assert [d["answer"] for d in ds] == [letter(r["answer"]) for r in exported[1]]


def test_export_refuses_bad_rows(exported, tmp_path) -> None:
    ds, rows = exported[0], exported[1]
    with pytest.raises(FileNotFoundError, match="no such file"):
        export_lmms_eval([{**rows[0], "video": "videos/missing.mp4"}], ds, tmp_path)
    with pytest.raises(ValueError, match="'answer' 9 is not an index"):
        export_lmms_eval([{**rows[0], "answer": 9}], ds, tmp_path)
    with pytest.raises(ValueError, match="duplicated"):
        export_lmms_eval([rows[0], rows[0]], ds, tmp_path)
    assert not (tmp_path / TASK).exists()  # nothing written before every row is valid

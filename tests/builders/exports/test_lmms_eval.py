"""The lmms-eval task folder: YAML parses, utils.py works standalone on its own data file."""

from __future__ import annotations

import importlib.util
import json
import shutil
from pathlib import Path

import pytest
import yaml

from tempogen.builders.exports.lmms_eval import TASK, export_lmms_eval, letter
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
    (metric,) = cfg["metric_list"]
    assert metric["metric"] == "accuracy" and metric["higher_is_better"] is True
    assert callable(getattr(utils, metric["aggregation"][1].split(".", 1)[1]))
    assert cfg["generation_kwargs"]["do_sample"] is False
    prompts = cfg["lmms_eval_specific_kwargs"]["default"]
    assert "16 frames" in prompts["pre_prompt"]
    assert "Answer with the option's letter" in prompts["post_prompt"]
    assert Path(cfg["metadata"]["dataset_dir"]) == ds.resolve()


def test_utils_is_standalone(exported) -> None:
    source = (exported[2] / "utils.py").read_text()
    assert "tempogen." not in source.replace("tempogen_", "")
    compile(source, "utils.py", "exec")


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

"""lmms-eval functions for the tempogen_tomato task: prompts, video paths and scoring.

The lmms-eval export copies this file, as it is, into the task folder as ``utils.py`` (the
YAML's ``!function utils.x`` entries name its functions), with a byte copy of
``tempogen/builders/eval/answers.py`` beside it as ``tempogen_answers.py``. Responses are read
by the same ``parse_choice`` as ``tempogen score``: tempogen's when it is installed, else the
copy, so the task folder also works alone. Standard library only at import time (PyYAML, which
lmms-eval needs anyway, is imported when the YAML's metadata is read).
"""

from __future__ import annotations

import importlib.util
import logging
import os
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

TASK = "tempogen_tomato"
ANSWERS_FILE = "tempogen_answers.py"  # the parser's copy beside the task's utils.py
TASK_DIR = Path(__file__).resolve().parent
YAML_FILE = TASK_DIR / f"{TASK}.yaml"
ENV_DATASET_DIR = "TEMPOGEN_DATASET_DIR"
NUM_FRAMES = 16
PRE_PROMPT = (
    f"You are given {NUM_FRAMES} frames sampled uniformly from a video, in the order they "
    "appear. Use only these frames, not outside knowledge or common sense, to answer the "
    "multiple-choice question about what happens in the video.\n\n"
)
POST_PROMPT = (
    "\nEven if the frames seem not to be enough, choose the option you find most likely; do "
    "not answer that it cannot be determined.\nAnswer with the option's letter from the given "
    "choices directly."
)
log = logging.getLogger(TASK)


def _load_sibling_answers() -> Any:
    """``tempogen_answers.py`` beside this file, imported by path (no tempogen installed)."""
    path = TASK_DIR / ANSWERS_FILE
    spec = importlib.util.spec_from_file_location("tempogen_answers", path)
    if spec is None or spec.loader is None or not path.is_file():
        raise ImportError(f"tempogen is not installed and {path} is missing")
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("tempogen_answers", module)
    spec.loader.exec_module(module)
    return module


try:
    from tempogen.builders.eval.answers import parse_choice
except ImportError:  # the task folder used alone, on a machine without tempogen
    parse_choice = _load_sibling_answers().parse_choice


def _metadata() -> dict[str, Any]:
    """The YAML's ``metadata`` block (``!function`` tags read as plain strings)."""
    import yaml

    class Loader(yaml.SafeLoader):
        pass

    Loader.add_constructor("!function", lambda loader, node: loader.construct_scalar(node))
    with open(YAML_FILE, encoding="utf-8") as f:
        return (yaml.load(f, Loader=Loader) or {}).get("metadata") or {}


def dataset_dir() -> Path:
    """Folder the documents' video paths are relative to: $TEMPOGEN_DATASET_DIR, else the
    YAML's metadata.dataset_dir (a relative one is taken from this folder)."""
    root = os.environ.get(ENV_DATASET_DIR) or _metadata().get("dataset_dir")
    if not root:
        raise RuntimeError(f"set {ENV_DATASET_DIR} or metadata.dataset_dir in {YAML_FILE}")
    path = Path(os.path.expanduser(str(root)))
    return path if path.is_absolute() else (TASK_DIR / path).resolve()


def tempogen_doc_to_visual(doc: dict[str, Any]) -> list[str]:
    """The absolute path of the document's video, as a one-element list."""
    path = (dataset_dir() / doc["video"]).resolve()
    if not path.is_file():
        raise FileNotFoundError(f"{doc['id']}: video not found: {path}")
    return [str(path)]


def option_lines(options: list[str]) -> str:
    """Options as ``A. ...`` lines, in order."""
    return "\n".join(f"{chr(65 + i)}. {o}" for i, o in enumerate(options))


def tempogen_doc_to_text(
    doc: dict[str, Any], lmms_eval_specific_kwargs: dict[str, Any] | None = None
) -> str:
    """TOMATO-style prompt: instructions, the question, lettered options, answer format."""
    kw = lmms_eval_specific_kwargs or {}
    pre = kw.get("pre_prompt", PRE_PROMPT)
    post = kw.get("post_prompt", POST_PROMPT)
    return f"{pre}Question: {doc['question']}\nOptions:\n{option_lines(doc['options'])}\n{post}"


def tempogen_doc_to_target(doc: dict[str, Any]) -> str:
    """The right option's letter."""
    return doc["answer"]


def parse_letter(response: Any, options: list[str]) -> str | None:
    """The option letter a free-form response chooses (``parse_choice``), or None."""
    k = parse_choice(response if isinstance(response, str) else "", options)
    return None if k is None else chr(65 + k)


def tempogen_process_results(doc: dict[str, Any], results: list[Any]) -> dict[str, Any]:
    """Score one response: 1.0 when the parsed letter is the document's answer."""
    pred = parse_letter(results[0] if results else "", doc["options"])
    one = {
        "id": doc["id"],
        "task": doc.get("task", ""),
        "demonstration_type": doc.get("demonstration_type", ""),
        "pair": doc.get("pair", ""),
        "pred": pred,
        "answer": doc["answer"],
        "score": 1.0 if pred == doc["answer"] else 0.0,
    }
    return {"accuracy": one, "instance_accuracy": one}


def tempogen_aggregate_accuracy(results: list[dict[str, Any]]) -> float:
    """Overall accuracy; per-task accuracies are logged."""
    by_task: dict[str, list[float]] = defaultdict(list)
    for r in results:
        by_task[r["task"]].append(r["score"])
    for task, scores in sorted(by_task.items()):
        log.info("%s %s: %.4f (%d questions)", TASK, task, sum(scores) / len(scores), len(scores))
    return sum(r["score"] for r in results) / len(results) if results else 0.0


def tempogen_aggregate_instance_accuracy(results: list[dict[str, Any]]) -> float:
    """TimeBlind's instance accuracy: the share of minimal pairs (documents sharing a
    ``pair``) with both members right; 0.0 when no pair was answered whole."""
    pairs: dict[str, list[float]] = defaultdict(list)
    for r in results:
        if r.get("pair"):
            pairs[r["pair"]].append(r["score"])
    whole = [s for s in pairs.values() if len(s) == 2]
    log.info("%s instance accuracy over %d pairs", TASK, len(whole))
    return sum(all(x == 1.0 for x in s) for s in whole) / len(whole) if whole else 0.0

"""Export the TOMATO-style questions as an lmms-eval task folder (YAML, data file, utils.py).

lmms-eval (EvolvingLMMs-Lab) loads a task from a YAML file whose ``!function utils.x`` entries
name functions in a ``utils.py`` beside it. The folder written here is self-contained: a
``test.jsonl`` data file (loaded with the ``json`` builder of ``datasets``), the YAML, and a
``utils.py`` that imports nothing from tempogen. Prompts follow TOMATO's evaluation style
(16 uniform frames, options as ``A. ...``, answer with the option's letter).

Use: ``python -m lmms_eval --model ... --model_args max_num_frames=16 --tasks tempogen_tomato
--include_path <out_dir>/tempogen_tomato``. Videos are found under ``$TEMPOGEN_DATASET_DIR``
when set, else under the dataset folder recorded in the YAML's ``metadata.dataset_dir``.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from tempogen.io import write_jsonl, write_text
from tempogen.questions import VARIATION_KEYS

TASK = "tempogen_tomato"
DATA_FILE = "test.jsonl"
ENV_DATASET_DIR = "TEMPOGEN_DATASET_DIR"
NUM_FRAMES = 16
PRE_PROMPT = (
    "You are given {num_frames} frames sampled uniformly from a video, in the order they "
    "appear. Use only these frames, not outside knowledge or common sense, to answer the "
    "multiple-choice question about what happens in the video.\n\n"
)
POST_PROMPT = (
    "\nEven if the frames seem not to be enough, choose the option you find most likely; do "
    "not answer that it cannot be determined.\nAnswer with the option's letter from the given "
    "choices directly."
)


def letter(i: int) -> str:
    """Option letter of index ``i`` (0 -> ``A``)."""
    if not 0 <= i < 26:
        raise ValueError(f"option index {i} has no letter (at most 26 options)")
    return chr(ord("A") + i)


def doc_of(row: dict[str, Any], dataset_dir: Path | None = None) -> dict[str, Any]:
    """One lmms-eval document from a manifest row; errors name the row and the field."""
    rid = row.get("id", "<no id>")
    for f in ("id", "video", "question", "options", "answer"):
        if f not in row:
            raise ValueError(f"row {rid!r}: missing field {f!r}")
    options = row["options"]
    if (
        not isinstance(options, list)
        or len(options) < 2
        or not all(isinstance(o, str) for o in options)
    ):
        raise ValueError(f"row {rid!r}: field 'options' must be a list of at least 2 strings")
    answer = row["answer"]
    if isinstance(answer, bool) or not isinstance(answer, int) or not 0 <= answer < len(options):
        raise ValueError(f"row {rid!r}: field 'answer' {answer!r} is not an index into options")
    if dataset_dir is not None and not (dataset_dir / row["video"]).is_file():
        raise FileNotFoundError(
            f"row {rid!r}: field 'video': no such file {dataset_dir / row['video']}"
        )
    variation = row.get("variation") or {}
    return {
        "id": str(row["id"]),
        "video": Path(str(row["video"])).as_posix(),
        "task": str(row.get("task", "")),
        "demonstration_type": str(row.get("demonstration_type", "simulated")),
        "generator": str(row.get("generator", "")),
        "question": str(row["question"]),
        "options": list(options),
        "answer": letter(answer),
        "answer_index": int(answer),
        "answer_text": options[answer],
        "variation": {k: int(variation.get(k, 0)) for k in VARIATION_KEYS},
    }


def _q(s: str) -> str:
    """A YAML double-quoted scalar (JSON strings are valid YAML)."""
    return json.dumps(s, ensure_ascii=False)


def task_yaml(data_file: Path, dataset_dir: Path) -> str:
    """The task's YAML text (written by hand: PyYAML cannot emit ``!function`` tags)."""
    pre = PRE_PROMPT.format(num_frames=NUM_FRAMES)
    return f"""# tempogen: TOMATO-style visual temporal reasoning questions as an lmms-eval task.
# Run with --include_path pointing at this folder and the model's max_num_frames=16
# (TOMATO's protocol). Videos resolve under ${ENV_DATASET_DIR} when set, else under
# metadata.dataset_dir; data_files is absolute because datasets resolves it from the cwd.
task: {TASK}
dataset_path: json
dataset_kwargs:
  data_files:
    test: {_q(str(data_file))}
test_split: test
output_type: generate_until
doc_to_visual: !function utils.tempogen_doc_to_visual
doc_to_text: !function utils.tempogen_doc_to_text
doc_to_target: !function utils.tempogen_doc_to_target
process_results: !function utils.tempogen_process_results
generation_kwargs:
  max_new_tokens: 64
  temperature: 0
  top_p: 1.0
  num_beams: 1
  do_sample: false
metric_list:
  - metric: accuracy
    aggregation: !function utils.tempogen_aggregate_accuracy
    higher_is_better: true
lmms_eval_specific_kwargs:
  default:
    pre_prompt: {_q(pre)}
    post_prompt: {_q(POST_PROMPT)}
metadata:
  version: 1.0
  source: tempogen
  num_frames: {NUM_FRAMES}
  dataset_dir: {_q(str(dataset_dir))}
"""


UTILS = '''"""lmms-eval functions for the tempogen_tomato task (written by tempogen; standalone)."""

import logging
import os
import re
from collections import defaultdict
from pathlib import Path

TASK_DIR = Path(__file__).resolve().parent
YAML_FILE = TASK_DIR / "tempogen_tomato.yaml"
ENV_DATASET_DIR = "TEMPOGEN_DATASET_DIR"
PRE_PROMPT = __PRE__
POST_PROMPT = __POST__
log = logging.getLogger("tempogen_tomato")


def _metadata():
    """The YAML's ``metadata`` block (``!function`` tags read as plain strings)."""
    import yaml

    class Loader(yaml.SafeLoader):
        pass

    Loader.add_constructor("!function", lambda loader, node: loader.construct_scalar(node))
    with open(YAML_FILE, encoding="utf-8") as f:
        return (yaml.load(f, Loader=Loader) or {}).get("metadata") or {}


def dataset_dir():
    """Folder the documents' video paths are relative to: $TEMPOGEN_DATASET_DIR, else the
    YAML's metadata.dataset_dir (a relative one is taken from this folder)."""
    root = os.environ.get(ENV_DATASET_DIR) or _metadata().get("dataset_dir")
    if not root:
        raise RuntimeError(f"set {ENV_DATASET_DIR} or metadata.dataset_dir in {YAML_FILE}")
    root = Path(os.path.expanduser(str(root)))
    return root if root.is_absolute() else (TASK_DIR / root).resolve()


def tempogen_doc_to_visual(doc):
    """The absolute path of the document's video, as a one-element list."""
    path = (dataset_dir() / doc["video"]).resolve()
    if not path.is_file():
        raise FileNotFoundError(f"{doc['id']}: video not found: {path}")
    return [str(path)]


def option_lines(options):
    return "\\n".join(f"{chr(65 + i)}. {o}" for i, o in enumerate(options))


def tempogen_doc_to_text(doc, lmms_eval_specific_kwargs=None):
    """TOMATO-style prompt: instructions, the question, lettered options, answer format."""
    kw = lmms_eval_specific_kwargs or {}
    pre = kw.get("pre_prompt", PRE_PROMPT)
    post = kw.get("post_prompt", POST_PROMPT)
    return f"{pre}Question: {doc['question']}\\nOptions:\\n{option_lines(doc['options'])}\\n{post}"


def tempogen_doc_to_target(doc):
    """The right option's letter."""
    return doc["answer"]


def parse_letter(response, options):
    """The option letter a free-form response chooses, or None when it chooses none.

    Tries, in order: a bare letter; "answer is X" / "answer: (X)"; a leading "X." or "(X)";
    one distinct standalone letter; the longest option text the response contains.
    """
    letters = [chr(65 + i) for i in range(len(options))]
    valid = "".join(letters)
    text = re.sub(r"[*_`#]", "", str(response or "")).strip()
    text = re.sub(r"</?answer>", " ", text, flags=re.I).strip()
    if not text:
        return None
    bare = text.strip(" .,:;!?()[]{}'\\"")
    if len(bare) == 1 and bare.upper() in letters:
        return bare.upper()
    patterns = (
        rf"(?i:answer)\\s*(?:(?i:is)|:|=)?\\s*(?:(?i:option)\\s*)?[(\\[]?([{valid}])(?![A-Za-z])",
        rf"^[(\\[]?([{valid}])[)\\].:]",
        rf"(?i:option|choice)\\s*[(\\[]?([{valid}])(?![A-Za-z])",
        rf"[(\\[]([{valid}])[)\\]]",
    )
    for pat in patterns:
        m = re.search(pat, text)
        if m:
            return m.group(1)
    alone = set()
    for m in re.finditer(rf"(?<![A-Za-z])([{valid}])(?![A-Za-z'])", text):
        if m.group(1) == "A" and re.match(r"\\s+[a-z]", text[m.end():]):
            continue  # "A" as an article
        alone.add(m.group(1))
    if len(alone) == 1:
        return alone.pop()
    low = text.lower()
    hits = [(len(o), i) for i, o in enumerate(options) if o.lower().rstrip(".") in low]
    if hits:
        return letters[max(hits)[1]]
    return None


def tempogen_process_results(doc, results):
    """Score one response: 1.0 when the parsed letter is the document's answer."""
    pred = parse_letter(results[0] if results else "", doc["options"])
    return {
        "accuracy": {
            "id": doc["id"],
            "task": doc.get("task", ""),
            "demonstration_type": doc.get("demonstration_type", ""),
            "pred": pred,
            "answer": doc["answer"],
            "score": 1.0 if pred == doc["answer"] else 0.0,
        }
    }


def tempogen_aggregate_accuracy(results):
    """Overall accuracy; per-task accuracies are logged."""
    by_task = defaultdict(list)
    for r in results:
        by_task[r["task"]].append(r["score"])
    for task, scores in sorted(by_task.items()):
        log.info("tempogen_tomato %s: %.4f (%d questions)", task, sum(scores) / len(scores), len(scores))
    return sum(r["score"] for r in results) / len(results) if results else 0.0
'''


def utils_source() -> str:
    """The text of the task's ``utils.py``."""
    pre = PRE_PROMPT.format(num_frames=NUM_FRAMES)
    return UTILS.replace("__PRE__", repr(pre)).replace("__POST__", repr(POST_PROMPT))


def export_lmms_eval(
    rows: Iterable[dict[str, Any]],
    dataset_dir: str | os.PathLike[str],
    out_dir: str | os.PathLike[str],
) -> Path:
    """Write ``out_dir/tempogen_tomato/`` (YAML, ``test.jsonl``, ``utils.py``); return it.

    ``dataset_dir`` is the folder the rows' ``video`` paths are relative to; every video must
    exist. All rows are validated before anything is written; files are written atomically.
    """
    base = Path(dataset_dir).resolve()
    task_dir = Path(out_dir).resolve() / TASK
    docs, seen = [], set()
    for row in rows:
        doc = doc_of(row, base)
        if doc["id"] in seen:
            raise ValueError(f"row {doc['id']!r}: field 'id' is duplicated")
        seen.add(doc["id"])
        docs.append(doc)
    data_file = task_dir / DATA_FILE
    write_jsonl(data_file, docs)
    write_text(task_dir / "utils.py", utils_source())
    write_text(task_dir / f"{TASK}.yaml", task_yaml(data_file, base))
    return task_dir

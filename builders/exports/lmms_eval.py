"""Export the TOMATO-style questions as an lmms-eval task folder (YAML, data file, utils.py).

lmms-eval (EvolvingLMMs-Lab) loads a task from a YAML file whose ``!function utils.x`` entries
name functions in a ``utils.py`` beside it. The folder written here is self-contained: a
``test.jsonl`` data file (loaded with the ``json`` builder of ``datasets``), the YAML, and
``utils.py``, a copy of ``tempogen.builders.eval.lmms_utils``, which scores with our own answer
parser (``tempogen_answers.py``, a copy of ``builders/eval/answers.py``, when tempogen is not
installed). Prompts follow TOMATO's evaluation style (16 uniform frames, options as
``A. ...``, answer with the option's letter).

Use: ``python -m lmms_eval --model ... --model_args max_num_frames=16 --tasks tempogen_tomato
--include_path <out_dir>/tempogen_tomato``. Videos are found under ``$TEMPOGEN_DATASET_DIR``
when set, else under the dataset folder recorded in the YAML's ``metadata.dataset_dir``.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from importlib import resources
from pathlib import Path
from types import ModuleType
from typing import Any

from tempogen.builders.eval import answers, lmms_utils
from tempogen.builders.eval.lmms_utils import (
    ANSWERS_FILE,
    ENV_DATASET_DIR,
    NUM_FRAMES,
    POST_PROMPT,
    PRE_PROMPT,
    TASK,
)
from tempogen.io import write_bytes, write_jsonl, write_text
from tempogen.manifest import RowLike, provenance
from tempogen.questions import VARIATION_KEYS

DATA_FILE = "test.jsonl"


def letter(i: int) -> str:
    """Option letter of index ``i`` (0 -> ``A``)."""
    if not 0 <= i < 26:
        raise ValueError(f"option index {i} has no letter (at most 26 options)")
    return chr(ord("A") + i)


def doc_of(row: RowLike, dataset_dir: Path | None = None) -> dict[str, Any]:
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
        "pair": str(row.get("pair") or ""),  # a minimal pair's id ("" = none)
        **provenance(row),  # an uncertified or declared answer says so
    }


def _q(s: str) -> str:
    """A YAML double-quoted scalar (JSON strings are valid YAML)."""
    return json.dumps(s, ensure_ascii=False)


def task_yaml(data_file: Path, dataset_dir: Path) -> str:
    """The task's YAML text (written by hand: PyYAML cannot emit ``!function`` tags)."""
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
  - metric: instance_accuracy
    aggregation: !function utils.tempogen_aggregate_instance_accuracy
    higher_is_better: true
lmms_eval_specific_kwargs:
  default:
    pre_prompt: {_q(PRE_PROMPT)}
    post_prompt: {_q(POST_PROMPT)}
metadata:
  version: 1.0
  source: tempogen
  num_frames: {NUM_FRAMES}
  dataset_dir: {_q(str(dataset_dir))}
"""


def _source(module: ModuleType) -> bytes:
    """A module's source file, byte for byte (the ``.py`` files ship with the package)."""
    package, _, name = module.__name__.rpartition(".")
    return resources.files(package).joinpath(f"{name}.py").read_bytes()


def export_lmms_eval(
    rows: Iterable[RowLike],
    dataset_dir: str | os.PathLike[str],
    out_dir: str | os.PathLike[str],
) -> Path:
    """Write ``out_dir/tempogen_tomato/`` (YAML, ``test.jsonl``, ``utils.py`` and the answer
    parser ``tempogen_answers.py`` it falls back on); return it.

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
    write_bytes(task_dir / "utils.py", _source(lmms_utils))
    write_bytes(task_dir / ANSWERS_FILE, _source(answers))
    write_text(task_dir / f"{TASK}.yaml", task_yaml(data_file, base))
    return task_dir

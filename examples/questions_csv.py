"""A new export in one file: every question as a CSV row, for review in a spreadsheet."""

import csv
from pathlib import Path

from tempogen.builders.exports.registry import register_export
from tempogen.io import atomic_path


@register_export("questions_csv", folder="csv", description="questions as one CSV")
def write_questions_csv(rows: list[dict], dataset_dir: Path, out_dir: Path) -> Path:
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / "questions.csv"
    with atomic_path(path) as tmp, open(tmp, "w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f)
        writer.writerow(["id", "task", "video", "question", "answer"])
        for r in rows:
            writer.writerow([r["id"], r["task"], r["video"], r["question"], r["answer_text"]])
    return path

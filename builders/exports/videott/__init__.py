"""Video-TT-style question sets written from exact labels: five questions, a rationale, factors.

Video-TT (Zhang et al., 2025) asks one primary open-ended question per video plus four natural
adversarial variants (rephrased, correctly-led, wrongly-led, multiple-choice), gives the primary
a rationale, and tags each video with the complexity factors that make it hard. Here every
answer, every premise and every time in a rationale is computed from the per-frame states in a
row's labels (via :mod:`tempogen.observe`), so a premise called true is true and one called
false is false. Rows without per-frame states (external clips with declared facts only) get no
question set.

Output: ``out_dir/videott.json``, a JSON list of ``{"video_id", "video", "task", ...,
"complexity_factors", "questions"}``. ``video`` is the clip's path relative to ``out_dir``
(by default ``out_dir`` sits inside the dataset folder, so paths read ``../videos/{id}.mp4``);
videos are referenced, never copied.
"""

from tempogen.builders.exports.videott.export import (
    complexity_factors,
    export_videott,
    question_set,
    read_videott,
)
from tempogen.builders.exports.videott.text import FACTORS, FILE_NAME, KINDS

__all__ = [
    "FACTORS",
    "FILE_NAME",
    "KINDS",
    "complexity_factors",
    "export_videott",
    "question_set",
    "read_videott",
]

"""Score model predictions on TOMATO, Vinoground and Video-TT layouts, with each paper's metrics.

Each ``score_*`` function reads a dataset folder and a predictions file (or folder), parses
every response (``tempogen.builders.eval.answers``), and returns one JSON-ready dict. Bad input
never stops scoring: malformed lines, unknown or duplicated ids and unparsable responses are
listed under ``problems`` (``where`` is ``file:line``), and everything else is scored. An
unparsable response counts as wrong; an unknown id is skipped; of duplicates the first wins.
Percentages are rounded to 2 decimals; the counts beside them are exact.

Denominators follow each benchmark's own scorer. TOMATO: the questions a run answered
(TOMATO's ``get_score.py`` averages over its results lines; single-frame runs often cover a
subset). Vinoground and Video-TT: every pair or question in the dataset, a missing prediction
counting as wrong (Vinoground's ``get_score_all.py`` does the same).
"""

from tempogen.builders.eval.common import EPSILON, require_matches
from tempogen.builders.eval.formatting import format_scores, write_scores
from tempogen.builders.eval.tomato import score_tomato
from tempogen.builders.eval.videott import score_videott
from tempogen.builders.eval.vinoground import score_vinoground

__all__ = [
    "EPSILON",
    "format_scores",
    "require_matches",
    "score_tomato",
    "score_videott",
    "score_vinoground",
    "write_scores",
]

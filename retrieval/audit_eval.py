"""How well the caption audit judges: precision and recall of each rule, and overall accuracy,
against a labelled file of good and bad pairs (ours ships as ``caption_pairs_labelled.jsonl``).

A labelled row is ``{"positive", "negative", "valid", "rule", "note"}``: for a bad pair
``rule`` is the audit reason that should fire (:data:`~tempogen.retrieval.audit.REASONS`),
for a good pair the kind of pair it is (action, role-swap, viewpoint, ...). The file is
audited in order, as one file, so duplicates and near-duplicates refer to earlier rows.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import tempogen.assets
from tempogen.errors import InputFileError
from tempogen.io import read_jsonl_lines
from tempogen.retrieval.audit import REASONS, Verdict, audit_pairs
from tempogen.retrieval.near_duplicates import NearDupMode

if TYPE_CHECKING:
    from tempogen.retrieval.embed import Encoder

LABELLED_PAIRS = Path(tempogen.assets.__file__).resolve().parent / "caption_pairs_labelled.jsonl"
"""The shipped labelled set: pairs written for this evaluation, every rule and kind covered."""

ACCEPT = "ok"
"""The row of the table that scores the audit's passes against the good pairs."""


@dataclass(frozen=True)
class LabelledPair:
    """A caption pair with its truth: good or bad, and which rule (or kind of pair) it is."""

    positive: str
    negative: str
    valid: bool
    rule: str
    note: str = ""


def load_labelled(path: str | Path = LABELLED_PAIRS) -> list[LabelledPair]:
    """Read a labelled JSONL file (:func:`tempogen.io.read_jsonl_lines`); a bad pair's rule
    must be an audit reason. Errors are :class:`InputFileError` naming ``file:line``."""
    rows = []
    for n, r in read_jsonl_lines(path):
        where = f"{path}:{n}"
        missing = {"positive", "negative", "valid", "rule"} - set(r)
        if missing:
            raise InputFileError(f"{where}: missing {', '.join(sorted(missing))}")
        for key in ("positive", "negative", "rule"):
            if not isinstance(r[key], str) or not r[key].strip():
                raise InputFileError(f"{where}: {key!r} must be a non-empty string")
        if not isinstance(r["valid"], bool):
            raise InputFileError(f"{where}: 'valid' must be true or false")
        if not r["valid"] and r["rule"] not in REASONS:
            raise InputFileError(
                f"{where}: rule {r['rule']!r} of a bad pair is not one of " + ", ".join(REASONS)
            )
        note = r.get("note", "")
        rows.append(
            LabelledPair(r["positive"], r["negative"], r["valid"], r["rule"], str(note or ""))
        )
    if not rows:
        raise InputFileError(f"{path}: no labelled pairs in this file")
    return rows


@dataclass(frozen=True)
class RuleScore:
    """One rule: pairs labelled with it, pairs it fired on, and both (``ok``: passes)."""

    rule: str
    labelled: int
    flagged: int
    hits: int

    @property
    def precision(self) -> float | None:
        return self.hits / self.flagged if self.flagged else None

    @property
    def recall(self) -> float | None:
        return self.hits / self.labelled if self.labelled else None


@dataclass(frozen=True)
class AuditEvaluation:
    """Per-rule scores, good pairs accepted per kind, accuracy, and the rows judged wrong."""

    rules: tuple[RuleScore, ...]
    kinds: dict[str, tuple[int, int]]  # kind of good pair -> (pairs, accepted)
    correct: int
    total: int
    wrong: tuple[tuple[int, LabelledPair, tuple[str, ...]], ...]

    @property
    def accuracy(self) -> float:
        return self.correct / self.total if self.total else 0.0

    def score(self, rule: str) -> RuleScore:
        return next(s for s in self.rules if s.rule == rule)


def _right(row: LabelledPair, verdict: Verdict) -> bool:
    """A good pair passes; a bad pair fails, for the labelled reason among others."""
    return verdict.ok if row.valid else row.rule in verdict.reasons


def evaluate_audit(
    rows: Sequence[LabelledPair],
    *,
    near_dup: NearDupMode = "embedding",
    encoder: Encoder | None = None,
    cache_dir: str | Path | None = None,
) -> AuditEvaluation:
    """Audit the labelled pairs as one file and score every rule against the labels."""
    verdicts = audit_pairs(
        [(r.positive, r.negative) for r in rows],
        near_dup=near_dup,
        encoder=encoder,
        cache_dir=cache_dir,
    )
    scores = [
        RuleScore(
            ACCEPT,
            sum(r.valid for r in rows),
            sum(v.ok for v in verdicts),
            sum(r.valid and v.ok for r, v in zip(rows, verdicts)),
        )
    ]
    for reason in REASONS:
        truth = [not r.valid and r.rule == reason for r in rows]
        fired = [reason in v.reasons for v in verdicts]
        scores.append(
            RuleScore(reason, sum(truth), sum(fired), sum(t and f for t, f in zip(truth, fired)))
        )
    kinds: dict[str, tuple[int, int]] = {}
    for r, v in zip(rows, verdicts):
        if r.valid:
            n, ok = kinds.get(r.rule, (0, 0))
            kinds[r.rule] = (n + 1, ok + v.ok)
    wrong = tuple(
        (i, r, tuple(v.reasons)) for i, (r, v) in enumerate(zip(rows, verdicts)) if not _right(r, v)
    )
    return AuditEvaluation(tuple(scores), kinds, len(rows) - len(wrong), len(rows), wrong)


def _share(x: float | None) -> str:
    return "-" if x is None else f"{x:.3f}"


def format_evaluation(ev: AuditEvaluation) -> str:
    """A plain-text table: each rule's precision and recall, good pairs accepted per kind,
    accuracy, and every row the audit got wrong."""
    lines = [f"{'rule':<15} {'labelled':>8} {'flagged':>8} {'hits':>5} {'precision':>9} recall"]
    for s in ev.rules:
        lines.append(
            f"{s.rule:<15} {s.labelled:>8} {s.flagged:>8} {s.hits:>5} "
            f"{_share(s.precision):>9} {_share(s.recall)}"
        )
    lines.append("")
    lines.append(f"{'good pairs':<15} {'pairs':>8} {'accepted':>8}")
    for kind, (n, ok) in sorted(ev.kinds.items()):
        lines.append(f"{kind:<15} {n:>8} {ok:>8}")
    lines.append("")
    lines.append(f"accuracy {ev.accuracy:.3f} ({ev.correct}/{ev.total} pairs judged as labelled)")
    for i, r, reasons in ev.wrong:
        want = "pass" if r.valid else r.rule
        got = ", ".join(reasons) or "pass"
        lines.append(f"  row {i + 1}: want {want}, got {got}: {r.positive!r} / {r.negative!r}")
    return "\n".join(lines) + "\n"

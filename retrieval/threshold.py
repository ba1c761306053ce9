"""The "no match" threshold: a top-1 cosine below it means nothing in the corpus tells the same
event, and how it is calibrated from the shipped model and captions (no network).

Calibration (:func:`calibrate`) builds a corpus from half of the event types of two caption
sources, tempogen's own clips (library captions of every pattern and answer; event type: the
fact) and the offline temporal caption templates (event types: the two events), then scores
queries by their best cosine in the corpus: queries that have a true match (the same pattern
and answer drawn with other colours and nouns, or the same two events told with another
subject and connective) against queries made only of left-out event types. The threshold is the cut that
maximises balanced accuracy (Youden's J) on one half of the query groups; precision and recall
are reported on the other half.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from tempogen.retrieval.no_match import NO_MATCH_THRESHOLD

if TYPE_CHECKING:
    from tempogen.retrieval.embed import Encoder

__all__ = [
    "NO_MATCH_THRESHOLD",
    "Calibration",
    "calibrate",
    "calibration_queries",
    "roc_auc",
    "top1_scores",
]


@dataclass(frozen=True)
class Calibration:
    """What :func:`calibrate` found: the threshold and how well it separates on held-out data."""

    threshold: float
    auc: float  # ROC AUC of the top-1 score, match vs no match, on the held-out queries
    precision: float  # of held-out queries at or above the threshold, the share with a match
    recall: float  # of held-out queries with a match, the share at or above the threshold
    accuracy: float  # balanced accuracy at the threshold on the held-out queries
    n_corpus: int
    n_match: int  # held-out queries with a true match
    n_no_match: int  # held-out queries without one

    def as_dict(self) -> dict[str, Any]:
        return {k: round(v, 4) if isinstance(v, float) else v for k, v in asdict(self).items()}


def roc_auc(scores: np.ndarray, labels: np.ndarray) -> float:
    """Area under the ROC curve: the chance a random positive outscores a random negative
    (ties count half)."""
    pos, neg = scores[labels], scores[~labels]
    if len(pos) == 0 or len(neg) == 0:
        raise ValueError("roc_auc needs at least one positive and one negative")
    greater = (pos[:, None] > neg[None, :]).sum() + 0.5 * (pos[:, None] == neg[None, :]).sum()
    return float(greater / (len(pos) * len(neg)))


def _best_cut(scores: np.ndarray, labels: np.ndarray) -> float:
    """The threshold (midway between two adjacent scores) with the highest balanced accuracy."""
    values = np.unique(scores)
    cuts = np.concatenate([[values[0] - 1e-3], (values[:-1] + values[1:]) / 2, [values[-1] + 1e-3]])
    tpr = np.array([(scores[labels] >= c).mean() for c in cuts])
    tnr = np.array([(scores[~labels] < c).mean() for c in cuts])
    return float(cuts[int(np.argmax(tpr + tnr))])


# an event group: (its atomic events, its corpus-side captions, its other wordings)
_Group = tuple[frozenset[str], list[str], list[str]]


def _library_groups(motions: int | None, seed: int) -> dict[str, _Group]:
    """Per pattern (its atom: the fact it shows): the library captions of every answer key for
    a clip drawn with one seed (the corpus side) and for one drawn with another (other colours
    and nouns: the queries)."""
    import tempogen.generators  # noqa: F401  (registers the built-in patterns)
    from tempogen.facts import FACTS
    from tempogen.generators.motion import MOTIONS, Style, make_labels
    from tempogen.retrieval.corpus import library_caption

    names = sorted(MOTIONS)
    if motions is not None:
        names = sorted(random.Random(seed).sample(names, min(motions, len(names))))
    groups: dict[str, _Group] = {}
    for name in names:
        motion = MOTIONS[name]
        sides: list[list[str]] = []
        for draw in range(2):
            labels = make_labels(
                motion,
                motion.keys()[0],
                np.random.default_rng(seed * 1000 + draw),
                width=480,
                height=270,
                fps=20,
                num_frames=100,
                style=Style(),
            )
            labels_json, question = labels.to_json(), motion.question_text(labels)
            sides.append(
                [
                    library_caption({"question": question, "answer_key": k, "labels": labels_json})
                    for k in FACTS[motion.fact].keys(labels.query.objects)
                ]
            )
        pos, neg = sides
        groups[f"library:{name}"] = (frozenset({f"fact:{motion.fact}"}), pos, neg)
    return groups


def _offline_groups(n: int, seed: int) -> dict[str, _Group]:
    """Per event group of the offline templates (its atoms: the template's two events): one
    wording (the corpus side) and up to three with other subjects or connectives."""
    from tempogen.retrieval.captions import offline_candidates

    rng = random.Random(seed)
    texts: dict[str, set[str]] = {}
    atoms: dict[str, frozenset[str]] = {}
    for pair in offline_candidates():
        prov = pair.provenance
        key = f"offline:{prov['template']}:{'|'.join(prov['events'])}"
        texts.setdefault(key, set()).add(pair.pos)
        atoms[key] = frozenset(f"{prov['template']}:{e}" for e in prov["events"])
    groups: dict[str, _Group] = {}
    for key in rng.sample(sorted(texts), min(n, len(texts))):
        words = rng.sample(sorted(texts[key]), min(4, len(texts[key])))
        groups[key] = (atoms[key], words[:1], words[1:])
    return groups


def calibration_queries(
    motions: int | None = None, offline: int = 200, seed: int = 0
) -> tuple[list[str], list[tuple[str, bool, int]]]:
    """The calibration corpus and its queries as (caption, has a true match, split 0 or 1).

    Atomic events (a pattern's fact; an offline template's events) are split at random in two
    halves. A group made of kept events puts its corpus side into the corpus and gives match
    queries (its other wordings, those not in the corpus); a group made only of left-out events
    gives no-match queries (nothing in the corpus shares an event with it); a mixed group is
    skipped. At most three queries a group; each group's queries fall in one split.
    ``motions``: how many patterns to draw library captions from (None: all)."""
    groups = {**_library_groups(motions, seed), **_offline_groups(offline, seed)}
    rng = random.Random(seed + 1)
    all_atoms = sorted(set().union(*(atoms for atoms, _, _ in groups.values())))
    kept = {a for a in all_atoms if rng.random() < 0.5}
    corpus: set[str] = set()
    queries: list[tuple[str, bool, int]] = []
    for key in sorted(groups):
        atoms, side, others = groups[key]
        split = rng.randrange(2)
        if atoms <= kept:
            corpus.update(side)
        elif atoms & kept:
            continue
        asked = sorted(set(others) - set(side))
        queries += [(t, atoms <= kept, split) for t in rng.sample(asked, min(3, len(asked)))]
    return sorted(corpus), queries


def top1_scores(corpus: Sequence[str], queries: Sequence[str], encoder: Encoder) -> np.ndarray:
    """Each query's best cosine over the corpus (exact: FAISS flat inner product)."""
    from tempogen.retrieval.search import build_index, search

    index = build_index(encoder.encode(list(corpus)), "flat", use_gpu=False)
    scores, _ = search(index, encoder.encode(list(queries)), 1)
    return scores[:, 0]


def calibrate(
    encoder: Encoder | None = None, *, motions: int | None = None, offline: int = 200, seed: int = 0
) -> Calibration:
    """Pick the no-match threshold on split 0 of :func:`calibration_queries` and measure it
    (AUC, precision, recall, balanced accuracy) on split 1."""
    if encoder is None:
        from tempogen.retrieval.embed import shared_encoder

        encoder = shared_encoder()
    corpus, queries = calibration_queries(motions, offline, seed)
    scores = top1_scores(corpus, [q for q, _, _ in queries], encoder)
    match = np.array([m for _, m, _ in queries])
    split = np.array([s for _, _, s in queries])
    fit, test = split == 0, split == 1
    cut = _best_cut(scores[fit], match[fit])
    s, m = scores[test], match[test]
    above = s >= cut
    hits, rejections = int((above & m).sum()), int((~above & ~m).sum())
    recall = hits / max(1, int(m.sum()))
    return Calibration(
        threshold=round(cut, 3),
        auc=roc_auc(s, m),
        precision=hits / max(1, int(above.sum())),
        recall=recall,
        accuracy=(recall + rejections / max(1, int((~m).sum()))) / 2,
        n_corpus=len(corpus),
        n_match=int(m.sum()),
        n_no_match=int((~m).sum()),
    )

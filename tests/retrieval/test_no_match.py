"""The calibrated "no match" threshold: retrieval marks captions nothing in the corpus tells,
flags pairs whose two captions match the same clips, and the calibration reproduces."""

from __future__ import annotations

import numpy as np
import pytest

from tempogen.retrieval.corpus import Corpus, CorpusEntry
from tempogen.retrieval.embed import Encoder
from tempogen.retrieval.search import retrieval_summary, retrieve, summary_line
from tempogen.retrieval.threshold import NO_MATCH_THRESHOLD, calibrate, roc_auc

CORPUS = Corpus(
    tuple(
        CorpusEntry(f"v{i}", caption)
        for i, caption in enumerate(
            [
                "a chef slices onions and then fries them in a pan",
                "the red ball bounces on the floor twice",
                "the blue circle flashes more and more often",
                "a man plays the guitar on a stage",
                "the person walks towards the camera",
            ]
        )
    ),
    source="test",
)
MATCH = ("a cook cuts an onion then fries it", "a cook fries an onion then cuts it")
NO_MATCH = ("a girl sings then waves", "a girl waves then sings")


@pytest.fixture(scope="module")
def encoder() -> Encoder:
    return Encoder()


def test_a_caption_with_no_match_is_marked_and_one_with_a_match_is_not(encoder: Encoder) -> None:
    rows = retrieve([MATCH, NO_MATCH], CORPUS, encoder, top_k=2)
    found, missing = rows
    assert found["pos_candidates"][0]["video_id"] == "v0"
    assert found["pos_candidates"][0]["matched"] and not found["pos_no_match"]
    assert [c["matched"] for c in found["pos_candidates"]] == [
        c["score"] >= NO_MATCH_THRESHOLD for c in found["pos_candidates"]
    ]
    assert missing["pos_no_match"] and missing["neg_no_match"]
    assert not any(c["matched"] for c in missing["pos_candidates"] + missing["neg_candidates"])
    # the threshold is what decides: at -1 every candidate matches, at 1 none does
    everything = retrieve([NO_MATCH], CORPUS, encoder, top_k=2, no_match_threshold=-1.0)
    assert not everything[0]["pos_no_match"] and not everything[0]["neg_no_match"]
    nothing = retrieve([MATCH], CORPUS, encoder, top_k=2, no_match_threshold=1.0)
    assert nothing[0]["pos_no_match"] and nothing[0]["neg_no_match"]


def test_pairs_retrieving_the_same_clips_are_not_discriminating(encoder: Encoder) -> None:
    different = ("a chef fries onions in a pan", "a man plays the guitar")
    rows = retrieve([MATCH, different], CORPUS, encoder, top_k=1)
    assert [r["discriminating"] for r in rows] == [False, True]  # a temporal swap: same clip
    summary = retrieval_summary(rows + retrieve([NO_MATCH], CORPUS, encoder, top_k=1))
    assert summary == {
        "pairs": 3,
        "no_match_threshold": NO_MATCH_THRESHOLD,
        "pairs_no_match": 1,
        "pairs_one_side_no_match": 0,
        "pairs_not_discriminating": 2,
    }
    assert "1/3 pairs have no match" in summary_line(summary)


def test_roc_auc_counts_ties_half() -> None:
    labels = np.array([True, True, False, False])
    assert roc_auc(np.array([0.9, 0.8, 0.2, 0.1]), labels) == 1.0
    assert roc_auc(np.array([0.5, 0.5, 0.5, 0.5]), labels) == 0.5


def test_calibration_at_a_small_size_separates_held_out_queries(encoder: Encoder) -> None:
    """The threshold found on one half of the query groups beats chance on the other half."""
    result = calibrate(encoder, motions=10, offline=80, seed=0)
    assert result.n_match > 5 and result.n_no_match > 5
    assert result.auc > 0.65 and result.accuracy > 0.6
    assert 0.3 < result.threshold < 0.95


def test_a_malformed_pair_is_named_by_its_number_counting_from_one(encoder: Encoder) -> None:
    """The second pair, empty on one side, is "pair 2" (as a reader counts), not "pair 1"."""
    from tempogen.errors import InputFileError

    with pytest.raises(InputFileError, match=r"^pair 2: expected \(pos, neg\) non-empty"):
        retrieve([("a man eats", "a man sleeps"), ("a man runs", " ")], CORPUS, encoder)

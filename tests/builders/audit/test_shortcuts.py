"""Blind baselines: each finds a planted tell and stays at chance without one."""

from __future__ import annotations

import json

import numpy as np
import pytest
from kit import manifest_row

from tempogen.builders.audit.shortcuts import (
    fold_of,
    format_shortcuts,
    option_ranks,
    shortcut_report,
    wilson,
)
from tempogen.manifest import Row

WORDS = ["Clockwise.", "Counter-clockwise.", "Leftwards.", "Rightwards.", "Upwards.", "No."]


def rows(n: int, seed: int = 0, *, pos=None, rank=None, word=None, slow=None) -> list[Row]:
    """``n`` six-option count questions answered at random, unless a tell is planted: the
    answer always at option ``pos``, always the ``rank``-th smallest count, always worded
    ``word`` (text options), or (``slow``, text options) its key given away by the clip's
    length."""
    rng = np.random.default_rng(seed)
    out = []
    for i in range(n):
        counts = sorted(rng.choice(np.arange(1, 12), 6, replace=False).tolist())
        right = int(rng.integers(6)) if rank is None else rank
        options = [str(c) for c in counts]
        if word is not None or slow is not None:
            options = [str(w) for w in rng.permutation(WORDS)]
            right = options.index(word) if word is not None else int(rng.integers(6))
        key = options[right]
        order = list(rng.permutation(6))
        if pos is not None:  # move the right option to ``pos``
            order.remove(right)
            order.insert(pos, right)
        shown = [options[j] for j in order]
        frames = int(rng.integers(60, 300))
        if slow is not None:  # each answer has its own clip length
            frames = 60 + 40 * WORDS.index(key) + int(rng.integers(0, 10))
        out.append(manifest_row(
            id=f"count-{i:04d}", task="count", question="How many times?",
            options=shown, option_keys=shown, answer=shown.index(key), answer_key=key,
            generator="g", fps=30.0, num_frames=frames,
        ))  # fmt: skip
    return out


def test_wilson_interval() -> None:
    lo, hi = wilson(50, 100, 1.959964)
    assert (round(lo, 4), round(hi, 4)) == (0.4038, 0.5962)
    assert wilson(0, 0, 1.96) == (0.0, 1.0)
    lo, hi = wilson(0, 30, 1.96)
    assert lo == 0.0 and 0.1 < hi < 0.12


def test_option_ranks_by_value_else_length() -> None:
    assert option_ranks(["3", "10", "1"]) == [1, 2, 0]  # 10 is not before 3
    assert option_ranks(["Up.", "Leftwards.", "No."]) == [1, 2, 0]


def test_variants_fall_in_their_sources_fold() -> None:
    assert fold_of(manifest_row(id="count-0007~reverse")) == fold_of(manifest_row(id="count-0007"))


@pytest.mark.parametrize(
    "tell,baseline", [({"pos": 3}, "position"), ({"rank": 4}, "rank"), ({"slow": True}, "metadata")]
)
def test_a_planted_tell_is_found_and_a_fair_set_passes(tell, baseline) -> None:
    found = shortcut_report(rows(300, **tell), [baseline])
    s = found["baselines"][baseline]["overall"]
    assert s["above_chance"] and s["accuracy"] > 0.6 and not found["passed"]
    assert found["baselines"][baseline]["tasks"]["count"]["n"] == 300
    fair = shortcut_report(rows(300, seed=1), [baseline])
    s = fair["baselines"][baseline]["overall"]
    assert not s["above_chance"] and fair["passed"] and s["accuracy"] < 0.25


@pytest.mark.slow
def test_the_text_baseline_reads_words_through_the_shipped_model() -> None:
    found = shortcut_report(rows(200, word="Counter-clockwise."), ["text"])
    assert found["baselines"]["text"]["overall"]["accuracy"] > 0.9 and not found["passed"]
    fair = shortcut_report(rows(200, seed=2), ["text"])
    assert fair["passed"], format_shortcuts(fair)


@pytest.mark.slow
def test_cli_on_a_built_dataset(tmp_path) -> None:
    """``tempogen audit shortcuts`` on a real (tiny) build: every baseline's figures as JSON,
    and video sizes read beside the manifest; too few questions to be above chance."""
    import subprocess
    import sys

    cfg = tmp_path / "c.yaml"
    cfg.write_text(
        "seed: 4\nsize: [160, 90]\nfps: 10\nduration: [3, 3]\nsamples_per_task: 2\n"
        "variants: {share: 0.5}\nvinoground: {pairs: 0}\nretrieval: {pairs: 0}\n"
        "scenes3d: {humans: 0, objects: 0}\n"
    )
    run = [sys.executable, "-m", "tempogen.cli"]
    built = subprocess.run([*run, "generate", "--config", str(cfg), "--out", str(tmp_path / "ds"),
                            "-j", "1", "-q"], capture_output=True, text=True, timeout=600)  # fmt: skip
    assert built.returncode == 0, built.stderr[-2000:]
    out = tmp_path / "s.json"
    res = subprocess.run([*run, "audit", "shortcuts", "--manifest", str(tmp_path / "ds" / "manifest.jsonl"),
                          "--baselines", "position,rank,metadata", "--out", str(out)],
                         capture_output=True, text=True, timeout=600)  # fmt: skip
    assert res.returncode == 0, res.stdout + res.stderr
    report = json.loads(out.read_text())
    assert set(report["baselines"]) == {"position", "rank", "metadata"} and report["passed"]
    assert report["questions"] >= 12 and "blind baselines" in res.stdout
    bad = subprocess.run([*run, "audit", "shortcuts", "--manifest", str(cfg), "--baselines", "x"],
                         capture_output=True, text=True, timeout=600)  # fmt: skip
    assert bad.returncode == 2 and str(cfg) in bad.stderr


def test_a_tiny_set_is_reported_not_judged() -> None:
    """Six questions that all hold their answer at option 3 are a perfect score, but too few
    to judge: a trial build is not failed for them."""
    from tempogen.builders.audit.shortcuts import MIN_JUDGED, above_chance

    tiny = shortcut_report(rows(6, pos=3), ["position"])
    s = tiny["baselines"]["position"]["overall"]
    assert s["n"] == 6 < MIN_JUDGED and not s["above_chance"] and tiny["passed"]
    big = shortcut_report(rows(60, pos=3), ["position"])
    assert above_chance(big) and above_chance(big)[0].startswith("position (all tasks): 100.0%")


def test_per_row_unique_metadata_with_random_answers_stays_at_chance_out_of_fold() -> None:
    """Every row has its own generator, length and file size, and a random answer: a model
    can memorise each row (scored on the rows it learned, the metadata baseline is near
    perfect), but nothing carries over to a row it has not seen. Scored out of fold, as the
    audit must, it stays at chance; an audit that trained on the fold it scores would fail
    this fair set."""
    from tempogen.builders.audit.shortcuts import fit_metadata

    data = rows(300, seed=3)
    data = [
        r.edited(generator=f"g{i:03d}", num_frames=60 + i, extra={"video_bytes": 50_000 + 977 * i})
        for i, r in enumerate(data)
    ]
    memorised = fit_metadata(data)
    assert np.mean([memorised(r) == r.answer for r in data]) > 0.9  # the leak is real
    report = shortcut_report(data, ["metadata"])
    s = report["baselines"]["metadata"]["overall"]
    assert s["n"] == 300 and not s["above_chance"] and report["passed"], format_shortcuts(report)
    assert s["accuracy"] < s["chance"] + 0.08, s

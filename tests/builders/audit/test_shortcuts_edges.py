"""The shortcut audit's edges (``builders/audit/shortcuts.py``): each blind baseline finds the
tell planted for it, scores only rows it did not learn from (out of fold), and reports what it
found in words a reader can act on. The broken inputs (a tell only in the file's size or
frame rate, answers that follow the fold, too few questions to judge) must come out as the
audit says they should. Small sets (tens of rows) keep each case well under a second, except
the one that needs the shipped text model."""

from __future__ import annotations

import zlib

import numpy as np
import pytest
import sklearn.linear_model  # noqa: F401  (imported once here: the baselines import it lazily)
from kit import manifest_row

from tempogen.builders.audit.shortcuts import (
    MIN_JUDGED,
    MIN_TEXT,
    Z95,
    Z99,
    above_chance,
    fit_metadata,
    fit_position,
    fit_rank,
    fit_text,
    fold_of,
    format_shortcuts,
    group_of,
    manifest_shortcuts,
    metadata_features,
    option_ranks,
    shortcut_report,
    wilson,
    with_sizes,
)
from tempogen.errors import ConfigurationError
from tempogen.manifest import Row

KEYS = ["Leftwards.", "Rightwards.", "Upwards."]


def _row(i: int, answer: int, task: str = "direction", **extra) -> Row:
    """A three-option question answered at option ``answer`` (keys in a fixed order)."""
    fields = {
        "id": f"{task}-{i:04d}", "task": task, "question": "Which way?",
        "options": list(KEYS), "option_keys": list(KEYS), "answer": answer, "generator": "g",
        "fps": 10.0, "num_frames": 60,
    }  # fmt: skip
    return manifest_row(**{**fields, **extra})


def _random(n: int, seed: int, task: str = "direction") -> list[Row]:
    rng = np.random.default_rng(seed)
    return [_row(i, int(rng.integers(3)), task) for i in range(n)]


# --- wilson: the interval every verdict rests on ----------------------------------------------


def test_wilson_at_the_99_bound_and_its_clamps() -> None:
    lo, hi = wilson(3, 40, Z95)  # an asymmetric proportion: p and 1 - p differ
    assert (round(lo, 4), round(hi, 4)) == (0.0258, 0.1986)
    lo, hi = wilson(3, 40, Z99)
    assert (round(lo, 4), round(hi, 4)) == (0.0192, 0.2518)
    lo, hi = wilson(30, 30, Z99)
    assert round(lo, 4) == 0.8189 and 0.9999 < hi <= 1.0
    assert wilson(20, 20, Z95)[1] == 1.0  # the formula's float lands past 1: clamped
    assert wilson(0, 7, Z95)[0] == 0.0  # and below 0: clamped


# --- folds: grouped by source clip, fixed, all used ---------------------------------------------


def test_folds_are_fixed_by_the_source_clip_and_all_used() -> None:
    ids = [f"q-{i:03d}" for i in range(40)]
    folds = [fold_of(manifest_row(id=i)) for i in ids]
    assert set(folds) == {0, 1, 2, 3, 4}
    assert {fold_of(manifest_row(id=i), 3) for i in ids} == {0, 1, 2}  # the folds asked
    assert group_of(manifest_row(id="q-001~reverse~speed_2")) == "q-001"
    assert fold_of(manifest_row(id="q-001~reverse~speed_2")) == fold_of(manifest_row(id="q-001"))


# --- ranks: what a reader can rank blind ---------------------------------------------------------


def test_option_ranks_read_numbers_with_a_full_stop_and_break_ties_by_text() -> None:
    assert option_ranks(["2", "2.0", "1."]) == [1, 2, 0]  # 2 = 2.0 by value: "2" first
    assert option_ranks(["2.0", "2", "1."]) == [2, 1, 0]  # by its text, not its place
    assert option_ranks(["1.5.", "0.5.", "2."]) == [1, 0, 2]  # decimals with a full stop
    assert option_ranks([" 3 ", "10", "1"]) == [1, 2, 0]  # spaces around a count
    assert option_ranks(["Bb.", "Aa.", "C."]) == [2, 1, 0]  # same length: by text
    assert option_ranks(["3", "ten", "1"]) == [1, 2, 0]  # one word: all by length


# --- position and rank: majorities per task and option count ------------------------------------


def test_position_learns_per_task_and_option_count_and_breaks_ties_low() -> None:
    train = [_row(i, 2) for i in range(5)] + [_row(i, 1, "count") for i in range(5)]
    train += [_row(10 + i, a, "rotation") for i, a in enumerate([2, 2, 1, 1, 0])]  # a tie: 1 wins
    predict = fit_position(train)
    assert predict(_row(99, 0)) == 2 and predict(_row(99, 0, "count")) == 1
    assert predict(_row(99, 0, "rotation")) == 1
    four = _row(99, 0).edited(options=[*KEYS, "No."])  # four options: never seen, option 0
    assert predict(four) == 0 and predict(_row(99, 0, "visual_cues")) == 0


def test_rank_learns_the_largest_count_and_finds_it_wherever_it_sits() -> None:
    rng = np.random.default_rng(4)
    train = []
    for i in range(12):
        counts = [str(c) for c in rng.permutation([2, 5, 9, 14])]
        train.append(_row(i, 0).edited(options=counts, answer=counts.index("14")))
    predict = fit_rank(train)
    assert predict(_row(50, 0).edited(options=["7", "30", "3", "12"])) == 1
    assert predict(_row(51, 0).edited(options=["30", "7", "3", "12"])) == 0
    unseen = _row(52, 0, "count").edited(options=["7", "30", "3", "12"])
    assert predict(unseen) == 2  # a task it never learned: the smallest option


# --- text: a classifier on (question, option) embeddings ----------------------------------------


def _bag(texts: list[str]) -> np.ndarray:
    """A bag-of-words embedding (the words' hashes into 256 bins): enough for a word tell."""
    out = np.zeros((len(texts), 256))
    for i, t in enumerate(texts):
        for w in t.split():
            out[i, zlib.crc32(w.encode()) % 256] += 1.0
    return out


def test_the_text_classifier_learns_a_word_and_picks_the_best_scoring_option() -> None:
    rng = np.random.default_rng(1)
    words = ["Clockwise.", "Counter-clockwise.", "Leftwards.", "Rightwards."]
    train = []
    for i in range(40):
        options = [str(w) for w in rng.permutation(words)]
        train.append(_row(i, 0).edited(options=options, answer=options.index("Leftwards.")))
    predict = fit_text(train, _bag)
    for order in (words, words[::-1], [words[2], *words[:2], words[3]]):
        assert predict(_row(99, 0).edited(options=order)) == order.index("Leftwards.")
    # one option a question: nothing to tell apart, option 0
    single = [_row(i, 0).edited(options=["Leftwards."]) for i in range(4)]
    assert fit_text(single, _bag)(_row(9, 0).edited(options=["Up.", "Leftwards."])) == 0


# --- metadata: what the file says ------------------------------------------------------------------


def test_metadata_features_are_the_files_duration_rate_length_size_and_generator() -> None:
    row = manifest_row(fps=10.0, num_frames=50, extra={"video_bytes": 200_000}, generator="b")
    assert metadata_features(row, ["a", "b"]).tolist() == [5.0, 10.0, 0.5, 0.4, 0.0, 1.0]
    short = manifest_row(fps=10.0, num_frames=5, extra={"video_bytes": 20_000}, generator="a")
    assert metadata_features(short, ["a"]).tolist() == [0.5, 10.0, 0.05, 0.4, 1.0]  # per second
    # nothing known: zeros, no division by zero
    empty = manifest_row(generator="b").edited(fps=None, num_frames=None)
    empty = metadata_features(empty, ["a"])
    assert empty.tolist() == [0.0, 0.0, 0.0, 0.0, 0.0]


def _tell(field: str, n: int = 45, seed: int = 0) -> list[Row]:
    """Random answers whose key one file field gives away (the others random)."""
    rng = np.random.default_rng(seed)
    rows = []
    for i in range(n):
        a = int(rng.integers(3))
        fps = float(rng.choice([8.0, 10.0, 15.0]))
        frames = int(rng.integers(40, 120))
        size = int(rng.integers(50_000, 90_000))
        gen = f"g{rng.integers(3)}"
        if field == "duration":  # the length in seconds, whatever the rate
            frames = int(fps * (3 + 2 * a))
        elif field == "fps":
            fps = [8.0, 12.0, 20.0][a]
        elif field == "bytes_per_second":  # bigger files for one answer, per second of clip
            size = int(frames / fps * (10_000 + 40_000 * a))
        elif field == "generator":
            gen = f"gen-{a}"
        rows.append(
            _row(
                i,
                a,
                fps=fps,
                num_frames=frames,
                extra={"video_bytes": size},
                generator=gen,
                id=f"m-{i:03d}",
            )  # fmt: skip
        )
    return rows


@pytest.mark.parametrize("field", ["duration", "fps", "bytes_per_second", "generator"])
def test_the_metadata_baseline_finds_a_tell_in_each_file_field(field: str) -> None:
    report = shortcut_report(_tell(field), ["metadata"])
    s = report["baselines"]["metadata"]["overall"]
    assert s["accuracy"] > 0.9 and s["above_chance"] and not report["passed"], (field, s)


def test_a_two_answer_task_is_learned_too() -> None:
    """Yes/no questions (two keys) whose answer the generator gives away: found."""
    rows = [r for r in _tell("generator", 60) if r.answer < 2]
    rows = [r.edited(options=KEYS[:2], option_keys=KEYS[:2]) for r in rows]
    report = shortcut_report(rows, ["metadata"])
    assert report["baselines"]["metadata"]["overall"]["accuracy"] > 0.9 and not report["passed"]


def test_metadata_skips_unkeyed_rows_and_one_key_tasks_and_maps_keys_to_options() -> None:
    train = _tell("generator", 30)
    train += [r.edited(answer_key=None, id=f"x-{i}") for i, r in enumerate(_tell("fps", 10))]
    train += [_row(200 + i, 1, "count", generator="gen-0") for i in range(6)]  # one key only
    predict = fit_metadata(train)
    probe = _row(999, 0, generator="gen-2")
    assert predict(probe) == 2
    shuffled = probe.edited(option_keys=[KEYS[2], KEYS[0], KEYS[1]])
    assert predict(shuffled) == 0  # the key the model picks, wherever its option sits
    assert predict(_row(998, 0, "count", generator="gen-2")) == 0  # no model for one key
    assert predict(probe.edited(option_keys=[])) == 0  # no keys to map to: option 0
    unknown = probe.edited(option_keys=["No.", "Never.", KEYS[2]])
    assert predict(unknown) == 2  # keys the model never saw score 0


# --- cross-validation: scored only out of fold -----------------------------------------------------


def test_answers_that_follow_the_fold_are_never_guessed_out_of_fold() -> None:
    """Each question's answer is its own fold's number: a position baseline that learned on
    the fold it scores would be right every time; out of fold it is never right."""
    rows = []
    for i in range(300):
        r = _row(i, 0).edited(options=list("ABCDE"), option_keys=list("ABCDE"))
        rows.append(r.edited(answer=fold_of(r)))
    s = shortcut_report(rows, ["position"])["baselines"]["position"]["overall"]
    assert s["n"] == 300 and s["correct"] == 0


def test_an_empty_fold_is_passed_over_and_the_rest_still_scored() -> None:
    """No question falls in fold 0: folds 1 to 4 are still each scored."""
    rows = [r for r in (_row(i, 2) for i in range(60)) if fold_of(r) != 0]
    s = shortcut_report(rows, ["position"])["baselines"]["position"]["overall"]
    assert s["correct"] == s["n"] == len(rows) > MIN_JUDGED


# --- the report ------------------------------------------------------------------------------------


def test_the_number_of_folds_asked_for_is_the_number_scored() -> None:
    report = shortcut_report([_row(i, 2) for i in range(60)], ["position"], folds=3)
    s = report["baselines"]["position"]["overall"]
    assert report["folds"] == 3 and s["n"] == s["correct"] == 60  # every row scored, in 3 folds


def test_no_questions_report_zeros_and_nothing_above_chance() -> None:
    report = shortcut_report([_row(0, 0).edited(options=[])], ["position", "rank"])
    s = report["baselines"]["position"]["overall"]
    assert report["questions"] == 0 and report["passed"]
    assert (s["n"], s["correct"], s["accuracy"], s["chance"]) == (0, 0, 0.0, 0.0)
    assert s["ci95"] == [0.0, 1.0] and not s["above_chance"]


def test_rows_without_options_are_left_out_and_answer_zero_is_kept() -> None:
    rows = [_row(i, 0) for i in range(5)] + [_row(10, 0).edited(options=[])]
    report = shortcut_report(rows, ["position"])
    assert report["questions"] == 5 and report["folds"] == 5
    assert report["baselines"]["position"]["overall"]["n"] == 5


def test_unknown_baselines_are_refused_by_name() -> None:
    with pytest.raises(ConfigurationError) as err:
        shortcut_report([_row(0, 0)], ["position", "colour", "sound"])
    assert str(err.value) == (
        "unknown baseline(s) colour, sound; known: position, rank, text, metadata"
    )


def test_the_text_baseline_needs_sixty_questions() -> None:
    few = shortcut_report(_random(MIN_TEXT - 1, 0), ["position", "text"])
    assert set(few["baselines"]) == {"position"}
    assert few["skipped"] == {"text": f"{MIN_TEXT - 1} questions, fewer than {MIN_TEXT}"}


@pytest.mark.slow
def test_sixty_questions_are_enough_for_the_text_baseline() -> None:
    report = shortcut_report(_random(MIN_TEXT, 0), ["text"])  # the shipped model
    assert "skipped" not in report and report["baselines"]["text"]["overall"]["n"] == MIN_TEXT


def test_scores_count_chance_per_question_and_judge_from_thirty() -> None:
    two = [_row(i, 1).edited(options=KEYS[:2], option_keys=KEYS[:2]) for i in range(15)]
    rows = two + [_row(100 + i, 1) for i in range(15)]  # half of two options, half of three
    report = shortcut_report(rows, ["position"])
    s = report["baselines"]["position"]["overall"]
    assert s["chance"] == pytest.approx((0.5 + 1 / 3) / 2)
    assert s["n"] == MIN_JUDGED == 30 and s["accuracy"] == 1.0 and s["above_chance"]
    less = shortcut_report(rows[1:], ["position"])["baselines"]["position"]["overall"]
    assert s["ci99"] == list(wilson(30, 30, Z99)) and s["ci95"] == list(wilson(30, 30, Z95))
    assert less["n"] == 29 and not less["above_chance"]  # 29 questions: reported, not judged


def test_a_tell_in_one_task_fails_the_audit_though_the_other_is_fair() -> None:
    rows = [_row(i, 2, "count") for i in range(40)] + _random(300, 5)
    report = shortcut_report(rows, ["position"])
    tasks = report["baselines"]["position"]["tasks"]
    assert tasks["count"]["above_chance"] and not tasks["direction"]["above_chance"]
    assert tasks["count"]["n"] == 40 and tasks["direction"]["n"] == 300
    assert not report["passed"]
    assert above_chance(report)[-1] == (
        "position (count): 100.0% vs chance 33.3% (99% lower bound "
        f"{100 * wilson(40, 40, Z99)[0]:.1f}%)"
    )


def test_the_table_names_each_baseline_task_and_verdict() -> None:
    report = shortcut_report([_row(i, 2, "count") for i in range(40)], ["position"])
    lines = format_shortcuts(report).splitlines()
    lo95 = 100 * wilson(40, 40, Z95)[0]
    assert lines == [
        "blind baselines, 40 questions, 5-fold cross-validation grouped by source clip",
        "baseline   task                     n    acc  chance          95% CI",
        f"position   all                     40 100.0%   33.3%   {lo95:.1f}-100.0%  ABOVE CHANCE",
        f"position   count                   40 100.0%   33.3%   {lo95:.1f}-100.0%  ABOVE CHANCE",
        "FAILED: a blind baseline is above chance (lower 99% bound over chance)",
    ]
    fair = format_shortcuts(shortcut_report(_random(40, 3), ["position"]))
    assert fair.endswith("\npassed: no blind baseline above chance") and "ABOVE" not in fair
    assert above_chance(shortcut_report(_random(40, 3), ["position"])) == []


def _made(accuracy: float, above: bool) -> dict:
    """A one-baseline, one-task report with the given figures (n 40, chance 25%)."""
    s = {"n": 40, "correct": int(40 * accuracy), "accuracy": accuracy, "chance": 0.25,
         "ci95": [0.351, 0.649], "ci99": [0.31, 0.69], "above_chance": above}  # fmt: skip
    return {"questions": 40, "folds": 5, "passed": not above,
            "baselines": {"rank": {"overall": s, "tasks": {"count": dict(s)}}}}  # fmt: skip


def test_the_table_prints_each_figure_as_a_percentage() -> None:
    lines = format_shortcuts(_made(0.5, False)).splitlines()
    assert lines[2:] == [
        "rank       all                     40  50.0%   25.0%   35.1- 64.9%",
        "rank       count                   40  50.0%   25.0%   35.1- 64.9%",
        "passed: no blind baseline above chance",
    ]
    assert above_chance(_made(0.5, True)) == [
        "rank (all tasks): 50.0% vs chance 25.0% (99% lower bound 31.0%)",
        "rank (count): 50.0% vs chance 25.0% (99% lower bound 31.0%)",
    ]


def test_a_text_model_that_is_not_a_model_folder_is_refused(tmp_path) -> None:
    """The model asked for is the one loaded: a file where a model folder should be is
    refused by name, from the report and from a manifest alike."""
    from tempogen.errors import TempogenError

    bogus = tmp_path / "model.txt"
    bogus.write_text("not a model")
    with pytest.raises(TempogenError, match="model.txt: expected a sentence-transformers model"):
        shortcut_report(_random(MIN_TEXT, 0), ["text"], model=str(bogus))
    manifest = _manifest(tmp_path, copies=MIN_TEXT)
    with pytest.raises(TempogenError, match="model.txt: expected a sentence-transformers model"):
        manifest_shortcuts(manifest, ["position", "text"], model=str(bogus))


def _manifest(root, copies: int = 0):
    """A manifest of two rendered direction clips (and ``copies`` more rows re-using the first
    clip under other ids)."""
    from tempogen.config import config_from_dict
    from tempogen.generators.build import plan, render_spec
    from tempogen.manifest import write_manifest

    cfg = config_from_dict(
        {"seed": 5, "size": [160, 90], "fps": 10, "duration": [3, 3], "samples_per_task": 2,
         "tasks": ["direction"], "scenes3d": {"humans": 0.0, "objects": 0.0}}
    )  # fmt: skip
    rows = [render_spec(s, root) for s in plan(cfg)]
    rows += [{**rows[0], "id": f"direction-{900 + i}"} for i in range(copies)]
    write_manifest(root / "manifest.jsonl", rows)
    return root / "manifest.jsonl"


def test_video_sizes_are_read_beside_the_manifest(tmp_path) -> None:
    (tmp_path / "videos").mkdir()
    (tmp_path / "videos" / "a.mp4").write_bytes(b"x" * 1234)
    videos = ["videos/a.mp4", "videos/gone.mp4", "videos"]
    rows = with_sizes([manifest_row(video=v) for v in videos], tmp_path)
    assert [r.extra["video_bytes"] for r in rows] == [1234, 0, 0]  # a file, a missing one, a folder


def test_a_manifest_is_audited_with_its_rows_and_the_baselines_asked(tmp_path) -> None:
    report = manifest_shortcuts(str(_manifest(tmp_path)), ["position", "rank"])
    assert set(report["baselines"]) == {"position", "rank"} and report["questions"] == 2

"""Edited questions stay true: every registered motion pattern through every registered op
(and the default variants, ``then_reversed`` among them) either keeps a question its edited
states make true, or is refused. A question's time and side words ("put down", "before it
stops", "starts ... first", "the person on the left") are checked here against the edited
labels by rules of this file's own, so a pattern or op added later is walked too, and a word
no rule here knows fails until one is written. Labels only: no clip is rendered or encoded.
"""

from __future__ import annotations

import functools
import importlib
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from kit import run_cli

from tempogen import observe
from tempogen.builders.dataset.edited_clips import VariantRejected, question_fields, reworded
from tempogen.builders.dataset.variants import THEN_REVERSED, Variant, default_variants
from tempogen.editing import Clip, parse_pipeline
from tempogen.editing.ops import OPS
from tempogen.errors import EditError
from tempogen.generators.motion import MOTIONS, Motion, Style, get_motion, make_labels
from tempogen.labels import Labels
from tempogen.questions import WordingError, check_wording

REPO = Path(__file__).resolve().parents[2]
W, H, FPS, N = 320, 180, 15.0, 60
get_motion("spin")  # load the built-in patterns

# A plugin's patterns: the README's zigzag, then still for its last third. One asks "...
# before it stops?" in plain words; the other marks that part as a slot its states fill.
PLUGIN = """
import numpy as np
from tempogen.generators.motion import Motion, Scene, register_motion
from tempogen.questions import WordingError, subject_starts, subject_stops


def _zigzag(scene: Scene, answer) -> None:
    look = scene.subject_look()
    turn, stop = scene.sample_frame(5), scene.sample_frame(10)
    f = np.minimum(scene.frames, stop)
    there, back = np.minimum(f, turn) / turn, (f - np.minimum(f, turn)) / (stop - turn)
    sign = 1.0 if answer[0] == "right" else -1.0
    scene.add("subject", look, scene.width * (0.45 + sign * (0.5 * there - 0.3 * back - 0.25)), scene.height / 2)
    scene.ask(["subject"])


@register_motion
class ZigzagStop(Motion):
    name = "zigzag_stop"
    task = "direction"
    fact = "direction"
    answers = (("right", "left"), ("left", "right"))
    question = "In which direction(s) does {subject} move before it stops?"

    def animate(self, scene: Scene, answer) -> None:
        _zigzag(scene, answer)


@register_motion
class ZigzagUntil(Motion):
    name = "zigzag_until"
    task = "direction"
    fact = "direction"
    answers = (("right", "left"), ("left", "right"))
    question = "In which direction(s) does {subject} move {until}?"

    def wording(self, labels):
        if subject_stops(labels) is None:
            return {"until": "before it stops"}
        if subject_starts(labels) is None:
            return {"until": "after it starts"}
        raise WordingError("the subject neither starts nor stops inside the clip")

    def animate(self, scene: Scene, answer) -> None:
        _zigzag(scene, answer)
"""
PLUGIN_PATTERNS = ("zigzag_stop", "zigzag_until")

# Representative parameters of each registered op; an op not named here is built with its
# defaults (so a new op is walked at once) and must then be constructible that way.
PARAMS: dict[str, list] = {
    "speed": [0.5, 2.0],
    "speed_ramp": [[0.6, 1.6], [1.6, 0.6]],
    "trim": [{"start": 1.5}, {"end": 2.0}, {"start": 0.8, "end": 3.2}],
    "loop": [2],
    "mirror": ["horizontal", "vertical"],
    "rotate": [90, 180],
    "crop": [[0, 0, W, H], [40, 22.5, 280, 157.5]],
    "zoom_in": [None, {"margin": 0.25}],
    "concat": [{"other": []}, {"other": ["reverse"]}, {"other": ["reverse"], "gap": 0.5}],
    "composite": [
        {"other": ["reverse"]},
        {"other": [{"mirror": "horizontal"}], "layout": "picture_in_picture"},
    ],
}


def _variants() -> dict[str, Variant]:
    out = {"unedited": Variant("unedited")}
    for name in sorted(OPS):
        for i, p in enumerate(PARAMS.get(name, [None])):
            spec = name if p is None else {name: p}
            out[f"{name}{i}"] = Variant(name, tuple(parse_pipeline([spec], name)))
    for v in default_variants():  # what ``make dataset`` draws from
        out[f"default:{v.name}"] = v
    assert any(v.name == THEN_REVERSED for v in out.values())
    return out


VARIANTS = _variants()


@pytest.fixture(scope="module")
def plugin(tmp_path_factory):
    """The plugin module imported as a user's would be (registering its patterns); gone after."""
    folder = tmp_path_factory.mktemp("plugin")
    (folder / "wording_zigzag.py").write_text(PLUGIN, encoding="utf-8")
    sys.path.insert(0, str(folder))
    try:
        importlib.import_module("wording_zigzag")
        yield folder
    finally:
        sys.path.remove(str(folder))
        sys.modules.pop("wording_zigzag", None)
        for name in PLUGIN_PATTERNS:
            MOTIONS.pop(name, None)


@functools.cache
def _source(name: str) -> Clip:
    """A labels-only clip of pattern ``name`` (its frames are one black picture, never read)."""
    motion = MOTIONS[name]
    n = max(N, int(np.ceil(motion.min_seconds * FPS)) + 1)
    labels = make_labels(
        motion, motion.keys()[0], np.random.default_rng(11), width=W, height=H, fps=FPS,
        num_frames=n, style=Style(),
    )  # fmt: skip
    frames = np.broadcast_to(np.zeros((1, H, W, 3), np.uint8), (n, H, W, 3))
    return Clip.from_array(frames, FPS, labels)


# -- what the words of a question claim, read from the edited states ------------------------
def _changes(labels: Labels, name: str) -> np.ndarray:
    """Per frame, whether the object differs from its first frame (moved, turned or lit)."""
    t = labels.track(name)
    if labels.query.kind == "lit":
        return t.lit & t.visible
    moved = np.hypot(t.x - t.x[0], t.y - t.y[0]) > 0.05
    return moved | (np.abs(t.angle - t.angle[0]) > 0.05)


def _steps(labels: Labels, name: str) -> np.ndarray:
    t = labels.track(name)
    return (np.hypot(np.diff(t.x), np.diff(t.y)) > 0.05) | (np.abs(np.diff(t.angle)) > 0.05)


def _first_and_starts(clip: Clip, q: dict) -> str | None:
    """Which ... starts (turns on, is put down) first: no object is already acting in the first
    frame (each start is shown), and the answer starts strictly first (or all at once, or
    none starts)."""
    labels = clip.labels
    names = [o for o in labels.query.objects if labels.track(o).role != "anchor"]
    if labels.query.fact != "order":
        return f"'first' in a question about {labels.query.fact}"
    for n in names:
        t = labels.track(n)
        already = (
            bool(t.lit[0] and t.visible[0]) if labels.query.kind == "lit" else _steps(labels, n)[0]
        )
        if already:
            return f"{n} is already acting in the first frame: its start is not shown"
    onsets = {n: int(np.argmax(c)) for n in names if (c := _changes(labels, n)).any()}
    key = q["answer_key"]
    if key == "none":
        return None if not onsets else f"answer none, but {sorted(onsets)} start"
    if key == "same":
        return (
            None
            if len(set(onsets.values())) == 1 and len(onsets) == len(names)
            else f"not all at once: {onsets}"
        )
    if key not in onsets or any(v <= onsets[key] for n, v in onsets.items() if n != key):
        return f"{key} does not start first: {onsets}"
    return None


def _gravity(clip: Clip, frame: int) -> np.ndarray:
    """Screen direction of 'down' in the scene at an output frame (its map's linear part)."""
    return clip.affine[frame][:, :2] @ np.array([0.0, 1.0])


def _put_or_pick(verb: str):
    def check(clip: Clip, q: dict) -> str | None:
        """Each ball's first movement goes the way gravity points (put down) or against it."""
        labels = clip.labels
        for n in labels.query.objects:
            t = labels.track(n)
            moving = _steps(labels, n)
            if not moving.any():
                continue
            a = int(np.argmax(moving))
            rest = np.flatnonzero(~moving[a:])
            b = a + int(rest[0]) if len(rest) else len(moving)
            d = np.array([t.x[b] - t.x[a], t.y[b] - t.y[a]]) @ _gravity(clip, a)
            if (d > 0) != (verb == "down"):
                return f"{n}'s first movement goes {'down' if d > 0 else 'up'}, not {verb}"
        return None

    return check


def _ends_still(clip: Clip, q: dict) -> str | None:
    moving = _steps(clip.labels, clip.labels.query.objects[0])
    last = observe.uniform_indices(clip.num_frames, 16)[-2]
    return None if moving.any() and not moving[last:].any() else "the subject does not stop"


def _starts_still(clip: Clip, q: dict) -> str | None:
    moving = _steps(clip.labels, clip.labels.query.objects[0])
    first = observe.uniform_indices(clip.num_frames, 16)[1]
    return None if moving.any() and not moving[:first].any() else "the subject does not start"


def _right_after(clip: Clip, q: dict) -> str | None:
    """The gesture the question names is made, and the answer's gesture follows it."""
    labels = clip.labels
    seq = observe.gestures(labels, np.arange(labels.num_frames))
    anchor = labels.query.kind
    after = {seq[i + 1] for i, g in enumerate(seq[:-1]) if g == anchor}
    return (
        None
        if after == {q["answer_key"]}
        else f"{anchor} in {seq} is not followed by {q['answer_key']}"
    )


def _faster(clip: Clip, q: dict) -> str | None:
    labels = clip.labels
    length = {
        n: float(np.hypot(np.diff(labels.track(n).x), np.diff(labels.track(n).y)).sum())
        for n in labels.query.objects
    }
    top = max(length, key=length.get)
    return None if top == q["answer_key"] else f"{top} covers more ground than {q['answer_key']}"


def _alternative(clip: Clip, q: dict) -> str | None:
    """'towards the camera or away from it': the answer picks one, read from the states."""
    return None if clip.labels.query.fact == "approach" else "towards/away outside approach"


# Words whose truth depends on time or orientation, and this file's rule for each phrase.
WORDS = re.compile(
    r"\b(?:right after|before it stops|after it starts|starts? (?:moving|turning|rolling)"
    r"|put down|picked up|turns? on|lights? up|towards|away|starts?|stops?|begins?|ends"
    r"|first|last|then|next|before|after|until|while|again|earlier|later|faster|slower"
    r"|left|right|up|down|clockwise)\b",
    re.IGNORECASE,
)
RULES = {
    "first": _first_and_starts,
    "starts": _first_and_starts,
    "starts moving": _first_and_starts,
    "starts turning": _first_and_starts,
    "starts rolling": _first_and_starts,
    "turns on": _first_and_starts,
    "lights up": _first_and_starts,
    "put down": _put_or_pick("down"),
    "picked up": _put_or_pick("up"),
    "before it stops": _ends_still,
    "after it starts": _starts_still,
    "right after": _right_after,
    "faster": _faster,
    "towards": _alternative,
    "away": _alternative,
}
SIDE = re.compile(r"\bon the (left|right)\b|\bthe (left|middle|right) (?=\w)")


def _sides_hold(labels: Labels, texts: list[str]) -> list[str]:
    """Every noun the texts use that names a side names its object's side on screen."""
    nouns = labels.meta.get("nouns", {})
    sided = {n: SIDE.search(v) for n, v in nouns.items() if SIDE.search(v)}
    if not sided:
        return []
    order = sorted(sided, key=lambda n: float(np.mean(labels.track(n).x)))
    words = ["left", "right"] if len(order) == 2 else ["left", "middle", "right"]
    bad = []
    for n, want in zip(order, words):
        m = sided[n]
        if (m.group(1) or m.group(2)) != want and any(
            nouns[n][:1].upper() + nouns[n][1:] in t or nouns[n] in t for t in texts
        ):
            bad.append(f"{nouns[n]!r} is on the {want}")
    return bad


def _false_words(clip: Clip, q: dict) -> list[str]:
    """What the edited row's question (and the nouns its options use) says that its
    states do not show."""
    question = q["question"]
    nouns = clip.labels.meta.get("nouns", {}).values()
    bare = question
    for noun in sorted(nouns, key=len, reverse=True):
        bare = bare.replace(noun, " ")  # nouns are checked by side below
    bad = []
    for m in WORDS.finditer(bare):
        word = m.group(0).lower()
        rule = RULES.get(word)
        if rule is None:
            bad.append(f"{word!r}: no rule here reads it (add one)")
        elif (why := rule(clip, q)) is not None:
            bad.append(f"{word!r}: {why}")
    return bad + _sides_hold(clip.labels, [question, *q["options"]])


# patterns cut from a motion file (needs_source) animate only from a window: their edits are
# tested with one (tests/generators/test_mocap_plan.py)
@pytest.mark.parametrize(
    "pattern", sorted(n for n, m in MOTIONS.items() if not m.needs_source) + list(PLUGIN_PATTERNS)
)
def test_an_edited_question_is_true_of_the_edited_states(pattern, plugin) -> None:
    """Through every variant (one test per pattern, so a walk of ~2000 edits stays fast)."""
    motion = MOTIONS[pattern]
    source = _source(pattern)
    false = []
    for variant in VARIANTS:
        try:
            clip = reworded(VARIANTS[variant].apply(source), motion)
            q = question_fields({}, clip, np.random.default_rng(0), motion)
        except (EditError, ValueError):
            continue  # refused, never shipped: what an edit that cannot keep its question must do
        if bad := _false_words(clip, q):
            false.append(f"{variant}: {q['question']!r} / {q['answer_text']!r}: {bad}")
    assert not false, f"{pattern}:\n" + "\n".join(false)


def test_the_walk_edits_what_matters(plugin) -> None:
    """The walk is no vacuum: reversals of the questions with time words ship reworded, and a
    question that cannot be kept is refused, never shipped."""

    def ask(pattern: str, variant: str) -> str | None:
        motion = MOTIONS[pattern]
        try:
            clip = reworded(VARIANTS[variant].apply(_source(pattern)), motion)
            return question_fields({}, clip, np.random.default_rng(0), motion)["question"]
        except (EditError, ValueError):
            return None

    assert ask("zigzag_stop", "unedited").endswith("before it stops?")
    assert ask("zigzag_stop", "speed0").endswith("before it stops?")  # slow motion keeps it
    assert ask("zigzag_stop", "reverse0") is None  # plain words, now false: refused
    assert ask("zigzag_stop", "default:then_reversed") is None
    assert ask("zigzag_until", "reverse0").endswith("move after it starts?")
    assert ask("put_down", "reverse0").endswith("is picked up first?")
    assert ask("put_down", "mirror1").endswith("is put down first?")  # upside down: still down
    assert ask("put_down", "default:then_reversed").endswith("is put down first?")
    assert ask("first_mover", "reverse0") == "Which object starts moving first?"
    assert ask("first_mover", "trim0") is None  # cut mid-movement: a start not shown


def test_a_mirror_renames_the_people_by_side() -> None:
    """Two people named "on the left"/"on the right": a left-right flip swaps their sides, so
    the options name each by where the flipped clip shows them; a quarter turn puts one
    above the other and no side names them: refused."""
    motion = MOTIONS["turn_first"]
    source = _source("turn_first")
    nouns = source.labels.meta["nouns"]
    flipped = reworded(VARIANTS["mirror0"].apply(source), motion)
    assert flipped.labels.meta["nouns"] == {
        "left": nouns["left"].replace("on the left", "on the right"),
        "right": nouns["right"].replace("on the right", "on the left"),
    }
    q = question_fields({}, flipped, np.random.default_rng(0), motion)
    assert not _sides_hold(flipped.labels, q["options"])
    with pytest.raises(VariantRejected, match="not side by side"):
        reworded(VARIANTS["rotate0"].apply(source), motion)


@pytest.mark.parametrize("key", ["obj1", "obj2", "same"])
def test_put_down_reads_put_or_picked_whatever_the_picture(key: str) -> None:
    """Over several clips: played forward, upside down or joined to its reverse the balls
    are put down; backwards (also upside down, or under a falling rate) they are picked up.
    The verb is read from how each ball moves, never from which way is up on screen."""
    from tempogen.generators.patterns.human_putdown import put_or_picked

    want = {
        "unedited": "put down",
        "mirror1": "put down",
        "rotate1": "put down",
        "default:then_reversed": "put down",
        "reverse0": "picked up",
        "default:reverse_mirror": "picked up",
        "default:reverse_mirror_zoom": "picked up",
    }
    ramp = Variant("ramp", tuple(parse_pipeline([{"speed_ramp": [1.6, 0.6]}, "reverse"], "r")))
    for seed in range(4):
        labels = make_labels(
            MOTIONS["put_down"], key, np.random.default_rng(seed), width=W, height=H, fps=FPS,
            num_frames=N + 15 * seed, style=Style(),
        )  # fmt: skip
        clip = Clip.from_array(
            np.zeros((1, H, W, 3), np.uint8).repeat(labels.num_frames, 0), FPS, labels
        )
        got = {v: put_or_picked(VARIANTS[v].apply(clip).labels, ("obj1", "obj2")) for v in want}
        assert got == want, (seed, got)
        assert put_or_picked(ramp.apply(clip).labels, ("obj1", "obj2")) == "picked up"


# -- the check itself, fed wrong words ---------------------------------------------------------
def _zigzag_labels(plugin_motion: Motion) -> Labels:
    return make_labels(
        plugin_motion, "right-left", np.random.default_rng(3), width=W, height=H, fps=FPS,
        num_frames=N, style=Style(),
    )  # fmt: skip


def test_check_wording_refuses_false_and_unreadable_words(plugin) -> None:
    from tempogen.editing import Reverse

    labels = _zigzag_labels(MOTIONS["zigzag_stop"])
    backwards = Reverse()(Clip.from_array(np.zeros((N, H, W, 3), np.uint8), FPS, labels)).labels
    check_wording("In which direction(s) does {subject} move before it stops?", labels)
    with pytest.raises(WordingError, match="'before it stops' no longer holds"):
        check_wording("In which direction(s) does {subject} move before it stops?", backwards)
    with pytest.raises(WordingError, match="'after it starts' no longer holds"):
        check_wording("In which direction(s) does {subject} move after it starts?", labels)
    check_wording("In which direction(s) does {subject} move after it starts?", backwards)
    # still only in the very last frame: 16 samples never show it stopped
    stop = int(np.flatnonzero(_steps(labels, "subject"))[-1]) + 1
    late = labels.with_tracks(tuple(t.take(np.arange(stop + 2)) for t in labels.tracks))
    with pytest.raises(WordingError, match="still moving at the end"):
        check_wording("In which direction(s) does {subject} move before it stops?", late)
    # a word no rule reads is refused, whatever the states
    for words in ("first", "then", "left", "faster", "turns on"):
        with pytest.raises(WordingError, match="no rule reads it"):
            check_wording(f"Does {{subject}} go {words}?", labels)
    check_wording("What shape does {subject} trace? ({later} is a slot)", labels)


def test_an_order_question_needs_every_start_shown() -> None:
    """'Which object starts moving first?' of a clip cut after one has set off is refused:
    the order fact would call the one already moving first (or both at once)."""
    labels = _source("first_mover").labels
    check_wording(MOTIONS["first_mover"].question, labels)
    moving = int(np.argmax(_steps(labels, "obj1") | _steps(labels, "obj2")))
    cut = labels.with_tracks(
        tuple(t.take(np.arange(moving + 1, labels.num_frames)) for t in labels.tracks)
    )
    with pytest.raises(WordingError, match="already moving in the first frame"):
        check_wording(MOTIONS["first_mover"].question, cut)


# -- through the CLI ----------------------------------------------------------------------------
def _tempogen(*args: str | Path, env_path: Path) -> subprocess.CompletedProcess[str]:
    """The CLI with ``env_path`` ahead of PYTHONPATH (where the plugin module lies)."""
    return run_cli(
        *args, pythonpath=os.pathsep.join([str(env_path), os.environ.get("PYTHONPATH", "")])
    )


@pytest.mark.slow
def test_tempogen_edit_refuses_a_reversed_before_it_stops(tmp_path, plugin) -> None:
    """``tempogen edit`` with reverse and slow motion on a plugin's "... before it stops?":
    slow motion keeps the question; the reversal, which shows the subject start instead, is
    refused and reported, never written."""
    config = tmp_path / "c.yaml"
    config.write_text(
        "seed: 3\nsize: [160, 90]\nfps: 10\nduration: [4, 4]\nsamples_per_task: 1\n"
        "tasks: [direction]\nplugins: [wording_zigzag]\nmotions: [zigzag_stop]\n"
        "variants: {share: 0}\nvinoground: {pairs: 0}\nretrieval: {pairs: 0}\nshortcuts: 'off'\n",
        encoding="utf-8",
    )
    res = _tempogen(
        "generate", "--config", config, "--out", tmp_path / "ds", "-q", "-j", "1", env_path=plugin
    )
    assert res.returncode == 0, res.stderr
    (tmp_path / "p.yaml").write_text("{rev: [reverse], slow: [{speed: 0.5}]}\n", encoding="utf-8")
    res = _tempogen(
        "edit", "--manifest", tmp_path / "ds" / "manifest.jsonl", "--pipeline", tmp_path / "p.yaml",
        "--out", tmp_path / "ed", "-q", "--plugins", "wording_zigzag", env_path=plugin,
    )  # fmt: skip
    assert res.returncode == 0, res.stderr
    rows = [json.loads(x) for x in (tmp_path / "ed" / "manifest.jsonl").read_text().splitlines()]
    assert [r["id"].split("~")[1] for r in rows] == ["slow"]
    assert rows[0]["question"].endswith("before it stops?")
    assert "before it stops' no longer holds" in res.stdout + res.stderr


@pytest.mark.slow
def test_tempogen_edit_refuses_time_words_a_declared_clip_cannot_check(tmp_path) -> None:
    """A user's clip without per-frame states keeps its own question: one asking "... before
    it stops?" is refused when reversed (nothing can show it still holds), a plain one is
    edited."""
    from tempogen.video import write_video

    src = tmp_path / "in"
    src.mkdir()
    frames = np.zeros((12, 48, 64, 3), np.uint8)
    for t in range(12):
        frames[t, 20:28, 8 + 3 * min(t, 8) : 16 + 3 * min(t, 8)] = 255  # right, then still
    write_video(src / "clip.mp4", frames, 4.0)
    base = {"video": "clip.mp4", "task": "direction", "fact": "direction"}
    rows = [
        {**base, "id": "u1", "question": "Which way does the square move before it stops?",
         "labels": {"direction": ["right"]}},
        {**base, "id": "u2", "question": "Which way does the square move?",
         "labels": {"direction": ["right"]}},
    ]  # fmt: skip
    (src / "m.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    (src / "p.yaml").write_text("{rev: [reverse]}\n", encoding="utf-8")
    res = _tempogen(
        "edit", "--manifest", src / "m.jsonl", "--pipeline", src / "p.yaml", "--out",
        tmp_path / "ed", "-q", env_path=tmp_path,
    )  # fmt: skip
    assert res.returncode == 0, res.stderr
    out = [json.loads(x) for x in (tmp_path / "ed" / "manifest.jsonl").read_text().splitlines()]
    assert [(r["id"], r["answer_key"]) for r in out] == [("u2~rev", "left")]
    assert "'before it stops' depends on time" in res.stdout + res.stderr

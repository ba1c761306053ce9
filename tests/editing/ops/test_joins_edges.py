"""Edges of the two-clip ops (``editing/ops/joins.py``) that the compose tests leave open.

Each case pins behaviour a user sees: where a picture-in-picture inset lands and that B's
labels land with it, which source picture each joined frame shows (what certification counts
as moments), the refusals' words (op, field, reason), declared facts and sound carried through,
and the ``concat``/``composite`` ops' own parameters. Mutation testing (``make mutate
MODULES=ops.joins``) found each of these unchecked.
"""

from __future__ import annotations

import numpy as np
import pytest

from tempogen.config import MAX_SECONDS
from tempogen.editing import (
    Clip,
    Composite,
    Concat,
    Mirror,
    Reverse,
    Speed,
    composite,
    concat,
    make_op,
    pair_with_black_gap,
)
from tempogen.editing.notes import edit_notes
from tempogen.editing.ops.joins import gap_frames
from tempogen.errors import EditError
from tempogen.labels import Labels, Query, Track

W, H, N, FPS = 200, 150, 10, 5.0
YELLOW, WHITE = (255, 255, 0), (255, 255, 255)
SIDE = 40  # the squares' side in pixels


def _frames(bg, colour, xs, ys) -> np.ndarray:
    """N frames: background ``bg(t)`` and a SIDE-pixel square of ``colour`` at (xs[t], ys[t])."""
    out = np.empty((N, H, W, 3), np.uint8)
    for t in range(N):
        out[t] = bg(t)
        out[t, ys[t] : ys[t] + SIDE, xs[t] : xs[t] + SIDE] = colour
    return out


def _track(name, xs, ys, colour, role="subject") -> Track:
    c = (SIDE - 1) / 2  # labels count pixel centres: pixel i has centre i
    return Track.build(
        name,
        N,
        x=np.asarray(xs, float) + c,
        y=np.asarray(ys, float) + c,
        role=role,
        shape="square",
        color=colour,
        size=SIDE / 2,
    )


def _labels(*tracks: Track, fact: str = "direction", kind: str = "") -> Labels:
    return Labels(
        W, H, FPS, tracks, Query(fact, ("subject",), kind), {"nouns": {"subject": "the square"}}
    )


# A: a yellow square sliding right over a background whose colour changes every frame.
A_X, A_Y = [20 + 8 * t for t in range(N)], [90] * N
# B: a white square sliding down over black (its brightness is the square alone).
B_X, B_Y = [100] * N, [10 + 9 * t for t in range(N)]


def clip_a(**kw) -> Clip:
    frames = _frames(lambda t: (10 + 20 * t, 200 - 15 * t, 60), YELLOW, A_X, A_Y)
    return Clip.from_array(frames, FPS, _labels(_track("subject", A_X, A_Y, YELLOW)), **kw)


def clip_b(*extra: Track) -> Clip:
    frames = _frames(lambda t: (0, 0, 0), WHITE, B_X, B_Y)
    return Clip.from_array(frames, FPS, _labels(_track("subject", B_X, B_Y, WHITE), *extra))


def plain(n: int = 4, fps: float = FPS, facts: dict | None = None) -> Clip:
    """An external clip (no per-frame states): frame t is grey level 10 * (t + 1)."""
    frames = np.stack([np.full((8, 8, 3), 10 * (t + 1), np.uint8) for t in range(n)])
    return Clip.from_array(frames, fps, facts=facts)


# -- composite: picture in picture ---------------------------------------------------------
def test_picture_in_picture_lands_top_right_and_b_labels_land_with_it() -> None:
    """B is shown at 30% size, 8 px in from the top-right corner; outside the inset every pixel
    is A's; B's square is where B's moved labels say, A's labels are A's own."""
    a, b = clip_a(), clip_b()
    out = composite(a, b, "picture_in_picture")
    frames, fa = out.to_array(), a.to_array()
    x0, y0 = W - 8 - 0.3 * W, 8  # 132, 8: the inset's top-left corner
    inset = np.zeros((H, W), bool)
    inset[8:53, 132:192] = True  # 0.3 * 150 = 45 rows, 0.3 * 200 = 60 columns
    sub, bsub = out.labels.subject, out.labels.track("b:subject")
    for t in range(N):
        changed = (frames[t] != fa[t]).any(axis=2)
        # B's black background differs from A's coloured one everywhere: the inset is exact
        np.testing.assert_array_equal(changed, inset, err_msg=f"frame {t}")
        # B's white square, read from the pixels, sits where b:subject's label says
        lum = frames[t].astype(float).mean(axis=2) * inset
        yy, xx = np.nonzero(lum)
        wgt = lum[yy, xx]
        assert abs((xx * wgt).sum() / wgt.sum() - bsub.x[t]) < 0.5, t
        assert abs((yy * wgt).sum() / wgt.sum() - bsub.y[t]) < 0.5, t
    np.testing.assert_allclose(bsub.x, 0.3 * b.labels.subject.x + x0)
    np.testing.assert_allclose(bsub.y, 0.3 * b.labels.subject.y + y0)
    np.testing.assert_allclose(bsub.scale, 0.3)
    box = bsub.bbox()
    assert box[:, 0].min() >= 132 and box[:, 2].max() <= 192
    assert box[:, 1].min() >= 8 and box[:, 3].max() <= 53
    # A is full size and unmoved: its labels and its pixels outside the inset
    np.testing.assert_array_equal(sub.x, a.labels.subject.x)
    np.testing.assert_array_equal(sub.y, a.labels.subject.y)
    assert out.labels.query == a.labels.query


def test_composite_keeps_an_anchor_of_b_an_anchor() -> None:
    """B's fixed reference objects stay anchors (B's others become distractors)."""
    post = _track("post", [150] * N, [100] * N, WHITE, role="anchor")
    out = composite(clip_a(), clip_b(post), "side_by_side")
    assert out.labels.track("b:post").role == "anchor"
    assert out.labels.track("b:subject").role == "distractor"


def test_composite_refuses_a_change_it_makes_to_the_answer() -> None:
    """At half size a barely moving subject falls under the still threshold: A's 'right'
    would read as no motion, so side by side refuses, naming op, fact and both readings."""
    # still below 0.008 frame diagonals a second (2 px/s, 0.4 px a frame at 5 fps)
    xs = [20 + 0.6 * t for t in range(N)]  # 0.6 px a frame: moving at full size only
    frames = _frames(lambda t: (40, 40, 40), YELLOW, [int(x) for x in xs], A_Y)
    a = Clip.from_array(frames, FPS, _labels(_track("subject", xs, A_Y, YELLOW)))
    with pytest.raises(EditError) as err:
        composite(a, clip_b(), "side_by_side")
    assert str(err.value).startswith(
        "composite: cannot transform label 'direction' soundly: declared preserved gives 'right'"
    )


@pytest.mark.parametrize("which", ["a", "b"])
def test_composite_refuses_a_queried_object_outside_the_frame(which) -> None:
    """A's square poking 4 px past the left edge, or B's past the right edge, is still
    outside the frame side by side: refused, naming the op, the object and the frames."""
    xs = [-4] * N if which == "a" else [W - SIDE + 4] * N
    frames = _frames(lambda t: (40, 40, 40), YELLOW, [min(max(x, 0), W - SIDE) for x in xs], A_Y)
    off = Clip.from_array(frames, FPS, _labels(_track("subject", xs, A_Y, YELLOW)))
    a, b = (off, clip_b()) if which == "a" else (clip_a(), off)
    with pytest.raises(EditError) as err:
        composite(a, b, "side_by_side")
    assert str(err.value).startswith(
        "composite: object 'subject' (the square) leaves the output frame at frames [0, 1, 2, 3, 4]..."
    )


def test_composite_of_external_clips_keeps_declared_facts_and_no_labels() -> None:
    a = plain(facts={"rotation": ["cw"]})
    out = composite(a, plain(), "picture_in_picture")
    assert out.labels is None
    assert out.facts == {"rotation": ["cw"]}


def test_composite_refusals_name_the_op() -> None:
    with pytest.raises(EditError) as err:
        composite(plain(facts={"wobble": "yes"}), plain())
    assert str(err.value) == (
        "composite: cannot transform label 'wobble' soundly: the op does not declare what it "
        "does to this fact (declare it in its effects)"
    )
    with pytest.raises(
        EditError, match=r"^composite: clips differ in size or fps: \(8, 8\)@5.0 vs \(8, 8\)@4.0$"
    ):
        composite(plain(), plain(fps=4.0))


def test_composite_frames_show_a_moments() -> None:
    """The composite's frames show A's pictures: a slowed A repeats its moments."""
    slow = Speed(0.5)(plain(4))
    out = composite(slow, plain(8))
    np.testing.assert_array_equal(out.content_ids(), slow.content_ids())
    assert out.content_ids().tolist() == [0, 0, 1, 1, 2, 2, 3]


def test_composite_records_its_parts_and_keeps_sound() -> None:
    a, b = plain(), Reverse()(plain())
    out = composite(a.evolve(audio=True), b, "picture_in_picture")
    assert out.edits == (
        {"op": "composite", "layout": "picture_in_picture", "parts": [[], [{"op": "reverse"}]]},
    )
    assert out.audio and "the source has sound; the edited clip is silent" in edit_notes(out)
    assert composite(a, b.evolve(audio=True)).audio
    assert not composite(a, b).audio


def test_composite_op_uses_its_layout_and_other_ops(tiny) -> None:
    """``{composite: {other: [...], layout: ...}}``: B is the clip through ``other``."""
    op = Composite(other=[{"mirror": "horizontal"}], layout="picture_in_picture")
    assert op.other == ({"mirror": "horizontal"},)
    assert hash(Composite(other=["reverse"])) == hash(Composite(other=("reverse",)))
    out = op(tiny)
    want = composite(tiny, Mirror("horizontal")(tiny), "picture_in_picture")
    np.testing.assert_array_equal(out.to_array(), want.to_array())
    np.testing.assert_array_equal(out.labels.track("b:subject").x, want.labels.track("b:subject").x)
    with pytest.raises(EditError, match=r"composite.other\[0\]: unknown op 'rewind'"):
        Composite(other=["rewind"])(tiny)


# -- concat --------------------------------------------------------------------------------
def test_concat_content_ids_count_b_pictures_after_a() -> None:
    """Joined frames keep which picture they show: A's, -1 for the gap, B's numbered after
    A's (a slowed B repeats its own), so an edit's moments are counted right."""
    b = Speed(0.5)(plain(3))
    out = concat(plain(4), b, gap=0.4)  # 2 black frames at 5 fps
    assert out.content_ids().tolist() == [0, 1, 2, 3, -1, -1, 4, 4, 5, 5, 6]
    # a one-frame A: B still starts after it
    assert concat(plain(1), plain(3)).content_ids().tolist() == [0, 1, 2, 3]
    # B's own gap stays a gap inside the join (the joined clip does not mark it black itself)
    inner = concat(plain(2), plain(2), gap=0.2)
    assert inner.content_ids().tolist() == [0, 1, -1, 2, 3]
    assert concat(plain(2), inner).content_ids().tolist() == [0, 1, 2, 3, -1, 4, 5]


def test_a_join_keeps_that_a_source_had_sound() -> None:
    a, b = plain(), plain()
    assert concat(a.evolve(audio=True), b).audio
    assert concat(a, b.evolve(audio=True)).audio
    assert pair_with_black_gap(a.evolve(audio=True), b, 0.4).audio
    assert not concat(a, b).audio


def test_concat_refuses_clips_with_other_objects() -> None:
    """Same question, but B shows another second object: the states cannot be joined."""
    extra_a = _track("post", [150] * N, [100] * N, WHITE, role="distractor")
    extra_b = _track("ball", [150] * N, [100] * N, WHITE, role="distractor")
    a = clip_b(extra_a)
    b = clip_b(extra_b)
    with pytest.raises(EditError) as err:
        concat(a, b)
    assert str(err.value) == (
        "concat: clips show different objects or questions; their labels cannot be joined"
    )


def test_concat_of_an_order_question_reads_the_joined_states() -> None:
    """Who moves first is read from the joined states: allowed with per-frame states,
    refused (naming op and why) for a clip that only declares it."""
    a = clip_a()
    a = a.evolve(labels=_labels(a.labels.subject, fact="order", kind="move"))
    out = concat(a, Reverse()(a))
    assert out.labels.query.fact == "order" and out.num_frames == 2 * N
    with pytest.raises(EditError) as err:
        concat(plain(facts={"order": [["subject"]]}), plain(facts={"order": [["subject"]]}))
    assert str(err.value) == (
        "concat: cannot transform label 'order' soundly: its answer is read from per-frame "
        "states, which this clip lacks"
    )
    with pytest.raises(EditError) as err:
        concat(plain(facts={"trajectory": "circle"}), plain(facts={"trajectory": "circle"}))
    assert str(err.value).startswith(
        "concat: cannot transform label 'trajectory' soundly: the op does not declare"
    )


def test_concat_refusals_name_the_op() -> None:
    with pytest.raises(EditError, match=r"^concat: clips differ in size or fps: "):
        concat(plain(), plain(fps=4.0))
    with pytest.raises(EditError) as err:
        concat(clip_a(), Clip.from_array(clip_a().to_array(), FPS))
    assert str(err.value) == "concat: one clip has per-frame labels and the other does not"
    with pytest.raises(EditError) as err:
        concat(plain(facts={"count": 1}), plain())
    assert "concat: clips declare different labels" in str(err.value)
    for bad in (-0.5, True, "1", float("nan")):
        with pytest.raises(EditError) as err:
            concat(plain(), plain(), bad)
        assert str(err.value) == f"concat: gap must be a number of seconds >= 0, got {bad!r}"


def test_concat_refuses_when_an_answer_is_undetermined_or_contradicted() -> None:
    """A's one frame shows no direction: the join's answer cannot be derived from A's and B's,
    so it is refused (not guessed); a jump cut back to the start reads 'right-left', which
    A's 'right' then B's 'right' does not give."""
    a = clip_a()
    one = a.evolve(
        index=a.index[:1],
        affine=a.affine[:1],
        labels=a.labels.with_tracks((a.labels.subject.take(np.arange(1)),)),
    )
    with pytest.raises(EditError) as err:
        concat(one, a)
    assert str(err.value) == (
        "concat: cannot transform label 'direction' soundly: declared mapped by join gives "
        "None, but the edited states show 'right'"
    )
    with pytest.raises(EditError) as err:
        concat(a, a)
    assert str(err.value) == (
        "concat: cannot transform label 'direction' soundly: declared mapped by join gives "
        "'right', but the edited states show 'right-left-right'"
    )


def test_concat_without_a_gap_and_the_gap_range() -> None:
    """A zero gap is no gap; any number of seconds from 0 up to 2**53 is a gap (a longer
    one is refused: past that a float no longer holds every whole second)."""
    assert concat(plain(), plain(), 0).num_frames == 8
    assert concat(plain(), plain(), 0.0).black.sum() == 0
    assert gap_frames("concat", "gap", 150.0, 4.0) == 600
    assert gap_frames("concat", "gap", 2.0**53 - 1) == 0  # fps None: only checked
    for big in (2.0**53, 2**53, 3.0**52 * 2):
        with pytest.raises(EditError, match="concat: gap must be a number of seconds >= 0"):
            gap_frames("concat", "gap", big)


def test_concat_op_parameters() -> None:
    """The op refuses a bad gap when it is made, with the op's words; MAX_SECONDS itself is
    allowed; ``other`` is kept as a tuple (the op is hashable and equal to its list twin)."""
    with pytest.raises(EditError) as err:
        make_op("concat", {"gap": -1})
    assert str(err.value) == "concat: gap must be a number of seconds >= 0, got -1"
    assert make_op("concat", {"gap": MAX_SECONDS}).gap == MAX_SECONDS
    with pytest.raises(EditError) as err:
        make_op("concat", {"gap": MAX_SECONDS + 1})
    assert str(err.value) == f"concat: gap: at most {MAX_SECONDS:g} s, got {MAX_SECONDS + 1!r}"
    op = Concat(other=["reverse"])
    assert op.other == ("reverse",) and hash(op) == hash(Concat(other=("reverse",)))


# -- pair_with_black_gap ---------------------------------------------------------------------
def test_pair_gap_of_one_frame_and_its_refusals() -> None:
    out = pair_with_black_gap(plain(2), plain(2), 0.2)  # one frame at 5 fps
    assert out.facts["segments"] == {"pos": [0, 1], "gap": [2, 2], "neg": [3, 4]}
    with pytest.raises(EditError) as err:
        pair_with_black_gap(plain(), plain(), 0.05)
    assert str(err.value) == "pair_with_black_gap: the gap must hold at least one frame, got 0.05 s"
    with pytest.raises(EditError) as err:
        pair_with_black_gap(plain(), plain(), -1)
    assert str(err.value) == "pair_with_black_gap: seconds must be a number of seconds >= 0, got -1"
    with pytest.raises(EditError, match=r"^pair_with_black_gap: clips differ in size or fps: "):
        pair_with_black_gap(plain(), plain(fps=4.0))

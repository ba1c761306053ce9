"""The planner's and renderer's shared pieces: the seed streams a clip draws from."""

from __future__ import annotations

import numpy as np

from tempogen.generators.build import SeedStream, Spec, seed_stream


def test_each_seed_stream_keeps_the_index_clips_were_rendered_with():
    spec = Spec(
        id="t-0000", task="direction", motion="slide", answer_key="left", seed=123456, width=64,
        height=36, fps=10, num_frames=40, distractors=0, misleading_text=False,
        background="solid", answer_pos=0, crf=18, preset="ultrafast",
    )  # fmt: skip
    # the spawn calls that drew each stream before the layout was named
    before = {
        SeedStream.LABELS: np.random.SeedSequence(spec.seed).spawn(4)[0],
        SeedStream.BACKGROUND: np.random.SeedSequence(spec.seed).spawn(4)[1],
        SeedStream.OPTIONS: np.random.SeedSequence(spec.seed).spawn(3)[2],
        SeedStream.LOOKS: np.random.SeedSequence(spec.seed).spawn(4)[3],
        SeedStream.NOISE: np.random.SeedSequence(spec.seed).spawn(5)[4],
    }
    assert list(before) == list(SeedStream)  # a new stream is pinned here too
    for stream, seq in before.items():
        assert np.array_equal(seed_stream(spec, stream).generate_state(4), seq.generate_state(4))
    # and no two streams are one
    firsts = {int(seed_stream(spec, s).generate_state(1)[0]) for s in SeedStream}
    assert len(firsts) == len(SeedStream)

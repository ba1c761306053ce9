"""The ``approach`` fact: towards or away from the camera, read from the subject's apparent size."""

from __future__ import annotations

import numpy as np
import pytest

from tempogen.editing import Clip, Reverse
from tempogen.facts import get_fact
from tempogen.labels import Labels, Query, Track
from tempogen.observe import uniform_indices
from tempogen.questions import answer_key

W, H, FPS, N = 200, 100, 10.0, 41


def person(scale: np.ndarray) -> Labels:
    """A subject standing mid-frame whose apparent size follows ``scale``."""
    t = Track.build("subject", len(scale), x=100.0, y=50.0, size=10.0, scale=scale)
    return Labels(W, H, FPS, (t,), Query("approach", ("subject",)))


def key_of(labels: Labels, idx: np.ndarray | None = None) -> str | None:
    value = get_fact("approach").derive(labels, idx)
    return None if value is None else answer_key("approach", value)


RAMP = np.linspace(0.0, 1.0, N)
PROFILES = {
    "towards": np.exp(0.6 * RAMP),
    "away": np.exp(-0.6 * RAMP),
    "towards-away": np.exp(0.6 * (1 - np.abs(2 * RAMP - 1))),
    "away-towards": np.exp(-0.6 * (1 - np.abs(2 * RAMP - 1))),
    "none": np.ones(N),
}


@pytest.mark.parametrize("key", list(PROFILES))
def test_scale_profiles_read_as_their_keys(key: str) -> None:
    labels = person(PROFILES[key])
    assert key_of(labels) == key
    assert key_of(labels, uniform_indices(N, 16)) == key  # 16 samples suffice


@pytest.mark.parametrize("key", list(PROFILES))
def test_one_frame_is_undetermined(key: str) -> None:
    assert key_of(person(PROFILES[key]), np.array([N // 2])) is None


def test_jitter_and_small_drift_read_none() -> None:
    rng = np.random.default_rng(0)
    wobble = np.exp(0.01 * rng.standard_normal(N) + 0.04 * RAMP)  # a few px of a 100 px outline
    assert key_of(person(wobble)) == "none"


def test_keys_and_options() -> None:
    fact = get_fact("approach")
    assert fact.keys() == ["towards", "away", "towards-away", "away-towards", "none"]
    assert fact.option_text("towards", person(np.ones(3))) == "Towards the camera."
    assert fact.value("towards-away") == ("towards", "away") and fact.value("none") == ()


@pytest.mark.parametrize(
    "key,want",
    [
        ("towards", "away"),
        ("away", "towards"),
        ("towards-away", "towards-away"),  # reversed and swapped: close, then gone, again
        ("away-towards", "away-towards"),
        ("none", "none"),
    ],
)
def test_reverse_swaps_towards_and_away(key: str, want: str) -> None:
    """Played backwards, a person walking towards the camera walks away: read from the
    reversed states, and declared for clips that carry only the fact."""
    labels = person(PROFILES[key])
    clip = Clip.from_array(np.zeros((N, 16, 16, 3), np.uint8), FPS, labels=labels)
    assert key_of(Reverse()(clip).labels) == want
    declared = Clip.from_array(
        np.zeros((6, 16, 16, 3), np.uint8),
        FPS,
        facts={"approach": list(get_fact("approach").value(key))},
    )
    out = Reverse()(declared)
    assert answer_key("approach", tuple(out.facts["approach"])) == want

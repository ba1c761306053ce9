"""The worked examples of docs/extend/edit-op.md (a new op, ``examples/freeze.py``) and
docs/extend/fact.md (a new fact, ``examples/last_direction.py``), each one file, run as a
user would load them: what each does to labels, pixels and refusals, beyond the docs test's
"the page's blocks run"."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import numpy as np
import pytest

from tempogen import observe
from tempogen.editing import EditError, Reverse, parse_pipeline, run_pipeline
from tempogen.editing.ops import OPS
from tempogen.facts import FACTS, get_fact
from tempogen.generators.motion import SAMPLES

ROOT = Path(__file__).resolve().parents[2]


def _load(name: str):
    spec = importlib.util.spec_from_file_location(name, ROOT / "examples" / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


@pytest.fixture
def freeze():
    mod = _load("freeze")
    try:
        yield mod.Freeze
    finally:
        OPS.pop("freeze", None)
        sys.modules.pop("freeze", None)


@pytest.fixture
def last_direction():
    mod = _load("last_direction")
    try:
        yield mod.LastDirection
    finally:
        FACTS.pop("last_direction", None)
        sys.modules.pop("last_direction", None)


def test_freeze_in_a_pipeline_keeps_counts_from_pixels(freeze, generated, keys):
    ops = parse_pipeline([{"freeze": {"seconds": 0.4}}], "p.yaml")
    out = run_pipeline(generated("bounce_count", "2"), ops)
    assert out.num_frames == 46 + 6 and out.edits[-1] == {"op": "freeze", "seconds": 0.4}
    assert keys.labels(out) == "2"
    assert keys.labels(out, observe.uniform_indices(out.num_frames, SAMPLES)) == "2"
    assert keys.pixels(out) == "2"
    assert OPS["freeze"].schema["properties"]["seconds"] == {"type": ["integer", "number"]}


def test_freeze_refuses_what_it_does_not_declare(freeze, generated):
    for name, key, fact in (("glide", "accelerating", "speed"), ("blink", "constant", "frequency")):
        with pytest.raises(EditError, match=f"freeze.*'{fact}'.*does not declare"):
            freeze()(generated(name, key))


def test_last_direction_derives_keys_and_words(last_direction, generated):
    fact = get_fact("last_direction")
    labels = generated("slide", "left-up").labels
    assert fact.derive(labels) == "up"
    assert fact.key(fact.derive(labels)) == "up"
    assert fact.option_text("up", labels) == "Upwards."
    assert fact.phrase("up", labels) == "upwards"
    options = fact.choose_options("up", labels, np.random.default_rng(0), answer_pos=2)
    assert len(options) == 5 and options[2] == "up" and sorted(options) == sorted(fact.keys())
    # one frame shows no motion: undetermined
    assert fact.derive(labels, np.array([3])) is None


def test_ops_refuse_a_new_fact_until_they_declare_it(last_direction, generated):
    from dataclasses import replace

    clip = generated("slide", "left-up")
    asked = clip.evolve(
        labels=replace(clip.labels, query=replace(clip.labels.query, fact="last_direction"))
    )
    with pytest.raises(EditError, match="reverse.*'last_direction'.*does not declare"):
        Reverse()(asked)


@pytest.mark.parametrize(
    ("name", "page"), [("freeze", "edit-op.md"), ("last_direction", "fact.md")]
)
def test_the_page_includes_the_example_file(name, page):
    """The page shows the file by including it, so the code it shows is the code tested."""
    text = (ROOT / "docs" / "extend" / page).read_text(encoding="utf-8")
    assert f'```python\n--8<-- "examples/{name}.py"\n```' in text

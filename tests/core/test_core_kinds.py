"""The enums of tempogen.kinds: members write as their plain strings, and they hold the same
names as the tuples code still compares against (until those tuples are derived from them)."""

from __future__ import annotations

import json

import yaml

from tempogen.builders.eval.common import VIDEOTT_KINDS
from tempogen.builders.exports.videott.text import KINDS
from tempogen.kinds import DemonstrationType, EventKind, Task, VideoTTQuestion
from tempogen.manifest import DEMONSTRATION_TYPES
from tempogen.observe import EVENT_KINDS
from tempogen.questions import TASKS


def test_members_write_as_their_strings():
    task = Task.SHAPE_TREND
    assert task == "shape&trend" and hash(task) == hash("shape&trend")
    assert f"{task}" == str(task) == format(task) == "shape&trend"
    assert f"{task:>12}" == " shape&trend"
    assert json.dumps({"task": task}) == json.dumps({"task": "shape&trend"})
    assert json.dumps([task], indent=1) == json.dumps(["shape&trend"], indent=1)
    assert yaml.safe_dump({"task": task.value}) == "task: shape&trend\n"
    assert Task("count") is Task.COUNT and {"count": 1}[Task.COUNT] == 1


def test_enums_agree_with_the_tuples_code_compares():
    assert TASKS == tuple(Task)
    assert DEMONSTRATION_TYPES == tuple(DemonstrationType)
    assert EVENT_KINDS == tuple(EventKind)
    assert KINDS == tuple(VideoTTQuestion) == VIDEOTT_KINDS

"""Edit ops: small frozen objects mapping a clip (frames and labels) to a new clip.

Each op is one module that registers itself (:func:`register_op`) with its name, parameters
(a JSON Schema from its fields) and its declared effect on every fact
(:mod:`tempogen.editing.effects`). Temporal ops select output frames (``reverse``, ``speed``,
``speed_ramp``, ``trim``, ``loop``); spatial ops add a similarity map per frame (``mirror``,
``rotate``, ``crop``, ``zoom_in``); ``concat``, ``composite`` and ``pair_with_black_gap`` join
clips. An op that cannot move a label soundly refuses, naming the op and the fact.
"""

from tempogen.editing.ops.base import (
    COMPOSITE,
    COUNTERFACTUAL,
    OPS,
    ZOOM,
    Op,
    SpaceOp,
    TimeOp,
    make_op,
    register_op,
)
from tempogen.editing.ops.flip import Mirror, Rotate
from tempogen.editing.ops.joins import Composite, Concat, composite, concat, pair_with_black_gap
from tempogen.editing.ops.loop import Loop
from tempogen.editing.ops.reverse import Reverse
from tempogen.editing.ops.speed import Speed, SpeedRamp
from tempogen.editing.ops.trim import Trim
from tempogen.editing.ops.view import Crop, ZoomIn

__all__ = [
    "COMPOSITE",
    "COUNTERFACTUAL",
    "OPS",
    "ZOOM",
    "Composite",
    "Concat",
    "Crop",
    "Loop",
    "Mirror",
    "Op",
    "Reverse",
    "Rotate",
    "SpaceOp",
    "Speed",
    "SpeedRamp",
    "TimeOp",
    "Trim",
    "ZoomIn",
    "composite",
    "concat",
    "make_op",
    "pair_with_black_gap",
    "register_op",
]

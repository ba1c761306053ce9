"""Edit ops that transform frames and labels together (``tempogen.editing``)."""

from tempogen.editing.clip import Clip, EditError
from tempogen.editing.ops import (
    OPS,
    Composite,
    Concat,
    Crop,
    Loop,
    Mirror,
    Reverse,
    Rotate,
    Speed,
    SpeedRamp,
    Trim,
    ZoomIn,
    composite,
    concat,
    make_op,
    pair_with_black_gap,
    register_op,
)
from tempogen.editing.pipeline import load_pipelines, parse_pipeline, run_pipeline

__all__ = [
    "OPS",
    "Clip",
    "Composite",
    "Concat",
    "Crop",
    "EditError",
    "Loop",
    "Mirror",
    "Reverse",
    "Rotate",
    "Speed",
    "SpeedRamp",
    "Trim",
    "ZoomIn",
    "composite",
    "concat",
    "load_pipelines",
    "make_op",
    "pair_with_black_gap",
    "register_op",
    "parse_pipeline",
    "run_pipeline",
]

"""Built-in motion patterns, one module per TOMATO task; importing registers them."""

from tempogen.generators.patterns import (  # noqa: F401
    count,
    direction,
    rotation,
    shape,
    velocity,
    visual_cues,
)

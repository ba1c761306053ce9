"""Built-in motion patterns, one module per TOMATO task (2D) plus the 3D scenes; importing
registers them."""

from tempogen.generators.patterns import (  # noqa: F401
    count,
    direction,
    human,
    human_actions,
    human_compare,
    human_count,
    human_depth,
    human_props,
    human_putdown,
    human_walk,
    objects3d,
    objects3d_speed,
    objects3d_tasks,
    rotation,
    shape,
    velocity,
    visual_cues,
)

"""Built-in motion patterns, one module per TOMATO task (2D) plus the 3D scenes; importing
registers them.

The modules are imported in the order their patterns register: within a task, the planner
(``generators/build.py``) hands questions to patterns in registration order, so this order is
part of every build's output. A new module goes after those whose patterns it must follow.
Helper modules (``mocap``, ``human_hand``, ``human_poses``, ``rigid3d``, ``scenes3d``) register nothing."""

# isort: off
from tempogen.generators.patterns import (  # noqa: F401
    velocity,
    count,
    direction,
    rotation,
    shape,
    human,
    human_actions,
    visual_cues,
    human_compare,
    human_count,
    human_walk,
    human_depth,
    human_props,
    human_putdown,
    objects3d,
    objects3d_tasks,
    objects3d_speed,
    mocap_travel,
    mocap_turn,
    mocap_counts,
    mocap_first,
)

# isort: on

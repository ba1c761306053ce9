"""Natural synthetic caption pairs: one two-event scene rendered in both event orders.

Both clips of a pair show the same things on the same background, start in the same state and
end in the same state; only the order of the events differs (no reversal, no cut), so the
captions ("A x then B y" / "B y then A x") use exactly the same words and only temporal order
tells them apart (Vinoground's counterfactual pairs). Pair kinds cover Vinoground's categories:
two objects acting (object), one actor doing two things (action: a 2D shape or a simulated
human), the camera zooming and panning (viewpoint), one object hitting another (interaction),
a procedure repeated in turn (cyclical), moves in two directions (spatial) and the background
changing (contextual). Each kind is one module of this package; what they share is
``common`` (specs, the registry, the certificate), ``twod`` (the 2D kinds' machinery) and
``render`` (a pair's videos).

Every pair carries a certificate: the order of events read from the states at TOMATO's 16
uniform samples equals the order read from every frame and the script the pair was planned
with, and the two orders' first and last frames hold the same states, so no single frame
tells them apart.
"""

from __future__ import annotations

import importlib

from tempogen.generators.pairs.common import (
    DEFAULT_SECONDS,
    EVENT_PAIRS,
    GAP_SECONDS,
    KINDS,
    SLOTS,
    PairScene,
    PairSpec,
    observed_script,
    plan_pairs,
)
from tempogen.generators.pairs.render import concat_name, plan_scene, render_pair

# The built-in kinds, each one module that registers itself, imported in this order, which is
# the order plan_pairs deals them in: a new kind goes last, or every planned pair set changes.
BUILTIN_KINDS = (
    "object",
    "action",
    "human",
    "viewpoint",
    "interaction",
    "cyclical",
    "spatial",
    "contextual",
)
for _kind in BUILTIN_KINDS:
    importlib.import_module(f"{__name__}.{_kind}")
del _kind

__all__ = [
    "BUILTIN_KINDS",
    "DEFAULT_SECONDS",
    "EVENT_PAIRS",
    "GAP_SECONDS",
    "KINDS",
    "SLOTS",
    "PairScene",
    "PairSpec",
    "concat_name",
    "observed_script",
    "plan_pairs",
    "plan_scene",
    "render_pair",
]

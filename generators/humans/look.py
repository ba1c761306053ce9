"""What a simulated person looks like: clothes and glove colours, body shape, the body model.

Each person gets a muted body colour and two bright, distinct hand colours (gloves), so a
colour read of the pixels finds each hand; several people in one scene differ in clothes,
every glove's hue, and height.
"""

from __future__ import annotations

import colorsys
import functools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from tempogen.generators.motion import GenerationError
from tempogen.generators.skeleton import INDEX

RGB = tuple[int, int, int]
SIDES = ("left", "right")
SIDE_SIGN = {"left": 1.0, "right": -1.0}  # the person's left is +x in SMPL

# Bright glove colours (saturation >= 0.8) and muted clothes (saturation <= 0.3): a hue
# read of the pixels tells each hand from the body, the floor and the (grey-ish) sky.
HAND_COLORS: dict[str, RGB] = {
    "magenta": (232, 40, 200),
    "yellow": (245, 212, 30),
    "cyan": (20, 200, 235),
    "green": (45, 205, 70),
    "orange": (250, 125, 25),
    "red": (232, 32, 48),
}
BODY_COLORS: dict[str, RGB] = {
    "slate": (96, 110, 136),
    "beige": (196, 178, 150),
    "olive": (124, 128, 100),
    "charcoal": (72, 74, 82),
    "stone": (170, 168, 160),
    "taupe": (140, 122, 110),
    "sage": (140, 156, 140),
}
MIN_HAND_HUE_GAP = 60.0  # degrees of hue between the two gloves
MIN_SCENE_HUE_GAP = 40.0  # degrees between a glove and any other bright colour in the scene
MIN_HEIGHT_BETA_GAP = 0.8  # first shape component (height, ~8.6 cm per unit) between two people
# Body shape draws: the first MAIN_BETAS components (height, girth) are wider than the rest.
MAIN_BETAS = 2
MAIN_BETA_SD, MAIN_BETA_LIMIT = 0.8, 2.0  # normal sd and clip of height and girth
OTHER_BETA_SD, OTHER_BETA_LIMIT = 0.4, 1.0  # normal sd and clip of the other components


def hue(rgb: RGB) -> float:
    """Hue of an sRGB colour in degrees."""
    return 360.0 * colorsys.rgb_to_hsv(*(c / 255.0 for c in rgb))[0]


def hue_gap(a: RGB, b: RGB) -> float:
    """Degrees between two colours' hues (0..180)."""
    d = abs(hue(a) - hue(b)) % 360.0
    return min(d, 360.0 - d)


@dataclass(frozen=True)
class HumanLook:
    """One person's look: clothes colour, glove colour per side, body shape (betas)."""

    body: RGB
    hands: dict[str, tuple[str, RGB]]  # side -> (colour name, sRGB)
    betas: np.ndarray

    def to_json(self) -> dict[str, Any]:
        """The look as JSON (for ``labels.meta["look"]``)."""
        return {
            "body": list(self.body),
            "hands": {s: [n, list(c)] for s, (n, c) in self.hands.items()},
            "betas": [round(float(b), 3) for b in self.betas],
        }


def draw_look(
    rng: np.random.Generator,
    num_betas: int,
    avoid: Sequence[RGB] = (),
    bodies: Sequence[str] = tuple(BODY_COLORS),
) -> HumanLook:
    """A random look: muted clothes (one of ``bodies``), two bright gloves far apart in hue
    (and :data:`MIN_SCENE_HUE_GAP` from every colour in ``avoid``: other people's gloves, a
    held prop), betas in +-2 sd on the first two shape components (height, girth) and +-1 on
    the rest."""
    body = BODY_COLORS[str(rng.choice(list(bodies)))]
    names = [
        str(n)
        for n in rng.permutation(list(HAND_COLORS))
        if all(hue_gap(HAND_COLORS[str(n)], a) >= MIN_SCENE_HUE_GAP for a in avoid)
    ]
    pairs = [
        (a, b)
        for i, a in enumerate(names)
        for b in names[i + 1 :]
        if hue_gap(HAND_COLORS[a], HAND_COLORS[b]) >= MIN_HAND_HUE_GAP
    ]
    if not pairs:
        raise GenerationError("draw_look: no two glove colours clear of the scene's colours")
    left, right = pairs[0]
    betas = np.zeros(num_betas)
    k = min(MAIN_BETAS, num_betas)
    betas[:k] = np.clip(rng.normal(0.0, MAIN_BETA_SD, k), -MAIN_BETA_LIMIT, MAIN_BETA_LIMIT)
    betas[k:] = np.clip(
        rng.normal(0.0, OTHER_BETA_SD, num_betas - k), -OTHER_BETA_LIMIT, OTHER_BETA_LIMIT
    )
    return HumanLook(
        body, {"left": (left, HAND_COLORS[left]), "right": (right, HAND_COLORS[right])}, betas
    )


def draw_looks(
    rng: np.random.Generator, num_betas: int, k: int, given: Sequence[HumanLook] = ()
) -> list[HumanLook]:
    """Looks for ``k`` more people in a scene that has ``given`` ones: different clothes, every
    glove far in hue from every other (so each hand is found by its colour alone), and
    heights (first beta) at least :data:`MIN_HEIGHT_BETA_GAP` apart."""
    looks: list[HumanLook] = list(given)
    for _ in range(k):
        used = {lk.body for lk in looks}
        bodies = [n for n, c in BODY_COLORS.items() if c not in used]
        avoid = [c for lk in looks for _, c in lk.hands.values()]
        look = draw_look(rng, num_betas, avoid, bodies)
        b0 = float(look.betas[0])
        for other in looks:
            o = float(other.betas[0])
            if abs(b0 - o) < MIN_HEIGHT_BETA_GAP:
                b0 = o + MIN_HEIGHT_BETA_GAP if o < 0 else o - MIN_HEIGHT_BETA_GAP
        betas = look.betas.copy()
        betas[0] = b0
        looks.append(HumanLook(look.body, look.hands, betas))
    return looks[len(given) :]


def body_color_name(rgb: Sequence[int]) -> str:
    """The name of a clothes colour (as :data:`BODY_COLORS` lists it)."""
    return next(n for n, c in BODY_COLORS.items() if tuple(c) == tuple(rgb))


@functools.lru_cache(maxsize=4)
def body_for(path: str = "") -> Any:
    """The body model a style names ("" = the embedded mannequin), loaded once per process."""
    from tempogen.generators.body import load_body

    return load_body(path or None)


def look_colors(body: Any, look: HumanLook) -> np.ndarray:
    """Per-vertex sRGB: clothes everywhere, each hand (wrist and hand parts) its glove."""
    parts = np.asarray(body.parts)
    colors = np.tile(np.asarray(look.body, dtype=np.uint8), (len(parts), 1))
    for side in SIDES:
        on = np.isin(parts, [INDEX[f"{side}_wrist"], INDEX[f"{side}_hand"]])
        colors[on] = look.hands[side][1]
    return colors


def glove_centres(body: Any, vertices: np.ndarray) -> dict[str, np.ndarray]:
    """Rest centre of each hand's glove (its wrist and hand parts) per side: the centroid of
    its surface, area-weighted so a finely meshed thumb does not pull it aside."""
    parts = np.asarray(body.parts)
    faces = np.asarray(body.faces)
    v = np.asarray(vertices, dtype=np.float64)
    out = {}
    for side in SIDES:
        glove = np.isin(parts, [INDEX[f"{side}_wrist"], INDEX[f"{side}_hand"]])
        tri = v[faces[glove[faces].all(axis=1)]]
        if not len(tri):
            raise GenerationError(f"body model {body!r}: no faces on the {side} hand")
        area = 0.5 * np.linalg.norm(np.cross(tri[:, 1] - tri[:, 0], tri[:, 2] - tri[:, 0]), axis=1)
        out[side] = (tri.mean(axis=1) * area[:, None]).sum(0) / area.sum()
    return out

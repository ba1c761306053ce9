"""Simulated humans: a per-seed look, cameras, posing with IK, labels from the posed joints.

A human motion (``generators/patterns/human.py``) builds a pose sequence on a :class:`Rig`:
it picks a camera, moves limbs with inverse kinematics toward targets it designs in 3D, and
adds tracks. Every track is the projection, through the one :class:`Camera` the renderer
also uses, of joints that the *body model* posed (``BodyModel.pose``), so labels, pixels and
the 3D joints kept in ``labels.meta["joints3d"]`` all describe the same body.

World axes follow SMPL: metres, ``y`` up, the person stands at the origin facing ``+z`` with
the soles on ``y = 0``. The third-person camera stands in front (looking toward ``-z``), so
the person's right hand shows on the image's left; "left", "right" and "clockwise" in
questions are the viewer's. Each person gets a muted body colour and two bright, distinct
hand colours (gloves), so a colour read of the pixels finds each hand.

The package is cut by role: :mod:`.look` (colours, shape, the body model), :mod:`.posing`
(limb IK), :mod:`.camera`, :mod:`.tracks` (labels), :mod:`.nouns` (English names),
:mod:`.world` (meshes drawn per frame), :mod:`.rig` (the person being posed) and
:mod:`.render` (a pose sequence to an mp4). Its names are re-exported here.
"""

from tempogen.generators.humans.camera import (
    FIRST_PERSON_P,
    UPPER_BODY,
    camera_json,
    fit_camera,
    share_camera,
)
from tempogen.generators.humans.look import (
    BODY_COLORS,
    HAND_COLORS,
    MIN_HAND_HUE_GAP,
    MIN_HEIGHT_BETA_GAP,
    MIN_SCENE_HUE_GAP,
    RGB,
    SIDE_SIGN,
    SIDES,
    HumanLook,
    body_color_name,
    body_for,
    draw_look,
    draw_looks,
    glove_centres,
    hue,
    hue_gap,
    look_colors,
)
from tempogen.generators.humans.nouns import person_noun
from tempogen.generators.humans.posing import arm_down, arm_forward, bumps
from tempogen.generators.humans.render import render_motion, render_motion_files
from tempogen.generators.humans.rig import (
    COMPANION_P,
    PAIR_SPACING,
    HumanMotion,
    Rig,
    start_pair,
)
from tempogen.generators.humans.tracks import HAND_RADIUS
from tempogen.generators.humans.world import BodyWorld, Mesh, Prop, finish_people

__all__ = [
    "BODY_COLORS",
    "COMPANION_P",
    "FIRST_PERSON_P",
    "HAND_COLORS",
    "HAND_RADIUS",
    "MIN_HAND_HUE_GAP",
    "MIN_HEIGHT_BETA_GAP",
    "MIN_SCENE_HUE_GAP",
    "PAIR_SPACING",
    "RGB",
    "SIDES",
    "SIDE_SIGN",
    "UPPER_BODY",
    "BodyWorld",
    "HumanLook",
    "HumanMotion",
    "Mesh",
    "Prop",
    "Rig",
    "arm_down",
    "arm_forward",
    "body_color_name",
    "body_for",
    "bumps",
    "camera_json",
    "draw_look",
    "draw_looks",
    "finish_people",
    "fit_camera",
    "glove_centres",
    "hue",
    "hue_gap",
    "look_colors",
    "person_noun",
    "render_motion",
    "render_motion_files",
    "share_camera",
    "start_pair",
]

"""Shape & trend, the whole body: a person walks a shape on the floor, filmed from high above;
the label is the posed pelvis, whose screen path is the shape drawn exactly."""

from __future__ import annotations

import numpy as np
from scipy.ndimage import gaussian_filter1d

from tempogen.errors import GenerationError
from tempogen.generators.camera import Camera
from tempogen.generators.humans import (
    SIDE_SIGN,
    SIDES,
    HumanMotion,
    Rig,
    arm_down,
    finish_people,
    fit_camera,
    person_noun,
    start_pair,
)
from tempogen.generators.kinematics import (
    LIMBS,
    axis_angle,
    compose,
    forward_kinematics,
    limb_reach,
)
from tempogen.generators.motion import register_motion
from tempogen.generators.paths import through
from tempogen.generators.patterns.shape import knot_frames, outline
from tempogen.generators.scene import Scene
from tempogen.generators.skeleton import INDEX

SIZE = (0.55, 1.5)  # metres from the path's centre to its farthest vertex
SPEED = (0.8, 1.1)  # metres per second the path's length is sized for
STEP = (0.5, 0.6)  # metres the pelvis advances per step
LIFT, DIP, SWING = 0.08, 0.02, 12.0  # foot clearance, pelvis bob (m), arm swing (degrees)
LENS, ELEVATION = (20.0, 26.0), (80.0, 86.0)  # degrees: vertical field of view, camera pitch
ARM = 60.0  # degrees the arms hang below level: held out a little, the gloves show from above
FLARE = 30.0  # degrees the hands bend out at the wrist, turning the gloves' backs upward
AZIMUTH = (-8.0, 8.0)  # degrees the overhead camera turns off straight ahead
FILL = (0.84, 0.92)  # share of the frame the walk's room fills
# metres of room about a walked path: at the floor (for the feet) and 1.85 m up (the head)
ROOM = ((0.0, 0.35), (1.85, 0.2))
CORNERS = ((-1, -1), (-1, 1), (1, -1), (1, 1))  # a room's corners, x then z, in this order
KNEES = 0.05  # metres the pelvis walks lower than at rest: knees a little bent
PERSON_RADIUS = 0.25  # metres: a walking person's track about the pelvis
HEADING_SMOOTH = 0.08  # seconds: the smoothing of the heading round a corner
LEG_REACH = 0.97  # share of a leg's length it may stretch to
FEET_APART = 0.8  # the feet's distance from the midline, as a share of the ankles' at rest
FORESHORTEN = 1.05  # the path's depth room over its width's: seen steeply, depth shrinks a little
COMPANION_GAP = 1.3  # metres between the path's room and a companion's middle


def overhead_camera(scene: Scene, points: np.ndarray) -> Camera:
    """A camera high above ``points`` (a long lens, :data:`ELEVATION` degrees down) that
    frames them all."""
    rng = scene.rng
    return fit_camera(
        points,
        scene.width,
        scene.height,
        yfov_deg=rng.uniform(*LENS),
        elevation_deg=rng.uniform(*ELEVATION),
        azimuth_deg=rng.uniform(*AZIMUTH),
        fill=rng.uniform(*FILL),
    )


def on_floor(cam: Camera, uv: np.ndarray, heights: np.ndarray) -> np.ndarray:
    """World points (T, 3) where the camera's rays through pixels ``uv`` (T, 2) meet the
    horizontal planes ``y = heights`` (T,): a point moved there projects onto ``uv``."""
    ray = np.stack(
        [uv[:, 0] - cam.width / 2, cam.height / 2 - uv[:, 1], -np.full(len(uv), cam.focal)], 1
    )
    ray = ray @ cam.pose[:3, :3].T
    eye = cam.pose[:3, 3]
    return eye + ((heights - eye[1]) / ray[:, 1])[:, None] * ray


def body_dirs(yaw: np.ndarray, a: float, b: float) -> np.ndarray:
    """Horizontal world directions (T, 3): ``a`` times the way a body at ``yaw`` faces plus
    ``b`` times its left."""
    s, c = np.sin(yaw), np.cos(yaw)
    return np.stack([a * s + b * c, np.zeros_like(s), a * c - b * s], 1)


def _loop_smooth(yaw: np.ndarray, sigma: float) -> np.ndarray:
    """Headings (radians) round a closed path, smoothed as a loop: the last frame is the first
    one again, so both turn alike at a corner there (whole turns taken out, then put back)."""
    turn = 2 * np.pi * np.round((yaw[-1] - yaw[0]) / (2 * np.pi))
    ramp = turn * np.arange(len(yaw)) / (len(yaw) - 1)
    loop = gaussian_filter1d((yaw - ramp)[:-1], sigma, mode="wrap")
    return np.r_[loop, loop[0]] + ramp


def _arm_lean(rig: Rig) -> float:
    """Degrees the hanging arms lean back so the gloves' midpoint stands over the pelvis (the
    bent elbows carry the hands forward): seen from above, the gloves then trace its path."""
    pose, lean = np.zeros((1, *rig.poses.shape[1:])), 0.0
    pose[0, 1:] = rig.poses[0, 1:]
    for _ in range(4):
        for s in SIDES:
            pose[0, INDEX[f"{s}_shoulder"]] = compose(
                axis_angle((1.0, 0.0, 0.0), lean), arm_down(s, ARM)
            )
        joints, rot = forward_kinematics(pose, rig.rest)
        wrists = [INDEX[f"{s}_wrist"] for s in SIDES]
        gloves = [
            joints[0, w] + rot[0, w] @ (rig.hand_rest(s) - rig.rest[w])
            for s, w in zip(SIDES, wrists)
        ]
        lean += np.degrees(np.mean(gloves, axis=0)[2] - joints[0, 0, 2]) / 0.5
    return lean


def place_body(
    rig: Rig, ground: np.ndarray, yaw: np.ndarray, height: np.ndarray, feet: dict[str, np.ndarray]
) -> None:
    """Set the pelvis over ``ground`` (T, 2) at ``height`` (lowered where a leg would fall
    short of its foot in ``feet``) facing ``yaw``; legs are posed by the caller."""
    for s in SIDES:
        hip = rig.rest[INDEX[f"{s}_hip"]] - rig.rest[0]
        hips = body_dirs(yaw, hip[2], hip[0])[:, [0, 2]] + ground
        reach = LEG_REACH * limb_reach(LIMBS[f"{s}_leg"], rig.rest)[1]
        flat = np.linalg.norm(hips - feet[s][:, [0, 2]], axis=1)
        rise = np.sqrt(np.maximum(reach**2 - flat**2, 0.0))
        height = np.minimum(height, feet[s][:, 1] + rise - hip[1])
    rig.trans[:] = np.c_[ground[:, 0], height, ground[:, 1]] - rig.rest[0]
    rig.poses[:, 0] = axis_angle((0.0, 1.0, 0.0), np.degrees(yaw))


def walk_loop(rig: Rig, ground: np.ndarray, h0: float, rng: np.random.Generator) -> None:
    """Pose ``rig`` walking the closed floor path ``ground`` (T, 2: x, z; the last frame is the
    first) with its pelvis at height ``h0``: facing along the path, whole pairs of steps, the
    arms swinging so the gloves' midpoint stays over the pelvis; still on a path of no length."""
    n = rig.n
    arc = np.r_[0.0, np.cumsum(np.linalg.norm(np.diff(ground, axis=0), axis=1))]
    vel = np.gradient(ground, axis=0)
    yaw = np.full(n, rng.uniform(-np.pi, np.pi))
    if arc[-1] > 0:  # face along the path, turning smoothly at the corners
        yaw = _loop_smooth(
            np.unwrap(np.arctan2(vel[:, 0], vel[:, 1])), HEADING_SMOOTH * rig.scene.fps
        )
    step = rng.uniform(*STEP)
    if arc[-1] > 0:  # whole pairs of steps: the last frame is posed as the first
        step = arc[-1] / (2 * max(1, round(arc[-1] / (2 * step))))
    phase = arc / step
    height = h0 - DIP * np.cos(2 * np.pi * phase)  # lowest with both feet down
    feet = {}
    for p, s in enumerate(SIDES):  # each foot swings two steps ahead every other step
        q = (phase - p) / 2
        u = np.clip(2 * (q - np.floor(q)), 0.0, 1.0)
        at = step * (2 * np.floor(q) + p - 0.5 + 2 * u * u * (3 - 2 * u))
        at = np.mod(at, arc[-1]) if arc[-1] > 0 else np.zeros(n)  # the path is closed
        g = np.stack([np.interp(at, arc, ground[:, k]) for k in (0, 1)], 1)
        ankle = rig.rest_point(f"{s}_ankle")
        wide = FEET_APART * (ankle[0] - rig.rest_point("pelvis")[0])
        feet[s] = np.c_[g[:, 0], np.full(n, ankle[1]), g[:, 1]]
        feet[s] += body_dirs(np.interp(at, arc, yaw), 0.0, wide)
        feet[s][:, 1] += LIFT * np.sin(np.pi * u)
    place_body(rig, ground, yaw, height, feet)
    for s in SIDES:  # hands bent out at the wrist: their backs face up, to the camera
        rig.poses[:, INDEX[f"{s}_wrist"]] = axis_angle((0.0, 0.0, 1.0), SIDE_SIGN[s] * FLARE)
    lean = _arm_lean(rig)
    for s in SIDES:
        rig.leg_to(s, feet[s], pole=body_dirs(yaw, 1.0, 0.1 * SIDE_SIGN[s]))
        # each arm swings against its leg, about the body's left-right axis: the hands
        # mirror each other, so their midpoint stays over the pelvis
        swing = lean - SIDE_SIGN[s] * SWING * np.cos(np.pi * phase) * (arc[-1] > 0)
        down = arm_down(s, ARM)
        rig.poses[:, INDEX[f"{s}_shoulder"]] = compose(axis_angle((1.0, 0.0, 0.0), swing), down)


@register_motion
class WalkPath(HumanMotion):
    """The person walks a shape on the floor (corners on sampled frames), facing along the
    path, feet stepping and arms swinging; or stands still. The camera looks down steeply."""

    name = "walk_path"
    task = "shape&trend"
    fact = "trajectory"
    answers = ("circle", "triangle", "square", "trapezoid", "diamond", "infinity", "star", "none")
    question = "Seen from above, what shape does {subject} walk on the floor?"

    def animate(self, scene: Scene, answer: str) -> None:
        rig, rng, n = Rig.start(scene, self.name), scene.rng, scene.n
        verts = np.zeros((2, 2)) if answer == "none" else outline(answer, rng)
        verts = verts[::-1].copy() if rng.random() < 0.5 else verts
        length = max(float(np.linalg.norm(np.diff(verts, axis=0), axis=1).sum()), 1e-9)
        size = np.clip(rng.uniform(*SPEED) * (n - 1) / scene.fps / length, *SIZE)
        half = size * np.abs(verts).max(0) * [1.0, FORESHORTEN]  # x, z (foreshortened), metres
        centre, other = np.zeros(3), rig.maybe_companion()
        if other is not None:  # beside the companion, never through them
            centre = other.origin - [np.sign(other.origin[0]) * (half[0] + COMPANION_GAP), 0.0, 0.0]
        room = [[x * (half[0] + m), y, z * (half[1] + m)] for y, m in ROOM for x, z in CORNERS]
        box = centre + np.array(room)
        seen = [box] + ([other.frame_points()] if other is not None else [])
        # a long lens from high up: even at the frame's edge the view is nearly straight down,
        # so no body hides its own far hand
        rig.camera = cam = overhead_camera(scene, np.concatenate(seen))
        h0 = rig.rest_point("pelvis")[1] - KNEES
        mid = centre + [0.0, h0, 0.0]
        if answer in ("circle", "infinity", "none"):
            knots = np.linspace(0, n - 1, len(verts))
        else:  # start (and end) mid-edge: the first frame, the reference, is no corner
            verts = np.vstack([0.5 * (verts[0] + verts[1]), verts[1:], 0.5 * (verts[0] + verts[1])])
            knots = knot_frames(scene, verts)
        px = verts * size * cam.pixels_per_metre(mid)  # the shape on screen, in pixels
        uv = cam.project(mid) + np.stack(through(px, knots, scene.frames), 1)
        ground = on_floor(cam, uv, np.full(n, h0))[:, [0, 2]]
        walk_loop(rig, ground, h0, rng)
        pelvis = rig.joints[:, INDEX["pelvis"]]
        rig.track("person", pelvis, rig.who, rig.look.body, PERSON_RADIUS, shape="human")
        scene.ask(["person"])
        rig.finish()


LAP_RADIUS = (0.45, 1.1)  # metres: the circle each person walks round
MAX_LAPS = 4  # 16 samples still see every lap as a polygon, not a blur of chords
FASTER = (1.5, 2.0)  # the faster person's speed over the slower one's
TOP_SPEED = 1.7  # m/s: a brisk walk
LIKED_RADIUS = (0.6, 0.9)  # metres: the circle radius the laps are rounded towards
SLOW = (0.45, 0.75)  # m/s: the slower walker's speed...
SLOW_SPARE = 1.15  # ...or up to this many times the least that walks one lap, if more
CIRCLE_GAP = (0.9, 1.3)  # metres between the two circles' rims


def _laps(path: float, rng: np.random.Generator) -> tuple[float, int]:
    """A circle radius (within ``LAP_RADIUS``) and whole laps that make a walk of ``path``
    metres; the speed stays exact, as no length is rounded."""
    lo, hi = LAP_RADIUS
    laps = round(path / (2 * np.pi * rng.uniform(*LIKED_RADIUS)))
    laps = int(np.clip(laps, np.ceil(path / (2 * np.pi * hi)), np.floor(path / (2 * np.pi * lo))))
    return path / (2 * np.pi * laps), laps


def _speeds(duration: float, rng: np.random.Generator) -> tuple[float, float]:
    """Slower and faster walking speeds (m/s): each walks at least one lap of the smallest
    circle, the faster one ``FASTER`` times the slower, at most ``TOP_SPEED``."""
    least = 2 * np.pi * LAP_RADIUS[0] / duration
    slow = rng.uniform(max(SLOW[0], least), max(SLOW[1], SLOW_SPARE * least))
    fast = min(slow * rng.uniform(*FASTER), TOP_SPEED)
    if fast < FASTER[0] * slow or 2 * np.pi * LAP_RADIUS[1] * MAX_LAPS < fast * duration:
        raise GenerationError(f"walk_faster: no two walking speeds fit {duration:.1f} s")
    return slow, fast


@register_motion
class WalkFaster(HumanMotion):
    """Two people, filmed from high above, each walk round their own circle (its size and
    laps their own); one walks clearly faster, which is the answer: a single frame, or the
    circles' sizes, cannot tell who."""

    name = "walk_faster"
    task = "velocity&frequency"
    fact = "faster"
    answers = ("left", "right")
    objects = ("left", "right")
    question = "Seen from above, which of the two people walks faster?"
    min_seconds = 3.0  # a lap of the smallest circle at a walk

    def animate(self, scene: Scene, answer: str) -> None:
        rigs, rng, n = start_pair(scene, self.name), scene.rng, scene.n
        duration = (n - 1) / scene.fps
        slow, fast = _speeds(duration, rng)
        plan = {
            s: _laps((fast if s == answer else slow) * duration, rng) for s in ("left", "right")
        }
        r = {side: radius for side, (radius, _) in plan.items()}
        gap = rng.uniform(*CIRCLE_GAP)
        centres = {"left": -0.5 * (r["left"] + r["right"] + gap), "right": 0.0}
        centres["right"] = centres["left"] + r["left"] + r["right"] + gap
        box = [
            [centres[s] + x * (r[s] + m), y, z * (r[s] + m)]
            for s in r
            for y, m in ROOM
            for x, z in CORNERS
        ]
        cam = overhead_camera(scene, np.array(box))
        for side, rig in rigs.items():
            radius, laps = plan[side]
            sense = float(rng.choice([-1.0, 1.0]))
            a = rng.uniform(0, 2 * np.pi) + sense * 2 * np.pi * laps * scene.frames / (n - 1)
            ground = np.c_[centres[side] + radius * np.cos(a), radius * np.sin(a)]
            rig.camera, rig.first_person = cam, False
            walk_loop(rig, ground, rig.rest_point("pelvis")[1] - KNEES, rng)
            pelvis = rig.joints[:, INDEX["pelvis"]]
            rig.track(
                side, pelvis, person_noun(side, rig), rig.look.body, PERSON_RADIUS, shape="human"
            )
        scene.ask(self.objects)
        finish_people(list(rigs.values()))

"""A simulated person holding a ball on each palm puts each down on a stand beside them,
and the question asks which ball is put down first (fact ``order``); played backwards, the
person picks them up, and the question says so (its verb is read from the states)."""

from __future__ import annotations

import numpy as np
import trimesh

from tempogen.facts.states import STILL_PX
from tempogen.generators.humans import (
    SIDE_SIGN,
    HumanMotion,
    Prop,
)
from tempogen.generators.kinematics import LIMBS, limb_reach
from tempogen.generators.motion import register_motion
from tempogen.generators.patterns.human_props import BALL_RADIUS, HOLD_OUT, holder
from tempogen.generators.scene import Scene
from tempogen.labels import Labels
from tempogen.questions import WordingError

STAND = (120, 106, 94)  # muted wood: no hue mask (glove or ball) takes it
PAUSE = 4  # still steps inside one movement: slow motion down to a quarter repeats frames
SETTLE = 1.5  # one half of a first movement covers this many times the other's path, or more
# a ball on the palm, in ball radii (and metres): up from the hand's centre, and ahead of it
SEAT = (0.8, 0.03, 0.6)
CARRY = (0.37, 0.3)  # metres above and ahead of its hip a hand carries a ball
SET_OUT = (0.25, 0.35)  # the way to the stand: out from the shoulder...
SET_DOWN = -0.95  # ...down...
SET_AHEAD = (0.15, 0.25)  # ...and ahead (a direction: its length does not count)
SET_REACH = 0.9  # the hand sets the ball down at this share of the arm's reach...
SET_SLACK = 0.06  # ...or this many metres short of it, if nearer
SLIDE_OUT = (0.0, -0.01, -0.1)  # metres the hand slides out from under the set-down ball
# a movement's phases, as shares of it: the set-down (off at once, landing gently), the
# hand sliding out, the hand going back to where it carried the ball
LAND_AT, SLIDE, BACK_AT, BACK = 0.45, 0.2, 0.65, 0.35
STAND_SIZE = (0.22, 0.2)  # metres: the stand's width and depth (its height reaches the ball)
STAND_OUT = 0.03  # metres the stand sits out from under the ball
STAND_BACK = (0.3, 0.1)  # the stand's centre behind the ball's, in radii, then ahead, metres
UP = np.array([0.0, 1.0, 0.0])


def _ease(u: np.ndarray) -> np.ndarray:
    """Smoothstep of ``u`` clipped to 0..1."""
    u = np.clip(u, 0.0, 1.0)
    return u * u * (3.0 - 2.0 * u)


@register_motion
class PutDown(HumanMotion):
    """A person holds a ball on each palm and may set each down on a stand beside them, where
    it stays; which is put down first is read from when each held ball starts to move."""

    name = "put_down"
    task = "visual_cues"
    fact = "order"
    answers = ((("obj1",), ("obj2",)), (("obj2",), ("obj1",)), (("obj1", "obj2"),), ())
    question = "Which of the two balls the person holds is {moved} first?"
    objects = ("obj1", "obj2")

    def wording(self, labels: Labels) -> dict[str, str]:
        """``put down`` or, in a reversed clip, ``picked up`` (:func:`put_or_picked`); with no
        movement nothing is put down or picked up, and the question keeps the generated
        wording (its answer is "neither")."""
        return {"moved": put_or_picked(labels, self.objects)}

    def animate(self, scene: Scene, answer: tuple) -> None:
        from tempogen.generators.patterns.visual_cues import end_samples, start_samples

        rng, names = scene.rng, list(self.objects)
        rig, sides, paints = holder(scene, self.name)
        radius = float(rng.uniform(*BALL_RADIUS))
        lift = np.array(
            [0.0, SEAT[0] * radius + SEAT[1], SEAT[2] * radius]
        )  # on the palm, toward the fingers
        onsets = start_samples(scene, names, answer)
        offsets = end_samples(scene, onsets)
        landed: dict[str, int] = {}  # side -> frame its ball lands
        spots: dict[str, np.ndarray] = {}  # side -> where its ball would rest
        for name, side in zip(names, sides):
            out = SIDE_SIGN[side]
            hold = rig.rest_point(f"{side}_hip") + [out * rng.uniform(*HOLD_OUT), *CARRY]
            reach = limb_reach(LIMBS[f"{side}_arm"], rig.rest, rig.hand_rest(side))[1]
            way = np.array([out * rng.uniform(*SET_OUT), SET_DOWN, rng.uniform(*SET_AHEAD)])
            far = min(SET_REACH * reach, reach - SET_SLACK)  # low, yet within reach
            land = rig.joint(f"{side}_shoulder")[0] + far * way / np.linalg.norm(way)
            spots[side] = land + lift
            back = land + SLIDE_OUT
            t = np.zeros(scene.n)
            if name in onsets:
                a, b = scene.sample_frame(onsets[name]), scene.sample_frame(offsets[name])
                t = np.clip((scene.frames - a) / (b - a), 0.0, 1.0)
                landed[side] = int(np.flatnonzero(t >= LAND_AT)[0])
            down = 1.0 - (1.0 - np.clip(t / LAND_AT, 0.0, 1.0)) ** 2  # off at once, set down gently
            path = hold + down[:, None] * (land - hold)
            path += _ease((t - LAND_AT) / SLIDE)[:, None] * (back - land)
            path += _ease((t - BACK_AT) / BACK)[:, None] * (hold - back)
            rig.arm_to(side, path, palm_toward=UP)
        centres, corners = {s: rig.hand(s) + lift for s in sides}, []
        for side in sides:  # a ball put down stays where it landed; a stand under each spot
            if side in landed:
                centres[side][landed[side] :] = centres[side][landed[side]]
            spot = centres[side][-1] if side in landed else spots[side]
            top = spot[1] - radius  # the ball's lowest point: it rests on the stand, never floats
            box = trimesh.creation.box(extents=(STAND_SIZE[0], top, STAND_SIZE[1]))
            at = [
                spot[0] + SIDE_SIGN[side] * STAND_OUT,
                top / 2,
                spot[2] - STAND_BACK[0] * radius + STAND_BACK[1],
            ]
            verts, faces = np.asarray(box.vertices), np.asarray(box.faces)
            rig.props.append(Prop(faces, verts, STAND, np.tile(at, (scene.n, 1))))
            corners.append(verts + at)
        tops = [c + [0.0, radius, 0.0] for c in centres.values()]
        rig.third_person(rig.frame_points([*tops, *(c[c[:, 1] > 0] for c in corners)], upper=True))
        for name, side, paint in zip(names, sides, paints):
            rig.props.append(Prop.ball(radius, paint, centres[side]))
            noun = f"the ball in {rig.hand_noun(side)}"
            rig.track(name, centres[side], noun, paint, radius, shape="ball")
        scene.ask(names, kind="move")
        rig.finish()


def put_or_picked(labels: Labels, names: tuple[str, ...]) -> str:
    """``put down`` or ``picked up``, read from how each ball's first movement runs: set down,
    it leaves the palm at once and settles gently on its stand (its speed falls to rest);
    picked up (the clip played backwards), it starts gently and stops at once in the palm. A
    flip or a turn of the picture leaves that alone; :class:`WordingError` when the balls
    disagree or a movement shows neither."""
    found = set()
    for name in names:
        t = labels.track(name)
        step = np.hypot(np.diff(t.x), np.diff(t.y))
        moving = np.flatnonzero(step > STILL_PX)
        if not len(moving):
            continue
        # a movement: moving steps with pauses of at most PAUSE steps between them (slow
        # motion repeats frames); the first that covers a pixel (a settling ball may creep a
        # hair after it lands)
        cuts = np.flatnonzero(np.diff(moving) > PAUSE + 1)
        runs = [step[r[0] : r[-1] + 1] for r in np.split(moving, cuts + 1)]
        run = next((r for r in runs if r.sum() >= 1.0), runs[0])
        half = len(run) // 2
        early, late = float(run[:half].sum()), float(run[len(run) - half :].sum())
        if half == 0 or max(early, late) < SETTLE * min(early, late):
            raise WordingError(
                f"{name}: its first movement neither settles (put down) nor stops at once "
                "(picked up)"
            )
        found.add("put down" if early > late else "picked up")
    if len(found) > 1:
        raise WordingError(f"{', '.join(names)}: one ball is put down while another is picked up")
    return found.pop() if found else "put down"

"""A simulated person makes three or four distinct gestures, one at a time with the hands down
between them, and the question asks what they do right after one of them (fact ``next``)."""

from __future__ import annotations

import numpy as np

from tempogen.errors import GenerationError
from tempogen.facts import NEXT_ANCHOR, gesture_words
from tempogen.generators.humans import HAND_RADIUS, SIDE_SIGN, SIDES, HumanMotion, Rig
from tempogen.generators.kinematics import LIMBS, limb_reach
from tempogen.generators.motion import register_motion
from tempogen.generators.scene import SAMPLES, Scene
from tempogen.labels import Labels
from tempogen.observe import GESTURES

HELD = 3  # sample intervals a gesture takes: up, held over two samples, down
# a hand's keyframes, in metres out (from the midline), up and ahead
REST = (0.1, 0.15, 0.22)  # resting, from its hip
RAISED = (0.07, 0.52, 0.1)  # raised, from its shoulder (shrunk into reach)
CLAPPED = (0.065, -0.12, 0.26)  # clapping, from between the shoulders
HELD_OUT = (0.6, 0.02, 0.1)  # the arm held out, from its shoulder (shrunk into reach)
REACH_SHARE = 0.88  # a gesture takes the hand at most this share of the arm's reach
ARC = 0.2  # metres a moving hand arcs forward halfway, passing clear of its shoulder
REACH_MARGIN = 0.02  # metres the hands stay within reach
CROWN = 0.12  # metres above the head's joint the crown's line stands


def _ease(u: np.ndarray) -> np.ndarray:
    u = np.clip(u, 0.0, 1.0)
    return u * u * (3.0 - 2.0 * u)


@register_motion
class ActionOrder(HumanMotion):
    """The person raises one hand, the other, both, claps in front of the chest or holds both
    arms out, three or four of these in a random order; each gesture is held over two of
    TOMATO's samples and the hands come down to rest between. The hands are named by their
    gloves' colours, so a mirrored clip asks the same question."""

    name = "action_order"
    task = "visual_cues"
    fact = "next"
    answers = GESTURES
    question = "What does {person} do right after {anchor}?"
    objects = ("left_hand", "right_hand", "crown", "shoulder1", "shoulder2")

    def wording(self, labels: Labels) -> dict[str, str]:
        """The gesture the question names (the query's anchor), its hands by their gloves."""
        return {"anchor": gesture_words(NEXT_ANCHOR[labels.query.kind], labels)}

    def animate(self, scene: Scene, answer: str) -> None:
        rng = scene.rng
        m = int(rng.integers(3, 5))
        others = [str(g) for g in rng.permutation([g for g in GESTURES if g != answer])]
        at = int(rng.integers(1, m))  # the answer's place: never first, so it has an anchor
        seq = others[: m - 1]
        seq.insert(at, answer)
        anchor = seq[at - 1]
        # where each gesture starts, in samples: HELD intervals each, spare rest between
        spare = SAMPLES - 1 - HELD * m
        cuts = np.sort(rng.integers(0, spare + 1, size=m))
        starts = [int(c) + HELD * k for k, c in enumerate(cuts)]
        self.perform(scene, seq, starts)
        scene.ask(list(self.objects), kind=anchor)

    def perform(self, scene: Scene, seq: list[str], starts: list[int]) -> None:
        """Pose a person making gestures ``seq``, gesture k rising from sample ``starts[k]``;
        add the hand and anchor tracks and the gesture metadata (the caller asks the query)."""
        rig = Rig.start(scene, self.name)
        targets = self._targets(rig, seq, starts)
        rig.maybe_companion()
        rig.third_person(rig.frame_points(list(targets.values()), upper=True))
        for side in SIDES:
            inward = np.array([-SIDE_SIGN[side], 0.0, 0.0])
            rig.arm_to(side, targets[side], palm_toward=inward)
        for side in SIDES:
            glove = rig.look.hands[side][1]
            rig.track(f"{side}_hand", rig.hand(side), rig.hand_noun(side), glove, HAND_RADIUS)
        crown = rig.project(rig.rest_point("head") + [0.0, CROWN, 0.0])
        rig.line("crown", crown[0], crown[1], -90.0, rig.part_noun("head"), shape="anchor")
        for k, side in enumerate(SIDES):
            x, y = rig.project(rig.rest_point(f"{side}_shoulder"))
            rig.line(f"shoulder{k + 1}", x, y, 0.0, rig.part_noun("shoulder"), shape="anchor")
        scene.meta["gloves"] = {s: rig.look.hands[s][0] for s in SIDES}
        scene.meta["gestures"] = seq
        scene.meta["actor"] = rig.who
        rig.finish()

    def _targets(self, rig: Rig, seq: list[str], starts: list[int]) -> dict[str, np.ndarray]:
        """Per side, the hand's centre (T, 3): at rest, eased to each gesture's pose over one
        sample interval, held over the next, eased back to rest over the one after."""
        scene = rig.scene
        sh = {s: rig.rest_point(f"{s}_shoulder") for s in SIDES}
        mid = 0.5 * (sh["left"] + sh["right"])
        out = {}
        for side in SIDES:
            sign = SIDE_SIGN[side]
            reach = limb_reach(LIMBS[f"{side}_arm"], rig.rest, rig.hand_rest(side))[1]

            def within(
                offset: np.ndarray, k: float = REACH_SHARE, s: str = side, r: float = reach
            ) -> np.ndarray:
                d = float(np.linalg.norm(offset))
                return sh[s] + offset * min(1.0, k * r / d)

            rest = rig.rest_point(f"{side}_hip") + [sign * REST[0], *REST[1:]]
            up = within(np.array([sign * RAISED[0], *RAISED[1:]]))
            poses = {
                "left_up": up if side == "left" else rest,
                "right_up": up if side == "right" else rest,
                "both_up": up,
                "clap": mid + [sign * CLAPPED[0], *CLAPPED[1:]],
                "arms_out": within(np.array([sign * HELD_OUT[0], *HELD_OUT[1:]])),
            }
            path = np.tile(rest, (scene.n, 1))
            for g, s0 in zip(seq, starts):
                a, b, c, d = (scene.sample_frame(s0 + j) for j in range(4))
                u = _ease((scene.frames - a) / (b - a)) * (
                    1.0 - _ease((scene.frames - c) / (d - c))
                )
                delta = poses[g] - rest
                arc = 4.0 * u * (1.0 - u) * (np.linalg.norm(delta) > 1e-9)
                path = path + u[:, None] * delta + arc[:, None] * [0.0, 0.0, ARC]
            if not rig.reachable(side, path, margin=REACH_MARGIN):
                raise GenerationError(f"motion {self.name!r}: a gesture is out of reach")
            out[side] = path
        return out

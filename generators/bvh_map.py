"""Which BVH joint plays which SMPL joint: read from the skeleton's structure, not its names.

A humanoid BVH is a tree whose long branches are two pairs of mirrored limbs (legs, arms), a
spine between their two hubs and a neck-and-head chain above the arms' hub. The mapper finds
those in one pose (the rest pose from the ``OFFSET``\\ s, or a frame of the motion where the
rest is not a body: :mod:`tempogen.generators.humanoid` picks which, and refuses rigs that are
not humanoid) whatever the joints are called, and whatever extra
joints a rig adds (CMU's ``LHipJoint``, DAZ's bend/twist pairs, Unreal's twist bones, any
spine length, fingers, toes). Roles along a limb come from the mannequin's proportions: the
knee splits hip-to-ankle in two near-equal bones, the wrist ends an arm about 0.67 legs long.
Where a joint's name is a usual one (``ForeArm``, ``lowerarm``, ``Shin``, ...), it decides
among joints of the limb the structure found (so a twist joint never takes an elbow's role).
Sides come from the names when they say (``Left``, ``L_``, ``_l``, ``Bip01 L``, ...), else from
where the toes point. A YAML joint map (SMPL joint -> BVH joint) overrides any of it.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Sequence

import numpy as np

from tempogen.errors import InputFileError
from tempogen.generators.skeleton import INDEX, REST_JOINTS


class MotionImportError(InputFileError):
    """A motion file that cannot be read or mapped onto SMPL's joints (names the file)."""


class NotHumanoidError(MotionImportError):
    """A rig that is not a humanoid's (a quadruped, a crab, a snake, a bird): refused, never
    mapped onto a human body; the message reads ``"<file>: not a humanoid rig: <reason>"``."""


class SkeletonMapError(MotionImportError):
    """A humanoid-looking rig whose joints could not all be mapped. ``draft`` is the joint map
    as far as it got (SMPL joint -> BVH joint or None), ``candidates`` the BVH joints that may
    play each unknown one: ``tempogen human map`` prints them as a joint map to complete."""

    def __init__(
        self, message: str, draft: dict[str, str | None], candidates: dict[str, list[str]]
    ) -> None:
        super().__init__(message)
        self.draft, self.candidates = draft, candidates


def _dist(a: str, b: str) -> float:
    return float(np.linalg.norm(REST_JOINTS[INDEX[a]] - REST_JOINTS[INDEX[b]]))


# the mannequin's proportions, in units of its hip-to-ankle length
_LEG = _dist("left_hip", "left_ankle")
ARM = _dist("left_shoulder", "left_wrist") / _LEG
HAND = _dist("left_wrist", "left_hand") / _LEG
HEAD = _dist("spine3", "head") / _LEG
SIGNIFICANT = 0.12  # a branch shorter than this share of the skeleton's size is a detail
ANKLE_HEIGHT = 0.15  # the ankle is the first leg joint this low (share of the leg's height)
FOOT_AT = 0.7  # the toe base lies this far along the foot, ankle to tip
STRETCH = 0.1  # a root-chain bone whose length varies this share of the body's: no bone
SPINE = (INDEX["spine1"], INDEX["spine2"], INDEX["spine3"])
REQUIRED = (
    "pelvis", "left_hip", "right_hip", "left_knee", "right_knee", "left_ankle", "right_ankle",
    "left_shoulder", "right_shoulder", "left_elbow", "right_elbow", "left_wrist", "right_wrist",
)  # fmt: skip


class Unmapped(Exception):
    """The structure is not a humanoid's; the message says what was missing, ``partial``
    holds what could be mapped (SMPL joint index -> BVH node index)."""

    def __init__(self, message: str, partial: dict[int, int] | None = None) -> None:
        super().__init__(message)
        self.partial = partial or {}


class NoSpine(Unmapped):
    """Both pairs of limbs branch off one joint: no spine between their hubs."""


class Skeleton:
    """A BVH hierarchy in one pose: names, parents, which nodes are joints (not end sites),
    positions (``rest``: the file's rest pose, or frame ``frame`` of its motion); plus each
    node's children, bone length, reach (longest way down) and size. ``frames`` (T, N, 3), if
    given, holds every node's world position per frame, to map from where the rig is a body.
    ``scale`` is the body's extent in this pose, without the ``carriers`` (see :func:`carriers`):
    what counts as a limb rather than a detail does not depend on where the body walked to."""

    def __init__(
        self,
        names: list[str],
        parent: list[int],
        is_joint: list[bool],
        rest: np.ndarray,
        frames: np.ndarray | None = None,
        carried: frozenset[int] | None = None,
    ) -> None:
        self.names, self.parent, self.is_joint = names, parent, is_joint
        self.rest = np.asarray(rest, dtype=np.float64)
        self.frames = None if frames is None else np.asarray(frames, dtype=np.float64)
        self.frame: int | None = None
        n = len(names)
        self.kids: list[list[int]] = [[] for _ in range(n)]
        for i, p in enumerate(parent):
            if p >= 0:
                self.kids[p].append(i)
        if carried is None:
            carried = carriers(parent, self.kids, self.rest, self.frames)
        self.carriers = carried
        self.bone = np.array(
            [np.linalg.norm(self.rest[i] - self.rest[p]) if p >= 0 else 0.0 for i, p in
             enumerate(parent)]
        )  # fmt: skip
        self.reach = np.zeros(n)
        self.size = np.array(is_joint, dtype=int)  # joints in each subtree (not end sites)
        for i in reversed(self.preorder()):
            for c in self.kids[i]:
                self.reach[i] = max(self.reach[i], self.bone[c] + self.reach[c])
                self.size[i] += self.size[c]
        body = [i for i in range(n) if i not in carried]
        self.scale = float(np.ptp(self.rest[body], axis=0).max()) or 1.0

    def at(self, t: int) -> Skeleton:
        """The same hierarchy posed as in frame ``t`` of ``frames``."""
        assert self.frames is not None
        posed = Skeleton(
            self.names, self.parent, self.is_joint, self.frames[t], None, self.carriers
        )
        posed.frame = t
        return posed

    def preorder(self) -> list[int]:
        out, todo = [], [i for i, p in enumerate(self.parent) if p < 0]
        while todo:
            i = todo.pop()
            out.append(i)
            todo.extend(reversed(self.kids[i]))
        return out

    def ancestors(self, i: int) -> list[int]:
        """``i`` and every node above it, nearest first."""
        out = []
        while i >= 0:
            out.append(i)
            i = self.parent[i]
        return out

    def branch(self, c: int) -> float:
        """How far the branch starting with node ``c`` reaches from its parent."""
        return float(self.bone[c] + self.reach[c])

    def main_line(self, i: int) -> tuple[list[int], np.ndarray]:
        """Joints from ``i`` down its longest branch at every fork, and where that line ends."""
        joints, node = [], i
        while True:
            if self.is_joint[node]:
                joints.append(node)
            if not self.kids[node]:
                return joints, self.rest[node]
            node = max(self.kids[node], key=lambda c: (self.branch(c), -c))

    def d(self, a: int, b: int) -> float:
        return float(np.linalg.norm(self.rest[a] - self.rest[b]))


def carriers(
    parent: list[int], kids: list[list[int]], rest: np.ndarray, frames: np.ndarray | None
) -> frozenset[int]:
    """Nodes that carry the body without being part of it: going down from a root to its
    first fork, each node whose bone to the next one changes length between the rest pose and
    the frames (by more than ``STRETCH`` of the body's extent: a root left at the origin while
    position channels move the hips, as Bandai Namco's ``joint_Root`` is), and every node above
    it. Counted in a pose's size, such a root makes the limbs look like details the farther
    the body walks from it."""
    if frames is None or not len(frames):
        return frozenset()
    poses = np.concatenate([rest[None], frames])
    out: set[int] = set()
    for root in (i for i, p in enumerate(parent) if p < 0):
        chain = [root]
        while len(kids[chain[-1]]) == 1:
            chain.append(kids[chain[-1]][0])
        for k in range(len(chain) - 1, 0, -1):
            below = _subtree(kids, chain[k])
            extent = np.median(np.ptp(poses[:, below], axis=1).max(axis=1))
            bone = np.linalg.norm(poses[:, chain[k]] - poses[:, chain[k - 1]], axis=1)
            if np.ptp(bone) > STRETCH * extent:
                out.update(chain[:k])
                break
    return frozenset(out)


def _subtree(kids: list[list[int]], top: int) -> list[int]:
    out, todo = [], [top]
    while todo:
        i = todo.pop()
        out.append(i)
        todo.extend(kids[i])
    return out


def split_name(name: str) -> tuple[str, str]:
    """(side, base) of a joint's name: side is 'left', 'right' or '' as the name says
    (``LeftArm``, ``l_hip``, ``thigh_r``, ``Bip01 L Thigh``, ``lShldr``, ``mixamorig:RightHand``,
    ``upper_arm.L``); base is the rest, lower case, without separators."""
    name = re.split(r"[:|]", name)[-1]
    tokens = [t for t in re.split(r"[\s_\-.]+", name) if t and not re.fullmatch(r"(?i)bip\d*", t)]
    if not tokens:
        return "", ""
    for i in (0, -1):
        word = tokens[i].lower()
        if len(tokens) > 1 and word in ("l", "left", "r", "right"):
            del tokens[i]
            return ("left" if word[0] == "l" else "right"), "".join(tokens).lower()
    joined = "".join(tokens)
    low = joined.lower()
    for side in ("left", "right"):
        if low.startswith(side) and len(low) > len(side):
            return side, low[len(side) :]
    if len(joined) > 1 and joined[0] in "lLrR" and joined[1].isupper():
        return ("left" if joined[0] in "lL" else "right"), low[1:]
    return "", low


# what rigs call a limb's joints (base names, see split_name): where a name says, it decides the
# role within the limb the structure found; twist and helper joints match none of these
ALIASES: dict[str, tuple[str, ...]] = {
    "shoulder": ("arm", "uparm", "upperarm", "shldr", "shldrbend", "humerus"),
    "elbow": ("forearm", "lowarm", "lowerarm", "elbow", "forearmbend", "radius"),
    "wrist": ("hand", "wrist"),
    "hip": ("upleg", "upperleg", "thigh", "thighbend", "hip", "femur"),
    "knee": ("leg", "lowleg", "lowerleg", "knee", "shin", "calf", "tibia"),
    "ankle": ("foot", "ankle"),
}


def _named(sk: Skeleton, line: list[int], roles: tuple[str, ...]) -> dict[str, int]:
    """Role -> index in ``line`` of the first joint whose name is one of the role's aliases."""
    out: dict[str, int] = {}
    for k, j in enumerate(line):
        base = split_name(sk.names[j])[1]
        for role in roles:
            if role not in out and base in ALIASES[role]:
                out[role] = k
    return out


def _same_bones(sk: Skeleton, a: int, b: int, reach: float) -> bool:
    """Whether two branches' main lines start with bones of the same lengths (within 15% of
    their reach): a leg and a tail of the same reach differ here, mirrored limbs do not."""
    la, lb = sk.main_line(a)[0], sk.main_line(b)[0]
    return all(abs(sk.bone[x] - sk.bone[y]) <= 0.15 * reach for x, y in zip(la, lb))


def mirror_pairs(sk: Skeleton) -> list[tuple[int, int]]:
    """Sibling branches that mirror each other (sizes within 25%: a prop bone on one hand is
    allowed; reach within 15%; bones alike along the main line), longest first, none inside
    another's subtree."""
    pairs = []
    for i in range(len(sk.names)):
        big = [c for c in sk.kids[i] if sk.is_joint[c] and sk.branch(c) >= SIGNIFICANT * sk.scale]
        for a, b in itertools.combinations(big, 2):
            ra, rb = sk.branch(a), sk.branch(b)
            na, nb = sk.size[a], sk.size[b]
            if (
                min(na, nb) >= 0.75 * max(na, nb)
                and min(ra, rb) >= 0.85 * max(ra, rb)
                and _same_bones(sk, a, b, max(ra, rb))
            ):
                pairs.append((a, b))
    pairs.sort(key=lambda p: -(sk.branch(p[0]) + sk.branch(p[1])))
    kept: list[tuple[int, int]] = []
    for p in pairs:
        inside = any(q in sk.ancestors(m) for m in p for k in kept for q in k)
        if not inside:
            kept.append(p)
    return kept


def _best(
    candidates: Sequence[tuple[float, tuple[int, ...]]], named: dict[int, int]
) -> tuple[int, ...]:
    """The lowest score among the candidates that agree with the names (``named``: position
    in the tuple -> index the name gives), or among all if none agrees; among equal scores
    the deepest joints (zero-length joints stacked at one spot: the last turns the bone)."""
    agree = [(s, c) for s, c in candidates if all(c[p] == k for p, k in named.items())]
    pool = agree or candidates
    top = min(s for s, _ in pool)
    return max(c for s, c in pool if s <= top + 1e-9)


def _joint(limb: dict[str, int | None], role: str) -> int:
    """A joint every limb mapped has (its hip, its ankle): found, or the skeleton is refused."""
    joint = limb[role]
    if joint is None:
        raise Unmapped(f"no {role} joint")
    return joint


def _leg(sk: Skeleton, root: int, up: np.ndarray) -> dict[str, int | None]:
    """hip, knee, ankle, foot along one leg (by index into its main line)."""
    line, tip = sk.main_line(root)
    h = sk.rest[line] @ up
    low = min(float(h.min()), float(tip @ up))
    low_enough = [k for k in range(2, len(line)) if h[k] <= low + ANKLE_HEIGHT * (h[0] - low)]
    named_ankle = _named(sk, line, ("ankle",)).get("ankle")
    if named_ankle is not None and named_ankle >= 2:
        # the name decides wherever the foot is (heel up mid-step: the toe is the leg's lowest
        # joint; a leg folded up at rest: no joint is low)
        ankle: int | None = named_ankle
    else:
        ankle = next(iter(low_enough), None)
    if ankle is None:
        raise Unmapped(f"the leg below {sk.names[root]!r} has no ankle above a knee and hip")
    a = line[ankle]
    scored = []
    for i, k in itertools.combinations(range(ankle), 2):
        span = sk.d(line[i], a)
        if span > 0:
            scored.append((abs(sk.d(line[i], line[k]) - sk.d(line[k], a)) / span, (i, k)))
    if not scored:
        raise Unmapped(f"the leg below {sk.names[root]!r} is too short")
    named = _named(sk, line, ("hip", "knee"))
    hip, knee = _best(scored, {p: named[r] for p, r in enumerate(("hip", "knee")) if r in named})
    foot = None
    after = line[ankle + 1 :]
    along = np.cumsum([sk.d(p, q) for p, q in zip(line[ankle:], after)])
    total = float(along[-1] + np.linalg.norm(tip - sk.rest[after[-1]])) if after else 0.0
    if after and total > 0:
        k = int(np.argmin(np.abs(along - FOOT_AT * total)))
        foot = after[k] if along[k] > 0 else None
    return {"hip": line[hip], "knee": line[knee], "ankle": a, "foot": foot}


def _arm(sk: Skeleton, root: int, leg: float) -> dict[str, int | None]:
    """collar, shoulder, elbow, wrist, hand along one arm: upper arm and forearm near-equal,
    shoulder to wrist near the mannequin's arm-to-leg ratio."""
    line, _ = sk.main_line(root)
    scored = []
    for s, e, w in itertools.combinations(range(len(line)), 3):
        span = sk.d(line[s], line[w])
        if span > 0:
            even = abs(sk.d(line[s], line[e]) - sk.d(line[e], line[w])) / span
            scored.append((even + abs(span / leg - ARM) / ARM, (s, e, w)))
    if not scored:
        raise Unmapped(f"the arm below {sk.names[root]!r} has fewer than three joints")
    roles = ("shoulder", "elbow", "wrist")
    named = _named(sk, line, roles)
    s, e, w = _best(scored, {p: named[r] for p, r in enumerate(roles) if r in named})
    collar = None
    before = [(sk.d(line[k], line[s]), k) for k in range(s) if sk.d(line[k], line[s]) > 0]
    if before:
        # a zero-length joint at the arm's hub (a hub above the collar) yields to a bone
        before = [(d, k) for d, k in before if sk.bone[line[k]] > 0] or before
        far = max(d for d, _ in before)
        collar = line[max(k for d, k in before if d >= far - 1e-9)]
    hand = None
    after = [(abs(sk.d(line[k], line[w]) - HAND * leg), k) for k in range(w + 1, len(line))]
    if after:
        gap, k = min(after)
        if gap <= 0.5 * HAND * leg:
            hand = line[k]
    return {"collar": collar, "shoulder": line[s], "elbow": line[e], "wrist": line[w],
            "hand": hand}  # fmt: skip


def _sides(sk: Skeleton, pair: tuple[int, int], left_axis: np.ndarray | None) -> tuple[int, int]:
    """(left member, right member) of a mirrored pair: by their names, else by geometry."""
    votes = []
    for m in pair:
        said = [split_name(sk.names[j])[0] for j in sk.main_line(m)[0]]
        votes.append(max(("left", "right"), key=said.count) if any(said) else "")
    if set(votes) == {"left", "right"}:
        return pair if votes[0] == "left" else pair[::-1]
    if left_axis is None:
        raise Unmapped(
            f"cannot tell {sk.names[pair[0]]!r} from {sk.names[pair[1]]!r}: their names give "
            "no side and the feet do not point forward; name the sides in a joint map"
        )
    x = [float(sk.rest[sk.main_line(m)[0]].mean(axis=0) @ left_axis) for m in pair]
    return pair if x[0] > x[1] else pair[::-1]


def limbs(sk: Skeleton) -> tuple[tuple[int, int], tuple[int, int]]:
    """(legs, arms): the two longest pairs of mirrored limbs. The legs are the pair whose hub
    lies nearer the root (the spine climbs from the legs to the arms; any pose), else, hubs
    as deep, the pair whose tips lie farther from the other's hub."""
    pairs = mirror_pairs(sk)
    if len(pairs) < 2:
        found = "; ".join(f"{sk.names[a]}/{sk.names[b]}" for a, b in pairs) or "none"
        raise Unmapped(f"found {len(pairs)} pair(s) of mirrored limbs ({found}), a body has two")
    p, q = pairs[:2]
    hub = {k: sk.parent[k[0]] for k in (p, q)}
    if hub[p] == hub[q]:
        raise NoSpine(
            f"both pairs of limbs ({sk.names[p[0]]}/{sk.names[p[1]]}, {sk.names[q[0]]}/"
            f"{sk.names[q[1]]}) branch off {sk.names[hub[p]]!r}: no spine between them"
        )

    def tips(pair: tuple[int, int]) -> np.ndarray:
        return np.array([sk.main_line(m)[1] for m in pair])

    depth_p, depth_q = len(sk.ancestors(hub[p])), len(sk.ancestors(hub[q]))
    if depth_p != depth_q:  # the arms hang from the top of the spine, the legs below it
        return (p, q) if depth_p < depth_q else (q, p)
    # the feet lie farther from the arms' hub than the hands from the legs' hub
    far_p = np.linalg.norm(tips(p) - sk.rest[hub[q]], axis=1).mean()
    far_q = np.linalg.norm(tips(q) - sk.rest[hub[p]], axis=1).mean()
    return (p, q) if far_p >= far_q else (q, p)


def map_by_structure(sk: Skeleton, partial: dict[int, int] | None = None) -> dict[int, int]:
    """SMPL joint index -> BVH node index from the skeleton's shape (see the module doc).

    A skeleton that cannot be mapped raises ``Unmapped``; ``partial`` (if given) is filled as
    the mapping goes, so it holds whatever could be mapped (a draft joint map's known part).
    """
    mapping: dict[int, int] = {} if partial is None else partial
    legs, arms = limbs(sk)
    hub = {legs: sk.parent[legs[0]], arms: sk.parent[arms[0]]}
    up = sk.rest[hub[arms]] - sk.rest[hub[legs]]
    if not np.linalg.norm(up) > 0:
        raise Unmapped("the legs and the arms branch off the same joint: no spine")
    up /= np.linalg.norm(up)

    above_arms = sk.ancestors(hub[arms])
    pelvis = next(a for a in sk.ancestors(hub[legs]) if a in above_arms)
    mapping[INDEX["pelvis"]] = pelvis
    spine = [a for a in above_arms[: above_arms.index(pelvis)] if sk.is_joint[a]][::-1]
    for slot, j in zip(spine_slots(len(spine)), spine):
        if slot >= 0:
            mapping[slot] = j
    necks = [c for c in sk.kids[hub[arms]] if sk.is_joint[c] and c not in arms]

    problems: list[str] = []
    leg: dict[int, dict[str, int | None]] = {}
    for m in legs:
        try:
            leg[m] = _leg(sk, m, up)
        except Unmapped as exc:
            problems.append(str(exc))
    forward = np.zeros(3)
    for m in leg:
        _, tip = sk.main_line(m)
        toe = tip - sk.rest[_joint(leg[m], "ankle")]
        forward += toe - (toe @ up) * up
    left_axis = None
    if leg and np.linalg.norm(forward) > 0.02 * sk.scale:
        left_axis = np.cross(up, forward / np.linalg.norm(forward))
    if leg:
        length = float(np.mean([sk.d(_joint(r, "hip"), _joint(r, "ankle")) for r in leg.values()]))
    else:  # only to place the arms' joints in a draft: the legs' reach stands for their length
        length = float(np.mean([sk.branch(m) for m in legs]))

    for pair, kind in ((legs, "legs"), (arms, "arms")):
        try:
            sides = _sides(sk, pair, left_axis)
        except Unmapped as exc:
            problems.append(str(exc))
            continue
        for side, m in zip(("left", "right"), sides):
            roles = leg.get(m) if kind == "legs" else None
            if kind == "arms":
                try:
                    roles = _arm(sk, m, length)
                except Unmapped as exc:
                    problems.append(str(exc))
            for role, node in (roles or {}).items():
                if node is not None:
                    mapping[INDEX[f"{side}_{role}"]] = node

    if necks:
        line, _ = sk.main_line(max(necks, key=lambda c: (sk.branch(c), -c)))
        if len(line) == 1:
            mapping[INDEX["head"]] = line[0]
        else:
            mapping[INDEX["neck"]] = line[0]
            gap = [abs(sk.d(hub[arms], j) - HEAD * length) for j in line[1:]]
            mapping[INDEX["head"]] = line[1 + int(np.argmin(gap))]
    if problems:
        raise Unmapped(problems[0])
    return mapping


def spine_slots(n: int) -> list[int]:
    """Which of spine1..3 a spine chain of ``n`` joints fills, in chain order (-1: none; the
    top joint, which carries the arms, is always spine3)."""
    if n == 0:
        return []
    if n == 1:
        return [SPINE[2]]
    if n == 2:
        return [SPINE[0], SPINE[2]]
    slots = [-1] * n
    slots[0], slots[(n - 1) // 2 if n > 3 else 1], slots[-1] = SPINE
    return slots

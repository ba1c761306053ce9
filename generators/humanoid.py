"""Is a BVH rig a humanoid's, and in which pose does it map onto SMPL's joints.

The structural mapper (:mod:`tempogen.generators.bvh_map`) reads one pose. The rest pose is
tried first; where it is not a standing body (every bone along one axis, a leg folded along
the spine) evenly spaced frames of the motion are tried, and the mapping most of the
body-shaped frames agree on is kept, with the first such frame as the pose the retargeting
aligns to. A body-shaped frame gives mirrored limbs mirrored roles (a heel up mid-step must
not make one leg's toe its ankle); a frame that maps nothing is one failed try, and where no
pose maps, the error says what each pose tried showed. Where no pose is a body, a rest-pose mapping the joints' names completed is kept
(as before this module); else the rig is a :class:`SkeletonMapError` carrying a draft joint
map (what could be placed, and the candidates for the rest).

A rig is refused as not a humanoid (:class:`NotHumanoidError`), before anything renders, when:

- no joint branches into two significant limbs: a single chain (a snake, a tentacle);
- more than four mirrored limbs reach half the longest one's length (a crab, a spider, a
  centipede; fingers and toes lie inside a limb and are not counted);
- both pairs of limbs branch off one joint: no spine between the legs and the arms;
- the spine lies level between the two limb hubs, with neither pair running along it, and one
  pair hanging side by side: "four limbs reach the ground" when both pairs do (a quadruped,
  an elephant whose trunk would be taken for a head), else "no arms above the hips" (a bird,
  whose wings spread from a level body). That is read in the rest pose (an animal that rears
  up in every frame is still one), or in most of the frames tried when the rest pose maps
  nothing.

A tail, a prop on one hand, fingers, toes, IK bones or face joints leave a humanoid one. A joint
map that names every required joint (:data:`REQUIRED` and one spine joint) overrides a refusal:
the user has said which joint plays which role, and the rig is mapped as they say. Joint maps
are read (:func:`load_joint_map`), laid over the structure's answer (:func:`map_skeleton`) and
drafted for a rig that cannot be placed (:func:`draft_text`) here.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np

from tempogen.generators.bvh_map import (
    ALIASES,
    REQUIRED,
    SIGNIFICANT,
    SPINE,
    MotionImportError,
    NoSpine,
    NotHumanoidError,
    Skeleton,
    SkeletonMapError,
    Unmapped,
    limbs,
    map_by_structure,
    mirror_pairs,
    split_name,
)
from tempogen.generators.skeleton import INDEX, JOINTS, PARENTS

FRAMES_TRIED = 9  # evenly spaced frames of the motion tried when the rest pose maps nothing
ALONG = 0.5  # |cos| between a limb and the spine from which the limb runs along the spine
SIDE_BY_SIDE = 0.7  # cos between a pair's two limbs from which they hang side by side
LEG_DOWN = 0.5  # a leg hangs below the hips: cos(hip -> ankle, hips -> chest) below -LEG_DOWN
APART = 0.1  # the hips (and the shoulders) lie at least this share of a leg apart
LEG_LIKE = 0.5  # a mirrored limb this long (share of the longest) is a leg or an arm
SHOWN = 8  # candidates listed per unknown joint in a draft joint map
MIRRORED = ("hip", "knee", "ankle", "shoulder", "elbow", "wrist")  # limb roles both sides have


class _Refused(Exception):
    """The rig is not a humanoid's; the message is the reason."""


def _unit(v: np.ndarray) -> np.ndarray:
    n = float(np.linalg.norm(v))
    return v / n if n > 0 else v


def structural_refusal(sk: Skeleton) -> str | None:
    """Why the hierarchy alone is not a humanoid's (a chain, too many limbs), or None."""
    big = SIGNIFICANT * sk.scale
    joints = [i for i in range(len(sk.names)) if sk.is_joint[i]]
    forks = [
        i for i in joints if sum(sk.is_joint[c] and sk.branch(c) >= big for c in sk.kids[i]) >= 2
    ]
    if not forks:
        line = sk.main_line(joints[0])[0]
        return (
            f"a single chain of {len(line)} joints ({sk.names[line[0]]} ... "
            f"{sk.names[line[-1]]}): no limbs branch off it"
        )
    members = {m for pair in mirror_pairs(sk) for m in pair}
    longest = max((sk.branch(m) for m in members), default=0.0)
    legs = sorted(m for m in members if sk.branch(m) >= LEG_LIKE * longest)
    if len(legs) > 4:
        return (
            f"{len(legs)} mirrored limbs of leg length ({', '.join(sk.names[m] for m in legs)}): "
            "a body has four (two legs, two arms)"
        )
    return None


def level_body(sk: Skeleton, legs: tuple[int, int], arms: tuple[int, int]) -> str | None:
    """Why this pose is an animal's (a level spine, limbs hanging across it), or None."""
    hubs = sk.parent[legs[0]], sk.parent[arms[0]]
    spine = _unit(sk.rest[hubs[1]] - sk.rest[hubs[0]])
    if not spine.any():
        return None
    way = {m: _unit(sk.main_line(m)[1] - sk.rest[m]) for m in (*legs, *arms)}
    if any(all(abs(way[m] @ spine) >= ALONG for m in pair) for pair in (legs, arms)):
        return None
    hanging = [pair for pair in (legs, arms) if way[pair[0]] @ way[pair[1]] >= SIDE_BY_SIDE]

    def names(pair: tuple[int, int]) -> str:
        return f"{sk.names[pair[0]]}/{sk.names[pair[1]]}"

    level = f"the spine from {sk.names[hubs[0]]!r} to {sk.names[hubs[1]]!r} lies level"
    if len(hanging) == 2:
        return (
            f"four limbs reach the ground: two pairs of legs ({names(legs)} and {names(arms)}) "
            f"hang side by side and {level} between them"
        )
    if hanging:
        other = arms if hanging[0] == legs else legs
        return (
            f"no arms above the hips: {level} across the legs ({names(hanging[0])}), and "
            f"{names(other)} spread from it"
        )
    return None


def body_problem(sk: Skeleton, mapping: dict[int, int]) -> str | None:
    """Why this pose is not a standing body under ``mapping`` (legs below the hips, the hips
    and shoulders apart), or None: only such a pose maps a rig and aligns its retargeting."""
    p = sk.rest
    spine = [mapping[j] for j in SPINE if j in mapping]
    up = _unit(p[spine[-1]] - p[mapping[INDEX["pelvis"]]]) if spine else np.zeros(3)
    if not up.any():
        return "the spine has no length"
    ends = {
        s: (mapping[INDEX[f"{s}_hip"]], mapping[INDEX[f"{s}_ankle"]]) for s in ("left", "right")
    }
    leg = float(np.mean([np.linalg.norm(p[a] - p[h]) for h, a in ends.values()]))
    for side, (hip, ankle) in ends.items():
        if not _unit(p[ankle] - p[hip]) @ up < -LEG_DOWN:
            return f"the {side} leg does not hang below the hips"
    for part in ("hip", "shoulder"):
        gap = p[mapping[INDEX[f"left_{part}"]]] - p[mapping[INDEX[f"right_{part}"]]]
        if not np.linalg.norm(gap) >= APART * leg:
            return f"the left and right {part}s are one point"
    for role in MIRRORED:  # mirrored limbs: a role lies as deep on both (a heel up mid-step
        # makes the toe the leg's lowest joint, and one side's ankle the toe)
        left, right = (mapping.get(INDEX[f"{s}_{role}"]) for s in ("left", "right"))
        if left is not None and right is not None:
            if len(sk.ancestors(left)) != len(sk.ancestors(right)):
                return (
                    f"the left and right {role}s ({sk.names[left]}, {sk.names[right]}) lie at "
                    "different places along their limbs"
                )
    return None


def _poses(sk: Skeleton) -> Iterator[Skeleton]:
    """The rest pose, then evenly spaced frames of the motion (posed as they are asked for)."""
    yield sk
    if sk.frames is not None and len(sk.frames):
        n = len(sk.frames)
        for t in np.unique(np.linspace(0, n - 1, min(n, FRAMES_TRIED)).round().astype(int)):
            yield sk.at(int(t))


def find_mapping(sk: Skeleton) -> dict[int, int]:
    """SMPL joint index -> BVH node index, read in the rest pose or, where that is not a
    standing body, in the frames tried. Raises ``_Refused`` for a rig that is not a humanoid's
    (its rest pose, or at least half the poses tried, are an animal's: a quadruped rearing up
    in a few frames is still one), :class:`Unmapped` (with the best partial mapping) for one
    whose joints could not all be placed, saying what each pose tried showed. A pose that
    fails (limbs not found, joints not placed, not a standing body) is one failed try, never
    the end of the search: the next frame may be a body."""
    reason = structural_refusal(sk)
    if reason:
        raise _Refused(reason)
    good: list[dict[int, int]] = []
    levels: list[str] = []
    problems: list[Unmapped] = []
    shown: dict[str, list[Skeleton]] = {}  # why a pose maps nothing -> the poses it held in
    rest_mapping: dict[int, int] | None = None
    for k, pose in enumerate(_poses(sk)):
        partial: dict[int, int] = {}
        try:
            legs, arms = limbs(pose)
            level = level_body(pose, legs, arms)
            if level:
                if k == 0:
                    raise _Refused(level)
                levels.append(level)
                shown.setdefault(level, []).append(pose)
                continue
            mapping = map_by_structure(pose, partial)
        except NoSpine as exc:
            raise _Refused(str(exc)) from exc
        except Unmapped as exc:
            problems.append(Unmapped(str(exc), partial))
            shown.setdefault(str(exc), []).append(pose)
            continue
        problem = body_problem(pose, mapping)
        if problem is None:
            if k == 0:
                return mapping
            good.append(mapping)
            continue
        shown.setdefault(problem, []).append(pose)
        if k == 0:
            rest_mapping = mapping
    tried = len(levels) + len(good) + len(problems) + (rest_mapping is not None)
    if levels and 2 * len(levels) >= tried:
        raise _Refused(levels[0])
    if good:
        votes = Counter(tuple(sorted(m.items())) for m in good)
        return dict(votes.most_common(1)[0][0])  # ties: the earliest frame's
    if rest_mapping is not None:
        return rest_mapping  # the rest pose maps, though not as a standing body: as before
    best = max(problems, key=lambda e: len(e.partial), default=Unmapped(""))
    raise Unmapped(tried_poses(shown), best.partial)


def tried_poses(shown: dict[str, list[Skeleton]]) -> str:
    """What the poses tried showed, one clause per reason: ``"the rest pose: <why>; frames 0,
    34: <why>"`` (frames 0-based, as in the file's MOTION section)."""
    parts = []
    for why, poses in shown.items():
        frames = [str(p.frame) for p in poses if p.frame is not None]
        where = ["the rest pose"] if any(p.frame is None for p in poses) else []
        if frames:
            where.append(f"frame{'s' if len(frames) > 1 else ''} {', '.join(frames)}")
        parts.append(f"{' and '.join(where)}: {why}")
    return "; ".join(parts) or "no pose of the rig is a standing body"


def reference_pose(sk: Skeleton, mapping: dict[int, int]) -> Skeleton:
    """The pose the retargeting aligns to: the rest pose if it is a standing body under
    ``mapping``, else the first such frame of the motion (capture files start in the rig's
    rest or calibration pose; a frame's twist about each limb is taken as the rest's), else
    the rest pose."""
    for pose in _poses(sk):
        if body_problem(pose, mapping) is None:
            return pose
    return sk


def _covers(joint_map: dict[str, str | None] | None) -> bool:
    """Whether a joint map names every required joint and one spine joint."""
    given = {k for k, v in (joint_map or {}).items() if v is not None}
    return set(REQUIRED) <= given and any(JOINTS[j] in given for j in SPINE)


def map_skeleton(
    path: Path,
    sk: Skeleton,
    joint_map: dict[str, str | None] | None = None,
    map_path: str | Path | None = None,
) -> tuple[dict[int, int], Skeleton]:
    """SMPL joint index -> BVH node index, and the pose the retargeting aligns to: the
    structure's answer (rest pose or motion) with ``joint_map`` laid on top, checked to cover
    the body and to form SMPL's tree. A rig that is not a humanoid's is a
    :class:`NotHumanoidError` unless the joint map names every required joint; one that cannot
    be mapped is a :class:`SkeletonMapError` naming the file, what is missing and the file's
    joints, and carrying a draft joint map."""
    joints = [i for i in range(len(sk.names)) if sk.is_joint[i]]
    partial: dict[int, int] = {}
    try:
        mapping = find_mapping(sk)
        why = ""
    except _Refused as exc:
        if not _covers(joint_map):
            required = ", ".join([REQUIRED[0], "one of spine1/spine2/spine3", *REQUIRED[1:]])
            raise NotHumanoidError(
                f"{path}: not a humanoid rig: {exc}; joints in the file: "
                f"{', '.join(sk.names[i] for i in joints)}; a joint map naming every required "
                f"joint ({required}) maps it anyway"
            ) from exc
        mapping, why = {}, f" ({exc})"
    except Unmapped as exc:
        mapping, why, partial = {}, f" ({exc})", exc.partial
    for key, value in (joint_map or {}).items():
        if value is None:
            mapping.pop(INDEX[key], None)
            partial.pop(INDEX[key], None)
            continue
        node = next((i for i in joints if sk.names[i] == value), None)
        if node is None:
            raise MotionImportError(
                f"{map_path or 'joint map'}: {key}: no joint named {value!r} in {path}"
            )
        mapping[INDEX[key]] = node
    missing = [n for n in REQUIRED if INDEX[n] not in mapping]
    if not any(j in mapping for j in SPINE):
        missing.insert(1, "spine")
    if missing:
        draft = {**partial, **mapping}
        missing = [n for n in missing if n == "spine" or INDEX[n] not in draft]
        if any(j in draft for j in SPINE) and "spine" in missing:
            missing.remove("spine")
        raise SkeletonMapError(
            f"{path}: cannot map the skeleton onto SMPL's joints{why}: found no joint for "
            f"{', '.join(missing)}; joints in the file: "
            f"{', '.join(sk.names[i] for i in joints)}; name them in a joint map "
            "(YAML, SMPL joint: BVH joint; `tempogen human map` prints a draft)",
            {JOINTS[j]: (sk.names[draft[j]] if j in draft else None) for j in range(len(JOINTS))},
            candidates(sk, draft),
        )
    for j, node in mapping.items():
        k = PARENTS[j]
        while k >= 0 and k not in mapping:
            k = PARENTS[k]
        if k >= 0 and (mapping[k] == node or mapping[k] not in sk.ancestors(node)):
            raise MotionImportError(
                f"{path}: joint {sk.names[node]!r} (mapped to SMPL {JOINTS[j]}) is not below "
                f"{sk.names[mapping[k]]!r} (mapped to SMPL {JOINTS[k]}) in the hierarchy"
            )
    return mapping, reference_pose(sk, mapping)


def candidates(sk: Skeleton, known: dict[int, int]) -> dict[str, list[str]]:
    """For each SMPL joint ``known`` lacks, the BVH joints that may play it: below the joint
    playing its nearest mapped SMPL ancestor, not named for the other side, not already used;
    those whose name says the role first."""
    used = set(known.values())
    order = [i for i in sk.preorder() if sk.is_joint[i]]
    out: dict[str, list[str]] = {}
    for j, name in enumerate(JOINTS):
        if j in known:
            continue
        side, _, role = name.partition("_") if "_" in name else ("", "", name)
        if side not in ("left", "right"):
            side, role = "", name
        a = PARENTS[j]
        while a >= 0 and a not in known:
            a = PARENTS[a]
        pool = [i for i in order if i not in used]
        if a >= 0:
            pool = [i for i in pool if known[a] in sk.ancestors(sk.parent[i])]
        pool = [i for i in pool if split_name(sk.names[i])[0] in ("", side)]
        said = ALIASES.get(role, (role,))
        pool.sort(key=lambda i: split_name(sk.names[i])[1] not in said)
        out[name] = [sk.names[i] for i in pool]
    return out


def draft_text(path: str | Path, err: SkeletonMapError, joints: list[str]) -> str:
    """A draft joint map (YAML) to complete: one ``smpl_joint: "BVH joint"`` line per SMPL
    joint, those not placed ``null`` with a comment listing the joints that may play them."""
    required = set(REQUIRED) | {"spine3"}
    lines = [
        f"# DRAFT joint map for {path}: not every joint could be placed.",
        "# Replace each `null  # UNKNOWN` line's null by the BVH joint that plays it (the",
        "# required ones at least; a joint left null stays at rest), then pass this file back:",
        f"#   tempogen human map {path} --joint-map THIS.yaml",
        "# The joints given were placed by the rig's structure: check them too. spine3 is the",
        "# spine joint the arms hang from; spine1/spine2 lie below it, if any.",
        f"# joints in the file: {', '.join(joints)}",
    ]
    for name, value in err.draft.items():
        if value is not None:
            lines.append(f"{name}: {json.dumps(value)}")
            continue
        pool = err.candidates.get(name, [])
        shown = ", ".join(json.dumps(n) for n in pool[:SHOWN]) + (
            ", ..." if len(pool) > SHOWN else ""
        )
        need = "required" if name in required else "optional"
        lines.append(f"{name}: null  # UNKNOWN ({need}): pick one of {shown or '(none)'}")
    return "\n".join(lines) + "\n"


def load_joint_map(path: str | Path) -> dict[str, str | None]:
    """A YAML joint map: SMPL joint name -> BVH joint name (``null`` leaves it unmapped)."""
    from tempogen.io import load_yaml

    data, lines = load_yaml(path, "joint map")
    if not isinstance(data, dict):
        raise MotionImportError(
            f"{path}: a joint map is a mapping of SMPL joint names to BVH joint names"
        )
    out: dict[str, str | None] = {}
    for key, value in data.items():
        where = f"{path}:{lines.get(str(key), 1)}: {key}"
        if key not in INDEX:
            raise MotionImportError(f"{where}: not an SMPL joint; one of {', '.join(JOINTS)}")
        if value is not None and not isinstance(value, str):
            raise MotionImportError(f"{where}: expected a BVH joint name or null, got {value!r}")
        out[str(key)] = value
    return out


def describe(sk: Skeleton, mapping: dict[int, int]) -> dict[str, Any]:
    """The mapping by name (SMPL joint -> BVH joint), as a joint map file would hold it."""
    return {JOINTS[j]: sk.names[node] for j, node in sorted(mapping.items())}

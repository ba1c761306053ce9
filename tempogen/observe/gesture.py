"""Gestures of a person (fact ``next``), read in the body frame its anchors give (shoulder
widths), so a picture flipped, turned or zoomed reads the same."""

from __future__ import annotations

import math

import numpy as np

from tempogen.labels import Labels
from tempogen.observe.sampling import collapse

GESTURES = ("left_up", "right_up", "both_up", "clap", "arms_out")
ABOVE_HEAD = 0.1  # a raised hand: this far above the top of the head
CLAP_GAP = 0.6  # hands together: centres closer than this
CLAP_SIDE = 0.6  # ... and in front of the chest: their midpoint within this of the midline
CLAP_LOW = -1.2  # ... and no lower than this below the shoulders (a clap, not hands at rest)
OUT_SIDE = 1.3  # an arm out to the side: the hand this far from the midline ...
OUT_HEIGHT = 0.6  # ... and within this of shoulder height


def gesture_frames(labels: Labels, idx: np.ndarray) -> list[str | None]:
    """The gesture each sampled frame shows (None: rest or a pose between gestures).

    The query's objects are (left hand, right hand, top of the head, one shoulder, the other
    shoulder). The shoulders give the body's frame on screen: across (their line), up (square
    to it, towards the head) and the scale (their distance), so no threshold is in pixels and
    a picture flipped, turned or zoomed reads the same. A hand is raised above the top of the
    head by ``ABOVE_HEAD``; one hand up needs the other below the shoulders, so a pose half
    way to both hands up is no one-hand gesture.
    """
    left, right, crown, s1, s2 = (labels.track(n) for n in labels.query.objects[:5])
    out: list[str | None] = []
    for i in idx:
        a, b = np.array([s1.x[i], s1.y[i]]), np.array([s2.x[i], s2.y[i]])
        c, across = 0.5 * (a + b), b - a
        w = float(np.hypot(*across))
        if w <= 1e-9:
            out.append(None)
            continue
        u_across = across / w
        u_up = np.array([-u_across[1], u_across[0]])
        head = np.array([crown.x[i], crown.y[i]]) - c
        if head @ u_up < 0:
            u_up = -u_up
        top = float(head @ u_up) / w

        axes = np.stack([u_across, u_up]) / w
        al, bl = axes @ (np.array([left.x[i], left.y[i]]) - c)
        ar, br = axes @ (np.array([right.x[i], right.y[i]]) - c)
        up_l, up_r = bl > top + ABOVE_HEAD, br > top + ABOVE_HEAD
        gap = math.hypot(al - ar, bl - br)
        if up_l and up_r:
            g: str | None = "both_up"
        elif up_l and br < 0:
            g = "left_up"
        elif up_r and bl < 0:
            g = "right_up"
        elif up_l or up_r:
            g = None
        elif gap < CLAP_GAP and abs(al + ar) < 2 * CLAP_SIDE and min(bl, br) > CLAP_LOW:
            g = "clap"
        elif (
            al * ar < 0 and min(abs(al), abs(ar)) > OUT_SIDE and max(abs(bl), abs(br)) < OUT_HEIGHT
        ):
            g = "arms_out"
        else:
            g = None
        out.append(g)
    return out


def gestures(labels: Labels, idx: np.ndarray) -> tuple[str, ...]:
    """The gestures the sampled frames show in order: rest ignored, repeats merged."""
    return collapse([g for g in gesture_frames(labels, idx) if g is not None])


def next_gesture(labels: Labels, idx: np.ndarray) -> str | None:
    """The gesture right after the query's anchor gesture (``query.kind``). None when
    undetermined: one frame, the anchor never seen, seen last, or followed by different
    gestures at different times."""
    if len(idx) < 2:
        return None
    seq = gestures(labels, idx)
    anchor = labels.query.kind
    after = {seq[k + 1] if k + 1 < len(seq) else None for k, g in enumerate(seq) if g == anchor}
    if len(after) != 1 or None in after:
        return None
    return after.pop()

"""Recorded motion (BVH, AMASS, SMPL files) cut into windows that mocap patterns certify:
the window a clip is cut from (:mod:`.source`) and the catalogue of a config's files
(:mod:`.catalogue`), which the planner draws mocap questions from."""

from tempogen.generators.mocap.source import Source, file_sha256, register, window

__all__ = ["Source", "file_sha256", "register", "window"]

"""Procedural clips with exact ground truth: the motion registry, 2D and 3D renderers, simulated
humans, and the dataset planner. Importing the package registers the built-in motion patterns."""

from tempogen.generators import patterns  # noqa: F401  (registers the built-ins)

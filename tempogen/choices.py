"""Names that a config, the CLI and the code behind them all accept, defined once here (a module
with no imports, so ``--help`` can read them without loading the renderers)."""

from __future__ import annotations

BACKGROUNDS = ("solid", "gradient", "grid", "noise")  # painted by generators/render2d.py
EXECUTORS = ("local", "ray")  # built by tempogen.executor.make_executor

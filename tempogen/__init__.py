"""tempogen: procedural video benchmarks for visual temporal reasoning, with exact labels."""

__version__ = "0.1.0"

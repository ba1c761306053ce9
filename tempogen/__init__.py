"""tempogen: procedural video benchmarks for visual temporal reasoning, with exact labels."""

__version__ = "0.1.0"

# Version of the unified manifest's row schema (tempogen.manifest validates against it).
MANIFEST_SCHEMA_VERSION = "1.0"

"""Dataset configuration: frozen dataclasses loaded from YAML and validated on load.

An unknown key, a wrong type or an out-of-range value is a :class:`ConfigError` whose message
names the file and the field (``configs/x.yaml: style.distractors: ...``).

:mod:`~tempogen.config.schema` holds the dataclasses, their defaults and bounds;
:mod:`~tempogen.config.checks` the per-field checks; :mod:`~tempogen.config.load` the YAML
loading and validation; :mod:`~tempogen.config.costs` the cost estimate and its limits. Every
name other modules use is importable from here.
"""

from tempogen.choices import BACKGROUNDS, EXECUTORS
from tempogen.config.costs import (
    ALLOW_LARGE_ENV,
    MAX_CLIP_FRAMES,
    MAX_CPU_SECONDS,
    MAX_MEMORY,
    RATES,
    REF_PIXELS,
    Estimate,
    check_estimate,
    config_estimate,
    estimate,
)
from tempogen.config.load import config_from_dict, import_plugins, load_config
from tempogen.config.schema import (
    MAX_FPS,
    MAX_SAMPLES,
    MAX_SECONDS,
    MAX_SIDE,
    SHORTCUTS,
    ConfigError,
    DatasetConfig,
    EncodeConfig,
    ExecutorConfig,
    MocapConfig,
    RetrievalConfig,
    Scenes3DConfig,
    StyleConfig,
    VariantsConfig,
    VinogroundConfig,
)

__all__ = [
    "ALLOW_LARGE_ENV", "BACKGROUNDS", "EXECUTORS", "MAX_CLIP_FRAMES", "MAX_CPU_SECONDS", "MAX_FPS",
    "MAX_MEMORY", "MAX_SAMPLES", "MAX_SECONDS", "MAX_SIDE", "RATES", "REF_PIXELS", "SHORTCUTS",
    "ConfigError", "DatasetConfig", "EncodeConfig", "Estimate", "ExecutorConfig", "MocapConfig",
    "RetrievalConfig", "Scenes3DConfig", "StyleConfig", "VariantsConfig", "VinogroundConfig",
    "check_estimate", "config_estimate", "config_from_dict", "estimate", "import_plugins",
    "load_config",
]  # fmt: skip

"""Where and how to ask an OpenAI-compatible endpoint: the settings (arguments, the
TEMPOGEN_LLM_* environment variables, a YAML file) and their bounds."""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

from tempogen.errors import ConfigurationError, ExternalServiceError

ENV_BASE_URL = "TEMPOGEN_LLM_BASE_URL"
ENV_API_KEY = "TEMPOGEN_LLM_API_KEY"
ENV_MODEL = "TEMPOGEN_LLM_MODEL"


class LLMError(ExternalServiceError):
    """No pair could be obtained from the endpoint; the message names it."""


@dataclass(frozen=True)
class LLMConfig:
    """Where and how to ask; small delays and few attempts make tests fast."""

    base_url: str | None
    api_key: str
    model: str
    timeout: float = 60.0  # seconds for each whole request (not per socket read)
    max_attempts: int = 5
    backoff: float = 1.0
    max_backoff: float = 30.0  # the longest wait between attempts, Retry-After included
    temperature: float | None = None

    def __post_init__(self) -> None:
        for key in ("timeout", "max_attempts", "backoff", "max_backoff"):
            kind, lo, hi = LLM_FIELDS[key]
            value = getattr(self, key)
            ok = isinstance(value, int | float) and not isinstance(value, bool)
            if not ok or (kind is int and not isinstance(value, int)) or not lo <= value <= hi:
                raise ConfigurationError(
                    f"LLM setting {key}: must be within {lo:g}..{hi:g}, got {value!r}"
                )

    @property
    def endpoint(self) -> str:
        return f"{self.base_url or 'https://api.openai.com/v1'} (model {self.model})"


def resolve_config(
    base_url: str | None = None,
    api_key: str | None = None,
    model: str | None = None,
    **options: Any,
) -> LLMConfig:
    """Take each setting from the argument, else the TEMPOGEN_LLM_* environment variable.

    A key is required only for OpenAI's own endpoint; a local server gets "unused".
    """
    base_url = base_url or os.environ.get(ENV_BASE_URL) or None
    api_key = api_key or os.environ.get(ENV_API_KEY) or None
    model = model or os.environ.get(ENV_MODEL) or None
    if not model:
        raise LLMError(f"no model given: pass one or set {ENV_MODEL}")
    if not api_key:
        if not base_url:
            raise LLMError(
                f"no API key for OpenAI's endpoint: set {ENV_API_KEY}, or {ENV_BASE_URL}"
                " for a local OpenAI-compatible server"
            )
        api_key = "unused"
    url = base_url.rstrip("/") if base_url else None
    return LLMConfig(base_url=url, api_key=api_key, model=model, **options)


LLM_FIELDS = {  # YAML key -> (type, low, high); strings have no bounds
    "base_url": (str, None, None),
    "model": (str, None, None),
    "timeout": (float, 0.1, 3600.0),
    "max_attempts": (int, 1, 50),
    "backoff": (float, 0.0, 600.0),
    "max_backoff": (float, 0.0, 3600.0),
    "temperature": (float, 0.0, 2.0),
}


def load_llm_options(path: str | os.PathLike[str]) -> dict[str, Any]:
    """Endpoint settings from a YAML file (``base_url``, ``model``, ``timeout`` seconds per
    request, ``max_attempts``, ``backoff``, ``max_backoff``, ``temperature``); a wrong key or
    value is an :class:`LLMError` naming file, line and field. Keys stay out of files: the API
    key comes from the flag or ``TEMPOGEN_LLM_API_KEY``."""
    from tempogen.errors import InputFileError
    from tempogen.io import load_yaml

    try:
        data, lines = load_yaml(path, "LLM settings")
    except InputFileError as exc:
        raise LLMError(str(exc)) from exc
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise LLMError(f"{path}:1: expected a mapping of settings, got {type(data).__name__}")
    out: dict[str, Any] = {}
    for key, value in data.items():
        where = f"{path}:{lines.get(str(key), 1)}: {key}"
        if key not in LLM_FIELDS:
            raise LLMError(f"{where}: unknown setting; known: {', '.join(LLM_FIELDS)}")
        kind, lo, hi = LLM_FIELDS[key]
        if kind is str:
            if not isinstance(value, str) or not value:
                raise LLMError(f"{where}: expected text, got {value!r}")
        else:
            ok = isinstance(value, int | float) and not isinstance(value, bool)
            if not ok or (kind is int and not isinstance(value, int)):
                raise LLMError(f"{where}: expected {kind.__name__}, got {value!r}")
            if not lo <= value <= hi:
                raise LLMError(f"{where}: must be within {lo:g}..{hi:g}, got {value!r}")
        out[key] = kind(value)
    return out

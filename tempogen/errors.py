"""The errors a user can cause (bad config, bad input, unwritable output), gathered so the CLI
reports them as one line instead of a traceback."""

from __future__ import annotations

from tempogen.config import ConfigError
from tempogen.io import OutputError
from tempogen.video import VideoError


def _user_errors() -> tuple[type[BaseException], ...]:
    from tempogen.editing.clip import EditError
    from tempogen.generators.motion import GenerationError
    from tempogen.retrieval.llm import LLMError

    return (
        ConfigError,
        OutputError,
        VideoError,
        GenerationError,
        EditError,
        LLMError,
        FileNotFoundError,
        ValueError,
    )


USER_ERRORS = _user_errors()

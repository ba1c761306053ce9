"""One base for every error a user can cause, so the CLI can tell a mistake from a bug.

A :class:`TempogenError` is for the user to fix (a bad config, a broken input file, an edit
that cannot move a label soundly, an unwritable folder, a server that does not answer): the
CLI prints its message, which names the file, line or field, and exits 2. Any other exception
is a bug in tempogen: the CLI lets the traceback through and exits 1.

This module imports nothing from tempogen, so every layer can raise these errors.
"""

from __future__ import annotations

# The CLI's exit codes, one contract for every command: 0 success; 2 a user's error (bad input,
# config or arguments: one line on stderr) or a check the user asked for that failed (an audit's
# verdict on their data, as `validate` gives on a broken manifest); 1 a bug, with its
# traceback. A script tells "the data failed" (2) from "tempogen crashed" (1). 128 + n: stopped
# by signal n.
EXIT_OK, EXIT_BUG, EXIT_USER = 0, 1, 2


class TempogenError(Exception):
    """Base of the errors a user can cause and fix."""


class ConfigurationError(TempogenError, ValueError):
    """A config file, a config field or a command-line option is wrong."""

    field: str | None = None  # the config field at fault (``style.distractors``), if one is
    detail: str = ""  # the message without the file and field (to prefix the field's line)


class PluginError(ConfigurationError):
    """A plugin module a config or a manifest names cannot be imported."""


class InputFileError(TempogenError, ValueError):
    """A file tempogen reads is missing, unreadable or malformed (the message names it)."""


class OutputError(TempogenError, RuntimeError):
    """An output cannot be written (missing permission, full disk, a file where a folder goes)."""


class EditError(TempogenError, ValueError):
    """An edit op cannot be applied: a bad parameter, or a label it cannot move soundly."""


class GenerationError(TempogenError, RuntimeError):
    """A pattern could not produce a clip that passes its checks."""


class ExternalServiceError(TempogenError, RuntimeError):
    """A service outside tempogen failed: an LLM endpoint, an OpenGL context, a model file."""


class MissingFileError(InputFileError, FileNotFoundError):
    """A file or folder tempogen was told to read does not exist (the message names it)."""


class CertificationError(TempogenError, RuntimeError):
    """A built dataset fails its own certification: a blind baseline answers above chance."""

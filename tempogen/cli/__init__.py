"""The ``tempogen`` command: parses arguments, calls the library, prints. Heavy imports stay
inside the command bodies so ``tempogen --help`` is instant.

One module per command group (``build``: generate; ``edit``: edit and import; ``audit``: audit
and validate; ``evaluate``: eval; ``retrieval``: captions and retrieve; ``human``; ``listing``:
motions and formats); ``app`` assembles the parser and maps errors to exit codes.
"""

from tempogen.cli.app import build_parser, main
from tempogen.cli.options import MAX_PAIRS, MAX_TOP_K

__all__ = ["MAX_PAIRS", "MAX_TOP_K", "build_parser", "main"]

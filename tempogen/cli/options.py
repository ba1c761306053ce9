"""Options several ``tempogen`` commands share (``--plugins``, ``--executor``/``--address``),
and the limits their help names, repeated here so ``--help`` imports nothing heavy."""

from __future__ import annotations

import argparse

from tempogen.choices import EXECUTORS

MAX_PAIRS = 10_000  # retrieval.captions.MAX_PAIRS (kept here so --help stays instant)
MAX_TOP_K = 1_000  # retrieval.search.MAX_TOP_K


def plugins_option(p: argparse.ArgumentParser) -> None:
    """``--plugins MOD[,MOD...]``: plugin modules imported before the command runs."""
    from tempogen.cli.argtypes import module_names

    p.add_argument(
        "--plugins",
        type=module_names,
        default=(),
        metavar="MOD[,MOD...]",
        help="plugin modules (motion patterns, facts, ops, exports) to import before anything "
        "else; a manifest's own plugins load only when named here",
    )


def executor_options(p: argparse.ArgumentParser, default: str) -> None:
    """``--executor`` and ``--address``: where per-clip work runs (``default`` for the help)."""
    p.add_argument(
        "--executor",
        choices=EXECUTORS,
        default=None,
        help=f"where per-clip work runs: local processes or a Ray cluster (default: {default})",
    )
    p.add_argument(
        "--address",
        default=None,
        metavar="ADDR",
        help="Ray cluster to run on (HOST:PORT, auto or ray://HOST:PORT; implies --executor ray;"
        " default: a local cluster)",
    )

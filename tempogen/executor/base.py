"""What every executor shares: a :class:`Stage` (one kind of unit of work) and the
:class:`Executor` interface that runs one over many items, results in item order."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

RAY_HINT = "pip install 'tempogen[ray]'"


def _no_inputs(item: Any) -> list[str]:
    return []


@dataclass(frozen=True)
class Stage:
    """One kind of unit of work, run by an executor over many items.

    ``fn(item, out_dir)`` must be a module-level function (workers import it by name).
    ``inputs(item)``: the ``out_dir``-relative files it reads, sent to workers that do not
    share the disk. ``resumable``: ``fn`` first looks its unit up with
    :func:`tempogen.resume.lookup`, so the driver can reuse finished units without sending
    them. ``gl(item)``: the item renders with OpenGL (run in a long-lived renderer actor).
    """

    name: str
    fn: Callable[[Any, Path], Any]
    inputs: Callable[[Any], list[str]] = _no_inputs
    resumable: bool = True
    gl: Callable[[Any], bool] | None = None
    chunksize: int = 1


class Executor:
    """Runs a :class:`Stage` over items; results come back in item order."""

    name = "local"

    def imap(
        self, stage: Stage, items: Sequence[Any], out_dir: Path, plugins: Sequence[str] = ()
    ) -> Iterator[Any]:
        """``stage.fn(item, out_dir)`` for each item, in item order; ``plugins``: motion plugin
        modules a worker imports first (a forked worker has them already)."""
        raise NotImplementedError

    def close(self) -> None:
        """Release what the executor holds (a pool, a cluster connection it opened)."""

    def __enter__(self) -> Executor:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

"""Stopping a run: SIGTERM and SIGINT become :class:`Stopped` (a ``KeyboardInterrupt``) in the
driver's main thread, once, and a stop whose first raise was lost is raised again."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any


class Stopped(KeyboardInterrupt):
    """SIGTERM or SIGINT reached the driver: unwind as Ctrl-C does (pools stop, temp files
    go, the lock is released), then exit with ``128 + signum``."""

    def __init__(self, signum: int) -> None:
        import signal

        super().__init__(signal.Signals(signum).name)
        self.signum = signum


_STOPS: list[int] = []  # signals stop_on_signals took, kept in case their Stopped was lost


def check_stop() -> None:
    """Raise :class:`Stopped` again for a signal whose first raise was lost: a handler that
    fires inside a ``__del__`` or a C library's callback has its exception printed and
    dropped by Python, and the run would go on ignoring every later signal."""
    if _STOPS:
        raise Stopped(_STOPS[0])


@contextlib.contextmanager
def stop_on_signals() -> Iterator[None]:
    """Within the block, SIGTERM and SIGINT raise :class:`Stopped` in the main thread, once:
    a second signal during the clean-up is ignored, so it runs to its end."""
    import signal

    def stop(signum: int, frame: Any) -> None:
        for s in (signal.SIGTERM, signal.SIGINT):
            signal.signal(s, signal.SIG_IGN)
        _STOPS.append(signum)
        raise Stopped(signum)

    import threading

    if threading.current_thread() is not threading.main_thread():
        yield  # only the main thread may set handlers (a test calling main() from a thread)
        return
    import sys

    hook = sys.unraisablehook

    def quiet(unraisable: Any) -> None:
        # a Stopped lost in a __del__ is raised again by check_stop: printing it would put
        # a traceback under the stop's one line
        if not isinstance(unraisable.exc_value, Stopped):
            hook(unraisable)

    before = {s: signal.signal(s, stop) for s in (signal.SIGTERM, signal.SIGINT)}
    sys.unraisablehook = quiet
    _STOPS.clear()
    try:
        yield
        check_stop()  # the block ran to its end although a stop came: it still ends as one
    finally:
        _STOPS.clear()
        sys.unraisablehook = hook
        for s, handler in before.items():
            signal.signal(s, handler)

"""The ``local`` executor: a fork pool on this machine (one job: no pool at all), whose
workers leave signals to the driver and which a stop can end before cleaning up."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

from tempogen.executor.base import Executor, Stage
from tempogen.executor.stop import check_stop

_POOLS: list[Any] = []  # the live process pools, so a stop can end them before cleaning up


def _worker_init() -> None:
    """A pool worker leaves signals to its driver: Ctrl-C (sent to the whole terminal group)
    is ignored, SIGTERM (the driver's ``terminate``) ends it at once with no traceback. The
    worker was born with both blocked (:func:`process_pool`) and unblocks them only now."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, [signal.SIGINT, signal.SIGTERM])


def stop_workers() -> None:
    """Terminate every live process pool and wait for its workers to exit (a forked worker
    shares the folder lock's file, so the lock is free only once they are gone)."""
    while _POOLS:
        pool = _POOLS.pop()
        pool.terminate()
        pool.join()


@contextlib.contextmanager
def process_pool(jobs: int) -> Iterator[Any]:
    """A fork pool whose workers run OpenCV single-threaded and leave signals to the driver.

    The thread count is set in the parent just before forking (and restored after): a child
    that changes OpenCV's threads itself can deadlock on the pool state it inherited.
    SIGINT and SIGTERM are blocked while the workers fork: a stop landing between a fork and
    the worker's own handlers would otherwise run the driver's handler in the worker, which
    prints a traceback (a Ctrl-C reaches the whole group); the driver takes it on unblocking.
    """
    import multiprocessing as mp
    import signal

    import cv2

    stops = [signal.SIGINT, signal.SIGTERM]
    before = cv2.getNumThreads()
    cv2.setNumThreads(1)
    mask = signal.pthread_sigmask(signal.SIG_BLOCK, stops)
    try:
        pool = mp.get_context("fork").Pool(processes=jobs, initializer=_worker_init)
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, mask)
        cv2.setNumThreads(before)
    _POOLS.append(pool)
    try:
        with pool:
            yield pool
    finally:
        if pool in _POOLS:
            _POOLS.remove(pool)


def _call(args: tuple[Callable[[Any, Path], Any], Any, Path]) -> Any:
    fn, item, out_dir = args
    return fn(item, out_dir)


class LocalExecutor(Executor):
    """Today's build: ``jobs`` forked processes on this machine (one: no pool at all)."""

    name = "local"

    def __init__(self, jobs: int | None = None) -> None:
        self.jobs = jobs or os.cpu_count() or 1

    def imap(
        self, stage: Stage, items: Sequence[Any], out_dir: Path, plugins: Sequence[str] = ()
    ) -> Iterator[Any]:
        args = [(stage.fn, item, Path(out_dir)) for item in items]
        if self.jobs <= 1 or len(args) <= 1:
            for result in map(_call, args):
                check_stop()
                yield result
            return
        with process_pool(min(self.jobs, len(args))) as pool:
            for result in pool.imap(_call, args, chunksize=stage.chunksize):
                check_stop()
                yield result

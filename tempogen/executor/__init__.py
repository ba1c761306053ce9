"""Where per-clip work runs: a local fork pool (the default) or a Ray cluster.

A :class:`Stage` is one kind of unit: ``fn(item, out_dir)`` does one item's work (a clip, an
edited variant, a pixel check, a Vinoground pair) and writes its files under ``out_dir``
through :mod:`tempogen.resume`; every unit is fully determined by its item, so which worker
ran it never changes a byte. :meth:`Executor.imap` runs a stage over items and yields the
results in item order, as ``multiprocessing.Pool.imap`` does.

``local`` forks a process pool on this machine. ``ray`` sends units to a Ray cluster: the
driver first looks finished units up (:func:`tempogen.resume.probe`), and each worker runs the
rest in a temp folder of its own, with the inputs a unit reads sent along, and sends back its
result plus the bytes of every file it wrote; the driver writes them under ``out_dir`` and
commits each unit's record last, exactly as the unit would have (no shared disk needed). With
``shared_out`` the workers write under ``out_dir`` themselves instead (a path every node
mounts). Units that render OpenGL run in long-lived actors, so each keeps its offscreen
context warm across clips; the others run as plain tasks beside them. Ray is imported only by
the ``ray`` executor.

:mod:`~tempogen.executor.base` holds the stage and the interface, :mod:`~tempogen.executor.stop`
the signal handling, :mod:`~tempogen.executor.local` the fork pool,
:mod:`~tempogen.executor.ray_worker` and :mod:`~tempogen.executor.ray_driver` the two sides of
the ``ray`` executor; every public name is importable from here.
"""

from __future__ import annotations

from collections.abc import Sequence

from tempogen.choices import EXECUTORS
from tempogen.errors import ConfigurationError
from tempogen.executor.base import RAY_HINT, Executor, Stage
from tempogen.executor.local import LocalExecutor, process_pool, stop_workers
from tempogen.executor.ray_driver import RETRIES, RayExecutor, import_ray
from tempogen.executor.ray_worker import Outputs, run_unit
from tempogen.executor.stop import Stopped, check_stop, stop_on_signals

__all__ = [
    "EXECUTORS",
    "RAY_HINT",
    "RETRIES",
    "Executor",
    "LocalExecutor",
    "Outputs",
    "RayExecutor",
    "Stage",
    "check_stop",
    "import_ray",
    "make_executor",
    "process_pool",
    "run_unit",
    "Stopped",
    "stop_on_signals",
    "stop_workers",
]


def make_executor(
    kind: str = "local",
    jobs: int | None = None,
    address: str | None = None,
    shared_out: bool = False,
    plugins: Sequence[str] = (),
) -> Executor:
    """The executor named ``kind`` (``local`` or ``ray``); ``address`` only for ``ray``."""
    if kind == "local":
        if address:
            raise ConfigurationError(f"--address {address}: only the ray executor takes one")
        return LocalExecutor(jobs)
    if kind == "ray":
        return RayExecutor(address, jobs, shared_out, plugins)
    raise ConfigurationError(f"executor: expected one of {', '.join(EXECUTORS)}, got {kind!r}")

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
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tempogen import resume
from tempogen.errors import ConfigurationError
from tempogen.plugins import plugin_folders

__all__ = [
    "EXECUTORS",
    "RAY_HINT",
    "Executor",
    "LocalExecutor",
    "RayExecutor",
    "Stage",
    "make_executor",
    "process_pool",
    "Stopped",
    "stop_on_signals",
    "stop_workers",
]

EXECUTORS = ("local", "ray")
RAY_HINT = "pip install 'tempogen[ray]'"
RETRIES = 3  # how often Ray reruns a unit whose worker (or actor) died mid-unit


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
    before = {s: signal.signal(s, stop) for s in (signal.SIGTERM, signal.SIGINT)}
    _STOPS.clear()
    try:
        yield
        check_stop()  # the block ran to its end although a stop came: it still ends as one
    finally:
        _STOPS.clear()
        for s, handler in before.items():
            signal.signal(s, handler)


_POOLS: list[Any] = []  # the live process pools, so a stop can end them before cleaning up


def _worker_init() -> None:
    """A pool worker leaves signals to its driver: Ctrl-C (sent to the whole terminal group)
    is ignored, SIGTERM (the driver's ``terminate``) ends it at once with no traceback."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)


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
    """
    import multiprocessing as mp

    import cv2

    before = cv2.getNumThreads()
    cv2.setNumThreads(1)
    try:
        pool = mp.get_context("fork").Pool(processes=jobs, initializer=_worker_init)
    finally:
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


# ---- what a Ray worker runs -------------------------------------------------------------


@dataclass
class Outputs:
    """The files a unit wrote in a worker's temp folder, to be written again by the driver.

    ``files``: plain outputs (``out_dir``-relative path, bytes), written first. ``commits``:
    each unit record committed through :func:`tempogen.resume.commit`, with the bytes of the
    outputs it staged; the driver commits them the same way, so the record still comes last.
    """

    files: list[tuple[str, bytes]] = field(default_factory=list)
    commits: list[tuple[str, dict[str, Any], list[tuple[str, bytes]]]] = field(default_factory=list)

    @property
    def nbytes(self) -> int:
        staged = sum(len(b) for _, _, out in self.commits for _, b in out)
        return sum(len(b) for _, b in self.files) + staged

    def write(self, out_dir: Path) -> None:
        """Write every file atomically under ``out_dir``, each unit's record last."""
        from tempogen.io import write_bytes

        for rel, data in self.files:
            write_bytes(out_dir / rel, data)
        for record, row, staged in self.commits:
            for rel, data in staged:
                write_bytes(resume.staging(out_dir / rel), data)
            resume.commit(out_dir / record, row, staged=[out_dir / rel for rel, _ in staged])


_READY: dict[str, Any] = {"plugins": None}


def _prepare(plugins: tuple[str, ...], folders: tuple[str, ...]) -> None:
    """Make a fresh worker process like a forked one: plugins imported (from the folders the
    driver found them in, on a shared path), OpenCV on one thread."""
    if _READY["plugins"] == plugins:
        return
    import cv2

    cv2.setNumThreads(1)
    if plugins:
        from tempogen.plugins import load_worker_plugins

        load_worker_plugins(plugins, folders)
    _READY["plugins"] = plugins


def run_unit(
    fn: Callable[[Any, Path], Any],
    item: Any,
    shared_out: str | None,
    inputs: dict[str, bytes],
    plugins: tuple[str, ...] = (),
    folders: tuple[str, ...] = (),
) -> tuple[Any, Outputs | None]:
    """Run one unit in a worker: under ``shared_out`` itself, else in a temp folder of its own
    whose new files come back as :class:`Outputs` (the ``inputs`` are written there first)."""
    _prepare(tuple(plugins), tuple(folders))
    if shared_out is not None:
        return fn(item, Path(shared_out)), None
    with tempfile.TemporaryDirectory(prefix="tempogen-unit-") as tmp:
        root = Path(tmp)
        for rel, data in inputs.items():
            path = root / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
        with resume.journal() as committed:
            result = fn(item, root)
        return result, _collect(root, committed, set(inputs))


def _collect(
    root: Path, committed: list[tuple[Path, dict[str, Any], list[Path]]], skip: set[str]
) -> Outputs:
    """The files a unit left under ``root``: its committed records (those it did not discard
    afterwards) with their staged outputs, and every other new file."""
    out = Outputs()
    claimed = set(skip)
    for record, row, staged in committed:
        if not record.is_file() or not all(p.is_file() for p in staged):
            continue  # committed, then discarded by the unit (a variant that did not read back)
        rels = [p.relative_to(root).as_posix() for p in staged]
        out.commits.append(
            (record.relative_to(root).as_posix(), row, [(r, (root / r).read_bytes()) for r in rels])
        )
        claimed.update([record.relative_to(root).as_posix(), *rels])
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root).as_posix()
        if path.is_file() and rel not in claimed and not path.name.startswith("."):
            out.files.append((rel, path.read_bytes()))
    return out


class _UnitActor:
    """A long-lived Ray worker: its process's OpenGL context stays warm across units."""

    def run(self, *args: Any) -> tuple[Any, Outputs | None]:
        return run_unit(*args)

    def pid(self) -> int:
        return os.getpid()


# ---- the Ray driver ---------------------------------------------------------------------


def import_ray() -> Any:
    """The ``ray`` module, or a clear error saying how to install it."""
    try:
        import ray
    except ImportError as exc:
        raise ConfigurationError(
            f"the ray executor needs Ray, which is not installed: {RAY_HINT}"
        ) from exc
    return ray


class RayExecutor(Executor):
    """Units on a Ray cluster: ``address`` (``auto``, ``HOST:PORT``, ``ray://...``) or, when
    none is given and no connection is open, a local cluster of this machine's cores."""

    name = "ray"

    def __init__(
        self,
        address: str | None = None,
        jobs: int | None = None,
        shared_out: bool = False,
        plugins: Sequence[str] = (),
    ) -> None:
        ray = import_ray()
        self.ray = ray
        self.shared_out = shared_out
        self.plugins = tuple(plugins)
        self._owned = not ray.is_initialized()
        if self._owned:
            env = {k: v for k, v in os.environ.items() if k.startswith("TEMPOGEN_")}
            kwargs: dict[str, Any] = {
                "address": address,
                "include_dashboard": False,
                "log_to_driver": False,
                "runtime_env": {"env_vars": env} if env else None,
            }
            if address is None and jobs:
                kwargs["num_cpus"] = jobs
            try:
                ray.init(**kwargs)
            except ConnectionError as exc:
                raise ConfigurationError(
                    f"--address {address}: cannot connect to a Ray cluster there: {exc}"
                ) from exc
        cpus = int(ray.cluster_resources().get("CPU", 1))
        self.slots = max(1, min(jobs, cpus) if jobs else cpus)
        self.gpus = float(ray.cluster_resources().get("GPU", 0))
        self._task = ray.remote(max_retries=RETRIES, num_cpus=1)(run_unit)

    def close(self) -> None:
        if self._owned and self.ray.is_initialized():
            self.ray.shutdown()

    def _renderer_room(self) -> tuple[int, float]:
        """How many renderer actors the cluster can place at once, and each one's GPU share.

        Without GPUs: one per slot. With GPUs, renderers live on GPU nodes only, one per CPU
        there, each with the smallest GPU share every GPU node can give all its CPUs, so every
        actor asked for can be placed (an unplaceable actor would hold its units forever) and
        CPU-only nodes stay free for the plain tasks."""
        if self.gpus <= 0:
            return self.slots, 0.0
        nodes = [n["Resources"] for n in self.ray.nodes() if n.get("Alive")]
        gpu_nodes = [r for r in nodes if r.get("GPU", 0) > 0 and r.get("CPU", 0) >= 1]
        if not gpu_nodes:
            return self.slots, 0.0
        share = min(1.0, *(r["GPU"] / int(r["CPU"]) for r in gpu_nodes))
        return max(1, min(self.slots, sum(int(r["CPU"]) for r in gpu_nodes))), share

    def _actors(self, n: int, gpu_share: float) -> list[Any]:
        """``n`` renderer actors, restarted by Ray (their unit rerun) if a process dies; each
        takes ``gpu_share`` of a GPU when the cluster has any, so EGL renders on it."""
        opts: dict[str, Any] = {
            "num_cpus": 1,
            "max_restarts": RETRIES,
            "max_task_retries": RETRIES,
        }
        if gpu_share > 0:
            opts["num_gpus"] = gpu_share
        cls = self.ray.remote(**opts)(_UnitActor)
        return [cls.remote() for _ in range(n)]

    def imap(
        self, stage: Stage, items: Sequence[Any], out_dir: Path, plugins: Sequence[str] = ()
    ) -> Iterator[Any]:
        """Units that render OpenGL (``stage.gl``) go to renderer actors, the others to plain
        tasks, both in flight at once: the slots are split by how many units of each kind
        there are, and a kind whose units have all been sent hands its slots to the other
        (idle actors are stopped; more actors start once only GL units are left)."""
        ray = self.ray
        out_dir = Path(out_dir)
        items = list(items)
        done: dict[int, Any] = {}
        todo: list[int] = []
        for i, item in enumerate(items):
            if stage.resumable:
                try:
                    with resume.probe():
                        done[i] = stage.fn(item, out_dir)
                    continue
                except resume.Unfinished:
                    pass
            todo.append(i)
        shared = str(out_dir.resolve()) if self.shared_out else None
        folders = plugin_folders()
        plugins = tuple(dict.fromkeys((*self.plugins, *plugins)))

        def args(i: int) -> tuple[Any, ...]:
            item = items[i]
            sent = {} if shared else {r: (out_dir / r).read_bytes() for r in stage.inputs(item)}
            return (stage.fn, item, shared, sent, plugins, folders)

        is_gl = {i for i in todo if stage.gl is not None and stage.gl(items[i])}
        gl_units = deque(i for i in todo if i in is_gl)
        tasks = deque(i for i in todo if i not in is_gl)
        room, gpu_share = self._renderer_room()
        most = min(room, len(gl_units))  # the most actors this stage may hold at once
        first = most
        if gl_units and tasks and self.slots > 1:  # leave the plain tasks their share of slots
            share = round(self.slots * len(gl_units) / len(todo))
            first = min(most, max(1, min(self.slots - 1, share)))
        actors = self._actors(first, gpu_share) if first else []
        idle = list(actors)
        pending: dict[Any, tuple[int, Any]] = {}
        in_tasks = 0  # plain tasks in flight
        nxt = 0
        try:
            while nxt < len(items):
                if gl_units and not tasks and len(actors) < most:
                    more = self._actors(min(most - len(actors), len(gl_units)), gpu_share)
                    actors += more
                    idle += more
                while gl_units and idle:
                    i, actor = gl_units.popleft(), idle.pop()
                    pending[actor.run.remote(*args(i))] = (i, actor)
                if not gl_units and idle:  # no GL unit left for them: free their slots
                    for actor in idle:
                        ray.kill(actor)
                        actors.remove(actor)
                    idle.clear()
                while tasks and in_tasks < 2 * max(1, self.slots - len(actors)):
                    i = tasks.popleft()
                    pending[self._task.remote(*args(i))] = (i, None)
                    in_tasks += 1
                while nxt in done:
                    check_stop()
                    yield done.pop(nxt)
                    nxt += 1
                if not pending:
                    continue
                ready, _ = ray.wait(list(pending), num_returns=1)
                for ref in ready:
                    i, actor = pending.pop(ref)
                    if actor is None:
                        in_tasks -= 1
                    else:
                        idle.append(actor)
                    result, outputs = self._get(ref, stage, items[i])
                    if outputs is not None:
                        outputs.write(out_dir)
                    done[i] = result
        finally:
            for ref, (_, actor) in pending.items():
                if actor is None:  # the driver stopped early (an error, an interrupt)
                    ray.cancel(ref, force=True)
            for actor in actors:
                ray.kill(actor)

    def _get(self, ref: Any, stage: Stage, item: Any) -> tuple[Any, Outputs | None]:
        """A unit's result; the unit's own error (not Ray's wrapper) when it raised."""
        try:
            return self.ray.get(ref)
        except self.ray.exceptions.RayTaskError as exc:
            cause = getattr(exc, "cause", None)
            if isinstance(cause, BaseException):
                raise cause from None
            raise


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

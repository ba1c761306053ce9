"""The ``ray`` executor's driver: finished units looked up first, the rest sent to a Ray cluster
(OpenGL units to long-lived renderer actors, the others to plain tasks) and their files written
under ``out_dir``, each unit's record last. Ray is imported only here, when one is made."""

from __future__ import annotations

import os
from collections import deque
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from tempogen import resume
from tempogen.errors import ConfigurationError
from tempogen.executor.base import RAY_HINT, Executor, Stage
from tempogen.executor.ray_worker import Outputs, run_unit
from tempogen.executor.stop import check_stop
from tempogen.plugins import plugin_folders

RETRIES = 3  # how often Ray reruns a unit whose worker (or actor) died mid-unit


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
            got: tuple[Any, Outputs | None] = self.ray.get(ref)  # Ray is untyped
            return got
        except self.ray.exceptions.RayTaskError as exc:
            cause = getattr(exc, "cause", None)
            if isinstance(cause, BaseException):
                raise cause from None
            raise

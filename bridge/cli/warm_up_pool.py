"""Fill numba's disk cache from several processes at once (``astar-bridge warm-up``'s workers).

    report = compile_in_processes(jobs(), processes=2, command=worker_command())

numba compiles in one thread per process (a global lock), so a 2-core machine compiles the
warm-up's kernels about twice as fast in two processes. Each worker is ``warm-up --worker``: it
reads job names on stdin, one a line, runs each (:func:`python_core.warm_up_jobs.run_job`) and
answers one JSON line per job on stdout; it exits when stdin closes. The parent hands a job to a
worker when that worker is idle and the job's ``after`` jobs are done.

numba's cache is one index file per function (its signatures -> data file names) beside the data
files. Two processes saving two signatures of one function at once could both take the name
``.1.nbc`` and leave the index pointing at the other's machine code, so workers save under an
exclusive file lock (:func:`serialize_cache_writes`); without ``fcntl`` there are no workers.
"""

from __future__ import annotations

import contextlib
import importlib
import json
import selectors
import signal
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType
from typing import IO, Any, TextIO

from python_core.warm_up_jobs import WarmUpJob, run_job

__all__ = [
    "PoolReport",
    "SignatureCounter",
    "WarmUpFailedError",
    "cache_counts",
    "can_serialize_cache_writes",
    "compile_in_processes",
    "serialize_cache_writes",
    "worker_command",
    "worker_main",
]

LOCK_NAME = ".warm-up.lock"
"""The lock file, in numba's cache folder, that workers hold while saving a kernel."""


class WarmUpFailedError(RuntimeError):
    """A worker failed (its traceback is on stderr) or could not be started."""


class SignatureCounter:
    """A ``numba:compile`` listener: the python_core kernel signatures this process compiled.

    numba fires that event only when it compiles, never on a disk-cache load. Kernels of numba's
    own (the overloads of ``np.empty`` and the like) are left out: they are compiled inside ours and
    never cached on their own.
    """

    def __init__(self) -> None:
        self.compiled: list[str] = []
        self.listener = _listener(self.compiled)

    @contextlib.contextmanager
    def listening(self) -> Iterator[SignatureCounter]:
        """Count while the block runs."""
        event: Any = importlib.import_module("numba.core.event")
        event.register("numba:compile", self.listener)
        try:
            yield self
        finally:
            event.unregister("numba:compile", self.listener)

    def take(self) -> list[str]:
        """The signatures compiled since the last call."""
        taken = list(self.compiled)
        self.compiled.clear()
        return taken


def _listener(into: list[str]) -> Any:
    event: Any = importlib.import_module("numba.core.event")

    class Listener(event.Listener):  # type: ignore[misc]
        def on_start(self, happened: Any) -> None:
            function = getattr(happened.data.get("dispatcher"), "py_func", None)
            module = str(getattr(function, "__module__", ""))
            if function is not None and (module == "python_core" or module.startswith("python_core.")):
                into.append(f"{module}.{function.__qualname__}{happened.data.get('args')}")

        def on_end(self, happened: Any) -> None:
            pass

    return Listener()


def cache_counts() -> int:
    """Kernel signatures this process loaded from the disk cache (python_core's kernels)."""
    dispatcher_type: Any = importlib.import_module("numba.core.dispatcher").Dispatcher
    hits = 0
    seen: set[int] = set()
    for name, module in list(sys.modules.items()):
        if not name.startswith("python_core") or module is None:
            continue
        for value in vars(module).values():
            if isinstance(value, dispatcher_type) and id(value) not in seen:
                seen.add(id(value))
                hits += sum(value.stats.cache_hits.values())
    return hits


def can_serialize_cache_writes() -> bool:
    """Whether :func:`serialize_cache_writes` works here (POSIX ``fcntl``, numba's cache file)."""
    caching: Any = importlib.import_module("numba.core.caching")
    cache_file = getattr(caching, "IndexDataCacheFile", None)
    return sys.platform != "win32" and callable(getattr(cache_file, "save", None))


def serialize_cache_writes(folder: Path) -> None:
    """Make this process save numba cache entries only while it holds ``folder/LOCK_NAME``.

    Raises:
        WarmUpFailedError: when :func:`can_serialize_cache_writes` is false.
    """
    if not can_serialize_cache_writes():
        raise WarmUpFailedError("numba's cache cannot be locked here: warm up in one process")
    fcntl = importlib.import_module("fcntl")
    cache_file: Any = importlib.import_module("numba.core.caching").IndexDataCacheFile
    save = cache_file.save
    if getattr(save, "serialized", False):
        return
    folder.mkdir(parents=True, exist_ok=True)
    lock_path = folder / LOCK_NAME

    def locked_save(self: Any, key: Any, data: Any) -> None:
        with lock_path.open("a") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            try:
                # numba reads the index, picks a free data file name, writes both: one at a time
                save(self, key, data)
            finally:
                fcntl.flock(lock, fcntl.LOCK_UN)

    locked_save.serialized = True  # type: ignore[attr-defined]
    cache_file.save = locked_save


def worker_command() -> list[str]:
    """How to start this program's ``warm-up --worker``: ``python -m bridge``, or the frozen
    sidecar itself."""
    if getattr(sys, "frozen", False):
        return [sys.executable, "warm-up", "--worker"]
    return [sys.executable, "-m", "bridge", "warm-up", "--worker"]


def worker_main(folder: Path, requests: TextIO, answers: TextIO) -> int:
    """A worker's loop: a job name per line in, a JSON line per job out; 0 when input ends."""
    serialize_cache_writes(folder)
    counter = SignatureCounter()
    with counter.listening():
        for line in requests:
            name = line.strip()
            if not name:
                continue
            seconds = run_job(name)
            answer = {
                "job": name,
                "seconds": seconds,
                "compiled": counter.take(),
                "hits": cache_counts(),
                "cpu": time.process_time(),
            }
            answers.write(json.dumps(answer) + "\n")
            answers.flush()
    return 0


@dataclass
class PoolReport:
    """What the workers did: distinct signatures compiled, cache loads, seconds per job, and each
    worker's CPU seconds (on a loaded machine, about what it would take on a core of its own)."""

    compiled: set[str] = field(default_factory=set)
    hits: int = 0
    seconds: dict[str, float] = field(default_factory=dict)
    cpu: list[float] = field(default_factory=list)


@dataclass
class _Worker:
    process: subprocess.Popen[str]
    job: str | None = None
    hits: int = 0
    cpu: float = 0.0


def compile_in_processes(
    job_list: Sequence[WarmUpJob],
    processes: int,
    command: Sequence[str],
) -> PoolReport:
    """Run every job in ``processes`` worker processes; return what they compiled.

    Raises:
        WarmUpFailedError: a worker could not start, or exited before its job was done (the
            others are stopped).
        ValueError: ``processes < 1``.
    """
    if processes < 1:
        raise ValueError(f"processes must be >= 1, got {processes}")
    pool = _Pool(job_list)
    with _stopped_by_sigterm():
        try:
            for _ in range(min(processes, len(job_list))):
                pool.add(_start(command))
            pool.hand_out()
            while pool.busy():
                for key, _ in pool.selector.select():
                    pool.receive(key)
            return pool.finish()
        finally:
            pool.stop()


class _Pool:
    """The parent's side: workers, the jobs left and done, the answers so far."""

    def __init__(self, job_list: Sequence[WarmUpJob]) -> None:
        self.pending = list(job_list)
        self.known = {job.name for job in job_list}
        self.done: set[str] = set()
        self.report = PoolReport()
        self.workers: list[_Worker] = []
        self.selector = selectors.DefaultSelector()

    def add(self, process: subprocess.Popen[str]) -> None:
        worker = _Worker(process)
        self.workers.append(worker)
        assert process.stdout is not None
        self.selector.register(process.stdout, selectors.EVENT_READ, worker)

    def busy(self) -> bool:
        return any(worker.job is not None for worker in self.workers)

    def receive(self, key: selectors.SelectorKey) -> None:
        """Read one worker's answer (or its end), then hand out what became ready."""
        worker: _Worker = key.data
        # A worker has at most one answer outstanding (it waits for its next job), so a buffered
        # readline never hides a second line from select.
        line = worker.process.stdout.readline() if worker.process.stdout else ""
        if not line:
            self.selector.unregister(key.fileobj)
            if worker.job is None:  # closed when no job was left for it
                return
            code = worker.process.wait()
            raise WarmUpFailedError(f"the warm-up worker for {worker.job!r} exited with status {code}")
        answer = json.loads(line)
        self.report.compiled.update(answer["compiled"])
        self.report.seconds[answer["job"]] = float(answer["seconds"])
        worker.hits, worker.cpu, worker.job = int(answer["hits"]), float(answer["cpu"]), None
        self.done.add(answer["job"])
        self.hand_out()

    def hand_out(self) -> None:
        """Give each idle worker the first pending job whose ``after`` jobs are done (a job waits
        for them rather than compile their kernels a second time); close idle workers once none
        is left."""
        for worker in self.workers:
            if worker.job is not None:
                continue
            ready = next((job for job in self.pending if self._ready(job)), None)
            if ready is None:
                if not self.pending:
                    _close(worker.process.stdin)
                continue
            self.pending.remove(ready)
            worker.job = ready.name
            assert worker.process.stdin is not None
            worker.process.stdin.write(ready.name + "\n")
            worker.process.stdin.flush()

    def _ready(self, job: WarmUpJob) -> bool:
        return all(name in self.done or name not in self.known for name in job.after)

    def finish(self) -> PoolReport:
        """Every job answered: close the workers and check that they exited cleanly."""
        for worker in self.workers:
            _close(worker.process.stdin)
        for worker in self.workers:
            code = worker.process.wait()
            if code != 0:
                raise WarmUpFailedError(f"a warm-up worker exited with status {code}")
        self.report.hits = sum(worker.hits for worker in self.workers)
        self.report.cpu = [worker.cpu for worker in self.workers]
        return self.report

    def stop(self) -> None:
        """Kill what still runs (after a failure or a SIGTERM) and close the pipes."""
        self.selector.close()
        for worker in self.workers:
            if worker.process.poll() is None:
                worker.process.kill()
                worker.process.wait()
            _close(worker.process.stdout)


def _start(command: Sequence[str]) -> subprocess.Popen[str]:
    try:
        return subprocess.Popen(
            list(command), stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1
        )
    except OSError as exc:
        raise WarmUpFailedError(f"cannot start a warm-up worker ({command[0]}): {exc}") from exc


def _close(stream: IO[str] | None) -> None:
    if stream is not None and not stream.closed:
        with contextlib.suppress(OSError):
            stream.close()


@contextlib.contextmanager
def _stopped_by_sigterm() -> Iterator[None]:
    """A SIGTERM (set-up stopping a warm-up it started) stops the workers too, not just this
    process: it becomes a SystemExit, so the pool's ``finally`` runs."""

    def stop(signum: int, _frame: FrameType | None) -> None:
        raise SystemExit(128 + signum)

    try:
        previous = signal.signal(signal.SIGTERM, stop)
    except ValueError:  # not the main thread: leave signals alone
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)

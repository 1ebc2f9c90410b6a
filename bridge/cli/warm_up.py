"""``python -m bridge warm-up``: fill numba's disk cache with every kernel, showing progress.

    astar-bridge warm-up          # once after pip install: later sidecars start warm

A cold cache makes the first sidecar compile every search kernel (minutes on a small machine)
while a game waits on its first ``load_graph``. This command pays that up front, in a terminal,
in one process per CPU (:mod:`bridge.cli.warm_up_pool`): a few progress lines to stderr (``compiling
pathfinding kernels: 120 of 214 (~40 s left)``), then a summary line on stdout saying how many
kernels were loaded from the cache and how many were compiled. A second run compiles none, which
is also how a shipped bundle is checked (``astar-bridge-sidecar warm-up`` on a copy).
Exit status 0; 1 when a worker failed, or with ``--expect-cached`` when anything was compiled.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import os
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TextIO

from bridge.cli.warm_up_pool import (
    SignatureCounter,
    WarmUpFailedError,
    cache_counts,
    can_serialize_cache_writes,
    compile_in_processes,
    worker_command,
    worker_main,
)
from python_core.compiled import JIT_ENABLED
from python_core.warm_up_jobs import KERNEL_SIGNATURES, jobs, run_job

__all__ = ["Progress", "add_parser", "cache_folder", "cached_signatures", "choose_processes", "run"]

PROGRESS_EVERY = 30.0
"""Seconds between two progress lines at most (one also comes at every tenth of the kernels)."""


def cache_folder() -> Path:
    """numba's cache folder for this version of python_core (set by :mod:`python_core.compiled`)."""
    config: Any = importlib.import_module("numba").config
    return Path(config.CACHE_DIR)


def cached_signatures(folder: Path) -> int:
    """Compiled kernel signatures saved in ``folder`` (numba writes one ``.nbc`` file for each;
    every process writes there, so this counts the work of all of them)."""
    if not folder.is_dir():
        return 0
    return sum(1 for _ in folder.rglob("*.nbc"))


def choose_processes(requested: int | None, cached: int, *, jobs_count: int, frozen: bool) -> int:
    """How many processes compile: ``requested``, else one per usable CPU, and one when the cache
    already holds every kernel (loading them here is quicker than starting workers), in a frozen
    sidecar (its workers are not tested) or where numba's cache cannot be locked.

    Example:
        >>> choose_processes(None, KERNEL_SIGNATURES, jobs_count=6, frozen=False)
        1
        >>> choose_processes(9, 0, jobs_count=6, frozen=False) <= 6
        True
    """
    if requested is not None:
        processes = requested
    elif cached >= KERNEL_SIGNATURES or frozen:
        processes = 1
    else:
        processes = _usable_cpus()
    processes = max(1, min(processes, jobs_count))
    return processes if processes == 1 or can_serialize_cache_writes() else 1


def _usable_cpus() -> int:
    affinity: Callable[[int], set[int]] | None = getattr(os, "sched_getaffinity", None)
    return len(affinity(0)) if affinity is not None else os.cpu_count() or 1


class Progress:
    """The progress lines, from the count of signatures in numba's cache folder.

    Args:
        folder: numba's cache folder.
        total: the signatures a full warm-up holds (:data:`KERNEL_SIGNATURES`).
        stream: where the lines go.
        clock: seconds, monotonic (a test passes its own).
    """

    def __init__(
        self, folder: Path, total: int, stream: TextIO, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.folder, self.total, self.stream, self.clock = folder, max(1, total), stream, clock
        self.first = cached_signatures(folder)
        self.began = self.last_line = clock()
        self.tenth = self.first * 10 // self.total

    def begin(self, processes: int) -> None:
        """The first line: what is in the cache, and what happens next."""
        if self.first >= self.total:
            self._say(f"loading pathfinding kernels: {self.total} of {self.total} in the cache")
            return
        where = "in this process" if processes == 1 else f"in {processes} processes"
        self._say(
            f"compiling pathfinding kernels {where}, once per install:"
            f" {self.first} of {self.total} in the cache"
        )

    def check(self) -> None:
        """One look at the cache: a line at each new tenth, or after :data:`PROGRESS_EVERY` s."""
        count = min(cached_signatures(self.folder), self.total)
        now = self.clock()
        tenth = count * 10 // self.total
        if tenth <= self.tenth and now - self.last_line < PROGRESS_EVERY:
            return
        self.tenth, self.last_line = tenth, now
        left = self.seconds_left(count, now)
        estimate = "" if left is None else f" ({_duration(left)} left)"
        self._say(f"compiling pathfinding kernels: {count} of {self.total}{estimate}")

    def seconds_left(self, count: int, now: float) -> float | None:
        """The time the rest should take at this run's rate so far, once a twentieth is done (and
        None once all are: the workers are finishing).

        Example:
            >>> progress = Progress(Path("/nonexistent"), 200, sys.stderr, clock=lambda: 0.0)
            >>> progress.seconds_left(50, 20.0)
            60.0
            >>> progress.seconds_left(5, 20.0) is None
            True
        """
        made = count - self.first
        if made < max(3, self.total // 20) or count >= self.total:
            return None
        return (now - self.began) * max(0, self.total - count) / made

    def finish(self, seconds: float) -> None:
        """The last line: what the cache holds now."""
        count = cached_signatures(self.folder)
        shown = min(count, self.total)
        self._say(f"pathfinding kernels ready: {shown} of {self.total} in the cache, {seconds:.1f} s")

    @contextlib.contextmanager
    def watching(self, interval: float = 0.5) -> Iterator[None]:
        """Check every ``interval`` seconds on a thread while the block runs."""
        stop = threading.Event()

        def watch() -> None:
            while not stop.wait(interval):
                self.check()

        thread = threading.Thread(target=watch, name="warm-up progress", daemon=True)
        thread.start()
        try:
            yield
        finally:
            stop.set()
            thread.join()

    def _say(self, text: str) -> None:
        self.stream.write(f"[warm-up] {text}\n")
        self.stream.flush()


def _duration(seconds: float) -> str:
    """``~40 s`` or ``~3 min``: the precision an estimate has."""
    if seconds < 90:
        return f"~{max(5, round(seconds / 5) * 5)} s"
    return f"~{round(seconds / 60)} min"


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register the ``warm-up`` subcommand."""
    parser = commands.add_parser("warm-up", help="fill numba's disk cache with every kernel")
    parser.add_argument(
        "--expect-cached", action="store_true", help="exit 1 when any kernel had to be compiled"
    )
    parser.add_argument(
        "--jobs",
        type=_positive,
        default=None,
        metavar="N",
        help="compile in N processes (default: one per CPU; 1 compiles in this process)",
    )
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a number of processes >= 1, got {value}")
    return value


def run(args: argparse.Namespace) -> int:
    """Warm every kernel up; print one summary line; return the exit status."""
    if not JIT_ENABLED:
        print("warm-up: numba is disabled or missing; kernels run as plain Python, nothing to do")
        return 0
    folder = cache_folder()
    if args.worker:
        return worker_main(folder, sys.stdin, sys.stdout)
    job_list = jobs()
    progress = Progress(folder, KERNEL_SIGNATURES, sys.stderr)
    processes = choose_processes(
        args.jobs, progress.first, jobs_count=len(job_list), frozen=bool(getattr(sys, "frozen", False))
    )
    started = time.perf_counter()
    progress.begin(processes)
    try:
        with progress.watching():
            if processes == 1:
                counter = SignatureCounter()
                cpu_began = time.process_time()
                with counter.listening():
                    for job in job_list:
                        run_job(job.name)
                compiled, hits = len(set(counter.take())), cache_counts()
                cpu = [time.process_time() - cpu_began]
            else:
                report = compile_in_processes(job_list, processes, worker_command())
                compiled, hits, cpu = len(report.compiled), report.hits, report.cpu
    except WarmUpFailedError as exc:
        print(f"[warm-up] error: {exc} (its message is above)", file=sys.stderr, flush=True)
        return 1
    seconds = time.perf_counter() - started
    progress.finish(seconds)
    # CPU seconds per process: what the compile would take on an idle machine, about, when other
    # work shares the CPUs.
    print(
        f"warm-up: {hits} kernel signatures loaded from the cache, {compiled} compiled, in {seconds:.1f} s"
        f" (CPU: {' + '.join(f'{each:.0f}' for each in cpu)} s)"
    )
    return 1 if args.expect_cached and compiled else 0

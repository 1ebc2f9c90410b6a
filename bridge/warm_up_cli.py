"""``python -m bridge warm-up``: fill numba's disk cache with every kernel, showing progress.

    astar-bridge warm-up          # once after pip install: later sidecars start warm

A cold cache makes the first sidecar worker compile every search kernel (tens of seconds on a
small machine) while a game waits on its first ``load_graph``. This command pays that up front,
in a terminal: one line per kernel compiled (to stderr), then a summary line on stdout saying how
many kernels were loaded from the cache and how many were compiled. A second run compiles none,
which is also how a shipped bundle is checked (``astar-bridge-sidecar warm-up`` on a copy).
Exit status 0, or 1 with ``--expect-cached`` when anything had to be compiled.
"""

from __future__ import annotations

import argparse
import importlib
import sys
import time
from typing import Any, TextIO

from python_core.compiled import JIT_ENABLED, warm_up
from python_core.hpa.warm_up import warm_up_hierarchy

__all__ = ["add_parser", "cache_counts", "compile_counter", "run"]


def compile_counter(stream: TextIO, started: float) -> Any:
    """A numba ``numba:compile`` listener that counts compilations (``.compiled``) and names each
    on ``stream``; numba fires that event only when it compiles, never on a disk-cache load."""
    event: Any = importlib.import_module("numba.core.event")

    class CompileCounter(event.Listener):  # type: ignore[misc]
        compiled = 0

        def on_start(self, happened: Any) -> None:
            self.compiled += 1
            name = getattr(happened.data.get("dispatcher"), "__qualname__", "?")
            elapsed = time.perf_counter() - started
            stream.write(f"[warm-up] {elapsed:6.1f} s  compiling kernel {self.compiled}: {name}\n")
            stream.flush()

        def on_end(self, happened: Any) -> None:
            pass

    return CompileCounter()


def cache_counts() -> tuple[int, int]:
    """(signatures loaded from the disk cache, signatures compiled) over python_core's kernels."""
    dispatcher_type: Any = importlib.import_module("numba.core.dispatcher").Dispatcher
    hits = misses = 0
    seen: set[int] = set()
    for name, module in list(sys.modules.items()):
        if not name.startswith("python_core") or module is None:
            continue
        for value in vars(module).values():
            if isinstance(value, dispatcher_type) and id(value) not in seen:
                seen.add(id(value))
                hits += sum(value.stats.cache_hits.values())
                misses += sum(value.stats.cache_misses.values())
    return hits, misses


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register the ``warm-up`` subcommand."""
    parser = commands.add_parser("warm-up", help="fill numba's disk cache with every kernel")
    parser.add_argument(
        "--expect-cached", action="store_true", help="exit 1 when any kernel had to be compiled"
    )


def run(args: argparse.Namespace) -> int:
    """Warm every kernel up; print one summary line; return the exit status."""
    if not JIT_ENABLED:
        print("warm-up: numba is disabled or missing; kernels run as plain Python, nothing to do")
        return 0
    event: Any = importlib.import_module("numba.core.event")
    started = time.perf_counter()
    counter = compile_counter(sys.stderr, started)
    event.register("numba:compile", counter)
    try:
        print("[warm-up] search kernels (first run: about a minute)", file=sys.stderr, flush=True)
        warm_up()
        print("[warm-up] HPA* kernels", file=sys.stderr, flush=True)
        warm_up_hierarchy()
    finally:
        event.unregister("numba:compile", counter)
    hits, _misses = cache_counts()
    seconds = time.perf_counter() - started
    print(
        f"warm-up: {hits} kernel signatures loaded from the cache, {counter.compiled} compiled,"
        f" in {seconds:.1f} s"
    )
    return 1 if args.expect_cached and counter.compiled else 0

"""A probe the README run's sidecar loads (``bench/addon_roundtrip.py --probe`` puts this folder on
its PYTHONPATH): writes to the file named by ASTAR_PROBE_FILE, one line each, every full (generation
2) garbage collection, every kernel numba compiles or loads from its cache, and every time a thread
that sleeps 1 ms woke more than STALL_S late (the GIL held by another thread, or the process not
scheduled), with unix times, for the bench to set beside its rounds. Not part of the product; does
nothing without ASTAR_PROBE_FILE.

    gc2 <start> <seconds> <objects collected>
    stall <since> <seconds>
    jit <start> <seconds> <thread> <kernel>     (a kernel compiled or loaded from numba's cache)
"""

from __future__ import annotations

import gc
import os
import threading
import time
from typing import Any, TextIO

STALL_S = 0.004
"""A wake-up later than this (beyond the 1 ms asked) is written."""


def _install(out: TextIO) -> None:
    began: list[float] = [0.0]

    def on_gc(phase: str, info: dict[str, Any]) -> None:
        if info["generation"] != 2:
            return
        now = time.time()
        if phase == "start":
            began[0] = now
        else:
            out.write(f"gc2 {began[0]:.6f} {now - began[0]:.6f} {info['collected']}\n")

    def watch() -> None:
        last = time.time()
        while True:
            time.sleep(0.001)
            now = time.time()
            if now - last > 0.001 + STALL_S:
                out.write(f"stall {last:.6f} {now - last:.6f}\n")
            last = now

    gc.callbacks.append(on_gc)
    _watch_numba(out)
    threading.Thread(target=watch, name="probe", daemon=True).start()


def _watch_numba(out: TextIO) -> None:
    from numba.core.dispatcher import Dispatcher  # only when probing

    compile_one = Dispatcher.compile

    def timed(self: Any, sig: Any) -> Any:
        began = time.time()
        try:
            return compile_one(self, sig)
        finally:
            took = time.time() - began
            if took > 0.0005:  # not the lookup of a signature already in
                name = threading.current_thread().name.replace(" ", "_")
                out.write(f"jit {began:.6f} {took:.6f} {name} {self.py_func.__name__}\n")

    Dispatcher.compile = timed  # type: ignore[method-assign]


if os.environ.get("ASTAR_PROBE_FILE"):
    _install(open(os.environ["ASTAR_PROBE_FILE"], "a", buffering=1, encoding="utf-8"))  # noqa: SIM115

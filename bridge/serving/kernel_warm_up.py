"""The compiled kernels loaded on a thread when the sidecar starts, every one before the first
answer: queries and loads wait for them once (the sidecar announces itself at once). Loaded beside
a game's first rounds of requests instead, they made those rounds 2-4 frames late. Only when
numba's cache lacks a kernel (no ``warm-up`` run since an install or an edit: compiling every
kernel takes minutes) do answers start once the grid and waypoint kernels are in, the rest
compiling meanwhile.

    ready = start(asyncio.get_running_loop())   # done once the kernels are in (see above)
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import importlib
import logging
import threading
import time
from typing import Any

from python_core.compiled import FIRST_WARM_UP_MODULES, JIT_ENABLED, warm_up

__all__ = ["start"]

log = logging.getLogger("bridge.serving")


def start(loop: asyncio.AbstractEventLoop) -> asyncio.Future[float]:
    """Load every kernel on a thread; the future is done (with the seconds it took) once they are
    in, or once the grid and waypoint kernels are if another one must be compiled."""
    ready: asyncio.Future[float] = loop.create_future()
    loop.run_in_executor(None, _Loading(loop, ready).run)
    return ready


class _Loading:
    """The loading thread's work: the grid and waypoint kernels, then the rest (``warm_up`` of
    every module skips those already in), answering ``ready`` from the thread."""

    def __init__(self, loop: asyncio.AbstractEventLoop, ready: asyncio.Future[float]) -> None:
        self._loop, self._ready = loop, ready
        self._began = time.perf_counter()
        self._thread = 0
        self._first_in = False
        self._compiling = False  # a kernel was not in numba's cache

    def run(self) -> None:
        self._thread = threading.get_ident()
        try:
            with self._listening():
                log.info("grid and waypoint kernels loaded in %.2f s", warm_up(FIRST_WARM_UP_MODULES))
                self._first_in = True
                if self._compiling:
                    self._answer_now("compiling")
                warm_up()
        except Exception as error:  # any failure: the sidecar's queries report it
            log.error("the compiled kernels could not be loaded: %s", error)
            self._settle(self._ready.set_exception, error)
            return
        log.info("kernels ready in %.2f s", time.perf_counter() - self._began)
        self._answer_now("ready")
        # The compiled kernels leave ~130,000 long-lived objects that every full collection walked
        # (25 ms each on an idle machine, holding the GIL): never garbage, out of the collector's sight.
        gc.freeze()

    def _answer_now(self, why: str) -> None:
        if why == "compiling":
            log.info("numba's cache lacks kernels: answering now, compiling the rest meanwhile")
        self._settle(self._ready.set_result, time.perf_counter() - self._began)

    def _settle(self, settle: Any, value: object) -> None:
        """``settle(value)`` on the loop, unless ``ready`` is done already."""

        def once() -> None:
            if not self._ready.done():
                settle(value)

        # the loop may be closed: the server stopped before the kernels were in
        with contextlib.suppress(RuntimeError):
            self._loop.call_soon_threadsafe(once)

    def _compiles(self) -> None:
        """A kernel of this thread is about to be compiled (numba's cache lacked it)."""
        if not self._compiling:
            self._compiling = True
            if self._first_in:
                self._answer_now("compiling")

    def _listening(self) -> _Listening:
        return _Listening(self)


class _Listening:
    """Listens, while the kernels load, to numba's compile events (a kernel compiled, not loaded
    from the cache) of the loading thread."""

    KIND = "numba:compile"

    def __init__(self, loading: _Loading) -> None:
        self._loading = loading
        self._events: Any = None
        self._listener: Any = None

    def __enter__(self) -> None:
        if not JIT_ENABLED:  # without numba (ASTAR_BRIDGE_NO_JIT or not installed) nothing compiles
            return
        events: Any = importlib.import_module("numba.core.event")  # untyped: Any
        loading = self._loading

        class Listener(events.Listener):  # type: ignore[misc]
            def on_start(self, event: Any) -> None:
                if threading.get_ident() == loading._thread:
                    loading._compiles()

            def on_end(self, event: Any) -> None:
                pass

        self._events, self._listener = events, Listener()
        events.register(self.KIND, self._listener)

    def __exit__(self, *exc: object) -> None:
        if self._events is not None:
            self._events.unregister(self.KIND, self._listener)

"""The compiled kernels loaded on a thread when the sidecar starts, every one before the first
answer: queries and loads wait for them once (the sidecar announces itself at once). Loaded
beside a game's first rounds of requests instead, they made those rounds 2-4 frames late.

    ready = start(asyncio.get_running_loop())   # done once every kernel is in
"""

from __future__ import annotations

import asyncio
import functools
import gc
import logging
import time

from python_core.compiled import warm_up

__all__ = ["start"]

log = logging.getLogger("bridge.serving")


def start(loop: asyncio.AbstractEventLoop) -> asyncio.Future[float]:
    """Load every kernel on a thread; the future is done (with the seconds it took) once they
    are in."""
    ready = loop.run_in_executor(None, warm_up)
    ready.add_done_callback(functools.partial(_log_warm, time.perf_counter()))
    return ready


def _log_warm(began: float, future: asyncio.Future[float]) -> None:
    if future.cancelled():
        return
    error = future.exception()
    if error is not None:
        log.error("the compiled kernels could not be loaded: %s", error)
    else:
        log.info("kernels ready in %.2f s", time.perf_counter() - began)
    # The compiled kernels leave ~130,000 long-lived objects that every full collection walked
    # (25 ms each on an idle machine, holding the GIL): never garbage, so out of the collector's sight.
    gc.freeze()

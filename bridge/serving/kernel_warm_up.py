"""The compiled kernels loaded in the background when the sidecar starts: the grid and waypoint
kernels first (queries and loads wait for those once), then the rest, which nothing waits for.

    first = start(asyncio.get_running_loop())   # done once the grid and waypoint kernels are in
"""

from __future__ import annotations

import asyncio
import functools
import gc
import logging
import time

from python_core.compiled import FIRST_WARM_UP_MODULES, warm_up

__all__ = ["start"]

log = logging.getLogger("bridge.serving")


def start(loop: asyncio.AbstractEventLoop) -> asyncio.Future[float]:
    """Load the grid and waypoint kernels on a thread (the future is done once they are in), then
    every other kernel."""
    began = time.perf_counter()
    first = loop.run_in_executor(None, warm_up, FIRST_WARM_UP_MODULES)
    first.add_done_callback(functools.partial(_warm_rest, loop, began))
    return first


def _warm_rest(loop: asyncio.AbstractEventLoop, began: float, first: asyncio.Future[float]) -> None:
    """After the grid and waypoint kernels: log them, then load every other kernel (``began``:
    when the first phase started; the final log line counts from there)."""
    if first.cancelled():
        return
    error = first.exception()
    if error is not None:
        log.error("the compiled kernels could not be loaded: %s", error)
        return
    log.info("grid and waypoint kernels loaded in %.2f s", first.result())
    gc.freeze()  # as in _log_warm: the common graphs are served from now on
    try:
        rest = loop.run_in_executor(None, warm_up)
    except RuntimeError:  # the server stopped (stdin closed) before the first kernels were in
        return
    rest.add_done_callback(functools.partial(_log_warm, began))


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

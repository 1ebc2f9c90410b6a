"""A short busy poll after each wake-up of the event loop: the next request of a client that sends
them one after another is read at once, not after the loop's thread was put to sleep and woken.

    poll_after_wake_ups(asyncio.get_running_loop(), POLL_SECONDS, idle=lambda: not scheduler.busy)

Why: on the 2-core benchmark VM, with the client on one CPU and the sidecar on the other (a game:
Godot busy on one core), waking a sleeping sidecar cost about half of a small request's trip: an
asyncio echo answered in 67-75 us, one that polled for 1 ms after each answer in 38 us; a
hierarchical ``path.find`` on 32room_000 took 123-129 us instead of 172-195 us (bench/bridge_speed.py
--pin, section 3). The price is CPU: up to ``window`` seconds of polling after the last message
of a burst (about 3% of a core for one burst a frame at 60 frames a second at 0.5 ms), none while
the search threads have work (they would share a core with the poll) and none when idle.

Only a selector event loop can poll (Linux, macOS); on a proactor loop (Windows' default) nothing
changes.
"""

from __future__ import annotations

import asyncio
import selectors
import time
from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["POLL_SECONDS", "PollingSelector", "poll_after_wake_ups"]

POLL_SECONDS = 0.0005
"""How long the loop polls after a wake-up before it sleeps again (0 turns polling off)."""


class PollingSelector(selectors.BaseSelector):
    """``inner`` that, for ``window`` seconds after a select returned events, polls (selects with no
    wait) instead of sleeping, while ``idle()`` says no other thread of ours needs the CPU. A
    select's own timeout (the loop's next timer) is kept either way."""

    def __init__(self, inner: selectors.BaseSelector, window: float, idle: Callable[[], bool]) -> None:
        self.inner = inner
        self.window = window
        self.idle = idle
        self._until = 0.0  # poll rather than sleep until then (perf_counter)

    def select(self, timeout: float | None = None) -> list[tuple[selectors.SelectorKey, int]]:
        inner = self.inner
        if timeout is None or timeout > 0:
            began = now = time.perf_counter()
            if now < self._until and self.idle():
                end = self._until if timeout is None else min(self._until, began + timeout)
                while now < end:
                    events = inner.select(0)
                    if events:
                        self._until = time.perf_counter() + self.window
                        return events
                    now = time.perf_counter()
                if timeout is not None:
                    timeout = max(0.0, timeout - (now - began))
        events = inner.select(timeout)
        if events:
            self._until = time.perf_counter() + self.window
        return events

    # the rest as the inner selector's own
    def register(self, fileobj: Any, events: int, data: Any = None) -> selectors.SelectorKey:
        return self.inner.register(fileobj, events, data)

    def unregister(self, fileobj: Any) -> selectors.SelectorKey:
        return self.inner.unregister(fileobj)

    def modify(self, fileobj: Any, events: int, data: Any = None) -> selectors.SelectorKey:
        return self.inner.modify(fileobj, events, data)

    def get_key(self, fileobj: Any) -> selectors.SelectorKey:
        return self.inner.get_key(fileobj)

    def get_map(self) -> Mapping[Any, selectors.SelectorKey]:
        return self.inner.get_map()

    def close(self) -> None:
        self.inner.close()


def poll_after_wake_ups(loop: asyncio.AbstractEventLoop, window: float, idle: Callable[[], bool]) -> bool:
    """Make ``loop`` poll for ``window`` seconds after each wake-up (see :class:`PollingSelector`);
    False when it cannot (not a selector loop, or ``window`` is 0)."""
    inner = getattr(loop, "_selector", None)  # asyncio's selector loops keep theirs there
    if window <= 0 or not isinstance(inner, selectors.BaseSelector):
        return False
    loop._selector = PollingSelector(inner, window, idle)  # type: ignore[attr-defined]
    return True

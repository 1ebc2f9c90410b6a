"""A socket watched busily for a moment before a blocking wait, on either end of the connection.

    spin = IdleSpin(sock.fileno(), SPIN_SECONDS)
    spin.watch()   # True as soon as the socket is readable; False after SPIN_SECONDS

Where an idle CPU sleeps (a virtual machine's halted vCPU, a laptop's deep C-state), a message
that reaches a process asleep in ``epoll_wait`` or ``recv`` waits for its CPU to wake. A game's
synchronous ``find_path`` polls its own socket without sleeping (``rpc_client.gd``), so only the
sidecar's side paid it, on every call of a series. On this project's 2-core VM, 3,000 one-step
``path.find`` calls in a row from a Python client took 90-106 us each when the client and the
sidecar ran on different CPUs, and 25-32 us when the scheduler put them on one. Watching the
sidecar's socket for :data:`SPIN_SECONDS` after each answer took the different-CPU case to
58-64 us, and watching the client's before its ``recv`` as well to 20 us. The one-CPU case stays
at 25-29 us, because each turn of a watch yields the CPU (``os.sched_yield``) to the process that
shares it.

:class:`~bridge.serving.connection.ClientProtocol` watches only after a request read whole and
answered at once, with no other connection open and nothing pending on its own, so no other
client waits behind the watch, and the search threads have no answer to hand back meanwhile.
:class:`~bridge.client.rpc.RpcConnection` watches before each read that would block. A watch
costs at most its length in CPU time (0.2 ms: about 1% of a core for one request a frame at 60
fps). ``serve --spin-us 0`` and ``RpcConnection(sock, spin=0)`` turn them off. Systems without
``poll`` (Windows) do not watch.
"""

from __future__ import annotations

import os
import select
import time

__all__ = ["SPIN_SECONDS", "IdleSpin"]

SPIN_SECONDS = 0.0002
"""How long a socket is watched before a blocking wait (``serve --spin-us``): the gap between a
game's synchronous calls in a row, and a short answer's trip, are a few tens of microseconds."""

_YIELD = getattr(os, "sched_yield", lambda: time.sleep(0))


class IdleSpin:
    """Busy watching of one socket for :attr:`seconds` (``0``: never)."""

    __slots__ = ("_poll", "seconds")

    def __init__(self, fd: int, seconds: float) -> None:
        self.seconds = seconds
        self._poll = select.poll() if seconds > 0 and hasattr(select, "poll") else None
        if self._poll is not None:
            self._poll.register(fd, select.POLLIN)

    def watch(self) -> bool:
        """Until the socket is readable (or has hung up), at most :attr:`seconds`: whether it is.
        The event loop then reads it on its next turn without sleeping in between."""
        poll = self._poll
        if poll is None:
            return False
        end = time.perf_counter() + self.seconds
        while not poll.poll(0):
            if time.perf_counter() >= end:
                return False
            _YIELD()  # a client on the same CPU runs now, not after the watch
        return True

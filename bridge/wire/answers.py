"""Answer sizes: a request's answer is counted while it is built and refused past a cap, and a large
one leaves already encoded (packed off the event loop).

    budget = AnswerBudget(1 << 20, "path.find_packed")
    budget.add(4096)                          # TooLargeError once the total passes the cap
    answer = Encoded(pack({"found": 3}))      # the session adds only the response's header
    assert step_queries(1_000_000, 64 << 20) == 1 and step_queries(10, 64 << 20) > 10**5

Why: an answer is built before it is sent, so a small request (30 queries along a 1M-cell corridor,
one tile id named 100,000 times) could make the sidecar build gigabytes for a peer that never
reads them. Each request's answer is therefore counted as its pieces finish, and the pieces are
small enough that even their worst case stays near the cap.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass

from bridge.wire.errors import TooLargeError

__all__ = [
    "BYTES_PER_PATH_CELL",
    "PACK_OFF_LOOP_BYTES",
    "AnswerBudget",
    "Encoded",
    "InFlight",
    "step_queries",
]

BYTES_PER_PATH_CELL = 48
"""What one cell of a path may take while a batch is answered: the search's float64 point and int64
node, the batch's copies of them, and the wire's float32 point and int64 node."""

PACK_OFF_LOOP_BYTES = 1 << 20
"""Answers larger than this are encoded on a thread: packing 64 MiB holds the loop for tens of ms."""


class InFlight:
    """Bytes of every answer being built at once, against one cap (answers of many clients built at
    the same time must not take the sidecar past it either, each under its own cap).

    Args:
        cap: the most bytes all answers under construction may take together.
    """

    def __init__(self, cap: int) -> None:
        self.cap = cap
        self.total = 0
        self.lock = threading.Lock()


class AnswerBudget:
    """The bytes of one request's answer so far, added to from any thread.

    Args:
        cap: the most bytes the answer may take (the server's ``max_answer_bytes``).
        where: the method, for the error message.
        shared: the answers being built for every client, when they are counted together; call
            :meth:`release` once this answer is sent or refused.
    """

    def __init__(self, cap: int, where: str, shared: InFlight | None = None) -> None:
        if cap < 1:
            raise ValueError(f"an answer budget must be positive, got {cap}")
        self.cap, self.where, self.shared = cap, where, shared
        self.total = 0
        self.exceeded = False  # read without the lock by other pieces: at worst one more runs
        self._busy = False  # the shared total passed its cap
        self._lock = threading.Lock()

    def add(self, nbytes: int) -> None:
        """Count ``nbytes`` more.

        Raises:
            TooLargeError: the answer passes the cap (now or before), or every answer being built
                passes the shared cap.
        """
        shared = self.shared
        with self._lock:
            self.total += nbytes
            if self.total > self.cap:
                self.exceeded = True
            if shared is not None:
                with shared.lock:
                    shared.total += nbytes
                    if shared.total > shared.cap:
                        self.exceeded = self._busy = True
        self.check()

    def release(self) -> None:
        """This answer is sent or refused: its bytes no longer count in the shared total."""
        shared = self.shared
        if shared is None:
            return
        with self._lock, shared.lock:
            shared.total -= self.total
            self.total = 0
            self.shared = None

    def check(self) -> None:
        """Raise ``too_large`` when the answer already passed a cap (a piece need not start).

        Raises:
            TooLargeError: as :meth:`add`.
        """
        if self._busy and self.shared is not None:
            raise TooLargeError(
                f"{self.where}: the answers being built for every client would pass "
                f"{self.shared.cap} bytes (the server's max_answer_bytes); ask again in a moment",
                {"limit": self.shared.cap},
            )
        if self.exceeded:
            raise TooLargeError(
                f"{self.where}: the answer would pass {self.cap} bytes (the server's max_answer_bytes); "
                "ask for fewer or shorter results at a time",
                {"limit": self.cap},
            )


@dataclass(frozen=True, slots=True)
class Encoded:
    """A result map already encoded as msgpack: sent after the response's header as it is, or as
    the pieces it is made of, in order (written together, never joined into one buffer)."""

    data: bytes | list[bytes | memoryview]

    def joined(self) -> bytes:
        """The encoded result as one ``bytes`` (its pieces joined).

        Example:
            >>> Encoded([b"ab", memoryview(b"cd")]).joined()
            b'abcd'
        """
        return self.data if isinstance(self.data, bytes) else b"".join(self.data)


def step_queries(node_count: int, step_bytes: int) -> int:
    """How many queries on a graph of ``node_count`` nodes may be searched together so that their
    paths take at most ``step_bytes`` even if each visits every node (at least one)."""
    return max(1, step_bytes // max(1, node_count * BYTES_PER_PATH_CELL))

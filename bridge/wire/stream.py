"""Bytes <-> msgpack messages on an unframed stream, every limit checked before anything is built.

Modelled on msgpack-python's ``Unpacker.feed()`` + iteration: feed whatever the socket gave, take
the whole messages out, an incomplete tail waits for more bytes. ``limits`` may change between two
messages (the server widens them once a connection has said hello).

    from bridge.wire.stream import MessageStream, StreamLimits, pack
    stream = MessageStream(StreamLimits(max_bytes=1024, max_depth=4, max_items=64))
    data = pack([0, 1, "hello", [{}]])
    stream.feed(data[:3]); assert list(stream) == []
    stream.feed(data[3:]); assert list(stream) == [[0, 1, "hello", [{}]]]
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import msgpack

__all__ = ["NOT_WHOLE", "READ_CHUNK", "MessageStream", "StreamError", "StreamLimits", "pack"]

READ_CHUNK = 64 * 1024
"""Bytes asked of the socket per read; the buffer holds at most one message plus one chunk."""


class StreamError(ValueError):
    """The byte stream cannot be decoded (bad bytes, a limit passed...): the connection is closed."""


@dataclass(frozen=True, slots=True)
class StreamLimits:
    """What one message may be.

    Attributes:
        max_bytes: its encoded size.
        max_depth: nesting of arrays and maps (a scalar alone is depth 0, ``[[1]]`` depth 2).
        max_items: decoded values: every array element, map key and map value, plus the message.
    """

    max_bytes: int
    max_depth: int
    max_items: int
    fast_bytes: int = field(init=False, repr=False, compare=False)
    """Messages up to this size are decoded without the header scan (``MessageStream``): so few
    bytes cannot pass the size or item limits. Set once: every request reads it."""

    def __post_init__(self) -> None:
        if min(self.max_bytes, self.max_depth, self.max_items) < 1:
            raise ValueError(f"stream limits must be positive, got {self}")
        object.__setattr__(self, "fast_bytes", min(FAST_BYTES, self.max_bytes, self.max_items))


def pack(message: Any) -> bytes:
    """Encode one message (``use_bin_type`` so bytes travel as ``bin``, str as ``str``)."""
    data: bytes = msgpack.packb(message, use_bin_type=True)
    return data


def _first_byte_tables() -> tuple[list[int], list[int], list[int]]:
    """Per first byte of a msgpack value: its whole size when fixed (0 when not), the bytes of its
    length field, and what the length counts (0 body bytes, 1 array items, 2 map entries,
    3 ext body bytes after a type byte). 0xc1 is never valid: fixed size 0, length field -1."""
    fixed, length_bytes, counts = [0] * 256, [-1] * 256, [0] * 256
    for b in [*range(0x00, 0x80), *range(0xE0, 0x100), 0xC0, 0xC2, 0xC3]:
        fixed[b] = 1  # fixints, nil, false, true
    for b in range(0xA0, 0xC0):
        fixed[b] = 1 + (b & 0x1F)  # fixstr
    sizes = {0xCC: 2, 0xCD: 3, 0xCE: 5, 0xCF: 9, 0xD0: 2, 0xD1: 3, 0xD2: 5, 0xD3: 9, 0xCA: 5, 0xCB: 9}
    sizes |= {0xD4: 3, 0xD5: 4, 0xD6: 6, 0xD7: 10, 0xD8: 18}  # fixext 1/2/4/8/16
    for b, size in sizes.items():
        fixed[b] = size
    for b in range(0x80, 0xA0):  # fixmap, fixarray: the count is in the byte itself
        length_bytes[b], counts[b] = 0, 2 if b < 0x90 else 1
    for b, (width, what) in {
        0xC4: (1, 0), 0xC5: (2, 0), 0xC6: (4, 0),  # bin 8/16/32
        0xD9: (1, 0), 0xDA: (2, 0), 0xDB: (4, 0),  # str 8/16/32
        0xC7: (1, 3), 0xC8: (2, 3), 0xC9: (4, 3),  # ext 8/16/32
        0xDC: (2, 1), 0xDD: (4, 1), 0xDE: (2, 2), 0xDF: (4, 2),  # array 16/32, map 16/32
    }.items():  # fmt: skip
        length_bytes[b], counts[b] = width, what
    return fixed, length_bytes, counts


_FIXED, _LENGTH_BYTES, _COUNTS = _first_byte_tables()

FAST_BYTES = 16 * 1024
"""Largest message decoded without the header scan (a game's queries and answers are far smaller)."""
_CONTAINER_BYTES = bytes(
    1 if 0x80 <= b <= 0x9F or 0xDC <= b <= 0xDF else 0 for b in range(256)
)  # first bytes of arrays and maps: their count bounds the depth
_INCOMPLETE = object()
NOT_WHOLE: Any = _INCOMPLETE
"""What :meth:`MessageStream.decode_whole` returns when the bytes must be fed instead."""


class MessageStream:
    """A streaming decoder of one connection's incoming bytes.

    A message is scanned header by header as its bytes arrive, without building anything: each
    declared length, the nesting depth and the item count are checked against ``limits`` when a
    header is read, so a 4 GB header or 64 MiB of nested empty arrays is refused after a few bytes
    and costs only its own bytes. Only a complete message within every limit is decoded.

    Args:
        limits: the limits of the next message; assign ``limits`` to change them between messages.
    """

    def __init__(self, limits: StreamLimits) -> None:
        self.limits = limits
        self._buffer = bytearray()
        self._start = 0  # the current message's first byte in _buffer
        self._pos = 0  # the next header to scan
        self._open: list[int] = []  # values still to come in each open array or map, innermost last
        self._items = 1
        self._broken = False

    @property
    def pending_bytes(self) -> int:
        """Bytes received and not yet returned as a message (0 between messages)."""
        return len(self._buffer) - self._start

    def feed(self, data: bytes) -> None:
        """Add bytes; iterate the stream for the messages they complete.

        Raises:
            StreamError: the stream already failed.
        """
        if self._broken:
            raise StreamError("stream already failed")
        if self._start:
            del self._buffer[: self._start]
            self._pos -= self._start
            self._start = 0
        self._buffer += data

    def decode_whole(self, data: bytes) -> Any:
        """The one small message ``data`` holds, decoded straight from it when nothing is buffered
        (the usual read of a game's request: no copy into the buffer and out); :data:`NOT_WHOLE`
        when it is not exactly one whole message within the limits' fast size, or it might pass a
        limit: then :meth:`feed` it, and the scan decides as for any other bytes."""
        if self._broken or self._start != len(self._buffer) or len(data) > self.limits.fast_bytes:
            return NOT_WHOLE
        if data.translate(_CONTAINER_BYTES).count(1) > self.limits.max_depth:
            return NOT_WHOLE  # maybe too deep: the scan measures it exactly
        try:
            return msgpack.unpackb(data, raw=False, strict_map_key=True)
        except Exception:  # incomplete, several messages, or bad bytes: fed, they get the scan's answer
            return NOT_WHOLE

    def __iter__(self) -> Iterator[Any]:
        return self

    def __next__(self) -> Any:
        """The next whole message.

        Raises:
            StopIteration: no whole message is buffered (an incomplete tail waits).
            StreamError: the bytes cannot be decoded or break a limit; the stream stays broken.
        """
        if self._broken or self._start == len(self._buffer):  # nothing buffered: no decode attempt
            raise StopIteration
        if self._pos == self._start and self.pending_bytes <= self.limits.fast_bytes:
            whole = self._decode_small()
            if whole is not _INCOMPLETE:
                return whole
        try:
            end = self._scan()
        except StreamError:
            self._broken = True
            raise
        if end is None:
            if self.pending_bytes > self.limits.max_bytes:
                self._fail(f"a message passes {self.limits.max_bytes} bytes")
            raise StopIteration
        data = bytes(self._buffer[self._start : end])
        self._start, self._pos, self._items = end, end, 1
        try:
            return msgpack.unpackb(data, raw=False, strict_map_key=True)
        except Exception as exc:  # bad UTF-8, a non-string map key...: the stream ends
            self._broken = True
            raise StreamError(f"undecodable message: {type(exc).__name__}: {str(exc)[:200]}") from exc

    def _decode_small(self) -> Any:
        """The next message decoded straight from the buffer, when it is small enough that no
        header in it could pass a limit: at most ``fast_bytes`` bytes can hold at most that many
        values, and fewer container headers than ``max_depth`` cannot nest deeper than that. Returns
        ``_INCOMPLETE`` when the buffer does not start with exactly one whole message (then the
        scan decides, as for any other message)."""
        data = bytes(self._buffer[self._start :])
        if data.translate(_CONTAINER_BYTES).count(1) > self.limits.max_depth:
            return _INCOMPLETE  # maybe too deep: the scan measures it exactly
        try:
            message = msgpack.unpackb(data, raw=False, strict_map_key=True)
        except msgpack.ExtraData as extra:  # several messages in one read: the first one only
            message = extra.unpacked
            end = len(self._buffer) - len(extra.extra)
        except Exception:  # incomplete, or bad bytes: the scan tells which, with its error
            return _INCOMPLETE
        else:
            end = len(self._buffer)
        self._start, self._pos, self._items = end, end, 1
        return message

    def _fail(self, why: str) -> None:
        self._broken = True
        raise StreamError(why)

    def _scan(self) -> int | None:
        """Scan headers from ``_pos``; the end of the current message, or None while incomplete."""
        buffer, size, pos, open_ = self._buffer, len(self._buffer), self._pos, self._open
        limit_end = self._start + self.limits.max_bytes
        while pos < size:
            fixed = _FIXED[buffer[pos]]
            if fixed:  # the common case, kept inline: a scalar of known size
                if pos + fixed > size:
                    break
                pos += fixed
                if pos > limit_end:
                    raise StreamError(f"a message passes {self.limits.max_bytes} bytes")
            else:
                after = self._variable(pos, size, limit_end)
                if after is None:
                    break
                pos, opened = after
                if opened:
                    continue
            # one value is complete: close every container it completes
            while open_:
                open_[-1] -= 1
                if open_[-1]:
                    break
                open_.pop()
            if not open_:
                return pos
        self._pos = pos
        return None

    def _variable(self, pos: int, size: int, limit_end: int) -> tuple[int, bool] | None:
        """The header at ``pos`` with a length field: where the next value starts and whether an
        array or map was opened; None while the header (or a bin/str/ext body) is incomplete."""
        first, limits = self._buffer[pos], self.limits
        width = _LENGTH_BYTES[first]
        if width < 0:
            raise StreamError(f"byte 0x{first:02x} is not msgpack")
        if pos + 1 + width > size:
            return None
        count = int.from_bytes(self._buffer[pos + 1 : pos + 1 + width], "big") if width else first & 0x0F
        what = _COUNTS[first]
        if what in (1, 2):  # an array or a map: checked before any of its values arrives
            count *= what
            if len(self._open) >= limits.max_depth:
                raise StreamError(f"a message nests deeper than {limits.max_depth}")
            self._items += count
            if self._items > limits.max_items:
                raise StreamError(f"a message holds more than {limits.max_items} items")
            pos += 1 + width
            if pos + count > limit_end:  # every value takes at least one byte
                raise StreamError(f"a message passes {limits.max_bytes} bytes")
            if count:
                self._open.append(count)
            return pos, bool(count)
        end = pos + 1 + width + count + (what == 3)  # bin, str or ext (+ its type byte)
        if end > limit_end:
            raise StreamError(f"a message passes {limits.max_bytes} bytes")
        return (end, False) if end <= size else None

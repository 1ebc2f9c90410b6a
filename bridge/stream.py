"""Bytes <-> msgpack messages on an unframed stream, with limits checked before allocating.

Modelled on msgpack-python's ``Unpacker.feed()`` + iteration: feed whatever the socket gave, take
the whole messages out, an incomplete tail waits for more bytes.

    from bridge.stream import MessageStream, pack
    stream = MessageStream(max_message_bytes=1024)
    data = pack([0, 1, "hello", [{}]])
    assert stream.feed(data[:3]) == [] and stream.feed(data[3:]) == [[0, 1, "hello", [{}]]]
"""

from __future__ import annotations

from typing import Any

import msgpack

__all__ = ["READ_CHUNK", "MessageStream", "StreamError", "pack"]

READ_CHUNK = 64 * 1024
"""Bytes asked of the socket per read; the unpacker buffer holds one message plus one chunk."""


class StreamError(ValueError):
    """The byte stream cannot be decoded (bad bytes, a declared length past a limit...).

    The stream is unusable afterwards: the connection is closed. ``messages`` holds the whole
    messages decoded before the failure, which may still be answered.
    """

    def __init__(self, message: str, messages: list[Any]) -> None:
        super().__init__(message)
        self.messages = messages


def pack(message: Any) -> bytes:
    """Encode one message (``use_bin_type`` so bytes travel as ``bin``, str as ``str``)."""
    data: bytes = msgpack.packb(message, use_bin_type=True)
    return data


class MessageStream:
    """A streaming decoder of one connection's incoming bytes.

    Args:
        max_message_bytes: largest message accepted. Every declared length (bin, str, array, map)
            is checked against it when its header is read, before anything is allocated.
    """

    def __init__(self, *, max_message_bytes: int) -> None:
        if max_message_bytes < 1:
            raise ValueError(f"max_message_bytes must be positive, got {max_message_bytes}")
        self.max_message_bytes = max_message_bytes
        self._unpacker = msgpack.Unpacker(
            raw=False,
            strict_map_key=True,
            max_buffer_size=max_message_bytes + READ_CHUNK,
            max_bin_len=max_message_bytes,
            max_str_len=max_message_bytes,
            # every array element / map entry takes at least one byte on the wire
            max_array_len=max_message_bytes,
            max_map_len=max_message_bytes // 2,
            max_ext_len=max_message_bytes,
        )
        self._broken = False

    def feed(self, data: bytes) -> list[Any]:
        """Add bytes; return every message completed so far (possibly none).

        Raises:
            StreamError: the bytes cannot be decoded or break a limit; the stream stays broken.
        """
        if self._broken:
            raise StreamError("stream already failed", [])
        messages: list[Any] = []
        try:
            self._unpacker.feed(data)
            for message in self._unpacker:
                messages.append(message)
        except Exception as exc:  # any decode failure ends the stream, whatever its type
            self._broken = True
            raise StreamError(f"undecodable stream: {type(exc).__name__}: {exc}", messages) from exc
        return messages

"""MessageStream: feed bytes, take whole messages; every limit tested at its boundary (as msgpack's own
test_sequnpack.py / test_limits.py do), and checked before anything is built."""

from __future__ import annotations

import tracemalloc
from typing import Any

import msgpack
import pytest

from bridge.wire.stream import NOT_WHOLE, READ_CHUNK, MessageStream, StreamError, StreamLimits, pack

LIMIT = 1024
LIMITS = StreamLimits(max_bytes=LIMIT, max_depth=8, max_items=LIMIT)


def _stream(**overrides: int) -> MessageStream:
    values = {"max_bytes": LIMIT, "max_depth": 8, "max_items": LIMIT} | overrides
    return MessageStream(StreamLimits(**values))


def _decode(data: bytes, stream: MessageStream | None = None) -> list[Any]:
    stream = stream or MessageStream(LIMITS)
    stream.feed(data)
    return list(stream)


def test_one_byte_at_a_time() -> None:
    messages = [[0, i, "path.find", [{"graph": "g", "start": [i, 0], "goal": [0, i]}]] for i in range(20)]
    messages.append([b"\x00" * 300, "x" * 40, 1.5, -(2**40), 2**64 - 1, None, True, {}, []])
    data = b"".join(pack(m) for m in messages)
    stream = MessageStream(LIMITS)
    out = []
    for i in range(len(data)):
        stream.feed(data[i : i + 1])
        out.extend(stream)
    assert out == messages
    assert stream.pending_bytes == 0


def test_many_messages_in_one_feed_and_an_incomplete_tail_waits() -> None:
    data = pack([0, 1, "a", []]) + pack([0, 2, "b", []]) + pack([0, 3, "c", []])
    stream = MessageStream(LIMITS)
    assert _decode(data[:-2], stream) == [[0, 1, "a", []], [0, 2, "b", []]]
    assert stream.pending_bytes == len(pack([0, 3, "c", []])) - 2
    assert _decode(data[-2:], stream) == [[0, 3, "c", []]]


def test_every_msgpack_type_round_trips() -> None:
    values: list[Any] = [None, False, True, 0, 127, -32, -33, 255, 65535, 2**32, -(2**63), 2**64 - 1]
    values += [0.5, "", "é" * 40, "x" * 300, b"", b"y" * 70_000, [], {}, {"k": [1, {"n": None}]}]
    values += [msgpack.ExtType(5, b"a" * n) for n in (1, 2, 4, 8, 16, 3, 300, 70_000)]
    for value in values:
        limits = StreamLimits(max_bytes=1 << 20, max_depth=8, max_items=LIMIT)
        assert _decode(msgpack.packb(value, use_bin_type=True), MessageStream(limits)) == [value]


@pytest.mark.parametrize(
    ("value", "per_item"),
    [(b"x", 1), ("x", 1), ([0], 1), ({"k": 0}, 2)],
    ids=["bin", "str", "array", "map"],
)
def test_message_bytes_at_the_limit(value: Any, per_item: int) -> None:
    def message(size: int) -> bytes:
        if isinstance(value, dict):
            return msgpack.packb({f"{i:05d}": 0 for i in range(size)}, use_bin_type=True)
        return msgpack.packb(value * size, use_bin_type=True)

    size = next(n for n in range(LIMIT, 0, -1) if len(message(n)) <= LIMIT)
    items = 1 + per_item * size
    assert len(_decode(message(size), _stream(max_items=items))) == 1
    assert len(message(size + 1)) > LIMIT
    with pytest.raises(StreamError, match="bytes"):
        _decode(message(size + 1), _stream(max_items=10 * LIMIT))


def test_items_at_the_limit() -> None:
    data = pack([[], [], [1, 2]])  # the message, its 3 elements, 2 more: 6 items
    assert _decode(data, _stream(max_items=6)) == [[[], [], [1, 2]]]
    with pytest.raises(StreamError, match="items"):
        _decode(data, _stream(max_items=5))


def test_depth_at_the_limit() -> None:
    assert _decode(pack([[[[]]]]), _stream(max_depth=4)) == [[[[[]]]]]
    with pytest.raises(StreamError, match="deeper"):
        _decode(pack([[[[[]]]]]), _stream(max_depth=4))
    with pytest.raises(StreamError, match="deeper"):
        _decode(pack({"a": {"b": {"c": {"d": {}}}}}), _stream(max_depth=4))


@pytest.mark.parametrize(
    "header", [b"\xdd\xff\xff\xff\xff", b"\xdf\xff\xff\xff\xff"], ids=["array32", "map32"]
)
def test_huge_container_headers_are_refused_at_the_header(header: bytes) -> None:
    with pytest.raises(StreamError):
        _decode(header)


@pytest.mark.parametrize(
    "header",
    [b"\xc6\xff\xff\xff\xff", b"\xdb\xff\xff\xff\xff", b"\xc9\xff\xff\xff\xff"],
    ids=["bin32", "str32", "ext32"],
)
def test_a_4gb_bin_str_or_ext_header_is_refused_before_its_body(header: bytes) -> None:
    stream = MessageStream(LIMITS)
    assert _decode(b"\x94\x00\x01\xa1m\x91", stream) == []
    with pytest.raises(StreamError, match="bytes"):
        _decode(header, stream)


def test_deep_nesting_is_refused_after_max_depth_bytes() -> None:
    stream = MessageStream(LIMITS)
    assert _decode(b"\x91" * 8, stream) == []
    with pytest.raises(StreamError, match="deeper"):
        _decode(b"\x91", stream)


def test_an_incomplete_message_of_empty_arrays_costs_only_its_bytes() -> None:
    """64 MiB of 0x90 inside a huge array header would be some 4 GB of Python lists; scanning keeps
    only the bytes (measured on the first 512 KiB), and the item limit refuses it at the header."""
    stream = _stream(max_bytes=(64 << 20) + 5, max_items=(64 << 20) + 1)
    tracemalloc.start()
    try:
        stream.feed(b"\xdd\x04\x00\x00\x00")  # an array of 64 Mi values, then empty arrays
        for _ in range(8):
            stream.feed(b"\x90" * READ_CHUNK)
            assert list(stream) == []
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert stream.pending_bytes == 5 + 8 * READ_CHUNK
    assert peak < 2 * 8 * READ_CHUNK  # the buffered bytes, and nothing built from them
    with pytest.raises(StreamError, match="items"):
        _decode(b"\xdd\x00\x10\x00\x01", _stream(max_bytes=64 << 20, max_items=1 << 20))


def test_limits_may_change_between_messages() -> None:
    small, large = pack([0, 1, "hello", [{}]]), pack([0, 2, "graph.list", [{"x": "y" * 2000}]])
    stream = _stream(max_bytes=64)
    stream.feed(small + large)
    assert next(stream) == [0, 1, "hello", [{}]]
    stream.limits = StreamLimits(max_bytes=4096, max_depth=8, max_items=64)
    assert list(stream) == [msgpack.unpackb(large)]


def test_the_first_limit_applies_to_the_next_message() -> None:
    stream = _stream(max_bytes=64)
    stream.feed(pack([0, 1, "hello", [{}]]) + pack(["z" * 100]))
    assert next(stream) == [0, 1, "hello", [{}]]
    with pytest.raises(StreamError):
        next(stream)


def test_messages_before_the_failure_are_kept_and_the_stream_stays_broken() -> None:
    stream = MessageStream(LIMITS)
    stream.feed(pack([0, 1, "hello", [{}]]) + b"\xc1")
    assert next(stream) == [0, 1, "hello", [{}]]
    with pytest.raises(StreamError, match="0xc1"):
        next(stream)
    assert list(stream) == []
    with pytest.raises(StreamError):
        stream.feed(pack([0, 2, "hello", [{}]]))


@pytest.mark.parametrize(
    "data", [b"\xa2\xff\xfe", b"\x81\x01\x02", b"\x81\xc0\x02"], ids=["bad-utf8", "int-key", "nil-key"]
)
def test_well_framed_but_undecodable_messages_break_the_stream(data: bytes) -> None:
    with pytest.raises(StreamError, match="undecodable"):
        _decode(data)


def test_bad_limits_are_refused() -> None:
    with pytest.raises(ValueError, match="positive"):
        StreamLimits(max_bytes=0, max_depth=1, max_items=1)


def test_decode_whole_takes_one_small_message_and_leaves_the_rest_to_the_scan() -> None:
    request = [0, 7, "path.find", [{"graph": "g", "start": [0, 0], "goal": [1, 0]}]]
    stream = _stream(max_depth=5)  # the request holds 5 container headers
    assert stream.decode_whole(pack(request)) == request
    assert stream.pending_bytes == 0
    deep, two, bad = pack([[[[[[1]]]]]]), pack([0, 1, "a", []]) * 2, b"\xa2\xff\xfe"
    for data in (deep, two, pack(request)[:-3], pack(["y" * 2000]), bad, b"\xc1"):
        assert stream.decode_whole(data) is NOT_WHOLE  # fed, each gets the scan's answer
    assert _decode(two, _stream()) == [[0, 1, "a", []]] * 2
    with pytest.raises(StreamError, match="deeper"):
        _decode(deep, _stream(max_depth=5))
    stream.feed(pack(request)[:5])  # bytes waiting: the next read completes them, not a new message
    assert stream.decode_whole(pack(request)) is NOT_WHOLE
    stream.feed(pack(request)[5:])
    assert list(stream) == [request]

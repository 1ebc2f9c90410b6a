"""MessageStream: feed bytes, take whole messages; every limit tested at its boundary (as msgpack's own
test_sequnpack.py / test_limits.py do)."""

from __future__ import annotations

import msgpack
import pytest

from bridge.stream import MessageStream, StreamError, pack

LIMIT = 1024


def test_one_byte_at_a_time() -> None:
    messages = [[0, i, "path.find", [{"graph": "g", "start": [i, 0], "goal": [0, i]}]] for i in range(20)]
    data = b"".join(pack(m) for m in messages)
    stream = MessageStream(max_message_bytes=LIMIT)
    out = []
    for i in range(len(data)):
        out.extend(stream.feed(data[i : i + 1]))
    assert out == messages


def test_many_messages_in_one_feed_and_an_incomplete_tail_waits() -> None:
    data = pack([0, 1, "a", []]) + pack([0, 2, "b", []]) + pack([0, 3, "c", []])
    stream = MessageStream(max_message_bytes=LIMIT)
    assert stream.feed(data[:-2]) == [[0, 1, "a", []], [0, 2, "b", []]]
    assert stream.feed(data[-2:]) == [[0, 3, "c", []]]


@pytest.mark.parametrize(
    ("value", "header_len"),
    [(b"x", 2), ("x", 2), ([0], 3), ({"k": 0}, 3)],
    ids=["bin", "str", "array", "map"],
)
def test_declared_lengths_at_the_limit(value: object, header_len: int) -> None:
    size = LIMIT if not isinstance(value, dict) else LIMIT // 2
    big = value * size if not isinstance(value, dict) else {f"{i:05d}": 0 for i in range(size)}
    over = value * (size + 1) if not isinstance(value, dict) else {f"{i:05d}": 0 for i in range(size + 1)}
    assert MessageStream(max_message_bytes=LIMIT).feed(msgpack.packb(big, use_bin_type=True)) == [big]
    with pytest.raises(StreamError):
        MessageStream(max_message_bytes=LIMIT).feed(msgpack.packb(over, use_bin_type=True))


@pytest.mark.parametrize(
    "header", [b"\xdd\xff\xff\xff\xff", b"\xdf\xff\xff\xff\xff"], ids=["array32", "map32"]
)
def test_huge_container_headers_are_refused_at_the_header(header: bytes) -> None:
    with pytest.raises(StreamError):
        MessageStream(max_message_bytes=LIMIT).feed(header)


@pytest.mark.parametrize("header", [b"\xc6\xff\xff\xff\xff", b"\xdb\xff\xff\xff\xff"], ids=["bin32", "str32"])
def test_a_4gb_bin_or_str_header_never_buffers_past_the_limit(header: bytes) -> None:
    # msgpack checks bin/str lengths once the body is in; the buffer cap stops it first
    stream = MessageStream(max_message_bytes=LIMIT)
    assert stream.feed(b"\x94\x00\x01\xa1m\x91" + header) == []
    fed: list[int] = []
    with pytest.raises(StreamError):  # noqa: PT012  (the failure comes at an unknown feed)
        while len(fed) < 100:
            fed.append(len(stream.feed(b"\x00" * LIMIT)))
    assert len(fed) <= 66  # the limit plus one read chunk, not the declared 4 GB


def test_messages_before_the_failure_are_kept_and_the_stream_stays_broken() -> None:
    stream = MessageStream(max_message_bytes=LIMIT)
    with pytest.raises(StreamError) as info:
        stream.feed(pack([0, 1, "hello", [{}]]) + b"\xc1")
    assert info.value.messages == [[0, 1, "hello", [{}]]]
    with pytest.raises(StreamError):
        stream.feed(pack([0, 2, "hello", [{}]]))


def test_bad_limits_are_refused() -> None:
    with pytest.raises(ValueError, match="positive"):
        MessageStream(max_message_bytes=0)

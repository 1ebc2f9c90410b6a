"""A small stdlib-only msgpack codec for graph files (python_core may not import msgpack).

It covers the subset records use: nil, bool, int (-2^63 .. 2^64-1), float64 (and float32 via
:class:`Float32`), str, bin, array, map. Encoding picks the smallest form exactly as msgpack-python
does with ``use_bin_type=True``, so the bytes are identical; decoding checks every declared length
against the bytes left before allocating.

    from python_core._msgpack_lite import packb, unpackb
    assert packb(128) == b"\\xcc\\x80" and unpackb(packb({"a": [1, b"x"]})) == {"a": [1, b"x"]}
"""

from __future__ import annotations

import struct
from collections.abc import Mapping, Sequence
from typing import Any

__all__ = ["Float32", "MsgpackError", "packb", "unpackb"]

MAX_DEPTH = 64


class MsgpackError(ValueError):
    """Bytes that are not a single msgpack value of the supported subset, or an unencodable value."""


class Float32(float):
    """A float to be encoded as msgpack float32 (``0xca``)."""


def _int(value: int, out: bytearray) -> None:
    if 0 <= value <= 0x7F or -32 <= value < 0:
        out += struct.pack(">b", value) if value < 0 else bytes([value])
    elif value > 0:
        for limit, tag, fmt in ((0xFF, 0xCC, ">B"), (0xFFFF, 0xCD, ">H"), (0xFFFFFFFF, 0xCE, ">I")):
            if value <= limit:
                out += bytes([tag]) + struct.pack(fmt, value)
                return
        if value > 0xFFFFFFFFFFFFFFFF:
            raise MsgpackError(f"integer {value} does not fit in 64 bits")
        out += b"\xcf" + struct.pack(">Q", value)
    else:
        for limit, tag, fmt in ((-0x80, 0xD0, ">b"), (-0x8000, 0xD1, ">h"), (-0x80000000, 0xD2, ">i")):
            if value >= limit:
                out += bytes([tag]) + struct.pack(fmt, value)
                return
        if value < -0x8000000000000000:
            raise MsgpackError(f"integer {value} does not fit in 64 bits")
        out += b"\xd3" + struct.pack(">q", value)


def _header(size: int, fix: int | None, fix_max: int, tags: tuple[int, int, int], out: bytearray) -> None:
    """A length header: fix form when allowed, else the 8/16/32-bit tag (``tags[0]`` may be 0)."""
    if fix is not None and size <= fix_max:
        out.append(fix | size)
    elif tags[0] and size <= 0xFF:
        out += bytes([tags[0], size])
    elif size <= 0xFFFF:
        out += bytes([tags[1]]) + struct.pack(">H", size)
    elif size <= 0xFFFFFFFF:
        out += bytes([tags[2]]) + struct.pack(">I", size)
    else:
        raise MsgpackError(f"length {size} does not fit in 32 bits")


def _pack(value: Any, out: bytearray, depth: int) -> None:
    if depth > MAX_DEPTH:
        raise MsgpackError(f"nesting deeper than {MAX_DEPTH}")
    if value is None:
        out.append(0xC0)
    elif value is True or value is False:
        out.append(0xC3 if value else 0xC2)
    elif isinstance(value, int):
        _int(value, out)
    elif isinstance(value, Float32):
        out += b"\xca" + struct.pack(">f", value)
    elif isinstance(value, float):
        out += b"\xcb" + struct.pack(">d", value)
    elif isinstance(value, str):
        data = value.encode("utf-8")
        _header(len(data), 0xA0, 31, (0xD9, 0xDA, 0xDB), out)
        out += data
    elif isinstance(value, (bytes, bytearray, memoryview)):
        data = bytes(value)
        _header(len(data), None, 0, (0xC4, 0xC5, 0xC6), out)
        out += data
    else:
        _pack_container(value, out, depth)


def _pack_container(value: Any, out: bytearray, depth: int) -> None:
    if isinstance(value, Mapping):
        _header(len(value), 0x80, 15, (0, 0xDE, 0xDF), out)
        for key, item in value.items():
            _pack(key, out, depth + 1)
            _pack(item, out, depth + 1)
    elif isinstance(value, Sequence):
        _header(len(value), 0x90, 15, (0, 0xDC, 0xDD), out)
        for item in value:
            _pack(item, out, depth + 1)
    else:
        raise MsgpackError(f"cannot encode a {type(value).__name__}")


def packb(value: Any) -> bytes:
    """Encode one value (lists and tuples as arrays, bytes as bin, str as str).

    Raises:
        MsgpackError: a type outside the subset, an int past 64 bits, nesting deeper than 64.
    """
    out = bytearray()
    _pack(value, out, 0)
    return bytes(out)


class _Reader:
    """A cursor over the input; every read checks the bytes left first."""

    def __init__(self, data: bytes) -> None:
        self.data = memoryview(data)
        self.pos = 0

    def take(self, size: int) -> bytes:
        end = self.pos + size
        if end > len(self.data):
            raise MsgpackError(
                f"truncated: {size} bytes declared at offset {self.pos}, {len(self.data) - self.pos} left"
            )
        chunk = bytes(self.data[self.pos : end])
        self.pos = end
        return chunk

    def number(self, fmt: str) -> Any:
        return struct.unpack(fmt, self.take(struct.calcsize(fmt)))[0]


_FIXED = {
    0xCC: ">B", 0xCD: ">H", 0xCE: ">I", 0xCF: ">Q",
    0xD0: ">b", 0xD1: ">h", 0xD2: ">i", 0xD3: ">q",
    0xCA: ">f", 0xCB: ">d",
}  # fmt: skip
_STR = {0xD9: ">B", 0xDA: ">H", 0xDB: ">I"}
_BIN = {0xC4: ">B", 0xC5: ">H", 0xC6: ">I"}
_ARRAY = {0xDC: ">H", 0xDD: ">I"}
_MAP = {0xDE: ">H", 0xDF: ">I"}


def _container(reader: _Reader, size: int, is_map: bool, depth: int) -> Any:
    # every element takes at least one byte: a length past the bytes left is a lie
    if size > len(reader.data) - reader.pos:
        raise MsgpackError(f"{'map' if is_map else 'array'} of {size} declared, too few bytes left")
    if not is_map:
        return [_unpack(reader, depth + 1) for _ in range(size)]
    result: dict[Any, Any] = {}
    for _ in range(size):
        key = _unpack(reader, depth + 1)
        if not isinstance(key, (str, int, bytes)):
            raise MsgpackError(f"map key of type {type(key).__name__} is not supported")
        result[key] = _unpack(reader, depth + 1)
    return result


def _unpack(reader: _Reader, depth: int) -> Any:
    if depth > MAX_DEPTH:
        raise MsgpackError(f"nesting deeper than {MAX_DEPTH}")
    tag = reader.take(1)[0]
    if tag <= 0x7F or tag >= 0xE0:
        return tag if tag <= 0x7F else tag - 0x100
    if 0xA0 <= tag <= 0xBF or tag in _STR:
        size = tag & 0x1F if tag <= 0xBF else reader.number(_STR[tag])
        try:
            return reader.take(size).decode("utf-8")
        except UnicodeDecodeError as exc:
            raise MsgpackError(f"invalid UTF-8 in a str: {exc}") from exc
    if tag in _BIN:
        return reader.take(reader.number(_BIN[tag]))
    if 0x90 <= tag <= 0x9F or tag in _ARRAY:
        size = tag & 0x0F if tag <= 0x9F else reader.number(_ARRAY[tag])
        return _container(reader, size, False, depth)
    if 0x80 <= tag <= 0x8F or tag in _MAP:
        size = tag & 0x0F if tag <= 0x8F else reader.number(_MAP[tag])
        return _container(reader, size, True, depth)
    if tag in _FIXED:
        return reader.number(_FIXED[tag])
    if tag in (0xC0, 0xC2, 0xC3):
        return {0xC0: None, 0xC2: False, 0xC3: True}[tag]
    raise MsgpackError(f"unsupported msgpack type byte 0x{tag:02x} at offset {reader.pos - 1}")


def unpackb(data: bytes) -> Any:
    """Decode exactly one value (arrays as lists, bin as bytes).

    Raises:
        MsgpackError: truncated or trailing bytes, a type outside the subset (ext, reserved),
            invalid UTF-8, nesting deeper than 64.
    """
    reader = _Reader(bytes(data))
    value = _unpack(reader, 0)
    if reader.pos != len(reader.data):
        raise MsgpackError(f"{len(reader.data) - reader.pos} trailing bytes after the value")
    return value

"""A sidecar that records when a ``path.find_packed`` passes each stage (bench/navmesh_frame.py --timeline).

    python bench/navmesh_trace.py TRACE.jsonl serve --threads 2     # then as ``python -m bridge``

Wraps a few functions of the serving code before the server starts (this process only; the
product code has no hooks): the request read (``Session.on_message``), each piece of the batch on
its search thread (``run_packed_chunk``), the join or encoding of the answer, the answer handed to
the transport (``Session._respond``) and its last byte handed over (``Connection._give_held``, for
an answer written in pieces). Each event is one JSON line ``{"t": unix seconds, "event", ...}``
appended to TRACE (``time.time()``: Godot's ``Time.get_unix_time_from_system()`` reads the same
clock). The first answer's bytes go to TRACE + ``.answer`` (Godot's decoding of it is timed apart).
"""

from __future__ import annotations

import functools
import json
import os
import sys
import threading
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, os.getcwd())  # the checkout it runs in (bench/navmesh_frame.py --sidecar-tree)

_LOCK = threading.Lock()
_OUT: list[Any] = []


def _log(event: str, **fields: Any) -> None:
    line = json.dumps({"t": time.time(), "event": event, "thread": threading.get_ident() % 10000, **fields})
    with _LOCK:
        _OUT[0].write(line + "\n")
        _OUT[0].flush()


def install(trace: Path) -> None:
    """Wrap the serving functions named in the module docstring; events go to ``trace``."""
    from bridge.serving import batch_runner, connection, session
    from bridge.wire.stream import pack

    _OUT.append(trace.open("a", encoding="utf-8"))
    answer = Path(str(trace) + ".answer")
    real_message = session.Session.on_message

    def on_message(self: Any, message: Any) -> None:
        if type(message) is list and len(message) == 4 and message[2] == "path.find_packed":
            params = message[3]
            given = params[0] if isinstance(params, list) and params else params
            starts = given.get("starts", b"") if isinstance(given, dict) else b""
            _log("recv", msgid=message[1], queries=len(starts) // 8)
        real_message(self, message)

    runner = vars(batch_runner)  # the names it imported from packed.py, replaced in place
    real_chunk = runner["run_packed_chunk"]

    @functools.wraps(real_chunk)
    def chunk(batch: Any, indices: range, **kwargs: Any) -> Any:
        _log("piece_start", lo=indices.start, hi=indices.stop)
        cpu = time.thread_time()
        try:
            return real_chunk(batch, indices, **kwargs)
        finally:
            _log("piece_end", lo=indices.start, hi=indices.stop, cpu_ms=1e3 * (time.thread_time() - cpu))

    real_join, real_encode = runner["join_packed"], runner["packed_message"]

    @functools.wraps(real_join)
    def join(parts: list[Any]) -> Any:
        _log("join_start")
        try:
            return real_join(parts)
        finally:
            _log("join_end")

    @functools.wraps(real_encode)
    def encode(parts: list[Any]) -> list[Any]:
        _log("encode_start")
        data: list[Any] = real_encode(parts)
        _log("encode_end", bytes=sum(memoryview(piece).nbytes for piece in data))
        return data

    runner.update(run_packed_chunk=chunk, join_packed=join, packed_message=encode)
    real_respond = session.Session._respond

    def respond(self: Any, msgid: int, error: Any, result: Any) -> None:
        _log("respond_start", msgid=msgid)
        if isinstance(result, dict) and "node_offsets" in result and not answer.exists():
            answer.write_bytes(pack([1, msgid, error, result]))
        real_respond(self, msgid, error, result)
        _log("respond_end", msgid=msgid)

    real_give = connection.ClientProtocol._give_held

    def give(self: Any) -> None:
        had = bool(self._held)
        real_give(self)
        if had and not self._held:
            _log("written")

    connection.ClientProtocol._give_held = give  # type: ignore[method-assign]
    session.Session.on_message = on_message  # type: ignore[method-assign]
    session.Session._respond = respond  # type: ignore[method-assign]


def main() -> int:
    install(Path(sys.argv[1]))
    sys.argv = [sys.argv[0], *sys.argv[2:]]
    from bridge.cli.commands import main as bridge_main

    return int(bridge_main() or 0)


if __name__ == "__main__":
    sys.exit(main())

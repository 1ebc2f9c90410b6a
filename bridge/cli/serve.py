"""``python -m bridge serve`` / ``astar-bridge serve``: run the sidecar.

    astar-bridge serve                      # 127.0.0.1, a port the OS picks, a random token
    astar-bridge serve --port 7777 --token secret --threads 2
    astar-bridge serve --ray local --ray-replicas 2   # graphs and searches in Ray (docs/scale-out.md)

Exactly one JSON line goes to stdout when the server is ready; logs go to stderr. The server stops
on SIGTERM/SIGINT and when its stdin closes (the game that started it is gone), unless
``--no-stdin-watch``. It runs on uvloop where that is installed (``--loop``), else on asyncio's
own loop. The other commands are in :mod:`bridge.cli.commands`.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import importlib
import ipaddress
import json
import logging
import os
import secrets
import signal
import sys
import threading
from collections.abc import Callable, Coroutine
from typing import Any

from bridge.serving.logs import start_logging
from bridge.serving.server import Server, ServerConfig
from bridge.wire.idle_spin import SPIN_SECONDS
from bridge.wire.protocol import Limits

__all__ = ["LOOPS", "add_parser", "event_loop_runner", "run"]

log = logging.getLogger("bridge.cli")


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register the ``serve`` subcommand."""
    serve = commands.add_parser("serve", help="serve msgpack-RPC on TCP")
    serve.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    serve.add_argument("--port", type=int, default=0, help="port (default: the OS picks one)")
    serve.add_argument("--token", default=None, help="hello token (default: random; visible in ps)")
    serve.add_argument(
        "--token-stdin",
        action="store_true",
        help="read the hello token from the first line of stdin (keeps it out of the process list)",
    )
    serve.add_argument(
        "--threads", type=int, default=os.cpu_count() or 1, help="search threads (default: one per CPU)"
    )
    # the old name of --threads, from when searches ran in worker processes: kept working, unlisted
    serve.add_argument("--workers", type=int, dest="threads", action=_OldName, help=argparse.SUPPRESS)
    serve.add_argument("--allow-remote", action="store_true", help="allow a non-loopback --host")
    serve.add_argument("--no-stdin-watch", action="store_true", help="keep running when stdin closes")
    serve.add_argument("--log-level", default="INFO", choices=["DEBUG", "INFO", "WARNING", "ERROR"])
    serve.add_argument(
        "--loop",
        default="auto",
        choices=LOOPS,
        help="event loop: uvloop where it is installed (a dependency on Linux and macOS; a small "
        "request's round trip 5-7 us shorter), else asyncio's own (default auto)",
    )
    serve.add_argument(
        "--ray",
        default=None,
        metavar="local|auto|ADDRESS",
        help="serve the graphs from a Ray cluster (the 'ray' extra): 'local' starts a private one, "
        "'auto' joins the one started on this machine, else its address (docs/scale-out.md)",
    )
    serve.add_argument(
        "--spin-us",
        type=int,
        default=round(SPIN_SECONDS * 1e6),
        help="microseconds a lone client's socket is watched after each answer before the sidecar "
        "sleeps, so a synchronous call in a series skips the CPU's wake-up (0: never; default %(default)s)",
    )
    serve.add_argument("--ray-replicas", type=int, default=2, help="with --ray: replica actors (default 2)")
    serve.add_argument(
        "--ray-memory-mb",
        type=int,
        default=1024,
        help="with --ray: MiB of graphs one replica holds before the least recently used go (default 1024)",
    )
    defaults = Limits()
    for limit in dataclasses.fields(Limits):  # --max-message-bytes ... --read-timeout, one per limit
        default = getattr(defaults, limit.name)
        serve.add_argument(
            "--" + limit.name.replace("_", "-"),
            type=type(default),
            default=default,
            help=f"(default {default}; see bridge/PROTOCOL.md, Limits)",
        )


class _OldName(argparse.Action):
    """A deprecated option that sets its new name's value and is noted, to be logged once serving."""

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: object,
        option_string: str | None = None,
    ) -> None:
        setattr(namespace, self.dest, values)
        namespace.old_names = [*getattr(namespace, "old_names", []), (option_string, self.dest)]


def _is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _read_token_line() -> str:
    """The first line of stdin, for ``--token-stdin``: a secret on the command line is readable by
    every local user (``ps``), stdin only by the parent that writes it."""
    line = sys.stdin.buffer.readline().decode("utf-8", errors="replace").strip()
    if not line:
        raise SystemExit("astar-bridge serve: --token-stdin read an empty first line")
    return line


def _config(args: argparse.Namespace) -> ServerConfig:
    limits = Limits(**{limit.name: getattr(args, limit.name) for limit in dataclasses.fields(Limits)})
    return ServerConfig(
        host=args.host,
        port=args.port,
        token=args.token or secrets.token_hex(16),
        threads=max(1, args.threads),
        limits=limits,
        ray=_ray_options(args),
        spin_seconds=max(0, args.spin_us) / 1e6,
    )


def _ray_options(args: argparse.Namespace) -> object:
    """The ``--ray`` options, or None; Ray is imported only when ``--ray`` is given (ValueError
    with the install hint when it is missing)."""
    if args.ray is None:
        return None
    from bridge.serving.ray.cluster import RayOptions, require_ray  # noqa: PLC0415 (only with --ray)

    try:
        require_ray()
    except RuntimeError as exc:
        raise ValueError(str(exc)) from None
    return RayOptions(args.ray, args.ray_replicas, args.ray_memory_mb, threads=max(1, args.threads))


LOOPS = ("auto", "asyncio", "uvloop")
"""``--loop``'s choices."""


def event_loop_runner(choice: str = "auto") -> tuple[str, Callable[[Coroutine[Any, Any, None]], None]]:
    """The name of the event loop ``choice`` gives and the function that runs a coroutine on a new
    one: uvloop's (``auto`` where it imports, ``uvloop``) or asyncio's own.

    Raises:
        ValueError: ``uvloop`` was asked for and cannot be imported.
    """
    if choice != "asyncio":
        try:
            uvloop = importlib.import_module("uvloop")  # a dependency on Linux and macOS only
        except ImportError:
            if choice == "uvloop":
                raise ValueError("--loop uvloop: uvloop is not installed (pip install uvloop)") from None
        else:
            return "uvloop", uvloop.run
    return "asyncio", asyncio.run


def _announce(event: dict[str, object]) -> None:
    sys.stdout.write(json.dumps(event) + "\n")
    sys.stdout.flush()


def _watch_stdin(loop: asyncio.AbstractEventLoop, server: Server) -> None:
    """Block on stdin until it closes, then stop the server (the parent process is gone)."""

    def wait() -> None:
        try:
            while os.read(sys.stdin.fileno(), 4096):
                pass
        except (OSError, ValueError, AttributeError):  # closed, or no stdin at all
            pass
        log.info("stdin closed; stopping")
        loop.call_soon_threadsafe(server.stop)

    threading.Thread(target=wait, name="stdin-watch", daemon=True).start()


async def _serve(config: ServerConfig, no_stdin_watch: bool) -> None:
    server = Server(config)
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, server.stop)
    if not no_stdin_watch:
        _watch_stdin(loop, server)
    await server.run(_announce)


def run(args: argparse.Namespace) -> int:
    """Serve until stopped; returns the exit status (2 on a bad option)."""
    listener = start_logging(getattr(logging, args.log_level))  # never blocks on a full stderr
    try:
        return _run_serve(args)
    finally:
        listener.stop()


def _run_serve(args: argparse.Namespace) -> int:
    for old, new in getattr(args, "old_names", []):
        log.warning("%s is deprecated: use --%s (the same meaning)", old, new)
    if not args.allow_remote and not _is_loopback(args.host):
        log.error("refusing to bind %s: not a loopback address (pass --allow-remote)", args.host)
        return 2
    if args.token_stdin:
        if args.token is not None:
            log.error("--token and --token-stdin exclude each other")
            return 2
        args.token = _read_token_line()
    try:
        config = _config(args)
        loop, run_on_loop = event_loop_runner(args.loop)
    except ValueError as exc:  # a limit that is not positive, a bad --ray option or no Ray, no uvloop
        log.error("%s", exc)
        return 2
    log.info("event loop: %s", loop)
    run_on_loop(_serve(config, args.no_stdin_watch))
    return 0

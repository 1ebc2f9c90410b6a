"""``astar-bridge`` / ``python -m bridge``: one command line, three commands.

astar-bridge serve --threads 2                             # the sidecar (bridge.cli.serve)
astar-bridge build-hierarchy level.map --cluster-size 32   # HPA* build time/size, progress bar
astar-bridge warm-up                    # fill numba's kernel cache once, with progress
"""

from __future__ import annotations

import argparse

from bridge.cli import build_hierarchy, serve, warm_up

__all__ = ["main"]


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="astar-bridge", description="A* Bridge sidecar")
    commands = parser.add_subparsers(dest="command", required=True)
    serve.add_parser(commands)
    build_hierarchy.add_parser(commands)
    warm_up.add_parser(commands)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Entry point of the console script; returns the exit status."""
    args = _parser().parse_args(argv)
    if args.command == "build-hierarchy":
        return build_hierarchy.run(args)
    if args.command == "warm-up":
        return warm_up.run(args)
    return serve.run(args)

"""The command line: ``serve`` (the sidecar), ``warm-up`` and ``build-hierarchy``
(:mod:`bridge.cli.commands` dispatches; ``bridge.cli:main`` is the console script's entry point)."""

from __future__ import annotations

from bridge.cli.commands import main

__all__ = ["main"]

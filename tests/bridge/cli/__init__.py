"""Tests of bridge/cli/: ``serve`` and ``build-hierarchy`` on the command line."""

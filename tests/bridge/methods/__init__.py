"""Tests of bridge/methods/: each method family, answered by a real sidecar as python_core answers
in-process."""

"""Tests of bridge/serving/: the serving layer, sessions and hello, concurrency, and the fault and
abuse suite."""

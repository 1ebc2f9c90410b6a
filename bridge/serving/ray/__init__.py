"""Serving graphs from a Ray cluster (``serve --ray``): :class:`~bridge.serving.ray.serving.RayServing`.

Only ``serve --ray`` imports this package's Ray-using modules; Ray itself is imported inside their
functions, so the package can be read (and its docstrings tested) without the ``ray`` extra.

- :mod:`~bridge.serving.ray.graphs`: a graph's snapshot, log and revisions (plain data).
- :mod:`~bridge.serving.ray.holder`: the graphs one replica holds, LRU within a memory budget.
- :mod:`~bridge.serving.ray.replica`: the replica actor.
- :mod:`~bridge.serving.ray.pool`: routing by graph id, retries, what each replica holds.
- :mod:`~bridge.serving.ray.spread`: batches split across the replicas.
- :mod:`~bridge.serving.ray.cluster`: starting or joining Ray.
- :mod:`~bridge.serving.ray.serving`: the gateway's :class:`Serving`.
- :mod:`~bridge.serving.ray.faults`: killing a replica of a running gateway (tests, bench).
"""

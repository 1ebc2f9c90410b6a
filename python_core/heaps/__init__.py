"""The compiled open lists (min-heaps on flat arrays) every search kernel uses.

Quick start::

    from python_core.heaps.packed import heap_pop, heap_push, pack_key   # grid A* and JPS
    from python_core.heaps.indexed import heap_pop, heap_push, quantize  # HPA* kernels
    from python_core.heaps.lazy import heap_pop, heap_push               # flow fields, landmarks
    from python_core.heaps.ordered import heap_pop, heap_push            # navmesh corridors

Four variants, each one copy, each with the tie-break its paths were asserted with (a tie-break
is part of a search's answer: equal-cost paths and ``expanded`` counts differ with it):

- :mod:`.packed`: indexed 4-ary, ``f`` and the tie in one int64 key. Equal (rounded) ``f``: the
  smaller ``h`` first, i.e. the deeper node, so A* and JPS walk straight across open ground.
- :mod:`.indexed`: indexed binary, float ``f`` rounded by :func:`~.indexed.quantize`. Equal ``f``:
  the larger ``g[node]`` first (deeper), then the smaller node id, a total order. The HPA* kernels
  decrease keys of nodes they index by position.
- :mod:`.lazy`: binary without an index, growing; an item is pushed again when its key drops.
  Equal keys: the heap's own order. The flow field's Dijkstras settle exact costs either way.
- :mod:`.ordered`: :mod:`.lazy`'s shape, but equal keys pop the smaller node first (a total order,
  so pops do not follow push order): the navmesh corridor search's portal groups can tie, and
  which pops first picks which of two equal-cost corridors a query returns.

Why not one: :mod:`.packed` and :mod:`.indexed` both pop the deeper node first, but :mod:`.packed`
compares only the top bits of ``h`` (closer ties fall to its 4-ary layout) where :mod:`.indexed`
compares ``g`` exactly and then node ids; :mod:`.lazy` and :mod:`.ordered` have no index and
differ only in ties (heap order against node order). Any merge changes which of two equal-cost
entries pops first, and so which of two equal-cost paths a query returns.
"""

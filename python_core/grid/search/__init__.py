"""Searches over grids: what :meth:`python_core.grid.GridGraph.find_path` runs, and its oracle.

- :mod:`~python_core.grid.search.dispatch`: the fast exact search users get; picks per query
- :mod:`~python_core.grid.search.planned`: query plans and the path every query takes, over
  :mod:`~python_core.grid.search.routes` (search, path and points in one compiled call)
- :mod:`~python_core.grid.search.astar`: the compiled A* over a padded grid
- :mod:`~python_core.grid.search.jps`: compiled Jump Point Search (uniform weights, no corner cutting)
- :mod:`~python_core.grid.search.method_choice`: whether JPS pays on a map (probe searches, cached)
- :mod:`~python_core.grid.search.size_index`: per unit size, the eroded grid's parts (no path in
  O(1)) and landmarks (ALT), with their kernels (:mod:`~python_core.grid.search.landmark_kernels`)
  and whether landmarks pay (:mod:`~python_core.grid.search.landmark_choice`)
- :mod:`~python_core.grid.search.grid_view`: the read-only view of a grid the searches take
- (their open list, with the other compiled heaps: :mod:`python_core.heaps`)
- :mod:`~python_core.grid.search.heuristics`: distance estimates and when each is admissible
- :mod:`~python_core.grid.search.reference`: the plain-Python A*, the readable specification and
  test oracle; call :func:`reference.find_path <python_core.grid.search.reference.find_path>` by name
"""

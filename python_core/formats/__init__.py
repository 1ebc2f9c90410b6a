"""Files and plain records: reading and writing graphs, nothing that searches them.

Quick start::

    from python_core.formats.graph_file import load_graph
    from python_core.formats.movingai import read_scenarios
    grid = load_graph("level1.agraph")

- :mod:`~python_core.formats.movingai`: Moving AI ``.map`` and ``.scen`` benchmark files
- :mod:`~python_core.formats.polyanya`: Polyanya ``.mesh`` navigation meshes and their scenarios
- :mod:`~python_core.formats.records`: every graph type <-> a plain dict (str, numbers, bytes)
- :mod:`~python_core.formats.graph_file`: versioned msgpack graph files (the one core module that
  imports msgpack)

This ``__init__`` imports nothing, so a graph module can read a format without importing the others.
"""

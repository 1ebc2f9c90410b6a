"""HPA* on hexagonal, isometric and half-offset tile lattices.

Quick start::

    from python_core.hpa.lattice import LatticeHierarchy
    hpa = LatticeHierarchy(tile_grid, cluster_size=16).build()
    hpa.find_path((0, 0), (40, 30))

Modules: :mod:`.cluster_kernels` (searches, labels and crossings inside one cluster),
:mod:`.entrances` (which crossings become transitions), :mod:`.graph` (the abstract graph and its
local repair), :mod:`.abstract_kernels` (the abstract A*, refinement, components) and
:mod:`.hierarchy` (the public class: queries and changes).
"""

from __future__ import annotations

from python_core.hpa.lattice.hierarchy import LatticeHierarchy

__all__ = ["LatticeHierarchy"]

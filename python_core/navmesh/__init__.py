"""Navigation meshes: :class:`NavMesh` (convex polygons, 2D or 3D), its polygon search and the funnel.

Quick start::

    from python_core.navmesh import NavMesh
    mesh = NavMesh([[0, 0], [2, 0], [2, 1], [0, 1], [3, 0], [3, 1]], [[0, 1, 2, 3], [1, 4, 5, 2]])
    assert mesh.find_path((0.5, 0.5), (2.5, 0.5)).nodes.tolist() == [0, 1]

Layout: :mod:`~python_core.navmesh.build` (polygons checked, edges welded, the portal graph),
:mod:`~python_core.navmesh.mesh` (the mesh: locating points, the search over portals by the compiled
CSR kernel) and :mod:`~python_core.navmesh.funnel` (pulling the corridor's path taut). Polyanya
``.mesh`` files are read by :mod:`python_core.formats.polyanya`.
"""

from __future__ import annotations

from python_core.navmesh.mesh import NavMesh

__all__ = ["NavMesh"]

"""Where a navmesh's polygons are: a bucket grid over their bounding boxes, and their planes in 3D.

Quick start::

    import numpy as np
    from python_core.navmesh.build import corner_links
    from python_core.navmesh.locator import build_locator
    xy = np.array([[0, 0], [2, 0], [2, 1], [0, 1]], float)
    ptr, flat = np.array([0, 4]), np.array([0, 1, 2, 3])
    grid = build_locator(xy, xy, ptr, flat, corner_links(ptr)[1], up_axis=-1)
    assert grid.cell_polys.tolist() == [0] * grid.cell_polys.shape[0]  # every bucket holds polygon 0

The compiled location (:mod:`~python_core.navmesh.locate_kernel`) looks a point up in its bucket
and, off the mesh, ring by ring around it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from python_core._types import F64, I64
from python_core.navmesh.build import PLANE_AXES, stable_order

__all__ = ["Locator", "build_locator", "planes"]


@dataclass(frozen=True, slots=True, eq=False)
class Locator:
    """A uniform grid of buckets (CSR of polygon ids per bucket) and the polygons' planes.

    Attributes:
        origin: the grid's lower corner in the plane frame.
        cell: a bucket's side.
        cols, rows: the grid's size in buckets.
        cell_ptr, cell_polys: the polygons whose (slightly grown) box meets bucket ``y * cols + x``.
        plane: per polygon ``(a, b, c)``, height ``a * x + b * y + c`` (zeros in 2D).
        pad: how much the boxes were grown.
    """

    origin: F64
    cell: float
    cols: int
    rows: int
    cell_ptr: I64
    cell_polys: I64
    plane: F64
    pad: float = 0.0


def build_locator(  # noqa: PLR0917 - the mesh's arrays
    vertices: F64, xy: F64, poly_ptr: I64, poly_verts: I64, nxt: I64, up_axis: int
) -> Locator:
    """The :class:`Locator` of convex polygons (``poly_ptr``/``poly_verts`` over ``xy``, the
    vertices in the plane frame); ``up_axis`` -1 in 2D."""
    count = poly_ptr.shape[0] - 1
    corners = xy[poly_verts]
    # boxes grown a little, so a point on an edge that rounding puts just outside its
    # polygon's box (across a bucket border) is still looked up in that polygon
    pad = 1e-6 * (1.0 + float(np.abs(corners).max()))
    lo = np.minimum.reduceat(corners, poly_ptr[:-1], axis=0) - pad
    hi = np.maximum.reduceat(corners, poly_ptr[:-1], axis=0) + pad
    origin = lo.min(axis=0)
    extent = np.maximum(hi.max(axis=0) - origin, 1e-9)
    cell = float(np.sqrt(extent[0] * extent[1] / count)) * 1.5 or 1.0
    cols = int(extent[0] // cell) + 1
    rows = int(extent[1] // cell) + 1
    c0 = ((lo - origin) // cell).astype(np.int64)
    c1 = ((hi - origin) // cell).astype(np.int64)
    w, h = c1[:, 0] - c0[:, 0] + 1, c1[:, 1] - c0[:, 1] + 1
    pid = np.repeat(np.arange(count), w * h)
    local = np.arange(pid.shape[0]) - np.repeat(np.cumsum(w * h) - w * h, w * h)
    bucket = (c0[pid, 1] + local // w[pid]) * cols + c0[pid, 0] + local % w[pid]
    order = stable_order(bucket)
    cell_ptr = np.zeros(cols * rows + 1, dtype=np.int64)
    np.cumsum(np.bincount(bucket, minlength=cell_ptr.shape[0] - 1), out=cell_ptr[1:])
    plane = np.zeros((count, 3)) if up_axis < 0 else planes(vertices, poly_ptr, poly_verts, nxt, up_axis)
    return Locator(origin, cell, cols, rows, cell_ptr, pid[order].astype(np.int64), plane, pad)


def planes(vertices: F64, poly_ptr: I64, poly_verts: I64, nxt: I64, u: int) -> F64:
    """Per polygon ``(a, b, c)`` with height ``a * x + b * y + c`` (Newell normal); a vertical
    polygon gets its mean height."""
    i, j = PLANE_AXES[u]
    v = vertices[poly_verts]
    w = vertices[poly_verts[nxt]]
    normal = np.add.reduceat(np.cross(v, w), poly_ptr[:-1], axis=0)
    centre = np.add.reduceat(v, poly_ptr[:-1], axis=0) / np.diff(poly_ptr)[:, None]
    flat = np.abs(normal[:, u]) < 1e-12 * np.maximum(np.linalg.norm(normal, axis=1), 1e-300)
    nu = np.where(flat, 1.0, normal[:, u])
    a = np.where(flat, 0.0, -normal[:, i] / nu)
    b = np.where(flat, 0.0, -normal[:, j] / nu)
    c = centre[:, u] - a * centre[:, i] - b * centre[:, j]
    return np.ascontiguousarray(np.stack([a, b, c], axis=1))

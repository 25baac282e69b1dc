"""The exact union of many 2D triangles (a mesh's shadow), without a union of every triangle.

shapely.union_all over the ~30,000 projected triangles of one UR5 link takes seconds. But
the union's boundary can only run along triangle edges, and an edge that two triangles share
with their third corners on opposite sides is covered on both sides: it is inside. So:

1. keep the other edges (silhouettes, open borders, T-junctions, non-manifold edges);
2. node them and polygonize: faces of an arrangement whose boundary contains the union's;
3. each face lies wholly inside or wholly outside the union: test one interior point of each
   against the triangles (candidates by bounding box through an STRtree, then GEOS's exact
   point-in-polygon predicate);
4. merge the inside faces (they share edges exactly: a coverage union).

A large input goes through this in runs of consecutive triangles (RUN), then the runs' shadows
are unioned: their outlines cross far less often than all the silhouettes do.

Keeping an edge that is not on the boundary only splits a face, so the rule can be
conservative; the result equals shapely.union_all of the triangles (tests compare them).
"""

from __future__ import annotations


def _kept_edges(tris):
    """Segments (k, 2, 2) of the edges that can lie on the union's boundary."""
    import numpy as np

    # unique corners: (x, y) viewed as one complex number sorts 6x faster than rows
    flat = np.ascontiguousarray(tris.reshape(-1, 2), dtype=np.float64).view(np.complex128)
    uniq, ids = np.unique(flat.ravel(), return_inverse=True)
    points = np.stack([uniq.real, uniq.imag], axis=1)
    ids = ids.reshape(-1, 3)
    a, b, c = ids[:, 0], ids[:, 1], ids[:, 2]
    # every triangle edge (p, q) with the triangle's third corner r
    p, q, r = (np.concatenate(x) for x in ((a, b, c), (b, c, a), (c, a, b)))
    lo, hi = np.minimum(p, q), np.maximum(p, q)
    P, Q, R = points[lo], points[hi], points[r]
    side = np.sign((Q[:, 0] - P[:, 0]) * (R[:, 1] - P[:, 1])
                   - (Q[:, 1] - P[:, 1]) * (R[:, 0] - P[:, 0]))
    key = lo.astype(np.int64) * len(points) + hi
    order = np.argsort(key, kind="stable")
    key, side = key[order], side[order]
    starts = np.flatnonzero(np.r_[True, key[1:] != key[:-1]])
    counts = np.diff(np.r_[starts, len(key)])
    inside = np.zeros(len(starts), dtype=bool)
    two = starts[counts == 2]
    inside[counts == 2] = side[two] * side[two + 1] < 0  # covered on both sides
    kept = key[starts[~inside]]
    return np.stack([points[kept // len(points)], points[kept % len(points)]], axis=1)


def _covered(points, triangles):
    """Mask of the `points` (shapely) in or on any of `triangles`: GEOS's exact predicate on
    the pairs an STRtree of the points finds by bounding box."""
    import numpy as np
    import shapely

    mask = np.zeros(len(points), dtype=bool)  # (not np.unique: it imports numpy.ma, 30 ms)
    mask[shapely.STRtree(points).query(triangles, predicate="intersects")[1]] = True
    return mask


# Triangles per arrangement. A detailed mesh's silhouettes cross each other inside its shadow
# thousands of times; in runs of consecutive triangles (a file's parts) far fewer do, and the
# union of the runs' shadows only nodes their outlines: about half the time on a UR5 link.
RUN = 4096


def triangles_union(tris):
    """The union (a shapely geometry) of triangles `tris` (n, 3, 2), each of non-zero area."""
    import numpy as np
    import shapely

    if len(tris) > RUN:
        runs = np.array_split(tris, -(-len(tris) // RUN))
        return shapely.union_all([_arrangement_union(run) for run in runs])
    return _arrangement_union(tris)


def _arrangement_union(tris):
    import shapely

    triangles = shapely.polygons(tris)
    if len(tris) < 64:  # small: the plain union is as fast
        return shapely.union_all(triangles)
    lines = shapely.multilinestrings(shapely.linestrings(_kept_edges(tris)))
    faces = shapely.get_parts(shapely.polygonize(shapely.get_parts(shapely.node(lines))))
    if len(faces) == 0:
        return shapely.union_all(triangles)
    inside = faces[_covered(shapely.point_on_surface(faces), triangles)]
    try:
        return shapely.coverage_union_all(inside)
    except shapely.errors.GEOSException:  # faces not exactly noded: the general union
        return shapely.union_all(inside)

"""Triangle trees: each mesh solid's triangles under a binary tree of bounding spheres, in its
group's frame and in double, for the certifying C build's exact tests (a leaf holds at most
LEAF_TRIANGLES triangles, and its sphere every point of them, so a test at the leaves is a test
of the mesh itself, with no sphere's bulge in between).

Built level by level, every node of a level at once: a node's triangles are split at the median
of their centroids along the axis those centroids spread most.
"""

from __future__ import annotations

import weakref

import numpy as np

from robrayc.ctext import c_doubles
from robrayc.records import record

LEAF_TRIANGLES = 2

# hull points a cluster (hulls.c's HULL_CLUSTER): a support skips every cluster whose sphere
# says it cannot beat the best point found so far
HULL_CLUSTER = 64
# The depth of the tree nodes that get hull points of their own besides the roots (16 parts of
# a mesh): meshes.c's search tries a plane between two nodes' hulls where both have them. The
# search splits the larger node first, so a small mesh's root meets these parts of a large one
# (UR5's third wrist link, the sixteenths of its forearm): NAME_check8 -30 %, NAME_check
# -12 % of UR5's instructions (docs/performance.md; other depths measured there).
HULL_DEPTH = 4


@record(frozen=True)
class TriangleTrees:
    """Every mesh solid's triangle tree, as the C tables hold them: nodes (x, y, z, radius;
    group frame), their children (internal: first child, 2; leaf: first triangle, minus its
    count), the triangles (9 coordinates each, group frame), each solid's root (-1: not a mesh),
    each node's solid and each node's oriented box (node_boxes)."""

    nodes: np.ndarray  # (N, 4) float64
    kids: np.ndarray  # (N, 2) int32
    triangles: np.ndarray  # (T, 9) float64
    roots: np.ndarray  # (solids,) int32
    node_solid: np.ndarray  # (N,) int64
    boxes: np.ndarray  # (N, 15) float64: each node's box, see node_boxes
    hull: np.ndarray  # float64: each mesh's hull points (hull_points, in clusters:
    # hull_clusters), group frame: their x, then their y, then their z, then the clusters'
    # spheres (centres' x, y, z, radii)
    hull_spans: np.ndarray  # (solids, 2) int32: each mesh's first double in hull, its points'
    # count
    node_hulls: np.ndarray  # (N, 2) int32: as hull_spans for each node (a root: its mesh's; a
    # node HULL_DEPTH below it: its own triangles' hull points); count 0: none


def _segments(lo: np.ndarray, hi: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The positions lo[k]..hi[k] of every segment k laid end to end, each position's segment,
    and each segment's first place in that row."""
    sizes = hi - lo
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.int64)
    label = np.repeat(np.arange(len(sizes)), sizes)
    return np.arange(int(sizes.sum())) + (lo - starts)[label], label, starts


def _spheres(tri: np.ndarray, order: np.ndarray, lo: np.ndarray, hi: np.ndarray
             ) -> np.ndarray:
    """(nodes, 4): the sphere of each node's triangles (order[lo:hi]): the centre of their
    bounding box, the radius reaching their farthest vertex."""
    pos, label, starts = _segments(lo, hi)
    t = tri[order[pos]]  # (K, 3, 3)
    low = np.minimum.reduceat(t.min(axis=1), starts)
    high = np.maximum.reduceat(t.max(axis=1), starts)
    centre = (low + high) / 2
    far = np.sqrt(((t - centre[label][:, None]) ** 2).sum(axis=2)).max(axis=1)
    radius = np.maximum.reduceat(far, starts)
    # the radius as computed reaches every vertex up to rounding: a relative 1e-12 more
    return np.column_stack([centre, radius * (1 + 1e-12) + 1e-300])


def _triangle_spans(kids: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The first and one past the last triangle under each node of a tree (kids as in
    TriangleTrees, numbered from 0)."""
    first = np.empty(len(kids), np.int64)
    last = np.empty(len(kids), np.int64)
    leaf = kids[:, 1] < 0
    first[leaf], last[leaf] = kids[leaf, 0], kids[leaf, 0] - kids[leaf, 1]
    for n in np.flatnonzero(~leaf)[::-1]:  # children come after their parent
        first[n], last[n] = first[kids[n, 0]], last[kids[n, 0] + 1]
    return first, last


def _nodes_at_depth(kids: np.ndarray, depth: int) -> np.ndarray:
    """The nodes `depth` levels below the root of a tree (kids numbered from 0)."""
    level = np.zeros(1, np.int64)
    for _ in range(depth):
        inner = level[kids[level, 1] > 0]
        level = (kids[inner, 0][:, None] + np.arange(2)).ravel()
    return level


def node_boxes(tri: np.ndarray, nodes: np.ndarray, kids: np.ndarray) -> np.ndarray:
    """(N, 15): each node's oriented box holding its triangles (tri (T, 3, 3) in the tree's
    order): rotation row-major with the box axes as columns (its points' principal axes),
    centre, half extents. A thin or long triangle has a thin box where its sphere is wide:
    what lets meshes.c's exact tests skip most of two meshes that come close."""
    first, last = _triangle_spans(kids)
    pos, label, starts = _segments(first, last)
    pts = tri[pos].reshape(-1, 3)  # 3 corners a triangle
    plabel, pstarts = np.repeat(label, 3), 3 * starts
    count = np.diff(np.r_[pstarts, len(pts)])[:, None]
    mean = np.add.reduceat(pts, pstarts) / count
    d = pts - mean[plabel]
    cov = np.add.reduceat(d[:, :, None] * d[:, None, :], pstarts)
    axes = np.linalg.eigh(cov)[1]  # (N, 3, 3): columns the axes
    local = np.einsum("kji,kj->ki", axes[plabel], pts)
    lo, hi = np.minimum.reduceat(local, pstarts), np.maximum.reduceat(local, pstarts)
    centre = np.einsum("kij,kj->ki", axes, (lo + hi) / 2)
    # the half extents as computed hold every corner up to rounding: a relative 1e-12 more,
    # and as much of the box's reach (the axes' rounding)
    reach = np.abs(centre).max(axis=1, keepdims=True) + (hi - lo).max(axis=1, keepdims=True)
    half = (hi - lo) / 2 * (1 + 1e-12) + 1e-12 * reach + 1e-300
    return np.column_stack([axes.reshape(-1, 9), centre, half])


def hull_points(tri: np.ndarray) -> np.ndarray:
    """(H, 3): corners of triangles tri (T, 3, 3) whose convex hull is theirs (hulls.c's
    supports run over them): those on or near a facet of their hull as qhull finds it, every
    other one inside each facet's plane by far more than its rounding; all the distinct
    corners without scipy, or when qhull finds no solid hull (a flat mesh)."""
    points = np.unique(tri.reshape(-1, 3), axis=0)
    try:
        from scipy.spatial import ConvexHull, QhullError
    except ImportError:  # scipy is an extra: the corners' hull is theirs too, only slower
        return points
    try:
        planes = ConvexHull(points).equations  # (F, 4): unit normal n, offset: n . x + offset
    except (QhullError, ValueError):
        return points
    size = float(np.abs(points).max()) + float(np.ptp(points, axis=0).max())
    # kept: within 1e-9 of the points' size of a facet's plane or past it (qhull leaves out
    # only points its rounding, ~1e-15 of that, puts on a facet)
    near = (points @ planes[:, :3].T + planes[:, 3]).max(axis=1) >= -1e-9 * size
    return points[near]


def _cluster_order(points: np.ndarray, index: np.ndarray) -> np.ndarray:
    """index reordered so that each run of HULL_CLUSTER (all but the last full) lies close
    together: halved along the points' widest spread, the first half a whole number of runs."""
    if len(index) <= HULL_CLUSTER:
        return index
    p = points[index]
    index = index[np.argsort(p[:, np.ptp(p, axis=0).argmax()], kind="stable")]
    half = HULL_CLUSTER * -(-len(index) // (2 * HULL_CLUSTER))
    return np.concatenate([_cluster_order(points, index[:half]),
                           _cluster_order(points, index[half:])])


def hull_clusters(points: np.ndarray) -> np.ndarray:
    """hulls.c's layout of a mesh's hull points (H > 0, 3): in clusters of HULL_CLUSTER (the last
    may hold fewer) that lie close together, their x, then y, then z; then each cluster's
    sphere, its centres' x, y, z and radii. A radius holds its points by far more than the
    rounding of the dot products hulls.c compares (a relative 1e-15 of the mesh's size): 1e-9
    of that size more, so a cluster skipped for its sphere holds no point that could have
    been the support."""
    p = points[_cluster_order(points, np.arange(len(points)))]
    runs = [p[k:k + HULL_CLUSTER] for k in range(0, len(p), HULL_CLUSTER)]
    centres = np.array([(r.min(axis=0) + r.max(axis=0)) / 2 for r in runs])
    size = float(np.abs(p).max()) + float(np.ptp(p, axis=0).max())
    radii = np.array([np.linalg.norm(r - c, axis=1).max() for r, c in zip(runs, centres,
                                                                            strict=True)])
    radii = radii * (1 + 1e-9) + 1e-9 * size
    return np.concatenate([p.T.ravel(), centres.T.ravel(), radii])


def triangle_tree(tri: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(nodes (N, 4), kids (N, 2) as in TriangleTrees with triangles numbered in the returned
    order, order (T,)) for triangles tri (T, 3, 3); breadth first, node 0 the root."""
    n = len(tri)
    centroid = tri.mean(axis=1)
    order = np.arange(n)
    lo, hi = np.array([0]), np.array([n])
    nodes, kids, first_id = [], [], 0
    while len(lo):
        nodes.append(_spheres(tri, order, lo, hi))
        split = hi - lo > LEAF_TRIANGLES
        s_lo, s_hi = lo[split], hi[split]
        if len(s_lo):
            pos, label, starts = _segments(s_lo, s_hi)
            c = centroid[order[pos]]
            spread = np.maximum.reduceat(c, starts) - np.minimum.reduceat(c, starts)
            key = c[np.arange(len(pos)), np.argmax(spread, axis=1)[label]]
            order[pos] = order[pos][np.lexsort((key, label))]
        mid = (s_lo + s_hi) // 2
        next_id = first_id + len(lo)
        kid = np.column_stack([lo, -(hi - lo)])  # leaves: their triangles
        kid[split, 0] = next_id + 2 * np.arange(len(s_lo))
        kid[split, 1] = 2
        kids.append(kid)
        first_id = next_id
        lo = np.column_stack([s_lo, mid]).ravel()
        hi = np.column_stack([mid, s_hi]).ravel()
    return np.concatenate(nodes), np.concatenate(kids), order


def _mesh_hulls(tri: np.ndarray, kids: np.ndarray, at: int
                ) -> tuple[list[np.ndarray], np.ndarray]:
    """The hull points of one mesh (tri (T, 3, 3) in its tree's order; kids numbered from 0)
    and of its nodes HULL_DEPTH below the root, in hull_clusters' layout, and each node's span
    (first double, count; the root's the mesh's, 0 for none), the first at double `at`."""
    spans = np.zeros((len(kids), 2), dtype=np.int32)
    first, last = _triangle_spans(kids)
    layouts = []
    for n in [0, *_nodes_at_depth(kids, HULL_DEPTH).tolist()]:
        points = hull_points(tri[first[n]:last[n]])
        spans[n] = at, len(points)
        layouts.append(hull_clusters(points))
        at += len(layouts[-1])
    return layouts, spans


# each checker's trees, made once: the kernel binds them, and the cells' and crossing
# witnesses' certifying build too (Fetch: ~0.8 s each time)
_TREES: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def triangle_trees(checker) -> TriangleTrees:
    """The triangle trees of the checker's mesh solids (made once a checker)."""
    trees = _TREES.get(checker)
    if trees is None:
        trees = _TREES[checker] = _triangle_trees(checker)
    return trees


def _triangle_trees(checker) -> TriangleTrees:
    """triangle_trees, made anew."""
    s = checker.solids
    nodes, kids, tris, owner, boxes, hulls, node_hulls = [], [], [], [], [], [], []
    roots = np.full(len(s), -1, dtype=np.int32)
    spans = np.zeros((len(s), 2), dtype=np.int32)
    n_nodes = n_tris = n_hull = 0
    for k, item in enumerate(s.items):
        if item.faces is None or not len(item.faces):
            continue
        T = s.placement[k]
        v = item.vertices @ T[:3, :3].T + T[:3, 3]
        tri = v[item.faces]
        node, kid, order = triangle_tree(tri)
        boxes.append(node_boxes(tri[order], node, kid))
        layouts, node_hull = _mesh_hulls(tri[order], kid, n_hull)
        spans[k] = node_hull[0]
        hulls += layouts
        n_hull += sum(map(len, layouts))
        node_hulls.append(node_hull)
        leaf = kid[:, 1] < 0
        kid[leaf, 0] += n_tris
        kid[~leaf, 0] += n_nodes
        roots[k] = n_nodes
        nodes.append(node)
        kids.append(kid)
        tris.append(tri[order].reshape(-1, 9))
        owner.append(np.full(len(node), k))
        n_nodes += len(node)
        n_tris += len(tri)
    return TriangleTrees(np.concatenate(nodes or [np.zeros((0, 4))]),
                         np.concatenate(kids or [np.zeros((0, 2))]).astype(np.int32),
                         np.concatenate(tris or [np.zeros((0, 9))]), roots,
                         np.concatenate(owner or [np.zeros(0)]).astype(np.int64),
                         np.concatenate(boxes or [np.zeros((0, 15))]),
                         np.concatenate(hulls or [np.zeros(0)]), spans,
                         np.concatenate(node_hulls or [np.zeros((0, 2))]).astype(np.int32))


def c_tables(t: TriangleTrees) -> dict:
    """The templates' static triangle tables of a generated checker (CHECKER_TRIANGLES 1:
    meshes.c decides the pairs with meshes, hulls.c proves near pairs apart), or none when
    it has no mesh."""
    if not len(t.triangles):
        return {}
    return {"n_tnodes_decl": len(t.nodes), "n_tris_decl": len(t.triangles),
            "tnodes": [c_doubles(row) for row in t.nodes.tolist()],
            "tkids": [f"{a}, {b}" for a, b in t.kids.tolist()],
            "tris": [c_doubles(row) for row in t.triangles.tolist()],
            "troots": ", ".join(map(str, t.roots.tolist())),
            "tboxes": [c_doubles(row) for row in t.boxes.tolist()],
            "n_hull_decl": max(1, len(t.hull)),
            "thull": [c_doubles(t.hull[k:k + 4].tolist()) for k in range(0, len(t.hull), 4)]
            or ["0"],
            "thull_spans": [f"{a}, {b}" for a, b in t.hull_spans.tolist()],
            "tnode_hulls": [f"{a}, {b}" for a, b in t.node_hulls.tolist()]}

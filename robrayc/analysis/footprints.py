"""Footprints of single geometries for the 2D projection, and the 3D solids of the writers
that keep 3D objects (CajunBot) or sample solids (pictures' framing).

A footprint is the geometry's projection onto the world XY plane, clipped to a height band:
convex solids as polytopes (kept vertices plus edge/plane intersections), spheres exactly,
meshes triangle by triangle plus their cross-sections at the band planes. numpy and shapely are
imported inside functions (start-up).
"""

from __future__ import annotations

import math

from robrayc import ir
from robrayc.diagnostics import DiagnosticSink
from robrayc.kinematics import quat_to_matrix
from robrayc.meshes.model import closed_surface as _closed_surface
from robrayc.records import field, record

DEFAULT_SEGMENTS = 64


@record(frozen=True)
class ProjectionOptions:
    z_min: float | None = None
    z_max: float | None = None
    hull: bool = False
    roles: dict[str, str] = field(default_factory=dict)  # --role TAG -> ROLE
    robot_frames: tuple[str, ...] = ()
    segments: int = DEFAULT_SEGMENTS
    configuration: dict[str, float] = field(default_factory=dict)

    @property
    def band(self) -> tuple[float, float]:
        lo = -math.inf if self.z_min is None else self.z_min
        hi = math.inf if self.z_max is None else self.z_max
        return lo, hi


# --- footprints of single geometries ------------------------------------------------------------
def geometry_footprint(g: ir.Geometry, pose, opts: ProjectionOptions,
                       sink: DiagnosticSink):
    """(polygon, z_low, z_high) of one geometry at world pose (q, v), or (None, 0, 0) when
    nothing of it lies in the band or its projection has no area."""
    import numpy as np

    q, v = pose
    rot = np.array(quat_to_matrix(q), dtype=float)
    t = np.array(v, dtype=float)
    return ir.handler(_FOOTPRINTS, g.shape)(g, rot, t, opts, sink)


def _box_corners(shape: ir.Box, s: float):
    """The 8 corners of a scaled box in its frame (index bits: signs of x, y, z)."""
    import numpy as np

    d = np.abs(np.array(shape.dimension, dtype=float)) * abs(s) / 2
    return np.array([[sx * d[0], sy * d[1], sz * d[2]]
                     for sx in (-1, 1) for sy in (-1, 1) for sz in (-1, 1)])


# (id(mesh data), scale, rotation, hull) -> (the data, translation, footprint there)
_SHADOWS: dict[tuple, tuple] = {}


def _mesh_footprint(g: ir.Geometry, rot, t, opts: ProjectionOptions, sink: DiagnosticSink):
    """A mesh's footprint; without a band, computed once per mesh, scale and rotation (a
    mesh placed several times the same way up moves its shadow along)."""
    import shapely

    from robrayc.meshes import load_mesh

    data = load_mesh(g.shape, sink, g.pos)
    if opts.band != (-math.inf, math.inf):  # a band cuts each placement differently
        return _placed_mesh(data, g.scale, rot, t, opts)
    key = (id(data), g.scale, rot.tobytes(), opts.hull)
    hit = _SHADOWS.get(key)
    if hit is None or hit[0] is not data:
        hit = _SHADOWS[key] = (data, t, _placed_mesh(data, g.scale, rot, t, opts))
    _, t0, (poly, z_low, z_high) = hit
    d = t - t0
    if poly is None or not d.any():
        return poly, z_low, z_high
    return shapely.transform(poly, lambda xy: xy + d[:2]), z_low + d[2], z_high + d[2]


def _placed_mesh(data, scale: float, rot, t, opts: ProjectionOptions):
    import numpy as np

    verts = np.asarray(data.vertices, dtype=float) * scale @ rot.T + t
    closed = opts.band == (-math.inf, math.inf) and not opts.hull and _closed(data)
    return _mesh(verts, np.asarray(data.faces), opts.band, opts.hull, closed)


# shape -> (geometry, rotation, translation, options, sink) -> (polygon, z_low, z_high)
_FOOTPRINTS = {
    ir.Sphere: lambda g, rot, t, opts, sink: _sphere(t, abs(g.shape.radius * g.scale), opts.band,
                                                     opts.segments),
    ir.Box: lambda g, rot, t, opts, sink: _convex(_box_corners(g.shape, g.scale) @ rot.T + t,
                                                  _BOX_EDGES, opts.band),
    ir.Cylinder: lambda g, rot, t, opts, sink: _frustum(
        rot, t, g.shape.height * g.scale, g.shape.radius * g.scale, g.shape.radius * g.scale,
        opts.band, opts.segments),
    ir.Cone: lambda g, rot, t, opts, sink: _frustum(
        rot, t, g.shape.height * g.scale, g.shape.start_radius * g.scale,
        g.shape.end_radius * g.scale, opts.band, opts.segments),
    ir.Mesh: _mesh_footprint,
    ir.Grid: lambda g, rot, t, opts, sink: (None, 0.0, 0.0),
}


_BOX_EDGES = [(a, b) for a in range(8) for b in range(a + 1, 8)
              if bin(a ^ b).count("1") == 1]  # corners differing in one sign


def _area_polygon(geom):
    """Keep only polygonal parts with area; None if nothing remains."""
    import shapely

    if geom is None or geom.is_empty:
        return None
    if geom.geom_type == "GeometryCollection":
        parts = [p for p in geom.geoms if p.geom_type in ("Polygon", "MultiPolygon")]
        geom = shapely.union_all(parts) if parts else None
        if geom is None or geom.is_empty:
            return None
    if geom.geom_type not in ("Polygon", "MultiPolygon") or geom.area <= 0:
        return None
    # Unions of many triangles leave slivers and pinholes of round-off size (~1e-18 m^2):
    # they are no geometry, and would become spurious walls. Drop pieces below 1e-12 of
    # the whole.
    tiny = geom.area * 1e-12
    polys = []
    for p in (geom.geoms if geom.geom_type == "MultiPolygon" else [geom]):
        if p.area <= tiny:
            continue
        holes = [h for h in p.interiors if shapely.Polygon(h).area > tiny]
        polys.append(p if len(holes) == len(p.interiors) else shapely.Polygon(p.exterior, holes))
    geom = polys[0] if len(polys) == 1 else shapely.MultiPolygon(polys)
    return shapely.normalize(geom)


def _convex(points, edges, band):
    """Footprint of the convex polytope with these vertices and edges, clipped to the band."""
    import numpy as np
    import shapely

    lo, hi = band
    z = points[:, 2]
    kept = [points[(z >= lo) & (z <= hi)]]
    e = np.asarray(edges, dtype=int)
    a, b = points[e[:, 0]], points[e[:, 1]]
    for plane in (lo, hi):
        if not math.isfinite(plane):
            continue
        za, zb = a[:, 2], b[:, 2]
        cross = (za - plane) * (zb - plane) < 0
        if cross.any():
            s = (plane - za[cross]) / (zb[cross] - za[cross])
            p = a[cross] + s[:, None] * (b[cross] - a[cross])
            p[:, 2] = plane
            kept.append(p)
    pts = np.concatenate(kept)
    if len(pts) == 0:
        return None, 0.0, 0.0
    poly = _area_polygon(shapely.MultiPoint(pts[:, :2]).convex_hull)
    if poly is None:
        return None, 0.0, 0.0
    return poly, float(pts[:, 2].min()), float(pts[:, 2].max())


def _angles(u, v, segments: int):
    """Rim parameters: `segments` even steps plus those where X, Y or Z is extreme (exact
    extents and height range)."""
    import numpy as np

    extra = []
    for k in range(len(u)):  # d/dt (u_k cos t + v_k sin t) = 0
        if abs(u[k]) > 0 or abs(v[k]) > 0:
            t0 = math.atan2(v[k], u[k])
            extra += [t0, t0 + math.pi]
    ts = np.concatenate([np.arange(segments) * (2 * math.pi / segments),
                         np.mod(np.array(extra, dtype=float), 2 * math.pi)])
    ts = np.unique(ts)
    keep = np.concatenate([[True], np.diff(ts) > 1e-12])  # one point where two coincide
    if 2 * math.pi - ts[-1] <= 1e-12 and len(ts) > 1:
        keep[-1] = False
    return ts[keep]


def _frustum(rot, t, height, r0, r1, band, segments):
    """A cylinder (r0 == r1) or cone: rims at the origin and at `height` along local Z."""
    import numpy as np

    r0, r1 = abs(r0), abs(r1)
    u, v, axis = rot[:, 0], rot[:, 1], rot[:, 2]
    ts = _angles(u, v, segments)
    ring = np.cos(ts)[:, None] * u + np.sin(ts)[:, None] * v  # unit rim directions (world)
    bottom = t + r0 * ring
    top = t + height * axis + r1 * ring
    n = len(ts)
    idx = np.arange(n)
    nxt = (idx + 1) % n
    edges = np.concatenate([np.stack([idx, nxt], 1), np.stack([idx + n, nxt + n], 1),
                            np.stack([idx, idx + n], 1)])
    return _convex(np.concatenate([bottom, top]), edges, band)


def _sphere(center, r, band, segments):
    import numpy as np
    import shapely

    lo, hi = band
    zc = float(center[2])
    zlo, zhi = max(lo, zc - r), min(hi, zc + r)
    if r <= 0 or zlo >= zhi:
        return None, 0.0, 0.0
    if zlo <= zc <= zhi:
        re = r
    else:  # the widest section in the band is at the band plane nearest the centre
        d = min(abs(zlo - zc), abs(zhi - zc))
        re = math.sqrt(max(r * r - d * d, 0.0))
    ts = _angles(np.array([1.0, 0.0]), np.array([0.0, 1.0]), segments)
    pts = np.stack([center[0] + re * np.cos(ts), center[1] + re * np.sin(ts)], 1)
    # the axis points exactly (cos/sin of pi/2 are not exact zeros)
    for k, (dx, dy) in enumerate(((re, 0), (0, re), (-re, 0), (0, -re))):
        pts[np.argmin(np.abs(ts - k * math.pi / 2))] = (center[0] + dx, center[1] + dy)
    poly = _area_polygon(shapely.Polygon(pts))
    return (poly, zlo, zhi) if poly is not None else (None, 0.0, 0.0)


def _band_pieces(tris, lo: float, hi: float):
    """The parts of triangles (m, 3, 3) between heights lo and hi: whole and clipped triangles
    (k, 3, 3), and the clipped pieces with more corners (a list of (n, 3) arrays)."""
    import numpy as np

    z = tris[:, :, 2]
    inside = (z >= lo).all(1) & (z <= hi).all(1)
    outside = (z < lo).all(1) | (z > hi).all(1)
    whole, more = [tris[inside]], []
    for tri in tris[~inside & ~outside]:
        clipped = _clip_polygon_z(tri, lo, hi)
        if len(clipped) == 3:
            whole.append(np.array([clipped]))
        elif len(clipped) > 3:
            more.append(np.array(clipped))
    return np.concatenate(whole), more


def _mesh(verts, faces, band, hull: bool, closed: bool):
    import numpy as np
    import shapely

    lo, hi = band
    tris = verts[faces]  # (m, 3, 3)
    banded = math.isfinite(lo) or math.isfinite(hi)
    full, more = _band_pieces(tris, lo, hi) if banded else (tris, [])
    if not len(full) and not more:
        return None, 0.0, 0.0
    zs = np.concatenate([full[:, :, 2].ravel(), *(p[:, 2] for p in more)])
    zlo, zhi = float(zs.min()), float(zs.max())
    if hull:
        pts = np.concatenate([full[:, :, :2].reshape(-1, 2), *(p[:, :2] for p in more)])
        poly = _area_polygon(shapely.MultiPoint(pts).convex_hull)
        return (poly, zlo, zhi) if poly is not None else (None, 0.0, 0.0)
    polys = []
    if len(full):
        arr = full[:, :, :2]
        area2 = ((arr[:, 1, 0] - arr[:, 0, 0]) * (arr[:, 2, 1] - arr[:, 0, 1])
                 - (arr[:, 2, 0] - arr[:, 0, 0]) * (arr[:, 1, 1] - arr[:, 0, 1]))
        keep = np.abs(area2) > 0  # edge-on triangles project to segments: no area
        if not banded and closed:
            # A closed, consistently wound surface: every vertical line through the solid
            # crosses it upward and downward as often, so the up-facing triangles alone (or the
            # down-facing ones) cover the shadow exactly. Union the smaller half.
            up, down = area2 > 0, area2 < 0
            if up.any() and down.any():
                keep = up if up.sum() <= down.sum() else down
        arr = arr[keep]
        if len(arr):
            from robrayc.analysis.shadow import triangles_union

            polys.append(triangles_union(arr))
    for p in more:
        poly = shapely.Polygon(p[:, :2])
        if poly.area > 0:
            polys.append(poly if poly.is_valid else shapely.make_valid(poly))
    # Cross-sections at the band planes: the part of a solid that crosses a plane without any
    # boundary inside the band (e.g. a wall cut through its middle) projects as its section.
    for plane in (lo, hi):
        if math.isfinite(plane) and zlo <= plane <= zhi:
            polys.extend(_section(verts, faces, plane))
    poly = _area_polygon(shapely.union_all(polys)) if polys else None
    return (poly, zlo, zhi) if poly is not None else (None, 0.0, 0.0)


_CLOSED: dict[int, tuple[object, bool]] = {}  # id(MeshData) -> (the data, closed)


def _closed(data) -> bool:
    """Whether a mesh's triangles form a closed surface with consistent winding: every directed
    edge (between exactly equal vertex positions) has exactly one reverse twin. Triangles with
    two equal corners are left out: their own two edges are each other's twins, and they cover
    no area. Computed once per mesh (pose and uniform scale keep the answer)."""
    hit = _CLOSED.get(id(data))
    if hit is None or hit[0] is not data:
        hit = _CLOSED[id(data)] = (data, _closed_surface(data.faces, data.vertices))
    return hit[1]


def _clip_polygon_z(poly, lo: float, hi: float) -> list:
    """Sutherland-Hodgman clipping of a 3D polygon to lo <= z <= hi."""
    pts = [tuple(p) for p in poly]
    for plane, keep_above in ((lo, True), (hi, False)):
        if not math.isfinite(plane) or not pts:
            continue

        def inside(p, plane=plane, keep_above=keep_above):
            return p[2] >= plane if keep_above else p[2] <= plane

        out = []
        for i, cur in enumerate(pts):
            prev = pts[i - 1]
            if inside(cur):
                if not inside(prev):
                    out.append(_cut(prev, cur, plane))
                out.append(cur)
            elif inside(prev):
                out.append(_cut(prev, cur, plane))
        pts = out
    return pts


def _cut(a, b, plane):
    s = (plane - a[2]) / (b[2] - a[2])
    return (a[0] + s * (b[0] - a[0]), a[1] + s * (b[1] - a[1]), plane)


def _section(verts, faces, plane: float) -> list:
    """Polygons of a mesh's cross-section at z = plane, even-odd nested: each triangle crossing
    the plane gives a segment (its corners exactly on the plane count as above it), segments
    joined into closed rings at their shared ends (snapped to a grid far below the section's
    size), the rings' insides combined by exclusive or (open chains, of open meshes, have no
    inside). numpy and shapely only (trimesh's paths need scipy and networkx)."""
    import numpy as np
    import shapely

    tri = np.asarray(verts, dtype=np.float64)[np.asarray(faces)]
    above = tri[:, :, 2] >= plane
    cut = above.any(axis=1) & ~above.all(axis=1)
    tri, above = tri[cut], above[cut]
    if not len(tri):
        return []
    # the lone corner (on its side of the plane) and the edges from it to the other two
    lone = np.where(above.sum(axis=1) == 1, above.argmax(axis=1), (~above).argmax(axis=1))
    rows = np.arange(len(tri))
    a = tri[rows, lone]
    ends = [_plane_point(a, tri[rows, (lone + k) % 3], plane) for k in (1, 2)]
    segments = np.stack(ends, axis=1)
    size = float(np.ptp(segments.reshape(-1, 2), axis=0).max())
    # STL's float32 corners: ends meant to meet may differ in the last bits
    lines = shapely.set_precision(shapely.multilinestrings(segments), size * 1e-7)
    merged = shapely.line_merge(lines)
    rings = [np.asarray(g.coords) for g in getattr(merged, "geoms", [merged])
             if g.geom_type == "LineString" and len(g.coords) >= 4]
    area = None
    for ring in rings:
        if np.abs(ring[0] - ring[-1]).max() > size * 1e-6:
            continue  # an open chain (an open mesh): no inside
        inside = shapely.make_valid(shapely.Polygon(ring))
        area = inside if area is None else shapely.symmetric_difference(area, inside)
    parts = [] if area is None else getattr(area, "geoms", [area])
    return [p for p in parts if p.geom_type == "Polygon" and p.area > 0]


def _plane_point(a, b, plane: float):
    """Where edges a-b (rows) cross z = plane, as (x, y): computed from the lower end, so that
    the two triangles sharing an edge give the very same point."""
    import numpy as np

    lower = (a[:, 2] < b[:, 2])[:, None]
    a, b = np.where(lower, a, b), np.where(lower, b, a)
    s = ((plane - a[:, 2]) / (b[:, 2] - a[:, 2]))[:, None]
    return a[:, :2] + s * (b[:, :2] - a[:, :2])


# --- 3D solids (for the writers that keep 3D objects: CajunBot) ----------------------------------
def world_transform(pose):
    """(3x3 rotation, translation) numpy arrays of a (q, v) pose."""
    import numpy as np

    q, v = pose
    return np.array(quat_to_matrix(q), dtype=float), np.array(v, dtype=float)


def frustum_mesh(height: float, r0: float, r1: float, segments: int):
    """Triangles (vertices, faces) of a cylinder/cone in its own frame: rims at z = 0 and
    z = height, outward-facing for either sign of height; an apex (radius 0) is one vertex."""
    import numpy as np

    ts = np.arange(segments) * (2 * math.pi / segments)
    ring = np.stack([np.cos(ts), np.sin(ts), np.zeros(segments)], 1)
    verts: list = []
    faces: list = []

    def rim(r: float, z: float) -> list[int]:
        base = len(verts)
        if r == 0:
            verts.append((0.0, 0.0, z))
            return [base] * segments
        verts.extend(tuple(p) for p in ring * abs(r) + (0.0, 0.0, z))
        return [base + i for i in range(segments)]

    bottom, top = rim(r0, 0.0), rim(r1, height)
    for i in range(segments):
        j = (i + 1) % segments
        for tri in ((bottom[i], bottom[j], top[j]), (bottom[i], top[j], top[i])):
            if len(set(tri)) == 3:
                faces.append(tri)
    for ids, z, up in ((bottom, 0.0, False), (top, height, True)):
        if len(set(ids)) > 1:  # a cap: fan around its centre
            c = len(verts)
            verts.append((0.0, 0.0, z))
            for i in range(segments):
                j = (i + 1) % segments
                faces.append((c, ids[i], ids[j]) if up else (c, ids[j], ids[i]))
    v = np.array(verts, dtype=float)
    f = np.array(faces, dtype=np.int64)
    if height < 0:  # mirrored along z: flip the winding to keep normals outward
        f = f[:, ::-1]
    return v, f


def solid_points(g: ir.Geometry, sink: DiagnosticSink, segments: int = DEFAULT_SEGMENTS):
    """Points of a geometry's solid in its frame whose hull is the solid (curved shapes sampled):
    for bounding boxes of 3D objects. Grids give their flat rectangle."""
    return ir.handler(_SOLID_POINTS, g.shape)(g.shape, g.scale, g, sink, segments)


def _sphere_points(shape: ir.Sphere, s: float, g, sink, segments):
    import numpy as np

    r = abs(shape.radius * s)
    return np.array([[a * r, 0, 0] for a in (-1, 1)] + [[0, a * r, 0] for a in (-1, 1)]
                    + [[0, 0, a * r] for a in (-1, 1)], dtype=float)


def _grid_points(shape: ir.Grid, s: float, g, sink, segments):
    import numpy as np

    w, h = (abs(c) * abs(s) / 2 for c in shape.dimension)
    return np.array([[a * w, b * h, 0] for a in (-1, 1) for b in (-1, 1)], dtype=float)


def _mesh_points(shape: ir.Mesh, s: float, g, sink, segments):
    import numpy as np

    from robrayc.meshes import load_mesh

    return np.asarray(load_mesh(shape, sink, g.pos).vertices, dtype=float) * s


def _frustum_points(height: float, r0: float, r1: float, segments: int):
    return frustum_mesh(height, r0, r1, max(segments, 4) // 4 * 4)[0]


# shape -> (shape, scale, geometry, sink, segments) -> points in the geometry's frame
_SOLID_POINTS = {
    ir.Box: lambda shape, s, g, sink, segments: _box_corners(shape, s),
    ir.Sphere: _sphere_points,
    ir.Cylinder: lambda shape, s, g, sink, segments: _frustum_points(
        shape.height * s, shape.radius * s, shape.radius * s, segments),
    ir.Cone: lambda shape, s, g, sink, segments: _frustum_points(
        shape.height * s, shape.start_radius * s, shape.end_radius * s, segments),
    ir.Mesh: _mesh_points,
    ir.Grid: _grid_points,
}

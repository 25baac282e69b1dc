"""Exact GJK on support functions (scalar): the frustum tests FCL cannot do."""

from __future__ import annotations

import math

from robrayc.analysis.collision.solids import BOX, CONTACT_TOL, SPHERE


def _support_local(kind: int, par, d) -> tuple[float, float, float]:
    dx, dy, dz = d
    a, b, c = par
    if kind == SPHERE:
        n = math.sqrt(dx * dx + dy * dy + dz * dz)
        return (a * dx / n, a * dy / n, a * dz / n) if n > 0 else (a, 0.0, 0.0)
    if kind == BOX:
        return (math.copysign(a, dx), math.copysign(b, dy), math.copysign(c, dz))
    rxy = math.hypot(dx, dy)
    ux, uy = (dx / rxy, dy / rxy) if rxy > 0 else (0.0, 0.0)
    lo = (a * ux, a * uy, -c)
    hi = (b * ux, b * uy, c)
    if lo[0] * dx + lo[1] * dy + lo[2] * dz > hi[0] * dx + hi[1] * dy + hi[2] * dz:
        return lo
    return hi


def _support_fn(kind, par, T, points=None):
    """World-space support function of a solid at pose T (4x4), or of a point set (local)."""
    R = T[:3, :3].tolist()
    t = T[:3, 3].tolist()
    par = tuple(float(x) for x in par)

    def support(d):
        ld = (R[0][0] * d[0] + R[1][0] * d[1] + R[2][0] * d[2],
              R[0][1] * d[0] + R[1][1] * d[1] + R[2][1] * d[2],
              R[0][2] * d[0] + R[1][2] * d[1] + R[2][2] * d[2])
        if points is not None:
            k = max(range(len(points)),
                    key=lambda i: points[i][0] * ld[0] + points[i][1] * ld[1]
                    + points[i][2] * ld[2])
            p = points[k]
        else:
            p = _support_local(kind, par, ld)
        return (R[0][0] * p[0] + R[0][1] * p[1] + R[0][2] * p[2] + t[0],
                R[1][0] * p[0] + R[1][1] * p[1] + R[1][2] * p[2] + t[1],
                R[2][0] * p[0] + R[2][1] * p[1] + R[2][2] * p[2] + t[2])
    return support


def _dot(a, b):
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]


def _sub(a, b):
    return (a[0] - b[0], a[1] - b[1], a[2] - b[2])


def _cross(a, b):
    return (a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0])


def _comb(pts, idx, w):
    return tuple(sum(pts[i][k] * wi for i, wi in zip(idx, w, strict=True)) for k in range(3))


def _closest_triangle(w, i, j, k):
    """Closest point of triangle (w[i], w[j], w[k]) to the origin: (indices, weights)
    (Ericson 5.1.5 with P = 0)."""
    a, b, c = w[i], w[j], w[k]
    ab, ac = _sub(b, a), _sub(c, a)
    ap = (-a[0], -a[1], -a[2])
    d1, d2 = _dot(ab, ap), _dot(ac, ap)
    if d1 <= 0 and d2 <= 0:
        return (i,), (1.0,)
    bp = (-b[0], -b[1], -b[2])
    d3, d4 = _dot(ab, bp), _dot(ac, bp)
    if d3 >= 0 and d4 <= d3:
        return (j,), (1.0,)
    vc = d1 * d4 - d3 * d2
    if vc <= 0 and d1 >= 0 and d3 <= 0:
        v = d1 / (d1 - d3)
        return (i, j), (1 - v, v)
    cp = (-c[0], -c[1], -c[2])
    d5, d6 = _dot(ab, cp), _dot(ac, cp)
    if d6 >= 0 and d5 <= d6:
        return (k,), (1.0,)
    vb = d5 * d2 - d1 * d6
    if vb <= 0 and d2 >= 0 and d6 <= 0:
        v = d2 / (d2 - d6)
        return (i, k), (1 - v, v)
    va = d3 * d6 - d5 * d4
    if va <= 0 and (d4 - d3) >= 0 and (d5 - d6) >= 0:
        v = (d4 - d3) / ((d4 - d3) + (d5 - d6))
        return (j, k), (1 - v, v)
    den = va + vb + vc
    if den <= 0:  # degenerate (collinear) triangle: best of its edges
        return min((_closest_segment(w, i, j), _closest_segment(w, j, k),
                    _closest_segment(w, i, k)),
                   key=lambda r: _norm2(_comb(w, *r)))
    v, u = vb / den, vc / den
    return (i, j, k), (1 - v - u, v, u)


def _closest_segment(w, i, j):
    a, b = w[i], w[j]
    ab = _sub(b, a)
    ll = _dot(ab, ab)
    t = 0.0 if ll <= 0 else min(max(-_dot(a, ab) / ll, 0.0), 1.0)
    if t <= 0:
        return (i,), (1.0,)
    if t >= 1:
        return (j,), (1.0,)
    return (i, j), (1 - t, t)


def _norm2(v):
    return _dot(v, v)


def _closest_simplex(w, idx):
    """(indices, weights) of the closest point of simplex w[idx] to the origin; weights None
    when the origin is inside a tetrahedron."""
    if len(idx) == 1:
        return idx, (1.0,)
    if len(idx) == 2:
        return _closest_segment(w, *idx)
    if len(idx) == 3:
        return _closest_triangle(w, *idx)
    i, j, k, m = idx
    best = None
    outside_any = False
    for (a, b, c, d) in ((i, j, k, m), (i, j, m, k), (i, k, m, j), (j, k, m, i)):
        n = _cross(_sub(w[b], w[a]), _sub(w[c], w[a]))
        side_o = -_dot(n, w[a])
        side_d = _dot(n, _sub(w[d], w[a]))
        if side_o * side_d <= 0:  # origin on the far side of (or on) this face
            outside_any = True
            r = _closest_triangle(w, a, b, c)
            dist = _norm2(_comb(w, *r))
            if best is None or dist < best[0]:
                best = (dist, r)
    if not outside_any:
        return idx, None
    return best[1]


def _unit(v):
    n = math.sqrt(_norm2(v))
    return (v[0] / n, v[1] / n, v[2] / n) if n > 0 else None


def _touching(support_a, support_b, simplex, last_v, scale: float) -> bool:
    """With the origin (within CONTACT_TOL) on a GJK simplex: is there a direction (the last
    search direction, the simplex's normals) along which A - B reaches past the origin by at
    most CONTACT_TOL + 1e-7 x its size? Then the solids touch; none found: they overlap. (The
    relative part covers the error of a direction taken from a vector of length ~1e-9.)"""
    tol = CONTACT_TOL + 1e-7 * scale
    first = [_unit((-last_v[0], -last_v[1], -last_v[2]))] if last_v is not None else []
    if len(simplex) >= 3:
        n = _unit(_cross(_sub(simplex[1], simplex[0]), _sub(simplex[2], simplex[0])))
        dirs = [n] if n else []
    elif len(simplex) == 2:
        d = _sub(simplex[1], simplex[0])
        k = min(range(3), key=lambda i: abs(d[i]))
        axis = tuple(1.0 if i == k else 0.0 for i in range(3))
        e1 = _unit(_cross(d, axis))
        dirs = [e1, _unit(_cross(d, e1))] if e1 else []
    else:
        dirs = [(1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (0.0, 0.0, 1.0)]
    if not dirs:  # a degenerate simplex: no direction to vouch for either answer
        dirs = [(1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (0.0, 0.0, 1.0)]
    for n in first + dirs:
        if n is None:
            continue
        for u in (n, (-n[0], -n[1], -n[2])):
            w = _sub(support_a(u), support_b((-u[0], -u[1], -u[2])))
            if _dot(u, w) <= tol:
                return True
    return False


def gjk(support_a, support_b, d0, *, boolean: bool, max_iter: int = 200):
    """GJK on the Minkowski difference A - B. Returns (colliding, distance, touching):
    colliding when a simplex encloses the origin; touching (not colliding) when the solids come
    within CONTACT_TOL without that. With ``boolean`` it stops at the first separating plane
    (distance then 0.0). 'Separated' is only returned with a separating plane in hand: a
    boolean run that stalls without one answers touching (undecided: the caller decides by
    separating axes, narrow.PairTester.exact_convex)."""
    pa, pb = support_a(d0), support_b((-d0[0], -d0[1], -d0[2]))
    W = [_sub(pa, pb)]
    idx: tuple = (0,)
    wts: tuple | None = (1.0,)
    v = W[0]
    scale = max(1e-300, math.sqrt(_norm2(v)))
    tol = CONTACT_TOL
    last_v = None
    for _ in range(max_iter):
        vv = _norm2(v)
        if vv <= tol * tol:  # the origin on the simplex: touching, or overlapping?
            touch = _touching(support_a, support_b, [W[i] for i in idx], last_v, scale)
            return (not touch), 0.0, touch
        last_v = v
        nv = (-v[0], -v[1], -v[2])
        a, b = support_a(nv), support_b(v)
        w = _sub(a, b)
        vw = _dot(v, w)
        if boolean and vw > 0:  # a separating plane
            return False, 0.0, False
        if vv - vw <= 1e-12 * vv:  # no progress: |v| is the distance
            break
        W.append(w)
        idx, wts = _closest_simplex(W, (*idx, len(W) - 1))
        if wts is None:
            return True, 0.0, False
        v = _comb(W, idx, wts)
        scale = max(scale, math.sqrt(_norm2(w)))
    else:  # out of iterations (not seen in practice): decide by the distance bound in hand
        if _norm2(v) <= (1e-9 * scale) ** 2:
            return False, 0.0, True
    if boolean:  # stalled without a separating plane: the origin may be a hair inside
        # (a cone's rim 1e-8 into a cylinder stalls at |v| = 7e-9): not for GJK to say
        return False, 0.0, True
    return False, math.sqrt(_norm2(v)), False


"""Closed-form and separating-axis tests, vectorised over K candidate pairs: signed distances,
projections and support functions of primitives, the oriented-box SAT, segment closest points."""

from __future__ import annotations

import numpy as np

from robrayc.analysis.collision.solids import BOX, CONTACT_TOL, CYLINDER, FRUSTUM, SPHERE, Solids

_EPS_SAT = 1e-12  # added to |R| in the SAT: keeps near-parallel edge axes from false separation


def _local(R: np.ndarray, t: np.ndarray, p: np.ndarray) -> np.ndarray:
    """World points p (..., K, 3) in frames (R, t) (K each): R^T (p - t)."""
    return np.einsum("kji,...kj->...ki", R, p - t)


def box_distance(p: np.ndarray, half: np.ndarray) -> np.ndarray:
    """Signed distance from local points p (..., 3) to centred boxes (half extents (..., 3))."""
    q = np.abs(p) - half
    outside = np.sqrt((np.maximum(q, 0.0) ** 2).sum(axis=-1))
    return outside + np.minimum(q.max(axis=-1), 0.0)


def _closest_2d(px, pz, ax, az, bx, bz):
    """Closest points (and squared distances) of 2-D points to segments, broadcasting."""
    ex, ez = bx - ax, bz - az
    ll = ex * ex + ez * ez
    # A zero-length edge has ex = ez = 0, so t = 0 / 1 = 0: no division warnings to silence.
    t = np.clip(((px - ax) * ex + (pz - az) * ez) / np.where(ll > 0, ll, 1.0), 0.0, 1.0)
    qx, qz = ax + t * ex, az + t * ez
    return qx, qz, (px - qx) ** 2 + (pz - qz) ** 2


def _meridian(p: np.ndarray, par: np.ndarray):
    """rho, z, inside, and the closest point (qx, qz, squared distance) on the outer edges
    (bottom cap, side, top cap) of the half meridian section, for local points p (..., 3) and
    round solids par (..., 3): plain ufuncs only (this runs on every candidate batch)."""
    rho = np.hypot(p[..., 0], p[..., 1])
    z = p[..., 2]
    r_lo, r_hi, hh = par[..., 0], par[..., 1], par[..., 2]
    qx, qz, d2 = _closest_2d(rho, z, 0.0, -hh, r_lo, -hh)
    for ax, az, bx, bz in ((r_lo, -hh, r_hi, hh), (r_hi, hh, 0.0, hh)):
        x2, z2, e2 = _closest_2d(rho, z, ax, az, bx, bz)
        better = e2 < d2
        qx, qz, d2 = np.where(better, x2, qx), np.where(better, z2, qz), np.minimum(e2, d2)
    slant = (r_hi - r_lo) * (z + hh) - 2 * hh * (rho - r_lo)
    inside = (np.abs(z) <= hh) & (slant >= 0) & (rho <= np.maximum(r_lo, r_hi))
    return rho, z, inside, qx, qz, d2


def round_distance(p: np.ndarray, par: np.ndarray) -> np.ndarray:
    """Signed distance from local points p (..., 3) to cylinders/cones/frusta (par (..., 3):
    r_lo, r_hi, hh): exact, in the meridian plane through each point (negative inside)."""
    _, _, inside, _, _, d2 = _meridian(p, par)
    d = np.sqrt(d2)
    return np.where(inside, -d, d)


_I1, _I2 = np.array([1, 2, 0]), np.array([2, 0, 1])


def face_separated(Ra, ta, ha, Rb, tb, hb) -> tuple[np.ndarray, ...]:
    """sat_separated on the boxes' six face normals only (apart or touching along one; the
    cheap part), and what the edge axes need: Rb and tb in A's frame, |R| + eps."""
    R = np.einsum("kji,kjl->kil", Ra, Rb)  # Rb in A's frame
    T = np.einsum("kji,kj->ki", Ra, tb - ta)
    A = np.abs(R) + _EPS_SAT
    tol = CONTACT_TOL
    sep = (np.abs(T) >= ha + np.einsum("kij,kj->ki", A, hb) - tol).any(axis=1)
    TB = np.einsum("kij,ki->kj", R, T)
    sep |= (np.abs(TB) >= np.einsum("ki,kij->kj", ha, A) + hb - tol).any(axis=1)
    return sep, R, T, A


def sat_separated(Ra, ta, ha, Rb, tb, hb) -> np.ndarray:
    """Oriented boxes (K rotations, centres, half extents) that overlap by at most CONTACT_TOL
    along one of the 15 axes of the separating-axis theorem (apart or touching): exact for two
    boxes, conservative for bounding boxes."""
    sep, R, T, A = face_separated(Ra, ta, ha, Rb, tb, hb)
    tol = CONTACT_TOL
    # The nine axes A_i x B_j at once, as (K, i, j) arrays.
    ra = ha[:, _I1, None] * A[:, _I2, :] + ha[:, _I2, None] * A[:, _I1, :]
    rb = hb[:, None, _I1] * A[:, :, _I2] + hb[:, None, _I2] * A[:, :, _I1]
    lhs = np.abs(T[:, _I2, None] * R[:, _I1, :] - T[:, _I1, None] * R[:, _I2, :])
    # The axis has length sin(angle) <= 1: scaling the tolerance by it keeps the test exact
    # for near-parallel edges.
    length = np.sqrt(np.maximum(1.0 - R * R, 0.0))
    sep |= ((lhs >= ra + rb - tol * length) & (length > 1e-9)).any(axis=(1, 2))
    return sep


def segment_closest(p1, q1, p2, q2) -> tuple[np.ndarray, np.ndarray]:
    """Closest points of segments p1q1 and p2q2 (K,3 each), Ericson 5.1.9, vectorised (a
    segment may be a point)."""
    d1, d2, r = q1 - p1, q2 - p2, p1 - p2
    a = (d1 * d1).sum(1)
    e = (d2 * d2).sum(1)
    f = (d2 * r).sum(1)
    c = (d1 * r).sum(1)
    b = (d1 * d2).sum(1)
    denom = a * e - b * b
    with np.errstate(divide="ignore", invalid="ignore"):
        s_free = np.where(denom > 0, np.clip((b * f - c * e) / denom, 0, 1), 0.0)
        s_lo = np.where(a > 0, np.clip(-c / a, 0, 1), 0.0)
        s_hi = np.where(a > 0, np.clip((b - c) / a, 0, 1), 0.0)
        s = np.where(e > 0, np.where(a > 0, s_free, 0.0), s_lo)
        t = np.where(e > 0, (b * s + f) / e, 0.0)
    s = np.where(t < 0, s_lo, np.where(t > 1, s_hi, s))
    t = np.clip(t, 0, 1)
    return p1 + d1 * s[:, None], p2 + d2 * t[:, None]


def segment_distance2(p1, q1, p2, q2) -> np.ndarray:
    """Squared distance between segments p1q1 and p2q2 (K,3 each)."""
    c1, c2 = segment_closest(p1, q1, p2, q2)
    diff = c1 - c2
    return (diff * diff).sum(1)


def solid_distance(s: Solids, k: np.ndarray, R: np.ndarray, t: np.ndarray,
                   x: np.ndarray) -> np.ndarray:
    """Signed distance from world points x (K,3) to solids k at poses (R, t), closed form;
    +inf for meshes (not known)."""
    p = _local(R, t, x)
    kind, par = s.kind[k], s.par[k]
    out = np.full(len(k), np.inf)
    m = kind == SPHERE
    out[m] = np.sqrt((p[m] ** 2).sum(axis=1)) - par[m, 0]
    m = kind == BOX
    out[m] = box_distance(p[m], par[m])
    m = (kind >= CYLINDER) & (kind <= FRUSTUM)
    out[m] = round_distance(p[m], par[m])
    return out


def project(s: Solids, k: np.ndarray, R: np.ndarray, t: np.ndarray,
            x: np.ndarray) -> np.ndarray:
    """The points of solids k (at poses R, t) nearest to world points x (K,3): closed form for
    spheres, boxes, cylinders, cones and frusta (meshes: never asked)."""
    p = _local(R, t, x)
    kind, par = s.kind[k], s.par[k]
    q = p.copy()
    m = kind == SPHERE
    if m.any():
        n = np.sqrt((p[m] ** 2).sum(axis=1))
        q[m] = p[m] * np.minimum(1.0, par[m, 0] / np.where(n > 0, n, 1.0))[:, None]
    m = kind == BOX
    if m.any():
        q[m] = np.clip(p[m], -par[m], par[m])
    m = (kind >= CYLINDER) & (kind <= FRUSTUM)
    if m.any():
        pm = p[m]
        rho, _, inside, qx, qz, _ = _meridian(pm, par[m])
        safe = np.where(rho > 0, rho, 1.0)
        ux, uy = np.where(rho > 0, pm[:, 0] / safe, 1.0), np.where(rho > 0, pm[:, 1] / safe, 0.0)
        q[m] = np.where(inside[:, None], pm, np.stack([qx * ux, qx * uy, qz], axis=1))
    return np.einsum("kij,kj->ki", R, q) + t


def support(s: Solids, k: np.ndarray, R: np.ndarray, n: np.ndarray) -> np.ndarray:
    """max over solid k (centred, rotated by R) of n . x, closed form; a mesh answers for its
    bounding box (larger: still a valid bound for separation proofs)."""
    d = np.einsum("kji,kj->ki", R, n)
    kind, par = s.kind[k], s.par[k]
    box = (np.abs(d) * s.half[k]).sum(axis=1)  # boxes and meshes
    rho = np.hypot(d[:, 0], d[:, 1])
    rnd = np.maximum(par[:, 0] * rho - par[:, 2] * d[:, 2], par[:, 1] * rho + par[:, 2] * d[:, 2])
    sph = par[:, 0] * np.sqrt((d * d).sum(axis=1))
    return np.where(kind == SPHERE, sph, np.where((kind >= CYLINDER) & (kind <= FRUSTUM),
                                                   rnd, box))


"""The exact narrow phase over solid pairs: closed forms, certificates, then FCL or the GJK."""

from __future__ import annotations

import numpy as np

from robrayc.analysis.collision.closed_form import (
    _local,
    box_distance,
    face_separated,
    project,
    round_distance,
    sat_separated,
    segment_closest,
    solid_distance,
    support,
)
from robrayc.analysis.collision.gjk import _support_fn, gjk
from robrayc.analysis.collision.solids import (
    BOX,
    CONTACT_TOL,
    CYLINDER,
    FRUSTUM,
    MESH,
    ROUND,
    SPHERE,
    Solids,
)

# Points sampled along an inscribed capsule's axis for the accept test against boxes and round
# solids.
_AXIS_SAMPLES = np.linspace(-1.0, 1.0, 5)
# Below this many undecided candidates the vectorised certificates cost more (numpy's per-call
# overhead) than calling FCL (about 11 us a pair) or the GJK for each: measured on random
# primitives and on the 7dof demo.
_VECTOR_MIN = 64
_AXIS_MIN = 16  # the same for the axis-ball test in front of the (slower) GJK
_SAT_MIN = 48  # the same for the capsules and the SAT in front of FCL (one configuration
# of a robot among obstacles has some 20 candidates: FCL first is faster there)


# How far a solid is grown before FCL is asked whether a mesh comes near it (_near_mesh): a
# hundred times the largest overlap FCL's libccd was seen to miss (0.5 um).
GROWN = 1e-4


class PairTester:
    """Exact narrow phase over solids; see the module docstring for the stages."""

    def __init__(self, solids: Solids) -> None:
        self.s = solids
        self._req = None
        self._grown: dict[int, object] = {}  # _near_mesh's grown solids, by solid
        self._depth = None  # depth.MeshDepth, made for the first colliding mesh pair

    def _fcl_collide(self, a: int, b: int, Ta: np.ndarray, Tb: np.ndarray) -> bool:
        import fcl

        oa, ob = self.s.fcl_object(a), self.s.fcl_object(b)
        oa.setTransform(fcl.Transform(Ta[:3, :3].copy(), Ta[:3, 3].copy()))
        ob.setTransform(fcl.Transform(Tb[:3, :3].copy(), Tb[:3, 3].copy()))
        return fcl.collide(oa, ob, fcl.CollisionRequest(), fcl.CollisionResult()) > 0

    def _convex_mesh(self, f: int, m: int, Tf: np.ndarray, Tm: np.ndarray) -> bool:
        """Exact convex solid against a triangle soup: triangles in the solid's frame,
        box-rejected, then the GJK per triangle. A triangle within CONTACT_TOL of the solid
        that the GJK cannot call apart (its 'touching') counts as colliding: a mesh has no
        depth to tell a graze from a dent, and soundness comes first."""
        s = self.s
        rel = np.linalg.solve(Tf, Tm)
        v = s.items[m].vertices @ rel[:3, :3].T + rel[:3, 3]
        tri = v[s.items[m].faces]
        half = s.half[f] + CONTACT_TOL
        lo, hi = tri.min(axis=1), tri.max(axis=1)
        near = np.flatnonzero(((lo <= half) & (hi >= -half)).all(axis=1))
        near = near[~self._triangles_apart(f, tri[near])]
        ident = np.eye(4)
        sup_f = _support_fn(int(s.kind[f]), s.par[f], ident)
        for k in near:
            pts = [tuple(p) for p in tri[k].tolist()]
            sup_t = _support_fn(-1, (0, 0, 0), ident, points=pts)
            c = tri[k].mean(axis=0)
            d0 = tuple(c.tolist()) if float(c @ c) > 0 else (1.0, 0.0, 0.0)
            hit, _, touching = gjk(sup_f, sup_t, d0, boolean=True)
            if hit or touching:
                return True
        return False

    def _triangles_apart(self, f: int, tri: np.ndarray) -> np.ndarray:
        """(T,) whether a separating axis shows each triangle (T,3,3, in solid f's centred
        frame) apart from the solid, or overlapping it by at most CONTACT_TOL along the axis
        (exact supports on both sides): the triangle's normal, the solid's axes, the line from
        the solid's centre (and its axis) to the triangle's centroid; both signs each."""
        T = len(tri)
        if not T:
            return np.zeros(0, dtype=bool)
        c = tri.mean(axis=1)
        radial = c.copy()
        radial[:, 2] = 0.0  # from a round solid's axis
        axes = [np.cross(tri[:, 1] - tri[:, 0], tri[:, 2] - tri[:, 0]), c, radial,
                *np.broadcast_to(np.eye(3)[:, None], (3, T, 3))]
        ax = np.concatenate([np.concatenate(axes), -np.concatenate(axes)])
        length = np.sqrt((ax * ax).sum(axis=1))
        n = len(ax)
        h = support(self.s, np.full(n, f), np.broadcast_to(np.eye(3), (n, 3, 3)), ax)
        low = np.einsum("kvj,kj->kv", np.concatenate([tri] * (n // T)), ax).min(axis=1)
        ok = (length > 0) & (low - h >= -CONTACT_TOL * length)
        return ok.reshape(-1, T).any(axis=0)

    def exact_convex(self, a: int, b: int, Ta: np.ndarray, Tb: np.ndarray) -> bool:
        """Two convex solids (no mesh) by the exact GJK on their support functions: apart
        only with a separating plane in hand; where the GJK finds them within CONTACT_TOL
        ('touching'), apart only when some axis (the centres' line, the cores' closest
        points' line, each solid's own axes) shows them overlapping by at most CONTACT_TOL
        along it, else colliding."""
        s = self.s
        sa = _support_fn(int(s.kind[a]), s.par[a], Ta)
        sb = _support_fn(int(s.kind[b]), s.par[b], Tb)
        d = Tb[:3, 3] - Ta[:3, 3]
        d0 = tuple(d.tolist()) if float(d @ d) > 0 else (1.0, 0.0, 0.0)
        hit, _, touching = gjk(sa, sb, d0, boolean=True)
        if touching:
            return self._separation_bound(a, b, Ta, Tb) < -CONTACT_TOL
        return hit

    def exact_pair(self, a: int, b: int, Ta: np.ndarray, Tb: np.ndarray) -> bool:
        """One pair, kinds sorted (kind[a] <= kind[b]), by FCL or the exact GJK."""
        s = self.s
        ka, kb = int(s.kind[a]), int(s.kind[b])
        if FRUSTUM in (ka, kb):
            if kb == MESH:
                return self._convex_mesh(a, b, Ta, Tb)
            return self.exact_convex(a, b, Ta, Tb)
        return self._fcl_collide(a, b, Ta, Tb) or self._near_miss(a, b, Ta, Tb)

    def _near_miss(self, a: int, b: int, Ta: np.ndarray, Tb: np.ndarray) -> bool:
        """Whether a pair FCL calls apart overlaps after all. FCL's GJK/MPR (libccd, the
        solver python-fcl's CollisionRequest uses; its tolerance is not exposed) misses
        overlaps up to about a micrometre between cylinders, cones, boxes and meshes (0.06 to
        0.5 um seen): a pair that no separating axis shows apart (within CONTACT_TOL: that is
        a proof by itself) gets the exact test
        (kinds sorted; two meshes are left to FCL's exact triangle tests)."""
        s = self.s
        ka, kb = int(s.kind[a]), int(s.kind[b])
        if ka == MESH or (ka == SPHERE and kb != MESH):  # triangles; closed forms
            return False
        if bool(self._clear(np.array([a]), np.array([b]), Ta[None], Tb[None])[0]):
            return False
        if kb == MESH:
            return self._near_mesh(a, b, Ta, Tb) and self._convex_mesh(a, b, Ta, Tb)
        return self.exact_convex(a, b, Ta, Tb)

    def _near_mesh(self, a: int, b: int, Ta: np.ndarray, Tb: np.ndarray) -> bool:
        """Whether convex solid a grown by GROWN (a sphere, box or cylinder holding it and
        everything within GROWN of it) meets mesh b, by FCL: its misses are below a micrometre,
        GROWN is a hundred times that, so a pair it finds apart here has the two GROWN apart.
        Only a pair within reach gets the exact triangle tests (each 0.1 ms and more)."""
        import fcl

        grown = self._grown.get(a)
        if grown is None:
            r0, r1, c = (float(x) for x in self.s.par[a])
            kind = int(self.s.kind[a])
            geom = (fcl.Sphere(r0 + GROWN) if kind == SPHERE else
                    fcl.Box(2 * (r0 + GROWN), 2 * (r1 + GROWN), 2 * (c + GROWN)) if kind == BOX
                    else fcl.Cylinder(max(r0, r1) + GROWN, 2 * (c + GROWN)))
            grown = self._grown[a] = fcl.CollisionObject(geom)
        mesh = self.s.fcl_object(b)
        grown.setTransform(fcl.Transform(Ta[:3, :3].copy(), Ta[:3, 3].copy()))
        mesh.setTransform(fcl.Transform(Tb[:3, :3].copy(), Tb[:3, 3].copy()))
        return fcl.collide(grown, mesh, fcl.CollisionRequest(), fcl.CollisionResult()) > 0

    def _clear(self, a: np.ndarray, b: np.ndarray, Ta: np.ndarray, Tb: np.ndarray
               ) -> np.ndarray:
        """(K,) whether the exact support functions leave solids a and b (poses (K,4,4)) apart
        (or overlapping by at most CONTACT_TOL) along the centres' line or one of their own
        axes (a mesh answers for
        its box: still a proof)."""
        Ra, ta, Rb, tb = Ta[:, :3, :3], Ta[:, :3, 3], Tb[:, :3, :3], Tb[:, :3, 3]
        own = [sign * R[:, :, i] for R in (Ra, Rb) for i in range(3) for sign in (1.0, -1.0)]
        axes = [tb - ta, *own]
        n, K = len(axes), len(a)
        ax = np.concatenate(axes)
        length = np.sqrt((ax * ax).sum(axis=1)).reshape(n, K)
        h = support(self.s, np.concatenate([a] * n + [b] * n),
                    np.concatenate([Ra] * n + [Rb] * n), np.concatenate([ax, -ax]))
        lead = ((ax.reshape(n, K, 3) * (tb - ta)).sum(axis=2) - h[:n * K].reshape(n, K)
                - h[n * K:].reshape(n, K))
        return ((length > 0) & (lead >= -CONTACT_TOL * length)).any(axis=0)

    def test(self, oi: np.ndarray, oj: np.ndarray, Ti: np.ndarray, Tj: np.ndarray,
             keys: np.ndarray | None = None) -> np.ndarray:
        """Which candidate pairs (solid indices, world poses (K,4,4)) intersect. ``keys`` groups
        candidates (e.g. one key per configuration and frame pair): once one pair of a group is
        known to collide, its remaining scalar checks are skipped (the result for those is
        left False)."""
        s = self.s
        K = len(oi)
        out = np.zeros(K, dtype=bool)
        if K == 0:
            return out
        ki, kj = s.kind[oi], s.kind[oj]
        sw = ki > kj
        if sw.any():
            oi, oj = np.where(sw, oj, oi), np.where(sw, oi, oj)
            Ti, Tj = np.where(sw[:, None, None], Tj, Ti), np.where(sw[:, None, None], Ti, Tj)
            ki, kj = s.kind[oi], s.kind[oj]
        Ri, ti, Rj, tj = Ti[:, :3, :3], Ti[:, :3, 3], Tj[:, :3, :3], Tj[:, :3, 3]
        d = tj - ti
        todo = (d * d).sum(axis=1) <= (s.brad[oi] + s.brad[oj] + CONTACT_TOL) ** 2

        sph = ki == SPHERE
        if sph.any():
            done = sph & todo & (kj != MESH)
            self._sphere_pairs(done, oi, oj, kj, Rj, tj, d, ti, out)
            todo &= ~done
        m = np.flatnonzero(todo)
        if len(m) < _SAT_MIN:  # few: FCL first (its bounding volumes reject as fast), then
            # the face axes on its hits, to turn touching (FCL: colliding) into apart; two
            # boxes get the whole SAT (exact)
            self._scalar(m, oi, oj, Ti, Tj, None, out)
            m = m[out[m] & (ki[m] != MESH) & (kj[m] != MESH)]
            if m.size:
                args = (Ri[m], ti[m], s.half[oi[m]], Rj[m], tj[m], s.half[oj[m]])
                boxes = (ki[m] == BOX) & (kj[m] == BOX)
                out[m] = ~(sat_separated(*args) if boxes.all() else face_separated(*args)[0])
                if boxes.any() and not boxes.all():
                    out[m[boxes]] = ~sat_separated(*(x[boxes] for x in args))
            return out
        # the inscribed capsules first: they settle most colliding pairs, cheaply
        hit, ca, cb = self._capsules(m, oi, oj, Ri, ti, Rj, tj)
        out[m[hit]] = True
        m, ca, cb = m[~hit], ca[~hit], cb[~hit]
        if m.size:  # oriented boxes: exact for two boxes, a rejection test for the rest
            sep = sat_separated(Ri[m], ti[m], s.half[oi[m]], Rj[m], tj[m], s.half[oj[m]])
            boxes = (ki[m] == BOX) & (kj[m] == BOX)
            out[m[boxes]] = ~sep[boxes]
            left = ~sep & ~boxes
            m, ca, cb = m[left], ca[left], cb[left]
        if len(m) >= _VECTOR_MIN:  # (for fewer, FCL or the GJK one by one is cheaper)
            m = self._core_tests(m, ca, cb, oi, oj, Ri, ti, Rj, tj, out)
        f = m[(ki[m] == FRUSTUM) | (kj[m] == FRUSTUM)]
        if len(f) >= _AXIS_MIN:  # before many slow scalar GJKs: balls along a capsule axis
            sure = self._axis_accept(oi[f], oj[f], Ri[f], ti[f], Rj[f], tj[f])
            sure |= self._axis_accept(oj[f], oi[f], Rj[f], tj[f], Ri[f], ti[f])
            out[f[sure]] = True
            m = np.setdiff1d(m, f[sure], assume_unique=True)
        if m.size:
            self._scalar(m, oi, oj, Ti, Tj, keys, out)
        return out

    def _sphere_pairs(self, todo, oi, oj, kj, Rj, tj, d, ti, out) -> None:
        """The candidates ``todo``, a sphere and a sphere, box or round solid (kinds sorted),
        by closed forms."""
        s = self.s
        m = todo & (kj == SPHERE)
        out[m] = (d[m] * d[m]).sum(axis=1) < (s.par[oi[m], 0] + s.par[oj[m], 0]
                                               - CONTACT_TOL) ** 2
        for round_, dist_fn in ((False, box_distance), (True, round_distance)):
            m = np.flatnonzero(todo & ((kj >= CYLINDER) & (kj <= FRUSTUM) if round_
                                       else (kj == BOX)))
            if m.size:
                dist = dist_fn(_local(Rj[m], tj[m], ti[m]), s.par[oj[m]])
                out[m] = dist < s.par[oi[m], 0] - CONTACT_TOL

    def _scalar(self, m, oi, oj, Ti, Tj, keys, out) -> None:
        """The pairs no vectorised test decided, one by one: FCL, or the GJK for frusta."""
        import fcl

        s = self.s
        if self._req is None:
            self._req = (fcl.CollisionRequest(), fcl.CollisionResult())
        req, res = self._req
        hit_keys = set(keys[out].tolist()) if keys is not None else set()
        # b's pose in a's frame, so that a stays at the identity: one fcl.Transform a pair, from
        # contiguous arrays (which it reads twice as fast as strided slices).
        Ra, ta, Rb, tb = Ti[m, :3, :3], Ti[m, :3, 3], Tj[m, :3, :3], Tj[m, :3, 3]
        R = np.ascontiguousarray(np.einsum("kji,kjl->kil", Ra, Rb))
        t = np.ascontiguousarray(np.einsum("kji,kj->ki", Ra, tb - ta))
        slow = (s.kind[oi[m]] == FRUSTUM) | (s.kind[oj[m]] == FRUSTUM)
        Transform, collide, identity = fcl.Transform, fcl.collide, fcl.Transform()
        doubt = []  # pairs FCL calls apart (it misses overlaps below about a micrometre)
        for n, (k, a, b) in enumerate(zip(m.tolist(), oi[m].tolist(), oj[m].tolist(),
                                          strict=True)):
            if keys is not None and keys[k] in hit_keys:
                continue
            if slow[n]:
                hit = self._hulls_decide(a, b, Transform(R[n], t[n]), req, res)
                if hit is None:
                    hit = self.exact_pair(a, b, Ti[k], Tj[k])
                elif not hit:
                    doubt.append(k)
            else:
                oa, ob = s.fcl_object(a), s.fcl_object(b)
                oa.setTransform(identity)
                ob.setTransform(Transform(R[n], t[n]))
                hit = collide(oa, ob, req, res) > 0
                if not hit:
                    doubt.append(k)
            if hit:
                out[k] = True
                if keys is not None:
                    hit_keys.add(keys[k])
        if doubt:
            self._recheck(np.array(doubt), oi, oj, Ti, Tj, keys, hit_keys, out)

    def _recheck(self, d, oi, oj, Ti, Tj, keys, hit_keys: set, out) -> None:
        """Pairs d that FCL called apart (kinds sorted), confirmed: those no separating axis
        shows apart (_clear, vectorised) get the exact test (_near_miss's)."""
        s = self.s
        ka, kb = s.kind[oi[d]], s.kind[oj[d]]
        d = d[(ka != MESH) & ((ka != SPHERE) | (kb == MESH))]  # triangles; closed forms
        if not d.size:
            return
        d = d[~self._clear(oi[d], oj[d], Ti[d], Tj[d])]
        for k in d.tolist():
            if keys is not None and keys[k] in hit_keys:
                continue
            a, b = int(oi[k]), int(oj[k])
            if s.kind[b] == MESH:
                hit = self._near_mesh(a, b, Ti[k], Tj[k]) and self._convex_mesh(a, b, Ti[k],
                                                                                 Tj[k])
            else:
                hit = self.exact_convex(a, b, Ti[k], Tj[k])
            if hit:
                out[k] = True
                if keys is not None:
                    hit_keys.add(keys[k])

    def _hulls_decide(self, a: int, b: int, rel, req, res) -> bool | None:
        """A pair with a frustum, b at ``rel`` in a's frame, by FCL on its 128-gon hulls: the
        inscribed hulls colliding, or the circumscribed ones apart, decide it (a few
        microseconds); None when only the exact GJK can (the rim's 0.03 % band)."""
        from fcl import Transform, collide

        s = self.s
        for inner in (True, False):
            oa = s.fcl_object(a, inner and s.kind[a] == FRUSTUM)
            ob = s.fcl_object(b, inner and s.kind[b] == FRUSTUM)
            oa.setTransform(Transform())
            ob.setTransform(rel)
            hit = collide(oa, ob, req, res) > 0
            if hit == inner:
                return hit
        return None

    def _capsules(self, m, oi, oj, Ri, ti, Rj, tj) -> tuple[np.ndarray, ...]:
        """For candidates m: whether their inscribed capsules overlap by more than
        CONTACT_TOL (a certain collision), and the closest points of the capsules' axes."""
        s = self.s
        a, b = oi[m], oj[m]
        ea = np.einsum("kij,kj->ki", Ri[m], s.seg[a])
        eb = np.einsum("kij,kj->ki", Rj[m], s.seg[b])
        ta, tb = ti[m], tj[m]
        ca, cb = segment_closest(ta - ea, ta + ea, tb - eb, tb + eb)
        gap = cb - ca
        reach = s.irad[a] + s.irad[b] - CONTACT_TOL
        hit = ((gap * gap).sum(axis=1) < reach * np.abs(reach)) & (s.irad[a] >= 0) & (
            s.irad[b] >= 0)
        return hit, ca, cb

    def _core_tests(self, m, ca, cb, oi, oj, Ri, ti, Rj, tj, out) -> np.ndarray:
        """Decide what closed forms can about candidates m (writing ``out``), whose inscribed
        capsules (axes' closest points ca, cb) do not overlap; return the rest. Certificates
        of a collision: a point lies in both solids (closed-form signed distances). Of a
        separation: an axis along which the solids' exact support functions leave a gap.
        Candidate points and axes come from ca and cb, refined by one alternating projection
        between the two solids (not for meshes)."""
        s = self.s
        a, b = oi[m], oj[m]
        Ra, ta, Rb, tb = Ri[m], ti[m], Rj[m], tj[m]
        gap = cb - ca
        hit = np.zeros(len(m), dtype=bool)
        apart = self._apart(a, b, Ra, ta, Rb, tb, [gap, tb - ta])
        k = np.flatnonzero(~apart & (s.kind[a] != MESH) & (s.kind[b] != MESH))
        if k.size:
            ak, bk, Rak, tak, Rbk, tbk = a[k], b[k], Ra[k], ta[k], Rb[k], tb[k]
            x = (ca[k] + cb[k]) / 2
            pa = project(s, ak, Rak, tak, x)
            pb = project(s, bk, Rbk, tbk, pa)
            # pb is in B and pa in A, each maybe deep in the other: a small step towards its own
            # solid's centre makes it deep in both (depth is concave on a convex solid).
            hit[k] = self._inside_both(ak, bk, Rak, tak, Rbk, tbk,
                                       [x, pb + 1e-3 * (tbk - pb), pa + 1e-3 * (tak - pa)])
            apart[k] = ~hit[k] & self._apart(ak, bk, Rak, tak, Rbk, tbk, [pb - pa])
        out[m[hit]] = True
        return m[~hit & ~apart]

    def _inside_both(self, a, b, Ra, ta, Rb, tb, points: list) -> np.ndarray:
        """(K,) whether any of the candidate points (each (K,3)) is deeper than CONTACT_TOL in
        both solids (one closed-form evaluation for all)."""
        n, K = len(points), len(a)
        x = np.concatenate(points * 2)
        idx = np.concatenate([a] * n + [b] * n)
        R = np.concatenate([Ra] * n + [Rb] * n)
        t = np.concatenate([ta] * n + [tb] * n)
        d = solid_distance(self.s, idx, R, t, x).reshape(2, n, K)
        return ((d[0] < -CONTACT_TOL) & (d[1] < -CONTACT_TOL)).any(axis=0)

    def _apart(self, a, b, Ra, ta, Rb, tb, axes: list) -> np.ndarray:
        """(K,) whether along any of the axes (each (K,3), pointing from a to b) the exact
        support functions leave the solids overlapping by at most CONTACT_TOL."""
        n, K = len(axes), len(a)
        ax = np.concatenate(axes)
        h = support(self.s, np.concatenate([a] * n + [b] * n), np.concatenate([Ra] * n + [Rb] * n),
                    np.concatenate([ax, -ax])).reshape(2, n, K)
        length = np.sqrt((ax * ax).sum(axis=1)).reshape(n, K)
        lead = (ax.reshape(n, K, 3) * (tb - ta)).sum(axis=2) - h[0] - h[1]
        return ((length > 0) & (lead >= -CONTACT_TOL * length)).any(axis=0)

    def _axis_accept(self, a, b, Ra, ta, Rb, tb) -> np.ndarray:
        """Balls of radius irad[a] at points along a's inscribed-capsule axis (inside a) that
        touch b, a box or round solid (closed-form point distance): certainly colliding."""
        s = self.s
        out = np.zeros(len(a), dtype=bool)
        kb = s.kind[b]
        has = s.irad[a] >= 0
        for sel, dist_fn in ((kb == BOX, box_distance),
                             ((kb >= CYLINDER) & (kb <= FRUSTUM), round_distance)):
            k = np.flatnonzero(has & sel)
            if not k.size:
                continue
            e = np.einsum("kij,kj->ki", Ra[k], s.seg[a[k]])
            pts = ta[k] + _AXIS_SAMPLES[:, None, None] * e  # (samples, K, 3)
            dist = dist_fn(_local(Rb[k], tb[k], pts), s.par[b[k]])
            out[k] = dist.min(axis=0) < s.irad[a[k]] - CONTACT_TOL
        return out

    def distance(self, a: int, b: int, Ta: np.ndarray, Tb: np.ndarray) -> float:
        """Signed distance of one pair (negative: penetration depth), on the side of 0 the
        collision test says: at most 0 when it collides, at least 0 when not (the library's
        distance near contact is less sure than the test: a cylinder 0.3 um inside another
        was 'apart by 4 um' in FCL's distance)."""
        d = self._distance(a, b, Ta, Tb)
        hit = bool(self.test(np.array([a]), np.array([b]), Ta[None], Tb[None])[0])
        return min(d, 0.0) if hit else max(d, 0.0)

    def signed_distance(self, a: int, b: int, Ta: np.ndarray, Tb: np.ndarray
                        ) -> tuple[float, str]:
        """distance() and how it was found: "exact", or for a colliding pair with a mesh (0
        from distance(): FCL gives triangle soups no depth) the method of depth.py's depth."""
        d = self.distance(a, b, Ta, Tb)
        if d == 0.0 and MESH in (self.s.kind[a], self.s.kind[b]) and bool(
                self.test(np.array([a]), np.array([b]), Ta[None], Tb[None])[0]):
            if self._depth is None:
                from robrayc.analysis.collision.depth import MeshDepth

                self._depth = MeshDepth(self.s)
            return self._depth.depth(a, b, Ta, Tb)
        return d, "exact"

    def _distance(self, a: int, b: int, Ta: np.ndarray, Tb: np.ndarray) -> float:
        """Signed distance of one pair (negative: penetration depth). Exact for sphere pairs
        and separated or touching frusta; FCL's (GJK, EPA for depth) otherwise; a mesh in
        contact gets 0.0 (FCL has no depth for meshes). A penetrating
        frustum (or one against a mesh) gets the mean of its inscribed and circumscribed
        128-gon hulls' distances: within 0.0003 x its radius of the truth."""
        s = self.s
        if s.kind[a] > s.kind[b]:
            a, b, Ta, Tb = b, a, Tb, Ta
        ka, kb = int(s.kind[a]), int(s.kind[b])
        if ka == SPHERE and kb in (SPHERE, BOX, *ROUND):
            p = _local(Tb[None, :3, :3], Tb[None, :3, 3], Ta[None, :3, 3])
            ra = s.par[a, 0]
            if kb == SPHERE:
                return float(np.sqrt((p * p).sum()) - ra - s.par[b, 0])
            if kb == BOX:
                return float(box_distance(p, s.par[b][None])[0] - ra)
            return float(round_distance(p, s.par[b][None])[0] - ra)
        if FRUSTUM not in (ka, kb):
            return self._fcl_distance(a, b, Ta, Tb, False)
        if kb != MESH:
            d = Tb[:3, 3] - Ta[:3, 3]
            d0 = tuple(d.tolist()) if float(d @ d) > 0 else (1.0, 0.0, 0.0)
            hit, dist, touching = gjk(_support_fn(ka, s.par[a], Ta),
                                      _support_fn(kb, s.par[b], Tb), d0, boolean=False)
            if touching:
                return 0.0
            if not hit:
                return dist
        mid = (self._fcl_distance(a, b, Ta, Tb, False)
               + self._fcl_distance(a, b, Ta, Tb, True)) / 2
        if kb == MESH:
            return mid
        # A separating-axis bound is exact where it applies (touching); the hulls' mean is not.
        return min(max(mid, self._separation_bound(a, b, Ta, Tb)), 0.0)

    def _separation_bound(self, a: int, b: int, Ta: np.ndarray, Tb: np.ndarray) -> float:
        """A lower bound on the signed distance of two convex solids: the largest gap (negative:
        overlap) their exact support functions leave along a few axes (the centres' line, the
        core segments' closest points' line after one projection round, each solid's axes)."""
        s = self.s
        ia, ib = np.array([a]), np.array([b])
        Ra, ta, Rb, tb = Ta[None, :3, :3], Ta[None, :3, 3], Tb[None, :3, :3], Tb[None, :3, 3]
        ea, eb = Ra[0] @ s.seg[a], Rb[0] @ s.seg[b]
        ca, cb = segment_closest(ta - ea, ta + ea, tb - eb, tb + eb)
        pa = project(s, ia, Ra, ta, (ca + cb) / 2)
        pb = project(s, ib, Rb, tb, pa)
        axes = np.concatenate([tb - ta, cb - ca, pb - pa, Ra[0].T, Rb[0].T])
        length = np.sqrt((axes * axes).sum(axis=1))
        axes = axes[length > 0] / length[length > 0, None]
        k = len(axes)
        lead = (axes @ (tb[0] - ta[0]) - support(s, np.repeat(ia, k), np.repeat(Ra, k, 0), axes)
                - support(s, np.repeat(ib, k), np.repeat(Rb, k, 0), -axes))
        best = np.max(lead)  # per unit axis; with both signs of the solids' own axes
        lead2 = (-axes @ (tb[0] - ta[0]) - support(s, np.repeat(ia, k), np.repeat(Ra, k, 0), -axes)
                 - support(s, np.repeat(ib, k), np.repeat(Rb, k, 0), axes))
        return float(max(best, np.max(lead2)))

    def _fcl_distance(self, a: int, b: int, Ta: np.ndarray, Tb: np.ndarray,
                      inner: bool) -> float:
        import fcl

        s = self.s
        oa = s.fcl_object(a, inner and s.kind[a] == FRUSTUM)
        ob = s.fcl_object(b, inner and s.kind[b] == FRUSTUM)
        oa.setTransform(fcl.Transform(Ta[:3, :3], Ta[:3, 3]))
        ob.setTransform(fcl.Transform(Tb[:3, :3], Tb[:3, 3]))
        req = fcl.DistanceRequest(enable_signed_distance=True)
        d = float(fcl.distance(oa, ob, req, fcl.DistanceResult()))
        if d < 0 and MESH in (s.kind[a], s.kind[b]):
            return 0.0  # FCL gives meshes no depth (it returns -1): overlapping, depth unknown
        return d


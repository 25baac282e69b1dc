"""The scene checker: rigid groups, dense or sparse broad phase, batched queries."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

import numpy as np

from robrayc import ir
from robrayc.analysis.collision import motions
from robrayc.analysis.collision.broadphase import BROADPHASES, candidates
from robrayc.analysis.collision.distances import PairDistance, frame_distances
from robrayc.analysis.collision.environment import RunTimeObstacles
from robrayc.analysis.collision.narrow import PairTester
from robrayc.analysis.collision.solids import Solid, Solids, outer_capsules, solid_from_shape
from robrayc.diagnostics import DiagnosticSink
from robrayc.kinematics import GroupFK, chain_reaches

# Moving solid pairs up to which the dense (all pairs, bounding spheres) broad phase is used.
DENSE_MAX_PAIRS = 20000
# Configurations per vectorised block, at most (bounds the memory of its temporaries).
BLOCK = 8192
# Broad-phase cells (configurations x solid pairs) per block: the float32 distances of a block
# stay within the core's cache (2 MB; the 7-DOF arm among 20 boxes: 11.2 us a configuration
# at 1 << 21 cells, 9.3 at 1 << 19).
BLOCK_CELLS = 1 << 19
BACKENDS = ("exact", "compiled", "auto")
# Enclosing capsules farther apart than this are certainly not colliding (far above
# CONTACT_TOL and the rounding of the segments' closest points).
CAPSULE_MARGIN = 1e-6

Config = Mapping[str, float] | Sequence[float] | np.ndarray | None


class CollisionChecker(RunTimeObstacles):
    """Collision checking for one scene; build once, query many configurations.

    ``use_allowed=False`` ignores the scene's ``allow_collision`` pairs; ``frame_pairs``
    restricts checking to those frame pairs (names, either order).

    ``backend``: ``"exact"`` (numpy, FCL), ``"compiled"`` (generated C with certified spheres
    in front of the same exact tests: the same answers, built by the system C compiler on
    first use and cached; needs a robot-sized scene) or ``"auto"`` (compiled when a compiler
    works and the scene allows it, else exact; ``self.backend`` says which, ``self.note``
    why not compiled).
    """

    def __init__(self, scene: ir.Scene, sink: DiagnosticSink | None = None, *,
                 use_allowed: bool = True,
                 frame_pairs: Iterable[tuple[str, str]] | None = None,
                 broadphase: str = "auto", backend: str = "exact",
                 sphere_size: float | None = None, cells: bool = True) -> None:
        from robrayc.meshes import load_mesh

        self.scene = scene
        self.variables = scene.variables
        sink = sink or DiagnosticSink()
        n_frames = len(scene.frames)
        self.frame_names = [f.name for f in scene.frames]
        # Rigid groups (0: the world) from the one kinematics module: only group poses are
        # computed per configuration; a solid is its group's pose times a constant.
        self.fk = GroupFK(scene)
        self.motions = self.fk.motions  # (parent group, constant 4x4, kind, axis, var, offset)
        rel, group_of = self.fk.rel, self.fk.groups.group

        solids: list[Solid] = []
        owner: list[int] = []
        for i, f in enumerate(scene.frames):
            for g in f.geometries:
                if not g.collision or isinstance(g.shape, ir.Grid):
                    continue
                data = None
                if isinstance(g.shape, ir.Mesh):
                    data = load_mesh(g.shape, sink, g.pos)
                solid = solid_from_shape(g.shape, g.scale, mesh_data=data)
                solids.append(Solid(solid.kind, solid.params, rel[i] @ solid.placement,
                                    solid.vertices, solid.faces))
                owner.append(i)
        self.solids = Solids(solids)
        self.tester = PairTester(self.solids)
        self.owner = np.array(owner, dtype=np.int64)
        self.group = np.array([group_of[i] for i in owner], dtype=np.int64)
        self._n_frames = n_frames

        allowed = {(scene.index(p.a), scene.index(p.b)) for p in scene.allowed
                   if scene.has_frame(p.a) and scene.has_frame(p.b)} if use_allowed else set()
        allowed = {(min(a, b), max(a, b)) for a, b in allowed}
        wanted = None
        if frame_pairs is not None:
            wanted = set()
            for a, b in frame_pairs:
                ia, ib = scene.index(a), scene.index(b)
                wanted.add((min(ia, ib), max(ia, ib)))
        self.collision_frames = tuple(self.frame_names[i] for i in sorted(set(owner)))
        self._allowed_keys = np.array(sorted(a * n_frames + b for a, b in allowed), np.int64)
        self._wanted_keys = (np.array(sorted(a * n_frames + b for a, b in wanted), np.int64)
                             if wanted is not None else None)

        n_obj = len(solids)
        n_pairs_max = n_obj * (n_obj - 1) // 2
        if broadphase == "auto":
            broadphase = "dense" if n_pairs_max <= 4 * DENSE_MAX_PAIRS else "kd"
        if broadphase != "dense" and broadphase not in BROADPHASES:
            raise ValueError(f"unknown broad phase {broadphase!r}")
        if broadphase == "dense":
            self._build_dense(allowed, wanted)
            if len(self._pi) > DENSE_MAX_PAIRS and frame_pairs is None:
                broadphase = "kd"
        self.mode = broadphase
        if broadphase != "dense":
            self._const_keys = self._sparse_constant()
            self.pair_keys = self._wanted_keys  # None: every pair (too many to enumerate)
        self._kernel = None
        self._names_cache: tuple | None = None
        self._active: np.ndarray | None = None  # solid pairs still asked about (None: all)
        self._columns: np.ndarray | None = None  # the same for frame pairs
        self.backend, self.note = "exact", ""
        if backend not in BACKENDS:
            raise ValueError(f"unknown checker backend {backend!r}")
        if backend != "exact":
            self._use_compiled(backend == "compiled", sphere_size, cells)

    def _use_compiled(self, required: bool, sphere_size: float | None, cells: bool) -> None:
        from robrayc.analysis.collision.c_build import CompilerMissing
        from robrayc.analysis.collision.compiled import kernel_for

        try:
            self._kernel = kernel_for(self, sphere_size, cells)
            self.backend = "compiled"
            motions.bind_check(self)
        except CompilerMissing as exc:
            if required:
                raise
            self.note = f"exact checker used: {exc}"

    # -- set-up --

    def _build_dense(self, allowed: set, wanted: set | None) -> None:
        o = len(self.solids)
        ii, jj = np.triu_indices(o, k=1)
        fa, fb = self.owner[ii], self.owner[jj]
        lo, hi = np.minimum(fa, fb), np.maximum(fa, fb)
        keep = lo != hi
        keys = lo * self._n_frames + hi
        keep &= ~np.isin(keys, self._allowed_keys)
        if wanted is not None:
            keep &= np.isin(keys, self._wanted_keys)
        ii, jj, keys = ii[keep], jj[keep], keys[keep]
        swap = self.solids.kind[ii] > self.solids.kind[jj]  # kinds in the narrow phase's order
        ii, jj = np.where(swap, jj, ii), np.where(swap, ii, jj)
        pair_keys, pfp = np.unique(keys, return_inverse=True)
        if wanted is not None:  # frame pairs asked for but without solids still get a column
            pair_keys = np.unique(np.concatenate([pair_keys, self._wanted_keys]))
            pfp = np.searchsorted(pair_keys, keys)
        self.pair_keys = pair_keys
        const = self.group[ii] == self.group[jj]
        W0 = self._solid_poses(np.zeros((1, len(self.variables))))[0]
        ci, cj = ii[const], jj[const]
        hit = self.tester.test(ci, cj, W0[ci], W0[cj])
        self._const_hit = np.zeros(len(pair_keys), dtype=bool)
        self._const_hit[pfp[const][hit]] = True
        dyn = ~const & ~self._const_hit[pfp]  # a pair already colliding for good needs no check
        # every moving solid pair a plain loop would check (benchmarks compare over these)
        self.loop_pairs = (ii[dyn], jj[dyn])
        dyn &= ~self._out_of_reach(ii, jj, W0)
        self._pi, self._pj, self._pfp = ii[dyn], jj[dyn], pfp[dyn]
        self._prepare_centres()

    def _out_of_reach(self, ii: np.ndarray, jj: np.ndarray, W0: np.ndarray) -> np.ndarray:
        """Pairs of a fixed solid and a solid on a chain of revolute joints that it can never
        reach, whatever the angles: the moving solid stays within its chain's lever arm (the
        sum of the offsets between joint origins, plus its own) of the chain's first joint,
        which does not move. Such pairs are never checked."""
        s, motions = self.solids, self.motions
        far = np.zeros(len(ii), dtype=bool)
        reach: dict[int, tuple[np.ndarray, float]] = {}
        for n, (a, b) in enumerate(zip(ii.tolist(), jj.tolist(), strict=True)):
            if (self.group[a] == 0) == (self.group[b] == 0):
                continue
            if self.group[a] == 0:
                a, b = b, a
            if a not in reach:
                chain = self.fk.chain(int(self.group[a]))
                # the placement is in the group's frame (the frame's place in it included)
                arm = float(np.linalg.norm(s.placement[a, :3, 3])) + s.brad[a]
                reach[a] = (motions[chain[-1] - 1][1][:3, 3],
                            chain_reaches(self.fk, arm, chain)[-1])  # infinite past a slide
            centre, arm = reach[a]
            gap = float(np.linalg.norm(W0[b, :3, 3] - centre)) - arm - s.brad[b]
            far[n] = gap > CAPSULE_MARGIN * (1.0 + arm)
        return far

    def _prepare_centres(self) -> None:
        """What the dense broad phase needs beyond the pair list, computed once: the moving
        solids (their centres and capsule axes are the only ones that change), the fixed
        solids' world centres and axes, and each (moving, fixed) and (moving, moving) cell's
        pair and squared reach (cells without a pair never match)."""
        s = self.solids
        used = np.unique(np.concatenate([self._pi, self._pj]))
        moving = used[self.group[used] != 0]
        still = used[self.group[used] == 0]
        self._moving, self._still = moving, still
        self._moving_groups = self.group[moving]
        axes, self._orad = outer_capsules(s)
        # homogeneous local centres, (M, 4): one product with the group poses' top rows
        self._moving_centres = np.concatenate(
            [s.placement[moving, :3, 3], np.ones((len(moving), 1))], axis=1)
        self._moving_local = np.zeros((len(moving), 2, 4))  # (centre, 1), (axis, 0)
        self._moving_local[:, 0] = self._moving_centres
        self._moving_local[:, 1, :3] = np.einsum("mij,mj->mi", s.placement[moving, :3, :3],
                                                 axes[moving])
        W0 = self._solid_poses(np.zeros((1, len(self.variables))))[0]
        still_c = W0[still, :3, 3]
        self._still_world = np.stack(  # (S, 2, 3): centres and capsule half-axes
            [still_c, np.einsum("sij,sj->si", W0[still, :3, :3], axes[still])], axis=1)
        self._still_gemm = np.ascontiguousarray(-2.0 * still_c.T, dtype=np.float32)  # -2 c.s
        self._still_n2 = (still_c * still_c).sum(axis=1).astype(np.float32)
        # where each solid's centre sits in the (N, M + S, 3) world arrays
        self._slot = np.full(len(s), -1, dtype=np.int64)
        self._slot[moving] = np.arange(len(moving))
        self._slot[still] = len(moving) + np.arange(len(still))
        M, S = len(moving), len(still)
        sa, sb = self._slot[self._pi], self._slot[self._pj]
        lo, hi = np.minimum(sa, sb), np.maximum(sa, sb)
        cell = np.where(hi >= M, lo * S + (hi - M), M * S + lo * M + hi)
        self._cell_pair = np.full(M * S + M * M, -1, dtype=np.int64)
        self._cell_pair[cell] = np.arange(len(self._pi))
        self._block = int(np.clip(BLOCK_CELLS // max(1, M * S + M * M), 256, BLOCK))
        self._cell_reach2 = np.full(M * S + M * M, -np.inf)
        self._pair_reach2 = (s.brad[self._pi] + s.brad[self._pj]) ** 2
        self._cell_reach2[cell] = self._pair_reach2
        self._reach2_now = self._cell_reach2
        len2 = (axes * axes).sum(axis=1)
        self._inv_len2 = np.divide(1.0, len2, out=np.zeros_like(len2), where=len2 > 0)

    def _sparse_constant(self) -> np.ndarray:
        """Frame-pair keys colliding for good: solid pairs inside one rigid group."""
        W = self._solid_poses(np.zeros((1, len(self.variables))))[0]
        i, j = self._candidates(W, same_group=True)
        hit = self.tester.test(i, j, W[i], W[j])
        return np.unique(self._keys(i[hit], j[hit]))

    @property
    def frame_pairs(self) -> list[tuple[str, str]]:
        """The frame pairs checked, in collision_matrix column order (a big scene without
        ``frame_pairs``: not enumerated, ValueError)."""
        if self.pair_keys is None:
            raise ValueError("a big scene's frame pairs are not enumerated: give frame_pairs")
        return list(self._pair_names()[0])

    def _pair_names(self) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
        """The checked frame pairs' names, as keyed and each sorted (a < b): built once per
        pair list, not per query."""
        cached = self._names_cache
        if cached is None or cached[0] is not self.pair_keys:
            n = self._n_frames
            pairs = [(self.frame_names[k // n], self.frame_names[k % n])
                     for k in self.pair_keys.tolist()]
            pairs += self._env_names()
            cached = (self.pair_keys, pairs, [(a, b) if a < b else (b, a) for a, b in pairs])
            self._names_cache = cached
        return cached[1], cached[2]

    # -- kinematics --

    def _configs(self, configs) -> np.ndarray:
        q = np.asarray(configs, dtype=float)
        if q.ndim == 1:
            q = q[None, :]
        if q.ndim != 2 or q.shape[1] != len(self.variables):
            raise ValueError(f"configurations must be (N, {len(self.variables)}) "
                             f"(variables {', '.join(self.variables)}), got {q.shape}")
        if not np.isfinite(q).all():  # NaN poses compare false everywhere: "no collision"
            row, col = np.argwhere(~np.isfinite(q))[0].tolist()
            raise ValueError(f"configuration value {q[row, col]!r} of variable "
                             f"'{self.variables[col]}' (row {row}) is not a finite number")
        return q

    def config_vector(self, config: Config) -> np.ndarray:
        """A configuration vector from a NAME -> value mapping (missing: 0) or a sequence."""
        if config is None:
            return np.zeros(len(self.variables))
        if isinstance(config, Mapping):
            index = {v: i for i, v in enumerate(self.variables)}
            q = np.zeros(len(self.variables))
            for name, value in config.items():
                if name not in index:
                    raise KeyError(f"unknown configuration variable '{name}'")
                q[index[name]] = value
            return self._configs(q)[0]
        return self._configs(config)[0]

    def group_poses(self, q: np.ndarray) -> np.ndarray:
        """(N, groups, 4, 4): the world pose of every rigid group (0: the world)."""
        return self.fk.group_poses(q)

    def _solid_poses(self, q: np.ndarray) -> np.ndarray:
        """(N, solids, 4, 4) world poses of every solid."""
        return self.group_poses(q)[:, self.group] @ self.solids.placement

    # -- queries --

    def _keys(self, i: np.ndarray, j: np.ndarray) -> np.ndarray:
        fa, fb = self.owner[i], self.owner[j]
        return np.minimum(fa, fb) * self._n_frames + np.maximum(fa, fb)

    def _candidates(self, W: np.ndarray, same_group: bool) -> tuple[np.ndarray, np.ndarray]:
        i, j = candidates(self.solids, W, "kd" if same_group else self.mode)
        keep = (self.owner[i] != self.owner[j])
        keep &= (self.group[i] == self.group[j]) if same_group else (
            self.group[i] != self.group[j])
        keys = self._keys(i, j)
        keep &= ~np.isin(keys, self._allowed_keys)
        if self._wanted_keys is not None:
            keep &= np.isin(keys, self._wanted_keys)
        return i[keep], j[keep]

    def _names(self, keys: Iterable[int]) -> list[tuple[str, str]]:
        n = self._n_frames
        out = []
        for k in keys:
            a, b = self.frame_names[k // n], self.frame_names[k % n]
            out.append((a, b) if a < b else (b, a))
        return sorted(out)

    def collision_matrix(self, configs) -> np.ndarray:
        """(N, len(frame_pairs)) booleans: which checked frame pairs collide at each
        configuration (dense mode: a robot-sized scene, or frame_pairs given)."""
        q = self._configs(configs)
        if self.mode != "dense":
            if self.pair_keys is None:
                raise ValueError("collision_matrix of a big scene: give frame_pairs")
            out = np.zeros((q.shape[0], len(self.pair_keys)), dtype=bool)
            for row, config in enumerate(q):
                keys = self._sparse_keys(config)
                out[row, np.searchsorted(self.pair_keys, keys)] = True
            return self._with_env(q, out)
        out = np.empty((q.shape[0], len(self.pair_keys)), dtype=bool)
        step = self._block
        for start in range(0, q.shape[0], step):
            out[start:start + step] = self._dense_block(q[start:start + step])
        return self._with_env(q, out)

    def _dense_block(self, q: np.ndarray) -> np.ndarray:
        n = q.shape[0]
        n_fp = len(self.pair_keys)
        const = self._const_hit if self._columns is None else self._const_hit & self._columns
        hits = np.broadcast_to(const, (n, n_fp)).copy()
        if not len(self._pi):
            return hits
        if self._kernel is not None:
            return self._compiled_block(q, hits)
        G = self.group_poses(q)
        s = self.solids
        if n == 1:  # one configuration: fewer numpy calls, FCL culls what the capsules would
            cp = self._near_one(G[0])
            cn = np.zeros(len(cp), dtype=np.int64)
        else:
            cn, cp, CE = self._near(G)
            if len(cn):
                keep = ~self._capsules_apart(CE, cn, self._pi[cp], self._pj[cp])
                cn, cp = cn[keep], cp[keep]
        if not len(cn):
            return hits
        a, b = self._pi[cp], self._pj[cp]
        Ta = G[cn, self.group[a]] @ s.placement[a]
        Tb = G[cn, self.group[b]] @ s.placement[b]
        fp = self._pfp[cp]
        hit = self.tester.test(a, b, Ta, Tb, keys=cn * n_fp + fp)
        hits[cn[hit], fp[hit]] = True
        return hits

    def _near(self, G: np.ndarray) -> tuple[np.ndarray, ...]:
        """Candidate (configuration, moving pair) indices, configuration-major, whose bounding
        spheres meet at group poses G; and the moving solids' world centres and capsule axes,
        (N, M, 2, 3) (see world_centres). Squared distances come from matrix products
        (|a|^2 + |b|^2 - 2 a.b) in float32, the fixed solids' centres computed once; their
        rounding (below a relative 1e-6 of the squared coordinates, allowed for with 1e-5)
        only adds candidates, which the capsules and the narrow phase re-test."""
        n, M = G.shape[0], len(self._moving)
        # centres and capsule axes of the moving solids in one product, (N, M, 2, 3)
        CE = np.einsum("nmij,mkj->nmki", G[:, self._moving_groups, :3, :], self._moving_local,
                       optimize=True)
        c32 = CE[:, :, 0].astype(np.float32)
        nm = np.einsum("nmi,nmi->nm", c32, c32)
        slack = 1e-5 * (2 * float(nm.max(initial=0.0))
                        + 2 * float(self._still_n2.max(initial=0.0)) + 1.0)
        reach2 = (self._reach2_now * (1 + 1e-6) + slack).astype(np.float32)
        # stacked products (one small BLAS call per configuration: no thread start-up, which
        # costs more than the product under load)
        d2_ms = np.matmul(c32, self._still_gemm)  # (N, M, S)
        d2_ms += self._still_n2
        d2_ms += nm[:, :, None]
        d2_mm = np.matmul(c32, c32.transpose(0, 2, 1))
        d2_mm *= -2.0
        d2_mm += nm[:, :, None]
        d2_mm += nm[:, None, :]
        cut = M * len(self._still)
        cn, cell = _nonzero2(d2_ms.reshape(n, cut) <= reach2[:cut])
        cn2, cell2 = _nonzero2(d2_mm.reshape(n, M * M) <= reach2[cut:])
        cn, cell = np.concatenate([cn, cn2]), np.concatenate([cell, cell2 + cut])
        return cn, self._cell_pair[cell], CE

    def world_centres(self, CE: np.ndarray, cn: np.ndarray, *solids: np.ndarray
                      ) -> list[tuple[np.ndarray, np.ndarray]]:
        """World centres and capsule half-axes of each array of solids at configurations cn,
        from _near's moving-solid products CE (the fixed solids' are constant)."""
        N, M = CE.shape[:2]
        table = np.concatenate([CE.reshape(N * M, 2, 3), self._still_world])
        out = []
        for k in solids:
            slot = self._slot[k]
            ce = table[np.where(slot < M, cn * M + slot, N * M - M + slot)]
            out.append((ce[:, 0], ce[:, 1]))
        return out

    def _near_one(self, G: np.ndarray) -> np.ndarray:
        """The moving pairs whose bounding spheres meet at one configuration's group poses
        G (groups, 4, 4): _near's test, pair by pair."""
        Cm = np.einsum("mij,mj->mi", G[self._moving_groups, :3, :], self._moving_centres)
        C = np.concatenate([Cm, self._still_world[:, 0]])
        d = C[self._slot[self._pi]] - C[self._slot[self._pj]]
        reach2 = self._pair_reach2 if self._active is None else np.where(
            self._active, self._pair_reach2, -np.inf)
        return np.flatnonzero(np.einsum("pi,pi->p", d, d) <= reach2)

    def _capsules_apart(self, CE: np.ndarray, cn: np.ndarray, a: np.ndarray,
                        b: np.ndarray) -> np.ndarray:
        """Candidate pairs (solids a, b at configurations cn; CE from _near) where one solid's
        enclosing capsule clearly misses the other's bounding ball: no exact test can find
        them colliding, so none is asked (cheaper than the separating axes for long links)."""
        s = self.solids
        (ca, ea), (cb, eb) = self.world_centres(CE, cn, a, b)
        w = cb - ca
        apart = self._ball_misses(ea, a, w, s.brad[b])
        apart |= self._ball_misses(eb, b, -w, s.brad[a])
        return apart

    def _ball_misses(self, e: np.ndarray, a: np.ndarray, w: np.ndarray, r: np.ndarray
                     ) -> np.ndarray:
        """Whether balls (radius r, centre w from solid a's centre) are farther than
        CAPSULE_MARGIN from a's enclosing capsule (world half-axes e)."""
        t = np.clip(np.einsum("ki,ki->k", w, e) * self._inv_len2[a], -1.0, 1.0)
        w = w - t[:, None] * e
        reach = self._orad[a] + r + CAPSULE_MARGIN
        return np.einsum("ki,ki->k", w, w) > reach * reach

    def restrict(self, columns: np.ndarray | None) -> None:
        """Check only the frame pairs whose collision_matrix column is True (None: all again);
        the others read False. For samplers that stop asking about settled pairs. (The
        scene's frame pairs only: columns past them, the run-time obstacles', stay checked.)"""
        if columns is None or self.mode != "dense":
            self._active = self._columns = None
            if self.mode == "dense":
                self._reach2_now = self._cell_reach2
        else:
            self._columns = np.asarray(columns, dtype=bool)
            self._active = self._columns[self._pfp]
            live = np.ones(len(self._cell_pair), dtype=bool)
            has = self._cell_pair >= 0
            live[has] = self._active[self._cell_pair[has]]
            self._reach2_now = np.where(live, self._cell_reach2, -np.inf)
        motions.bind_check(self)

    def _compiled_block(self, q: np.ndarray, hits: np.ndarray) -> np.ndarray:
        """_dense_block by the compiled kernel (hits: the constant pairs already set)."""
        hits.ravel()[self._compiled_keys(q, hits[0])] = True
        return hits

    def _compiled_keys(self, q: np.ndarray, const: np.ndarray) -> np.ndarray:
        """The colliding (configuration, frame pair) entries of q, as configuration * width +
        frame pair, besides the pairs `const` (colliding anyway): certain answers from C,
        MAYBE pairs resolved by the exact tests."""
        width = len(self.pair_keys)
        rows, cols, states = self._kernel.open_states(q, self._active)
        fp = self._pfp[cols]
        keys = rows * width + fp
        one = states == 1
        hit = np.unique(keys[one])
        undecided = ~one & ~const[fp] & ~np.isin(keys, hit)
        if not undecided.any():
            return hit
        cn, cp, keys = rows[undecided], cols[undecided], keys[undecided]
        at_rows, at = np.unique(cn, return_inverse=True)  # poses only where a pair is open
        G = self._kernel.group_poses(q[at_rows])
        s = self.solids
        a, b = self._pi[cp], self._pj[cp]
        Ta = G[at, self.group[a]] @ s.placement[a]
        Tb = G[at, self.group[b]] @ s.placement[b]
        found = self.tester.test(a, b, Ta, Tb, keys=keys)
        return np.union1d(hit, keys[found])

    def collision_counts(self, configs) -> np.ndarray:
        """(len(frame_pairs),): in how many of the configurations each checked frame pair
        collides (collision_matrix(configs).sum(axis=0); with the compiled kernel, without
        making the matrix)."""
        q = self._configs(configs)
        if self._kernel is None or not len(self._pi) or self._env is not None:
            return self.collision_matrix(q).sum(axis=0)
        width = len(self.pair_keys)
        const = self._const_hit if self._columns is None else self._const_hit & self._columns
        counts = const.astype(np.int64) * q.shape[0]
        for start in range(0, q.shape[0], BLOCK):
            keys = self._compiled_keys(q[start:start + BLOCK], const)
            counts += np.bincount(keys % width, minlength=width)
        return counts

    def _sparse_keys(self, q: np.ndarray) -> np.ndarray:
        W = self._solid_poses(q[None])[0]
        i, j = self._candidates(W, same_group=False)
        keys = self._keys(i, j)
        fresh = ~np.isin(keys, self._const_keys)
        i, j, keys = i[fresh], j[fresh], keys[fresh]
        hit = self.tester.test(i, j, W[i], W[j], keys=keys)
        return np.union1d(keys[hit], self._const_keys)

    def _sparse_one(self, q: np.ndarray) -> list[tuple[str, str]]:
        env = self._with_env(q[None], np.zeros((1, 0), dtype=bool))[0]
        extra = [self._env_names()[k] for k in np.flatnonzero(env).tolist()]
        return sorted(self._names(self._sparse_keys(q).tolist()) + extra)

    def colliding_pairs(self, config: Config = None) -> list[tuple[str, str]]:
        """Sorted (a, b) frame-name pairs, a < b, whose collision geometry intersects at
        ``config`` (a NAME -> value mapping, missing variables 0, or a vector in
        ``scene.variables`` order)."""
        return self.colliding_pairs_batch(self.config_vector(config)[None])[0]

    def colliding_pairs_batch(self, configs) -> list[list[tuple[str, str]]]:
        """colliding_pairs for each row of an (N, dof) array."""
        q = self._configs(configs)
        if self.mode != "dense":
            return [self._sparse_one(row) for row in q]
        names = self._pair_names()[1]
        out = []
        step = self._block
        for start in range(0, q.shape[0], step):
            hits = self._with_env(q[start:start + step], self._dense_block(q[start:start + step]))
            for row in hits:
                out.append(sorted(names[k] for k in np.flatnonzero(row).tolist()))
        return out

    def in_collision(self, configs) -> np.ndarray:
        """(N,) booleans: anything colliding at each configuration (compiled: each stops at
        its first certain collision)."""
        q = self._configs(configs)
        if self.mode == "dense":
            return motions.in_collision(self, q)
        return np.array([bool(self._sparse_one(row)) for row in q])

    def check(self, config: Config) -> bool:
        """in_collision of one configuration (a mapping or a vector, as colliding_pairs);
        compiled: one call into C when it decides (an unrestricted compiled checker has
        this method replaced by a partial of its Caller's check_or: motions.bind_check)."""
        return motions.check(self, config)

    def check_motion(self, a: Config, b: Config,
                     resolution: float = motions.DEFAULT_RESOLUTION) -> bool:
        """Whether the straight-line motion a -> b collides at one of its samples: VAMP's
        (resolution per unit of configuration-space length) and a; see
        motions.motion_samples. Compiled: one call into C when it decides."""
        return motions.check_motion(self, a, b, resolution)

    def check_motions(self, a, b, resolution: float = motions.DEFAULT_RESOLUTION) -> np.ndarray:
        """(N,) check_motion of each row pair of a and b ((N, dof) each)."""
        return motions.check_motions(self, a, b, resolution)

    def distance(self, config: Config = None,
                 pairs: Iterable[tuple[str, str]] | None = None) -> list[PairDistance]:
        """Signed distance of each frame pair (default: every pair checked; in a big scene,
        give ``pairs``), sorted by frame names; negative means penetration."""
        q = self.config_vector(config)
        n = self._n_frames
        if pairs is None:
            if self.mode != "dense":
                raise ValueError("distance over every pair of a big scene: give pairs")
            keys = self.pair_keys.tolist()
        else:
            keys = []
            for a, b in pairs:
                ia, ib = self.scene.index(a), self.scene.index(b)
                keys.append(min(ia, ib) * n + max(ia, ib))
        return frame_distances(self, self._solid_poses(q[None])[0], keys)

    def closest(self, config: Config = None, k: int = 1,
                pairs: Iterable[tuple[str, str]] | None = None) -> list[PairDistance]:
        """The k frame pairs of smallest signed distance (most penetrating first)."""
        return sorted(self.distance(config, pairs), key=lambda p: (p.distance, p.a, p.b))[:k]


def _nonzero2(mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """np.nonzero of a 2-D mask, row-major, by its flat indices (several times faster)."""
    return np.divmod(np.flatnonzero(mask), mask.shape[1])


def collision_frames_of(scene: ir.Scene) -> list[str]:
    """Frames holding at least one collision solid (as amino's collision_frames)."""
    return [f.name for f in scene.frames
            if any(g.collision and not isinstance(g.shape, ir.Grid) for g in f.geometries)]


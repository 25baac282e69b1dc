"""A checker's run-time obstacles and robot-attached shapes, tested exactly (the exact
backend's answers, and the judge of the compiled kernel's MAYBE).

Every run-time shape becomes exact solids (obstacles.primitives) appended after the robot's
own, obstacles in the world (rigid group 0), attached shapes in their frame's group; the
robot's solids, their FCL objects and its pair tables stay as built. Checked: every moving
robot solid and attached shape against every obstacle and point cloud, and every attached
shape against the robot's solids outside its own rigid group and outside the frames it may
touch. Obstacles are not checked against each other nor against the scene's fixed geometry
(neither moves).

A point cloud is a sphere of its radius at each point: the points sorted into cubic cells
(as wide as the largest reach of a robot-side solid and a point), each robot-side solid asks
the 27 cells around its centre, then the exact tests.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from robrayc.analysis.collision.narrow import PairTester
from robrayc.analysis.collision.obstacles import Packed, pack, primitives
from robrayc.analysis.collision.solids import SPHERE, Solid, Solids
from robrayc.analysis.collision.tolerance import CONTACT_TOL

# a robrayc.analysis.collision.checker.CollisionChecker (which imports this module: no cycle)
CollisionChecker = Any

# configurations per block of world poses (bounds the temporaries' memory)
_BLOCK = 1024
_OFFSETS = np.stack(np.meshgrid(*[np.arange(-1, 2)] * 3, indexing="ij"), -1).reshape(-1, 3)


def obstacle_name(k: int) -> str:
    return f"obstacle {k}"


def attached_name(frame: str, k: int) -> str:
    return f"{frame} attached {k}"


class _Joined(Solids):
    """The robot's solids followed by more: the robot's FCL objects are its own (built once)."""

    def __init__(self, base: Solids, extra: list[Solid]) -> None:
        super().__init__(base.items + extra)
        self._base = base

    def fcl_object(self, i: int, inner: bool = False):
        if i < len(self._base):
            return self._base.fcl_object(i, inner)
        return super().fcl_object(i, inner)


class _Cloud:
    """A point cloud sorted into cells: its points, their radii and solids (spheres at the
    origin, one a radius), the cells."""

    def __init__(self, solids: np.ndarray, points: np.ndarray, radii: np.ndarray, cell: float,
                 column_of: np.ndarray) -> None:
        self.column_of = column_of  # per robot-side solid, its column against the cloud
        self.cell, self.radius = cell, float(radii.max(initial=0.0))
        self.lo = points.min(axis=0) if len(points) else np.zeros(3)
        ijk = np.floor((points - self.lo) / cell).astype(np.int64)
        self.dims = ijk.max(axis=0) + 1 if len(points) else np.ones(3, np.int64)
        keys = self._key(ijk)
        order = np.argsort(keys, kind="stable")
        self.keys, self.sorted = keys[order], points[order]
        self.radii, self.solids = radii[order], solids[order]

    def _key(self, ijk: np.ndarray) -> np.ndarray:
        return (ijk[..., 0] * self.dims[1] + ijk[..., 1]) * self.dims[2] + ijk[..., 2]

    def near(self, centres: np.ndarray, reach: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(query, point) index pairs with the point's sphere within reach[query] of
        centres[query] ((Q, 3); reach and the largest radius within the cell width): the 27
        cells around each centre."""
        base = np.floor((centres - self.lo) / self.cell).astype(np.int64)
        cells = base[:, None, :] + _OFFSETS[None]  # (Q, 27, 3)
        inside = ((cells >= 0) & (cells < self.dims)).all(axis=2)
        query = np.broadcast_to(np.arange(len(centres))[:, None], inside.shape)[inside]
        keys = self._key(cells[inside])
        start = np.searchsorted(self.keys, keys, side="left")
        count = np.searchsorted(self.keys, keys, side="right") - start
        total = int(count.sum())
        if not total:
            return np.zeros(0, np.int64), np.zeros(0, np.int64)
        query = np.repeat(query, count)
        first = np.repeat(start - np.cumsum(count) + count, count)
        point = first + np.arange(total)
        d = self.sorted[point] - centres[query]
        keep = np.einsum("ki,ki->k", d, d) <= (reach[query] + self.radii[point]) ** 2
        return query[keep], point[keep]


class Environment:
    """The run-time obstacles and attached shapes of one checker; built when first asked."""

    def __init__(self, checker: CollisionChecker, obstacles: Packed,
                 attached: dict[str, Packed], touch: dict[str, frozenset[str]]) -> None:
        self.checker = checker
        self.obstacles = obstacles
        self.attached = {f: s for f, s in attached.items() if len(s)}
        self.touch = touch
        self.empty = not len(obstacles) and not self.attached
        self._ready = False

    # -- set-up --

    def _build(self) -> None:
        c = self.checker
        S = len(c.solids)
        extra: list[Solid] = []
        groups: list[int] = []
        side = [int(k) for k in np.flatnonzero(c.group != 0)]  # robot-side solids
        side_name = [c.frame_names[c.owner[k]] for k in side]
        side_frame: list[str | None] = [None] * len(side)  # an attached shape's frame
        group_of = c.fk.groups.group
        for frame, shapes in self.attached.items():
            at = c.scene.index(frame)
            for k, *shape in zip(shapes.index.tolist(), shapes.kind, shapes.rotation,
                                 shapes.centre, shapes.size, strict=True):
                for kind, params, m in primitives(*shape):
                    extra.append(Solid(kind, params, c.fk.rel[at] @ m))
                    groups.append(int(group_of[at]))
                    side.append(S + len(extra) - 1)
                    side_name.append(attached_name(frame, k))
                    side_frame.append(frame)
        columns: dict[tuple[str, str], int] = {}
        pairs: list[tuple[int, int, int]] = []

        def column(a: str, b: str) -> int:
            return columns.setdefault((a, b) if a < b else (b, a), len(columns))

        clouds = []
        o = self.obstacles
        point_solid = []  # per point (the C's, in this order): its sphere's solid
        for pts, radii, k in o.clouds:
            values, which = np.unique(radii, return_inverse=True)
            point_solid.append(S + len(extra) + which.reshape(-1))
            for r in values.tolist():
                extra.append(Solid(SPHERE, (r, r, r), np.eye(4)))
                groups.append(0)
            if len(pts):
                clouds.append((point_solid[-1], pts, radii,
                               np.array([column(n, obstacle_name(k)) for n in side_name])))
        self._point_solid = np.concatenate(point_solid or [np.zeros(0, np.int64)])
        self._points = np.concatenate([p for p, _, _ in o.clouds] or [np.zeros((0, 3))])
        self._solids_of: list[list[int]] = []  # per shape (the C's order): its solids
        for k, *shape in zip(o.index.tolist(), o.kind, o.rotation, o.centre, o.size,
                             strict=True):
            name = obstacle_name(k)
            self._solids_of.append([])
            for kind, params, m in primitives(*shape):
                self._solids_of[-1].append(S + len(extra))
                extra.append(Solid(kind, params, m))
                groups.append(0)
                pairs += [(s, S + len(extra) - 1, column(n, name))
                          for s, n in zip(side, side_name, strict=True)]
        robot_frames = [c.frame_names[c.owner[k]] for k in range(S)]
        for s, n, frame in zip(side, side_name, side_frame, strict=True):
            if frame is None:
                continue
            touch = self.touch.get(frame, frozenset())
            pairs += [(s, r, column(n, robot_frames[r])) for r in range(S)
                      if c.group[r] != groups[s - S] and robot_frames[r] not in touch]
        self.solids = _Joined(c.solids, extra)
        self.tester = PairTester(self.solids)
        self.group = np.concatenate([c.group, np.array(groups, np.int64)])
        self.side = np.array(side, np.int64)
        p = np.array(pairs, np.int64).reshape(-1, 3)
        self._pi, self._pj, self._col = p[:, 0], p[:, 1], p[:, 2]
        self._reach2 = (self.solids.brad[self._pi] + self.solids.brad[self._pj]
                        + CONTACT_TOL) ** 2
        self.names = sorted(columns, key=columns.get)
        self._c_columns(side_name, column)
        reach = float(self.solids.brad[self.side].max(initial=0.0))
        self.clouds = [_Cloud(solid, pts, r, max(reach + float(r.max()), 1e-9), cols)
                       for solid, pts, r, cols in clouds]
        self._ready = True

    def _c_columns(self, side_name: list[str], column) -> None:
        """Where the C's pairs (checker_obstacle_pairs: a moving solid of the robot, and a
        shape or a point) fall among hits()' columns: per robot solid its row (side_of), per
        row and shape or cloud the column, each point's cloud."""
        c, o = self.checker, self.obstacles
        moving = np.flatnonzero(c.group != 0)
        self._side_of = np.full(len(c.solids), -1, np.int64)
        self._side_of[moving] = np.arange(len(moving))
        names = side_name[:len(moving)]
        self._shape_col = np.array([[column(n, obstacle_name(k)) for k in o.index.tolist()]
                                    for n in names], np.int64).reshape(len(moving), -1)
        self._cloud_col = np.array([[column(n, obstacle_name(k)) for _, _, k in o.clouds]
                                    for n in names], np.int64).reshape(len(moving), -1)
        self._cloud_start = np.cumsum([len(p) for p, _, _ in o.clouds])

    @property
    def width(self) -> int:
        """How many columns hits() has (pairs of a robot-side and an environment name)."""
        if not self._ready:
            self._build()
        return len(self.names)

    def column_names(self) -> list[tuple[str, str]]:
        if not self._ready:
            self._build()
        return list(self.names)

    # -- queries --

    def hits(self, q: np.ndarray, G: np.ndarray | None = None) -> np.ndarray:
        """(N, width) booleans: which columns collide at each configuration of q (G: their
        group poses, when known)."""
        if not self._ready:
            self._build()
        out = np.zeros((q.shape[0], len(self.names)), dtype=bool)
        for start in range(0, q.shape[0], _BLOCK):
            part = q[start:start + _BLOCK]
            g = G[start:start + _BLOCK] if G is not None else self._group_poses(part)
            out[start:start + _BLOCK] = self._block(g)
        return out

    def hits_compiled(self, q: np.ndarray, kernel) -> np.ndarray:
        """hits(q) from the compiled kernel's pairs (no attached shapes): those it finds
        colliding, and the exact tests of those it leaves open."""
        if not self._ready:
            self._build()
        width = len(self.names)
        out = np.zeros((q.shape[0], width), dtype=bool)
        try:
            rows, solid, item, state = kernel.env.pairs(q)
        except ValueError:  # a configuration the C does not answer (poses past 1e18)
            return self.hits(q)
        side = self._side_of[solid]
        on_shape = item >= 0
        col = np.empty(len(item), np.int64)
        col[on_shape] = self._shape_col[side[on_shape], item[on_shape]]
        cloud = np.searchsorted(self._cloud_start, -1 - item[~on_shape], side="right")
        col[~on_shape] = self._cloud_col[side[~on_shape], cloud]
        sure = state == 1
        out[rows[sure], col[sure]] = True
        left = ~sure & ~out[rows, col]
        if left.any():
            rows, solid, item, col = rows[left], solid[left], item[left], col[left]
            at_rows, at = np.unique(rows, return_inverse=True)
            G = kernel.group_poses(q[at_rows])
            found = self.pair_hits(G, at, solid, item, rows * width + col)
            out[rows[found], col[found]] = True
        return out

    def any_hit(self, q: np.ndarray) -> np.ndarray:
        """(N,) whether anything of the environment collides at each configuration."""
        return self.hits(q).any(axis=1) if not self.empty else np.zeros(len(q), dtype=bool)

    def _group_poses(self, q: np.ndarray) -> np.ndarray:
        kernel = self.checker._kernel
        return kernel.group_poses(q) if kernel is not None else self.checker.group_poses(q)

    def _block(self, G: np.ndarray) -> np.ndarray:
        n, width = G.shape[0], len(self.names)
        out = np.zeros((n, width), dtype=bool)
        W = G[:, self.group] @ self.solids.placement  # (N, solids, 4, 4)
        if len(self._pi):
            centres = W[:, :, :3, 3]
            d = centres[:, self._pi] - centres[:, self._pj]
            cn, cp = np.nonzero(np.einsum("npi,npi->np", d, d) <= self._reach2)
            a, b, col = self._pi[cp], self._pj[cp], self._col[cp]
            hit = self.tester.test(a, b, W[cn, a], W[cn, b], keys=cn * width + col)
            out[cn[hit], col[hit]] = True
        for cloud in self.clouds:
            self._cloud_block(cloud, W, out)
        return out

    def pair_hits(self, G: np.ndarray, at: np.ndarray, solid: np.ndarray, item: np.ndarray,
                  keys: np.ndarray) -> np.ndarray:
        """Which pairs the C left open collide: moving solid solid[j] at group poses G[at[j]]
        against item[j] (as checker_obstacle_pairs: a shape, or -1 - a point); keys as
        PairTester.test's."""
        if not self._ready:
            self._build()
        shape = item >= 0
        count = np.ones(len(item), np.int64)
        count[shape] = [len(self._solids_of[k]) for k in item[shape].tolist()]
        pair = np.repeat(np.arange(len(item)), count)
        b = np.empty(len(pair), np.int64)
        T = np.broadcast_to(np.eye(4), (len(pair), 4, 4)).copy()
        on_shape = shape[pair]
        b[on_shape] = [s for k in item[shape].tolist() for s in self._solids_of[k]]
        T[on_shape] = self.solids.placement[b[on_shape]]
        point = -1 - item[pair[~on_shape]]
        b[~on_shape] = self._point_solid[point]
        T[~on_shape, :3, 3] = self._points[point]
        a = solid[pair].astype(np.int64)
        Ta = G[at[pair], self.group[a]] @ self.solids.placement[a]
        hit = self.tester.test(a, b, Ta, T, keys=keys[pair])
        out = np.zeros(len(item), dtype=bool)
        out[pair[hit]] = True
        return out

    def _cloud_block(self, cloud: _Cloud, W: np.ndarray, out: np.ndarray) -> None:
        n, m = W.shape[0], len(self.side)
        centres = W[:, :, :3, 3][:, self.side].reshape(n * m, 3)
        reach = np.tile(self.solids.brad[self.side] + CONTACT_TOL, n)
        query, point = cloud.near(centres, reach)
        if not query.size:
            return
        cn, k = np.divmod(query, m)
        a = self.side[k]
        Tb = np.broadcast_to(np.eye(4), (len(point), 4, 4)).copy()
        Tb[:, :3, 3] = cloud.sorted[point]
        col = cloud.column_of[k]
        hit = self.tester.test(a, cloud.solids[point], W[cn, a], Tb,
                               keys=cn * out.shape[1] + col)
        out[cn[hit], col[hit]] = True


class RunTimeObstacles:
    """CollisionChecker's run-time obstacles and attached shapes (the API of
    docs/collision.md, "Obstacles at run time"): no rebuild of the robot's tables, no C
    compile; the compiled kernel gets them as data."""

    _env: Environment | None = None
    _attached: dict[str, Packed] = {}  # never mutated: replaced
    _touch: dict[str, frozenset[str]] = {}
    _obstacles: Packed = pack([])

    def set_obstacles(self, shapes) -> None:
        """Replaces the run-time obstacles (Box, Sphere, Cylinder, Capsule, PointCloud of
        robrayc.analysis.collision.obstacles; [] for none): every query after it includes
        them. Invalid shapes raise ValueError (the previous set stays)."""
        self._obstacles = pack(shapes)
        self._refresh_environment()

    def attach(self, frame: str, shapes, touch=()) -> None:
        """Fixes shapes (in frame's coordinates) to a robot frame: a grasped part, checked
        against the obstacles and the scene's solids except its own rigid group's and those of
        the frames in ``touch`` (e.g. the fingers holding it). attach(frame, []) detaches."""
        c: CollisionChecker = self  # type: ignore[assignment]
        if not c.scene.has_frame(frame):
            raise KeyError(f"unknown frame '{frame}'")
        for f in touch:
            if not c.scene.has_frame(f):
                raise KeyError(f"unknown frame '{f}' in touch")
        shapes = pack(shapes)
        if shapes.clouds:
            raise TypeError("a point cloud cannot be attached (attach its points as spheres)")
        self._attached = {**self._attached, frame: shapes}
        self._touch = {**self._touch, frame: frozenset(touch)}
        self._refresh_environment()

    def _refresh_environment(self) -> None:
        c: CollisionChecker = self  # type: ignore[assignment]
        env = Environment(c, self._obstacles, self._attached, self._touch)
        if c._kernel is not None:
            index = c.scene.index
            c._kernel.set_environment(env.obstacles, {
                index(f): (p, [index(t) for t in self._touch.get(f, ())])
                for f, p in env.attached.items()})
        self._env = None if env.empty else env
        self._names_cache = None


    def _with_env(self, q: np.ndarray, hits: np.ndarray) -> np.ndarray:
        """Robot columns hits (N, frame pairs) and then the environment's."""
        if self._env is None:
            return hits
        kernel = self._kernel
        env = (self._env.hits_compiled(q, kernel) if kernel is not None and not self._env.attached
               else self._env.hits(q))
        return np.concatenate([hits, env], axis=1)

    def _env_names(self) -> list[tuple[str, str]]:
        return [] if self._env is None else self._env.column_names()

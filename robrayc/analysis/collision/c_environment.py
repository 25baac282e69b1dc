"""The run-time obstacles of a compiled checker's library (robrayc/c/obstacles.c): what
CollisionChecker.set_obstacles hands the C, as data (no compile).

Two checkers of one robot load one library (the same cached file, one handle), whose
obstacles are global: each checker's set is uploaded again when another's was the last
(`own`, one list lookup a call)."""

from __future__ import annotations

import ctypes

import numpy as np

from robrayc.analysis.collision.obstacles import Packed
from robrayc.analysis.collision.solids import BOX, MESH, SPHERE, Solids

# NAME.h's struct NAME_obstacle { int kind; double pose[12]; double size[3]; }
OBSTACLE = np.dtype([("kind", np.int32), ("pose", np.float64, 12), ("size", np.float64, 3)],
                    align=True)
# per library file: [the environment whose obstacles the library holds]
_HOLDER: dict[str, list] = {}
# witness points a solid at most (checker_bind_witnesses)
WITNESSES = 64


def witnesses(solids: Solids) -> tuple[np.ndarray, np.ndarray]:
    """Points of each solid tested through its sphere tree, in its group's frame, that prove
    it colliding with an obstacle they lie inside (robrayc/c/obstacles.c, witness_inside): a
    mesh's vertices (a surface: only its own points), up to WITNESSES spread over them; a
    round solid's centre, cap centres and rim points (any point of a solid's body). Spheres
    and boxes need none (exact closed forms). Returns (points (P, 3), first (solids + 1))."""
    out, first = [], [0]
    ring = np.stack([np.cos(np.arange(8) * np.pi / 4), np.sin(np.arange(8) * np.pi / 4)], 1)
    for item in solids.items:
        if item.kind in (SPHERE, BOX):
            pts = np.zeros((0, 3))
        elif item.kind == MESH:
            v = np.asarray(item.vertices, float)
            pts = v[np.linspace(0, len(v) - 1, min(len(v), WITNESSES)).astype(int)] \
                if len(v) else np.zeros((0, 3))
        else:  # round: r_lo at z = -hh, r_hi at z = +hh
            r_lo, r_hi, hh = item.params
            rims = [np.column_stack([ring * r, np.full(8, z)]) for r, z in ((r_lo, -hh),
                                                                            (r_hi, hh))]
            pts = np.concatenate([[[0, 0, -hh], [0, 0, 0], [0, 0, hh]], *rims])
        out.append(pts @ item.placement[:3, :3].T + item.placement[:3, 3])
        first.append(first[-1] + len(pts))
    return (np.ascontiguousarray(np.concatenate(out) if out else np.zeros((0, 3))),
            np.array(first, np.int32))


def c_records(shapes: Packed) -> np.ndarray:
    """The shapes (but point clouds) as an array of the C's struct NAME_obstacle."""
    out = np.zeros(len(shapes.kind), OBSTACLE)
    out["kind"] = shapes.kind
    out["pose"][:, :9] = shapes.rotation.reshape(-1, 9)
    out["pose"][:, 9:] = shapes.centre
    out["size"] = shapes.size
    return out


class KernelEnvironment:
    """One checker's obstacles for its kernel's library."""

    def __init__(self, lib: ctypes.CDLL) -> None:
        self.lib = lib
        self.holder = _HOLDER.setdefault(str(lib._name), [None])
        lib.rc_set_obstacles.argtypes = (ctypes.c_void_p, ctypes.c_int)
        lib.rc_set_obstacles.restype = ctypes.c_int
        lib.rc_set_points.argtypes = (ctypes.c_void_p, ctypes.c_long)
        lib.rc_set_points.restype = ctypes.c_int
        lib.rc_obstacle_states.argtypes = (ctypes.c_void_p, ctypes.c_long, ctypes.c_void_p)
        lib.rc_obstacle_states.restype = None
        lib.rc_obstacle_pairs.argtypes = (ctypes.c_void_p, ctypes.c_long, *[ctypes.c_void_p] * 4,
                                          ctypes.c_long)
        lib.rc_obstacle_pairs.restype = ctypes.c_long
        lib.rc_attach.argtypes = (ctypes.c_int, ctypes.c_void_p, ctypes.c_int, ctypes.c_void_p,
                                  ctypes.c_int)
        lib.rc_attach.restype = ctypes.c_int
        lib.rc_bind_witnesses.argtypes = (ctypes.c_void_p, ctypes.c_void_p)
        lib.rc_bind_witnesses.restype = None
        self._witnesses: tuple | None = None  # kept alive while the library reads them
        self._triangles: tuple | None = None  # the triangle trees (convex.c), as well
        # per frame index: (shapes, touch frame indices) attached there
        self.attached: dict[int, tuple[np.ndarray, np.ndarray]] = {}
        self.uploaded: set[int] = set()  # frames the library holds shapes of (this checker's)
        self.shapes = np.zeros(0, OBSTACLE)
        self.points = np.zeros((0, 4))

    def set(self, obstacles: Packed, attached: dict[int, tuple[Packed, list[int]]]) -> None:
        """The obstacles, and the shapes attached to frames (by index, with the indices of
        the frames they may touch), as the C's, uploaded."""
        self.attached = {f: (c_records(p), np.array(sorted(t), np.int32))
                         for f, (p, t) in attached.items() if len(p)}
        self.shapes = c_records(obstacles)
        clouds = [np.column_stack([p, r]) for p, r, _ in obstacles.clouds]
        self.points = np.ascontiguousarray(np.concatenate(clouds) if clouds
                                           else np.zeros((0, 4)))
        self.upload()

    def bind_witnesses(self, solids: Solids) -> None:
        """Binds the solids' witness points (witnesses) for the certain hits."""
        self._witnesses = witnesses(solids)
        self.holder[0] = None  # (bound at the next upload: another checker's may be there)

    def bind_triangles(self, arrays: tuple) -> None:
        """The triangle trees' arrays (Kernel.bind_triangles; NAME_tbind's order, then
        NAME_hbind's: the meshes' and their tree nodes' hull points), bound now and again
        whenever this checker takes the library back."""
        self._triangles = arrays
        self._bind_trees()
        self.holder[0] = None

    def _bind_trees(self) -> None:
        pointers = [a.ctypes.data_as(ctypes.c_void_p) for a in self._triangles]
        self.lib.rc_tbind(*pointers[:6])
        self.lib.rc_hbind(*pointers[6:])

    def upload(self) -> None:
        if self._triangles is not None:
            self._bind_trees()
        if self._witnesses is not None:
            points, first = self._witnesses
            self.lib.rc_bind_witnesses(points.ctypes.data, first.ctypes.data)
        code = self.lib.rc_set_obstacles(self.shapes.ctypes.data, len(self.shapes))
        code = code or self.lib.rc_set_points(self.points.ctypes.data, len(self.points))
        holder = self.holder[0]
        held = set(self.uploaded) | (set(holder.uploaded) if holder is not None else set())
        for frame in sorted(held | set(self.attached)):
            shapes, touch = self.attached.get(frame, (np.zeros(0, OBSTACLE),
                                                      np.zeros(0, np.int32)))
            code = code or self.lib.rc_attach(frame, shapes.ctypes.data, len(shapes),
                                              touch.ctypes.data, len(touch))
        if holder is not None and holder is not self:
            holder.uploaded = set()
        self.uploaded = set(self.attached)
        if code:  # (shapes validated in Python: only memory can fail)
            self.holder[0] = None
            raise MemoryError("the compiled checker could not store the obstacles")
        self.holder[0] = self

    def own(self) -> None:
        """Makes the library hold this checker's obstacles (before a check)."""
        if self.holder[0] is not self:
            self.upload()

    def states(self, q: np.ndarray) -> np.ndarray:
        """(N,) int32: the obstacles' answer alone at each configuration (FREE, COLLIDES,
        MAYBE, INVALID)."""
        q = np.ascontiguousarray(q, dtype=np.float64)
        out = np.empty(q.shape[0], dtype=np.int32)
        self.own()
        self.lib.rc_obstacle_states(q.ctypes.data, q.shape[0], out.ctypes.data)
        return out

    def pairs(self, q: np.ndarray) -> tuple[np.ndarray, ...]:
        """Every (configuration, moving solid, obstacle) the C does not find FREE at the
        (valid) configurations q: rows, solids, items (k >= 0: the k-th shape; -1 - k: the
        k-th point) and states (COLLIDES, MAYBE)."""
        q = np.ascontiguousarray(q, dtype=np.float64)
        room = 64 * max(1, q.shape[0])
        self.own()
        while True:
            row, item = np.empty(room, np.int64), np.empty(room, np.int64)
            solid, state = np.empty(room, np.int32), np.empty(room, np.uint8)
            n = self.lib.rc_obstacle_pairs(q.ctypes.data, q.shape[0], row.ctypes.data,
                                           solid.ctypes.data, item.ctypes.data,
                                           state.ctypes.data, room)
            if n < 0:
                raise ValueError("a configuration the checker cannot answer (INVALID)")
            if n <= room:
                return row[:n], solid[:n], item[:n], state[:n]
            room = n

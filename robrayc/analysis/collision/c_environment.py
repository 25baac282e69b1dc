"""The run-time obstacles of a compiled checker's library (robrayc/c/obstacles.c): what
CollisionChecker.set_obstacles hands the C, as data (no compile).

Two checkers of one robot load one library (the same cached file, one handle), whose
obstacles are global: each checker's set is uploaded again when another's was the last
(`own`, one list lookup a call)."""

from __future__ import annotations

import ctypes

import numpy as np

from robrayc.analysis.collision.obstacles import PointCloud, c_record, cloud_points

# NAME.h's struct NAME_obstacle { int kind; double pose[12]; double size[3]; }
OBSTACLE = np.dtype([("kind", np.int32), ("pose", np.float64, 12), ("size", np.float64, 3)],
                    align=True)
# per library file: [the environment whose obstacles the library holds]
_HOLDER: dict[str, list] = {}


class KernelEnvironment:
    """One checker's obstacles for its kernel's library."""

    def __init__(self, lib: ctypes.CDLL) -> None:
        self.lib = lib
        self.holder = _HOLDER.setdefault(str(lib._name), [None])
        lib.rc_set_obstacles.argtypes = (ctypes.c_void_p, ctypes.c_int)
        lib.rc_set_obstacles.restype = ctypes.c_int
        lib.rc_set_points.argtypes = (ctypes.c_void_p, ctypes.c_long)
        lib.rc_set_points.restype = ctypes.c_int
        self.shapes = np.zeros(0, OBSTACLE)
        self.points = np.zeros((0, 4))
        self.complete = True  # the C holds the whole environment (no attached shapes)

    def set(self, obstacles: list, attached: bool) -> None:
        """The obstacles (validated shapes) as the C's, uploaded."""
        solid = [s for s in obstacles if not isinstance(s, PointCloud)]
        shapes = np.zeros(len(solid), OBSTACLE)
        for k, s in enumerate(solid):
            kind, pose, size = c_record(s)
            shapes[k] = (kind, pose, size)
        clouds = [np.column_stack([p, np.full(len(p), float(s.radius))])
                  for s in obstacles if isinstance(s, PointCloud)
                  for p in [cloud_points(s)]]
        self.shapes = shapes
        self.points = np.ascontiguousarray(np.concatenate(clouds) if clouds
                                           else np.zeros((0, 4)))
        self.complete = not attached
        self.upload()

    def upload(self) -> None:
        code = self.lib.rc_set_obstacles(self.shapes.ctypes.data, len(self.shapes))
        code = code or self.lib.rc_set_points(self.points.ctypes.data, len(self.points))
        if code:  # (shapes validated in Python: only memory can fail)
            self.holder[0] = None
            raise MemoryError("the compiled checker could not store the obstacles")
        self.holder[0] = self

    def own(self) -> None:
        """Makes the library hold this checker's obstacles (before a check)."""
        if self.holder[0] is not self:
            self.upload()

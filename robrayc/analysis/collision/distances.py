"""Signed distances between frames: the least over their solids' pairs, with how each was
found (a colliding pair with a mesh may only be bounded: robrayc.analysis.collision.depth)."""

from __future__ import annotations

import math

import numpy as np

from robrayc.records import record


@record(frozen=True)
class PairDistance:
    a: str
    b: str
    distance: float  # signed: negative is penetration (as deep as the library can tell)
    # how: "exact", or for a colliding pair with a mesh "convex-exact",
    # "deepest-vertex-bound" (at least this deep) or "open-mesh" (0: no inside, no depth)
    method: str = "exact"


# Distance methods that give an upper bound on the signed distance (depth.py), not its value.
_BOUNDS = ("deepest-vertex-bound", "open-mesh")


def frame_distances(checker, W: np.ndarray, keys: list[int]) -> list[PairDistance]:
    """The distance of each frame pair key (a * n_frames + b) of a CollisionChecker whose solids
    are posed at W, sorted by frame names. (`checker` is untyped here: the checker imports this
    module.)"""
    n = checker._n_frames
    by_frame: dict[int, list[int]] = {}
    for k, f in enumerate(checker.owner.tolist()):
        by_frame.setdefault(f, []).append(k)
    out = []
    for key in dict.fromkeys(keys):
        fa, fb = divmod(key, n)
        found = [checker.tester.signed_distance(a, b, W[a], W[b])
                 for a in by_frame.get(fa, ()) for b in by_frame.get(fb, ())]
        best = min(found, key=lambda d: d[0], default=(math.inf, "exact"))
        # a solid pair only bounded may be deeper than the least found: so is the frames'
        loose = [how for _, how in found if how in _BOUNDS]
        na, nb = checker.frame_names[fa], checker.frame_names[fb]
        out.append(PairDistance(*((na, nb) if na < nb else (nb, na)), best[0],
                                best[1] if best[1] in _BOUNDS or not loose else loose[0]))
    return sorted(out, key=lambda p: (p.a, p.b))

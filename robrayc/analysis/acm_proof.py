"""Certified 'never' verdicts: frame pairs proven apart over every configuration in the joint
ranges, so that allowed-collision sampling need not check them at every sample.

The relative pose of two frames depends only on the joints on the kinematic path between
them. Moving joint j by dq moves any point of the frames' solids by at most L_j |dq| (L_j: the
largest distance of those points from a revolute joint's axis, or |axis| for a prismatic
one), so the frames' distance d(q) satisfies d(q') >= d(q) - sum_j L_j |q'_j - q_j|. A branch
and bound over the path's variables evaluates the exact distance (the exact checker's: FCL's
for meshes) at the centre of a box of joint values and discards the box when the distance
exceeds the most it can shrink within it; it splits the box otherwise, and gives up (the
pair is sampled as usual) at a collision or past its evaluation budget.
"""

from __future__ import annotations

import math
from collections import deque

import numpy as np

# Distances below this (scene units, plus 1e-6 of the pair's size) prove nothing: they cover
# the contact tolerance and the rounding of FCL's distances.
MARGIN = 1e-6
# Pairs whose relative pose depends on more joint variables than this are not tried (the
# boxes needed grow exponentially with it).
MAX_VARIABLES = 2


def _chain(fk, g: int) -> list[int]:
    """The moving groups from g up to the world (g first)."""
    out = []
    while g != 0:
        out.append(g)
        g = fk.motions[g - 1][0]
    return out


def _solid_points(checker, frame: int) -> list[tuple[np.ndarray, float]]:
    """Per solid of a frame: points in its group's frame (mesh vertices, or a primitive's
    centre) and the radius to add to them (0 for vertices, the bounding radius otherwise)."""
    s = checker.solids
    out = []
    for k in np.flatnonzero(checker.owner == frame).tolist():
        T = checker.fk.rel[frame] @ s.placement[k]
        v = s.items[k].vertices
        if v is not None and len(v):
            out.append((v @ T[:3, :3].T + T[:3, 3], 0.0))
        else:
            out.append((T[None, :3, 3], float(s.brad[k])))
    return out


def _rates(checker, frame: int, side: list[int], lo: np.ndarray, hi: np.ndarray
           ) -> dict[int, float] | None:
    """Variable -> how fast (per unit of it) the frame's solids can move relative to the
    common ancestor of the pair, along the moving groups `side` (bottom first); None when
    a revolute axis is not a unit vector (amino then scales the angle: not bounded here)."""
    fk = checker.fk
    points = _solid_points(checker, frame)
    # distance from the origin of each group on the side to the farthest solid point
    reach = max((float(np.sqrt((p * p).sum(axis=1)).max()) + r for p, r in points), default=0.0)
    rates: dict[int, float] = {}
    for n, g in enumerate(side):
        _, const, kind, axis, var, offset = fk.motions[g - 1]
        norm = float(np.linalg.norm(axis))
        if kind == "revolute":
            if abs(norm - 1.0) > 1e-9:
                return None
            if n == 0:  # the solids' own group: their exact distances from the axis
                u = axis / norm
                rate = max(float(np.sqrt((np.cross(p, u) ** 2).sum(axis=1)).max()) + r
                           for p, r in points) if points else 0.0
            else:
                rate = reach
        else:
            rate = norm
            reach += norm * max(abs(lo[var] + offset), abs(hi[var] + offset))
        rates[var] = rates.get(var, 0.0) + rate
        reach += float(np.linalg.norm(const[:3, 3]))  # up to the parent group's origin
    return rates


def pair_rates(checker, fa: str, fb: str, lo: np.ndarray, hi: np.ndarray
               ) -> dict[int, float] | None:
    """Variable -> Lipschitz constant of the two frames' distance in it (the variables on
    the path between them); None when not bounded here."""
    ia, ib = checker.scene.index(fa), checker.scene.index(fb)
    ga, gb = _chain(checker.fk, int(checker.fk.group[ia])), _chain(checker.fk,
                                                                   int(checker.fk.group[ib]))
    common = set(ga) & set(gb)
    out: dict[int, float] = {}
    for frame, chain in ((ia, ga), (ib, gb)):
        rates = _rates(checker, frame, [g for g in chain if g not in common], lo, hi)
        if rates is None:
            return None
        for var, rate in rates.items():
            out[var] = out.get(var, 0.0) + rate
    return out


def prove_apart(checker, fa: str, fb: str, q0: np.ndarray, lo: np.ndarray, hi: np.ndarray,
                budget: int) -> bool:
    """Whether frames fa and fb are provably apart (distance above MARGIN) at every
    configuration with each variable in [lo, hi] (see the module docstring), within `budget`
    distance evaluations. Boxes are split breadth first: a pair that comes close somewhere
    needs every box down to some size, which depth first would only reach for part of the
    space before the budget runs out."""
    rates = pair_rates(checker, fa, fb, lo, hi)
    if rates is None or len(rates) > MAX_VARIABLES:
        return False
    cols = np.array(sorted(rates), dtype=np.int64)
    rate = np.array([rates[v] for v in cols.tolist()])
    margin = MARGIN * (1.0 + sum(checker.solids.brad[checker.owner == checker.scene.index(f)]
                                 .max(initial=0.0) for f in (fa, fb)))
    boxes = deque([(lo[cols].astype(float), hi[cols].astype(float))])
    q = q0.astype(float).copy()
    for used in range(budget):
        if not boxes:
            return True
        if used + len(boxes) > budget:
            return False  # each box left needs an evaluation at least: no proof in budget
        blo, bhi = boxes.popleft()
        q[cols] = (blo + bhi) / 2
        (d,) = checker.distance(q, [(fa, fb)])
        spread = rate * (bhi - blo) / 2
        if d.distance > spread.sum() + margin:
            continue
        if not d.distance > margin or not math.isfinite(d.distance):
            return False  # colliding (or touching) here: sampling will see it
        k = int(np.argmax(spread))
        mid = (blo[k] + bhi[k]) / 2
        left_hi, right_lo = bhi.copy(), blo.copy()
        left_hi[k], right_lo[k] = mid, mid
        boxes += [(blo, left_hi), (right_lo, bhi)]
    return not boxes


def near_share(checker, fa: str, fb: str, G: np.ndarray) -> float:
    """The share of configurations (their group poses G) at which some solid of fa and some
    solid of fb have overlapping bounding spheres (how often sampling needs more than a
    sphere test)."""
    s = checker.solids
    ka = np.flatnonzero(checker.owner == checker.scene.index(fa))
    kb = np.flatnonzero(checker.owner == checker.scene.index(fb))
    ca = (G[:, checker.group[ka]] @ s.placement[ka])[..., :3, 3]  # (N, A, 3)
    cb = (G[:, checker.group[kb]] @ s.placement[kb])[..., :3, 3]
    d = ca[:, :, None] - cb[:, None]
    reach = s.brad[ka][:, None] + s.brad[kb][None]
    return float(((d * d).sum(axis=3) <= reach * reach).any(axis=(1, 2)).mean())

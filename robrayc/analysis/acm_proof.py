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
    distance evaluations. Boxes are split breadth first, a level at a time (one batched
    kinematics call per level): a pair that comes close somewhere needs every box down to
    some size, which depth first would only reach for part of the space before the budget
    runs out."""
    rates = pair_rates(checker, fa, fb, lo, hi)
    if rates is None or len(rates) > MAX_VARIABLES:
        return False
    cols = np.array(sorted(rates), dtype=np.int64)
    rate = np.array([rates[v] for v in cols.tolist()])
    solids = [np.flatnonzero(checker.owner == checker.scene.index(f)) for f in (fa, fb)]
    margin = MARGIN * (1.0 + sum(checker.solids.brad[k].max(initial=0.0) for k in solids))
    level_lo, level_hi = lo[cols][None].astype(float), hi[cols][None].astype(float)
    used = 0
    while len(level_lo):
        if used + len(level_lo) > budget:
            return False  # each box left needs an evaluation at least: no proof in budget
        used += len(level_lo)
        q = np.repeat(q0[None].astype(float), len(level_lo), axis=0)
        q[:, cols] = (level_lo + level_hi) / 2
        d = _distances(checker, *solids, checker.group_poses(q))
        spread = (rate * (level_hi - level_lo) / 2)
        if not (d > margin).all() or not np.isfinite(d).all():
            return False  # colliding (or touching) somewhere: sampling will see it
        split = d <= spread.sum(axis=1) + margin
        level_lo, level_hi, spread = level_lo[split], level_hi[split], spread[split]
        k = np.argmax(spread, axis=1)
        rows = np.arange(len(k))
        mid = (level_lo[rows, k] + level_hi[rows, k]) / 2
        left_hi, right_lo = level_hi.copy(), level_lo.copy()
        left_hi[rows, k], right_lo[rows, k] = mid, mid
        level_lo = np.concatenate([level_lo, right_lo])
        level_hi = np.concatenate([left_hi, level_hi])
    return True


def _distances(checker, ka: np.ndarray, kb: np.ndarray, G: np.ndarray) -> np.ndarray:
    """Per configuration (group poses G): the least exact distance between solids ka and kb
    (the checker's pair distance, as CollisionChecker.distance takes it)."""
    s = checker.solids
    out = np.full(len(G), np.inf)
    for n, Gn in enumerate(G):
        for a in ka.tolist():
            Ta = Gn[checker.group[a]] @ s.placement[a]
            for b in kb.tolist():
                Tb = Gn[checker.group[b]] @ s.placement[b]
                out[n] = min(out[n], checker.tester.distance(a, b, Ta, Tb))
    return out


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

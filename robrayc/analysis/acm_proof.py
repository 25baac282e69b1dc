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

A moving mesh is cut into pieces by how far its triangles lie from its joints, each with its
own L_j: the pieces near the axes, which are often the close ones, move slowly, and the far
ones are cleared in large boxes (PR2's forearm and palm, about 1 mm apart everywhere: proven
in 73,000 evaluations of pieces, not in 65,536 of the whole meshes).
"""

from __future__ import annotations

import numpy as np

from robrayc.kinematics import chain_reaches, lever_arms
from robrayc.records import record

# Distances below this (scene units, plus 1e-6 of the pair's size) prove nothing: they cover
# the contact tolerance and the rounding of FCL's distances.
MARGIN = 1e-6
# Pairs whose relative pose depends on more joint variables than this are not tried (the
# boxes needed grow exponentially with it).
MAX_VARIABLES = 2
# A moving mesh is cut into up to this many pieces (of at least MIN_PIECE_FACES triangles).
PIECES = 8
MIN_PIECE_FACES = 64
# Two frames of meshes are proven in C on their triangle trees (robrayc.analysis.collision.
# triangles) when the checker is compiled: a budget of n distance evaluations buys n times
# TRIANGLE_VISITS node pairs (an FCL distance of two meshes, about 0.4 ms, takes as long as
# some 3,000 of them at 130 ns where triangles are near; 2,000, as FCL's proofs often give up
# sooner), at least TRIANGLE_MIN_VISITS (most
# of them sphere tests of 50 ns where the pair is far apart) and at most TRIANGLE_MAX_VISITS,
# in boxes split at most TRIANGLE_DEPTH times.
TRIANGLE_VISITS = 2000
TRIANGLE_MIN_VISITS = 1_000_000
TRIANGLE_MAX_VISITS = 50_000_000
TRIANGLE_DEPTH = 48


def _group_points(checker, frame: int, k: int) -> tuple[np.ndarray, float]:
    """Solid k of a frame: points in its group's frame (mesh vertices, or the centre of a
    primitive) and the radius to add to them (0 for vertices, the bounding radius otherwise)."""
    s = checker.solids
    T = s.placement[k]  # the solid in its group's frame (the frame's place in it included)
    v = s.items[k].vertices
    if v is not None and len(v):
        return v @ T[:3, :3].T + T[:3, 3], 0.0
    return T[None, :3, 3], float(s.brad[k])


def _rates(checker, points: list[tuple[np.ndarray, float]], side: list[int], lo: np.ndarray,
           hi: np.ndarray) -> dict[int, float] | None:
    """Variable -> how fast (per unit of it) the points (with their radii; in the frame of
    the group side[0]) can move relative to the common ancestor of the pair, along the moving
    groups `side` (bottom first); None when a revolute axis is not a unit vector (amino then
    scales the angle: not bounded here)."""
    points = points or [(np.zeros((1, 3)), 0.0)]  # no points: the joints' own reaches
    arms, unit = lever_arms(checker.fk, np.concatenate([p for p, _ in points]),
                            np.concatenate([np.full(len(p), r) for p, r in points]), side, lo,
                            hi)
    if not unit:
        return None
    rates: dict[int, float] = {}
    for n, g in enumerate(side):
        var = checker.fk.motions[g - 1][4]
        rates[var] = rates.get(var, 0.0) + float(arms[n].max())
    return rates


def _sides(checker, fa: str, fb: str) -> list[tuple[int, list[int]]]:
    """Each frame of the pair with its moving groups below their common ancestor."""
    ia, ib = checker.scene.index(fa), checker.scene.index(fb)
    fk = checker.fk
    ga, gb = fk.chain(int(fk.group[ia])), fk.chain(int(fk.group[ib]))
    common = set(ga) & set(gb)
    return [(ia, [g for g in ga if g not in common]), (ib, [g for g in gb if g not in common])]


def _remember(memo: dict | None, key: tuple, make):
    """make(), or what it gave for the same key before (memo None: no memory). A memo serves
    one checker."""
    if memo is None:
        return make()
    if key not in memo:
        memo[key] = make()
    return memo[key]


def pair_rates(checker, fa: str, fb: str, lo: np.ndarray, hi: np.ndarray,
               memo: dict | None = None) -> dict[int, float] | None:
    """Variable -> Lipschitz constant of the two frames' distance in it (the variables on
    the path between them); None when not bounded here. `memo`: a dict kept across calls
    (each frame's share is computed once)."""
    out: dict[int, float] = {}
    ranges = lo.tobytes() + hi.tobytes()
    for frame, side in _sides(checker, fa, fb):
        def side_rates(frame=frame, side=side):
            points = [_group_points(checker, frame, k)
                      for k in np.flatnonzero(checker.owner == frame).tolist()]
            return _rates(checker, points, side, lo, hi)

        rates = _remember(memo, ("rates", frame, tuple(side), ranges), side_rates)
        if rates is None:
            return None
        for var, rate in rates.items():
            out[var] = out.get(var, 0.0) + rate
    return out


def _solids_digest(checker, frame: int) -> bytes:
    """A digest of the frame's solids, in their groups' frames."""
    import hashlib

    s = checker.solids
    digest = hashlib.sha256()
    for k in np.flatnonzero(checker.owner == frame).tolist():
        item = s.items[k]
        digest.update(np.array([item.kind, *item.params]).tobytes())
        digest.update(np.ascontiguousarray(s.placement[k]).tobytes())
        for array in (item.vertices, item.faces):
            digest.update(b"-" if array is None else np.ascontiguousarray(array).tobytes())
    return digest.digest()


def pair_signature(checker, fa: str, fb: str, lo: np.ndarray, hi: np.ndarray,
                   memo: dict | None = None) -> bytes:
    """What a proof for the pair depends on: each side's solids (in their groups' frames) and
    motions, its variables numbered by first use, with their ranges. Pairs with the same
    signature (a robot's left and right arms) have the same proof. `memo`: as pair_rates'."""
    import hashlib

    fk = checker.fk
    digest = hashlib.sha256()
    numbers: dict[int, int] = {}
    for frame, side in _sides(checker, fa, fb):
        digest.update(_remember(memo, ("solids", frame),
                                lambda frame=frame: _solids_digest(checker, frame)))
        digest.update(b"|")
        for g in side:
            _, const, kind, axis, var, offset = fk.motions[g - 1]
            digest.update(np.ascontiguousarray(const).tobytes() + kind.encode()
                          + np.asarray(axis, dtype=float).tobytes())
            digest.update(np.array([numbers.setdefault(var, len(numbers)), offset, lo[var],
                                    hi[var]]).tobytes())
        digest.update(b"#")
    return digest.digest()


def _reach_balls(checker, frame: int, side: list[int], lo: np.ndarray, hi: np.ndarray
                 ) -> list[tuple[np.ndarray, float]]:
    """Per solid of the frame: a ball, in the frame of the pair's lowest common group, that
    holds the solid at every configuration in the ranges. A side's top joint turns about (or
    slides from) a point fixed in that frame; the solid stays within its reach of it."""
    out = []
    for k in np.flatnonzero(checker.owner == frame).tolist():
        points, radius = _group_points(checker, frame, k)
        if not side:
            centre = (points.min(axis=0) + points.max(axis=0)) / 2
            out.append((centre, float(np.sqrt(((points - centre) ** 2).sum(axis=1)).max())
                        + radius))
            continue
        reach = float(np.sqrt((points * points).sum(axis=1)).max()) + radius
        out.append((checker.fk.motions[side[-1] - 1][1][:3, 3],
                    chain_reaches(checker.fk, reach, side, lo, hi)[-1]))
    return out


def out_of_reach(checker, fa: str, fb: str, lo: np.ndarray, hi: np.ndarray,
                 memo: dict | None = None) -> bool:
    """Whether frames fa and fb are apart at every configuration in the ranges because no
    solid of one can reach a solid of the other (their _reach_balls are apart): any number
    of joints, one test per pair of solids. `memo`: as pair_rates'."""
    ranges = lo.tobytes() + hi.tobytes()
    balls = [_remember(memo, ("balls", frame, tuple(side), ranges),
                       lambda frame=frame, side=side: _reach_balls(checker, frame, side, lo, hi))
             for frame, side in _sides(checker, fa, fb)]
    margin = MARGIN * (1.0 + sum(r for _, r in balls[0] + balls[1]))
    return all(float(np.linalg.norm(ca - cb)) > ra + rb + margin
               for ca, ra in balls[0] for cb, rb in balls[1])


@record(frozen=True)
class _Piece:
    """A solid, or part of a moving mesh, as the proof evaluates it."""

    solid: int  # the solid it belongs to (its group and placement)
    obj: object  # its FCL CollisionObject
    rate: np.ndarray  # how fast it moves, per proof variable (0 on the still side)
    cost: float  # its share of its solid's triangles (an evaluation's relative cost)


def _pieces(checker, frame: int, side: list[int], cols: list[int], lo: np.ndarray,
            hi: np.ndarray) -> list[_Piece] | None:
    """The frame's solids as pieces. A moving mesh is cut by how far its triangles lie from
    its joints (points near the axes move slowly): a piece that comes close but moves slowly
    is cleared in larger boxes, and a fast one that stays far in larger boxes still."""
    s = checker.solids
    out = []
    for k in np.flatnonzero(checker.owner == frame).tolist():
        points, radius = _group_points(checker, frame, k)
        faces = s.items[k].faces
        if not side or faces is None or len(faces) < 2 * MIN_PIECE_FACES:
            parts = [(None, points, 1.0)]
        else:
            key = np.sqrt((points * points).sum(axis=1))
            _, _, kind, axis, _, _ = checker.fk.motions[side[0] - 1]
            if kind == "revolute":
                key = key + np.sqrt((np.cross(points, axis) ** 2).sum(axis=1))
            order = np.argsort(key[faces].max(axis=1), kind="stable")
            n = min(PIECES, len(faces) // MIN_PIECE_FACES)
            parts = []
            for chunk in np.array_split(order, n):
                used, tri = np.unique(faces[chunk], return_inverse=True)
                parts.append(((used, tri.reshape(-1, 3)), points[used], len(chunk) / len(faces)))
        for mesh, at, cost in parts:
            rates = _rates(checker, [(at, radius)], side, lo, hi)
            if rates is None:
                return None
            obj = s.fcl_object(k) if mesh is None else _submesh(s.items[k].vertices, *mesh)
            out.append(_Piece(k, obj, np.array([rates.get(v, 0.0) for v in cols]), cost))
    return out


def _submesh(vertices: np.ndarray, used: np.ndarray, faces: np.ndarray):
    import fcl

    geom = fcl.BVHModel()
    geom.beginModel(len(used), len(faces))
    geom.addSubModel(vertices[used], faces)
    geom.endModel()
    return fcl.CollisionObject(geom)


def prove_apart(checker, fa: str, fb: str, q0: np.ndarray, lo: np.ndarray, hi: np.ndarray,
                budget: float) -> bool:
    """Whether frames fa and fb are provably apart (distance above MARGIN) at every
    configuration with each variable in [lo, hi] (see the module docstring), within `budget`
    distance evaluations (a piece's evaluation counts as its share of its solid). Boxes are
    split breadth first, a level at a time (one batched kinematics call per level): a pair
    that comes close somewhere needs every box down to some size, which depth first would
    only reach for part of the space before the budget runs out. A pair of pieces cleared in
    a box stays cleared in its sub-boxes."""
    lo, hi = one_turn(checker, lo, hi)
    exact = _triangle_proof(checker, fa, fb, q0, lo, hi, budget)
    if exact is not None:
        return exact
    rates = pair_rates(checker, fa, fb, lo, hi)
    if rates is None or len(rates) > MAX_VARIABLES:
        return False
    cols = sorted(rates)
    sides = [_pieces(checker, frame, side, cols, lo, hi) for frame, side in _sides(checker,
                                                                                    fa, fb)]
    if sides[0] is None or sides[1] is None:
        return False
    pairs = [(x, y) for x in sides[0] for y in sides[1]]
    rate = np.array([x.rate + y.rate for x, y in pairs])  # (pairs, variables)
    # a piece costs FCL about half the time of its whole solid, plus its share of the rest
    cost = np.array([0.5 + (x.cost + y.cost) / 4 for x, y in pairs])
    margin = MARGIN * (1.0 + sum(checker.solids.brad[x.solid] for x in sides[0] + sides[1]))
    box_lo, box_hi = lo[cols][None].astype(float), hi[cols][None].astype(float)
    live = np.ones((1, len(pairs)), dtype=bool)
    used = 0.0
    while len(box_lo):
        used += float((live * cost).sum())
        if used > budget:
            return False  # each box left needs an evaluation at least: no proof in budget
        d = _piece_distances(checker, pairs, live, q0, cols, (box_lo + box_hi) / 2)
        if not (d[live] > margin).all() or not np.isfinite(d[live]).all():
            return False  # colliding (or touching) somewhere: sampling will see it
        half = (box_hi - box_lo) / 2
        spread = half @ rate.T
        live &= d <= spread + margin
        if used + _boxes_needed(half, rate, live, d - margin, cost) > budget:
            return False  # give up early rather than spend the budget on a proof that cannot fit it
        keep = live.any(axis=1)
        box_lo, box_hi, live, half = box_lo[keep], box_hi[keep], live[keep], half[keep]
        # split along the variable that lets the live pieces move the most
        k = np.argmax(np.max(np.where(live[:, :, None], half[:, None] * rate[None], 0.0),
                             axis=1), axis=1)
        rows = np.arange(len(k))
        mid = (box_lo[rows, k] + box_hi[rows, k]) / 2
        left_hi, right_lo = box_hi.copy(), box_lo.copy()
        left_hi[rows, k], right_lo[rows, k] = mid, mid
        box_lo = np.concatenate([box_lo, right_lo])
        box_hi = np.concatenate([left_hi, box_hi])
        live = np.concatenate([live, live])
    return True


def _triangle_proof(checker, fa: str, fb: str, q0: np.ndarray, lo: np.ndarray, hi: np.ndarray,
                    budget: float) -> bool | None:
    """prove_apart on the compiled kernel's triangle trees: exact triangle distances at the
    leaves, each node grown by how far it can move in the box (no sphere's bulge, no global
    rate: PR2's forearm and palm, 1 mm apart everywhere, in 13 million node pairs, about 3 s).
    None when the checker has no kernel or a frame holds other solids than meshes."""
    from robrayc.analysis.collision.cells import path_variables

    kernel = getattr(checker, "_kernel", None)
    if kernel is None:
        return None
    s = checker.solids
    sides = [np.flatnonzero(checker.owner == checker.scene.index(f)).tolist() for f in (fa, fb)]
    if not all(s.items[k].faces is not None and len(s.items[k].faces)
               for k in sides[0] + sides[1]):
        return None
    _bind_triangles(checker)
    margin = MARGIN * (1.0 + sum(float(s.brad[k]) for k in sides[0] + sides[1]))
    visits = int(min(max(budget * TRIANGLE_VISITS, TRIANGLE_MIN_VISITS), TRIANGLE_MAX_VISITS))
    for a in sides[0]:
        for b in sides[1]:
            var = path_variables(checker, a, b)
            if not var or len(var) > 3:
                return False
            ok, visits = kernel.prove_apart(a, b, var, lo[var], hi[var], margin, TRIANGLE_DEPTH,
                                            q0, visits)
            if not ok:
                return False
    return True


def one_turn(checker, lo: np.ndarray, hi: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The ranges a proof needs: every pose repeats after a full turn of a periodic variable
    (kinematics.periodic_variables), so a range of more than a turn is cut to one."""
    from robrayc.kinematics import periodic_variables

    periodic = np.array(periodic_variables(checker.scene), dtype=bool)
    lo = np.asarray(lo, dtype=float)
    return lo, np.where(periodic, np.minimum(hi, lo + 2 * np.pi), hi)


def _bind_triangles(checker) -> None:
    """The checker's triangle trees and their nodes' speeds (over the whole sampling ranges:
    they bound the speeds in any part of them), bound to its kernel once."""
    from robrayc.analysis.collision.cells import node_speeds
    from robrayc.analysis.collision.triangles import triangle_trees
    from robrayc.kinematics import sample_ranges

    kernel = checker._kernel
    if kernel.triangles_bound:
        return
    lo, hi = sample_ranges(checker.scene)
    trees = triangle_trees(checker)
    kernel.bind_triangles(trees, node_speeds(checker, trees.node_solid, trees.nodes, lo, hi))


def _boxes_needed(half: np.ndarray, rate: np.ndarray, live: np.ndarray, gap: np.ndarray,
                  cost: np.ndarray) -> float:
    """About how many evaluations the live boxes still need: each variable's share of the
    spread must shrink below its share of the gap, so a box splits into the product of those
    ratios, halved (sub-boxes' centres tend to lie farther than their parent's: on PR2's
    forearm and palm, the halved product was 0.25-1.2x the evaluations the proof then took)."""
    share = half[:, None, :] * rate[None] * rate.shape[1] / np.maximum(gap, 1e-300)[:, :, None]
    boxes = np.where(live, np.prod(np.maximum(share, 1.0), axis=2), 0.0).max(axis=1)
    return 0.5 * float((np.ceil(boxes) * (live * cost).sum(axis=1)).sum())


def _piece_distances(checker, pairs: list, live: np.ndarray, q0: np.ndarray, cols: list[int],
                     centres: np.ndarray) -> np.ndarray:
    """(boxes, pairs) exact distances of the live pairs of pieces at the boxes' centres
    (infinity for the rest)."""
    import fcl

    q = np.repeat(q0[None].astype(float), len(centres), axis=0)
    q[:, cols] = centres
    solids = sorted({piece.solid for pair in pairs for piece in pair})
    at = {k: n for n, k in enumerate(solids)}
    T = checker.group_poses(q)[:, checker.group[solids]] @ checker.solids.placement[solids]
    R, t = T[..., :3, :3].copy(), T[..., :3, 3].copy()
    out = np.full(live.shape, np.inf)
    req, Transform, distance = fcl.DistanceRequest(), fcl.Transform, fcl.distance
    for n, p in zip(*np.nonzero(live), strict=True):
        x, y = pairs[p]
        i, j = at[x.solid], at[y.solid]
        x.obj.setTransform(Transform(R[n, i], t[n, i]))
        y.obj.setTransform(Transform(R[n, j], t[n, j]))
        out[n, p] = distance(x.obj, y.obj, req, fcl.DistanceResult())
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

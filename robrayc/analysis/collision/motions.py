"""What a motion planner asks a checker, fast: one configuration, batches that stop at each
configuration's first certain collision, and straight-line motions sampled as VAMP samples
them (KavrakiLab/vamp, validate_motion), plus their start.

With the compiled kernel, a configuration or a motion costs one foreign call when the C
decides it (FREE, or a certain collision): the kernel's caller, robrayc/c/pycall.c built for
the interpreter (ctypes where Python's headers are missing); what it leaves MAYBE goes to the
exact tests, every open solid pair of every MAYBE configuration in one batch, a
configuration's (or a motion's) remaining pairs skipped once one of its pairs collides; a
motion's samples in rounds, in its raked order, so that one colliding early ends it. Without
the kernel (the exact backend, or a checker restricted to some pairs), the same questions go
through collision_matrix.
"""

from __future__ import annotations

import functools
import math
from typing import Any

import numpy as np

# a robrayc.analysis.collision.checker.CollisionChecker (which imports this module: no cycle)
CollisionChecker = Any

FREE, COLLIDES, MAYBE, INVALID = 0, 1, 2, 3  # the kernel's answers (INVALID: none)
# samples per unit of configuration-space length: VAMP's Panda, UR5 and Fetch
DEFAULT_RESOLUTION = 32.0
# more samples than this in one motion is an error (as the C's MAYBE: not checked)
MAX_SAMPLES = 1 << 30
# the rounds in which an owner's rows (a motion's samples) are tried: [from, to) of its rows
ROUNDS = ((0, 8), (8, 64), (64, math.inf))


def motion_steps(a: np.ndarray, b: np.ndarray, resolution: float) -> int:
    """n: each of the 8 rakes of the motion a -> b takes n samples (the C's motion_steps; the
    length summed in the same order)."""
    if isinstance(resolution, (str, bytes)) or not (
            isinstance(resolution, (int, float, np.number)) and resolution > 0
            and math.isfinite(resolution)):
        raise ValueError(f"motion resolution must be a positive number, got {resolution!r}")
    length = 0.0
    for d in (b - a).tolist():
        length += d * d
    steps = math.sqrt(length) * resolution / 8.0
    if not steps <= MAX_SAMPLES // 8:  # (also an overflow to infinity)
        raise ValueError(f"the motion would take {8 * steps + 1:.3g} samples at resolution "
                         f"{resolution} (at most {MAX_SAMPLES})")
    return max(1, math.ceil(steps))


def motion_samples(a: np.ndarray, b: np.ndarray, resolution: float) -> np.ndarray:
    """(8 n + 1, dof): the samples check_motion takes of the straight line a -> b, in its
    order: (1 - t) a + t b at t = k / (8 n), k = 1 .. 8 n (VAMP's), n = max(1, ceil(|b - a|
    resolution / 8)), in raked order (the rake r = 1 .. 8 ends at t = r / 8 and steps back
    by 1 / (8 n); the rakes advance together), then a."""
    n = motion_steps(a, b, resolution)
    step = np.arange(n, dtype=np.int64)[:, None]
    rake = np.arange(1, 9, dtype=np.int64)[None, :]
    t = ((rake * n - step) / float(8 * n)).reshape(-1, 1)
    return np.concatenate([(1.0 - t) * a + t * b, a[None]])


def in_collision(checker: CollisionChecker, q: np.ndarray) -> np.ndarray:
    """(N,) whether anything collides at each (validated) configuration of q (a dense-mode
    checker)."""
    if not _fast(checker):
        return checker.collision_matrix(q).any(axis=1)
    return any_collides(checker, q, np.arange(q.shape[0]), q.shape[0])


def check(checker: CollisionChecker, config) -> bool:
    """Whether anything collides at one configuration: one foreign call when the C decides
    it; else (MAYBE, INVALID, or a config the C call does not take) in_collision's way."""
    caller = kernel_caller(checker)
    if caller is not None:
        return caller.check_or(functools.partial(left_open, checker), config)
    return left_open(checker, config)


def left_open(checker: CollisionChecker, config) -> bool:
    """check's answer where the Caller did not decide: the kernel's own call (it reads the
    sequences the Caller does not), else in_collision's way."""
    if kernel_caller(checker) is not None:
        state = checker._kernel.check_one(config)
        if state in (FREE, COLLIDES):
            return state == COLLIDES
    return bool(checker.in_collision(checker.config_vector(config)[None])[0])


def bind_check(checker: CollisionChecker) -> None:
    """checker.check as one foreign call where the kernel answers for the checker as it is
    (called when its kernel or its restriction changes): a partial of the kernel's
    Caller.check_or, so that no Python frame runs between (Panda: docs/performance.md, "One
    Python call"), with left_open as its fallback for what the C leaves open; else the
    method."""
    vars(checker).pop("check", None)
    caller = kernel_caller(checker)
    if caller is not None:
        checker.check = functools.partial(caller.check_or, functools.partial(left_open, checker))


def check_motion(checker: CollisionChecker, a, b,
                 resolution: float = DEFAULT_RESOLUTION) -> bool:
    """Whether the straight-line motion a -> b collides at one of its samples
    (motion_samples): one foreign call when the C decides it."""
    caller = kernel_caller(checker)
    if caller is not None:
        hit = caller.decide_motion(a, b, resolution)
        if hit is not None:
            return hit
        state = checker._kernel.check_motion_one(a, b, resolution)
        if state in (FREE, COLLIDES):
            return state == COLLIDES
    qa, qb = checker.config_vector(a)[None], checker.config_vector(b)[None]
    return bool(check_motions(checker, qa, qb, resolution)[0])


def check_motions(checker: CollisionChecker, a, b,
                  resolution: float = DEFAULT_RESOLUTION) -> np.ndarray:
    """(N,) whether each motion a[k] -> b[k] ((N, dof) each) collides at one of its
    samples."""
    a, b = checker._configs(a), checker._configs(b)
    if a.shape != b.shape:
        raise ValueError(f"motion starts {a.shape} and ends {b.shape} differ in shape")
    for x, y in zip(a, b, strict=True):  # each motion can be sampled
        motion_steps(x, y, resolution)
    if not a.shape[0]:
        return np.zeros(0, dtype=bool)
    if not _fast(checker):
        samples = [motion_samples(x, y, resolution) for x, y in zip(a, b, strict=True)]
        owner = np.repeat(np.arange(a.shape[0]), [len(s) for s in samples])
        out = np.zeros(a.shape[0], dtype=bool)
        out[owner[checker.in_collision(np.concatenate(samples))]] = True
        return out
    kernel = checker._kernel
    state = kernel.check_motions(a, b, resolution)
    out = state == COLLIDES
    open_ = np.flatnonzero(state >= MAYBE)
    if open_.size:
        samples = [kernel.motion_configs(a[k], b[k], resolution) for k in open_.tolist()]
        owner = np.repeat(open_, [len(s) for s in samples])
        out |= any_collides(checker, np.concatenate(samples), owner, a.shape[0])
    return out


def _fast(checker: CollisionChecker) -> bool:
    """Whether the kernel answers for the checker as it is (not restricted to some pairs)."""
    return checker._kernel is not None and checker._active is None and len(checker._pi) > 0


def kernel_caller(checker: CollisionChecker):
    """The compiled kernel's Python entry points (c_build.Caller: decide, decide_motion; True
    collides, False free, None left open) when the kernel answers for the checker as it is,
    else None: check and check_motion ask it first, and so do the planner's callbacks."""
    return checker._kernel.caller if _fast(checker) else None


def any_collides(checker: CollisionChecker, q: np.ndarray, owner: np.ndarray, n: int
                 ) -> np.ndarray:
    """(n,) whether a row of q collides, for each of n owners (owner[k]: row k's; rows grouped
    by owner, in the order to try them): in rounds of each owner's rows (its first 8, the
    next 56, the rest) among owners not yet colliding, each row by the kernel (stopping at
    its first certain collision), then the MAYBE rows exactly (_resolve)."""
    out = np.zeros(n, dtype=bool)
    rank = _ranks(owner)
    for lo, hi in ROUNDS:
        rows = np.flatnonzero((rank >= lo) & (rank < hi) & ~out[owner])
        if not rows.size:
            continue
        state = checker._kernel.check_batch(q[rows])
        out[owner[rows[state == COLLIDES]]] = True
        maybe = rows[(state >= MAYBE) & ~out[owner[rows]]]  # INVALID: every pair open
        if maybe.size:
            out[_resolve(checker, q[maybe], owner[maybe])] = True
    return out


def _ranks(owner: np.ndarray) -> np.ndarray:
    """Each row's place among its owner's rows (rows grouped by owner)."""
    if not owner.size:
        return owner
    first = np.flatnonzero(np.r_[True, owner[1:] != owner[:-1]])
    return np.arange(owner.size) - np.repeat(first, np.diff(np.r_[first, owner.size]))


def _resolve(checker: CollisionChecker, q: np.ndarray, owner: np.ndarray) -> np.ndarray:
    """The owners of MAYBE rows q that collide: every solid pair the kernel leaves open in
    them, by the exact tests in one batch (vectorised stages over all; the pairs left one by
    one are skipped once their owner is known to collide)."""
    kernel, s = checker._kernel, checker.solids
    rows, pairs, states = kernel.open_states(q)
    hit = owner[rows[states == COLLIDES]]
    if checker._env is not None:  # the run-time obstacles: the pairs C leaves open, exactly
        hit = np.union1d(hit, _resolve_obstacles(checker, q, owner, hit))
    keep = (states == MAYBE) & ~np.isin(owner[rows], hit)
    rows, pairs = rows[keep], pairs[keep]
    if not rows.size:
        return hit
    at_rows, at = np.unique(rows, return_inverse=True)  # poses only where a pair is open
    G = kernel.group_poses(q[at_rows])
    a, b = checker._pi[pairs], checker._pj[pairs]
    Ta = G[at, checker.group[a]] @ s.placement[a]
    Tb = G[at, checker.group[b]] @ s.placement[b]
    keys = owner[rows]
    found = checker.tester.test(a, b, Ta, Tb, keys=keys)
    return np.union1d(hit, keys[found])


def _resolve_obstacles(checker: CollisionChecker, q: np.ndarray, owner: np.ndarray,
                       hit: np.ndarray) -> np.ndarray:
    """The owners of rows q (valid configurations) whose moving solids meet a run-time
    obstacle, besides the owners hit: the pairs the C leaves open, by the exact tests."""
    left = np.flatnonzero(~np.isin(owner, hit))
    if checker._env.attached:  # the C's answer for the environment, MAYBE ones exactly
        state = checker._kernel.env.states(q[left])
        sure = owner[left[state == COLLIDES]]
        left = left[(state >= MAYBE) & ~np.isin(owner[left], sure)]
        return np.union1d(sure, owner[left[checker._env.any_hit(q[left])]])
    rows, solid, item, state = checker._kernel.env.pairs(q[left])
    sure = owner[left[rows[state == COLLIDES]]]
    open_ = (state == MAYBE) & ~np.isin(owner[left[rows]], sure)
    rows, solid, item = rows[open_], solid[open_], item[open_]
    if not rows.size:
        return sure
    at_rows, at = np.unique(rows, return_inverse=True)
    G = checker._kernel.group_poses(q[left[at_rows]])
    keys = owner[left[rows]]
    found = checker._env.pair_hits(G, at, solid, item, keys)
    return np.union1d(sure, keys[found])

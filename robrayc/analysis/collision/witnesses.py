"""Crossing witnesses: for each checked pair of two meshes, a few pairs of their triangles that
crossed at many random configurations when the checker was built, which the compiled checker
tries before it searches the pair's triangles (robrayc/c/meshes.c, witness_crosses).

Two meshes that collide cross at many triangle pairs at once (UR5's colliding links: a median
of 59 to 210), and at random configurations the same few cross again and again, so a short
list a pair ends most searches for a crossing at once (UR5's `NAME_check` over random
configurations: about a fifth fewer instructions; docs/performance.md). A witness changes no
answer: one that crosses is a hit the search would find too (meshes.c says why).

The candidates are every crossing the C finds at SAMPLES random configurations (triangles.c's
checker_crossings, in the certifying build); per pair, PER_PAIR of them chosen greedily, each
the one crossing in the most sampled configurations the ones before it miss.
"""

from __future__ import annotations

import ctypes

import numpy as np

# random configurations the candidates come from (UR5: ~0.4 s of C, 0.2 s to choose; 1,000
# gain UR5's NAME_check two thirds as much, 4,000 hardly more)
SAMPLES = 2000
# witnesses a pair at most: 8 cost UR5's NAME_check8 on collision-free configurations 2 % more
# instructions (tried in vain near contact); 12 and 16 cost 3 and 3.5 % for a few percent
# more of the gain (docs/performance.md)
PER_PAIR = 8
# a witness must cross in this many sampled configurations the ones before it miss (10: UR5's
# NAME_check loses two thirds of the gain: the witnesses that cover few still end many searches)
MIN_COVER = 2
# crossings recorded at most (past it, the later configurations' are not looked at)
MAX_CROSSINGS = 1 << 20


def choose(records: np.ndarray, per_pair: int = PER_PAIR) -> dict[int, list[tuple[int, int]]]:
    """Per solid pair, its witnesses (its first solid's triangle, its second's), from records
    (N, 4): each crossing's configuration, solid pair and two triangles (each at most once).
    Greedy: each time the triangle pair crossing in the most configurations not yet covered
    (at least MIN_COVER; the first such in the order of its triangles), until per_pair or
    none is left."""
    out: dict[int, list[tuple[int, int]]] = {}
    for p in np.unique(records[:, 1]).tolist():
        rows = records[records[:, 1] == p]
        keys, ids = np.unique(rows[:, 2:], axis=0, return_inverse=True)
        ids = ids.ravel()
        left = np.ones(len(rows), bool)
        chosen: list[tuple[int, int]] = []
        while len(chosen) < per_pair and left.any():
            counts = np.bincount(ids[left], minlength=len(keys))
            best = int(counts.argmax())
            if counts[best] < MIN_COVER:
                break
            chosen.append((int(keys[best, 0]), int(keys[best, 1])))
            left &= ~np.isin(rows[:, 0], rows[ids == best, 0])
        if chosen:
            out[p] = chosen
    return out


def found_by(checker, prover) -> dict:
    """The templates' witness variables, chosen among the crossings prover (cells._Prover,
    with triangles) finds at SAMPLES random configurations."""
    from robrayc.kinematics import sample_configs

    q = sample_configs(checker.scene, SAMPLES, seed=1)
    return witness_texts(checker, choose(prover.crossings(q)))


def crossings(lib, name: str, q: np.ndarray) -> np.ndarray:
    """(N, 4) int32: the crossings library `lib` (a certifying build with triangles bound,
    named `name`) finds at configurations q (see choose)."""
    q = np.ascontiguousarray(q, dtype=np.float64)
    out = np.empty((MAX_CROSSINGS, 4), dtype=np.int32)
    fn = getattr(lib, f"{name}_crossings")
    fn.restype = ctypes.c_long
    n = fn(q.ctypes.data_as(ctypes.c_void_p), ctypes.c_long(len(q)),
           out.ctypes.data_as(ctypes.c_void_p), ctypes.c_long(MAX_CROSSINGS))
    return out[:n]


def witness_texts(checker, chosen: dict[int, list[tuple[int, int]]]) -> dict:
    """The templates' witness variables: each solid's witnesses, both ways round (XWITS,
    XWIT: see templates/c_checker.c.j2)."""
    per_solid: list[list[str]] = [[] for _ in range(len(checker.solids))]
    for p, pairs in chosen.items():
        a, b = int(checker._pi[p]), int(checker._pj[p])
        for i, j in pairs:
            per_solid[a].append(f"{b}, {i}, {j}")
            per_solid[b].append(f"{a}, {j}, {i}")
    spans, rows = [], []
    for own in per_solid:
        spans.append(f"{{ {len(rows)}, {len(own)} }}")
        rows += own
    if not rows:
        return empty_witnesses()
    return {"xwits": ", ".join(spans), "xwit": rows, "n_xwit_decl": len(rows)}


def empty_witnesses() -> dict:
    """The templates' witness variables when there are none."""
    return {"xwits": "{ 0 }", "xwit": [], "n_xwit_decl": 1}

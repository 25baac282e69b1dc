"""The lanes' proof by convex hulls (robrayc/c/hulls.c): a pair with a mesh that the sphere trees
leave near in a lane is shown apart by a plane between the two solids' hulls, over each mesh's
hull points (robrayc.analysis.collision.triangles.hull_points), so that check1 need not run
for that lane; never where check1 or the exact checker would not answer FREE."""

from __future__ import annotations

import subprocess
from pathlib import Path

import numpy as np
import pytest

from robrayc.analysis.collision import CollisionChecker
from robrayc.analysis.collision.triangles import HULL_CLUSTER, hull_clusters, hull_points
from robrayc.frontend import load_scene
from robrayc.resources import resource_dir
from tests.backends.test_c_checker import needs_cc
from tests.test_c_lanes import (
    PROVEN,
    SIMD,
    _library,
    _ones,
    motions_as_plain,
    near_contact,
    run_harness,
)
from tests.test_collision_motions import STRICT, among_boxes, configurations

FREE = 0


def _bumpy_sphere(rng: np.random.Generator, subdivisions: int = 2, least: float = 0.7
                  ) -> np.ndarray:
    """(T, 3, 3): a closed, non-convex mesh: a sphere's triangles, every corner pushed in or
    out at random, to least of its radius (the pushed-in ones lie inside the hull)."""
    import trimesh

    mesh = trimesh.creation.icosphere(subdivisions=subdivisions)
    radius = rng.uniform(least, 1.0, len(mesh.vertices))[:, None]
    return (mesh.vertices * radius)[mesh.faces]


def test_hull_points_hold_every_corner() -> None:
    """Every corner of a non-convex mesh lies in the convex hull of its hull points (checked
    on scipy's hull of the points kept, to rounding), and the corners inside are left out."""
    from scipy.spatial import ConvexHull

    tri = _bumpy_sphere(np.random.default_rng(3))
    corners = np.unique(tri.reshape(-1, 3), axis=0)
    kept = hull_points(tri)
    planes = ConvexHull(kept).equations
    assert (corners @ planes[:, :3].T + planes[:, 3]).max() <= 1e-12
    assert set(map(tuple, ConvexHull(corners).points[ConvexHull(corners).vertices])) \
        <= set(map(tuple, kept))
    assert 10 < len(kept) < 0.8 * len(corners)


def test_hull_points_without_scipy_are_every_corner(monkeypatch: pytest.MonkeyPatch) -> None:
    """Without scipy (an extra), every distinct corner: the same hull, only more points."""
    import builtins

    real_import = builtins.__import__

    def no_scipy(name, *args, **kwargs):
        if name.startswith("scipy"):
            raise ImportError(name)
        return real_import(name, *args, **kwargs)

    tri = _bumpy_sphere(np.random.default_rng(4))
    monkeypatch.setattr(builtins, "__import__", no_scipy)
    assert len(hull_points(tri)) == len(np.unique(tri.reshape(-1, 3), axis=0))


def test_hull_clusters_hold_their_points() -> None:
    """hulls.c's layout: the same points, in runs of HULL_CLUSTER (the last may be shorter),
    each run inside its cluster's sphere with room to spare, and hulls.c's cluster size the
    same."""
    points = hull_points(_bumpy_sphere(np.random.default_rng(6), 4, 0.98))
    layout = hull_clusters(points)
    n, k = len(points), -(-len(points) // HULL_CLUSTER)
    assert len(layout) == 3 * n + 4 * k and k > 4
    ordered = layout[:3 * n].reshape(3, n).T
    assert sorted(map(tuple, ordered)) == sorted(map(tuple, points))
    spheres = layout[3 * n:].reshape(4, k).T
    for j in range(k):
        run = ordered[j * HULL_CLUSTER:(j + 1) * HULL_CLUSTER]
        gap = spheres[j, 3] - np.linalg.norm(run - spheres[j, :3], axis=1)
        assert gap.min() > 1e-10
    # the clusters lie close together: far smaller than the mesh
    assert np.median(spheres[:, 3]) < 0.5 * np.ptp(points, axis=0).max()
    hulls_c = (resource_dir("c") / "hulls.c").read_text()
    assert f"#define HULL_CLUSTER {HULL_CLUSTER}\n" in hulls_c


SUPPORTS = r"""
#include <stdio.h>
#include "rb.c"
int main(void)
{
    double w[3];
    int s;
    while (scanf("%lf %lf %lf", &w[0], &w[1], &w[2]) == 3)
        for (s = 0; s < NS; s++)
            if (TROOT[s] >= 0 && THULLS[s][1] > 0) {
                const double *p = THULL + THULLS[s][0];
                const int n = THULLS[s][1];
                double every = -HUGE_VAL;
                int at, every_at = 0;
                double best = hull_max(p, n, w, &at);
                hull_run(p, n, 0, n, w, &every, &every_at);
                printf("%d %.17g %.17g %.17g\n", n, best, every,
                       w[0] * p[at] + w[1] * p[n + at] + w[2] * p[2 * n + at]);
            }
    return 0;
}
"""


def _cpu_has(flag: str) -> bool:
    """Whether this machine's CPU reports `flag` (Linux's /proc/cpuinfo)."""
    try:
        text = Path("/proc/cpuinfo").read_text()
    except OSError:
        return False
    return any(flag in line.split() for line in text.splitlines() if line.startswith("flags"))


# hull_run's AVX-512 path, where the CPU can run it
SUPPORT_PATHS = {**SIMD, "avx512": ["-march=native", "-mavx512f"]}


@needs_cc
@pytest.mark.parametrize("simd", sorted(SUPPORT_PATHS))
def test_supports_over_clusters_are_the_largest_over_every_point(tmp_path: Path,
                                                                 simd: str) -> None:
    """A mesh of a thousand hull points (a bumpy sphere of 2,562 corners): hull_max, which
    skips clusters by their spheres, finds for every direction the value a test of every
    point finds (bit for bit, on AVX-512, AVX2 and the portable path), a point reaching it,
    and numpy's largest dot product over every corner of the mesh as read back (to rounding).
    Directions: random ones of any length, and the axes (ties among points)."""
    import trimesh

    if simd == "avx512" and not _cpu_has("avx512f"):
        pytest.skip("this CPU has no AVX-512")

    rng = np.random.default_rng(7)
    tri = _bumpy_sphere(rng, 4, 0.98)
    mesh = trimesh.Trimesh(tri.reshape(-1, 3), np.arange(3 * len(tri)).reshape(-1, 3))
    mesh.export(tmp_path / "bumpy.obj")
    (tmp_path / "scene.robray").write_text(
        'frame a { geometry { mesh "bumpy.obj"; } }\n'
        'frame slide { type prismatic; axis [1, 0, 0]; translation [3, 0, 0];\n'
        '    geometry { shape box; dimension [0.1, 0.1, 0.1]; } }\n')
    checker = CollisionChecker(load_scene([str(tmp_path / "scene.robray")]))
    from robrayc.analysis.collision.compiled import c_source

    (tmp_path / "rb.c").write_text(c_source(checker, "rb")[0])
    (tmp_path / "supports.c").write_text(SUPPORTS)
    run = subprocess.run(["gcc", *STRICT, "-Wno-unused-function", "-O2", *SUPPORT_PATHS[simd],
                          "-o", str(tmp_path / "supports"), str(tmp_path / "supports.c"), "-lm"],
                         capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    w = rng.normal(size=(300, 3)) * 10.0 ** rng.uniform(-3, 3, (300, 1))
    w = np.concatenate([w, np.eye(3), -np.eye(3)])
    out = subprocess.run([str(tmp_path / "supports")], capture_output=True, text=True,
                         check=True,
                         input="\n".join(" ".join(map(repr, r)) for r in w.tolist())).stdout
    rows = np.array([[float(x) for x in line.split()] for line in out.splitlines()])
    assert len(rows) == len(w) and (rows[:, 0] > 4 * HULL_CLUSTER).all()
    read = trimesh.load(tmp_path / "bumpy.obj", force="mesh")  # as written: 8 digits or so
    points = np.unique(read.vertices, axis=0)
    reference = (points @ w.T).max(axis=0)
    scale = np.abs(points).max() * np.linalg.norm(w, axis=1)
    assert (rows[:, 1] == rows[:, 2]).all()
    assert (np.abs(rows[:, 3] - rows[:, 1]) <= 1e-15 * scale).all()  # (a fused sum or not)
    assert np.abs(rows[:, 1] - reference).max() <= 1e-12 * scale.max()
    assert (np.abs(rows[:, 1] - reference) <= 1e-14 * scale).all()


def _proven(tmp_path: Path, q: np.ndarray, hulls: int) -> np.ndarray:
    """Which configurations (blocks of 8) the lanes prove FREE without check1, the hulls'
    proof on (1) or off (0: CHECKER_HULLS), the generated checker rb_avx2.c (_library)."""
    (tmp_path / "rb.c").write_text((tmp_path / "rb_avx2.c").read_text())
    (tmp_path / "proven.c").write_text(PROVEN)
    exe = tmp_path / f"proven{hulls}"
    run = subprocess.run(["gcc", "-std=c99", "-O2", *SIMD["avx2"], f"-DCHECKER_HULLS={hulls}",
                          "-o", str(exe), str(tmp_path / "proven.c"), "-lm"],
                         capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    text = "\n".join(" ".join(map(repr, row)) for row in q[:len(q) // 8 * 8].tolist())
    out = subprocess.run([str(exe)], input=text, capture_output=True, text=True,
                         check=True).stdout
    return np.array([c == "0" for c in out], dtype=bool)


@needs_cc
@pytest.mark.slow
def test_lanes_prove_near_mesh_pairs_apart_by_their_hulls(tmp_path: Path) -> None:
    """UR5 among boxes, random configurations and ones a hair from contact: the hulls' proof
    makes lanes FREE that the sphere trees left to check1 (its forearm against its wrist, its
    links against boxes, a few millimetres to centimetres apart), only lanes check1 answers
    FREE and the exact checker finds free, and opens none the trees proved."""
    scene = among_boxes("ur5", seed=11, boxes=10)
    exact = CollisionChecker(scene)
    lib = _library(exact, tmp_path, "avx2")
    q = configurations(scene, 400, seed=3)
    everything = np.ascontiguousarray(np.concatenate(
        [q, near_contact(lib, q, np.random.default_rng(5))]))
    with_hulls, without = (_proven(tmp_path, everything, h) for h in (1, 0))
    ones = _ones(lib, everything[:len(with_hulls)])
    assert not (without & ~with_hulls).any()
    fresh = with_hulls & ~without
    assert fresh.sum() >= 20, (fresh.sum(), without.sum())
    assert (ones[with_hulls] == FREE).all()
    assert not exact.in_collision(everything[:len(fresh)][fresh]).any()


@needs_cc
@pytest.mark.slow
def test_motions_guesses_change_no_answer(tmp_path: Path) -> None:
    """UR5 among boxes: motions between random configurations (most collide) and short ones
    ending a hair from contact (four blocks, the hulls tried at each): a motion
    answers one of the first block of eight's answers that are not FREE, as NAME_check
    answers its samples, and is FREE exactly where the build that keeps no guesses for the
    hulls' proofs (CHECKER_HULL_GUESSES 0: hulls.c's struct hull_guess) finds it so."""
    scene = among_boxes("ur5", seed=11, boxes=10)
    exact = CollisionChecker(scene)
    plain_dir, guess_dir = tmp_path / "plain", tmp_path / "guesses"
    plain_dir.mkdir()
    guess_dir.mkdir()
    plain = _library(exact, plain_dir, "avx2", ["-DCHECKER_HULL_GUESSES=0"])
    lib = _library(exact, guess_dir, "avx2")
    q = configurations(scene, 400, seed=7)
    near = near_contact(lib, q, np.random.default_rng(8))
    rng = np.random.default_rng(9)
    steps = rng.normal(size=(80, q.shape[1]))
    steps *= 0.8 / np.linalg.norm(steps, axis=1, keepdims=True)  # 4 blocks at resolution 32
    starts = np.concatenate([q[:40], near[:80] + steps])
    ends = np.concatenate([q[40:80], near[:80]])
    answers = motions_as_plain(lib, plain, starts, ends)
    assert 10 <= sum(x == FREE for x in answers) < len(answers), answers


def test_tree_nodes_hulls_hold_their_triangles() -> None:
    """triangle_trees' node hulls: a root's span is its mesh's; every node HULL_DEPTH below a
    root has points of its own whose convex hull holds every corner of the triangles under it
    (to rounding), those points being corners of those triangles; no other node has any."""
    from scipy.spatial import ConvexHull

    from robrayc.analysis.collision.triangles import HULL_DEPTH, triangle_trees

    scene = among_boxes("ur5", seed=11, boxes=2)
    t = triangle_trees(CollisionChecker(scene))
    tri = t.triangles.reshape(-1, 3, 3)
    spans = t.node_hulls
    meshes = np.flatnonzero(t.roots >= 0)
    assert len(meshes) >= 5
    with_hulls = set(np.flatnonzero(spans[:, 1] > 0).tolist())
    expected = set()
    for s in meshes.tolist():
        root = int(t.roots[s])
        assert spans[root].tolist() == t.hull_spans[s].tolist()
        level = [root]
        for _ in range(HULL_DEPTH):
            level = [int(t.kids[n, 0]) + c for n in level if t.kids[n, 1] > 0 for c in (0, 1)]
        expected |= {root, *level}
        for n in level:
            first, count = (int(x) for x in spans[n])
            points = t.hull[first:first + 3 * count].reshape(3, count).T
            under = _triangles_under(t.kids, n)
            corners = tri[under].reshape(-1, 3)
            assert {tuple(p) for p in points} <= {tuple(c) for c in corners}
            if count >= 4 and np.linalg.matrix_rank(points - points[0]) == 3:
                planes = ConvexHull(points).equations
                size = np.abs(corners).max()
                assert (corners @ planes[:, :3].T + planes[:, 3]).max() <= 1e-12 * size
    assert with_hulls == expected


def _triangles_under(kids: np.ndarray, n: int) -> list[int]:
    if kids[n, 1] < 0:
        return list(range(int(kids[n, 0]), int(kids[n, 0] - kids[n, 1])))
    return [t for c in (0, 1) for t in _triangles_under(kids, int(kids[n, 0]) + c)]


NODE_PROOFS = r"""
#include <stdio.h>
#include "rb.c"
int main(void)
{
    double q[NQ_DECL], g[NG][12], t[12];
    int p, i, j, k;
    for (;;) {  /* a configuration a line: its answer, then every node pair of two meshes
                 * (each a root or HULL_DEPTH below one) whose spheres meet and that
                 * nodes_hulls_apart proves apart */
        for (k = 0; k < NQ; k++) if (scanf("%lf", &q[k]) != 1) return 0;
        printf("check %d\n", checker_check(q));
        fk(q, g);
        for (p = 0; p < NP; p++) {
            const int a = PAIR[p][0], b = PAIR[p][1];
            if (TROOT[a] < 0 || TROOT[b] < 0) continue;
            relative_d(g[SOLID[a].group], g[SOLID[b].group], t);
            for (i = 0; i < N_HULL_NODES; i++)
                for (j = 0; j < N_HULL_NODES; j++) {
                    double c[3], d[3];
                    if (HULL_OWNER[i] != a || HULL_OWNER[j] != b) continue;
                    apply_d(t, TNODE[HULL_NODE[j]], c);
                    sub3(c, TNODE[HULL_NODE[i]], d);
                    if (sqrt(dot3(d, d)) > TNODE[HULL_NODE[i]][3] + TNODE[HULL_NODE[j]][3]
                        || !nodes_hulls_apart(HULL_NODE[i], HULL_NODE[j], t)) continue;
                    printf("apart %d %d", HULL_NODE[i], HULL_NODE[j]);
                    for (k = 0; k < 12; k++) printf(" %.17g", t[k]);
                    printf("\n");
                }
        }
    }
}
"""


@needs_cc
@pytest.mark.slow
def test_triangle_search_proves_node_pairs_apart_by_their_hulls(tmp_path: Path) -> None:
    """UR5 among boxes, random configurations and ones a hair from contact: every two tree
    nodes (roots, or HULL_DEPTH below them) that hulls.c's nodes_hulls_apart proves apart lie
    apart by FCL's distance between their triangles, such proofs are found near contact
    (hundreds), and NAME_check answers as it does with no hull proofs (CHECKER_HULLS 0)."""
    import fcl

    from robrayc.analysis.collision.triangles import triangle_trees

    scene = among_boxes("ur5", seed=11, boxes=10)
    exact = CollisionChecker(scene)
    plain = _library(exact, tmp_path, "avx2", ["-DCHECKER_HULLS=0", "-Wno-unused-const-variable"])
    q = configurations(scene, 200, seed=4)
    q = np.ascontiguousarray(np.concatenate([q, near_contact(plain, q,
                                                             np.random.default_rng(6))]))
    trees = triangle_trees(exact)
    nodes = np.flatnonzero(trees.node_hulls[:, 1] > 0)
    source = (tmp_path / "rb_avx2.c").read_text() + (
        f"\n#define N_HULL_NODES {len(nodes)}\n"
        f"static const int HULL_NODE[] = {{ {', '.join(map(str, nodes.tolist()))} }};\n"
        "static const int HULL_OWNER[] = { "
        f"{', '.join(str(int(trees.node_solid[n])) for n in nodes)} }};\n")
    out = run_harness(tmp_path, source, NODE_PROOFS, q)
    lines = [line.split() for line in out.splitlines()]
    answers = np.array([int(w[1]) for w in lines if w[0] == "check"])
    assert (answers == _ones(plain, q)).all()
    proofs = [w[1:] for w in lines if w[0] == "apart"]
    assert len(proofs) >= 200, len(proofs)
    tri = trees.triangles.reshape(-1, 3, 3)
    models = {}

    def model(n: int):
        if n not in models:
            under = tri[_triangles_under(trees.kids, n)].reshape(-1, 3)
            m = fcl.BVHModel()
            m.beginModel(len(under), len(under) // 3)
            m.addSubModel(under, np.arange(len(under)).reshape(-1, 3))
            m.endModel()
            models[n] = m
        return models[n]

    rng = np.random.default_rng(8)
    for k in rng.choice(len(proofs), size=min(300, len(proofs)), replace=False).tolist():
        na, nb, *t = proofs[k]
        m = np.array([float(x) for x in t])
        a = fcl.CollisionObject(model(int(na)), fcl.Transform())
        b = fcl.CollisionObject(model(int(nb)), fcl.Transform(m[:9].reshape(3, 3), m[9:]))
        assert fcl.distance(a, b, fcl.DistanceRequest(), fcl.DistanceResult()) > 0.0

"""Crossing witnesses (robrayc.analysis.collision.witnesses, robrayc/c/meshes.c): pairs of two
meshes' triangles that crossed at many random configurations when the checker was built,
tried before the search of the pair's triangles. A witness that crosses is a hit the search
would find too, so the answers are those of a build without them; judged here by FCL. A
motion's pass answers first the lanes where a witness crosses, or where a mesh's hull point lies
inside a box (passes.c's pass_hits): judged by FCL too."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from robrayc.analysis.collision import CollisionChecker
from robrayc.analysis.collision.compiled import c_source
from robrayc.analysis.collision.motions import COLLIDES, FREE
from robrayc.analysis.collision.witnesses import choose
from tests.backends.test_c_checker import needs_cc
from tests.test_c_lanes import _library, _ones, motions_as_plain, near_contact, run_harness
from tests.test_collision_motions import among_boxes, configurations


def test_choose_covers_the_most_configurations_first() -> None:
    """Greedy: the triangle pair crossing in the most configurations, then the one crossing
    in the most of those left; none crossing in fewer than two; a pair with no such one has
    none."""
    crossing = {(1, 1): [0, 1, 2], (2, 2): [2, 3], (3, 3): [3, 4], (4, 4): [4]}
    records = [(k, 0, i, j) for (i, j), ks in crossing.items() for k in ks]
    records += [(7, 1, 5, 5)]
    got = choose(np.array(records, dtype=np.int32))
    assert got == {0: [(1, 1), (3, 3)]}
    assert choose(np.array(records, dtype=np.int32), per_pair=1) == {0: [(1, 1)]}


# each mesh pair's witness that crosses at each configuration read (pair, its two solids),
# and NAME_check's answer
WITNESS_HITS = r"""
#include <stdio.h>
#include "rb.c"
int main(void)
{
    double q[NQ_DECL];
    int i;
    for (;;) {
        double g[NG][12];
        int p;
        for (i = 0; i < NQ; i++)
            if (scanf("%lf", &q[i]) != 1) return 0;
        printf("check %d\n", checker_check(q));
        fk(q, g);
        for (p = 0; p < NP; p++) {
            const int a = PAIR[p][0], b = PAIR[p][1];
            double m[12];
            if (TROOT[a] < 0 || TROOT[b] < 0) continue;
            relative_d(g[SOLID[a].group], g[SOLID[b].group], m);
            if (witness_crosses(m, a, b)) printf("hit %d %d\n", a, b);
        }
    }
}
"""


@needs_cc
def test_witnesses_cross_where_fcl_finds_the_meshes_colliding(tmp_path: Path) -> None:
    """UR5 among boxes, random configurations and ones a hair from contact: its checker has
    witnesses; where one crosses, FCL finds the two meshes colliding (~90 such hits);
    and NAME_check answers as it does with none tried (CHECKER_WITNESSES 0)."""
    scene = among_boxes("ur5", seed=11, boxes=10)
    exact = CollisionChecker(scene)
    plain = _library(exact, tmp_path, "avx2", ["-DCHECKER_WITNESSES=0",
                                               "-Wno-unused-const-variable"])
    q = configurations(scene, 300, seed=5)
    q = np.ascontiguousarray(np.concatenate([q, near_contact(plain, q,
                                                             np.random.default_rng(7))]))
    source = (tmp_path / "rb_avx2.c").read_text()
    assert "const int XWIT[" in source and "{ 0, 0, 0 }" not in source.split("XWIT[")[1][:80]
    out = run_harness(tmp_path, source, WITNESS_HITS, q)
    answers, hits = _answers_and_hits(out)
    assert (np.array(answers) == _ones(plain, q)).all()
    assert len(hits) >= 50, len(hits)
    _assert_fcl_collides(exact, q, hits)


def _answers_and_hits(out: str) -> tuple[list[int], list[tuple[int, int, int]]]:
    """A harness's output: each configuration's "check ANSWER" line, then its "hit A B" lines
    (as (configuration, A, B))."""
    answers: list[int] = []
    hits = []
    for words in (line.split() for line in out.splitlines()):
        if words[0] == "check":
            answers.append(int(words[1]))
        else:
            hits.append((len(answers) - 1, int(words[1]), int(words[2])))
    return answers, hits


def _assert_fcl_collides(exact: CollisionChecker, q: np.ndarray,
                         hits: list[tuple[int, int, int]]) -> None:
    """FCL finds the two solids of each hit colliding at its configuration."""
    import fcl

    poses = exact._solid_poses(q)
    for k, a, b in hits:
        objects = []
        for solid in (a, b):
            o = exact.solids.fcl_object(solid)
            o.setTransform(fcl.Transform(poses[k, solid, :3, :3], poses[k, solid, :3, 3]))
            objects.append(o)
        assert fcl.collide(*objects, fcl.CollisionRequest(), fcl.CollisionResult()) > 0, (k, a, b)


@needs_cc
def test_motions_answer_the_witnesses_hits_first(tmp_path: Path) -> None:
    """UR5 among boxes, long motions (most collide, most of those by two of its meshes): a
    motion's pass answers first the samples whose meshes' witness crosses (passes.c's
    check_first); each answer is one of the first block of eight's that are not FREE, as
    NAME_check answers its samples, and a motion is FREE exactly where the build without
    witnesses finds it so."""
    scene = among_boxes("ur5", seed=11, boxes=10)
    checker = CollisionChecker(scene)
    plain_dir, witness_dir = tmp_path / "plain", tmp_path / "witnesses"
    plain_dir.mkdir()
    witness_dir.mkdir()
    plain = _library(checker, plain_dir, "avx2", ["-DCHECKER_WITNESSES=0",
                                                  "-Wno-unused-const-variable"])
    lib = _library(checker, witness_dir, "avx2")
    q = configurations(scene, 160, seed=9)
    answers = motions_as_plain(lib, plain, q[:80], q[80:])
    assert 20 <= sum(x != FREE for x in answers) < len(answers), answers


# NAME_check's answer at each configuration read, and each pair of a mesh and a box or sphere
# with a hull point of the mesh inside the other (its two solids): hulls.c's
# lane_hull_point_inside in lane 0
HULL_POINT_HITS = r"""
#include <stdio.h>
#include "rb.c"
int main(void)
{
    double q[NQ_DECL];
    int i;
    for (;;) {
        double g[NG][12], lanes[NG][12][8];
        int p, s;
        for (i = 0; i < NQ; i++)
            if (scanf("%lf", &q[i]) != 1) return 0;
        fk(q, g);
        for (s = 0; s < NG; s++)
            for (i = 0; i < 12; i++) lanes[s][i][0] = g[s][i];
        printf("check %d\n", checker_check(q));
        for (p = 0; p < NP; p++)
            if (lane_hull_point_inside(lanes[0][0], PAIR[p][0], &SOLID[PAIR[p][1]], 0)
                || lane_hull_point_inside(lanes[0][0], PAIR[p][1], &SOLID[PAIR[p][0]], 0))
                printf("hit %d %d\n", PAIR[p][0], PAIR[p][1]);
    }
}
"""


@needs_cc
def test_hull_points_inside_a_box_are_collisions_fcl_finds(tmp_path: Path) -> None:
    """UR5 among boxes: where a hull point of a mesh (a corner of its triangles) lies inside a
    box (hulls.c's lane_hull_point_inside, which a motion's pass answers first), FCL finds the
    mesh and the box colliding (~55 such hits in 2,000 random configurations), and NAME_check
    answers COLLIDES."""
    scene = among_boxes("ur5", seed=11, boxes=10)
    exact = CollisionChecker(scene)
    source, _ = c_source(exact, "rb", cells=True)
    q = np.ascontiguousarray(configurations(scene, 2000, seed=6))
    answers, hits = _answers_and_hits(run_harness(tmp_path, source, HULL_POINT_HITS, q))
    assert len(hits) >= 20, len(hits)
    assert all(answers[k] == COLLIDES for k, _, _ in hits)
    _assert_fcl_collides(exact, q, hits)

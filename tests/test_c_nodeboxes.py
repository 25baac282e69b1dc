"""The triangle trees' box test (robrayc/c/nodeboxes.c, boxes_apart_at): two oriented boxes
are apart exactly where FCL finds them apart (the separating-axis test over its 15 axes is
exact for boxes), on pairs a hair from touching too, and the AVX2 path answers as the
portable one, box for box."""

from __future__ import annotations

import subprocess
from pathlib import Path

import numpy as np
import pytest

from robrayc.resources import resource_dir
from tests.backends.test_c_checker import needs_cc
from tests.test_c_lanes import SIMD

HARNESS = r"""
#include <stdio.h>
#include "checker_example.c"
int main(void)
{
    double v[30];
    for (;;) {
        int k;
        for (k = 0; k < 30; k++)
            if (scanf("%lf", &v[k]) != 1) return 0;
        putchar('0' + boxes_apart_at(v, v + 15, v + 27));
    }
}
"""


def _rotation(rng: np.random.Generator) -> np.ndarray:
    q = rng.normal(size=4)
    w, x, y, z = q / np.linalg.norm(q)
    return np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
                     [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
                     [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)]])


def _distance(ra, ca, ha, rb, cb, hb) -> float:
    """FCL's distance of two boxes (rotation with the box axes as columns, centre, half
    extents); 0 where they meet."""
    import fcl

    a = fcl.CollisionObject(fcl.Box(*(2 * ha)), fcl.Transform(ra, ca))
    b = fcl.CollisionObject(fcl.Box(*(2 * hb)), fcl.Transform(rb, cb))
    return max(fcl.distance(a, b, fcl.DistanceRequest(), fcl.DistanceResult()), 0.0)


def _cases(n: int, seed: int) -> list[tuple]:
    """Box pairs at random turns and sizes, b moved along a random direction to where the
    two touch (bisected on FCL's distance), then apart or into each other by 1e-7 .. 1e-2."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(n):
        ra, rb = _rotation(rng), _rotation(rng)
        ha, hb = rng.uniform(0.005, 0.3, 3), rng.uniform(0.005, 0.3, 3)
        ca, d = rng.uniform(-1, 1, 3), rng.normal(size=3)
        d /= np.linalg.norm(d)
        lo, hi = 0.0, 2.0
        for _ in range(60):
            mid = (lo + hi) / 2
            lo, hi = (mid, hi) if _distance(ra, ca, ha, rb, ca + mid * d, hb) == 0 else (lo, mid)
        for off in (-1e-2, -1e-4, -1e-7, 1e-7, 1e-4, 1e-2):
            out.append((ra, ca, ha, rb, ca + (hi + off) * d, hb))
    return out


def _answers(tmp_path: Path, simd: str, rows: str) -> str:
    exe = tmp_path / f"boxes_{simd}"
    (tmp_path / "boxes.c").write_text(HARNESS)
    run = subprocess.run(["gcc", "-std=c99", "-O2", *SIMD[simd], f"-I{resource_dir('c')}",
                          "-o", str(exe), str(tmp_path / "boxes.c"), "-lm"],
                         capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    return subprocess.run([str(exe)], input=rows, capture_output=True, text=True,
                          check=True).stdout


@needs_cc
@pytest.mark.parametrize("seed", [1, 2])
def test_boxes_apart_where_fcl_finds_them_apart(tmp_path: Path, seed: int) -> None:
    cases = _cases(40, seed)
    rows = "\n".join(" ".join(map(repr, np.concatenate([x.ravel() for x in case]).tolist()))
                     for case in cases)
    avx2, scalar = (_answers(tmp_path, simd, rows) for simd in ("avx2", "scalar"))
    assert avx2 == scalar
    assert len(avx2) == len(cases)
    for case, answer in zip(cases, avx2, strict=True):
        gap = _distance(*case)
        # apart: FCL too (never a meeting pair called apart); else they meet, or lie apart
        # by no more than EPS_SAT's slack
        assert (gap > 0.0) if answer == "1" else (gap < 1e-9), (answer, gap)
    assert 0.3 < avx2.count("1") / len(avx2) < 0.7

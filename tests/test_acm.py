"""Allowed-collision generation (robrayc.analysis.acm) and the two collision subcommands."""

from __future__ import annotations

import json
import math
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from robrayc import srdf
from robrayc.analysis import acm, acm_sampling
from robrayc.analysis.collision import CollisionChecker
from robrayc.cli.main import main
from robrayc.frontend import load_scene
from robrayc.kinematics import SampleStream, sample_configs, sample_ranges
from tests.corpus import require_corpus
from tests.test_collision import DEMO_7DOF, brute_force, scene_from
from tests.urdf_robots import load, robot_path, ros_env  # noqa: F401 (a fixture)

# Rigid bodies of the demo: s0 | s1 (none) | s2: upper-link | e: e-link, lower-link | w0, w1
# (none) | w2: w2, hand | f0: f0, f0tip | f1: f1, f1tip | f2: f2, f2tip.
ADJACENT_7DOF = {
    ("s0", "upper-link"), ("e-link", "upper-link"), ("lower-link", "upper-link"),
    ("e-link", "w2"), ("e-link", "hand"), ("lower-link", "w2"), ("hand", "lower-link"),
    ("hand", "w2"), ("f0", "f0tip"), ("f1", "f1tip"), ("f2", "f2tip"),
    *((a, b) for k in "012" for a, b in ((f"f{k}", "w2"), (f"f{k}", "hand"),
                                         (f"f{k}tip", "w2"), (f"f{k}tip", "hand"))),
}


@pytest.fixture(scope="module")
def demo():
    require_corpus()
    return load_scene([str(DEMO_7DOF)])


def test_7dof_adjacent_and_default(demo) -> None:
    result = acm.generate(demo, samples=0)
    by_reason: dict[str | None, set] = {}
    for p in result.pairs:
        by_reason.setdefault(p.reason, set()).add((p.a, p.b))
    assert by_reason["adjacent"] == {tuple(sorted(p)) for p in ADJACENT_7DOF}
    assert by_reason["default"] == {("e-link", "lower-link")}  # one body, overlapping
    verdicts = {(p.a, p.b): p for p in result.pairs}
    assert verdicts[("s0", "upper-link")].detail == "bodies of s0 and s2 (through s1)"
    assert verdicts[("hand", "w2")].detail == "parent and child"
    n = len(CollisionChecker(demo).collision_frames)
    assert len(result.pairs) == n * (n - 1) // 2


def test_7dof_finds_what_a_brute_force_sampler_finds(demo) -> None:
    """Every pair the brute-force all-pairs FCL sampler sees colliding in the same samples is
    left checked (or 'always'); 'never' pairs never collide in it; the counts agree (frusta
    bracketed between polygon hulls)."""
    result = acm.generate(demo, samples=300, seed=7, jobs=2, batch=100)
    configs = sample_configs(demo, result.samples, 7)
    sure_n: dict[tuple, int] = {}
    maybe_n: dict[tuple, int] = {}
    # a pair seen to collide only sometimes is not sampled further: count its samples only
    upto = {(p.a, p.b): p.checked for p in result.pairs}
    for k, q in enumerate(configs):
        sure, maybe = brute_force(demo, dict(zip(demo.variables, q.tolist(), strict=True)))
        for p in sure:
            sure_n[p] = sure_n.get(p, 0) + (k < upto[p])
        for p in maybe:
            maybe_n[p] = maybe_n.get(p, 0) + (k < upto[p])
    sampled = [p for p in result.pairs if p.reason not in ("adjacent", "default")]
    assert sum(1 for p in sampled if p.reason is None) >= 20  # the arm does fold into itself
    for p in sampled:
        key = (p.a, p.b)
        assert sure_n.get(key, 0) <= p.collisions <= maybe_n.get(key, 0), p
        assert (p.reason == "never") == (p.collisions == 0), p
    found = {p for p, n in sure_n.items() if n}
    never = {(p.a, p.b) for p in result.pairs if p.reason == "never"}
    assert found and not found & never


def test_deterministic_whatever_the_workers(demo) -> None:
    one = acm.generate(demo, samples=1500, seed=3, jobs=1, batch=500)
    two = acm.generate(demo, samples=1500, seed=3, jobs=2, batch=500)
    assert one == two
    other = acm.generate(demo, samples=1500, seed=4, jobs=2, batch=500)
    assert [p.collisions for p in other.pairs] != [p.collisions for p in one.pairs]
    assert sample_configs(demo, 10, 3).tolist() == sample_configs(demo, 12, 3)[:10].tolist()


def test_waves_handed_out_ahead_count_the_same_whatever_the_workers(demo) -> None:
    """Four waves of batches, with proofs after the first: each wave past the second is
    handed out before the one before it is counted, so its live pairs are those after the
    wave before that: the same with one process and with two."""
    one = acm.generate(demo, samples=3200, seed=5, jobs=1, batch=100, prove=True)
    two = acm.generate(demo, samples=3200, seed=5, jobs=2, batch=100, prove=True)
    assert one == two
    assert one.samples == 3200 and any(p.proven for p in one.pairs)
    # a pair settled as 'sometimes' stopped being sampled before the end
    assert any(p.reason is None and p.checked < 3200 for p in one.pairs)


def test_progress_reports(demo, capsys) -> None:
    seen: list[int] = []
    result = acm.generate(demo, samples=1200, seed=0, jobs=2, batch=400, progress=seen.append)
    assert sum(n for n in seen if n > 0) == result.samples and seen[-1] == -1
    acm.generate(demo, samples=400, seed=0, jobs=1, batch=200, progress=True)  # a tqdm bar
    assert "allowed collisions" in capsys.readouterr().err


def test_always_sometimes_never_and_limits(tmp_path: Path) -> None:
    """A ball on a 1 m arm (radius 0.02) inside a sphere shifted by -0.05 in x whose radius
    leaves it free only within 0.1 rad of angle 0: 'always' (about 97 % of turns), though
    free at the default angle 0 (by 2.4e-4). A box at angle pi/2 is hit in about 5 % of turns.
    A second arm limited to [2, 2.5] rad keeps its ball away from a box at its angle 0."""
    r = math.sqrt(1 + 0.05 ** 2 + 2 * 0.05 * math.cos(0.1)) - 0.02
    scene = scene_from(tmp_path, f"""
frame arm {{ type revolute; axis [0, 0, 1];
    frame ball {{ translation [1, 0, 0]; geometry {{ shape sphere; radius 0.02; }} }} }}
frame shell {{ translation [-0.05, 0, 0]; geometry {{ shape sphere; radius {r!r}; }} }}
frame post {{ translation [0, 1, 0]; geometry {{ shape box; dimension [0.3, 0.3, 0.3]; }} }}
frame arm2 {{ type revolute; axis [0, 0, 1]; translation [0, 0, 5]; limit_position [2, 2.5];
    frame ball2 {{ translation [1, 0, 0]; geometry {{ shape sphere; radius 0.02; }} }} }}
frame post2 {{ translation [1, 0, 5]; geometry {{ shape box; dimension [0.3, 0.3, 0.3]; }} }}
""")
    lo, hi = sample_ranges(scene)
    assert lo.tolist() == [-math.pi, 2.0] and hi.tolist() == [math.pi, 2.5]
    assert acm.default_configuration(scene).tolist() == [0.0, 2.25]
    assert (sample_configs(scene, 500, 0)[:, 1] >= 2).all()
    result = acm.generate(scene, samples=3000, seed=1, jobs=1, batch=500)
    verdicts = {(p.a, p.b): p for p in result.pairs}
    always = verdicts[("ball", "shell")]
    assert always.reason == "always" and 0.95 <= always.collisions / result.samples < 0.99
    assert verdicts[("post", "shell")].reason == "default"  # fixed, overlapping for good
    sometimes = verdicts[("ball", "post")]
    assert sometimes.reason is None and 0.02 < sometimes.collisions / result.samples < 0.09
    assert verdicts[("ball", "ball2")].reason == "never"
    assert verdicts[("ball2", "post2")].reason == "never"
    n = result.samples
    assert verdicts[("ball2", "post2")].detail == (f"colliding in none of {n} samples "
                                                   f"(probability < {3 / n:.2g} at 95% confidence)")
    assert verdicts[("ball2", "post2")].bound == 3 / n
    assert not any(p.reason == "adjacent" for p in result.pairs)  # the world links nothing


def test_scene_allowed_pairs_are_reclassified_and_marked(tmp_path: Path) -> None:
    scene = scene_from(tmp_path, """
frame a { geometry { shape box; dimension [1, 1, 1]; } }
frame b { translation [0.5, 0, 0]; geometry { shape sphere; radius 0.3; } }
frame c { translation [5, 0, 0]; geometry { shape sphere; radius 0.3; } }
allow_collision a c;
""")
    result = acm.generate(scene, samples=100, seed=0, jobs=1)
    verdicts = {(p.a, p.b): p for p in result.pairs}
    assert verdicts[("a", "b")].reason == "default" and not verdicts[("a", "b")].in_scene
    assert verdicts[("a", "c")].reason == "never" and verdicts[("a", "c")].in_scene
    assert result.samples == 0  # nothing moves: nothing to sample
    assert ('allow_collision "a" "c";  // never: fixed to each other, apart; already allowed'
            ' in the scene') in acm.to_robray(result)


# --- output ---------------------------------------------------------------------------------


def test_robray_output_compiles_back_and_allows(demo, tmp_path: Path) -> None:
    result = acm.generate(demo, samples=800, seed=0, jobs=1, batch=400)
    text = acm.to_robray(result, ["7dof.robray"])
    for p in result.allowed:
        assert f'allow_collision "{p.a}" "{p.b}";  // {p.reason}: ' in text
    (tmp_path / "acm.robray").write_text(text)
    (tmp_path / "all.robray").write_text(f'include "{DEMO_7DOF}"\ninclude "acm.robray"\n')
    merged = load_scene([str(tmp_path / "all.robray")])
    assert {(p.a, p.b) for p in merged.allowed} == {(p.a, p.b) for p in result.allowed}
    checker = CollisionChecker(merged)
    left = {(p.a, p.b) for p in result.checked}
    for pairs in checker.colliding_pairs_batch(sample_configs(demo, 200, 11)):
        assert set(pairs) <= left


def test_srdf_and_json_output(demo) -> None:
    result, disabled = srdf.classify(demo, samples=400, seed=0, jobs=1)
    root = ET.fromstring(srdf.write("sevendof", disabled).encode())
    assert root.tag == "robot" and root.get("name") == "sevendof"
    entries = [(e.get("link1"), e.get("link2"), e.get("reason")) for e in root]
    assert len(entries) == len(disabled) > 20  # a robray scene: one link per frame
    assert {r for _, _, r in entries} <= {"Adjacent", "Default", "Always", "Never"}
    assert ("s0", "upper-link", "Adjacent") in entries
    doc = json.loads(acm.to_json(result))
    assert doc["samples"] == result.samples and len(doc["pairs"]) == len(result.pairs)


# --- the subcommands ------------------------------------------------------------------------


def test_collide_cli(demo, tmp_path: Path, capsys) -> None:
    assert main(["collide", str(DEMO_7DOF)]) == 1
    out = capsys.readouterr()
    assert "s0 upper-link\n" in out.out and "8 colliding pairs" in out.err
    cfg = tmp_path / "bent.cfg"
    cfg.write_text("# the elbow folded\ne = 2.6\n")
    assert main(["collide", str(DEMO_7DOF), "--config", str(cfg), "--json", "--distance"]) == 1
    doc = json.loads(capsys.readouterr().out)
    assert doc["configuration"]["e"] == 2.6
    assert ["lower-link", "upper-link"] in doc["collisions"]
    assert doc["distances"][0][2] <= doc["distances"][-1][2]
    free = tmp_path / "free.robray"
    free.write_text("frame a { geometry { shape sphere; radius 1; } }\n"
                    "frame b { type prismatic; axis [1, 0, 0];"
                    " geometry { shape sphere; radius 1; } }\n"
                    "allow_collision a b;\n")
    assert main(["collide", str(free)]) == 0
    assert main(["collide", str(free), "--ignore-allowed"]) == 1
    assert main(["collide", str(free), "--ignore-allowed", "--var", "b", "--val", "2.5"]) == 0
    capsys.readouterr()


def test_collide_cli_errors(tmp_path: Path, capsys) -> None:
    require_corpus()
    bad = tmp_path / "bad.cfg"
    bad.write_text("e = 1\nw1 = x\nnonsense\nelbow = 2\n")
    assert main(["collide", str(DEMO_7DOF), "--config", str(bad)]) == 2
    err = capsys.readouterr().err
    assert f"{bad}:2:6: error: 'x' is not a number" in err
    assert f"{bad}:3:1: error: expected NAME=VALUE" in err
    assert f"{bad}:4:1: error: unknown configuration variable 'elbow'" in err
    assert main(["collide", str(DEMO_7DOF), "--var", "e"]) == 2
    assert "each --var needs a --val" in capsys.readouterr().err
    assert main(["collide", str(DEMO_7DOF), "--var", "nope", "--val", "1"]) == 2
    assert "unknown configuration variable 'nope' (--var)" in capsys.readouterr().err
    broken = tmp_path / "broken.robray"
    broken.write_text("frame a { parent nowhere; }\n")
    assert main(["collide", str(broken)]) == 2
    assert "broken.robray:1:" in capsys.readouterr().err
    assert main(["collide"]) == 2
    assert "robrayc collide: error: no input scene" in capsys.readouterr().err


def test_allowed_collisions_cli(tmp_path: Path, capsys) -> None:
    require_corpus()
    out = tmp_path / "acm.srdf"
    assert main(["allowed-collisions", str(DEMO_7DOF), "--samples", "500", "--seed", "1",
                 "-o", str(out)]) == 0
    root = ET.parse(out).getroot()
    assert root.get("name") == "7dof" and len(root) > 20
    assert main(["allowed-collisions", str(DEMO_7DOF), "--samples", "500", "--seed", "1",
                 "--format", "robray", "-j", "1"]) == 0
    text = capsys.readouterr().out
    assert 'allow_collision "s0" "upper-link";  // adjacent: ' in text
    assert main(["allowed-collisions", str(DEMO_7DOF), "--samples", "-3"]) == 2
    assert main(["allowed-collisions", str(DEMO_7DOF), "-o", str(tmp_path / "no" / "x")]) == 1
    assert "does not exist" in capsys.readouterr().err


ARM_AND_SLIDE = """frame a { type revolute; axis [0, 0, 1]; variable qa; limit_position [-1, 1];
  geometry { shape box; dimension [.2, .2, .2]; } }
frame b { parent a; translation [.5, 0, 0]; type prismatic; axis [1, 0, 0]; variable qb;
  geometry { shape box; dimension [.2, .2, .2]; } }
frame d { parent b; translation [.3, 0, 0]; type revolute; axis [0, 1, 0]; variable qd;
  geometry { shape sphere; radius .1; } }
frame c { translation [0, 2, 0]; geometry { shape sphere; radius .3; } }
"""


def test_the_header_says_what_was_sampled(tmp_path: Path, capsys) -> None:
    """--samples 1000 draws 2000 here (the 'always' pairs settle after a second batch): the
    header gives both counts, the one the 'never' pairs cite, and each joint's range."""
    src = tmp_path / "arm.robray"
    src.write_text(ARM_AND_SLIDE)
    assert main(["allowed-collisions", str(src), "--samples", "1000", "-j", "1"]) == 0
    text = capsys.readouterr().out
    cited = {int(n) for n in re.findall(r"never: colliding in none of (\d+) samples", text)}
    assert cited == {2000}
    assert "// 2000 random configurations drawn (seed 0), 1000 asked for: " in text
    assert "[-1, 1] for a prismatic one" in text and "(no limits: [-pi, pi])" not in text


def test_collide_distance_of_convex_meshes_is_their_depth(tmp_path: Path, capsys) -> None:
    """Overlapping boxes report their depth; so does an overlapping pair of closed convex meshes,
    saying how it was found (FCL has no penetration depth for triangle soups). Two tetrahedra
    (0,0,0) (1,0,0) (0,2,0) (0,0,3), one moved by (0.2, 0.2, 0.2): the least overlap over the
    faces' normals and the edge pairs' cross products, worked out by a separating-axis sweep
    outside robrayc, is 0.5428571428571428 (along the slanted face's normal)."""
    import shutil

    shutil.copy(Path(__file__).parent / "conformance" / "tet.obj", tmp_path / "tet.obj")
    scene = tmp_path / "meshes.robray"
    scene.write_text('frame a { geometry { shape mesh; mesh "tet.obj"; } }\n'
                     'frame b { translation [0.2, 0.2, 0.2];'
                     ' geometry { shape mesh; mesh "tet.obj"; } }\n'
                     'frame c { translation [5, 0, 0];'
                     ' geometry { shape box; dimension [1, 1, 1]; } }\n'
                     'frame d { translation [5.5, 0, 0];'
                     ' geometry { shape box; dimension [1, 1, 1]; } }\n')
    assert main(["collide", str(scene), "--distance"]) == 1
    out = capsys.readouterr()
    depth = next(line for line in out.out.splitlines() if line.startswith("distance a b "))
    assert abs(float(depth.split()[3]) + 0.5428571428571428) < 1e-12
    assert depth.endswith("(convex: exact)")
    assert "distance c d -0.5\n" in out.out
    assert "reports distance 0" not in out.err


def test_proof_rates_bound_how_fast_distances_change(demo) -> None:
    """acm_proof's claim: moving the path variables by dq changes a pair's distance by at most
    sum(rate * |dq|). Checked on the 7dof demo (cylinders, spheres, a frustum) with the exact
    checker's distances at random configurations and random small moves."""
    import numpy as np

    from robrayc.analysis import acm_proof

    full = CollisionChecker(demo, use_allowed=False)
    lo, hi = sample_ranges(demo)
    rng = np.random.default_rng(5)
    tried = 0
    for a, b in full.frame_pairs:
        rates = acm_proof.pair_rates(full, a, b, lo, hi)
        if not rates:
            continue
        cols = np.array(sorted(rates))
        rate = np.array([rates[c] for c in cols.tolist()])
        for q in sample_configs(demo, 4, int(rng.integers(1 << 30))):
            step = np.zeros_like(q)
            step[cols] = rng.uniform(-0.05, 0.05, len(cols))
            (d0,), (d1,) = full.distance(q, [(a, b)]), full.distance(q + step, [(a, b)])
            if d0.distance > 0 and d1.distance > 0:
                tried += 1
                assert abs(d1.distance - d0.distance) <= rate @ np.abs(step[cols]) + 1e-9, (a, b)
    assert tried > 50


def test_proven_pairs_are_never_pairs_that_never_collide(tmp_path: Path) -> None:
    """With proofs, pairs proven apart are 'never' pairs of the sampling without proofs (every
    verdict the same), carry a bound of 0, and collide in none of 20,000 further samples: two
    arms (one prismatic) whose links pass within 2 cm of a box and 5 cm of each other, and a
    pair that collides sometimes (never tried)."""
    scene = scene_from(tmp_path, """
frame arm { type revolute; axis [0, 0, 1]; limit_position [-1, 1];
    frame link { translation [0.5, 0, 0]; geometry { shape box; dimension [1, 0.1, 0.1]; } } }
frame post { translation [0.6, 0, 0.12]; geometry { shape box; dimension [0.3, 0.3, 0.1]; } }
frame hit { translation [0.8, 0.6, 0]; geometry { shape sphere; radius 0.1; } }
frame slider { type prismatic; axis [0, 0, 1]; translation [0, 0, -0.3]; limit_position [0, 0.1];
    frame pad { geometry { shape cylinder; radius 0.2; height 0.1; } } }
""")
    plain = acm.generate(scene, samples=3000, seed=3, jobs=1, batch=100, prove=False)
    proved = acm.generate(scene, samples=3000, seed=3, jobs=1, batch=100, prove=True)
    assert [(p.a, p.b, p.reason) for p in plain.pairs] == \
        [(p.a, p.b, p.reason) for p in proved.pairs]
    assert acm.generate(scene, samples=3000, seed=3, jobs=2, batch=100, prove=True) == proved
    verdicts = {(p.a, p.b): p for p in proved.pairs}
    assert verdicts[("hit", "link")].reason is None  # sometimes
    proven = [(p.a, p.b) for p in proved.pairs if p.proven]
    assert {("link", "post"), ("link", "pad")} <= set(proven)
    assert all(p.reason == "never" and p.bound == 0.0 and "proven" in p.detail
               for p in proved.pairs if p.proven)
    checker = CollisionChecker(scene, use_allowed=False, frame_pairs=proven)
    assert not checker.collision_matrix(sample_configs(scene, 20000, 99)).any()


@pytest.mark.usefixtures("ros_env")
def test_mesh_proofs_hold_piece_by_piece() -> None:
    """On the UR5's meshes, cut into pieces by distance from their joints: each piece's rate
    bounds how fast FCL's distance to the other frame changes under small random moves, and
    every pair proven apart collides in none of 20,000 random configurations (exact checker)."""
    import numpy as np

    from robrayc.analysis import acm_proof

    scene = load([robot_path("ur5")], missing="error")
    full = CollisionChecker(scene, use_allowed=False)
    lo, hi = sample_ranges(scene)
    q0 = acm.default_configuration(scene)
    rng = np.random.default_rng(11)
    proven, tried, split = [], 0, 0
    for a, b in full.frame_pairs:
        rates = acm_proof.pair_rates(full, a, b, lo, hi)
        if not rates or len(rates) > acm_proof.MAX_VARIABLES:
            continue
        cols = sorted(rates)
        sides = [acm_proof._pieces(full, f, s, cols, lo, hi) for f, s in
                 acm_proof._sides(full, a, b)]
        split += len(sides[0]) + len(sides[1]) > 2
        for x in sides[0]:
            for y in sides[1]:
                for q in sample_configs(scene, 3, int(rng.integers(1 << 30))):
                    step = np.zeros_like(q)
                    step[cols] = rng.uniform(-0.05, 0.05, len(cols))
                    live = np.ones((2, 1), dtype=bool)
                    d0, d1 = acm_proof._piece_distances(full, [(x, y)], live, q, cols,
                                                        np.array([q[cols], (q + step)[cols]]))
                    if min(d0[0], d1[0]) > 0:
                        tried += 1
                        assert abs(d1[0] - d0[0]) <= (x.rate + y.rate) @ np.abs(
                            step[cols]) + 1e-9, (a, b)
        if acm_proof.prove_apart(full, a, b, q0, lo, hi, 3000):
            proven.append((a, b))
    assert tried > 200 and split >= 5 and len(proven) >= 3
    checker = CollisionChecker(scene, use_allowed=False, frame_pairs=proven)
    assert not checker.collision_matrix(sample_configs(scene, 20000, 5)).any()


@pytest.mark.usefixtures("ros_env")
@pytest.mark.parametrize("robot", ["7dof", "pr2"])
def test_reach_balls_hold_their_solids(robot: str, demo) -> None:
    """Each solid stays inside its reach ball (placed by the pair's lowest common group) at
    random configurations: a mesh's vertices, or a primitive's bounding sphere, placed by the
    checker's kinematics, inside the ball. The 7dof demo has frames turned within their
    group (upper-link), which a ball computed from the frame rather than the group would
    miss; pairs proven out of reach collide in none of 5,000 random configurations."""
    import numpy as np

    from robrayc.analysis import acm_proof

    scene = demo if robot == "7dof" else load([robot_path(robot)], missing="error")
    full = CollisionChecker(scene, use_allowed=False)
    lo, hi = sample_ranges(scene)
    configs = sample_configs(scene, 200, 4)
    G = full.group_poses(configs)
    s = full.solids
    checked = 0
    for a, b in full.frame_pairs[::max(1, len(full.frame_pairs) // 60)]:
        for frame, side in acm_proof._sides(full, a, b):
            common = int(full.fk.motions[side[-1] - 1][0]) if side else int(full.fk.group[frame])
            solids = np.flatnonzero(full.owner == frame)
            for k, (centre, radius) in zip(solids, acm_proof._reach_balls(full, frame, side,
                                                                          lo, hi), strict=True):
                T = G[:, full.group[k]] @ s.placement[k]
                v = s.items[k].vertices  # a mesh's vertices, else the centre and bounding radius
                local, pad = (v, 0.0) if v is not None else (np.zeros((1, 3)), s.brad[k])
                world = np.einsum("nij,vj->nvi", T[:, :3, :3], local) + T[:, None, :3, 3]
                ball = np.einsum("nij,j->ni", G[:, common, :3, :3], centre) + G[:, common, :3, 3]
                gap = np.linalg.norm(world - ball[:, None], axis=2) + pad
                assert (gap <= radius + 1e-9).all(), (a, b, frame)
                checked += 1
    assert checked > 60
    apart = [p for p in full.frame_pairs if acm_proof.out_of_reach(full, *p, lo, hi)]
    assert len(apart) >= 5
    checker = CollisionChecker(scene, use_allowed=False, frame_pairs=apart)
    assert not checker.collision_matrix(sample_configs(scene, 5000, 6)).any()


def test_samples_drawn_batch_by_batch_are_the_seeded_stream(demo) -> None:
    """Sampling draws its batches in turn (never a million rows at once): the same rows as
    sample_configs gives for the whole stream, including the extra samples past it."""
    import numpy as np

    stream = SampleStream(demo, 7)
    rows = np.concatenate([stream.draw(n) for n in (1000, 1000, 333, 1000, 1)])
    assert np.array_equal(rows, sample_configs(demo, 3334, 7))
    assert np.array_equal(rows[2333:], sample_configs(demo, 1001, 7, skip=2333))


def test_alike_pairs_share_one_proof(tmp_path: Path, monkeypatch) -> None:
    """Three arms (a shoulder joint carrying a post; a short middle link; an elbow link passing
    3 or 4 cm from the post) placed apart: the first two arms' (link, post) pairs have one
    signature, and one proof proves both; the third (its post moved) has its own."""
    arm = """
frame {n}shoulder {{ type revolute; axis [0, 0, 1]; translation [0, {y}, 0];
    frame {n}post {{ translation [0.6, 0, {z}];
        geometry {{ shape box; dimension [0.3, 0.3, 0.1]; }} }}
    frame {n}middle {{ type revolute; axis [0, 0, 1]; limit_position [-0.01, 0.01];
        geometry {{ shape sphere; radius 0.05; }}
        frame {n}elbow {{ type revolute; axis [0, 0, 1]; limit_position [-1, 1];
            frame {n}link {{ translation [0.5, 0, 0];
                geometry {{ shape box; dimension [1, 0.1, 0.1]; }} }} }} }} }}
"""
    scene = scene_from(tmp_path, arm.format(n="a", y=0, z=0.13) + arm.format(n="b", y=3, z=0.13)
                       + arm.format(n="c", y=6, z=0.14))
    from robrayc.analysis import acm_proof

    full = CollisionChecker(scene, use_allowed=False)
    lo, hi = sample_ranges(scene)
    a, b, c = (acm_proof.pair_signature(full, f"{n}link", f"{n}post", lo, hi) for n in "abc")
    assert a == b != c
    calls = []
    real = acm_sampling._prove
    monkeypatch.setattr(acm_sampling, "_prove", lambda job: calls.append(job[1:3]) or real(job))
    result = acm.generate(scene, samples=60000, seed=1, jobs=1, prove=True)
    verdicts = {(p.a, p.b): p for p in result.pairs}
    assert all(verdicts[(f"{n}link", f"{n}post")].proven for n in "abc")
    assert ("alink", "apost") in calls and ("blink", "bpost") not in calls
    assert ("clink", "cpost") in calls

    # cut in four parts, the shared proof cuts the ranges of the pair it proves
    jobs = []
    monkeypatch.setattr(acm_sampling, "_prove", lambda job: jobs.append(job) or real(job))
    monkeypatch.setattr(acm_sampling, "PROVE_SPLIT_BUDGET", 0)
    monkeypatch.setattr(acm_sampling, "PROVE_MIN_BUDGET", 4096)  # a quarter each: enough for a part
    again = acm.generate(scene, samples=60000, seed=1, jobs=1, prove=True)
    assert again.pairs == result.pairs
    elbow = scene.variables.index("aelbow")
    cuts = [(job[4][elbow], job[5][elbow]) for job in jobs if job[1:3] == ("alink", "apost")]
    assert sorted(cuts) == [(-1.0, 0.0), (-1.0, 0.0), (0.0, 1.0), (0.0, 1.0)]


def test_a_proof_in_four_parts_gives_the_same_verdicts(tmp_path: Path, monkeypatch) -> None:
    """A proof cut into four parts of its joint ranges (as large proofs are, so that the
    workers share them) proves the same pairs: two arms whose links pass 2 and 5 cm from a
    post, each pair's proof made of four calls."""
    scene = scene_from(tmp_path, """
frame arm { type revolute; axis [0, 0, 1]; limit_position [-1, 1];
    frame link { translation [0.5, 0, 0]; geometry { shape box; dimension [1, 0.1, 0.1]; } } }
frame post { translation [0.6, 0, 0.12]; geometry { shape box; dimension [0.3, 0.3, 0.1]; } }
frame slider { type prismatic; axis [0, 0, 1]; translation [0, 0, -0.3]; limit_position [0, 0.1];
    frame pad { geometry { shape cylinder; radius 0.2; height 0.1; } } }
""")
    whole = acm.generate(scene, samples=3000, seed=3, jobs=1, batch=100, prove=True)
    calls = []
    real = acm_sampling._prove
    monkeypatch.setattr(acm_sampling, "_prove", lambda job: calls.append(job[1:3]) or real(job))
    monkeypatch.setattr(acm_sampling, "PROVE_SPLIT_BUDGET", 0)
    parts = acm.generate(scene, samples=3000, seed=3, jobs=1, batch=100, prove=True)
    assert parts == whole
    assert {("link", "post"), ("link", "pad")} <= {(p.a, p.b) for p in parts.pairs if p.proven}
    assert calls.count(("link", "post")) == 4


@pytest.mark.parametrize("cols", [[1], [0, 2]])
def test_quarters_tile_the_ranges(cols: list[int]) -> None:
    """The four parts cover the pair's ranges exactly (their areas sum to the whole, each
    inside it) and leave the other variables alone."""
    import numpy as np

    lo, hi = np.array([-1.0, -2.0, 0.0]), np.array([1.0, 3.0, 0.5])
    parts = acm_sampling._quarters(lo, hi, cols)
    assert len(parts) == 4
    area = np.prod((hi - lo)[cols])
    assert sum(np.prod((phi - plo)[cols]) for plo, phi in parts) == pytest.approx(area)
    for plo, phi in parts:
        assert (plo >= lo).all() and (phi <= hi).all() and (plo < phi).all()
        others = [c for c in range(3) if c not in cols]
        assert (plo[others] == lo[others]).all() and (phi[others] == hi[others]).all()
    corners = {tuple(plo[cols]) for plo, _ in parts}
    assert len(corners) == 4  # no part twice

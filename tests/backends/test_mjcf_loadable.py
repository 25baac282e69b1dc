"""MJCF export always loads in the real MuJoCo: empty effort and position ranges, inertia
tensors MuJoCo refuses or that sit on the edge of its rules, ASCII STL and meshes past
MuJoCo's STL face limit, and a URDF mimic joint that comes before its leader (each a small
input that failed before)."""

from __future__ import annotations

import json
import struct
from pathlib import Path

import numpy as np
import pytest

from robrayc.backends import mjcf
from robrayc.cli.main import main

mujoco = pytest.importorskip("mujoco")


def compile_mjcf(tmp_path: Path, text: str, suffix: str = ".robray", *extra: str):
    src = tmp_path / f"in{suffix}"
    src.write_text(text)
    out = tmp_path / "out.mjcf"
    assert main([str(src), "-o", str(out), *extra]) == 0
    return mujoco.MjModel.from_xml_path(str(out)), out


def name_id(model, kind, name: str) -> int:
    return mujoco.mj_name2id(model, kind, name)


def test_empty_effort_and_position_ranges_are_left_out(tmp_path, capsys):
    model, _ = compile_mjcf(tmp_path, """
        frame a { type revolute; axis [0, 0, 1]; limit_position [0.5, 0.5];
                  limit_effort [0, 0]; }
        frame b { type revolute; axis [0, 0, 1]; limit_position [-1, 1]; limit_effort [-2, 2]; }
    """)
    err = capsys.readouterr().err
    assert "position ranges with lower >= upper (joints written unlimited)" in err
    assert "effort ranges with lower >= upper (such as effort 0)" in err
    a = name_id(model, mujoco.mjtObj.mjOBJ_JOINT, "a")
    b = name_id(model, mujoco.mjtObj.mjOBJ_JOINT, "b")
    assert not model.jnt_limited[a] and not model.jnt_actfrclimited[a]
    assert model.jnt_limited[b] and tuple(model.jnt_range[b]) == (-1.0, 1.0)
    assert tuple(model.jnt_actfrcrange[b]) == (-2.0, 2.0)


def principal(model, body: int) -> np.ndarray:
    return np.sort(model.body_inertia[body])


@pytest.mark.parametrize("inertia, balanced", [
    ("[1, 2, 0, 2, 1, 0, 0, 0, 1]", True),   # moments -1, 1, 3: one negative
    ("[1, 0, 0, 0, 1, 0, 0, 0, 3]", True),   # 1 + 1 < 3
    ("[-1, 0, 0, 0, -1, 0, 0, 0, -1]", True),  # all negative: the mean is not a moment
    # a thin rod along (1, 1, 0)/sqrt(2): moments 0, 1, 1, on the edge of both rules
    ("[0.5, -0.5, 0, -0.5, 0.5, 0, 0, 0, 1]", False),
    # a flat plate rotated: A + B = C up to rounding
    ("[1.5, 0.5, 0, 0.5, 1.5, 0, 0, 0, 1]", False),
])
def test_written_inertia_is_one_mujoco_accepts(tmp_path, capsys, inertia, balanced):
    model, out = compile_mjcf(tmp_path, f"""
        frame a {{ type revolute; axis [0, 0, 1]; mass 2; inertia {inertia}; }}
    """)
    err = capsys.readouterr().err
    assert ("is not physical" in err) == balanced
    body = name_id(model, mujoco.mjtObj.mjOBJ_BODY, "a")
    moments = principal(model, body)
    assert moments[0] > 0 and moments[0] + moments[1] >= moments[2]
    if balanced:  # MuJoCo's balanceinertia: each moment the mean of the three (trace / 3)
        tensor = np.array(json.loads(inertia)).reshape(3, 3)
        mean = max(np.trace(tensor) / 3, mjcf.BOUND_INERTIA)
        np.testing.assert_allclose(moments, [mean] * 3, rtol=1e-12)
    else:  # the tensor kept up to rounding: MuJoCo's principal moments equal numpy's
        want = np.maximum(np.linalg.eigvalsh(np.array(json.loads(inertia)).reshape(3, 3)),
                          mjcf.BOUND_INERTIA)
        np.testing.assert_allclose(moments, want, atol=1e-12)


def ascii_stl() -> str:
    corners = [(0, 0, 0), (1, 0, 0), (0, 1, 0), (0, 0, 1)]
    faces = [(0, 2, 1), (0, 1, 3), (0, 3, 2), (1, 2, 3)]
    text = ["solid tet"]
    for f in faces:
        text += ["facet normal 0 0 0", "outer loop"]
        text += [f"vertex {' '.join(map(str, corners[i]))}" for i in f]
        text += ["endloop", "endfacet"]
    return "\n".join([*text, "endsolid tet", ""])


def test_ascii_stl_is_converted(tmp_path):
    (tmp_path / "tet.stl").write_text(ascii_stl())
    model, out = compile_mjcf(tmp_path, 'frame m { geometry { shape mesh; mesh "tet.stl"; } }')
    assert (tmp_path / "out-mesh-1.stl").is_file()
    assert model.nmesh == 1 and model.mesh_facenum[0] == 4


def binary_stl(triangles: np.ndarray) -> bytes:
    rec = np.zeros(len(triangles), dtype=[("n", "<f4", 3), ("v", "<f4", (3, 3)), ("a", "<u2")])
    rec["v"] = triangles
    return b"x" * 80 + struct.pack("<I", len(triangles)) + rec.tobytes()


def sphere(rings: int, sectors: int = 50) -> np.ndarray:
    """A closed UV sphere of 2 * sectors * (rings - 1) triangles (a convex hull MuJoCo
    computes quickly)."""
    polar = np.linspace(0.0, np.pi, rings + 1)[:, None]
    azimuth = np.linspace(0.0, 2 * np.pi, sectors, endpoint=False)[None, :]
    grid = np.stack([np.sin(polar) * np.cos(azimuth), np.sin(polar) * np.sin(azimuth),
                     np.cos(polar) * np.ones_like(azimuth)], axis=-1)
    a, b = grid[:-1], grid[1:]
    c, d = np.roll(a, -1, axis=1), np.roll(b, -1, axis=1)
    quads = np.concatenate([np.stack([a, b, d], axis=2)[1:],  # the pole rows' strips
                            np.stack([a, d, c], axis=2)[:-1]]).reshape(-1, 3, 3)
    return quads


def test_binary_stl_within_the_limit_is_referenced(tmp_path):
    (tmp_path / "fan.stl").write_bytes(binary_stl(sphere(4)))
    model, out = compile_mjcf(tmp_path, 'frame m { geometry { shape mesh; mesh "fan.stl"; } }')
    assert 'file="fan.stl"' in out.read_text()
    assert model.mesh_facenum[0] == 300


def test_mesh_past_the_stl_face_limit_is_written_as_obj(tmp_path, monkeypatch):
    monkeypatch.setattr(mjcf, "STL_FACE_LIMIT", 299)
    (tmp_path / "fan.stl").write_bytes(binary_stl(sphere(4)))
    model, out = compile_mjcf(tmp_path, 'frame m { geometry { shape mesh; mesh "fan.stl"; } }')
    assert 'file="out-mesh-1.obj"' in out.read_text()
    assert model.mesh_facenum[0] == 300


@pytest.mark.slow
def test_mesh_past_mujocos_real_stl_limit_loads(tmp_path):
    (tmp_path / "fan.stl").write_bytes(binary_stl(sphere(2002)))
    model, out = compile_mjcf(tmp_path, 'frame m { geometry { shape mesh; mesh "fan.stl"; } }')
    assert 'file="out-mesh-1.obj"' in out.read_text()
    assert model.mesh_facenum[0] == 200_100 > mjcf.STL_FACE_LIMIT


MIMIC_FIRST = """<robot name="r">
  <link name="base"/><link name="a"/><link name="b"/>
  <joint name="follower" type="revolute">
    <parent link="base"/><child link="a"/><origin xyz="1 0 0"/><axis xyz="0 0 1"/>
    <limit lower="-1" upper="1" effort="1" velocity="1"/><mimic joint="leader"/>
  </joint>
  <joint name="leader" type="revolute">
    <parent link="base"/><child link="b"/><origin xyz="0 1 0"/><axis xyz="0 0 1"/>
    <limit lower="-1" upper="1" effort="1" velocity="1"/>
  </joint>
</robot>
"""


def test_mimic_joint_before_its_leader_keeps_the_leaders_name(tmp_path):
    model, _ = compile_mjcf(tmp_path, MIMIC_FIRST, ".urdf", "-q")
    data = mujoco.MjData(model)
    data.joint("leader").qpos[0] = 0.5
    mujoco.mj_kinematics(model, data)
    leader = data.body("leader")
    np.testing.assert_allclose(leader.xquat, [np.cos(0.25), 0, 0, np.sin(0.25)], atol=1e-15)
    np.testing.assert_allclose(data.body("follower").xquat, [1, 0, 0, 0])
    assert model.neq == 1
    assert mujoco.mj_id2name(model, mujoco.mjtObj.mjOBJ_JOINT, model.eq_obj2id[0]) == "leader"


def test_shapes_of_zero_size_are_left_out(tmp_path, capsys):
    """MuJoCo refuses a primitive of size 0 (an MJCF capsule sized from a mesh read back)."""
    model, _ = compile_mjcf(tmp_path, """frame a { geometry { shape sphere; radius 0; }
        geometry { shape box; dimension [1, 0, 1]; } geometry { shape sphere; radius 1; } }""")
    assert "shapes of zero size (MuJoCo refuses them) (2x)" in capsys.readouterr().err
    assert model.ngeom == 1


def test_meshes_without_volume_load(tmp_path, capsys):
    """A flat mesh: MuJoCo refused its volume (even visual only) and, as a collision geom,
    its convex hull; a tiny tetrahedron: its volume."""
    (tmp_path / "flat.obj").write_text("v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nf 1 2 3\nf 1 3 4\n")
    (tmp_path / "tiny.obj").write_text("v 0 0 0\nv 1e-4 0 0\nv 0 1e-4 0\nv 0 0 1e-4\n"
                                       "f 1 3 2\nf 1 2 4\nf 1 4 3\nf 2 3 4\n")
    model, _ = compile_mjcf(tmp_path, """frame a { type revolute; axis [0, 0, 1];
        geometry { shape mesh; mesh "flat.obj"; } geometry { shape mesh; mesh "tiny.obj"; }
        geometry { shape mesh; mesh "flat.obj"; collision 0; } }""")
    assert "contacts of flat collision meshes" in capsys.readouterr().err
    assert list(model.geom_contype) == [0, 1, 0]

"""One world through every backend and analysis (issue 14.1): a scene with unusual mesh
conventions (an OBJ read with -U Y -F -Z and a per-axis scale, a COLLADA file declaring Y_UP
and a 0.5 m unit) hanging from --root, checked in world space wherever a format has geometry.

The expected vertices are worked out here by hand from the files and the frames; each backend's
output is read by an independent reader where one exists (gcc and the recording amino stand-in
for C, gcc and ctypes for the standalone C, yourdfpy for URDF, libsdformat for SDF, MuJoCo for
MJCF, trimesh for glTF, the SVG's paths, pySimiam's obstacles, cs2's wall lines, CajunBot's
world-coordinate vertex files) or by robrayc's loader for its own formats (JSON, robray).
The test iterates over the backend registry: a backend registered tomorrow fails here until it
gets a world check or a stated reason why its output holds no geometry to check.
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import numpy as np
import pytest

from robrayc.backends import BACKENDS
from tests import record
from tests.backends.test_sdf import sdf_check  # noqa: F401  (fixture: libsdformat's checker)
from tests.backends.validator import compile_to
from tests.run import robrayc

OPTIONS = ("--root", "world", "-U", "Y", "-F", "-Z")
OBJ = "v 0 0 0\nv 1 0 0\nv 0 2 0\nv 0 0 3\nf 1 3 2\nf 1 2 4\nf 1 4 3\nf 2 3 4\n"
TET = np.array([[0, 0, 0], [1, 0, 0], [0, 2, 0], [0, 0, 3]], dtype=float)
SCENE = """frame base { parent world; translation [1, 2, 0.5]; rpy [0, 0, 0.5]; }
frame arm { parent base; type revolute; axis [0, 0, 1]; translation [0.3, 0, 0];
    geometry { mesh "tet.obj"; scale [2, 3, 4]; } }
frame cap { parent world; translation [-1, 0, 0.2]; geometry { mesh "tet.dae"; } }
frame ref { parent world; translation [-4, 5, 0];
    geometry { isa robot; shape box; dimension [1, 1, 1]; } }
class robot { }
"""


def _dae(up: str, unit: float) -> str:
    pos = " ".join(repr(float(c)) for c in TET.reshape(-1))
    return f"""<?xml version="1.0" encoding="utf-8"?>
<COLLADA xmlns="http://www.collada.org/2005/11/COLLADASchema" version="1.4.1">
 <asset><unit name="half" meter="{unit}"/><up_axis>{up}</up_axis></asset>
 <library_geometries><geometry id="g"><mesh>
  <source id="p"><float_array id="pa" count="12">{pos}</float_array>
   <technique_common><accessor source="#pa" count="4" stride="3"><param name="X" type="float"/>
    <param name="Y" type="float"/><param name="Z" type="float"/></accessor></technique_common>
  </source>
  <vertices id="v"><input semantic="POSITION" source="#p"/></vertices>
  <triangles count="4"><input semantic="VERTEX" source="#v" offset="0"/>
   <p>0 2 1 0 1 3 0 3 2 1 2 3</p></triangles>
 </mesh></geometry></library_geometries>
 <library_visual_scenes><visual_scene id="s"><node id="n"><instance_geometry url="#g"/></node>
 </visual_scene></library_visual_scenes>
 <scene><instance_visual_scene url="#s"/></scene>
</COLLADA>
"""


def _rz(angle: float) -> np.ndarray:
    c, s = math.cos(angle), math.sin(angle)
    return np.array([[c, -s, 0], [s, c, 0], [0, 0, 1]])


def _expected() -> dict[str, np.ndarray]:
    """World vertices by frame, by hand. -U Y -F -Z turns a file's (x, y, z) into (x, -z, y),
    as does COLLADA's Y_UP; then the per-axis scale [2, 3, 4], or the 0.5 m unit."""
    turned = TET[:, [0, 2, 1]] * [1, -1, 1]
    arm = _rz(0.5) @ (turned * [2, 3, 4] + [0.3, 0, 0]).T
    return {"arm": arm.T + [1, 2, 0.5], "cap": turned * 0.5 + [-1, 0, 0.2]}


def _same_points(got: np.ndarray, want: np.ndarray, tol: float, what: str) -> None:
    got = np.unique(np.round(np.asarray(got, dtype=float), 9), axis=0)
    assert len(got) == len(want), f"{what}: {len(got)} distinct vertices, want {len(want)}"
    for p in want:
        assert np.min(np.linalg.norm(got - p, axis=1)) <= tol, f"{what}: no vertex at {p}:\n{got}"


@pytest.fixture(scope="module")
def world(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("world")
    (folder / "tet.obj").write_text(OBJ)
    (folder / "tet.dae").write_text(_dae("Y_UP", 0.5))
    (folder / "s.robray").write_text(SCENE)
    return folder / "s.robray"


# --- readers of each output, to world vertices by frame ----------------------------------------


def _quat_matrix(q) -> np.ndarray:
    x, y, z, w = q
    return np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
                     [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
                     [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)]])


def _world_c(scene: Path, out: Path) -> dict[str, np.ndarray]:
    lines = [ln.split() for ln in record.compile_and_run(out, "scene", out.parent, root="world",
                                                          vertices=True)]
    pose: dict[str, tuple[np.ndarray, np.ndarray]] = {record.hexname("world"): (np.eye(3),
                                                                                np.zeros(3))}
    found = {}
    for parts in lines:
        if parts[0] == "frame":  # parents come first
            r0, t0 = pose[parts[2]]
            q, v = [float(x) for x in parts[4:8]], np.array([float(x) for x in parts[8:11]])
            pose[parts[3]] = (r0 @ _quat_matrix(q), r0 @ v + t0)
        elif parts[0] == "vertices":
            r, t = pose[parts[1]]
            local = np.array([float(x) for x in parts[2:]]).reshape(-1, 3)
            name = bytes.fromhex(parts[1][1:]).decode()
            found[name] = local @ r.T + t
    return found


def _world_standalone(scene: Path, out: Path) -> dict[str, np.ndarray]:
    import trimesh

    from robrayc.frontend import LoadOptions, load_scene
    from tests.backends.test_c_standalone import compile_scene, load

    ir_scene = load_scene([str(scene)], LoadOptions(root="world", mesh_up="Y",
                                                    mesh_forward="-Z"))
    lib = compile_scene([str(scene)], out.parent, "sw", extra=OPTIONS)
    compiled = load(ir_scene, lib, "sw")
    assert compiled.root() == "world"
    tf = compiled.fk(np.zeros((1, len(ir_scene.variables))))[0]
    found = {}
    for k in range(len(ir_scene.frames) and compiled.geoms._length_):
        g = compiled.geoms[k]
        if not g.mesh:
            continue
        stored = trimesh.load(g.mesh.decode(), force="mesh", process=False).vertices
        local = stored @ np.array(g.mesh_transform[:]).reshape(3, 3).T * g.scale
        q, t = tf[g.frame][:4], tf[g.frame][4:]
        found[ir_scene.frames[g.frame].name] = local @ _quat_matrix(q).T + t
    return found


def _world_urdf(scene: Path, out: Path) -> dict[str, np.ndarray]:
    """yourdfpy reads the file as stored: it ignores COLLADA's <up_axis> and <unit>, which the
    URDF leaves to the reader (as robrayc's URDF import applies them): only the OBJ mesh, whose
    -U/-F turn and per-axis scale the URDF itself carries, is taken from yourdfpy."""
    import yourdfpy

    robot = yourdfpy.URDF.load(str(out), build_scene_graph=True, load_meshes=True)
    found = {}
    for node in robot.scene.graph.nodes_geometry:
        transform, geometry = robot.scene.graph[node]
        mesh = robot.scene.geometry[geometry]
        if len(mesh.vertices) == 4 and "dae" not in str(mesh.metadata.get("file_name", "")):
            points = np.c_[mesh.vertices, np.ones(4)] @ transform.T
            found.setdefault("arm", points[:, :3])
    return found


def _world_reloaded(scene: Path, out: Path) -> dict[str, np.ndarray]:
    """robrayc's own formats: loaded back with the options the output names (JSON holds the
    conventions itself; the robray writer names them under its header)."""
    from robrayc.frontend import LoadOptions, load_scene
    from robrayc.kinematics import fk
    from robrayc.meshes import mesh_data

    text = out.read_text()
    named = re.search(r"^// Compile with: (.*)$", text, re.M)
    args = named.group(1).split() if named else []
    root = args[args.index("--root") + 1] if "--root" in args else None
    up = next((a[2:] for a in args if a.startswith("-U")), "Z")
    forward = next((a[2:] for a in args if a.startswith("-F")), "Y")
    loaded = load_scene([str(out)], LoadOptions(root=root, mesh_up=up, mesh_forward=forward))
    assert loaded.root == "world"
    poses = fk(loaded)
    found = {}
    for f in loaded.frames:
        for g in f.geometries:
            if g.shape.__class__.__name__ == "Mesh":
                local = mesh_data(g.shape).vertices * g.scale
                found[f.name] = np.c_[local, np.ones(len(local))] @ poses[f.name].T
    return {k: v[:, :3] for k, v in found.items()}


def _world_glb(scene: Path, out: Path) -> dict[str, np.ndarray]:
    """glTF through trimesh's reader: each mesh node's vertices placed by the node graph."""
    import trimesh

    gltf = trimesh.load(str(out))
    found = {}
    for node in gltf.graph.nodes_geometry:
        transform, geometry = gltf.graph[node]
        if node in ("arm", "cap"):
            points = gltf.geometry[geometry].vertices
            found[node] = (np.c_[points, np.ones(len(points))] @ transform.T)[:, :3]
    return found


def _world_mjcf(scene: Path, out: Path) -> dict[str, np.ndarray]:
    """MuJoCo itself: each mesh geom's vertices (MuJoCo re-centres meshes and compensates in the
    geom's pose) placed by mj_forward."""
    import mujoco

    model = mujoco.MjModel.from_xml_path(str(out))
    data = mujoco.MjData(model)
    mujoco.mj_forward(model, data)
    found = {}
    for g in range(model.ngeom):
        if model.geom_type[g] != mujoco.mjtGeom.mjGEOM_MESH:
            continue
        mesh = model.geom_dataid[g]
        start, n = model.mesh_vertadr[mesh], model.mesh_vertnum[mesh]
        points = model.mesh_vert[start:start + n] @ data.geom_xmat[g].reshape(3, 3).T
        body = mujoco.mj_id2name(model, mujoco.mjtObj.mjOBJ_BODY, model.geom_bodyid[g])
        found[body] = points + data.geom_xpos[g]
    return found


def _world_sdf(scene: Path, out: Path, checker: Path) -> dict[str, np.ndarray]:
    """libsdformat resolves the link poses and each mesh's pose in its link (sdf_check.cc); the
    files are read as stored (trimesh), scaled by the SDF's <scale>."""
    import trimesh

    from tests.backends.test_sdf import matrix, run_check

    model = run_check(checker, out)
    found = {}
    for link, _kind, _name, geometry, *rest in model.shapes:
        if geometry != "mesh" or rest[3].endswith(".dae"):  # its own axes: the reader's to apply
            continue
        scale, uri, pose = np.array(rest[:3], dtype=float), rest[3], rest[4:]
        stored = trimesh.load(str(out.parent / uri), force="mesh", process=False).vertices
        place = model.links[link] @ matrix(*map(float, pose))
        found[link] = (np.c_[stored * scale, np.ones(len(stored))] @ place.T)[:, :3]
    return found


def _world_cajunbot(scene: Path, out: Path) -> dict[str, np.ndarray]:
    """CajunBot mesh objects: world-coordinate vertex files, named in the object file."""
    found = {}
    for vfile in sorted(out.parent.glob(out.name.split(".")[0] + "*_vertices.txt")):
        points = np.loadtxt(vfile).reshape(-1, 3)
        for name, want in _expected().items():
            if len(np.unique(np.round(points, 6), axis=0)) == 4 and \
                    all(np.min(np.linalg.norm(points - p, axis=1)) < 1e-4 for p in want):
                found[name] = points
    return found


def _svg_box(text: str, frame: str) -> tuple[float, float, float, float]:
    m = re.search(r'<path[^>]* d="([^"]*)"[^>]*><title>\w+ ' + re.escape(frame) + "</title>",
                  text)
    assert m, f"no path of {frame}"
    nums = np.array([float(x) for x in re.findall(r"-?[0-9.]+", m.group(1))]).reshape(-1, 2)
    return nums[:, 0].min(), nums[:, 0].max(), nums[:, 1].min(), nums[:, 1].max()


def _world_svg(scene: Path, out: Path) -> dict[str, np.ndarray]:
    """The SVG is a top view: each mesh's outline spans its world XY extent. Pixels map to
    metres through the reference box (1 m wide, centred at (-4, 5))."""
    text = out.read_text()
    x0, x1, y0, y1 = _svg_box(text, "ref")
    px = x1 - x0

    def world(bx, by):
        return (bx - (x0 + x1) / 2) / px - 4, -(by - (y0 + y1) / 2) / px + 5

    found = {}
    for frame in ("arm", "cap"):
        a0, a1, b0, b1 = _svg_box(text, frame)
        (wx0, wy1), (wx1, wy0) = world(a0, b0), world(a1, b1)
        found[frame] = np.array([[wx0, wy0], [wx1, wy1]])
    return found


def _extent(points) -> np.ndarray:
    points = np.asarray(points, dtype=float)
    return np.array([points.min(axis=0), points.max(axis=0)])


def _world_pysimiam(scene: Path, out: Path) -> dict[str, np.ndarray]:
    """pySimiam obstacles: polygon points placed by the obstacle's pose (x, y, theta)."""
    from lxml import etree

    found = {}
    root = etree.parse(str(out)).getroot()
    for comment in root.iter(etree.Comment):
        obstacle = comment.getnext()
        name = comment.text.strip().removeprefix("wall ")
        if obstacle is None or obstacle.tag != "obstacle" or name not in ("arm", "cap"):
            continue
        pose = obstacle.find("pose")
        x, y, theta = (float(pose.get(k)) for k in ("x", "y", "theta"))
        pts = np.array([[float(p.get("x")), float(p.get("y"))] for p in obstacle.iter("point")])
        turn = np.array([[math.cos(theta), -math.sin(theta)], [math.sin(theta), math.cos(theta)]])
        found[name] = _extent(pts @ turn.T + [x, y])
    return found


def _world_cs2(scene: Path, out: Path) -> dict[str, np.ndarray]:
    """A cs2 board: each wall's lines in centimetres, board y being the scene's -y."""
    found: dict[str, list] = {}
    wall = None
    for line in out.read_text().splitlines():
        if line.startswith("# wall "):
            wall = line[len("# wall "):]
        elif line.startswith("line ") and wall in ("arm", "cap"):
            x0, y0, x1, y1 = (float(v) / 100 for v in line.split()[1:5])
            found.setdefault(wall, []).extend([(x0, -y0), (x1, -y1)])
    return {k: _extent(v) for k, v in found.items()}


# backend -> (reader, tolerance in metres); readers return world vertices by frame
CHECKS = {
    "c": (_world_c, 1e-5),
    "c-standalone": (_world_standalone, 1e-9),
    "urdf": (_world_urdf, 1e-9),
    "json": (_world_reloaded, 1e-9),
    "robray": (_world_reloaded, 1e-9),
    "cajunbot": (_world_cajunbot, 1e-4),
    "svg": (_world_svg, 2e-3),
    "pysimiam": (_world_pysimiam, 1e-9),
    "cs2": (_world_cs2, 1e-9),
    "glb": (_world_glb, 1e-5),
    "mjcf": (_world_mjcf, 1e-5),
    "sdf": (_world_sdf, 1e-9),  # with the sdf_check fixture (libsdformat)
}
# backends whose output holds no world geometry to compare here, and why
NOT_CHECKED = {
    "dot": "the frame tree only, no geometry",
    "simmer": "the 2D projection the SVG check covers, in SimMeR's maze units",
    "pov": "POV-Ray scene text; png renders it",
    "png": "a rendered picture",
    "html": "a page drawing the scene",
    "c-checker": "a generated collision checker; its answers are checked against collide",
}


@pytest.mark.parametrize("fmt", sorted(BACKENDS))
def test_every_backend_sees_the_same_world(world: Path, fmt: str, tmp_path: Path,
                                          request) -> None:
    run = compile_to(fmt, world, tmp_path, *OPTIONS)
    assert "Traceback" not in run.stderr and run.returncode in (0, 1), run.stderr
    if fmt in NOT_CHECKED:
        assert run.returncode == 0 or ": error: " in run.stderr, run.stderr
        return
    assert fmt in CHECKS, f"backend {fmt!r}: add a world check (or a reason) to {__file__}"
    assert run.returncode == 0, run.stderr
    reader, tol = CHECKS[fmt]
    if fmt == "sdf":
        checker = request.getfixturevalue("sdf_check")
        found = reader(world, run.output, checker)
    else:
        found = reader(world, run.output)
    expected = _expected()
    for frame, points in found.items():
        want = expected[frame]
        if points.shape[1] == 2:  # a top view: the XY extent
            lo, hi = want[:, :2].min(axis=0), want[:, :2].max(axis=0)
            assert np.allclose(points, [lo, hi], atol=tol), (fmt, frame, points, lo, hi)
        else:
            _same_points(points, want, tol, f"{fmt} {frame}")
    # yourdfpy and libsdformat read the COLLADA file as stored; the URDF and SDF leave its
    # declared axis and unit to the reader (as the COLLADA spec and robrayc's import read them)
    partial = fmt in ("urdf", "sdf")
    assert set(found) >= ({"arm"} if partial else {"arm", "cap"}), (fmt, set(found))


def test_collide_sees_the_same_world(world: Path, tmp_path: Path) -> None:
    """Probe spheres on the distinctive vertex of each mesh touch it; probes where the default
    conventions (or an ignored up axis) would put that vertex touch nothing."""
    expected = _expected()
    probes = {"on_arm": expected["arm"][3], "on_cap": expected["cap"][3]}
    wrong_arm = _rz(0.5) @ (np.array([0, 2, 0]) * [2, 3, 4] + [0.3, 0, 0]) + [1, 2, 0.5]
    probes["off_arm"] = wrong_arm
    probes["off_cap"] = np.array([0, 2, 0]) * 0.5 + [-1, 0, 0.2]
    text = world.read_text() + "".join(
        f"frame {n} {{ parent world; translation [{float(p[0])!r}, {float(p[1])!r}, "
        f"{float(p[2])!r}];\n"
        "    geometry { shape sphere; radius 0.05; } }\n" for n, p in probes.items())
    scene = tmp_path / "probed.robray"
    for f in ("tet.obj", "tet.dae"):
        (tmp_path / f).write_bytes((world.parent / f).read_bytes())
    scene.write_text(text)
    r = robrayc("collide", scene, *OPTIONS, "--json", process=True)
    assert r.status == 1, r.out + r.err
    pairs = {tuple(sorted(c)) for c in json.loads(r.out)["collisions"]}
    assert pairs == {("arm", "on_arm"), ("cap", "on_cap")}, pairs

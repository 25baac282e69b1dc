"""The standalone C backend (--format c-standalone): tables and generated forward kinematics.

Each scene is compiled by robrayc, then by gcc (C99, -Wall -Wextra -Werror -pedantic), loaded
with ctypes and compared with the IR: every table entry, and NAME_fk against the numpy FK at
1,000 seeded random configurations within 1e-12 (rotation matrices and translations, so the
sign of a quaternion does not matter). A sanitizer build (address, undefined) runs the same
code once more.
"""

from __future__ import annotations

import ctypes
import os
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from robrayc import ir
from robrayc.backends import EmitContext, c_standalone
from robrayc.diagnostics import DiagnosticSink
from robrayc.frontend import LOADERS, LoadOptions, load_scene
from robrayc.kinematics import fk_batch, quat_to_matrix, sample_configs
from tests.corpus import CORPUS, URDF_CORPUS, require_corpus, ros_package_path
from tests.run import robrayc

TESTS = Path(__file__).resolve().parents[1]
CONFORMANCE = TESTS / "conformance"
SEVEN_DOF = CORPUS / "amino" / "demo" / "tutorial" / "plugin" / "7dof" / "7dof.robray"
CC = shutil.which("cc") or shutil.which("gcc")
STRICT = ["-std=c99", "-Wall", "-Wextra", "-Werror", "-pedantic"]
N_CONFIGS = 1000

pytestmark = pytest.mark.skipif(CC is None, reason="no C compiler")

# Corpus robots: (id, URDF path inside the URDF corpus).
ROBOTS = {
    "baxter": "RethinkRobotics+baxter_common/baxter_description/urdf/baxter.urdf",
    "ur5": "ros-industrial+universal_robot/ur_description/urdf/ur5_robot.urdf",
    "fetch": "fetchrobotics+fetch_ros/fetch_description/robots/fetch.urdf",
    "lwa4d": "ipa320+schunk_robots/schunk_lwa4d/urdf/robot_lwa4d.urdf",
    "pr2": "ros-planning+moveit_resources/moveit_resources_pr2_description/urdf/robot.xml",
}


def compile_scene(paths: list[str], tmp: Path, name: str = "sc",
                  env: dict | None = None, extra: tuple[str, ...] = (),
                  scene: ir.Scene | None = None) -> Path:
    """robrayc -> NAME.c/.h -> strict gcc -> a shared library; returns its path. Given the
    loaded `scene`, the backend runs in this process (no interpreter start-up per scene)."""
    if scene is None:
        r = robrayc(*paths, *extra, "--format", "c-standalone", "-n", name, "-o", f"{name}.c",
                    cwd=tmp, env=env)
        assert r.status == 0, r.err
    else:
        ctx = EmitContext(tmp / f"{name}.c", c_standalone.Options(), DiagnosticSink(),
                          name=name)
        for out in c_standalone.emit(scene, ctx):
            out.path.write_bytes(out.data)
    lib = tmp / f"lib{name}.so"
    r = subprocess.run([CC, *STRICT, "-O2", "-shared", "-fPIC", f"{name}.c", "-o", str(lib),
                        "-lm"], cwd=tmp, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return lib


# --- ctypes mirrors of the header's types ----------------------------------------------------


class Frame(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("parent", ctypes.c_int), ("kind", ctypes.c_int),
                ("config", ctypes.c_int), ("axis", ctypes.c_double * 3),
                ("offset", ctypes.c_double), ("quaternion", ctypes.c_double * 4),
                ("translation", ctypes.c_double * 3), ("mass", ctypes.c_double),
                ("has_inertial", ctypes.c_int), ("inertia", ctypes.c_double * 9)]


class Config(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("limits", ctypes.c_uint),
                ("position", ctypes.c_double * 2), ("velocity", ctypes.c_double * 2),
                ("acceleration", ctypes.c_double * 2), ("effort", ctypes.c_double * 2)]


class Geometry(ctypes.Structure):
    _fields_ = [("frame", ctypes.c_int), ("shape", ctypes.c_int), ("size", ctypes.c_double * 5),
                ("mesh", ctypes.c_char_p), ("color", ctypes.c_double * 3),
                ("alpha", ctypes.c_double), ("specular", ctypes.c_double * 3),
                ("scale", ctypes.c_double), ("visual", ctypes.c_int),
                ("collision", ctypes.c_int), ("no_shadow", ctypes.c_int),
                ("mesh_transform", ctypes.c_double * 9)]


class Scene:
    """The compiled scene, loaded."""

    def __init__(self, lib_path: Path, name: str, n_frames: int, n_config: int,
                 n_geoms: int, n_allowed: int) -> None:
        self.lib = ctypes.CDLL(str(lib_path))
        self.name = name
        self.n_frames, self.n_config = n_frames, n_config
        self.frames = (Frame * max(n_frames, 1)).in_dll(self.lib, f"{name}_frames")
        self.configs = (Config * max(n_config, 1)).in_dll(self.lib, f"{name}_configs")
        self.geoms = (Geometry * max(n_geoms, 1)).in_dll(self.lib, f"{name}_geometries")
        self.allowed = ((ctypes.c_int * 2) * max(n_allowed, 1)).in_dll(self.lib,
                                                                         f"{name}_allowed")
        self._fk = getattr(self.lib, f"{name}_fk")
        self._fk.restype = None
        self._fk.argtypes = [ctypes.c_void_p, ctypes.c_void_p]

    def fk(self, configs: np.ndarray) -> np.ndarray:
        out = np.empty((configs.shape[0], max(self.n_frames, 1), 7))
        for k in range(configs.shape[0]):
            q = np.ascontiguousarray(configs[k])
            self._fk(q.ctypes.data, out[k].ctypes.data)
        return out[:, :self.n_frames]

    def root(self) -> str | None:
        value = ctypes.c_char_p.in_dll(self.lib, f"{self.name}_root").value
        return None if value is None else value.decode()


def load(scene: ir.Scene, lib: Path, name: str = "sc") -> Scene:
    return Scene(lib, name, len(scene.frames), len(scene.variables),
                 sum(len(f.geometries) for f in scene.frames), len(scene.allowed))


def matrices(tfs: np.ndarray) -> np.ndarray:
    """(..., 7) poses -> (..., 4, 4) with the quaternion turned into a rotation matrix."""
    q = tfs[..., :4]
    x, y, z, w = (q[..., i] for i in range(4))
    m = np.zeros(tfs.shape[:-1] + (4, 4))
    m[..., 0, 0] = 1 - 2 * (y * y + z * z)
    m[..., 0, 1] = 2 * (x * y - z * w)
    m[..., 0, 2] = 2 * (x * z + y * w)
    m[..., 1, 0] = 2 * (x * y + z * w)
    m[..., 1, 1] = 1 - 2 * (x * x + z * z)
    m[..., 1, 2] = 2 * (y * z - x * w)
    m[..., 2, 0] = 2 * (x * z - y * w)
    m[..., 2, 1] = 2 * (y * z + x * w)
    m[..., 2, 2] = 1 - 2 * (x * x + y * y)
    m[..., :3, 3] = tfs[..., 4:]
    m[..., 3, 3] = 1
    return m


def random_configs(scene: ir.Scene, n: int, seed: int) -> np.ndarray:
    """Uniform within position limits where known, else over a full turn."""
    return sample_configs(scene, n, seed)


def check_fk(scene: ir.Scene, compiled: Scene, n: int = N_CONFIGS, seed: int = 7) -> float:
    configs = random_configs(scene, n, seed)
    ours = compiled.fk(configs)
    ref = fk_batch(scene, configs)
    err = np.abs(matrices(ours) - ref).max() if len(scene.frames) else 0.0
    assert err <= 1e-12, f"standalone FK differs from the IR's by {err}"
    norms = np.linalg.norm(ours[..., :4], axis=-1)
    assert np.abs(norms - 1).max() <= 1e-12
    return float(err)


# --- the 7dof demo -------------------------------------------------------------------------


@pytest.fixture(scope="module")
def seven_dof(tmp_path_factory) -> tuple[ir.Scene, Scene, Path]:
    require_corpus()
    tmp = tmp_path_factory.mktemp("sevendof")
    scene = load_scene([str(SEVEN_DOF)])
    lib = compile_scene([str(SEVEN_DOF)], tmp, "arm")
    return scene, load(scene, lib, "arm"), tmp


def test_7dof_fk_matches_ir(seven_dof) -> None:
    scene, compiled, _ = seven_dof
    assert len(scene.frames) == 20 and len(scene.variables) == 10
    check_fk(scene, compiled)


def test_7dof_zero_and_single_joint_configs(seven_dof) -> None:
    scene, compiled, _ = seven_dof
    n = len(scene.variables)
    configs = np.vstack([np.zeros(n), np.eye(n) * 0.7, -np.eye(n) * 2.5])
    err = np.abs(matrices(compiled.fk(configs)) - fk_batch(scene, configs)).max()
    assert err <= 1e-12


def test_7dof_tables(seven_dof) -> None:
    scene, compiled, _ = seven_dof
    check_tables(scene, compiled)


def check_tables(scene: ir.Scene, compiled: Scene) -> None:
    index = {f.name: i for i, f in enumerate(scene.frames)}
    variables = {v: i for i, v in enumerate(scene.variables)}
    kinds = {"fixed": 0, "revolute": 1, "prismatic": 2, "ball": 3, "floating": 4}
    for i, f in enumerate(scene.frames):
        c = compiled.frames[i]
        assert c.name.decode() == f.name
        assert c.parent == index.get(f.parent, -1) if f.parent else c.parent == -1
        assert c.parent < i
        assert c.kind == kinds[f.kind]
        assert c.config == (variables[ir.joint_variables(f)[0]] if f.is_joint else -1)
        assert tuple(c.axis) == (f.axis if f.axis is not None else (0.0, 0.0, 0.0))
        assert c.offset == (f.offset if f.is_joint else 0.0)
        assert tuple(c.quaternion) == f.quaternion and tuple(c.translation) == f.translation
        assert bool(c.has_inertial) == (f.inertial is not None)
        if f.inertial:
            assert c.mass == f.inertial.mass and tuple(c.inertia) == f.inertial.inertia
        assert getattr(compiled.lib, f"{compiled.name}_frame_index")(f.name.encode()) == i
    assert getattr(compiled.lib, f"{compiled.name}_frame_index")(b"no such frame") == -1
    for v, k in variables.items():
        assert compiled.configs[k].name.decode() == v
        assert getattr(compiled.lib, f"{compiled.name}_config_index")(v.encode()) == k
    shapes = {ir.Box: 0, ir.Sphere: 1, ir.Cylinder: 2, ir.Cone: 3, ir.Grid: 4, ir.Mesh: 5}
    for k, (f, g) in enumerate(ir.walk_geometries(scene)):
        c = compiled.geoms[k]
        assert (c.frame, c.shape) == (index[f.name], shapes[type(g.shape)])
        assert tuple(c.color) == g.color and c.alpha == g.alpha
        assert tuple(c.specular) == g.specular and c.scale == g.scale
        assert (c.visual, c.collision, c.no_shadow) == (g.visual, g.collision, g.no_shadow)
        s = g.shape
        size = shape_size(s)
        assert tuple(c.size)[:len(size)] == tuple(size)
        assert (c.mesh.decode() if c.mesh else None) == (s.path if isinstance(s, ir.Mesh)
                                                         else None)
    for k, a in enumerate(scene.allowed):
        assert tuple(compiled.allowed[k]) == (index[a.a], index[a.b])


SANITIZED = ["7dof", "chain.robray", "joint_offset_variable.robray", "axis_nonunit.robray",
             "shared_variable.robray"]


@pytest.mark.parametrize("case", SANITIZED)
def test_sanitizers(case: str, tmp_path: Path) -> None:
    """FK, lookups and tables under -fsanitize=address,undefined (revolute, prismatic, offsets,
    shared variables), printing poses that must equal the IR's FK."""
    if case == "7dof":
        require_corpus()
        src = SEVEN_DOF
    else:
        src = CONFORMANCE / case
    scene = load_scene([str(src)])
    r = robrayc(src, "--format", "c-standalone", "-n", "sc", "-o", "sc.c", cwd=tmp_path)
    assert r.status == 0, r.err
    (tmp_path / "driver.c").write_text(DRIVER.replace("NAME", "sc"))
    exe = tmp_path / "driver_san"
    r = subprocess.run([CC, *STRICT, "-g", "-O1", "-fsanitize=address,undefined",
                        "-fno-sanitize-recover=all", "-fno-omit-frame-pointer",
                        "driver.c", "sc.c", "-o", str(exe), "-lm"], cwd=tmp_path,
                       capture_output=True, text=True)
    if r.returncode and "sanitize" in r.stderr and "cannot find" in r.stderr:
        pytest.skip("sanitizer runtime not installed")
    assert r.returncode == 0, r.stderr
    configs = random_configs(scene, 20, 3)
    text = "\n".join(" ".join(repr(float(x)) for x in c) for c in configs) + "\n"
    r = subprocess.run([str(exe)], input=text, capture_output=True, text=True,
                       env=dict(os.environ, ASAN_OPTIONS="detect_leaks=1"))
    assert r.returncode == 0 and r.stderr == "", r.stderr
    values = np.array([[float(x) for x in line.split()] for line in r.stdout.splitlines()])
    poses = values.reshape(len(configs), len(scene.frames), 7)
    assert np.abs(matrices(poses) - fk_batch(scene, configs)).max() <= 1e-12


def shape_size(s: ir.Shape) -> tuple[float, ...]:
    if isinstance(s, ir.Box):
        return s.dimension
    if isinstance(s, ir.Sphere):
        return (s.radius,)
    if isinstance(s, ir.Cylinder):
        return (s.height, s.radius)
    if isinstance(s, ir.Cone):
        return (s.height, s.start_radius, s.end_radius)
    if isinstance(s, ir.Grid):
        return (*s.dimension, *s.delta, s.thickness)
    return s.scale3


DRIVER = r"""
#include <stdio.h>
#include "NAME.h"

int main(void)
{
    double q[NAME_N_CONFIG];
    double tf[NAME_N_FRAMES][7];
    int i, j, k;
    for (;;) {
        for (i = 0; i < NAME_N_CONFIG; i++)
            if (1 != scanf("%lf", &q[i])) return 0;
        NAME_fk(q, tf);
        for (j = 0; j < NAME_N_FRAMES; j++) {
            if (NAME_frame_index(NAME_frames[j].name) != j) return 3;
            for (k = 0; k < 7; k++) printf("%.17g%c", tf[j][k], k == 6 ? '\n' : ' ');
        }
        for (i = 0; i < NAME_N_CONFIG; i++)
            if (NAME_config_index(NAME_configs[i].name) != i) return 4;
        for (i = 0; i < NAME_N_GEOMETRIES; i++)
            if (NAME_geometries[i].frame < 0 || NAME_geometries[i].frame >= NAME_N_FRAMES)
                return 5;
    }
}
"""


# --- every conformance scene: strict compile, FK, tables ---------------------------------------


CONFORMANCE_SCENES = sorted(p.name for p in CONFORMANCE.glob("*.robray")
                            if p.name != "multi_b.robray")  # multi_b needs multi_a


@pytest.mark.parametrize("name", CONFORMANCE_SCENES)
def test_conformance_scene(name: str, tmp_path: Path) -> None:
    paths = [str(CONFORMANCE / name)]
    if name == "multi_a.robray":
        paths.append(str(CONFORMANCE / "multi_b.robray"))
    scene = load_scene(paths)
    compiled = load(scene, compile_scene(paths, tmp_path, scene=scene))
    check_tables(scene, compiled)
    check_fk(scene, compiled, n=50)


def test_root_option_and_stdout_output(tmp_path: Path) -> None:
    """--root: top-level frames and frames naming the root as parent get parent -1 and
    NAME_root names it; without -o the C goes to standard output with the header inlined,
    still strict C99."""
    src = tmp_path / "rooted.robray"
    src.write_text("frame a { translation [1, 0, 0]; type revolute; axis [0, 0, 1]; }\n"
                   "frame b { parent world; rpy [0, 0.5, 0]; }\n"
                   "frame c { parent b; translation [0, 2, 0]; type prismatic; "
                   "axis [1, 0, 0]; }\n")
    r = robrayc(str(src), "--root", "world", "--format", "c-standalone", "-n", "w",
                cwd=tmp_path)
    assert r.status == 0, r.err
    (tmp_path / "w.c").write_text(r.out)
    assert not (tmp_path / "w.h").exists() and "#include \"" not in r.out
    lib = tmp_path / "libw.so"
    c = subprocess.run([CC, *STRICT, "-shared", "-fPIC", "w.c", "-o", str(lib), "-lm"],
                       cwd=tmp_path, capture_output=True, text=True)
    assert c.returncode == 0, c.stderr
    scene = load_scene([str(src)], LoadOptions(root="world"))
    compiled = load(scene, lib, "w")
    assert compiled.root() == "world"
    assert [compiled.frames[i].parent for i in range(3)] == [-1, -1, 1]
    configs = random_configs(scene, 50, 5)
    rel = compiled.fk(configs)
    # the IR's FK needs every parent in the scene: compare with `world` defined as identity
    src.write_text(src.read_text() + "frame world { }\n")
    plain = load_scene([str(src)])
    ref = fk_batch(plain, configs)[:, [plain.index(n) for n in ("a", "b", "c")]]
    assert np.abs(matrices(rel) - ref).max() <= 1e-12
    plain_lib = compile_scene([str(src)], tmp_path, "p")
    assert load(plain, plain_lib, "p").root() is None


def test_large_scene_split_fk(tmp_path: Path) -> None:
    """Over FK_PART_FRAMES frames the FK is split into static functions: still exact, with
    anchors in earlier slices, fixed chains across slice borders and both joint kinds."""
    lines = []
    for i in range(3 * c_standalone.FK_PART_FRAMES + 5):
        parent = f"parent f{i - 1 - (i % 3 == 0 and i > 3) * 2};" if i else ""
        kind = ("type revolute; axis [0, 0.6, 0.8];", "type prismatic; axis [1, 0, 0];",
                "")[i % 3 if i % 7 else 2]
        lines.append(f"frame f{i} {{ {parent} {kind} translation [0.1, {i % 5} * 0.01, 0.02];"
                     f" rpy [{i % 4} * 0.3, 0.1, -0.2]; offset {i % 2} * 0.25; }}")
    src = tmp_path / "large.robray"
    src.write_text("\n".join(lines).replace("offset 0 * 0.25; }", "}") + "\n")
    scene = load_scene([str(src)])
    compiled = load(scene, compile_scene([str(src)], tmp_path, "big", scene=scene), "big")
    assert (tmp_path / "big.c").read_text().count("static void big_fk_part") == 4
    check_tables(scene, compiled)
    check_fk(scene, compiled, n=200)


def test_empty_tables_and_bad_name(tmp_path: Path) -> None:
    (tmp_path / "empty.robray").write_text("class unused { color [1, 0, 0]; }\n")
    r = robrayc("empty.robray", "--format", "c-standalone", "-o", "e.c", "-n", "e", cwd=tmp_path)
    if r.status == 0:  # a scene without frames: zero-length tables must still be C99
        c = subprocess.run([CC, *STRICT, "-c", "e.c"], cwd=tmp_path, capture_output=True,
                           text=True)
        assert c.returncode == 0, c.stderr
    (tmp_path / "fixed.robray").write_text("frame a { translation [1, 2, 3]; }\n")
    r = robrayc("fixed.robray", "--format", "c-standalone", "-o", "f.c", "-n", "f", cwd=tmp_path)
    assert r.status == 0, r.err
    c = subprocess.run([CC, *STRICT, "-c", "f.c"], cwd=tmp_path, capture_output=True, text=True)
    assert c.returncode == 0, c.stderr
    assert "f_fk(const double *q," in (tmp_path / "f.h").read_text()
    r = robrayc("fixed.robray", "--format", "c-standalone", "-o", "x.c", "-n",
                "not-an-identifier", cwd=tmp_path)
    assert r.status == 1 and "not a C identifier" in r.err
    assert not (tmp_path / "x.c").exists()


def test_two_scenes_link_into_one_program(tmp_path: Path) -> None:
    """The shared types are guarded: two generated headers in one translation unit."""
    for name, scene in (("a", "chain.robray"), ("b", "shared_variable.robray")):
        r = robrayc(CONFORMANCE / scene, "--format", "c-standalone", "-o", f"{name}.c",
                    "-n", name, cwd=tmp_path)
        assert r.status == 0, r.err
    (tmp_path / "main.c").write_text(
        '#include "a.h"\n#include "b.h"\n'
        "int main(void) { double qa[a_N_CONFIG] = { 0 }, qb[b_N_CONFIG] = { 0 };\n"
        "  double ta[a_N_FRAMES][7], tb[b_N_FRAMES][7];\n"
        "  a_fk(qa, ta); b_fk(qb, tb); return ta[0][3] == 1.0 && tb[0][3] == 1.0 ? 0 : 1; }\n")
    c = subprocess.run([CC, *STRICT, "main.c", "a.c", "b.c", "-o", "two", "-lm"],
                       cwd=tmp_path, capture_output=True, text=True)
    assert c.returncode == 0, c.stderr
    assert subprocess.run([str(tmp_path / "two")]).returncode == 0


# --- corpus robots (URDF) --------------------------------------------------------------------


@pytest.mark.parametrize("robot", sorted(ROBOTS))
def test_corpus_robot_fk(robot: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    if ".urdf" not in LOADERS:
        pytest.skip("URDF import not available yet")
    require_corpus()
    urdf = URDF_CORPUS / ROBOTS[robot]
    assert urdf.is_file(), urdf
    monkeypatch.setenv("ROS_PACKAGE_PATH", ros_package_path())
    env = dict(os.environ)
    extra = ("--missing-mesh", "drop")  # Baxter's corpus lacks two large visual meshes
    scene = load_scene([str(urdf)], LoadOptions(missing_mesh="drop"))
    lib = compile_scene([str(urdf)], tmp_path, robot, env=env, extra=extra)
    compiled = load(scene, lib, robot)
    assert len(scene.variables) > 0
    check_tables(scene, compiled)
    check_fk(scene, compiled)


def test_quat_to_matrix_matches_test_helper() -> None:
    """The helper above uses the same convention as the IR (a test of the test)."""
    q = np.array([0.1, -0.7, 0.3, 0.5])
    q /= np.linalg.norm(q)
    ours = matrices(np.concatenate([q, [1, 2, 3]])[None, :])[0]
    assert np.allclose(ours[:3, :3], np.array(quat_to_matrix(tuple(q))), atol=1e-15)
    assert np.allclose(ours[:3, 3], [1, 2, 3])

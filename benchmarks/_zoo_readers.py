"""The robot zoo's readers: each robot format read by its real reader, giving link poses
(4x4, in the world) at configurations of the input's variables.

- URDF: check_urdf must accept it, yourdfpy must load it, Pinocchio's FK (mimic joints as
  Pinocchio's own mimic joints).
- MJCF: MuJoCo loads it; mj_kinematics (hinge, slide, ball and free joints).
- SDF: libsdformat (tests/sdf_input/sdf_poses.cc) resolves the rest poses and axes; the
  joints' motions are composed on them (tests/sdformat.py).
- C: gcc and the real amino library (tests/amino_real.py: check_scene), aa_rx_fk.
- JSON, robray: robrayc's own readers (they are the formats' readers).

A configuration is a dict of the input scene's scalar variables; a joint of an output is
given the values of the input frame it is named after (NAME, or NAME_joint where SDF renames
it), else of the variable it is named after. Joints no rule maps are counted in `unmapped`
(the comparison is then at the rest pose only).
"""

from __future__ import annotations

import math
import subprocess
import sys
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from robrayc import ir  # noqa: E402
from tests.sdformat import joint_motion, matrix, reference, rotvec, sdformat_fk  # noqa: E402


class ReaderError(Exception):
    """The real reader refused the file (its message)."""


def quat_wxyz(r) -> tuple[float, float, float, float]:
    """The unit quaternion (w, x, y, z) of a rotation vector."""
    angle = math.sqrt(sum(c * c for c in r))
    if angle == 0:
        return (1.0, 0.0, 0.0, 0.0)
    s = math.sin(angle / 2) / angle
    return (math.cos(angle / 2), r[0] * s, r[1] * s, r[2] * s)


class Values:
    """The values an output's joint takes at a configuration (see the module docstring)."""

    def __init__(self, scene: ir.Scene) -> None:
        self.scene = scene
        self.unmapped: set[str] = set()

    def frame(self, name: str) -> ir.Frame | None:
        for cand in (name, name[:-6] if name.endswith("_joint") else None):
            if cand and self.scene.has_frame(cand) and self.scene.frame(cand).is_joint:
                return self.scene.frame(cand)
        return None

    def of(self, name: str, cfg: dict[str, float], n: int = 1) -> list[float] | None:
        f = self.frame(name)
        if f is not None:
            return [cfg[v] for v in ir.joint_variables(f)]
        if n == 1 and name in cfg:
            return [cfg[name]]
        self.unmapped.add(name)
        return None


# --- Pinocchio ---------------------------------------------------------------------------------
class PinocchioFK:
    """Pinocchio's model of a URDF: link (BODY frame) poses at a configuration."""

    def __init__(self, urdf: Path) -> None:
        import pinocchio as pin

        self.pin = pin
        self.mimic: dict[str, tuple[str, float, float]] = {}  # joint -> leader, factor, offset
        try:
            self.model = pin.buildModelFromUrdf(str(urdf), mimic=True)
        except Exception as exc:  # Pinocchio raises plain RuntimeError/ValueError
            if "mimic" not in str(exc):
                raise ReaderError(f"Pinocchio: {exc}") from None
            # Pinocchio's mimic joints need the leader earlier in its tree walk (urdfdom does
            # not): mimic joints as plain joints, set from their leader (yourdfpy's reading)
            self.model = pin.buildModelFromUrdf(str(urdf))
            self.mimic = mimics(urdf)
        self.data = self.model.createData()
        self.links = {f.name: k for k, f in enumerate(self.model.frames)
                      if f.type == pin.FrameType.BODY}

    def poses(self, values: Values, cfg: dict[str, float]) -> dict[str, np.ndarray]:
        pin, model = self.pin, self.model
        q = pin.neutral(model)
        for jid in range(1, model.njoints):
            joint = model.joints[jid]
            if "Mimic" in joint.shortname():
                continue
            name = model.names[jid]
            if name in self.mimic:
                leader, factor, offset = self.mimic[name]
                v = values.of(leader, cfg)  # a leader not in the URDF: mimic ignored
                v = values.of(name, cfg) if v is None else [factor * v[0] + offset]
            else:
                v = values.of(name, cfg, joint.nq if joint.nq != 2 else 1)
            if v is None:
                continue
            i, nq = joint.idx_q, joint.nq
            if nq == 1:
                q[i] = v[0]
            elif nq == 2:  # unbounded revolute: cos, sin
                q[i:i + 2] = (math.cos(v[0]), math.sin(v[0]))
            elif nq == 4:  # spherical: x y z w
                w, x, y, z = quat_wxyz(v)
                q[i:i + 4] = (x, y, z, w)
            elif nq == 7:  # free flyer: position, then x y z w
                w, x, y, z = quat_wxyz(v[3:])
                q[i:i + 7] = (*v[:3], x, y, z, w)
        pin.forwardKinematics(model, self.data, q)
        pin.updateFramePlacements(model, self.data)
        return {name: np.array(self.data.oMf[k].homogeneous) for name, k in self.links.items()}


def mimics(urdf: Path) -> dict[str, tuple[str, float, float]]:
    """joint -> (leader, multiplier, offset) of a URDF's mimic joints, as yourdfpy reads them."""
    import yourdfpy

    robot = yourdfpy.URDF.load(str(urdf), load_meshes=False, build_scene_graph=False,
                               load_collision_meshes=False, build_collision_scene_graph=False)
    return {name: (j.mimic.joint, j.mimic.multiplier if j.mimic.multiplier is not None else 1.0,
                   j.mimic.offset if j.mimic.offset is not None else 0.0)
            for name, j in robot.joint_map.items() if j.mimic is not None}


def urdf_reader(path: Path) -> PinocchioFK:
    """check_urdf, yourdfpy and Pinocchio must all read it."""
    r = subprocess.run(["check_urdf", str(path)], capture_output=True, text=True, timeout=120)
    if r.returncode != 0:
        raise ReaderError("check_urdf: " + (r.stderr or r.stdout).strip().splitlines()[-1])
    import yourdfpy

    try:
        yourdfpy.URDF.load(str(path), load_meshes=False, build_scene_graph=False,
                           load_collision_meshes=False, build_collision_scene_graph=False)
    except Exception as exc:  # yourdfpy raises whatever its parser does
        raise ReaderError(f"yourdfpy: {exc}") from None
    return PinocchioFK(path)


# --- MuJoCo ------------------------------------------------------------------------------------
class MujocoFK:
    """MuJoCo's model of an MJCF file: named bodies' poses at a configuration."""

    def __init__(self, path: Path) -> None:
        import mujoco

        self.mj = mujoco
        try:
            self.model = mujoco.MjModel.from_xml_path(str(path))
        except Exception as exc:  # ValueError with MuJoCo's message
            raise ReaderError(f"MuJoCo: {str(exc).strip().splitlines()[0]}") from None
        self.data = mujoco.MjData(self.model)
        m = self.model
        self.bodies = {}
        for b in range(1, m.nbody):
            name = mujoco.mj_id2name(m, mujoco.mjtObj.mjOBJ_BODY, b)
            if name:
                self.bodies[name] = b

    def joint_names(self) -> list[str | None]:
        m, mj = self.model, self.mj
        return [mj.mj_id2name(m, mj.mjtObj.mjOBJ_JOINT, j) or None for j in range(m.njnt)]

    def poses(self, values: Values, cfg: dict[str, float],
              by_order: list[ir.Frame] | None = None) -> dict[str, np.ndarray]:
        """`by_order`: the input's joint frames in MuJoCo's joint order (an MJCF input,
        whose joints may be unnamed)."""
        m, d, mj = self.model, self.data, self.mj
        d.qpos[:] = m.qpos0
        for j, name in enumerate(self.joint_names()):
            kind, i = int(m.jnt_type[j]), int(m.jnt_qposadr[j])
            if by_order is not None:
                v = [cfg[x] for x in ir.joint_variables(by_order[j])]
            else:
                v = values.of(name or f"#{j}", cfg, 1)
            if v is None:
                continue
            if kind == mj.mjtJoint.mjJNT_FREE:  # its qpos is the body's pose: qpos0 moved
                rest = matrix(*m.qpos0[i:i + 7])
                w, x, y, z = quat_wxyz(v[3:])
                moved = rest @ matrix(*v[:3], w, x, y, z)
                d.qpos[i:i + 3] = moved[:3, 3]
                mj.mju_mat2Quat(d.qpos[i + 3:i + 7], moved[:3, :3].flatten())
            elif kind == mj.mjtJoint.mjJNT_BALL:
                d.qpos[i:i + 4] = quat_wxyz(v)
            else:
                d.qpos[i] = v[0]
        mj.mj_kinematics(m, d)
        out = {}
        for name, b in self.bodies.items():
            w, x, y, z = d.xquat[b]
            out[name] = matrix(*d.xpos[b], w, x, y, z)
        return out


MJ_KIND = {0: "floating", 1: "ball", 2: "prismatic", 3: "revolute"}  # mjtJoint


def mujoco_joint_order(fk: MujocoFK, scene: ir.Scene) -> list[ir.Frame]:
    """The input scene's joint frames in MuJoCo's joint order (an MJCF input read by robrayc
    keeps the document order MuJoCo numbers joints in); a ReaderError if kinds differ."""
    frames = [f for f in scene.frames if f.is_joint]
    kinds = [MJ_KIND[int(t)] for t in fk.model.jnt_type]
    if [f.kind for f in frames] != kinds:
        raise ReaderError(f"robrayc has {len(frames)} joints, MuJoCo {len(kinds)} (or of "
                          "other kinds, in another order)")
    return frames


# --- libsdformat -------------------------------------------------------------------------------
class SdformatFK:
    def __init__(self, exe: Path, path: Path) -> None:
        try:
            self.ref = reference(exe, path)
        except AssertionError as exc:
            lines = [x for x in str(exc).splitlines() if x.strip()]
            raise ReaderError("libsdformat: " + (lines[0] if lines else "refused")) from None

    def poses(self, values: Values, cfg: dict[str, float]) -> dict[str, np.ndarray]:
        def motion(name: str, kind: str, axes) -> np.ndarray:
            if kind == "fixed":
                return np.eye(4)
            v = values.of(name, cfg, 2 if kind in ("universal", "revolute2") else 1)
            return np.eye(4) if v is None else joint_motion(kind, axes, v)

        def root_motion(link: str):
            """A link without a joint: the input's floating frame of that name moves it."""
            f = values.frame(link)
            if f is None or f.kind != "floating":
                return None
            v = [cfg[x] for x in ir.joint_variables(f)]
            move = rotvec(v[3:])
            move[:3, 3] = v[:3]
            return move

        return sdformat_fk(self.ref, motion, root_motion)


# --- amino (C) ---------------------------------------------------------------------------------
class AminoFK:
    """The C output linked with the real amino library (check_scene)."""

    def __init__(self, c_file: Path, name: str) -> None:
        from tests import amino_real

        self.amino = amino_real
        try:
            self.binary = amino_real.check_binary(c_file, name)
        except (AssertionError, amino_real.AminoUnavailable) as exc:
            raise ReaderError(f"gcc + amino: {str(exc).strip().splitlines()[-1]}") from None

    def poses(self, values: Values, cfg: dict[str, float]) -> dict[str, np.ndarray]:
        data = self.amino.run_check(self.binary, cfg)
        out = {}
        for f in data["frames"]:
            (qx, qy, qz, qw), v = f["abs"]["q"], f["abs"]["v"]
            out[f["name"]] = matrix(*v, qw, qx, qy, qz)
        return out


# --- robrayc's own readers (JSON, robray) ------------------------------------------------------
class RobraycFK:
    def __init__(self, path: Path) -> None:
        from robrayc.diagnostics import CompileError, DiagnosticSink
        from robrayc.frontend import LoadOptions, load_scene

        sink = DiagnosticSink(quiet=True)
        try:
            self.scene = load_scene([str(path)], LoadOptions(missing_mesh="drop"), sink)
        except CompileError:
            first = next((d for d in sink.items if d.severity == "error"), None)
            raise ReaderError(f"robrayc: {first.message if first else 'refused'}") from None

    def poses(self, values: Values, cfg: dict[str, float]) -> dict[str, np.ndarray]:
        from robrayc.kinematics import fk

        return {k: np.asarray(v) for k, v in fk(self.scene, {
            v: cfg.get(v, 0.0) for v in self.scene.variables}).items()}


__all__ = ["AminoFK", "MujocoFK", "PinocchioFK", "ReaderError", "RobraycFK", "SdformatFK",
           "Values", "mujoco_joint_order", "rotvec", "urdf_reader"]

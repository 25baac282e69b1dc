"""Forward kinematics with numpy: absolute 4x4 transforms, single or batched.

Matches amino's `tf_rel`: revolute frames rotate about `axis` (in the frame's own coordinates,
after its fixed rotation) by value + offset; prismatic frames translate along the rotated axis.
"""

from __future__ import annotations

import math

import numpy as np

from robrayc import ir
from robrayc.diagnostics import DiagnosticSink
from robrayc.ir import Frame, Scene
from robrayc.transforms import quat_to_matrix


def fixed_matrix(frame: Frame) -> np.ndarray:
    """The frame's constant part (quaternion + translation) as a 4x4 matrix."""
    m = np.eye(4)
    m[:3, :3] = quat_to_matrix(frame.quaternion)
    m[:3, 3] = frame.translation
    return m


def _axis_rotations(axis: np.ndarray, angles: np.ndarray) -> np.ndarray:
    """Batched (N,4,4) rotations from amino's axis-angle quaternion (axis used as given)."""
    s = np.sin(angles / 2)
    x, y, z = (s * axis[0], s * axis[1], s * axis[2])
    w = np.cos(angles / 2)
    out = np.zeros((angles.shape[0], 4, 4))
    out[:, 0, 0] = 1 - 2 * (y * y + z * z)
    out[:, 0, 1] = 2 * (x * y - z * w)
    out[:, 0, 2] = 2 * (x * z + y * w)
    out[:, 1, 0] = 2 * (x * y + z * w)
    out[:, 1, 1] = 1 - 2 * (x * x + z * z)
    out[:, 1, 2] = 2 * (y * z - x * w)
    out[:, 2, 0] = 2 * (x * z - y * w)
    out[:, 2, 1] = 2 * (y * z + x * w)
    out[:, 2, 2] = 1 - 2 * (x * x + y * y)
    out[:, 3, 3] = 1
    return out


def variable_index(scene: Scene) -> dict[str, int]:
    """Column of each configuration variable in a configuration array."""
    return {name: i for i, name in enumerate(scene.variables)}


def config_array(scene: Scene, config: dict[str, float] | None) -> np.ndarray:
    """A 1-D configuration vector from a NAME -> value dict (missing names are 0)."""
    index = variable_index(scene)
    q = np.zeros(len(index))
    for name, value in (config or {}).items():
        if name in index:
            q[index[name]] = value
    return q


def fk_batch(scene: Scene, configs: np.ndarray) -> np.ndarray:
    """Absolute transforms for a batch: configs (N, n_vars) -> (N, n_frames, 4, 4)."""
    configs = np.atleast_2d(np.asarray(configs, dtype=float))
    n = configs.shape[0]
    index = variable_index(scene)
    out = np.empty((n, len(scene.frames), 4, 4))
    for i, f in enumerate(scene.frames):
        rel = np.broadcast_to(fixed_matrix(f), (n, 4, 4))
        if f.is_joint and f.axis is not None:
            value = configs[:, index[f.variable]] + f.offset
            axis = np.asarray(f.axis, dtype=float)
            if f.kind == "revolute":
                rel = rel @ _axis_rotations(axis, value)
            else:
                rel = rel.copy()
                rel[:, :3, 3] += (rel[:, :3, :3] @ axis) * value[:, None]
        out[:, i] = rel if f.parent is None else out[:, scene.index(f.parent)] @ rel
    return out


def fk(scene: Scene, config: dict[str, float] | None = None) -> dict[str, np.ndarray]:
    """Absolute 4x4 transform of every frame at a configuration dict."""
    tfs = fk_batch(scene, config_array(scene, config)[None, :])[0]
    return {f.name: tfs[i] for i, f in enumerate(scene.frames)}


# --- sampling -------------------------------------------------------------------------------


def sample_ranges(scene: ir.Scene, sink: DiagnosticSink | None = None
                  ) -> tuple[np.ndarray, np.ndarray]:
    """(lo, hi) per variable: position limits, else [-pi, pi] (revolute) or [-1, 1]."""
    lo, hi = [], []
    for var in scene.variables:
        frames = [f for f in scene.frames if f.is_joint and f.variable == var]
        limited = [f for f in frames if f.limits.position is not None]
        if limited:
            a, b = limited[0].limits.position  # type: ignore[misc]
            lo.append(min(a, b))
            hi.append(max(a, b))
        elif any(f.kind == "revolute" for f in frames):
            lo.append(-math.pi)
            hi.append(math.pi)
        else:
            if sink is not None:
                sink.warning(f"prismatic variable '{var}' has no position limits: sampled on "
                             "[-1, 1]", frames[0].pos)
            lo.append(-1.0)
            hi.append(1.0)
    return np.array(lo, dtype=float), np.array(hi, dtype=float)


def sample_configs(scene: ir.Scene, n: int, seed: int, *, skip: int = 0) -> np.ndarray:
    """Samples skip .. skip+n-1 of the seeded stream generate() uses (uniform in the ranges)."""
    lo, hi = sample_ranges(scene)
    rng = np.random.default_rng(seed)
    u = rng.random((skip + n, len(lo)))[skip:]
    return lo + u * (hi - lo)

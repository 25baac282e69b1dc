"""Compiling a small C++ program against the real libsdformat (Debian libsdformat-dev): the
tests' way of asking libsdformat what it reads (no Python bindings are packaged)."""

from __future__ import annotations

import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pytest

from tests.corpus import IN_CI


def compile_against_sdformat(source: Path, folder: Path) -> Path:
    """The program built from `source` in `folder`; skipped without libsdformat-dev or g++
    (a failure in CI, which installs them)."""
    flags = subprocess.run(["pkg-config", "--cflags", "--libs", "sdformat12"],
                           capture_output=True, text=True)
    if flags.returncode != 0 or shutil.which("g++") is None:
        if IN_CI:
            pytest.fail("libsdformat-dev (sdformat12) or g++ is missing in CI")
        pytest.skip("libsdformat-dev not installed (apt-get install libsdformat-dev)")
    exe = folder / source.stem
    subprocess.run(["g++", "-O1", "-Wall", "-Wextra", "-Werror", "-o", str(exe), str(source),
                    *flags.stdout.split()], check=True)
    return exe


def matrix(x, y, z, qw, qx, qy, qz) -> np.ndarray:
    """The 4x4 pose of a translation and a unit quaternion (w first, as libsdformat prints)."""
    m = np.eye(4)
    m[:3, :3] = [[1 - 2 * (qy * qy + qz * qz), 2 * (qx * qy - qz * qw), 2 * (qx * qz + qy * qw)],
                 [2 * (qx * qy + qz * qw), 1 - 2 * (qx * qx + qz * qz), 2 * (qy * qz - qx * qw)],
                 [2 * (qx * qz - qy * qw), 2 * (qy * qz + qx * qw), 1 - 2 * (qx * qx + qy * qy)]]
    m[:3, 3] = (x, y, z)
    return m


@dataclass
class Reference:
    """What libsdformat resolves (sdf_input/sdf_poses.cc): world poses at rest, joints
    (type, parent, child, pose, axes in the joint frame)."""

    links: dict[str, np.ndarray] = field(default_factory=dict)
    frames: dict[str, np.ndarray] = field(default_factory=dict)
    joints: dict[str, tuple] = field(default_factory=dict)


def reference(exe: Path, path: Path) -> Reference:
    """libsdformat's reading of `path` (an AssertionError with its messages if it refuses)."""
    r = subprocess.run([str(exe), str(path)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr[-3000:]
    ref = Reference()
    for line in r.stdout.splitlines():
        kind, name, *rest = line.split()
        if kind in ("link", "frame"):
            getattr(ref, kind + "s")[name] = matrix(*map(float, rest))
        else:
            nums = [float(x) for x in rest[3:]]
            axes = [np.array(nums[k:k + 3]) for k in range(7, len(nums), 3)]
            ref.joints[name] = (rest[0], rest[1], rest[2], matrix(*nums[:7]), axes)
    return ref


def rotation(axis, angle: float) -> np.ndarray:
    a = np.asarray(axis, dtype=float)
    a = a / np.linalg.norm(a)
    k = np.array([[0, -a[2], a[1]], [a[2], 0, -a[0]], [-a[1], a[0], 0]])
    m = np.eye(4)
    m[:3, :3] = np.eye(3) + np.sin(angle) * k + (1 - np.cos(angle)) * k @ k
    return m


def rotvec(r) -> np.ndarray:
    """The rotation of a rotation vector (axis times angle)."""
    angle = float(np.linalg.norm(r))
    return np.eye(4) if angle == 0 else rotation(np.asarray(r) / angle, angle)


def joint_motion(kind: str, axes, values) -> np.ndarray:
    """The motion of an SDF joint of `kind` at `values` (one a degree of freedom: a ball's
    is a rotation vector), axes in the joint frame."""
    m = np.eye(4)
    if kind in ("revolute", "continuous"):
        m = rotation(axes[0], values[0])
    elif kind == "prismatic":
        m[:3, 3] = np.asarray(axes[0]) / np.linalg.norm(axes[0]) * values[0]
    elif kind in ("universal", "revolute2"):
        m = rotation(axes[0], values[0]) @ rotation(axes[1], values[1])
    elif kind == "ball":
        m = rotvec(values)
    return m


def sdformat_fk(ref: Reference, motion, root_motion=None) -> dict[str, np.ndarray]:
    """Link poses composed from libsdformat's rest poses: `motion(joint, kind, axes)` is the
    joint's motion, `root_motion(link)` a root link's (None: where it rests)."""
    by_child = {j[2]: (name, j) for name, j in ref.joints.items()}
    out: dict[str, np.ndarray] = {}

    def pose(link: str) -> np.ndarray:
        if link not in out:
            if link not in by_child:
                move = root_motion(link) if root_motion is not None else None
                out[link] = ref.links[link] if move is None else ref.links[link] @ move
                return out[link]
            name, (kind, parent, _, joint, axes) = by_child[link]
            above = np.eye(4) if parent == "world" else pose(parent) @ np.linalg.inv(
                ref.links[parent])
            out[link] = above @ joint @ motion(name, kind, axes) @ np.linalg.inv(joint) @ \
                ref.links[link]
        return out[link]

    for link in ref.links:
        pose(link)
    return out

"""Kinematics, the one place poses are computed: rigid transforms, rigid groups, forward
kinematics (single and batched) and configuration sampling.

Conventions follow amino: a pose is (q, v), quaternion x y z w and translation, mapping child
coordinates to parent coordinates, p_parent = q * p_child * q^-1 + v. A frame's pose in its
parent at configuration value x is amino's ``tf_rel``: revolute frames rotate about ``axis`` (in
the frame's own coordinates, after its fixed rotation) by x + offset; prismatic frames translate
along the rotated axis. A ball frame rotates by the rotation vector of its three variables
(Rodrigues); a floating frame translates by its first three variables, then rotates by the
last three, both after its fixed pose (so all zeros is the fixed pose).

The pure-Python part imports nothing heavy, so a C compile never loads numpy; the batched
functions (4x4 matrices, vectorised over configurations) import numpy when called.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from robrayc.ir import Frame, Quat, Scene, Vec3, joint_variables
from robrayc.records import record

# rotations.py holds the rotation math; its functions are kinematics' too (re-exported)
from robrayc.rotations import axis_angle_quat as axis_angle_quat
from robrayc.rotations import matrix_to_quat as matrix_to_quat
from robrayc.rotations import qconj as qconj
from robrayc.rotations import qmul as qmul
from robrayc.rotations import qnorm as qnorm
from robrayc.rotations import qnormalize as qnormalize
from robrayc.rotations import qrotate as qrotate
from robrayc.rotations import quat_matrices, rotvec_matrices
from robrayc.rotations import quat_to_matrix as quat_to_matrix
from robrayc.rotations import quat_to_rotvec as quat_to_rotvec
from robrayc.rotations import quat_to_rpy as quat_to_rpy
from robrayc.rotations import rotvec_to_quat as rotvec_to_quat
from robrayc.rotations import rpy_to_quat as rpy_to_quat
from robrayc.rotations import unit_quaternion as unit_quaternion

if TYPE_CHECKING:
    import numpy as np

    from robrayc.diagnostics import DiagnosticSink

Pose = tuple[Quat, Vec3]
IDENTITY: Pose = ((0.0, 0.0, 0.0, 1.0), (0.0, 0.0, 0.0))


def compose(a: Pose, b: Pose) -> Pose:
    """a * b: apply b, then a."""
    qa, va = a
    qb, vb = b
    r = qrotate(qa, vb)
    return qmul(qa, qb), (va[0] + r[0], va[1] + r[1], va[2] + r[2])


def inverse(p: Pose) -> Pose:
    qi = qconj(p[0])
    v = qrotate(qi, p[1])
    return qi, (-v[0], -v[1], -v[2])


def moves(frame: Frame) -> bool:
    """Whether the frame's pose in its parent depends on the configuration."""
    return frame.is_joint and frame.variable is not None and (
        frame.axis is not None or frame.is_multi_dof)


def multi_dof_pose(frame: Frame, values) -> Pose:
    """A ball or floating frame's pose in its parent at its variables' values (3 or 6):
    fixed pose * Translation(x, y, z) * Rotation(exp(r))."""
    q, v = frame.quaternion, frame.translation
    values = tuple(values)
    t, r = (values[:3], values[3:]) if frame.kind == "floating" else ((0.0, 0.0, 0.0), values)
    moved = qrotate(q, t)
    return (qmul(q, rotvec_to_quat(r)),  # type: ignore[arg-type]
            (v[0] + moved[0], v[1] + moved[1], v[2] + moved[2]))


def local_pose(frame: Frame, value=0.0) -> Pose:
    """The frame's pose in its parent at configuration `value` (amino's tf_rel); for a ball
    or floating frame, `value` is the sequence of its joint_variables' values (a scalar 0:
    the rest pose)."""
    q, v = frame.quaternion, frame.translation
    if frame.is_multi_dof:
        if isinstance(value, (int, float)) or not len(value):
            if value != 0 and isinstance(value, (int, float)):
                raise ValueError(f"{frame.kind} frame '{frame.name}' takes a value a variable")
            return q, v
        return multi_dof_pose(frame, value)
    if frame.kind == "revolute" and frame.axis is not None:
        return qmul(q, axis_angle_quat(frame.axis, value + frame.offset)), v
    if frame.kind == "prismatic" and frame.axis is not None:
        d = value + frame.offset
        r = qrotate(q, (frame.axis[0] * d, frame.axis[1] * d, frame.axis[2] * d))
        return q, (v[0] + r[0], v[1] + r[1], v[2] + r[2])
    return q, v


def parent_index(scene: Scene, frame: Frame) -> int:
    """Index of the frame's parent; -1 for the root (the IR names no frame outside the scene:
    a parent naming --root is None, see Scene.root)."""
    return -1 if frame.parent is None else scene.index(frame.parent)


def absolute_poses(scene: Scene, config: dict[str, float] | None = None) -> dict[str, Pose]:
    """Every frame's pose in the root at `config` (variables not given are 0)."""
    config = config or {}
    out: list[Pose] = []
    for f in scene.frames:  # parents first
        if f.is_multi_dof:
            rel = local_pose(f, [config.get(n, 0.0) for n in joint_variables(f)])
        else:
            rel = local_pose(f, config.get(f.variable or f.name, 0.0) if f.is_joint else 0.0)
        p = parent_index(scene, f)
        out.append(compose(out[p], rel) if p >= 0 else rel)
    return {f.name: pose for f, pose in zip(scene.frames, out, strict=True)}


# --- rigid groups -------------------------------------------------------------------------------
# Frames rigidly attached to the same moving ancestor form a group: group 0 is the root (the
# world) with the fixed frames under it; each moving frame starts a group holding itself and the
# fixed frames below it. Chains of fixed frames fold into one constant pose per frame.


@record(frozen=True, slots=True)
class Body:
    """A moving rigid group: its joint frame, the group that frame hangs from, and the joint
    frame's constant pose in that group (every fixed frame in between pre-multiplied)."""

    frame: int
    parent: int
    base: Pose


@record(frozen=True, slots=True)
class RigidGroups:
    """group[i]: the group of frame i; rel[i]: frame i's constant pose in its group's frame
    (IDENTITY for a joint frame); bodies[g - 1]: the moving group g."""

    group: tuple[int, ...]
    rel: tuple[Pose, ...]
    bodies: tuple[Body, ...]

    def anchor(self, group: int) -> int:
        """The frame index whose pose is group `group`'s frame; -1 for the root."""
        return self.bodies[group - 1].frame if group > 0 else -1


def rigid_groups(scene: Scene) -> RigidGroups:
    group: list[int] = []
    rel: list[Pose] = []
    bodies: list[Body] = []
    for f in scene.frames:  # parents first
        p = parent_index(scene, f)
        up, above = (group[p], rel[p]) if p >= 0 else (0, IDENTITY)
        pre = compose(above, (f.quaternion, f.translation))
        if moves(f):
            bodies.append(Body(len(group), up, pre))
            group.append(len(bodies))
            rel.append(IDENTITY)
        else:
            group.append(up)
            rel.append(pre)
    return RigidGroups(tuple(group), tuple(rel), tuple(bodies))


# --- batched forward kinematics (numpy) ---------------------------------------------------------


def pose_matrix(pose: Pose) -> np.ndarray:
    """A pose as a 4x4 homogeneous matrix."""
    import numpy as np

    m = np.eye(4)
    m[:3, :3] = quat_to_matrix(pose[0])
    m[:3, 3] = pose[1]
    return m


def _motion_terms(const: np.ndarray, kind: str, axis: np.ndarray) -> tuple:
    """A motion's constant times its joint transform, as terms in the joint value: for a
    revolute joint, amino's axis-angle quaternion (x, y, z) = s axis, w gives the rotation
    I + s^2 A2 + s w A1 (A2 = 2 (a a^T - |a|^2 I), A1 = 2 [a]x), so const @ rotation =
    const + s^2 (const @ A2) + s w (const @ A1) (third item: the three, flattened, as rows);
    for a prismatic one, const's translation moves by value * (const's rotation @ axis)
    (second item)."""
    import numpy as np

    a = np.asarray(axis, dtype=float)
    if kind in ("ball", "floating"):  # computed per configuration: multi_dof_locals
        return const, None, None
    if kind != "revolute":
        return const, const[:3, :3] @ a, None
    a2, a1 = np.zeros((4, 4)), np.zeros((4, 4))
    a2[:3, :3] = 2 * (np.outer(a, a) - (a @ a) * np.eye(3))
    a1[:3, :3] = 2 * np.array([[0.0, -a[2], a[1]], [a[2], 0.0, -a[0]], [-a[1], a[0], 0.0]])
    # the three terms as rows, for one product with (1, s^2, s w) per configuration
    return const, None, np.stack([const, const @ a2, const @ a1]).reshape(3, 16)


def axis_rotations(axis: np.ndarray, angles: np.ndarray) -> np.ndarray:
    """Batched (N,4,4) rotations from amino's axis-angle quaternion (axis used as given)."""
    import numpy as np

    s = np.sin(angles / 2)
    return quat_matrices(s * axis[0], s * axis[1], s * axis[2], np.cos(angles / 2))


def multi_dof_locals(kind: str, values: np.ndarray) -> np.ndarray:
    """Batched (N, 4, 4) motions of a ball (values (N, 3): rotation vectors) or floating
    joint (values (N, 6): translation, then rotation vector), after the fixed pose."""
    out = rotvec_matrices(values[:, -3:])
    if kind == "floating":
        out[:, :3, 3] = values[:, :3]
    return out


def variable_index(scene: Scene) -> dict[str, int]:
    """Column of each configuration variable in a configuration array."""
    return {name: i for i, name in enumerate(scene.variables)}


def config_array(scene: Scene, config: dict[str, float] | None) -> np.ndarray:
    """A 1-D configuration vector from a NAME -> value dict (missing names are 0)."""
    import numpy as np

    index = variable_index(scene)
    q = np.zeros(len(index))
    for name, value in (config or {}).items():
        if name in index:
            q[index[name]] = value
    return q


class GroupFK:
    """Forward kinematics by rigid group, built once per scene: only the moving groups' poses
    are computed per configuration; a frame's pose is its group's times a constant."""

    def __init__(self, scene: Scene) -> None:
        import numpy as np

        self.groups = rigid_groups(scene)
        self.n_variables = len(scene.variables)
        index = variable_index(scene)
        # (parent group, constant 4x4, kind, axis, variable column, offset) per moving group;
        # a ball or floating joint: axis 0, its first variable's column (columns: all of them)
        self.motions = []
        self.columns: list[list[int]] = []
        for b in self.groups.bodies:
            f = scene.frames[b.frame]
            columns = [index[n] for n in joint_variables(f)]
            axis = np.zeros(3) if f.is_multi_dof else np.asarray(f.axis, dtype=float)
            self.motions.append((b.parent, pose_matrix(b.base), f.kind, axis, columns[0],
                                 f.offset))
            self.columns.append(columns)
        self.rel = np.array([pose_matrix(r) for r in self.groups.rel]).reshape(-1, 4, 4)
        self.group = np.array(self.groups.group, dtype=np.int64)
        self._one: tuple | None = None  # _group_poses_one's stacked motion data, on first use
        self._terms: list | None = None  # group_poses' per-motion matrices, on first use

    def chain(self, g: int) -> list[int]:
        """The moving groups from group g up to the world (g first; none for the world)."""
        out = []
        while g != 0:
            out.append(g)
            g = self.motions[g - 1][0]
        return out

    def group_poses(self, q: np.ndarray) -> np.ndarray:
        """(N, groups, 4, 4): the world pose of every rigid group (0: the world) for
        configurations q (N, variables)."""
        import numpy as np

        n = q.shape[0]
        if n == 1:
            return self._group_poses_one(q[0].tolist())[None]
        if self._terms is None:
            self._terms = [_motion_terms(const, kind, axis)
                           for _, const, kind, axis, _, _ in self.motions]
        G = np.empty((n, len(self.motions) + 1, 4, 4))
        G[:, 0] = np.eye(4)
        for g, ((pg, _, kind, _, var, offset), (k0, k1, k2)) in enumerate(
                zip(self.motions, self._terms, strict=True), start=1):
            value = q[:, var] + offset
            if k1 is None and k2 is None:  # ball or floating
                local = k0 @ multi_dof_locals(kind, q[:, self.columns[g - 1]])
            elif kind == "revolute":  # const @ rotation = k0 + s^2 k2 + s w k1 (s, w: half angle)
                s, w = np.sin(value / 2), np.cos(value / 2)
                local = (np.stack([np.ones(n), s * s, s * w], axis=1) @ k2).reshape(n, 4, 4)
            else:
                local = np.broadcast_to(k0, (n, 4, 4)).copy()
                local[:, :3, 3] += value[:, None] * k1
            if pg == 0:
                G[:, g] = local
            else:
                np.matmul(G[:, pg], local, out=G[:, g])
        return G

    def _group_poses_one(self, q: list[float]) -> np.ndarray:
        """group_poses for one configuration: every joint's rotation in one vectorised call,
        then one product per group (numpy's per-call overhead dominates at N = 1)."""
        import numpy as np

        if self._one is None:  # per motion: axes (3, G), variable columns, offsets
            axes = np.array([m[3] for m in self.motions], dtype=float).reshape(-1, 3)
            self._one = (axes.T.copy(), [m[4] for m in self.motions],
                         np.array([m[5] for m in self.motions], dtype=float))
        axes, columns, offsets = self._one
        values = np.array([q[c] for c in columns]) + offsets
        turns = axis_rotations(axes, values)
        G = np.empty((len(self.motions) + 1, 4, 4))
        G[0] = np.eye(4)
        for g, (pg, const, kind, axis, *_) in enumerate(self.motions, start=1):
            base = const if pg == 0 else G[pg] @ const
            if kind in ("ball", "floating"):
                own = np.array([[q[c] for c in self.columns[g - 1]]])
                np.matmul(base, multi_dof_locals(kind, own)[0], out=G[g])
            elif kind == "revolute":
                np.matmul(base, turns[g - 1], out=G[g])
            else:
                G[g] = base
                G[g, :3, 3] += base[:3, :3] @ axis * values[g - 1]
        return G

    def frame_poses(self, q: np.ndarray) -> np.ndarray:
        """(N, frames, 4, 4): the world pose of every frame."""
        return self.group_poses(q)[:, self.group] @ self.rel


def fk_batch(scene: Scene, configs: np.ndarray) -> np.ndarray:
    """Absolute transforms for a batch: configs (N, n_vars) -> (N, n_frames, 4, 4)."""
    import numpy as np

    configs = np.atleast_2d(np.asarray(configs, dtype=float))
    return GroupFK(scene).frame_poses(configs)


def fk(scene: Scene, config: dict[str, float] | None = None) -> dict[str, np.ndarray]:
    """Absolute 4x4 transform of every frame at a configuration dict."""
    tfs = fk_batch(scene, config_array(scene, config)[None, :])[0]
    return {f.name: tfs[i] for i, f in enumerate(scene.frames)}


# --- sampling -------------------------------------------------------------------------------

# A revolute axis this close to unit length turns by its angle (amino scales the turn
# otherwise, and the analyses that bound motion by lever arms do not follow that).
UNIT_AXIS_TOLERANCE = 1e-9
HALF_MAX = 8.0e307  # half the largest double: two of them apart is still a finite width


def periodic_variables(scene: Scene) -> tuple[bool, ...]:
    """Per variable of scene.variables: whether it may be wrapped, i.e. every pose of the
    scene repeats when it moves by a full turn (2 pi). True only when every joint it drives
    is revolute about a unit axis (URDF mimic joints share a variable with multiplier +-1,
    so they turn by the same angle): a prismatic joint on the same variable (robray lets
    two joints share one, a URDF prismatic joint may mimic a continuous one) slides further
    with every turn; ball and floating joints' variables are never periodic. The one rule
    the cell tables, the allowed-collision proofs and the samplers wrap by."""
    drives: dict[str, bool] = {}
    for f in scene.frames:
        if not f.is_joint:
            continue
        names = joint_variables(f)
        turns = (f.kind == "revolute" and f.axis is not None
                 and abs(math.sqrt(sum(a * a for a in f.axis)) - 1.0) <= UNIT_AXIS_TOLERANCE)
        for name in names:
            drives[name] = drives.get(name, True) and turns
    return tuple(drives.get(v, False) for v in scene.variables)


def sample_ranges(scene: Scene, sink: DiagnosticSink | None = None, *, strict: bool = True
                  ) -> tuple[np.ndarray, np.ndarray]:
    """(lo, hi) per variable: position limits, else [-pi, pi] (periodic: every angle) or
    [-1, 1] (with an `unbounded-joint` warning); a ball or floating joint's rotation vector
    components [-pi, pi] (every rotation), a floating joint's translation 0 (a rigid move of
    the whole robot changes no self-collision). A periodic variable whose limits' width
    overflows a double (+-1e308) is sampled on [-pi, pi], which loses nothing; any other
    range must have a finite width (else lo + u (hi - lo) is inf or NaN, and every sample
    with it): RangeError, unless not `strict` (a viewer's slider ends): then cut to +-HALF_MAX."""
    import numpy as np

    lo, hi = [], []
    by_var: dict[str, list] = {}  # one pass: a scan per variable was quadratic
    rotations: set[str] = set()
    translations: set[str] = set()
    for f in scene.frames:
        if f.is_multi_dof:
            names = joint_variables(f)
            rotations.update(names[-3:])
            translations.update(names[:-3])
        elif f.is_joint:
            by_var.setdefault(f.variable, []).append(f)
    for var, periodic in zip(scene.variables, periodic_variables(scene), strict=True):
        frames = by_var.get(var, [])
        if var in rotations or (var in translations and not frames):
            lo.append(-math.pi if var in rotations else 0.0)
            hi.append(math.pi if var in rotations else 0.0)
            continue
        limited = [f for f in frames if f.limits.position is not None]
        if limited and len(limited) < len(frames) and periodic:
            # a continuous joint with a limited mimic (URDF): the master turns freely, and
            # the mimic's limits, in its own joint's terms, do not bound the variable
            a, b = -math.pi, math.pi
        elif limited:
            a, b = limited[0].limits.position  # type: ignore[misc]
            a, b = min(a, b), max(a, b)
            if periodic and not math.isfinite(b - a):
                a, b = -math.pi, math.pi
            elif not math.isfinite(b - a) and not strict:  # a slider's ends, not sampled
                a, b = max(a, -HALF_MAX), min(b, HALF_MAX)
            elif not math.isfinite(b - a):
                raise RangeError(f"the limits [{a!r}, {b!r}] of variable '{var}' are too far "
                                 "apart to sample (their width is not a finite number)",
                                 limited[0].pos)
        elif periodic:
            a, b = -math.pi, math.pi
        else:  # a slide (also on a turning joint's variable) has no natural range
            turns = any(f.kind == "revolute" for f in frames)
            a, b = (-math.pi, math.pi) if turns else (-1.0, 1.0)
            if sink is not None and frames:
                sink.warning(f"prismatic variable '{var}' has no position limits: sampled on "
                             f"[{'-pi, pi' if turns else '-1, 1'}]", frames[0].pos,
                             name="unbounded-joint")
        lo.append(a)
        hi.append(b)
    return np.array(lo, dtype=float), np.array(hi, dtype=float)


class RangeError(ValueError):
    """A variable's sampling range that cannot be sampled (its width overflows); pos: the
    limits' frame."""

    def __init__(self, message: str, pos) -> None:
        super().__init__(message)
        self.pos = pos


class SampleStream:
    """The seeded stream of configurations, uniform in sample_ranges, drawn a batch at a time
    (a million samples of a 40-variable robot would be 320 MB at once). A generator's doubles
    come one after another, so batches drawn in turn are the rows of one large draw."""

    def __init__(self, scene: Scene, seed: int) -> None:
        import numpy as np

        self.lo, self.hi = sample_ranges(scene)
        self.seed = seed
        self.rng = np.random.default_rng(seed)

    def draw(self, n: int) -> np.ndarray:
        return self.lo + self.rng.random((n, len(self.lo))) * (self.hi - self.lo)

    def rows(self, start: int, n: int) -> np.ndarray:
        """Rows start .. start+n-1 of the stream, whatever was drawn before: the generator
        (default_rng's PCG64, one 64-bit step a double) advanced to them, not the rows before
        drawn and thrown away."""
        import numpy as np

        bits = np.random.PCG64(self.seed)
        bits.advance(start * len(self.lo))
        return self.lo + np.random.Generator(bits).random((n, len(self.lo))) * (self.hi - self.lo)


def sample_configs(scene: Scene, n: int, seed: int, *, skip: int = 0) -> np.ndarray:
    """Samples skip .. skip+n-1 of the seeded stream generate() uses (uniform in the ranges)."""
    return SampleStream(scene, seed).rows(skip, n)


def lever_arms(fk: GroupFK, centres: np.ndarray, radii: np.ndarray, side: list[int],
               lo: np.ndarray, hi: np.ndarray) -> tuple[np.ndarray, bool]:
    """(len(side), N): how far the points of each ball (centre in the frame of group side[0],
    radius) can move per unit of the variable of each moving group of the chain `side`
    (bottom first): |axis| for a prismatic joint; for a revolute one, the exact distance from
    the axis in the ball's own group, else its reach from the joint's pivot (chain_reaches).
    Also whether every revolute axis is a unit vector (else amino scales the turn: the arms
    bound nothing)."""
    import numpy as np

    c = np.asarray(centres, dtype=float).reshape(-1, 3)
    r = np.asarray(radii, dtype=float)
    reaches = chain_reaches(fk, 0.0, side, lo, hi)  # linear in the reach: add each ball's
    far = np.sqrt((c * c).sum(axis=1)) + r
    out = np.empty((len(side), len(c)))
    unit = True
    for n, g in enumerate(side):
        _, _, kind, axis, _, _ = fk.motions[g - 1]
        norm = float(np.linalg.norm(axis))
        if kind in ("ball", "floating"):  # no one axis: no bound per unit of one variable
            out[n] = math.inf
            unit = False
            continue
        if kind != "revolute":
            out[n] = norm
            continue
        unit &= abs(norm - 1.0) <= 1e-9
        if n == 0:  # about an axis through the group's origin
            out[n] = np.sqrt((np.cross(c, np.asarray(axis, dtype=float) / norm) ** 2)
                             .sum(axis=1)) + r
        else:
            out[n] = far + reaches[n]
    return out, unit


def chain_reaches(fk: GroupFK, reach: float, side: list[int], lo: np.ndarray | None = None,
                  hi: np.ndarray | None = None) -> list[float]:
    """Per moving group of a chain (bottom first): how far points within `reach` of the
    bottom group's origin can lie from the point the group's joint turns about or slides from
    (fixed in its parent group), with the joints below anywhere (prismatic ones within
    [lo, hi]; unbounded, so infinite, without ranges)."""
    import numpy as np

    out = []
    for g in side:
        _, const, kind, axis, var, offset = fk.motions[g - 1]
        if kind == "floating":  # translation without bound
            reach = math.inf
        elif kind == "ball":  # turns about its origin: no farther from it
            pass
        elif kind != "revolute":
            reach += (float(np.linalg.norm(axis)) * max(abs(lo[var] + offset),
                                                        abs(hi[var] + offset))
                      if lo is not None and hi is not None else math.inf)
        out.append(reach)
        reach += float(np.linalg.norm(const[:3, 3]))
    return out

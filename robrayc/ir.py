"""The scene-graph IR: immutable, typed, position-carrying records (robrayc.records).

Every front end (robray, URDF, xacro, MJCF, SDF, JSON, cs2 board) lowers to a :class:`Scene`;
every backend and analysis reads one. Numbers are plain Python floats (exact doubles); vectors
are tuples.
Poses are computed in ``kinematics.py`` (pure Python; numpy only in its batched functions, so
a C compile never imports numpy).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping

# typing costs a C compile ~3 ms of start-up: its names exist for type checkers only. (Every
# dataclass has a docstring: dataclasses would otherwise write one with inspect.signature.)
from typing import TYPE_CHECKING

from robrayc.diagnostics import NOWHERE, SourcePos
from robrayc.records import field, record

if TYPE_CHECKING:
    from typing import Literal, TypeVar

    T = TypeVar("T")
    JointKind = Literal["fixed", "revolute", "prismatic", "ball", "floating"]
    # What a frame is to the robot link it belongs to (see Frame.link): the link's own frame
    # (the joint placing the link), or a frame made for one of the link's visual / collision
    # shapes or its inertia (URDF import's `LINK-visual`, `LINK-collision`, `LINK-inertial`).
    LinkRole = Literal["link", "visual", "collision", "inertial"]
Vec2 = tuple[float, float]
Vec3 = tuple[float, float, float]
Quat = tuple[float, float, float, float]  # x, y, z, w (scalar last, as amino)

IDENTITY_Q: Quat = (0.0, 0.0, 0.0, 1.0)
ZERO_V: Vec3 = (0.0, 0.0, 0.0)

LINK_ROLES: tuple[str, ...] = ("link", "visual", "collision", "inertial")

JOINT_KINDS: tuple[str, ...] = ("fixed", "revolute", "prismatic", "ball", "floating")
# Joints of more than one degree of freedom: the suffixes that make their scalar variables of
# the frame's one base variable name (translation in m, then rotation vector axis * angle in
# rad; see joint_variables and kinematics.local_pose).
MULTI_DOF_SUFFIXES: dict[str, tuple[str, ...]] = {
    "ball": ("_rx", "_ry", "_rz"),
    "floating": ("_x", "_y", "_z", "_rx", "_ry", "_rz"),
}


# --- shapes ---------------------------------------------------------------------------------
# Placement (amino convention): box and sphere centred on the frame origin; cylinder and cone
# from the origin along +Z for `height`; grid in the frame's XY plane.


@record(frozen=True, slots=True)
class Box:
    """A box of `dimension` (x, y, z), centred on its frame."""

    dimension: Vec3


@record(frozen=True, slots=True)
class Sphere:
    """A sphere centred on its frame."""

    radius: float


@record(frozen=True, slots=True)
class Cylinder:
    """A cylinder from its frame along +Z."""

    height: float
    radius: float


@record(frozen=True, slots=True)
class Cone:
    """A (truncated) cone from its frame along +Z."""

    height: float
    start_radius: float
    end_radius: float


@record(frozen=True, slots=True)
class Grid:
    """A grid in its frame's XY plane."""

    dimension: Vec2
    delta: Vec2
    thickness: float


@record(frozen=True, slots=True)
class Mesh:
    """A mesh file. `path` is as resolved (absolute where the file was found); `source` is the
    text the scene gave (e.g. a package:// URI). `scale3` is a per-axis scale applied to the
    vertices on top of the geometry's scalar `scale` (URDF allows non-uniform scale).

    The file's conventions are fixed at load time (-U, -F, --collada-up-axis), so every
    backend reads the same triangles (robrayc.meshes.load_mesh(mesh)): `up` and `forward` are
    the file axes (signed: "-Z") that become +Z and +Y when the file declares no up axis;
    `collada_up` says whether a COLLADA file's <up_axis> is "honour"ed or "ignore"d. The file
    itself is read only by what needs its triangles."""

    path: str
    source: str = ""
    scale3: Vec3 = (1.0, 1.0, 1.0)
    up: str = "Z"
    forward: str = "Y"
    collada_up: Literal["honour", "ignore"] = "honour"


Shape = Box | Sphere | Cylinder | Cone | Grid | Mesh

SHAPE_NAMES: dict[type, str] = {
    Box: "box", Sphere: "sphere", Cylinder: "cylinder", Cone: "cone", Grid: "grid", Mesh: "mesh",
}


def shape_name(shape: Shape) -> str:
    return handler(SHAPE_NAMES, shape)


def handler(table: Mapping[type, T], shape: Shape) -> T:
    """Shape dispatch: the table's entry for the shape's class. Every backend and analysis
    keeps a table (shape class -> function or value) so that an unknown shape raises here,
    never falls through to a default (a mesh)."""
    try:
        return table[type(shape)]
    except KeyError:
        raise TypeError(f"no handler for shape {type(shape).__name__}") from None


DEFAULT_COLOR: Vec3 = (0.8, 0.8, 0.8)


@record(frozen=True, slots=True)
class Geometry:
    """One shape on a frame, with its colour and options."""

    shape: Shape
    color: Vec3 = DEFAULT_COLOR
    alpha: float = 1.0
    specular: Vec3 = ZERO_V
    visual: bool = True
    collision: bool = True
    no_shadow: bool = False
    scale: float = 1.0
    tags: tuple[str, ...] = ()  # class names from `isa`, in order, transitive, no duplicates
    pos: SourcePos = NOWHERE
    material: str | None = None  # the robot description's material name (URDF), if any


# --- frames ---------------------------------------------------------------------------------


@record(frozen=True, slots=True)
class Limits:
    """Joint limits as (min, max) pairs; None where unknown."""

    position: tuple[float, float] | None = None
    velocity: tuple[float, float] | None = None
    acceleration: tuple[float, float] | None = None
    effort: tuple[float, float] | None = None

    def is_empty(self) -> bool:
        return (self.position is None and self.velocity is None
                and self.acceleration is None and self.effort is None)


NO_LIMITS = Limits()


@record(frozen=True, slots=True)
class Inertial:
    """Mass and the symmetric 3x3 inertia tensor (column-major, 9 values) at the frame origin."""

    mass: float
    inertia: tuple[float, ...]  # 9 values, column-major (symmetric, so also row-major)


@record(frozen=True, slots=True)
class Frame:
    """A named frame: fixed, or a joint moved by `variable`, with its geometry."""

    name: str
    parent: str | None = None  # None: child of the scene root (Scene.root)
    kind: JointKind = "fixed"
    translation: Vec3 = ZERO_V
    quaternion: Quat = IDENTITY_Q  # unit, x y z w
    axis: Vec3 | None = None  # revolute and prismatic joints only
    offset: float = 0.0
    # joints only; the configuration variable name (of a ball or floating joint, the base of
    # its variables' names: joint_variables)
    variable: str | None = None
    limits: Limits = NO_LIMITS
    inertial: Inertial | None = None
    geometries: tuple[Geometry, ...] = ()
    tags: tuple[str, ...] = ()  # frame-level `isa`
    pos: SourcePos = NOWHERE
    # Robot identity (URDF): the link this frame stands for (role "link": the frame of the
    # joint, named after the joint, whose child is the link) or holds a part of.
    link: str | None = None
    link_role: LinkRole = "link"

    @property
    def is_joint(self) -> bool:
        return self.kind != "fixed"

    @property
    def is_multi_dof(self) -> bool:
        """A ball or floating joint: several scalar variables, no axis, no limits."""
        return self.kind in MULTI_DOF_SUFFIXES


def joint_variables(frame: Frame) -> tuple[str, ...]:
    """The frame's scalar configuration variables: () for a fixed frame (or a joint without a
    variable), (v,) for a revolute or prismatic one, v_rx v_ry v_rz for a ball (rotation
    vector), v_x v_y v_z v_rx v_ry v_rz for a floating joint (translation, then rotation)."""
    v = frame.variable
    if not frame.is_joint or v is None:
        return ()
    suffixes = MULTI_DOF_SUFFIXES.get(frame.kind)
    return (v,) if suffixes is None else tuple(v + s for s in suffixes)


@record(frozen=True, slots=True)
class AllowedCollision:
    """A pair of frames allowed to collide (allow_collision)."""

    a: str  # a < b
    b: str
    pos: SourcePos = NOWHERE


@record(frozen=True, slots=True)
class Scene:
    """A validated scene: frames parents-first (siblings in source order), no cycles, every
    parent a frame of the scene or None, allowed pairs sorted and naming known frames.

    `root` names the frame outside the scene that top-level frames (parent None) hang from
    (--root; frames naming it as parent are top-level); None: the world (amino's root)."""

    frames: tuple[Frame, ...]
    allowed: tuple[AllowedCollision, ...] = ()
    sources: tuple[str, ...] = ()  # every file read (inputs, includes, URDFs, meshes)
    root: str | None = None
    robot_name: str | None = None  # the robot description's name (URDF <robot name>)
    root_link: str | None = None  # the robot's root link (its frames have parent None)
    _index: dict[str, int] = field(default_factory=dict, compare=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_index", {f.name: i for i, f in enumerate(self.frames)})

    def frame(self, name: str) -> Frame:
        return self.frames[self._index[name]]

    def has_frame(self, name: str) -> bool:
        return name in self._index

    def index(self, name: str) -> int:
        return self._index[name]

    @property
    def variables(self) -> tuple[str, ...]:
        """Scalar configuration variables in frame order, each once (a ball or floating joint
        gives several: joint_variables)."""
        seen: dict[str, None] = {}
        for f in self.frames:
            for name in joint_variables(f):
                seen.setdefault(name, None)
        return tuple(seen)

    def children(self, name: str | None) -> tuple[Frame, ...]:
        return tuple(f for f in self.frames if f.parent == name)


def unique_name(base: str, taken: set[str], sep: str = "-",
                also: Collection[str] = ()) -> str:
    """`base`, else base-2, base-3, ... : the first name not in `taken` (which gets it), nor
    in `also` (names an input has yet to claim)."""
    name, k = base, 1
    while name in taken or name in also:
        k += 1
        name = f"{base}{sep}{k}"
    taken.add(name)
    return name


def walk_geometries(scene: Scene):
    """Yield (frame, geometry) for every geometry, in frame order."""
    for f in scene.frames:
        for g in f.geometries:
            yield f, g

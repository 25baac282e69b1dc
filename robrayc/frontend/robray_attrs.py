"""robray attributes: their schema (names, kinds, which blocks take them), the resolved
blocks (`Block`, `ClassDef`), and the lowering of a frame's and a geometry's attributes to IR
(`AttributeLowering`, mixed into the loader in robray.py)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from robrayc import ir, records
from robrayc.diagnostics import SourcePos, suggest
from robrayc.frontend.fold import NUM, STR, SYM, VEC, FoldError, node_pos
from robrayc.frontend.frames import checked_axis, checked_quaternion
from robrayc.frontend.tree import Node
from robrayc.kinematics import rpy_to_quat
from robrayc.records import field, record

if TYPE_CHECKING:
    from collections.abc import Callable

# --- attribute schema -------------------------------------------------------------------------

# name -> (kind, allowed array lengths)
ATTR_TYPES: dict[str, tuple[str, tuple[int, ...]]] = {
    "parent": (SYM, ()), "translation": (VEC, (3,)), "quaternion": (VEC, (4,)),
    "rpy": (VEC, (3,)), "type": (SYM, ()), "axis": (VEC, (3,)), "offset": (NUM, ()),
    "variable": (SYM, ()), "isa": (SYM, ()),
    "limit_position": (VEC, (2,)), "limit_velocity": (NUM, (2,)),
    "limit_acceleration": (NUM, (2,)), "limit_effort": (NUM, (2,)),
    "mass": (NUM, ()), "inertia": (VEC, (6, 9)),
    "shape": (SYM, ()), "mesh": (STR, ()), "dimension": (VEC, (2, 3)), "radius": (NUM, ()),
    "height": (NUM, ()), "start_radius": (NUM, ()), "end_radius": (NUM, ()),
    "delta": (VEC, (2,)), "thickness": (NUM, ()), "color": (VEC, (3,)), "alpha": (NUM, ()),
    "specular": (VEC, (3,)), "scale": (NUM, (3,)), "visual": (NUM, ()), "collision": (NUM, ()),
    "no-shadow": (NUM, ()),
    # robot identity (URDF): see docs/language-extensions.md
    "link": (SYM, ()), "link_role": (SYM, ()), "robot": (SYM, ()), "root_link": (SYM, ()),
    "material": (SYM, ()),
}
ALIASES = {"no_shadow": "no-shadow"}
FRAME_ATTRS = frozenset({
    "parent", "translation", "quaternion", "rpy", "type", "axis", "offset", "variable", "isa",
    "limit_position", "limit_velocity", "limit_acceleration", "limit_effort", "mass", "inertia",
    "link", "link_role", "robot", "root_link",
})
GEOM_ATTRS = frozenset({
    "shape", "mesh", "dimension", "radius", "height", "start_radius", "end_radius", "delta",
    "thickness", "color", "alpha", "specular", "scale", "visual", "collision", "no-shadow", "isa",
    "material",
})
# a class shares attributes; a variable or a robot link belongs to one frame only
CLASS_ATTRS = (FRAME_ATTRS | GEOM_ATTRS) - {"variable", "link", "link_role", "robot",
                                            "root_link"}
JOINT_TYPES = ir.JOINT_KINDS
SHAPES = ("box", "sphere", "cylinder", "cone", "grid")

Value = float | tuple[float, ...] | str


@record
class Block:
    """Resolved attributes of a class, frame or geometry block (own attributes + classes)."""

    values: dict[str, Value] = field(default_factory=dict)
    # name -> the `attr` statement and its file: the value's position is found from it only
    # when a message needs it (positions cost time)
    sources: dict[str, tuple[Node, str]] = field(default_factory=dict)
    # Direct isa names with the class each named when written (None: not declared then).
    # The transitive tag list is computed on demand: eager lists cost O(n^2) on isa chains.
    isa: list[tuple[str, ClassDef | None]] = field(default_factory=list)

    @property
    def tags(self) -> tuple[str, ...]:
        """isa names, transitive, in order (each class's own tags right after its name)."""
        if len(self.isa) == 1 and self.isa[0][1] is not None:
            return self.isa[0][1].closure()  # shared, not copied, by every user of the class
        out: dict[str, None] = {}
        for name, cdef in self.isa:
            out[name] = None
            if cdef is not None:
                out.update(dict.fromkeys(cdef.closure()))
        return tuple(out)

    def pos(self, name: str, default: SourcePos) -> SourcePos:
        """Where attribute `name`'s value is written (`default` when it is not)."""
        source = self.sources.get(name)
        return default if source is None else node_pos(source[0].children[1], source[1])

    def position_finder(self, name: str) -> Callable[[], SourcePos]:
        """What finds where attribute `name` is written, when asked."""
        return lambda: self.pos(name, SourcePos(self.sources[name][1]))


@record
class ClassDef:
    """A class: its resolved attributes, frozen when defined."""

    name: str
    block: Block
    pos: SourcePos
    _closure: tuple[str, ...] | None = None

    def closure(self) -> tuple[str, ...]:
        """This class's name, then its tags; memoised. Iterative (a 10,000-long isa chain
        must not hit the recursion limit): a pre-order walk over (name, class) edges."""
        if self._closure is None:
            out: dict[str, None] = {}
            seen: set[int] = set()
            stack: list[tuple[str, ClassDef | None]] = [(self.name, self)]
            while stack:
                name, cdef = stack.pop()
                out[name] = out.get(name)
                if cdef is None or id(cdef) in seen:
                    continue  # a class seen before had its whole subtree emitted then
                seen.add(id(cdef))
                if cdef._closure is not None:
                    out.update(dict.fromkeys(cdef._closure))
                    continue
                stack.extend(reversed(cdef.block.isa))
            self._closure = tuple(out)
        return self._closure


# --- lowering -----------------------------------------------------------------------------
class AttributeLowering:
    """A frame's and a geometry's resolved attributes -> IR. Mixed into the robray loader
    (robray._Unit), whose `sink`, `ctx`, `top`, `partial`, `symbols` and `_block` it uses."""

    def _lower_frame(self, name: str, parent: str | None, block: Block,
                     geometries: tuple[ir.Geometry, ...], pos: SourcePos) -> ir.Frame | None:
        get = block.values.get
        kind = str(get("type") or "fixed")
        if kind not in JOINT_TYPES:
            self.sink.error(f"unknown joint type '{kind}' in frame '{name}'",
                            block.pos("type", pos), suggest(kind, JOINT_TYPES)
                            or "joint types are " + ", ".join(JOINT_TYPES))
            return None
        q = self._orientation(block, pos)
        v = get("translation") or ir.ZERO_V
        axis = None
        variable = None
        if kind in ("revolute", "prismatic"):
            axis = self._axis(name, kind, block, pos)
            if axis is None:
                return None
            variable = str(get("variable") or name)
        else:
            self._unused_joint_attributes(name, kind, block, pos)
            variable = None if kind == "fixed" else str(get("variable") or name)
        return ir.Frame(
            name=name, parent=parent, kind=kind, translation=v, quaternion=q, axis=axis,
            offset=get("offset", 0.0) if axis is not None else 0.0,
            variable=variable,
            limits=self._limits(block, pos) if axis is not None else ir.NO_LIMITS,
            inertial=self._inertial(block, pos), geometries=geometries,
            tags=tuple(block.tags), pos=pos, **self._identity(name, parent, block, pos))

    def _unused_joint_attributes(self, name: str, kind: str, block: Block, pos: SourcePos
                                 ) -> None:
        """Warn of the joint attributes a fixed frame (all) or a ball or floating joint (all
        but `variable`: no axis, offset or limits) ignores."""
        keys = ["axis", "offset", "limit_position", "limit_velocity", "limit_acceleration",
                "limit_effort"] + (["variable"] if kind == "fixed" else [])
        hint = ("set 'type revolute;' or 'type prismatic;' to make it a joint" if kind == "fixed"
                else f"a {kind} joint has no axis, offset or limits (its variables are a "
                "rotation vector" + (" after a translation)" if kind == "floating" else ")"))
        for key in keys:
            if key in block.values:
                self.sink.warning(f"'{key}' has no effect on {kind} frame '{name}'",
                                  block.pos(key, pos), hint, name="unused-attribute")

    def _identity(self, name: str, parent: str | None, block: Block, pos: SourcePos) -> dict:
        """`link`, `link_role` (the frame's robot link), and on a top-level frame `robot`
        and `root_link` (the scene's robot name and root link)."""
        role = str(block.values.get("link_role") or "link")
        if role not in ir.LINK_ROLES:
            self.sink.error(f"unknown link_role '{role}' in frame '{name}'",
                            block.pos("link_role", pos), suggest(role, ir.LINK_ROLES)
                            or "link roles are " + ", ".join(ir.LINK_ROLES))
            role = "link"
        link = block.values.get("link")
        if "link_role" in block.values and link is None:
            self.sink.warning(f"'link_role' without 'link' in frame '{name}' has no effect",
                              block.pos("link_role", pos), name="unused-attribute")
        for key in ("robot", "root_link"):
            if key in block.values and parent is not None:
                self.sink.warning(f"'{key}' is read on top-level frames only",
                                  block.pos(key, pos), name="unused-attribute")
            elif key in block.values:
                field_name = "robot_name" if key == "robot" else key
                if getattr(self.partial, field_name) is None:
                    setattr(self.partial, field_name, str(block.values.get(key)))
        return {"link": None if link is None else str(link), "link_role": role}

    def _orientation(self, block: Block, pos: SourcePos) -> ir.Quat:
        q = block.values.get("quaternion")
        if q is not None:  # quaternion wins over rpy, as in the original
            unit = checked_quaternion(q, *self._reporters(block, "quaternion", pos))
            return ir.IDENTITY_Q if unit is None else unit
        rpy = block.values.get("rpy")
        if rpy is not None:
            return rpy_to_quat(*rpy)
        return ir.IDENTITY_Q

    def _reporters(self, block: Block, name: str, pos: SourcePos):
        """(error, warning) reporters at attribute `name` for frontend.frames (the position is
        looked up only when a problem is reported: the common case costs nothing)."""
        return (lambda message, hint=None: self.sink.error(message, block.pos(name, pos), hint),
                lambda message, hint=None: self.sink.warning(message, block.pos(name, pos), hint,
                                                             name="unnormalized"))

    def _axis(self, name: str, kind: str, block: Block, pos: SourcePos) -> ir.Vec3 | None:
        axis = block.values.get("axis")
        if axis is None:
            self.sink.error(f"{kind} frame '{name}' has no 'axis'", pos,
                            "add e.g. 'axis [0, 0, 1];'")
            return None
        return checked_axis(axis, f"{kind} frame '{name}'", *self._reporters(block, "axis", pos),
                            normalise=kind == "revolute")

    def _limits(self, block: Block, pos: SourcePos) -> ir.Limits:
        out = {}
        for key in ("position", "velocity", "acceleration", "effort"):
            value = block.values.get("limit_" + key)
            if value is None:
                continue
            if isinstance(value, float):
                lo, hi = -abs(value), abs(value)
            else:
                lo, hi = value
            if lo > hi:
                self.sink.error(f"limit_{key}: minimum {lo!r} is above maximum {hi!r}",
                                block.pos("limit_" + key, pos))
            out[key] = (lo, hi)
        return ir.Limits(**out) if out else ir.NO_LIMITS

    def _inertial(self, block: Block, pos: SourcePos) -> ir.Inertial | None:
        mass = block.values.get("mass")
        inertia = block.values.get("inertia")
        if mass is None and inertia is None:
            return None
        if inertia is None:
            inertia = (0.0,) * 6
        if len(inertia) == 6:  # ixx ixy ixz iyy iyz izz, as URDF
            ixx, ixy, ixz, iyy, iyz, izz = inertia
            inertia = (ixx, ixy, ixz, ixy, iyy, iyz, ixz, iyz, izz)
        elif any(inertia[i] != inertia[j] for i, j in ((1, 3), (2, 6), (5, 7))):
            self.sink.error("inertia matrix is not symmetric", block.pos("inertia", pos))
        return ir.Inertial(_num(mass, 0.0), tuple(inertia))

    # --- geometry -----------------------------------------------------------------------------
    def _geometry(self, node: Node, file: str, frame: str) -> ir.Geometry | None:
        kw = node.children[0]
        pos = kw.pos(file)
        block = self._block(node.children[1:], file, GEOM_ATTRS, "geometry", last_isa_wins=True)
        shape = self._shape(block, pos, frame, file)
        if shape is None:
            return None
        get = block.values.get  # values are floats, tuples of floats or strings
        scale = get("scale", 1.0)
        if isinstance(scale, tuple):  # per-axis scale (as URDF): meshes only
            if not isinstance(shape, ir.Mesh):
                self.sink.error("a per-axis scale [x, y, z] needs a mesh", block.pos("scale", pos),
                                "other shapes take one number, or scale their dimensions")
                return None
            shape = records.replace(shape, scale3=tuple(
                a * b for a, b in zip(shape.scale3, scale, strict=True)))
            scale = 1.0
        material = get("material")
        return ir.Geometry(
            shape=shape, color=get("color") or ir.DEFAULT_COLOR, alpha=get("alpha", 1.0),
            specular=get("specular") or ir.ZERO_V, visual=get("visual", 1.0) != 0,
            collision=get("collision", 1.0) != 0, no_shadow=get("no-shadow", 0.0) != 0,
            scale=scale, tags=tuple(block.tags), pos=pos,
            material=None if material is None else str(material))

    def _need(self, block: Block, key: str, shape: str, pos: SourcePos, n: int = 0):
        value = block.values.get(key)
        if value is None:
            self.sink.error(f"{shape} geometry needs '{key}'", pos)
            raise FoldError
        if n and len(value) != n:
            self.sink.error(f"'{key}' of a {shape} needs {n} values, got {len(value)}",
                            block.pos(key, pos))
            raise FoldError
        return value

    def _shape(self, block: Block, pos: SourcePos, frame: str, file: str) -> ir.Shape | None:
        mesh = block.values.get("mesh")
        shape = block.values.get("shape")
        if shape is None and mesh is None:
            self.sink.error(f"no shape or mesh in geometry of frame '{frame}'", pos,
                            "add 'shape box;' (or sphere, cylinder, cone, grid) "
                            "or 'mesh \"file\";'")
            return None
        if shape is None or (mesh is not None and shape == "mesh"):
            return self._mesh(str(mesh), block.pos("mesh", pos), file)
        shape = str(shape)
        try:
            if shape == "box":
                dim = self._need(block, "dimension", "box", pos, 3)
                self._nonnegative(dim, "dimension", block, pos)
                return ir.Box(dim)
            if shape == "sphere":
                return ir.Sphere(self._nonnegative(self._need(block, "radius", shape, pos),
                                                   "radius", block, pos))
            if shape == "cylinder":
                return ir.Cylinder(self._need(block, "height", shape, pos),
                                   self._nonnegative(self._need(block, "radius", shape, pos),
                                                     "radius", block, pos))
            if shape == "cone":
                return ir.Cone(self._need(block, "height", shape, pos),
                               self._need(block, "start_radius", shape, pos),
                               self._need(block, "end_radius", shape, pos))
            if shape == "grid":
                dim = self._need(block, "dimension", "grid", pos, 2)
                return ir.Grid(dim, self._need(block, "delta", "grid", pos, 2),
                               self._need(block, "thickness", "grid", pos))
        except FoldError:
            return None
        spos = block.pos("shape", pos)
        if shape == "mesh":
            self.sink.error("'shape mesh' needs a file", spos, "write 'mesh \"file.stl\";'")
        else:
            self.sink.error(f"unknown shape '{shape}'", spos,
                            suggest(shape, SHAPES) or "shapes are " + ", ".join(SHAPES))
        return None

    def _nonnegative(self, value, key: str, block: Block, pos: SourcePos):
        values = value if isinstance(value, tuple) else (value,)
        if any(v < 0 for v in values):
            self.sink.error(f"'{key}' must not be negative", block.pos(key, pos))
            raise FoldError
        return value

    def _mesh(self, name: str, pos: SourcePos, file: str) -> ir.Shape | None:
        """Relative to the naming file, then the top-level file's directory (the original);
        `package://PKG/...` through --package-path and ROS_PACKAGE_PATH."""
        if name.startswith("package://"):
            found = self.ctx.resolve_package_uri(name)
            if found is None and not self.ctx.options.need_meshes:
                return self.ctx.mesh_shape(name, name, pos)
            if found is None:
                pkg = name[len("package://"):].partition("/")[0]
                self.sink.error(f"package '{pkg}' of mesh '{name}' not found", pos,
                                "set ROS_PACKAGE_PATH or use --package-path NAME=DIR")
                return None
            return self.ctx.mesh_shape(str(found), name, pos)
        path = Path(name)
        here = Path(file).parent / path
        if path.is_absolute() or os.path.exists(here):
            resolved = path if path.is_absolute() else here
        elif os.path.exists(self.top.parent / path):
            resolved = self.top.parent / path
            self.sink.warning(f"mesh '{name}' found relative to the top-level file, not the "
                              "file naming it", pos, name="mesh-path-fallback")
        else:
            resolved = here
        return self.ctx.mesh_shape(str(resolved), name, pos)


def _num(value, default: float) -> float:
    return default if value is None else float(value)

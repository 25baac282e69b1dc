"""robray files -> IR frames: include resolution, constant folding, classes, lowering.

Semantics follow the original (see README "The robray language"): defs, classes and frames are
processed in file order, an include inserts the file at that point (once per input), classes
are frozen when defined. Attribute precedence: a block's own attributes (last wins), then its
classes: for geometry and classes the LAST `isa` wins, for frame-level `isa` the FIRST wins.
"""

from __future__ import annotations

import dataclasses
import math
import os
from dataclasses import dataclass, field
from pathlib import Path

from robrayc import ir
from robrayc.diagnostics import DiagnosticSink, SourcePos, suggest
from robrayc.frontend.common import LoadContext, Partial, PendingFrame
from robrayc.frontend.fold import POISONED, FoldError, Poisoned, fold, node_pos
from robrayc.frontend.frames import checked_axis, checked_quaternion
from robrayc.frontend.parse import Node, Tok, decode, parse
from robrayc.kinematics import rpy_to_quat

# --- attribute schema -------------------------------------------------------------------------
NUM, VEC, SYM, STR = "number", "array", "name", "string"

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
    # robot identity (URDF): see README "Robot identity"
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
JOINT_TYPES = ("fixed", "revolute", "prismatic")
SHAPES = ("box", "sphere", "cylinder", "cone", "grid")

Value = float | tuple[float, ...] | str


class Attr:
    """An evaluated attribute; its source position is computed only when a message needs it."""

    __slots__ = ("value", "node", "file")

    def __init__(self, value: Value, node: Node, file: str) -> None:
        self.value, self.node, self.file = value, node, file

    @property
    def pos(self) -> SourcePos:
        return node_pos(self.node, self.file)


@dataclass
class Block:
    """Resolved attributes of a class, frame or geometry block (own attributes + classes)."""

    attrs: dict[str, Attr] = field(default_factory=dict)
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

    def get(self, name: str) -> Value | None:
        a = self.attrs.get(name)
        return None if a is None else a.value

    def pos(self, name: str, default: SourcePos) -> SourcePos:
        a = self.attrs.get(name)
        return default if a is None else a.pos


@dataclass
class ClassDef:
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


class _Unit:
    """One top-level input file and everything it includes: one def/class namespace."""

    def __init__(self, ctx: LoadContext, top: Path) -> None:
        self.ctx = ctx
        self.symbols = ctx.symbols  # None unless the language server asks (one test per hook)
        self.sink: DiagnosticSink = ctx.sink
        self.top = top
        self.env: dict[str, float] = {}
        self.def_pos: dict[str, SourcePos] = {}
        self.classes: dict[str, ClassDef] = {}
        self.loaded: set[str] = set()
        self.undeclared: set[str] = set()  # undeclared classes already warned about
        self.partial = Partial()

    # --- files and includes ----------------------------------------------------------------
    def run(self) -> Partial:
        self._load_file(self.top, chain=())
        return self.partial

    def _load_file(self, path: Path, chain: tuple[tuple[str, SourcePos], ...],
                   at: SourcePos | None = None) -> None:
        real = os.path.realpath(path)
        if real in self.loaded:
            return  # a file is read once per input, later includes are no-ops
        file = str(path)
        data = self.ctx.read_source(path, at)
        if data is None:
            return
        self.loaded.add(real)
        text = decode(data, file, self.sink)
        if text is None:  # the error's line is shown from the file as read, bad bytes replaced
            self.ctx.sources.add(file, data.decode("utf-8", "replace"))
            return
        self.ctx.sources.add(file, text)
        if self.symbols is not None:
            self.symbols.begin_file(real, file, text)
        tree = parse(text, file, self.sink)
        if self.symbols is not None:
            self.symbols.end_file(real, tree is not None)
        if tree is None:
            return
        if not tree.children and not chain:
            # the original reads it as an empty scene, and projects commit such files (an
            # empty list of allowed collisions): a warning, not an error
            self.sink.warning("empty scene file: no statements", SourcePos(file, 1, 1, 1, 2),
                              name="empty-scene")
            return
        chain = chain + ((real, at or SourcePos(file)),)
        for stmt in tree.children:
            kind = stmt.data
            try:
                if kind == "include":
                    self._include(stmt, path, chain)
                elif kind == "def_stmt":
                    self._def(stmt, file)
                elif kind == "class_stmt":
                    self._class(stmt, file)
                elif kind == "frame":
                    self._frame(stmt, file, None)
                elif kind == "allow":
                    self._allow(stmt, file)
            except FoldError:
                pass  # already reported; go on with the next statement

    def _include(self, stmt: Node, includer: Path, chain) -> None:
        tok = stmt.children[0]
        file = str(includer)
        pos = tok.pos(file)
        name = str(tok)[1:-1]
        target = resolve_include(name, includer, self.ctx.include_path())
        if self.symbols is not None:
            self.symbols.include(tok, name, file, target and os.path.realpath(target))
        if target is None:
            searched = [str(includer.parent)] + [str(d) for d in self.ctx.include_path()]
            self.sink.error(f"cannot find include file '{name}'", pos,
                            "searched: " + ", ".join(searched))
            return
        real = os.path.realpath(target)
        for i, (done, _) in enumerate(chain):
            if done == real:
                cycle = [os.path.relpath(c[0]) for c in chain[i:]] + [os.path.relpath(real)]
                notes = tuple((p, "included from here") for _, p in chain[i + 1:])
                self.sink.error("include cycle: " + " -> ".join(cycle), pos, notes=notes)
                return
        self.ctx.note_dependency(str(target))
        self._load_file(target, chain, pos)

    # --- defs and classes -------------------------------------------------------------------
    def _def(self, stmt: Node, file: str) -> None:
        tok, expr = stmt.children
        name = str(tok)
        pos = tok.pos(file)
        if self.symbols is not None:
            self.symbols.expression(expr, file)
        try:
            value = fold(expr, self.env, file, self.sink)
        except FoldError:
            self.env[name] = POISONED  # later uses fail quietly: one error, not one per use
            self.def_pos[name] = pos
            if self.symbols is not None:
                self.symbols.define("def", tok, name, file)
            raise
        if self.symbols is not None:
            self.symbols.define("def", tok, name, file, value)
        if name in self.env and not isinstance(self.env[name], Poisoned):
            self.sink.warning(f"redefinition of '{name}' shadows the earlier value", pos,
                              notes=((self.def_pos[name], "previous definition is here"),),
                              name="shadow")
        self.env[name] = value
        self.def_pos[name] = pos

    def _class(self, stmt: Node, file: str) -> None:
        tok = stmt.children[0]
        name = str(tok)
        pos = tok.pos(file)
        if name in self.classes:
            self.sink.error(f"duplicate class '{name}'", pos,
                            notes=((self.classes[name].pos, "first defined here"),))
            return
        block = self._block(stmt.children[1:], file, CLASS_ATTRS, "class", last_isa_wins=True)
        if self.symbols is not None:
            self.symbols.define("class", tok, name, file)
        self.classes[name] = ClassDef(name, block, pos)

    def _block(self, items, file: str, allowed: frozenset[str], context: str,
               last_isa_wins: bool) -> Block:
        """Evaluate a block's attributes, then merge in its classes by precedence."""
        block = Block()
        isa: list[tuple[str, SourcePos]] = []
        for item in items:
            if not isinstance(item, Node) or item.data != "attr":
                continue
            name_tok, value = item.children
            name = ALIASES.get(name_tok.value, name_tok.value)
            if self.symbols is not None:
                self._record_attribute(name_tok, value, file, context)
            if name not in allowed:
                self._unknown_attr(name, _tok_pos(name_tok, file), allowed, context)
                continue
            try:
                val = self._value(name, value, file)
            except FoldError:
                continue
            if name == "isa":
                isa.append((str(val), _tok_pos(name_tok, file)))
            else:
                block.attrs[name] = Attr(val, value, file)
        order = reversed(isa) if last_isa_wins else iter(isa)
        for cname, cpos in order:
            cdef = self.classes.get(cname)
            if cdef is None:
                if cname in self.undeclared:
                    continue
                self.undeclared.add(cname)
                self.sink.warning(f"class '{cname}' is not declared; kept as a tag only", cpos,
                                  suggest(cname, self.classes), name="undeclared-class")
                continue
            for key, attr in cdef.block.attrs.items():
                block.attrs.setdefault(key, attr)
        block.isa = [(cname, self.classes.get(cname)) for cname, _ in isa]
        return block

    def _record_attribute(self, key: Tok, value: Node, file: str, context: str) -> None:
        target = None
        if key.value == "isa" and value.data in ("ident", "string"):
            cname = value.children[0].value
            cname = cname[1:-1] if value.data == "string" else cname
            if cname in self.classes:  # the class the block merges (declared before it)
                target = self.symbols.class_definition(cname)
        self.symbols.attribute(key, value, file, context, target)

    def _unknown_attr(self, name: str, pos: SourcePos, allowed: frozenset[str], context: str):
        if context == "frame" and name in GEOM_ATTRS:
            self.sink.error(f"'{name}' is a geometry attribute, not a frame attribute", pos,
                            "put it inside a 'geometry { ... }' block of the frame")
        elif context == "geometry" and name in FRAME_ATTRS:
            self.sink.error(f"'{name}' is a frame attribute, not a geometry attribute", pos,
                            "put it in the enclosing frame, outside 'geometry { ... }'")
        else:
            self.sink.error(f"unknown attribute '{name}' in {context}", pos,
                            suggest(name, sorted(allowed)))

    def _value(self, name: str, node: Node, file: str) -> Value:
        kind, lengths = ATTR_TYPES[name]

        def where() -> SourcePos:  # positions cost time: only for messages
            return node_pos(node, file)

        if kind in (SYM, STR):
            if node.data == "string":
                return str(node.children[0])[1:-1]
            if kind == SYM and node.data == "ident":
                return str(node.children[0])
            want = "a name" if kind == SYM else "a string"
            self.sink.error(f"expected {want} for '{name}', got {_describe(node)}", where())
            raise FoldError
        if node.data == "array":
            if kind == NUM and not lengths:
                self.sink.error(f"expected a number for '{name}', got {_describe(node)}", where())
                raise FoldError
            elements = [c for c in node.children if isinstance(c, Node)]
            n = len(elements)
            if n not in lengths:
                want = " or ".join(str(k) for k in lengths)
                self.sink.error(f"expected {want} values for '{name}', got {n}", where())
                raise FoldError
            return self._finite(name, tuple(fold(c, self.env, file, self.sink)
                                            for c in elements), where)
        if node.data == "string":
            self.sink.error(f"expected {'a number' if kind == NUM else 'an array'} for "
                            f"'{name}', got a string", where())
            raise FoldError
        if kind == VEC:
            n = " or ".join(str(k) for k in lengths)
            self.sink.error(f"expected an array of {n} numbers for '{name}', got a number", where(),
                            f"write '{name} [...]'")
            raise FoldError
        return self._finite(name, fold(node, self.env, file, self.sink), where)

    def _finite(self, name: str, value, where) -> Value:
        """Only limits may be infinite (1e999 is how the robray writer spells an open limit);
        an infinite pose, size or mass would reach the C as INFINITY."""
        if not name.startswith("limit_"):
            values = value if isinstance(value, tuple) else (value,)
            if not all(map(math.isfinite, values)):  # folding leaves no NaN: an infinity
                self.sink.error(f"'{name}' must be finite", where(),
                                "the largest double is about 1.8e308")
                raise FoldError
        return value

    # --- frames -------------------------------------------------------------------------------
    def _frame(self, stmt: Node, file: str, enclosing: str | None) -> None:
        # Nested frames are flattened with an explicit stack (no recursion limit).
        work: list[tuple[Node, str | None]] = [(stmt, enclosing)]
        while work:
            node, outer = work.pop()
            children = self._one_frame(node, file, outer)
            work.extend(reversed(children))

    def _one_frame(self, stmt: Node, file: str, outer: str | None) -> list[tuple[Node, str]]:
        name_node = stmt.children[0]
        name = str(name_node.children[0])
        if name_node.data == "string":
            name = name[1:-1]
        pos = node_pos(name_node, file)
        items = stmt.children[1:]
        if self.symbols is not None:
            self.symbols.define("frame", name_node.children[0], name, file, container=outer)
        try:
            block = self._block(items, file, FRAME_ATTRS, "frame", last_isa_wins=False)
        except FoldError:
            block = Block()
        parent: str | None = outer
        parent_pos = None
        if "parent" in block.attrs:
            if outer is not None:
                self.sink.error(f"cannot reparent nested frame '{name}'", block.attrs["parent"].pos,
                                f"it is nested in '{outer}', which is its parent")
            else:
                parent = str(block.get("parent"))
                parent_pos = block.attrs["parent"].pos
        geometries = []
        nested: list[tuple[Node, str]] = []
        for item in items:
            if not isinstance(item, Node):
                continue
            if item.data == "geometry":
                geom = self._geometry(item, file, name)
                if geom is not None:
                    geometries.append(geom)
            elif item.data == "frame":
                nested.append((item, name))
        frame = self._lower_frame(name, parent, block, tuple(geometries), pos)
        if frame is not None:
            self.partial.frames.append(PendingFrame(frame, parent_pos))
        return nested

    def _lower_frame(self, name: str, parent: str | None, block: Block,
                     geometries: tuple[ir.Geometry, ...], pos: SourcePos) -> ir.Frame | None:
        kind = str(block.get("type") or "fixed")
        if kind not in JOINT_TYPES:
            self.sink.error(f"unknown joint type '{kind}' in frame '{name}'",
                            block.pos("type", pos), suggest(kind, JOINT_TYPES)
                            or "joint types are fixed, revolute and prismatic")
            return None
        q = self._orientation(block, pos)
        v = block.get("translation") or ir.ZERO_V
        axis = None
        variable = None
        if kind != "fixed":
            axis = self._axis(name, kind, block, pos)
            if axis is None:
                return None
            variable = str(block.get("variable") or name)
        else:
            for key in ("axis", "offset", "variable", "limit_position", "limit_velocity",
                        "limit_acceleration", "limit_effort"):
                if key in block.attrs:
                    self.sink.warning(f"'{key}' has no effect on fixed frame '{name}'",
                                      block.pos(key, pos), "set 'type revolute;' or "
                                      "'type prismatic;' to make it a joint",
                                      name="unused-attribute")
        return ir.Frame(
            name=name, parent=parent, kind=kind, translation=v, quaternion=q, axis=axis,
            offset=_num(block.get("offset"), 0.0) if kind != "fixed" else 0.0,
            variable=variable, limits=self._limits(block, pos),
            inertial=self._inertial(block, pos), geometries=geometries,
            tags=tuple(block.tags), pos=pos, **self._identity(name, parent, block, pos))

    def _identity(self, name: str, parent: str | None, block: Block, pos: SourcePos) -> dict:
        """`link`, `link_role` (the frame's robot link), and on a top-level frame `robot`
        and `root_link` (the scene's robot name and root link)."""
        role = str(block.get("link_role") or "link")
        if role not in ir.LINK_ROLES:
            self.sink.error(f"unknown link_role '{role}' in frame '{name}'",
                            block.pos("link_role", pos), suggest(role, ir.LINK_ROLES)
                            or "link roles are " + ", ".join(ir.LINK_ROLES))
            role = "link"
        link = block.get("link")
        if "link_role" in block.attrs and link is None:
            self.sink.warning(f"'link_role' without 'link' in frame '{name}' has no effect",
                              block.pos("link_role", pos), name="unused-attribute")
        for key in ("robot", "root_link"):
            if key in block.attrs and parent is not None:
                self.sink.warning(f"'{key}' is read on top-level frames only",
                                  block.pos(key, pos), name="unused-attribute")
            elif key in block.attrs:
                field_name = "robot_name" if key == "robot" else key
                if getattr(self.partial, field_name) is None:
                    setattr(self.partial, field_name, str(block.get(key)))
        return {"link": None if link is None else str(link), "link_role": role}

    def _orientation(self, block: Block, pos: SourcePos) -> ir.Quat:
        q = block.get("quaternion")
        if q is not None:  # quaternion wins over rpy, as in the original
            unit = checked_quaternion(q, *self._reporters(block, "quaternion", pos))
            return ir.IDENTITY_Q if unit is None else unit
        rpy = block.get("rpy")
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
        axis = block.get("axis")
        if axis is None:
            self.sink.error(f"{kind} frame '{name}' has no 'axis'", pos,
                            "add e.g. 'axis [0, 0, 1];'")
            return None
        return checked_axis(axis, f"{kind} frame '{name}'", *self._reporters(block, "axis", pos),
                            normalise=kind == "revolute")

    def _limits(self, block: Block, pos: SourcePos) -> ir.Limits:
        out = {}
        for key in ("position", "velocity", "acceleration", "effort"):
            value = block.get("limit_" + key)
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
        mass = block.get("mass")
        inertia = block.get("inertia")
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
        scale = block.get("scale")
        if isinstance(scale, tuple):  # per-axis scale (as URDF): meshes only
            if not isinstance(shape, ir.Mesh):
                self.sink.error("a per-axis scale [x, y, z] needs a mesh", block.pos("scale", pos),
                                "other shapes take one number, or scale their dimensions")
                return None
            shape = dataclasses.replace(shape, scale3=tuple(
                a * b for a, b in zip(shape.scale3, scale, strict=True)))
            scale = None
        return ir.Geometry(
            shape=shape,
            color=block.get("color") or ir.DEFAULT_COLOR,
            alpha=_num(block.get("alpha"), 1.0),
            specular=block.get("specular") or ir.ZERO_V,
            visual=_num(block.get("visual"), 1.0) != 0,
            collision=_num(block.get("collision"), 1.0) != 0,
            no_shadow=_num(block.get("no-shadow"), 0.0) != 0,
            scale=_num(scale, 1.0),
            tags=tuple(block.tags), pos=pos,
            material=None if block.get("material") is None else str(block.get("material")))

    def _need(self, block: Block, key: str, shape: str, pos: SourcePos, n: int = 0):
        value = block.get(key)
        if value is None:
            self.sink.error(f"{shape} geometry needs '{key}'", pos)
            raise FoldError
        if n and len(value) != n:
            self.sink.error(f"'{key}' of a {shape} needs {n} values, got {len(value)}",
                            block.pos(key, pos))
            raise FoldError
        return value

    def _shape(self, block: Block, pos: SourcePos, frame: str, file: str) -> ir.Shape | None:
        mesh = block.get("mesh")
        shape = block.get("shape")
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

    # --- allowed collisions ----------------------------------------------------------------
    def _allow(self, stmt: Node, file: str) -> None:
        names = []
        for node in stmt.children:
            text = str(node.children[0])
            names.append(text[1:-1] if node.data == "string" else text)
            if self.symbols is not None:
                self.symbols.frame_reference(node.children[0], names[-1], file)
        pos = node_pos(stmt.children[0], file)
        end = node_pos(stmt.children[1], file)
        pos = SourcePos(file, pos.line, pos.col, end.end_line, end.end_col)
        self.partial.allowed.append((names[0], names[1], pos))


def resolve_include(name: str, includer: Path, include_path: list[Path]) -> Path | None:
    """Where `include "name"` in `includer` leads: the includer's folder, then each folder of
    `include_path` (-I, then ROBRAY_PATH). A name without a suffix first tries the includer's
    suffix, as the original appends it."""
    names = [name]
    if not Path(name).suffix and includer.suffix:
        names.insert(0, name + includer.suffix)
    dirs = [Path("/")] if os.path.isabs(name) else [includer.parent, *include_path]
    for d in dirs:
        for n in names:
            candidate = d / n
            # os.path.exists: Path.exists raises on a name too long (ENAMETOOLONG), EACCES
            if os.path.exists(candidate):
                return candidate
    return None


def _tok_pos(tok: Tok, file: str) -> SourcePos:
    return tok.pos(file)


def _num(value, default: float) -> float:
    return default if value is None else float(value)


def _describe(node: Node | Tok) -> str:
    if isinstance(node, Node) and node.data == "array":
        return f"an array of {sum(isinstance(c, Node) for c in node.children)} values"
    if isinstance(node, Node) and node.data == "string":
        return "a string"
    return "a number expression"


def load(path: Path, ctx: LoadContext) -> Partial:
    """Load one top-level robray file (and its includes)."""
    return _Unit(ctx, path).run()

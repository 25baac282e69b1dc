"""URDF -> IR frames, following the original compiler's mapping (amino's urdf.lisp).

- One frame per JOINT, named after the joint: `fixed`, `revolute`, `prismatic` map directly,
  `continuous` is a revolute joint without position limits, `floating` robrayc's floating joint
  (six variables, see ir.joint_variables). `planar` joints have no equivalent and are errors
  naming the joint.
- A link's shapes and inertia attach to the frame of the joint whose child the link is. A shape
  gets its own fixed frame `LINK-visual` / `LINK-collision` (`LINK-inertial` for the inertia)
  when its `<origin>` is not the identity, and always for a root link and for every cylinder
  (URDF cylinders are centred, amino's start at the origin: shifted by -length/2). Public
  allow_collision lists name these frames, so the names are kept exactly; a second shape of the
  same kind with its own frame in one link is `LINK-visual-2`, ...
- Visual shapes are visual-only, collision shapes collision-only; each visual takes its own
  material (inline `<color>` or a material by name), collision shapes the first visual's.
- Limits: position [lower, upper] (a missing bound is 0, as the URDF spec; ±DBL_MAX, which
  robrayc's URDF export writes for an unbounded joint, reads back as no limit), velocity and
  effort v -> [-v, v]. Inertia: the symmetric tensor of `<inertia>`, on the frame holding it.
- `<mimic>` with multiplier ±1 (every mimic joint of the public corpus): the joint shares the
  mimicked joint's configuration variable; a multiplier of -1 flips the axis, the URDF offset
  becomes the amino offset. Other multipliers cannot be expressed in amino: warning, own
  variable.
- Meshes: `package://` through --package-path and ROS_PACKAGE_PATH (LoadContext), `file://`,
  relative to the URDF, `scale` kept: a uniform scale as the geometry's `scale` (as the
  original), a non-uniform one as the mesh's per-axis scale.

The XML is parsed with lxml, hardened: no entity expansion, no DTD loading, no network; a
document declaring entities or naming an external DTD, XInclude or xacro elements is refused
with an error naming the file. lxml rather than yourdfpy: source line numbers for every
diagnostic, exact control over what is accepted, and no mesh loading at parse time (yourdfpy
is the independent reference in the tests).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from robrayc import ir
from robrayc.diagnostics import DiagnosticSink, SourcePos, suggest
from robrayc.frontend.common import LoadContext, Partial, PendingFrame
from robrayc.frontend.frames import checked_axis, stable_unit_quaternion
from robrayc.frontend.urdf_shapes import (
    Body,
    LinkLowering,
    child_element,
    first_children,
    grouped_children,
)
from robrayc.frontend.xmlsafe import parse_xml
from robrayc.frontend.xmlsource import XmlSource
from robrayc.frontend.xmlsource import local as _local
from robrayc.kinematics import rpy_to_quat
from robrayc.records import record, replace

JOINT_KINDS = {"fixed": "fixed", "revolute": "revolute", "continuous": "revolute",
               "prismatic": "prismatic", "floating": "floating"}
UNBOUNDED = sys.float_info.max  # written for "no limit" where URDF insists on a number
XINCLUDE_NS = "http://www.w3.org/2001/XInclude"
XACRO_NS = ("http://www.ros.org/wiki/xacro", "http://ros.org/wiki/xacro")


@record(slots=True)
class _Joint:
    name: str
    kind: str  # URDF type
    parent: str
    child: str
    pos: SourcePos
    q: ir.Quat = ir.IDENTITY_Q
    v: ir.Vec3 = ir.ZERO_V
    axis: ir.Vec3 = (1.0, 0.0, 0.0)
    limits: ir.Limits = ir.NO_LIMITS
    mimic: tuple[str, float, float, SourcePos] | None = None
    variable: str | None = None
    offset: float = 0.0


class _Loader(XmlSource, LinkLowering):
    def __init__(self, ctx: LoadContext, file: str, root, text: str) -> None:
        self.ctx = ctx
        self.sink: DiagnosticSink = ctx.sink
        self.file = file
        self.root = root
        self.text = text
        self.lines = text.split("\n")  # as libxml2 counts (splitlines also breaks at \u2028)
        self.base = Path(file).parent
        self.partial = Partial()
        self.materials: dict[str, tuple[float, float, float, float] | None] = {}
        self.taken: set[str] = set()  # frame names in use (joints and shape frames)
        self.link_frame: dict[str, str | None] = {}  # link -> frame holding it (None: root)
        self.bodies: dict[str | None, Body] = {}
        self.extra: list[tuple[ir.Frame, Body]] = []  # shape frames, in creation order
        self.top: dict[str, list] = {}  # the robot element's children by tag
        self.quaternions: dict[ir.Vec3, ir.Quat] = {}  # origin rpy -> its quaternion
        # Records shared by the shapes, joints and colours that repeat them (robots repeat a
        # few): fewer objects, and the C backend writes each shared value's text once.
        self.boxes: dict[ir.Vec3, ir.Box] = {}
        self.colors: dict[tuple[float, ...], ir.Vec3] = {}
        self.limits: dict[tuple, ir.Limits] = {}  # (joint type, <limit> texts) -> limits
        # joint -> where it names a parent link the URDF lacks (a frame of another input?)
        self.outside: dict[str, SourcePos] = {}

    def origin(self, el) -> tuple[ir.Quat, ir.Vec3]:
        return self.origin_of(child_element(el, "origin"))

    def origin_of(self, o) -> tuple[ir.Quat, ir.Vec3]:
        """The pose an <origin> element gives (None: the identity)."""
        if o is None:
            return ir.IDENTITY_Q, ir.ZERO_V
        xyz = self.floats(o, "xyz", 3, ir.ZERO_V, "origin xyz") or ir.ZERO_V
        rpy = self.floats(o, "rpy", 3, ir.ZERO_V, "origin rpy") or ir.ZERO_V
        q = self.quaternions.get(rpy)  # robots repeat a few rotations (rpy has no -0.0)
        if q is None:
            q = ir.IDENTITY_Q if rpy == (0.0, 0.0, 0.0) else \
                stable_unit_quaternion(rpy_to_quat(*rpy))
            self.quaternions[rpy] = q
        return q, xyz

    # --- the robot --------------------------------------------------------------------------
    def run(self) -> Partial:
        root = self.root
        if _local(root.tag) != "robot":
            self.sink.error(f"not a URDF file: the root element is <{_local(root.tag)}>, "
                            "not <robot>", self.pos(root))
            return self.partial
        if not self._refuse_extensions():
            return self.partial
        self.top = grouped_children(root)  # one pass over a robot's 100,000s of elements
        for m in self.top.get("material", ()):
            name = m.get("name")
            if name:
                self.materials.setdefault(name, self._rgba(m))
        links: dict[str, object] = {}
        for link in self.top.get("link", ()):
            name = link.get("name")
            if not name:
                self.sink.error("<link> without a name", self.pos(link))
                continue
            if name in links:
                self.sink.error(f"duplicate link '{name}'", self.pos(link, "name"),
                                notes=((self.pos(links[name], "name"), "first defined here"),))
                continue
            links[name] = link
        if not links:
            self.sink.error(f"URDF robot '{root.get('name', '')}' has no links", self.pos(root))
            return self.partial
        joints = self._joints(links)
        self.sink.check()
        self._mimics(joints)
        for j in joints:
            self.link_frame[j.child] = j.name
        roots = [n for n in links if n not in self.link_frame]
        if len(roots) > 1:
            self.sink.warning(f"URDF has {len(roots)} root links ("
                              + ", ".join(f"'{r}'" for r in roots[:5])
                              + "); each becomes a top-level part", self.pos(root),
                              name="multiple-roots")
        for r in roots:
            self.link_frame[r] = None
        self.partial.robot_name = root.get("name")
        self.partial.root_link = roots[0] if roots else None
        bodies = self.bodies
        for j in joints:
            bodies[j.name] = Body()
        for name, link in links.items():
            self._link(name, link)
        self._joint_frames(joints)
        for frame, body in self.extra:
            self.partial.frames.append(PendingFrame(replace(
                frame, geometries=tuple(body.geometries), inertial=body.inertial)))
        return self.partial

    def _joint_frames(self, joints: list[_Joint]) -> None:
        """A frame per joint, holding its child link's shapes and inertia."""
        frames, bodies, link_frame = self.partial.frames, self.bodies, self.link_frame
        for j in joints:
            body = bodies[j.name]
            if j.kind in ("fixed", "floating"):  # floating: 6 variables, no axis or limits
                frame = ir.Frame(name=j.name, parent=link_frame.get(j.parent, j.parent),
                                 translation=j.v,
                                 kind=j.kind, variable=None if j.kind == "fixed" else j.name,
                                 quaternion=j.q, inertial=body.inertial,
                                 geometries=tuple(body.geometries), pos=j.pos, link=j.child)
            else:
                frame = ir.Frame(
                    name=j.name, parent=link_frame.get(j.parent, j.parent),
                    kind=JOINT_KINDS[j.kind],
                    translation=j.v, quaternion=j.q, axis=j.axis, offset=j.offset,
                    variable=j.variable or j.name, limits=j.limits, inertial=body.inertial,
                    geometries=tuple(body.geometries), pos=j.pos, link=j.child)
            at = self.outside.get(j.name)
            frames.append(PendingFrame(frame) if at is None else PendingFrame(
                frame, at, outside=f"joint '{j.name}'"))

    def _refuse_extensions(self) -> bool:
        # only elements in a namespace can be either (XPath selects them in C), and a namespace
        # needs an xmlns declaration in the text (entities and external DTDs are refused)
        if "xmlns" not in self.text:
            return True
        for el in self.root.xpath("descendant-or-self::*[namespace-uri() != '']"):
            ns = el.tag[1:].split("}", 1)[0] if el.tag.startswith("{") else ""
            if ns == XINCLUDE_NS:
                self.sink.error("XInclude is not allowed in a URDF", self.pos(el))
                return False
            if ns in XACRO_NS or ns.endswith("/xacro"):
                self.sink.error("this is a xacro file, not a URDF", self.pos(el),
                                "expand it first: xacro FILE.urdf.xacro > FILE.urdf")
                return False
        return True

    # --- joints -----------------------------------------------------------------------------
    def _joints(self, links: dict) -> list[_Joint]:
        out: list[_Joint] = []
        seen: dict[str, _Joint] = {}
        child_of: dict[str, _Joint] = {}
        for el in self.top.get("joint", ()):
            name = el.get("name")
            pos = self.pos(el, "name")
            if not name:
                self.sink.error("<joint> without a name", self.pos(el))
                continue
            if name in seen:
                self.sink.error(f"duplicate joint '{name}'", pos,
                                notes=((seen[name].pos, "first defined here"),))
                continue
            kind = el.get("type") or ""
            if kind == "planar":
                self.sink.error(f"{kind} joint '{name}' has no robrayc equivalent",
                                self.pos(el, "type"),
                                "robrayc joints are fixed, revolute (continuous), prismatic, "
                                "ball and floating; model it as a chain of two prismatic "
                                "joints and a revolute one")
                continue
            if kind not in JOINT_KINDS:
                self.sink.error(f"unknown joint type '{kind}' in joint '{name}'",
                                self.pos(el, "type"),
                                suggest(kind, JOINT_KINDS) or "URDF joint types: "
                                + ", ".join(JOINT_KINDS))
                continue
            kids = first_children(el)
            ends = []
            for role in ("parent", "child"):
                e = kids.get(role)
                link = e.get("link") if e is not None else None
                if not link:
                    self.sink.error(f"joint '{name}' has no <{role} link=...>", self.pos(el))
                elif role == "parent" and link not in links:  # maybe another input's frame
                    self.outside[name] = self.pos(e, "link")
                elif link not in links:
                    self.sink.error(f"joint '{name}': unknown {role} link '{link}'",
                                    self.pos(e, "link"), suggest(link, links))
                    link = None
                ends.append(link)
            if None in ends:
                continue
            j = _Joint(name, kind, ends[0], ends[1], pos)
            if j.child in child_of:
                self.sink.error(f"link '{j.child}' is the child of two joints, '"
                                f"{child_of[j.child].name}' and '{name}'", pos,
                                notes=((child_of[j.child].pos, "first joint"),))
                continue
            child_of[j.child] = j
            self._joint_details(j, kids)
            seen[name] = j
            out.append(j)
        self._check_link_cycles(out, child_of)
        self.taken.update(seen)
        return out

    def _joint_details(self, j: _Joint, kids: dict) -> None:
        """Pose, axis, limits and mimic of a joint from its children (tag -> first child)."""
        j.q, j.v = self.origin_of(kids.get("origin"))
        if j.kind == "fixed":
            return
        if j.kind == "floating":  # urdfdom reads no axis, limit or mimic of a floating joint
            for tag in ("axis", "limit", "mimic"):
                if kids.get(tag) is not None:
                    self.sink.warning(f"floating joint '{j.name}': <{tag}> ignored (a floating "
                                      "joint has none)", self.pos(kids[tag]),
                                      name="unused-attribute")
            return
        ax = kids.get("axis")
        axis = self.floats(ax, "xyz", 3, (1.0, 0.0, 0.0), "axis xyz") or (1.0, 0.0, 0.0)
        if axis[0] * axis[0] + axis[1] * axis[1] + axis[2] * axis[2] == 1.0:
            j.axis = axis  # exactly unit: what checked_axis returns, without its reports' cost
        else:
            j.axis = checked_axis(axis, f"joint '{j.name}'",  # positions only for a message
                                  lambda message, hint=None:
                                  self.sink.error(message, self.pos(ax, "xyz"), hint),
                                  lambda message, hint=None: self.sink.warning(
                                      message, self.pos(ax, "xyz"), hint, name="unnormalized"),
                                  normalise=True, exact=True) or axis
        lim = kids.get("limit")
        if lim is not None:
            j.limits = self._limits(j, lim)
        mim = kids.get("mimic")
        if mim is not None:
            target = mim.get("joint")
            if not target:
                self.sink.error(f"<mimic> of joint '{j.name}' names no joint", self.pos(mim))
            else:
                mult = self.number(mim, "multiplier", 1.0)
                off = self.number(mim, "offset", 0.0)
                j.mimic = (target, 1.0 if mult is None else mult, 0.0 if off is None else off,
                           self.pos(mim, "joint"))

    def _limits(self, j: _Joint, lim) -> ir.Limits:
        """A joint's <limit>: one record per distinct text (robots repeat a few limits; the C
        backend then writes each once), found again by its text when reading it said
        nothing (a diagnostic names its joint and position)."""
        key = (j.kind, lim.get("lower"), lim.get("upper"), lim.get("velocity"),
               lim.get("effort"))
        limits = self.limits.get(key)
        if limits is not None:
            return limits
        said = len(self.sink.items) + self.sink.suppressed_warnings
        ranges = self._limit_ranges(j, lim)
        limits = ir.Limits(**ranges) if ranges else ir.NO_LIMITS
        if len(self.sink.items) + self.sink.suppressed_warnings == said:
            self.limits[key] = limits
        return limits

    def _limit_ranges(self, j: _Joint, lim) -> dict[str, tuple[float, float]]:
        limits: dict[str, tuple[float, float]] = {}
        if j.kind == "continuous":
            self._continuous_bounds(j, lim)
        else:
            lo = self.number(lim, "lower", 0.0)
            hi = self.number(lim, "upper", 0.0)
            if lo is not None and hi is not None:
                if lo > hi:
                    self.sink.error(f"joint '{j.name}': lower limit {lo!r} is above upper "
                                    f"limit {hi!r}", self.pos(lim))
                elif not (lo == -UNBOUNDED and hi == UNBOUNDED):
                    limits["position"] = (lo, hi)
        for attr in ("velocity", "effort"):
            value = self.number(lim, attr)
            if value is None or value == UNBOUNDED:
                continue
            if value < 0:
                self.sink.warning(f"joint '{j.name}': negative {attr} limit {value!r}; "
                                  "its magnitude is used", self.pos(lim, attr),
                                  name="urdf-limits")
            limits[attr] = (-abs(value), abs(value))
        return limits

    def _continuous_bounds(self, j: _Joint, lim) -> None:
        """A continuous joint has no position limits (URDF spec, urdfdom, MoveIt): lower and
        upper are ignored, with a warning when they say something (difference
        `urdf-continuous-limits`: the original passes them to amino, whose IK then clamps)."""
        bounds = [(a, self.number(lim, a)) for a in ("lower", "upper")]
        given = [(a, v) for a, v in bounds if v is not None and v != 0.0]
        if given:
            attr = given[0][0]
            self.sink.warning(f"continuous joint '{j.name}': <limit {attr}> ignored (a "
                              "continuous joint has no position limits)", self.pos(lim, attr),
                              "make it a revolute joint to limit its motion", name="urdf-ignored")

    def _check_link_cycles(self, joints: list[_Joint], child_of: dict[str, _Joint]) -> None:
        """Every link's parents must end at a root. Linear: a walk stops at a link already
        known to reach a root (walking to the root from every joint took minutes on a
        100,000-link chain)."""
        rooted: set[str] = set()
        for j in joints:
            path: dict[str, None] = {}
            link = j.child
            while link not in rooted:
                if link in path:  # the walk came back: the joint above `link` is on a cycle
                    bad = child_of[link]
                    self.sink.error(f"joint '{bad.name}' is part of a cycle of links", bad.pos)
                    return
                path[link] = None
                up = child_of.get(link)
                if up is None:
                    break
                link = up.parent
            rooted.update(path)

    def _mimics(self, joints: list[_Joint]) -> None:
        by_name = {j.name: j for j in joints}
        for j in joints:
            if j.mimic is None or j.kind == "fixed":
                continue
            target, mult, off, mpos = j.mimic
            # follow the chain: j = m1 k + o1, k = m2 q + o2  ->  j = m1 m2 q + m1 o2 + o1
            m_total, o_total, master, seen = mult, off, by_name.get(target), {j.name}
            if master is None:
                # urdfdom and yourdfpy load such robots (published ones exist): the joint
                # keeps its own variable
                self.sink.warning(f"joint '{j.name}' mimics unknown joint '{target}'; mimic "
                                  "ignored", mpos, suggest(target, by_name), name="urdf-mimic")
                continue
            while master.mimic is not None and master.kind != "fixed":
                if master.name in seen:
                    self.sink.error(f"mimic cycle through joint '{j.name}'", mpos)
                    master = None
                    break
                seen.add(master.name)
                t2, m2, o2, _ = master.mimic
                nxt = by_name.get(t2)
                if nxt is None:
                    break  # reported for that joint
                o_total = m_total * o2 + o_total
                m_total *= m2
                master = nxt
            if master is None:
                continue
            if master.kind in ("fixed", "floating"):  # a floating joint: six values
                self.sink.warning(f"joint '{j.name}' mimics {master.kind} joint "
                                  f"'{master.name}'; mimic ignored", mpos, name="urdf-mimic")
                continue
            if m_total not in (1.0, -1.0):
                self.sink.warning(f"joint '{j.name}': mimic multiplier {m_total!r} cannot be "
                                  "expressed in amino (one variable per joint value); the "
                                  "joint gets its own variable", mpos, name="urdf-mimic")
                continue
            j.variable = master.name
            j.axis = tuple(m_total * c + 0.0 for c in j.axis)
            j.offset = m_total * o_total + 0.0

def resolve_input(path: Path, ctx: LoadContext) -> Path | None:
    """A URDF named on the command line may itself be package://PKG/..."""
    text = str(path)
    if text.startswith("package:/"):
        uri = "package://" + text[len("package:"):].lstrip("/")
        found = ctx.resolve_package_uri(uri)
        if found is None:
            pkg = uri[len("package://"):].split("/", 1)[0]
            ctx.sink.error(f"package '{pkg}' not found (ROS_PACKAGE_PATH='"
                           f"{os.environ.get('ROS_PACKAGE_PATH', '')}')", SourcePos(uri),
                           "use --package-path NAME=DIR or set ROS_PACKAGE_PATH")
            return None
        return found
    return path


def load(path: Path, ctx: LoadContext) -> Partial:
    """Load one URDF file."""
    real = resolve_input(path, ctx)
    if real is None:
        return Partial()
    file = str(real)
    data = ctx.read_source(real)
    if data is None:
        return Partial()
    return load_document(file, data, ctx)


def load_document(file: str, data: bytes, ctx: LoadContext, base: Path | None = None) -> Partial:
    """Load URDF text shown as `file`; relative meshes from `base` (default: file's folder)."""
    text = data.decode("utf-8", "replace")
    ctx.sources.add(file, text)
    root = parse_xml(data, file, ctx.sink)
    if root is None:
        return Partial()
    loader = _Loader(ctx, file, root, text)
    if base is not None:
        loader.base = base
    return loader.run()

"""URDF export (`-o robot.urdf`, `--format urdf`), and allowed collisions as SRDF (`--srdf`).

Each frame becomes a link and the joint that places it, the joint named after the frame (so
that importing the URDF names the frames as before). A fixed, childless frame that robrayc's
URDF import made for a link's shape or inertia (`LINK-visual`, `LINK-collision`,
`LINK-inertial`, ...) is folded back into that link as the shape's `<origin>`, and the link
takes the name LINK: URDF -> robray/JSON -> URDF gives back the same links and joints.

- Shapes: box, sphere and cylinder natively (cylinder origin shifted +height/2, amino's
  cylinders start at their frame); a mesh references its file (a package:// reference is kept,
  other paths are written relative to the URDF); a cone becomes an STL mesh written beside the
  URDF (STEM-cone-N.stl, or in `--urdf-mesh-dir`); a grid has no URDF form and is skipped
  with a warning. The geometry's scalar `scale` multiplies primitive sizes and goes into a
  mesh's `scale`. The axes -U/-F gave a mesh that declares none go into its `<origin>`
  rotation (and its per-axis scale into `scale`); what a file declares (a COLLADA <up_axis>
  and <unit>) stays the reader's to apply, as the COLLADA spec and robrayc's import do
  (yourdfpy/trimesh, rviz and Gazebo ignore <up_axis>: --collada-up-axis=ignore is their world).
- Visual geometry becomes `<visual>` with a robot-level material of its colour and alpha,
  collision geometry `<collision>`; geometry that is both is written as both.
- Joints: revolute with position limits, continuous without; prismatic; fixed; floating (its
  six variables named after the joint when read back). URDF has no ball joint: a ball is
  three continuous joints NAME_yaw, NAME_pitch, NAME_roll about z, y, x (warning
  `ball-joint`: rpy angles instead of the rotation vector, the same rotations). amino's joint
  offset is folded into the origin. Velocity and effort limits are symmetric in URDF; URDF
  insists on numbers where robrayc may have none, so an unlimited bound is written as
  ±1.7976931348623157e+308, which robrayc's import reads back as no limit. Frames sharing a
  configuration variable become `<mimic>` joints of the first one (multiplier 1, their own
  offset), as robrayc's import maps URDF mimic joints.
- Not expressible in URDF (warned once each): acceleration limits, specular colours,
  no-shadow flags, isa tags, asymmetric velocity/effort limits.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from robrayc import __version__, ir
from robrayc.backends import EmitContext, OutputFile, model_name
from robrayc.diagnostics import DiagnosticSink
from robrayc.kinematics import axis_angle_quat, qmul, qrotate, quat_to_rpy
from robrayc.links import plan_links
from robrayc.records import field, record
from robrayc.stl import cone_stl
from robrayc.xmltext import number as _f
from robrayc.xmltext import numbers as _v

NAME = "urdf"
HELP = "URDF robot description (meshes referenced, cones written as STL; --srdf for pairs)"

UNBOUNDED = sys.float_info.max


def add_arguments(group: argparse._ArgumentGroup) -> None:
    group.add_argument("--srdf", metavar="FILE",
                       help="URDF: also write the allowed collision pairs as an SRDF file")
    group.add_argument("--urdf-robot", metavar="NAME",
                       help="URDF: robot name (default: -n NAME, else the output's stem)")
    group.add_argument("--urdf-mesh-dir", metavar="DIR",
                       help="URDF: existing folder, relative to the URDF, for generated meshes "
                            "(cones; default: beside the URDF)")


@record(frozen=True, slots=True)
class Options:
    srdf: str | None = None  # --srdf FILE
    robot: str | None = None  # --urdf-robot NAME
    mesh_dir: str | None = None  # --urdf-mesh-dir DIR

    @classmethod
    def from_args(cls, ns: argparse.Namespace, sink: DiagnosticSink) -> Options:
        return cls(srdf=ns.srdf, robot=ns.urdf_robot, mesh_dir=ns.urdf_mesh_dir)


@record
class _Link:
    name: str
    frame: ir.Frame | None  # the frame whose joint makes this link (None: the root link)
    parts: list[tuple[ir.Frame, tuple[ir.Quat, ir.Vec3]]] = field(default_factory=list)
    inertial: tuple[ir.Inertial, tuple[ir.Quat, ir.Vec3]] | None = None


class _Exporter:
    def __init__(self, scene: ir.Scene, ctx: EmitContext) -> None:
        self.scene = scene
        self.ctx = ctx
        self.sink = ctx.sink
        self.lost: dict[str, int] = {}
        self.materials: dict[str, tuple[float, float, float, float]] = {}  # robot-level
        self.extra_files: list[OutputFile] = []
        self.cones: dict[tuple, str] = {}
        self.placements: dict[ir.Mesh, tuple[ir.Quat, ir.Vec3]] = {}
        out = ctx.output
        self.out_dir = Path(os.path.abspath(out.parent)) if out is not None else None
        self.stem = out.stem if out is not None else "robot"
        self.mesh_dir = ctx.options.mesh_dir

    def lose(self, what: str) -> None:
        self.lost[what] = self.lost.get(what, 0) + 1

    # --- structure --------------------------------------------------------------------------
    def plan(self) -> tuple[_Link, list[_Link], dict[str, _Link]]:
        """The root link, one link per kept frame (scene order), and frame name -> link."""
        plan = plan_links(self.scene)
        root = _Link(plan.root, None)
        links: dict[str, _Link] = {}
        order: list[_Link] = []
        for f in plan.links:
            link = _Link(plan.link_of(f.name), f)
            links[f.name] = link
            order.append(link)
            link.parts.append((f, (ir.IDENTITY_Q, ir.ZERO_V)))
            if f.inertial is not None:
                link.inertial = (f.inertial, (ir.IDENTITY_Q, ir.ZERO_V))
        frame_link: dict[str, _Link] = dict(links)
        for f in self.scene.frames:
            role = plan.folded.get(f.name)
            if role is None:
                continue
            link = links.get(f.parent, root) if f.parent is not None else root
            frame_link[f.name] = link
            pose = (f.quaternion, f.translation)
            if role == "inertial":
                link.inertial = (f.inertial, pose)
            else:
                link.parts.append((f, pose))
        return root, order, frame_link

    # --- XML ---------------------------------------------------------------------------------
    def run(self, robot_name: str):
        from lxml import etree

        root_link, links, frame_link = self.plan()
        robot = etree.Element("robot", name=robot_name)
        robot.append(etree.Comment(f" Generated by robrayc {__version__}. "))
        body: list = []
        body.append(self.link_xml(root_link))
        masters = self.masters()
        taken = ({link.name for link in links} | {root_link.name},  # links, joints
                 {link.frame.name for link in links})
        for link in links:
            body.append(self.link_xml(link))
            f = link.frame
            parent = frame_link[f.parent].name if f.parent in frame_link else root_link.name
            if f.kind == "ball":
                body += self.ball_xml(f, parent, link.name, taken)
            else:
                body.append(self.joint_xml(f, parent, link.name, masters))
        for name, rgba in self.materials.items():
            mat = etree.SubElement(robot, "material", name=name)
            etree.SubElement(mat, "color", rgba=_v(rgba))
        for el in body:
            robot.append(el)
        for what, n in self.lost.items():
            self.sink.warning(f"URDF cannot express {what} ({n}x); left out", name="format-loss")
        return robot, frame_link

    def masters(self) -> dict[str, str]:
        """variable -> the joint frame that carries it in URDF (others mimic it)."""
        out: dict[str, str] = {}
        for f in self.scene.frames:
            if f.is_joint and f.variable is not None and f.kind != "ball":
                cur = out.get(f.variable)
                if cur is None or (f.name == f.variable and cur != f.variable):
                    out[f.variable] = f.name
        for var, joint in out.items():
            if var != joint:
                self.sink.warning(f"configuration variable '{var}' is called '{joint}' in URDF "
                                  "(URDF names a joint's value after the joint)",
                                  name="format-loss")
        return out

    def origin(self, parent, q: ir.Quat, v: ir.Vec3, always: bool = False) -> None:
        from lxml import etree

        if not always and q == ir.IDENTITY_Q and v == ir.ZERO_V:
            return
        etree.SubElement(parent, "origin", xyz=_v(v), rpy=_v(quat_to_rpy(q)))

    def link_xml(self, link: _Link):
        from lxml import etree

        el = etree.Element("link", name=link.name)
        if link.inertial is not None:
            inertial, (q, v) = link.inertial
            node = etree.SubElement(el, "inertial")
            self.origin(node, q, v)
            etree.SubElement(node, "mass", value=_f(inertial.mass))
            i = inertial.inertia
            etree.SubElement(node, "inertia", ixx=_f(i[0]), ixy=_f(i[3]), ixz=_f(i[6]),
                             iyy=_f(i[4]), iyz=_f(i[7]), izz=_f(i[8]))
        visuals, collisions = [], []
        for frame, pose in link.parts:
            if frame.tags:
                self.lose("frame isa tags")
            for g in frame.geometries:
                if g.visual:
                    visuals.append(self.shape_xml("visual", frame, g, pose))
                if g.collision:
                    collisions.append(self.shape_xml("collision", frame, g, pose))
                if not g.visual and not g.collision:
                    self.lose("geometry that is neither visual nor collision")
        for node in visuals + collisions:
            if node is not None:
                el.append(node)
        return el

    def shape_xml(self, kind: str, frame: ir.Frame, g: ir.Geometry, pose):
        from lxml import etree

        q, v = pose
        s = g.shape
        k = g.scale
        node = etree.Element(kind)
        entry = ir.handler(_SHAPE_XML, s)
        if entry is None:
            self.lose(f"{ir.shape_name(s)} geometry")
            return None
        if isinstance(s, ir.Cylinder):
            d = qrotate(q, (0.0, 0.0, s.height * k / 2))
            v = (v[0] + d[0], v[1] + d[1], v[2] + d[2])
        elif isinstance(s, ir.Mesh):
            turn = self.placement(s, g)[0]
            q = q if turn == ir.IDENTITY_Q else qmul(q, turn)
        self.origin(node, q, v)
        geom = etree.SubElement(node, "geometry")
        tag, fill = entry
        fill(self, etree.SubElement(geom, tag), s, k)
        if kind == "visual":
            self.material_xml(node, g)
            if any(g.specular):
                self.lose("specular colours")
            if g.no_shadow:
                self.lose("no-shadow flags")
            if g.tags:
                self.lose("geometry isa tags")
        return node

    def material_xml(self, visual, g: ir.Geometry) -> None:
        """The geometry's material by name, as a robot-level material (inline when that name
        already has another colour); an unnamed colour inline, under the empty name."""
        from lxml import etree

        rgba = (*g.color, g.alpha)
        if g.material is None and rgba == (*ir.DEFAULT_COLOR, 1.0):
            return  # URDF import gives a visual without material robrayc's default colour
        name = g.material or ""
        known = self.materials.setdefault(name, rgba) if name else None
        el = etree.SubElement(visual, "material", name=name)
        if known != rgba:
            etree.SubElement(el, "color", rgba=_v(rgba))

    def box_xml(self, el, s: ir.Box, k: float) -> None:
        el.set("size", _v(c * k for c in s.dimension))

    def sphere_xml(self, el, s: ir.Sphere, k: float) -> None:
        el.set("radius", _f(s.radius * k))

    def cylinder_xml(self, el, s: ir.Cylinder, k: float) -> None:
        el.set("radius", _f(s.radius * k))
        el.set("length", _f(s.height * k))

    def cone_xml(self, el, s: ir.Cone, k: float) -> None:
        el.set("filename", self.cone_file(s))
        if k != 1.0:
            el.set("scale", _v((k, k, k)))

    def placement(self, s: ir.Mesh, g: ir.Geometry) -> tuple[ir.Quat, ir.Vec3]:
        """The turn and per-axis scale a reader of the file as stored must apply."""
        if s not in self.placements:
            from robrayc.kinematics import matrix_to_quat
            from robrayc.meshes import load_placement

            rot, scale = load_placement(s, self.sink, g.pos, declared=False)
            self.placements[s] = (matrix_to_quat(rot.tolist()),
                                  tuple(float(c) + 0.0 for c in scale))
        return self.placements[s]

    def mesh_xml(self, el, s: ir.Mesh, k: float) -> None:
        el.set("filename", self.mesh_ref(s))
        scale = tuple(c * k for c in self.placements[s][1])
        if scale != (1.0, 1.0, 1.0):
            el.set("scale", _v(scale))

    def mesh_ref(self, m: ir.Mesh) -> str:
        if m.source.startswith("package://"):
            return m.source
        if self.out_dir is None:
            return m.path
        return os.path.relpath(m.path, self.out_dir)

    def cone_file(self, c: ir.Cone) -> str:
        key = (c.height, c.start_radius, c.end_radius)
        name = self.cones.get(key)
        if name is None:
            name = f"{self.stem}-cone-{len(self.cones) + 1}.stl"
            if self.mesh_dir:
                name = f"{self.mesh_dir.rstrip('/')}/{name}"
            self.cones[key] = name
            if self.out_dir is None:
                self.sink.warning("a cone becomes an STL mesh file, which cannot be written "
                                  "with the URDF on standard output; give -o FILE.urdf",
                                  name="format-loss")
            else:
                self.extra_files.append(OutputFile(self.out_dir / name, cone_stl(*key)))
        return name

    def ball_xml(self, f: ir.Frame, parent: str, child: str,
                 taken: tuple[set[str], set[str]]) -> list:
        """URDF has no ball joint: three continuous joints NAME_yaw (about z), NAME_pitch (y)
        and NAME_roll (x), joined by massless links CHILD_yaw and CHILD_pitch: the same rest
        pose and the same rotations, as URDF rpy angles (roll, pitch, yaw) instead of the
        ball's rotation vector."""
        from lxml import etree

        names = [ir.unique_name(f"{f.name}_{a}", taken[1], "_")
                 for a in ("yaw", "pitch", "roll")]
        links = [parent] + [ir.unique_name(f"{child}_{a}", taken[0], "_")
                            for a in ("yaw", "pitch")] + [child]
        self.sink.warning(f"URDF has no ball joint: ball joint '{f.name}' written as continuous "
                          f"joints {', '.join(repr(n) for n in names)} (rpy angles instead of "
                          "its rotation vector)", f.pos, name="ball-joint")
        out = [etree.Element("link", name=name) for name in links[1:3]]
        for k, (name, axis) in enumerate(zip(names, ("0 0 1", "0 1 0", "1 0 0"), strict=True)):
            el = etree.Element("joint", name=name, type="continuous")
            if k == 0:
                self.origin(el, f.quaternion, f.translation, always=True)
            etree.SubElement(el, "parent", link=links[k])
            etree.SubElement(el, "child", link=links[k + 1])
            etree.SubElement(el, "axis", xyz=axis)
            out.append(el)
        return out

    def joint_xml(self, f: ir.Frame, parent: str, child: str, masters: dict[str, str]):
        from lxml import etree

        q, v = f.quaternion, f.translation
        mimic = f.is_joint and masters.get(f.variable) not in (None, f.name)
        if f.is_joint and f.offset and not mimic:  # amino's offset goes into the origin
            if f.kind == "revolute":
                q = qmul(q, axis_angle_quat(f.axis, f.offset))
            else:
                d = qrotate(q, tuple(a * f.offset for a in f.axis))
                v = (v[0] + d[0], v[1] + d[1], v[2] + d[2])
        lim = f.limits
        if f.kind == "revolute":
            kind = "revolute" if lim.position is not None else "continuous"
        else:
            kind = f.kind
        el = etree.Element("joint", name=f.name, type=kind)
        self.origin(el, q, v, always=True)
        etree.SubElement(el, "parent", link=parent)
        etree.SubElement(el, "child", link=child)
        if not f.is_joint or f.kind == "floating":  # floating: no axis, limits or mimic
            if not lim.is_empty():
                self.lose(f"limits on {f.kind} frames")
            if mimic:
                self.lose("floating joints sharing their variables")
            return el
        etree.SubElement(el, "axis", xyz=_v(f.axis))
        if lim.acceleration is not None:
            self.lose("acceleration limits")
        if kind != "continuous" or lim.velocity is not None or lim.effort is not None:
            attrs = {}
            if kind != "continuous":
                lo, hi = lim.position if lim.position is not None else (-UNBOUNDED, UNBOUNDED)
                attrs["lower"] = _f(max(lo, -UNBOUNDED))
                attrs["upper"] = _f(min(hi, UNBOUNDED))
            for key in ("effort", "velocity"):
                rng = getattr(lim, key)
                if rng is None:
                    attrs[key] = _f(UNBOUNDED)
                    continue
                if rng[0] != -rng[1]:
                    self.lose(f"asymmetric {key} limits")
                attrs[key] = _f(min(max(abs(rng[0]), abs(rng[1])), UNBOUNDED))
            etree.SubElement(el, "limit", **attrs)
        if mimic:
            etree.SubElement(el, "mimic", joint=masters[f.variable], multiplier="1.0",
                             offset=_f(f.offset))
        return el


def robot_name(ctx: EmitContext, scene: ir.Scene) -> str:
    return model_name(ctx, ctx.options.robot, "robot", scene.robot_name)


# shape -> (element under <geometry>, the method filling it); None: URDF has no such shape
_SHAPE_XML = {ir.Box: ("box", _Exporter.box_xml), ir.Sphere: ("sphere", _Exporter.sphere_xml),
              ir.Cylinder: ("cylinder", _Exporter.cylinder_xml),
              ir.Cone: ("mesh", _Exporter.cone_xml), ir.Mesh: ("mesh", _Exporter.mesh_xml),
              ir.Grid: None}


def emit(scene: ir.Scene, ctx: EmitContext) -> list[OutputFile]:
    name = robot_name(ctx, scene)
    exporter = _Exporter(scene, ctx)
    try:
        from lxml import etree

        robot, _ = exporter.run(name)
        text = etree.tostring(robot, pretty_print=True, xml_declaration=True, encoding="UTF-8")
        out = [OutputFile(ctx.output, text)] + exporter.extra_files
        srdf_path = ctx.options.srdf
        if srdf_path:
            from robrayc import srdf

            text = srdf.write(name, srdf.from_scene(scene), [
                f"Allowed collisions (allow_collision), generated by robrayc {__version__}"])
            out.append(OutputFile(Path(srdf_path), text.encode()))
    except ValueError as exc:  # lxml: a name holding characters XML cannot carry
        raise ctx.sink.fatal(f"cannot write URDF: {exc}") from None
    return out

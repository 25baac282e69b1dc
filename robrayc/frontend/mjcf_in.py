"""MJCF (MuJoCo) input: `.mjcf`, an `.xml` whose root is `<mujoco>`, or `--input-format mjcf`.

- Bodies become frames named after them (an unnamed body `body-N`), placed by pos and
  quat / axisangle / euler / xyaxes / zaxis (`<compiler angle eulerseq>` honoured; angles are
  degrees unless `angle="radian"`, as MuJoCo). A body with one hinge or slide joint at its
  origin is one frame: revolute or prismatic, the joint's axis, `ref` as -offset, `range` as
  position limits (with `limited`, or autolimits), `actuatorfrcrange` as effort limits; the
  configuration variable is the joint's name. A joint elsewhere, or several joints, make a
  chain: a frame per joint (named after it) and the body's frame fixed below the last one.
  A ball joint is a ball frame, a free joint (`<freejoint>`, `type="free"`) a floating one
  whose fixed pose is the body's (MuJoCo's qpos0): qpos (pos, quat) = that pose times the
  frame's translation and rotation vector (robrayc.kinematics.rotvec_to_quat).
- `<equality><joint joint1 joint2 polycoef="c 1 0 0 0">` with c matching the offsets ties
  joint1 to joint2's variable (what robrayc's MJCF export writes for a shared variable).
- Geoms: box, sphere, cylinder and capsule (a cylinder and two spheres: exact), mesh assets
  (file under meshdir/assetdir, scale); `fromto` for capsule, cylinder and box. A geom away
  from its body's origin gets a fixed frame (its name, else BODY-geom-N). Colour: rgba, else
  the material's, else MuJoCo's grey. contype = conaffinity = 0 is visual-only, group 3
  collision-only (MuJoCo Menagerie's convention, and robrayc's export), else both.
- `<inertial>` (mass, diaginertia or fullinertia) on the body, or on `BODY-inertial` when
  away from the body origin. Sites become fixed frames. `<contact><exclude>` pairs are
  allowed collisions. `<include file>` at any depth (every path relative to the main file's
  folder, as MuJoCo; a cycle is an error), `<default>` classes (childclass, class; a class
  may be used before its block), `<frame>` (a pose and childclass for its children) and
  `<attach>` (robrayc.frontend.mjcf_attach) work as in MuJoCo. An empty attribute
  (`rgba=""`) is absent, as for MuJoCo.
- `<replicate>` copies (robrayc.frontend.mjcf_attach). What would lose bodies or joints is an
  error: `<composite>`, `<flexcomp>`, inline-vertex meshes. Geoms robrayc has no shape for
  (planes, ellipsoids, height fields, primitives MuJoCo fits to a mesh) are dropped and
  counted in one -Wmjcf-lost warning.
- Everything else (actuators, sensors, physics attributes, ...) is a located warning, once
  per kind (-Wformat-loss): read MuJoCo's simulation settings with MuJoCo.
"""

from __future__ import annotations

import math
from pathlib import Path

from robrayc import ir
from robrayc.diagnostics import SourcePos
from robrayc.frontend.common import LoadContext, Partial, PendingFrame
from robrayc.frontend.frames import checked_axis, stable_unit_quaternion
from robrayc.frontend.mjcf_attach import expand_replicates
from robrayc.frontend.mjcf_geom import GeomReader, given, minimal_rotation
from robrayc.frontend.xmlsource import XmlSource, local
from robrayc.kinematics import axis_angle_quat, compose, matrix_to_quat, qmul
from robrayc.records import field, record

MAX_INCLUDE_DEPTH = 32

Pose = tuple[ir.Quat, ir.Vec3]

# MuJoCo's sections of <mujoco>: any other element is an error there
TOP_LEVEL = {"option", "compiler", "size", "statistic", "asset", "worldbody", "contact",
             "equality", "tendon", "actuator", "sensor", "keyframe", "visual", "default",
             "custom", "extension", "deformable"}

# elements that make bodies, joints or geoms robrayc does not read: errors, with a hint
BODY_MAKERS = {
    "composite": "compile the model with MuJoCo and save it (mj_saveLastXML) to read that",
    "flexcomp": "robrayc has no deformable bodies; remove it to read the rest",
}

# attributes read here; others on these elements are reported once each
READ = {
    "body": {"name", "pos", "quat", "axisangle", "euler", "xyaxes", "zaxis", "childclass"},
    "joint": {"name", "type", "axis", "pos", "range", "limited", "ref", "actuatorfrcrange",
              "actuatorfrclimited", "class"},
    "geom": {"name", "type", "size", "pos", "quat", "axisangle", "euler", "xyaxes", "zaxis",
             "fromto", "rgba", "material", "mesh", "contype", "conaffinity", "group", "class"},
    "site": {"name", "pos", "quat", "axisangle", "euler", "xyaxes", "zaxis", "class", "type",
             "size", "rgba", "group"},
    "inertial": {"pos", "quat", "axisangle", "euler", "xyaxes", "zaxis", "mass",
                 "diaginertia", "fullinertia"},
    "mesh": {"name", "file", "scale", "class", "refpos", "refquat"},
    "material": {"name", "rgba", "class"},
    "frame": {"name", "pos", "quat", "axisangle", "euler", "xyaxes", "zaxis", "childclass"},
    "compiler": {"angle", "eulerseq", "meshdir", "assetdir", "autolimits", "inertiafromgeom",
                 "boundmass", "boundinertia", "balanceinertia"},
}


@record
class _Defaults:
    """A default class: attributes per element type, inherited from its parent class."""

    attrs: dict[str, dict[str, str]] = field(default_factory=dict)

    def child(self) -> _Defaults:
        return _Defaults({k: dict(v) for k, v in self.attrs.items()})


class _Loader(XmlSource, GeomReader):
    def __init__(self, ctx: LoadContext, file: str, root, text: str,
                 within: _Loader | None = None, prefix: str = "") -> None:
        """`within`: the loader of the model that attaches (a part of) this one, whose frames,
        names and chain of models this one shares; `prefix` goes before every name."""
        self.ctx = ctx
        self.sink = ctx.sink
        self.file = file
        self.lines = text.split("\n")  # as libxml2 counts (splitlines also breaks at \u2028)
        self.root = root
        self.dir = Path(file).parent
        self.partial = Partial() if within is None else within.partial
        self.prefix = prefix
        self.models: dict[str, tuple[str, object]] = {}  # <model> assets: name -> (file, el)
        self.chain: tuple[str, ...] = (file,) if within is None else (*within.chain, file)
        self.radian = False
        self.eulerseq = "xyz"
        self.autolimits = True
        self.meshdir = self.dir
        self.classes: dict[str, _Defaults] = {"main": _Defaults()}
        self.meshes: dict[str, tuple[str, ir.Vec3, object]] = {}
        self.materials: dict[str, tuple[float, ...]] = {}
        self.joints: dict[str, ir.Frame] = {}  # joint name -> its frame (for equalities)
        self.taken: set[str] = set() if within is None else within.taken
        # the names the worldbody gives (prefixed): frame names robrayc makes avoid them all,
        # a joint's frame those of bodies, geoms and sites (MuJoCo names joints apart)
        self.named_frames: set[str] = set() if within is None else within.named_frames
        self.named_joints: set[str] = set() if within is None else within.named_joints
        self.named: set[str] = set() if within is None else within.named  # both
        self.reported: set[str] = set()
        self.counter = 0
        self.included: dict[object, tuple[str, list[str]]] = {}  # element -> its file
        self.inline_meshes: set[str] = set()
        self.lost: dict[str, list] = {}  # geom type robrayc has no shape for -> [count, pos]

    def pos(self, el, attr: str | None = None) -> SourcePos:
        """Positions of included elements are in their own file."""
        node = el
        while node is not None and node not in self.included:
            node = node.getparent()
        if node is None:
            return super().pos(el, attr)
        saved = self.file, self.lines
        self.file, self.lines = self.included[node]
        try:
            return super().pos(el, attr)
        finally:
            self.file, self.lines = saved

    def expand_includes(self, el, depth: int = 0, chain: tuple[str, ...] = ()) -> None:
        """Replace each <include file> by the children of that file's <mujoco> root, at any
        depth (an included file's includes too), each path relative to the main file's
        directory (as MuJoCo resolves them)."""
        for child in list(el):
            if not isinstance(child.tag, str):
                continue
            if local(child.tag) == "include":
                self.include(el, child, depth, chain)
            else:
                self.expand_includes(child, depth, chain)

    def include(self, el, child, depth: int, chain: tuple[str, ...]) -> None:
        from robrayc.frontend.xmlsafe import parse_xml

        at = self.pos(child, "file")
        path = self.dir / (child.get("file") or "")
        index = el.index(child)
        el.remove(child)
        if str(path) in chain:
            cycle = " -> ".join(Path(c).name for c in (*chain[chain.index(str(path)):], path))
            self.sink.error(f"include cycle: {cycle}", at, "a file cannot include itself, "
                            "directly or through the files it includes")
            return
        if depth >= MAX_INCLUDE_DEPTH:
            self.sink.error(f"includes nested deeper than {MAX_INCLUDE_DEPTH} at '{path}'", at)
            return
        data = self.ctx.read_source(path, at)
        root = None if data is None else parse_xml(data, str(path), self.sink, "MJCF")
        if root is not None and local(root.tag) != "mujoco":
            self.sink.error(f"included file '{path}' has root <{local(root.tag)}>, "
                            "not <mujoco>", at)
            root = None
        if root is None:
            return
        text = data.decode("utf-8", "replace")
        self.ctx.sources.add(str(path), text)
        parts = [part for part in root if isinstance(part.tag, str)]
        for k, part in enumerate(parts):
            self.included[part] = (str(path), text.split("\n"))
            el.insert(index + k, part)
        for part in parts:
            if local(part.tag) == "include":
                self.include(el, part, depth + 1, chain + (str(path),))
            else:
                self.expand_includes(part, depth + 1, chain + (str(path),))

    # --- reporting --------------------------------------------------------------------------
    def ignore(self, what: str, el) -> None:
        if what not in self.reported:
            self.reported.add(what)
            self.sink.warning(f"MJCF {what} is not read by robrayc; ignored", self.pos(el),
                              name="format-loss")

    def check_attrs(self, el, kind: str) -> None:
        for attr in el.attrib:
            if attr not in READ[kind]:
                self.ignore(f"<{kind} {attr}>", el)

    # --- the document -----------------------------------------------------------------------
    def prepare(self) -> list | None:
        """Includes expanded, compiler settings, classes and assets read: the sections."""
        if local(self.root.tag) != "mujoco":
            self.sink.error(f"not an MJCF file: the root element is <{local(self.root.tag)}>, "
                            "not <mujoco>", self.pos(self.root))
            return None
        self.expand_includes(self.root, chain=(self.file,))
        sections = list(self.root)
        for el in sections:
            if local(el.tag) == "compiler":
                self.compiler(el)
        for el in sections:
            if local(el.tag) == "worldbody":
                expand_replicates(self, el)
        for el in sections:  # every class first: MuJoCo allows a class used before its block
            if local(el.tag) == "default":
                self.defaults(el, self.classes["main"], "main")
        for el in sections:
            if local(el.tag) == "asset":
                self.assets(el)
        return sections

    def run(self) -> Partial:
        sections = self.prepare()
        if sections is None:
            return self.partial
        for el in sections:
            if local(el.tag) == "worldbody":
                self.reserve(el)
        for el in sections:
            tag = local(el.tag)
            if tag == "worldbody":
                self.children(el, None, "main")
            elif tag == "contact":
                self.contact(el)
            elif tag not in TOP_LEVEL and isinstance(el.tag, str):
                self.sink.error(f"unknown element <{tag}> in <mujoco> (MuJoCo refuses it)",
                                self.pos(el))
            elif tag not in ("compiler", "default", "asset", "equality", "option", "size",
                             "visual", "statistic"):
                self.ignore(f"<{tag}>", el)
            elif tag in ("option", "size", "visual", "statistic"):
                self.ignore(f"<{tag}> (simulation settings)", el)
        for el in sections:
            if local(el.tag) == "equality":
                self.equality(el)
        self.report_lost()
        return self.partial

    def report_lost(self) -> None:
        """One warning counting the geoms dropped (not a -Wformat-loss among harmless ones)."""
        if not self.lost:
            return
        total = sum(n for n, _ in self.lost.values())
        kinds = ", ".join(f"{n} {kind}" for kind, (n, _) in self.lost.items())
        first = min((pos for _, pos in self.lost.values()), key=lambda p: (p.file, p.line))
        self.sink.warning(f"{total} MJCF geom{'s' if total > 1 else ''} dropped ({kinds}): "
                          "robrayc has no shape for them", first, name="mjcf-lost")

    def compiler(self, el) -> None:
        self.check_attrs(el, "compiler")
        angle = el.get("angle", "degree")
        if angle not in ("degree", "radian"):
            self.sink.error(f"compiler angle '{angle}': expected degree or radian",
                            self.pos(el, "angle"))
        self.radian = angle == "radian"
        self.eulerseq = el.get("eulerseq", self.eulerseq)
        if len(self.eulerseq) != 3 or not set(self.eulerseq) <= set("xyzXYZ"):
            self.sink.error(f"compiler eulerseq '{self.eulerseq}': three of x, y, z, X, Y, Z",
                            self.pos(el, "eulerseq"))
            self.eulerseq = "xyz"
        self.autolimits = el.get("autolimits", "true") == "true"
        base = el.get("meshdir") or el.get("assetdir")
        if base:
            self.meshdir = self.dir / base

    def defaults(self, el, inherited: _Defaults, name: str) -> None:
        own = inherited.child()
        self.classes[name] = own
        for child in el:
            tag = local(child.tag)
            if tag == "default":
                cls = child.get("class")
                if cls is None:
                    self.sink.error("nested <default> needs a class", self.pos(child))
                    continue
                self.defaults(child, own, cls)
            else:
                own.attrs.setdefault(tag, {}).update(given(child))

    def attrs(self, el, cls: str) -> dict[str, str]:
        """The element's attributes over its class defaults (class, else the childclass)."""
        name = el.get("class", cls)
        defaults = self.classes.get(name)
        if defaults is None:
            self.sink.error(f"unknown default class '{name}'", self.pos(el, "class"))
            defaults = self.classes["main"]
        out = dict(defaults.attrs.get(local(el.tag), {}))
        out.update(given(el))
        return out

    def assets(self, el) -> None:
        for child in el:
            tag = local(child.tag)
            attrs = self.attrs(child, "main")
            if tag == "mesh":
                self.check_attrs(child, "mesh")
                for moved in ("refpos", "refquat"):  # they move the vertices: not ignorable
                    if moved in attrs:
                        self.sink.error(f"<mesh {moved}> is not read by robrayc: the mesh "
                                        "would be misplaced", self.pos(child, moved),
                                        "apply it to the mesh file's vertices instead")
                file = attrs.get("file")
                if file is None:  # vertices listed inline: an error where a geom uses it
                    self.inline_meshes.add(attrs.get("name", ""))
                    continue
                name = attrs.get("name") or Path(file).stem
                scale = self.numbers(child, "scale", text=attrs.get("scale", "1 1 1"))
                self.meshes[name] = (file, tuple(scale or (1.0, 1.0, 1.0)), child)
            elif tag == "model" and attrs.get("name") and attrs.get("file"):
                self.models[attrs["name"]] = (attrs["file"], child)
            elif tag == "material":
                self.check_attrs(child, "material")
                if "rgba" in attrs:
                    rgba = self.numbers(child, "rgba", text=attrs["rgba"])
                    if rgba is not None and len(rgba) == 4 and "name" in attrs:
                        self.materials[attrs["name"]] = rgba
            else:
                self.ignore(f"<{tag}> asset", child)

    # --- poses ------------------------------------------------------------------------------
    def angle(self, value: float) -> float:
        return value if self.radian else math.radians(value)

    def orientation(self, el, attrs: dict[str, str]) -> ir.Quat:
        if "quat" in attrs:
            q = self.numbers(el, "quat", text=attrs["quat"])
            if q is None or len(q) != 4 or not any(q):
                self.sink.error("quat needs 4 numbers, not all zero", self.pos(el, "quat"))
                return ir.IDENTITY_Q
            return stable_unit_quaternion((q[1], q[2], q[3], q[0]))
        if "axisangle" in attrs:
            a = self.numbers(el, "axisangle", text=attrs["axisangle"]) or (0, 0, 1, 0)
            n = math.sqrt(sum(c * c for c in a[:3])) or 1.0
            return stable_unit_quaternion(axis_angle_quat(
                tuple(c / n for c in a[:3]), self.angle(a[3])))
        if "euler" in attrs:
            return self.euler(self.numbers(el, "euler", text=attrs["euler"]) or (0, 0, 0))
        if "xyaxes" in attrs or "zaxis" in attrs:
            return self.axes(el, attrs)
        return ir.IDENTITY_Q

    def euler(self, angles) -> ir.Quat:
        """MuJoCo's eulerseq: lowercase axes rotate with the frame, uppercase are fixed."""
        q = ir.IDENTITY_Q
        for letter, a in zip(self.eulerseq, angles, strict=True):
            axis = {"x": (1.0, 0.0, 0.0), "y": (0.0, 1.0, 0.0), "z": (0.0, 0.0, 1.0)}[
                letter.lower()]
            r = axis_angle_quat(axis, self.angle(a))
            q = qmul(q, r) if letter.islower() else qmul(r, q)
        return stable_unit_quaternion(q)

    def axes(self, el, attrs: dict[str, str]) -> ir.Quat:
        import numpy as np

        if "xyaxes" in attrs:
            v = np.array(self.numbers(el, "xyaxes", text=attrs["xyaxes"]) or (1, 0, 0, 0, 1, 0))
            x = v[:3] / np.linalg.norm(v[:3])
            y = v[3:] - x * (x @ v[3:])
            y /= np.linalg.norm(y)
            m = np.column_stack([x, y, np.cross(x, y)])
        else:
            z = np.array(self.numbers(el, "zaxis", text=attrs["zaxis"]) or (0, 0, 1), float)
            z /= np.linalg.norm(z)
            # MuJoCo: the minimal rotation taking +Z to the given axis
            return minimal_rotation(tuple(z))
        return stable_unit_quaternion(matrix_to_quat(m.tolist()))

    def placement(self, el, attrs: dict[str, str], offset: Pose | None = None) -> Pose:
        """The element's pose (after the pose `offset` of the <frame> it is in)."""
        v = self.numbers(el, "pos", text=attrs.get("pos", "0 0 0")) or ir.ZERO_V
        if len(v) != 3:
            self.sink.error("pos needs 3 numbers", self.pos(el, "pos"))
            v = ir.ZERO_V
        pose = self.orientation(el, attrs), tuple(v)
        return pose if offset is None else compose(offset, pose)

    # --- bodies -----------------------------------------------------------------------------
    def reserve(self, worldbody) -> None:
        for el in worldbody.iter():
            name = el.get("name") if isinstance(el.tag, str) else None
            if name:
                tag = local(el.tag)
                names = self.named_joints if tag in ("joint", "freejoint") else \
                    self.named_frames if tag in ("body", "geom", "site") else None
                if names is not None:
                    names.add(self.prefix + name)
                    self.named.add(self.prefix + name)

    def unique(self, name: str | None, fallback: str, at: SourcePos | None = None) -> str:
        """The frame name of an element named `name` (None: `fallback`-N, clear of every
        name of the file); a name already made is renamed, with a warning at `at`."""
        if name is None:
            self.counter += 1
            return self.made(f"{fallback}-{self.counter}")
        name = self.prefix + name  # an attached model's names (MuJoCo's attach prefix)
        got = ir.unique_name(name, self.taken)
        if got != name and at is not None:
            self.sink.warning(f"'{name}' names another frame already (MuJoCo names bodies, "
                              f"geoms, sites and joints apart): frame '{got}'", at,
                              name="renamed")
        return got

    def made(self, base: str) -> str:
        """A frame name robrayc makes: `base`, else with a suffix, clear of the file's."""
        return ir.unique_name(base, self.taken, also=self.named)

    def add(self, frame: ir.Frame) -> None:
        self.partial.frames.append(PendingFrame(frame))

    def children(self, el, parent: str | None, cls: str, offset: Pose | None = None) -> None:
        """The bodies, geoms, sites of a body (or the worldbody, or a <frame> of either, whose
        pose `offset` is applied to its children) under frame `parent`."""
        for child in el:
            tag = local(child.tag)
            if tag == "body":
                self.body(child, parent, cls, offset)
            elif tag == "geom":
                self.geom(child, parent, cls, offset)
            elif tag == "site":
                self.site(child, parent, cls, offset)
            elif tag == "frame":  # MuJoCo 3: a pose (and childclass) for its children
                self.check_attrs(child, "frame")
                pose = self.placement(child, given(child))
                self.children(child, parent, child.get("childclass", cls),
                              pose if offset is None else compose(offset, pose))
            elif tag == "attach":
                from robrayc.frontend.mjcf_attach import attach

                attach(self, child, parent, offset)
            elif tag in BODY_MAKERS:
                self.sink.error(f"MJCF <{tag}> is not read by robrayc: the bodies, joints and "
                                "geoms it makes would be lost", self.pos(child),
                                BODY_MAKERS[tag])
            elif tag in ("joint", "freejoint") and parent is None:
                self.sink.error("a joint in the worldbody (MuJoCo refuses it)", self.pos(child))
            elif tag in ("camera", "light", "plugin"):
                self.ignore(f"<{tag}> in a body", child)
            elif tag not in ("joint", "freejoint", "inertial") and isinstance(child.tag, str):
                self.sink.error(f"unknown element <{tag}> in a body (MuJoCo refuses it)",
                                self.pos(child), "a body holds body, frame, geom, site, "
                                "joint, freejoint, inertial, camera, light, attach, ...")

    def body(self, el, parent: str | None, cls: str, offset: Pose | None = None) -> None:
        self.check_attrs(el, "body")
        attrs = given(el)
        name = self.unique(attrs.get("name"), "body", self.pos(el, "name"))
        q, v = self.placement(el, attrs, offset)
        inner = el.get("childclass", cls)
        joints = [j for j in el if local(j.tag) in ("joint", "freejoint")]
        parent, q, v, name_used = self.joint_chain(joints, parent, q, v, name, inner)
        inertial = next((i for i in el if local(i.tag) == "inertial"), None)
        body_inertial, extra = self.inertial(inertial, name) if inertial is not None else (
            None, None)
        if not name_used:
            self.add(ir.Frame(name=name, parent=parent, translation=v, quaternion=q,
                              inertial=body_inertial, pos=self.pos(el, "name")))
        elif body_inertial is not None:
            self.patch_inertial(name, body_inertial)
        if extra is not None:
            self.add(ir.Frame(name=self.made(f"{name}-inertial"), parent=name,
                              translation=extra[1], quaternion=extra[0],
                              inertial=extra[2], pos=self.pos(inertial)))
        self.children(el, name, inner)

    def patch_inertial(self, name: str, inertial: ir.Inertial) -> None:
        from robrayc.records import replace

        last = self.partial.frames[-1]
        assert last.frame.name == name
        last.frame = replace(last.frame, inertial=inertial)

    def joint_chain(self, joints: list, parent, q, v, name: str, cls: str):
        """Frames for the body's joints; returns (parent, q, v, whether the body's frame was
        made): one joint at the body origin is the body's own frame."""
        parsed = [self.joint(j, cls) for j in joints]
        parsed = [p for p in parsed if p is not None]
        if len(parsed) == 1 and parsed[0][1] == ir.ZERO_V:
            jname, _, frame = parsed[0]
            self.add_joint(jname, frame, name=name, parent=parent, q=q, v=v)
            return parent, q, v, True
        for jname, jpos, frame in parsed:  # MuJoCo: joints act at their pos, in order
            fname = ir.unique_name(jname, self.taken, also=self.named_frames)
            if fname != jname:
                self.sink.warning(f"the frame of joint '{jname}' is '{fname}' ('{jname}' names "
                                  "a frame already)", frame.pos, name="renamed")
            qq, vv = compose((q, v), (ir.IDENTITY_Q, jpos))
            self.add_joint(jname, frame, name=fname, parent=parent, q=qq, v=vv)
            parent, q, v = fname, ir.IDENTITY_Q, tuple(-c for c in jpos)
        return parent, q, v, False

    def add_joint(self, jname: str, frame: ir.Frame, *, name, parent, q, v) -> None:
        from robrayc.records import replace

        if name != jname and jname not in self.named_frames:
            self.taken.add(jname)
        full = replace(frame, name=name, parent=parent, quaternion=q, translation=v)
        self.joints[jname] = full
        self.add(full)

    def joint(self, el, cls: str):
        """(name, pos, frame template) of a hinge or slide joint; None after an error."""
        self.check_attrs(el, "joint")
        attrs = self.attrs(el, cls)
        kind = "free" if local(el.tag) == "freejoint" else attrs.get("type", "hinge")
        if kind not in ("hinge", "slide", "ball", "free"):
            self.sink.error(f"unknown joint type '{kind}'", self.pos(el, "type"))
            return None
        self.counter += 1
        jname = self.prefix + attrs["name"] if attrs.get("name") else ir.unique_name(
            f"joint-{self.counter}", set(), also=self.named_joints)
        at = self.pos(el, "name")
        if kind in ("ball", "free"):  # no axis, offset or limits (a free joint: no pos)
            if kind == "ball" and attrs.get("limited", "auto") != "false" and "range" in attrs:
                self.ignore("range of a ball joint (a cone of rotations)", el)
            jpos = ir.ZERO_V if kind == "free" else tuple(
                self.numbers(el, "pos", text=attrs.get("pos", "0 0 0")) or ir.ZERO_V)
            return jname, jpos, ir.Frame(name=jname, kind="ball" if kind == "ball" else
                                         "floating", variable=jname, pos=at)
        axis = checked_axis(tuple(self.numbers(el, "axis", text=attrs.get("axis", "0 0 1"))
                                  or (0.0, 0.0, 1.0)), f"joint '{jname}'",
                            lambda m, h=None: self.sink.error(m, at, h),
                            lambda m, h=None: self.sink.warning(m, at, h, name="unnormalized"),
                            normalise=True, exact=True) or (0.0, 0.0, 1.0)
        scale = self.angle if kind == "hinge" else float
        limits = ir.NO_LIMITS
        rng = attrs.get("range")
        limited = attrs.get("limited", "auto")
        if rng is not None and (limited == "true" or (limited == "auto" and self.autolimits)):
            lo, hi = (self.numbers(el, "range", text=rng) or (0.0, 0.0))[:2]
            limits = ir.Limits(position=(scale(lo), scale(hi)))
        if "actuatorfrcrange" in attrs and attrs.get("actuatorfrclimited", "auto") != "false":
            effort = self.numbers(el, "actuatorfrcrange", text=attrs["actuatorfrcrange"])
            if effort is not None and len(effort) == 2:
                limits = ir.Limits(position=limits.position, effort=tuple(effort))
        jpos = tuple(self.numbers(el, "pos", text=attrs.get("pos", "0 0 0")) or ir.ZERO_V)
        ref = scale(float(attrs.get("ref", "0")))
        frame = ir.Frame(name=jname, kind="revolute" if kind == "hinge" else "prismatic",
                         axis=axis, offset=-ref + 0.0, variable=jname, limits=limits, pos=at)
        return jname, jpos, frame


def load(path: Path, ctx: LoadContext) -> Partial:
    """Load one MJCF file."""
    from robrayc.frontend.urdf import resolve_input
    from robrayc.frontend.xmlsafe import parse_xml

    real = resolve_input(path, ctx)
    if real is None:
        return Partial()
    data = ctx.read_source(real)
    if data is None:
        return Partial()
    text = data.decode("utf-8", "replace")
    ctx.sources.add(str(real), text)
    root = parse_xml(data, str(real), ctx.sink, "MJCF")
    if root is None:
        return Partial()
    return _Loader(ctx, str(real), root, text).run()

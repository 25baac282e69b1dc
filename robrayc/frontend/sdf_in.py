"""SDFormat input (Gazebo, Drake): `.sdf`, `.world`, an `.xml` whose root is `<sdf>`, or
`--input-format sdf`; SDFormat 1.9 semantics (1.7+ `relative_to`, `<frame>`), older files as
libsdformat reads them (a 1.6 `<pose frame>` is `relative_to`, `use_parent_model_frame`).

- A model file gives its links and joints their own names; nested models scope theirs as
  SDFormat does (`arm::link`); in a world every model's names are scoped by the model
  (`robot::link`). Poses follow `relative_to` (default: a link's model, a joint's child, a
  frame's `attached_to`), `<frame>` elements, `placement_frame` and `canonical_link`.
- A link placed by a joint is the frame of that joint, named after the joint (its link name
  kept as the frame's robot link, so SDF out writes the same names); a joint whose pose is
  not the child link's origin is a frame of its own with the link fixed below it. revolute,
  continuous (no position limits), prismatic, fixed are what they say; `ball` is a ball
  joint; `universal` and `revolute2` are two revolute joints (the second JOINT_axis2, on the
  child's side), with a warning; `screw` and `gearbox` are errors. Axes in the joint frame
  (`expressed_in` honoured); limits lower/upper (±1e16: none), effort, velocity.
- A link with no joint placing it is fixed to the world in a static model (or one jointed to
  the world), else it floats (a floating frame). `<frame>`s are fixed frames on the link
  they are attached to.
- Visuals (visual only; diffuse else ambient colour, specular, transparency, cast_shadows)
  and collisions (collision only): box, sphere, cylinder, capsule (a cylinder and two
  spheres: exact), an ellipsoid with equal radii, a plane as its size (a 1 mm slab, with a
  warning), meshes by `model://`, `package://`, `file://` or relative URI with their scale;
  shapes away from the link origin sit on `LINK-visual`/`LINK-collision` frames. The
  inertial (mass, tensor, pose) likewise (`LINK-inertial`).
- `<include>` of `model://NAME` (folder NAME in -I, GZ_SIM_RESOURCE_PATH,
  IGN_GAZEBO_RESOURCE_PATH, SDF_PATH, GAZEBO_MODEL_PATH; its model.config names the file) or
  of a path, with `<name>`, `<pose>`, `<static>`, `<placement_frame>`; `merge="true"` puts
  its links, joints and frames among the including model's names, its model frame the frame
  `_merged__NAME__model__` (libsdformat's name).
- Simulation content (physics, plugins, sensors, lights, surface, dynamics, ...) is a
  located warning once per kind.
"""

from __future__ import annotations

from pathlib import Path

from robrayc import ir
from robrayc.diagnostics import SourcePos, suggest
from robrayc.frontend.common import LoadContext, Partial, PendingFrame
from robrayc.frontend.frames import checked_quaternion, stable_unit_quaternion
from robrayc.frontend.sdf_parts import IDENTITY, LinkParts, Pose, child, children
from robrayc.frontend.xmlsource import XmlSource, local
from robrayc.kinematics import compose, inverse, rpy_to_quat
from robrayc.records import record

WORLD = "world"
MODEL = "__model__"
MAX_INCLUDE_DEPTH = 32
# children read per element; others are reported once per kind
READ = {
    "model": {"pose", "static", "link", "joint", "frame", "model", "include"},
    "world": {"model", "include", "frame", "joint"},
    "link": {"pose", "visual", "collision", "inertial"},
    "joint": {"pose", "parent", "child", "axis", "axis2"},
    "axis": {"xyz", "limit", "use_parent_model_frame"},
    "limit": {"lower", "upper", "effort", "velocity"},
}


@record
class _Scope:
    """A model (or a world): where names are looked up. Full names start with `prefix`."""

    prefix: str
    el: object
    static: bool
    key: str  # the model frame's entity key (PREFIX__model__); WORLD for a world
    version: tuple[int, ...] = (1, 9)
    links: list = None
    models: list = None
    canonical: str | None = None


@record
class _Entity:
    """Something with a pose: a link, joint, frame or (nested) model's frame."""

    kind: str
    key: str
    scope: _Scope  # where its relative_to / attached_to names are looked up
    el: object
    raw: Pose
    relative_to: str | None  # as written; None: the kind's default
    pose_el: object = None
    attached_to: str | None = None
    inner: _Scope | None = None  # a model frame's own scope


class _Loader(XmlSource, LinkParts):
    def __init__(self, ctx: LoadContext) -> None:
        self.ctx = ctx
        self.sink = ctx.sink
        self.docs: dict[object, tuple[str, list[str]]] = {}  # root element -> file, lines
        self.entities: dict[str, _Entity] = {}
        self.bases: dict[str, str] = {}
        self.world_poses: dict[str, Pose] = {WORLD: IDENTITY}
        self.scopes: list[_Scope] = []
        self.joints: list[_Entity] = []
        self.frames: dict[str, ir.Frame] = {}
        self.taken: set[str] = set()
        self.joint_names: dict[str, str] = {}  # joint or <frame> -> its IR frame's name
        self.axis2_names: dict[str, str] = {}  # universal, revolute2 -> its second frame
        self.merged: list[str] = []  # model frames of merged includes (IR frames)
        self.reported: set[str] = set()
        self.partial = Partial()

    # --- files and positions ------------------------------------------------------------------
    def pos(self, el, attr: str | None = None) -> SourcePos:
        self.file, self.lines = self.docs[el.getroottree().getroot()]
        return super().pos(el, attr)

    def parse(self, path: Path, at: SourcePos | None = None):
        """The <sdf> root element of a file (None after an error)."""
        from robrayc.frontend.xmlsafe import parse_xml

        data = self.ctx.read_source(path, at)
        if data is None:
            return None
        text = data.decode("utf-8", "replace")
        self.ctx.sources.add(str(path), text)
        root = parse_xml(data, str(path), self.sink, "SDF")
        if root is None:
            return None
        self.docs[root] = (str(path), text.split("\n"))
        if local(root.tag) != "sdf":
            self.sink.error(f"not an SDF file: the root element is <{local(root.tag)}>, not "
                            "<sdf>", self.pos(root))
            return None
        return root

    def ignore(self, what: str, el) -> None:
        if what not in self.reported:
            self.reported.add(what)
            self.sink.warning(f"SDF {what} is not read by robrayc; ignored", self.pos(el),
                              name="format-loss")

    def check_children(self, el, kind: str) -> None:
        if kind not in READ:
            return super().check_children(el, kind)
        for c in el:
            if isinstance(c.tag, str) and c.tag not in READ[kind]:
                self.ignore(f"<{kind}><{local(c.tag)}>", c)

    # --- the document ---------------------------------------------------------------------
    def run(self, path: Path) -> Partial:
        root = self.parse(path)
        if root is None:
            return self.partial
        version = _version(root.get("version", "1.9"))
        world = _Scope("", None, False, WORLD, version, [], [])
        found = False
        for el in root:
            tag = local(el.tag)
            if tag == "model":
                found = True
                self.partial.robot_name = el.get("name")
                self.model(el, world, "", version, False, depth=0)
            elif tag == "world":
                found = True
                self.world(el, version)
            elif isinstance(el.tag, str):
                self.ignore(f"<{tag}>", el)
        if not found:
            self.sink.error("the SDF file has no <model> or <world>", self.pos(root))
            return self.partial
        self.sink.check()
        self.resolve_bases()
        self.sink.check()
        self.build()
        self.partial.frames = [PendingFrame(f) for f in self.frames.values()]
        return self.partial

    def world(self, el, version: tuple[int, ...]) -> None:
        scope = _Scope("", el, False, WORLD, version, [], [])
        self.scopes.append(scope)
        self.check_children(el, "world")
        self.scope_members(el, scope, version, 0)

    def model(self, el, parent: _Scope, prefix: str, version, static: bool, depth: int,
              include=None, merged: bool = False) -> None:
        """A <model> (from an <include> when `include` is given, whose name, pose, static
        and placement_frame win)."""
        name = (include_text(include, "name") or el.get("name") or "").strip()
        if not name:
            self.sink.error("<model> without a name", self.pos(el))
            return
        scope_prefix = parent.prefix + prefix
        # a merged include (no prefix): its elements join the parent's names, its model frame
        # is the frame _merged__NAME__model__ (as libsdformat names it)
        key = scope_prefix + (f"_merged__{name}__model__" if merged else MODEL)
        if merged:
            self.merged.append(key)
        scope = _Scope(scope_prefix, el, static or self.flag(el, "static", False), key,
                       version, [], [], el.get("canonical_link"))
        if include is not None and child(include, "static") is not None:
            scope.static = static or self.flag(include, "static", False)
        self.check_children(el, "model")
        pose_src = include if include is not None and child(include, "pose") is not None \
            else el
        raw, rel, pose_el = self.raw_pose(pose_src, version)
        entity = _Entity("model", scope.key, parent, el, raw, rel, pose_el, inner=scope)
        placement = (include_text(include, "placement_frame")
                     or el.get("placement_frame"))
        entity.attached_to = placement  # kept here: the placement frame, read in resolve
        self.add_entity(entity, name)
        if parent.models is not None:
            parent.models.append(scope)
        self.scopes.append(scope)
        self.scope_members(el, scope, version, depth)

    def scope_members(self, el, scope: _Scope, version, depth: int) -> None:
        for c in el:
            tag = c.tag
            if tag == "link":
                self.link(c, scope, version)
            elif tag == "joint":
                self.joint(c, scope, version)
            elif tag == "frame":
                self.frame(c, scope, version)
            elif tag == "model":
                inner = c.get("name") or ""
                self.model(c, scope, f"{inner}::", version, scope.static, depth)
            elif tag == "include":
                self.include(c, scope, version, depth)

    def include(self, el, scope: _Scope, version, depth: int) -> None:
        uri = (include_text(el, "uri") or "").strip()
        at = self.pos(child(el, "uri") if child(el, "uri") is not None else el)
        merge = self.flag_attr(el, "merge")
        if merge and scope.key == WORLD:
            self.sink.error("<include merge=\"true\"> merges into a model, not a world",
                            self.pos(el, "merge"))
            return
        if depth >= MAX_INCLUDE_DEPTH:
            self.sink.error(f"includes nested deeper than {MAX_INCLUDE_DEPTH} (a cycle?) at "
                            f"'{uri}'", at)
            return
        path = self.model_file(uri, at)
        root = self.parse(path, at) if path is not None else None
        if root is None:
            return
        models = children(root, "model")
        if len(models) != 1:
            self.sink.error(f"included file '{path}' holds {len(models)} <model> elements, "
                            "not one", at)
            return
        name = (include_text(el, "name") or models[0].get("name") or "").strip()
        self.model(models[0], scope, "" if merge else f"{name}::",
                   _version(root.get("version", "1.9")), scope.static, depth + 1, include=el,
                   merged=merge)

    def model_file(self, uri: str, at: SourcePos) -> Path | None:
        """The SDF file an include's URI names: a file, or a model folder (its model.config
        names the file, the newest SDF version first; else model.sdf)."""
        if not uri:
            self.sink.error("<include> without a <uri>", at)
            return None
        path, problem = self.resolve_uri(uri, Path(at.file).parent)
        if path is None:
            self.sink.error(problem, at, "use -I DIR or set GZ_SIM_RESOURCE_PATH")
            return None
        if not path.is_dir():
            return path
        config = path / "model.config"
        if config.is_file():
            root = None
            data = self.ctx.read_source(config, at)
            if data is not None:
                from robrayc.frontend.xmlsafe import parse_xml

                root = parse_xml(data, str(config), self.sink, "model.config")
            files = [] if root is None else sorted(
                (_version(e.get("version", "0")), (e.text or "").strip())
                for e in root.iter("sdf"))
            if files:
                return path / files[-1][1]
        return path / "model.sdf"

    # --- entities -------------------------------------------------------------------------
    def add_entity(self, entity: _Entity, name: str) -> None:
        key = entity.key
        if key in self.entities:
            self.sink.error(f"duplicate name '{key}' (links, joints, frames and models share "
                            "names in SDF)", self.pos(entity.el, "name"),
                            notes=((self.pos(self.entities[key].el, "name"),
                                    "first defined here"),))
            return
        self.entities[key] = entity

    def named(self, el, scope: _Scope, what: str) -> str | None:
        name = (el.get("name") or "").strip()
        if not name:
            self.sink.error(f"<{what}> without a name", self.pos(el))
            return None
        return scope.prefix + name

    def link(self, el, scope: _Scope, version) -> None:
        key = self.named(el, scope, "link")
        if key is None:
            return
        self.check_children(el, "link")
        raw, rel, pose_el = self.raw_pose(el, version)
        self.add_entity(_Entity("link", key, scope, el, raw, rel, pose_el), key)
        scope.links.append(key)

    def joint(self, el, scope: _Scope, version) -> None:
        key = self.named(el, scope, "joint")
        if key is None:
            return
        self.check_children(el, "joint")
        raw, rel, pose_el = self.raw_pose(el, version)
        entity = _Entity("joint", key, scope, el, raw, rel, pose_el)
        for role in ("parent", "child"):
            c = child(el, role)
            if c is None or not (c.text or "").strip():
                self.sink.error(f"joint '{key}' has no <{role}>", self.pos(el))
                return
        self.add_entity(entity, key)
        self.joints.append(entity)

    def frame(self, el, scope: _Scope, version) -> None:
        key = self.named(el, scope, "frame")
        if key is None:
            return
        raw, rel, pose_el = self.raw_pose(el, version)
        attached = el.get("attached_to") or None
        self.add_entity(_Entity("frame", key, scope, el, raw, rel, pose_el, attached), key)

    def raw_pose(self, el, version) -> tuple[Pose, str | None, object]:
        """(pose, relative_to as written, the <pose> element) of an element."""
        p = child(el, "pose")
        if p is None:
            return IDENTITY, None, None
        rel = p.get("relative_to") or (p.get("frame") if version < (1, 7) else None) or None
        fmt = p.get("rotation_format", "euler_rpy")
        if fmt not in ("euler_rpy", "quat_xyzw"):
            self.sink.error(f"pose rotation_format '{fmt}': euler_rpy or quat_xyzw",
                            self.pos(p, "rotation_format"))
            return IDENTITY, rel, p
        nums = self.values(p, None, "pose")
        n = 6 if fmt == "euler_rpy" else 7
        if nums is None or (nums and len(nums) != n):
            if nums is not None:
                self.sink.error(f"<pose> ({fmt}) needs {n} numbers, got {len(nums)}",
                                self.pos(p))
            return IDENTITY, rel, p
        if not nums:
            return IDENTITY, rel, p
        v = nums[:3]
        if fmt == "quat_xyzw":
            q = checked_quaternion(
                nums[3:], lambda m, h=None: self.sink.error(m, self.pos(p), h),
                lambda m, h=None: self.sink.warning(m, self.pos(p), h, name="unnormalized"))
            return (q or ir.IDENTITY_Q, v), rel, p
        rpy = nums[3:]
        if self.flag_attr(p, "degrees"):
            import math

            rpy = tuple(math.radians(a) for a in rpy)
        q = ir.IDENTITY_Q if not any(rpy) else stable_unit_quaternion(rpy_to_quat(*rpy))
        return (q, v), rel, p

    def flag_attr(self, el, attr: str) -> bool:
        return (el.get(attr) or "false").strip().lower() in ("true", "1")

    # --- resolving names and poses --------------------------------------------------------
    def lookup(self, scope: _Scope, name: str, el, attr: str | None = None) -> str | None:
        """The entity key `name` means in `scope` (WORLD for the world); None after an
        error at `el`."""
        name = name.strip()
        if name == MODEL:
            return scope.key
        if name == WORLD:
            return WORLD
        key = scope.prefix + name
        if key in self.entities:
            return key
        if key + "::" + MODEL in self.entities:
            return key + "::" + MODEL
        known = [k[len(scope.prefix):] for k in self.entities if k.startswith(scope.prefix)]
        self.sink.error(f"unknown frame '{name}'", self.pos(el, attr), suggest(name, known))
        return None

    def default_base(self, e: _Entity) -> tuple[str, object, str | None]:
        """(name, element, attribute) that says what `e`'s pose is relative to."""
        if e.relative_to is not None:
            return e.relative_to, e.pose_el, "relative_to"
        if e.kind == "joint":
            return (child(e.el, "child").text or ""), child(e.el, "child"), None
        if e.kind == "frame" and e.attached_to is not None:
            return e.attached_to, e.el, "attached_to"
        return MODEL, e.el, None

    def resolve_bases(self) -> None:
        """Every entity's pose base, then a check that no chain of them is a cycle."""
        for key, e in self.entities.items():
            name, el, attr = self.default_base(e)
            base = self.lookup(e.scope, name, el, attr)
            self.bases[key] = WORLD if base is None else base
        for key, e in self.entities.items():
            seen = [key]
            k = self.bases[key]
            while k != WORLD and k not in seen:
                seen.append(k)
                k = self.bases[k]
            if k != WORLD:
                self.sink.error(f"the poses of '{key}' are relative to each other in a "
                                "cycle: " + " -> ".join(seen + [k]), self.pos(
                                    e.pose_el if e.pose_el is not None else e.el))
                self.bases[key] = WORLD

    def effective(self, key: str) -> Pose:
        """An entity's pose relative to its base (a model's placement frame applied)."""
        e = self.entities[key]
        if e.kind != "model" or not e.attached_to:
            return e.raw
        placement = self.lookup(e.inner, e.attached_to, e.el, "placement_frame")
        if placement is None:
            return e.raw
        return compose(e.raw, inverse(self.relative(placement, key)))

    def world_pose(self, key: str) -> Pose:
        pose = self.world_poses.get(key)
        if pose is None:
            pose = compose(self.world_pose(self.bases[key]), self.effective(key))
            self.world_poses[key] = pose
        return pose

    def relative(self, key: str, base: str) -> Pose:
        """The pose of `key` relative to `base`: the poses written along its relative_to
        chain when it passes `base` (exact as written), else through the world."""
        chain: list[str] = []
        k = key
        while k != base and k != WORLD:
            chain.append(k)
            k = self.bases[k]
        if k == base:
            pose = IDENTITY
            for c in reversed(chain):
                pose = compose(pose, self.effective(c)) if pose != IDENTITY else \
                    self.effective(c)
            return _clean(pose)
        return _clean(compose(inverse(self.world_pose(base)), self.world_pose(key)))

    def part_pose(self, el, link: str) -> Pose:
        """The pose of a link's visual, collision or inertial relative to the link."""
        scope = self.entities[link].scope
        raw, rel, pose_el = self.raw_pose(el, scope.version)
        if rel is None:
            return raw
        key = self.lookup(scope, rel, pose_el, "relative_to")
        if key is None or key == link:
            return raw
        return compose(self.relative(key, link), raw)

    def attached_link(self, key: str, at) -> str | None:
        """The link (or WORLD) an entity moves with; None if none (after an error)."""
        seen: set[str] = set()
        while key != WORLD and key not in seen:
            seen.add(key)
            e = self.entities[key]
            if e.kind == "link":
                return key
            if e.kind == "model":
                key = self.canonical(e.inner, at)
                if key is None:
                    return None
                continue
            if e.kind == "joint":
                name = child(e.el, "child").text or ""
            else:
                name = e.attached_to or MODEL
            nxt = self.lookup(e.scope, name, e.el)
            if nxt is None:
                return None
            key = nxt
        if key != WORLD:
            self.sink.error("frames attached to each other in a cycle", self.pos(at))
            return None
        return key

    def canonical(self, scope: _Scope, at) -> str | None:
        if scope.key == WORLD:
            return WORLD
        if scope.canonical:
            key = self.lookup(scope, scope.canonical, scope.el, "canonical_link")
            return None if key is None else self.attached_link(key, at)
        if scope.links:
            return scope.links[0]
        for inner in scope.models:
            found = self.canonical(inner, at)
            if found is not None:
                return found
        self.sink.error(f"model '{scope.prefix[:-2]}' has no link", self.pos(scope.el))
        return None

    # --- the IR -------------------------------------------------------------------------
    def build(self) -> None:
        from robrayc.frontend.sdf_joints import build_frames

        build_frames(self)


def _clean(pose: Pose) -> Pose:
    """No -0.0 (written poses have none: a reader would see a sign)."""
    q, v = pose
    return tuple(c + 0.0 for c in q), tuple(c + 0.0 for c in v)


def include_text(include, tag: str) -> str | None:
    c = child(include, tag) if include is not None else None
    return None if c is None else (c.text or "")


def _version(text: str) -> tuple[int, ...]:
    try:
        return tuple(int(p) for p in text.strip().split("."))
    except ValueError:
        return (1, 9)


def load(path: Path, ctx: LoadContext) -> Partial:
    """Load one SDF file (a model or a world)."""
    return _Loader(ctx).run(path)


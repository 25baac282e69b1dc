"""SDFormat input, the kinematic tree: which joint places each link, and the IR frames of
links, joints and `<frame>`s (the rules are in sdf_in's docstring)."""

from __future__ import annotations

from robrayc import ir
from robrayc.frontend.frames import checked_axis
from robrayc.frontend.sdf_parts import child, is_identity
from robrayc.kinematics import inverse, qrotate

WORLD = "world"
UNBOUNDED = 1e16  # SDF's default limits (-1e16, 1e16): no limit
SINGLE = {"revolute": "revolute", "continuous": "revolute", "prismatic": "prismatic"}
TWO_AXES = ("universal", "revolute2")
REFUSED = {
    "screw": "couples rotation and translation (a thread pitch)",
    "gearbox": "couples two other joints by a ratio",
}
KNOWN = (*SINGLE, "fixed", "ball", *TWO_AXES, *REFUSED)


def build_frames(ld) -> None:
    """Fill ld.frames: the frames of links (each placed by its joint), then `<frame>`s,
    then what each link holds."""
    placing = _placing(ld)
    ld.sink.check()
    holders = _holders(ld, placing)
    links = [k for k, e in ld.entities.items() if e.kind == "link"]
    for link in links:
        if link in placing:
            _jointed(ld, link, placing[link], holders)
        else:
            _root(ld, link)
    for key, e in ld.entities.items():
        if e.kind == "frame" or key in ld.merged:
            _frame(ld, key, holders)
    for link in links:
        ld.link_parts(ld.entities[link].el, link, holders[link])


def _placing(ld) -> dict[str, tuple]:
    """child link -> (joint entity, parent link or WORLD); errors for bad joints."""
    placing: dict[str, tuple] = {}
    for j in ld.joints:
        kind = (j.el.get("type") or "").strip()
        if kind not in KNOWN:
            from robrayc.diagnostics import suggest

            ld.sink.error(f"unknown joint type '{kind}' in joint '{j.key}'",
                          ld.pos(j.el, "type"), suggest(kind, KNOWN) or
                          "SDF joint types: " + ", ".join(KNOWN))
            continue
        if kind in REFUSED:
            ld.sink.error(f"{kind} joint '{j.key}' {REFUSED[kind]}: robrayc has no such joint",
                          ld.pos(j.el, "type"), "model it as a revolute or prismatic joint")
            continue
        ends = []
        for role in ("parent", "child"):
            el = child(j.el, role)
            key = ld.lookup(j.scope, el.text or "", el)
            ends.append(None if key is None else ld.attached_link(key, el))
        parent, kid = ends
        if parent is None or kid is None:
            continue
        if kid == WORLD or kid == parent:
            ld.sink.error(f"joint '{j.key}' has child '{kid}' (the world, or its parent)",
                          ld.pos(child(j.el, "child")))
        elif kid in placing:
            ld.sink.error(f"link '{kid}' is the child of two joints, '{placing[kid][0].key}' "
                          f"and '{j.key}'", ld.pos(j.el, "name"),
                          notes=((ld.pos(placing[kid][0].el, "name"), "first joint"),))
        else:
            placing[kid] = (j, parent)
    for link in placing:  # every chain of parents must end at a root link or the world
        seen = {link}
        k = placing[link][1]
        while k in placing and k not in seen:
            seen.add(k)
            k = placing[k][1]
        if k in seen:
            j = placing[link][0]
            ld.sink.error(f"joint '{j.key}' is part of a cycle of links", ld.pos(j.el, "name"))
            break
    return placing


def _holders(ld, placing: dict[str, tuple]) -> dict[str, str]:
    """link -> the IR frame at its origin: its own name for a root link or a link away from
    its joint; else the frame of the joint placing it (the second axis' of two)."""
    holders: dict[str, str] = {}
    names: dict[str, str] = {}
    for key, e in ld.entities.items():
        if e.kind == "link" and key not in placing:
            holders[key] = ir.unique_name(key, ld.taken)
        elif e.kind == "frame" or key in ld.merged or (e.kind == "joint" and
                                                       _placed(placing, key)):
            names[key] = ir.unique_name(key, ld.taken)
    ld.joint_names = names
    for link, (j, _) in placing.items():
        kind = j.el.get("type")
        last = names[j.key]
        if kind in TWO_AXES:
            last = ld.axis2_names[j.key] = ir.unique_name(f"{last}_axis2", ld.taken)
        if is_identity(ld.relative(j.key, link)):
            holders[link] = last
        else:
            holders[link] = ir.unique_name(link, ld.taken)
    return holders


def _placed(placing: dict[str, tuple], joint: str) -> bool:
    return any(j.key == joint for j, _ in placing.values())


def _root(ld, link: str) -> None:
    """A link no joint places: fixed to the world in a static model, else floating."""
    e = ld.entities[link]
    q, v = ld.world_pose(link)
    static = e.scope.static
    ld.frames[link] = ir.Frame(name=link, parent=None, kind="fixed" if static else "floating",
                               translation=v, quaternion=q, variable=None if static else link,
                               pos=ld.pos(e.el, "name"), link=link)


def _jointed(ld, link: str, placed: tuple, holders: dict[str, str]) -> None:
    j, parent = placed
    kind = j.el.get("type")
    name = ld.joint_names[j.key]
    holder_of_parent = None if parent == WORLD else holders[parent]
    q, v = ld.world_pose(j.key) if parent == WORLD else ld.relative(j.key, parent)
    at = ld.pos(j.el, "name")
    own_link = link if holders[link] in (name, ld.axis2_names.get(j.key)) else None
    common = dict(parent=holder_of_parent, translation=v, quaternion=q, pos=at)
    if kind == "fixed":
        frame = ir.Frame(name=name, **common)
    elif kind == "ball":
        frame = ir.Frame(name=name, kind="ball", variable=name, **common)
    else:
        frame = ir.Frame(name=name, kind=SINGLE.get(kind, "revolute"),
                         axis=_axis(ld, j, "axis"), variable=name,
                         limits=_limits(ld, j, "axis", kind), **common)
    if kind in TWO_AXES:
        second = ld.axis2_names[j.key]
        ld.sink.warning(f"{kind} joint '{j.key}' read as two revolute joints, '{name}' and "
                        f"'{second}' (the second on the child's side)", ld.pos(j.el, "type"),
                        name="sdf-joint")
        ld.frames[name] = frame
        frame = ir.Frame(name=second, parent=name, kind="revolute",
                         axis=_axis(ld, j, "axis2"), variable=second,
                         limits=_limits(ld, j, "axis2", kind), pos=at, link=own_link)
        ld.frames[second] = frame
    else:
        from robrayc.records import replace

        ld.frames[name] = replace(frame, link=own_link)
    if own_link is None:  # the link sits away from its joint: a fixed frame of its own
        q, v = (tuple(c + 0.0 for c in part) for part in inverse(ld.relative(j.key, link)))
        e = ld.entities[link]
        ld.frames[holders[link]] = ir.Frame(name=holders[link], parent=frame.name,
                                            translation=v, quaternion=q,
                                            pos=ld.pos(e.el, "name"), link=link)


def _axis(ld, j, tag: str) -> ir.Vec3:
    """The joint's axis in its own frame (expressed_in, or a 1.6 use_parent_model_frame)."""
    a = child(j.el, tag)
    if a is not None:
        ld.check_children(a, "axis")
    xyz_el = child(a, "xyz") if a is not None else None
    xyz = ld.vector(a, "xyz", 3, (0.0, 0.0, 1.0))
    frame = xyz_el.get("expressed_in") if xyz_el is not None else None
    if frame is None and j.scope.version < (1, 7) and ld.flag(a, "use_parent_model_frame",
                                                               False):
        frame = "__model__"
    if frame:
        key = ld.lookup(j.scope, frame, xyz_el, "expressed_in")
        if key is not None and key != j.key:
            xyz = qrotate(ld.relative(key, j.key)[0], xyz)
    at = ld.pos(xyz_el if xyz_el is not None else j.el)
    return checked_axis(tuple(xyz), f"joint '{j.key}'",
                        lambda m, h=None: ld.sink.error(m, at, h),
                        lambda m, h=None: ld.sink.warning(m, at, h, name="unnormalized"),
                        normalise=True, exact=True) or (0.0, 0.0, 1.0)


def _limits(ld, j, tag: str, kind: str) -> ir.Limits:
    a = child(j.el, tag)
    lim = child(a, "limit") if a is not None else None
    if lim is None:
        return ir.NO_LIMITS
    ld.check_children(lim, "limit")
    lo, hi = ld.scalar(lim, "lower", -UNBOUNDED), ld.scalar(lim, "upper", UNBOUNDED)
    ranges: dict[str, tuple[float, float]] = {}
    if kind != "continuous":
        bounded = (abs(lo) < UNBOUNDED, abs(hi) < UNBOUNDED)
        if lo > hi:
            ld.sink.error(f"joint '{j.key}': lower limit {lo!r} is above upper limit {hi!r}",
                          ld.pos(lim))
        elif all(bounded):
            ranges["position"] = (lo, hi)
        elif any(bounded):
            ld.sink.warning(f"joint '{j.key}' is limited on one side only; robrayc keeps no "
                            "position limits", ld.pos(lim), name="format-loss")
    for attr in ("effort", "velocity"):
        value = ld.scalar(lim, attr, -1.0)
        if value >= 0:  # SDF: negative is no limit
            ranges[attr] = (-value, value)
    return ir.Limits(**ranges) if ranges else ir.NO_LIMITS


def _frame(ld, key: str, holders: dict[str, str]) -> None:
    e = ld.entities[key]
    link = ld.attached_link(key, e.el)
    if link is None:
        return
    q, v = ld.world_pose(key) if link == WORLD else ld.relative(key, link)
    name = ld.joint_names[key]
    ld.frames[name] = ir.Frame(name=name, parent=None if link == WORLD else holders[link],
                               translation=v, quaternion=q, pos=ld.pos(e.el, "name"))

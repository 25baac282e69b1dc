"""Robot links of a scene: which frames make one rigid link, and the link's name.

One answer for every writer that names links (URDF export, SRDF, MJCF, SDF): a frame that
stands for a link (a joint frame) becomes a link and the joint placing it; a fixed, childless
frame made for a link's visual / collision shape or inertia folds back into that link. Names
come from the scene's robot identity (`Frame.link`, `Scene.root_link`, set by URDF import and
robray's `link` attribute); a scene without it is read the way URDF import names part frames
(`LINK-visual`, `LINK-collision-2`, `LINK-inertial`); any other frame's link is named after
the frame, and the root link (the world) is `Scene.root_link`, else `Scene.root`, else `world`.
"""

from __future__ import annotations

import re

from robrayc import ir
from robrayc.records import record

_PART = re.compile(r"^(?P<link>.+)-(?P<kind>visual|collision|inertial)(?:-(?P<n>[0-9]+))?$")
PART_ROLES = ("visual", "collision", "inertial")


@record(frozen=True)
class LinkPlan:
    """Links of a scene. `links` are the frames that make a link of their own (scene order);
    `folded` maps each part frame to its role, folded into its parent frame's link (or the root
    link when its parent is None); `names` is the link name of every frame (its own link, or
    the one it folds into) and of None (the root link)."""

    root: str
    links: tuple[ir.Frame, ...]
    folded: dict[str, str]
    names: dict[str | None, str]

    def link_of(self, frame: str | None) -> str:
        return self.names[frame]


def _part(f: ir.Frame) -> tuple[str, str] | None:
    """(link, role) if the frame says it holds a part of a link, or its name reads so."""
    if f.link is not None:
        return (f.link, f.link_role) if f.link_role in PART_ROLES else None
    m = _PART.match(f.name)
    return (m.group("link"), m.group("kind")) if m else None


def _foldable(f: ir.Frame, role: str, has_children: bool) -> bool:
    if f.kind != "fixed" or f.tags or has_children or not f.limits.is_empty():
        return False
    if role == "inertial":
        return f.inertial is not None and not f.geometries
    if f.inertial is not None or not f.geometries:
        return False
    if role == "visual":
        return all(g.visual and not g.collision for g in f.geometries)
    return all(g.collision and not g.visual for g in f.geometries)


def _fold(scene: ir.Scene, kids: dict[str | None, list[ir.Frame]]
          ) -> tuple[dict[str, str], dict[str | None, str]]:
    """Part frames folded into their holder (role by frame name) and the link name their
    holder gets from them (holder None: the root link)."""
    folded: dict[str, str] = {}
    named: dict[str | None, str] = {}
    for holder, children in kids.items():
        if holder is not None and not scene.has_frame(holder):
            continue  # parent outside the scene (--root): its children are top-level
        h = scene.frame(holder) if holder is not None else None
        chosen = h.link if h is not None and h.link_role == "link" else None
        if holder is None and scene.root_link is not None:
            chosen = scene.root_link
        has_inertial = h is not None and h.inertial is not None
        for c in children:
            part = _part(c)
            if part is None or not _foldable(c, part[1], bool(kids.get(c.name))):
                continue
            link, role = part
            chosen = chosen or link
            if link != chosen or (role == "inertial" and has_inertial):
                continue
            has_inertial = has_inertial or role == "inertial"
            folded[c.name] = role
        if chosen is not None and any(folded.get(c.name) for c in children):
            named[holder] = chosen
    return folded, named


def plan_links(scene: ir.Scene) -> LinkPlan:
    kids: dict[str | None, list[ir.Frame]] = {}
    for f in scene.frames:
        kids.setdefault(f.parent, []).append(f)
    folded, named = _fold(scene, kids)
    links = tuple(f for f in scene.frames if f.name not in folded)
    taken: set[str] = set()
    names: dict[str | None, str] = {}

    def claim(key: str | None, want: str) -> None:
        out, k = want, 1
        while out in taken:
            k += 1
            out = f"{want}_{k}"
        taken.add(out)
        names[key] = out

    root = scene.root_link or named.get(None) or scene.root or "world"
    claim(None, root)
    for f in links:  # the robot's own names first, then names read from part frames
        if f.link is not None and f.link_role == "link" and f.link not in taken:
            claim(f.name, f.link)
    for f in links:
        if f.name not in names and named.get(f.name) not in (None, *taken):
            claim(f.name, named[f.name])
    for f in links:
        if f.name not in names:
            claim(f.name, f.name)
    for f in scene.frames:
        if f.name in folded:
            names[f.name] = names[f.parent if f.parent in names else None]
    return LinkPlan(names[None], links, folded, names)


def frame_links(scene: ir.Scene) -> dict[str, str] | None:
    """Frame name -> the name of the robot link it belongs to, for a scene that names links
    (URDF import, robray's `link` attribute); None for one that does not (its frames are the
    names users know). What collision reports and picture legends name."""
    if not any(f.link is not None for f in scene.frames):
        return None
    plan = plan_links(scene)
    return {f.name: plan.link_of(f.name) for f in scene.frames}


def link_pair(pair: tuple[str, str], links: dict[str, str] | None) -> tuple[str, str]:
    """A frame pair named by links (unchanged without them)."""
    if links is None:
        return pair
    return links.get(pair[0], pair[0]), links.get(pair[1], pair[1])

"""SRDF (MoveIt's semantic robot description): the one writer of `<disable_collisions>` and
the reader behind `allowed-collisions --check-srdf` and the checking commands' `--srdf`
(`allowed`: the disabled link pairs as the scene's allowed frame pairs).

Every `link1` / `link2` names a robot link (robrayc.links: the URDF's own link names for a
scene from URDF), never a robrayc frame; pairs within one link are not written. Reasons are
MoveIt's: `Adjacent` (MoveIt's rule: neighbours in the link tree once links without collision
geometry are passed through), `Default` (colliding at the default configuration), `Always`,
`Never`, and `User` for a pair the scene itself allows (`allow_collision`, `--srdf`).
"""

from __future__ import annotations

from collections.abc import Iterable
from xml.sax.saxutils import quoteattr

from robrayc import ir
from robrayc.diagnostics import DiagnosticSink, SourceCache, SourcePos, suggest
from robrayc.links import LinkPlan, plan_links
from robrayc.records import record, replace

MOVEIT_REASONS = {"adjacent": "Adjacent", "default": "Default", "always": "Always",
                  "never": "Never", "user": "User"}


@record(frozen=True)
class Disabled:
    """One `<disable_collisions>`: link1 < link2, MoveIt's reason word."""

    link1: str
    link2: str
    reason: str
    pos: SourcePos | None = None  # where a read entry stands


def _key(a: str, b: str) -> tuple[str, str]:
    return (a, b) if a <= b else (b, a)


# --- links and adjacency ----------------------------------------------------------------------


def collision_links(scene: ir.Scene, plan: LinkPlan) -> dict[str, list[str]]:
    """Link -> its frames holding collision geometry (grids are drawn only)."""
    out: dict[str, list[str]] = {}
    for f in scene.frames:
        if any(g.collision and not isinstance(g.shape, ir.Grid) for g in f.geometries):
            out.setdefault(plan.link_of(f.name), []).append(f.name)
    return out


def adjacent_links(scene: ir.Scene, plan: LinkPlan) -> set[tuple[str, str]]:
    """MoveIt's adjacency (compute_default_collisions.cpp, computeConnectionGraph): links
    joined in the link tree, where removing a link without collision geometry joins all its
    neighbours; i.e. links joined by a path whose inner links have no collision geometry."""
    shaped = set(collision_links(scene, plan))
    graph: dict[str, set[str]] = {}
    for f in plan.links:
        child = plan.link_of(f.name)
        parent = plan.link_of(f.parent if f.parent in plan.names else None)
        graph.setdefault(parent, set()).add(child)
        graph.setdefault(child, set()).add(parent)
    out: set[tuple[str, str]] = set()
    for start in shaped:
        seen, stack = {start}, list(graph.get(start, ()))
        while stack:
            link = stack.pop()
            if link in seen:
                continue
            seen.add(link)
            if link in shaped:
                out.add(_key(start, link))
            else:
                stack.extend(graph.get(link, ()))
    return out


def frame_adjacency(plan: LinkPlan, links: set[tuple[str, str]]):
    """An adjacency function for acm.generate: frame pairs whose links are adjacent."""
    def adjacent(scene: ir.Scene, frames: set[str]) -> dict[tuple[str, str], str]:
        by_link: dict[str, list[str]] = {}
        for f in sorted(frames):
            by_link.setdefault(plan.link_of(f), []).append(f)
        out = {}
        for la, lb in sorted(links):  # linear in the links, not quadratic in the frames
            for a in by_link.get(la, ()):
                for b in by_link.get(lb, ()):
                    out[_key(a, b)] = f"links {la} and {lb} are adjacent"
        return out
    return adjacent


# --- what to disable --------------------------------------------------------------------------


def from_verdicts(pairs: Iterable, plan: LinkPlan, adjacent: set[tuple[str, str]]
                  ) -> list[Disabled]:
    """Link pairs from frame-pair verdicts (acm.PairVerdict): a link pair is disabled when
    every frame pair between the two links has a reason; the reason is the link pair's
    (Default if any frame pair collides at the default configuration, else Always if any
    always collides, else Never)."""
    groups: dict[tuple[str, str], list] = {}
    for p in pairs:
        la, lb = plan.link_of(p.a), plan.link_of(p.b)
        if la != lb:
            groups.setdefault(_key(la, lb), []).append(p)
    out = [Disabled(a, b, "Adjacent") for a, b in sorted(adjacent)]
    for key in sorted(groups):
        verdicts = {p.reason for p in groups[key]}
        if key in adjacent or None in verdicts:
            continue
        reason = next(r for r in ("default", "always", "never", "adjacent") if r in verdicts)
        out.append(Disabled(*key, MOVEIT_REASONS["never" if reason == "adjacent" else reason]))
    return out


def classify(scene: ir.Scene, **generate_args) -> tuple[object, list[Disabled]]:
    """acm.generate with MoveIt's adjacency on links, and the link pairs to disable."""
    from robrayc.analysis import acm

    plan = plan_links(scene)
    adjacent = adjacent_links(scene, plan)
    result = acm.generate(scene, adjacency=frame_adjacency(plan, adjacent), **generate_args)
    return result, from_verdicts(result.pairs, plan, adjacent)


def from_scene(scene: ir.Scene, plan: LinkPlan | None = None) -> list[Disabled]:
    """Link pairs the scene's allow_collision pairs disable entirely (every collision frame
    pair between the two links allowed): Adjacent where MoveIt's rule says so, else User."""
    plan = plan or plan_links(scene)
    frames = collision_links(scene, plan)
    adjacent = adjacent_links(scene, plan)
    allowed = {_key(a.a, a.b) for a in scene.allowed}
    out: dict[tuple[str, str], Disabled] = {}
    for a in scene.allowed:
        la, lb = plan.link_of(a.a), plan.link_of(a.b)
        key = _key(la, lb)
        if la == lb or key in out:
            continue
        if all(_key(x, y) in allowed for x in frames.get(la, ()) for y in frames.get(lb, ())):
            out[key] = Disabled(*key, "Adjacent" if key in adjacent else "User")
    return [out[k] for k in sorted(out)]


# --- text ---------------------------------------------------------------------------------------


def write(robot: str, entries: Iterable[Disabled], comments: Iterable[str] = ()) -> str:
    """The SRDF document."""
    lines = ['<?xml version="1.0" encoding="UTF-8"?>']
    lines += [f"<!-- {c.replace('--', '- -')} -->" for c in comments]
    lines.append(f"<robot name={quoteattr(robot)}>")
    for d in entries:
        lines.append(f"    <disable_collisions link1={quoteattr(d.link1)} "
                     f"link2={quoteattr(d.link2)} reason={quoteattr(d.reason)} />")
    lines.append("</robot>")
    return "\n".join(lines) + "\n"


def read(data: bytes, file: str, sink: DiagnosticSink) -> tuple[str, list[Disabled]]:
    """(robot name, disable_collisions entries) of an SRDF, parsed as safely as a URDF."""
    from robrayc.frontend.xmlsafe import parse_xml
    from robrayc.frontend.xmlsource import XmlSource

    root = parse_xml(data, file, sink, "SRDF")
    if root is None:
        return "", []
    source = XmlSource()  # positions: the element's own line and column
    source.sink, source.file = sink, file
    source.lines = data.decode("utf-8", "replace").split("\n")  # as libxml2 counts lines
    if root.tag != "robot":
        sink.error(f"not an SRDF: the root element is <{root.tag}>, not <robot>",
                   source.pos(root))
        return "", []
    out = []
    for el in root.iter("disable_collisions"):
        a, b = el.get("link1"), el.get("link2")
        pos = source.pos(el)
        if not a or not b:
            sink.error("<disable_collisions> needs link1 and link2", pos)
            continue
        out.append(Disabled(*_key(a, b), el.get("reason") or "", pos))
    # (<enable_collisions> only undoes it, and <disable_collisions> wins over both, as MoveIt
    # applies them: without the defaults, the pairs read are MoveIt's disabled pairs or fewer)
    for el in root.iter("disable_default_collisions"):
        sink.warning(f"<disable_default_collisions> is not applied: the pairs of link "
                     f"'{el.get('link') or ''}' stay checked, but for its <disable_collisions>",
                     source.pos(el), "list the pairs to allow as <disable_collisions>",
                     name="srdf-ignored")
    return root.get("name") or "", out


def read_for(scene: ir.Scene, path: str, sink: DiagnosticSink,
             sources: SourceCache | None = None) -> list[Disabled]:
    """The `<disable_collisions>` of an SRDF file for the robot of `scene` (read; its text into
    `sources`, so that diagnostics show its lines); a warning when it names another robot."""
    try:
        with open(path, "rb") as fh:
            data = fh.read()
    except OSError as exc:
        raise sink.fatal(f"cannot read '{path}': {exc.strerror or exc}") from None
    if sources is not None:
        sources.add(path, data.decode("utf-8", "replace"))
    robot, entries = read(data, path, sink)
    if scene.robot_name and robot and robot != scene.robot_name:
        sink.warning(f"the SRDF is for robot '{robot}', the scene is '{scene.robot_name}'",
                     SourcePos(path), name="unknown-frame")
    return entries


def _known(entries: list[Disabled], plan: LinkPlan, sink: DiagnosticSink) -> list[Disabled]:
    """The entries naming two links of the robot; each other name is a warning."""
    known = set(plan.names.values())
    out = []
    for d in entries:
        bad = [n for n in (d.link1, d.link2) if n not in known]
        for n in bad:
            sink.warning(f"SRDF names '{n}', which is no link of the robot",
                         d.pos or SourcePos("<srdf>"), suggest(n, known), name="unknown-frame")
        if not bad:
            out.append(d)
    return out


def allowed(scene: ir.Scene, entries: list[Disabled], sink: DiagnosticSink) -> ir.Scene:
    """The scene with every collision frame pair between two links an entry disables allowed
    (MoveIt's meaning: the two links are never checked against each other), at the entry's
    position. Names that are no link are warnings (their entries are left out)."""
    plan = plan_links(scene)
    frames = collision_links(scene, plan)
    pairs = {(p.a, p.b): p for p in scene.allowed}
    for d in _known(entries, plan, sink):
        for x in frames.get(d.link1, ()):
            for y in frames.get(d.link2, ()):
                if x != y:
                    pos = d.pos or SourcePos("<srdf>")
                    pairs.setdefault(_key(x, y), ir.AllowedCollision(*_key(x, y), pos))
    return replace(scene, allowed=tuple(pairs[k] for k in sorted(pairs)))


# --- lint ---------------------------------------------------------------------------------------


# Reasons that say the two links do collide (adjacent links touch by design, Default pairs
# collide at the default configuration, Always ones nearly everywhere, User: the user's word):
# their collisions are expected. Never, no reason or an unknown word claim they never collide.
EXPECTED_TO_COLLIDE = frozenset({"Adjacent", "Default", "Always", "User"})


@record(frozen=True)
class Finding:
    entry: Disabled
    collisions: int  # samples in which the two links collide
    samples: int
    example: dict[str, float] | None  # one configuration where they collide
    adjacent: bool = False  # neighbours by MoveIt's rule
    floating: str | None = None  # a floating joint between them: its translation, which is
    # not sampled, brings them together (they can collide)

    @property
    def verdict(self) -> str:
        """"wrong": disabled as never colliding, yet they collide; "expected": they collide
        as the reason says (no reason: as neighbours do, for adjacent links); "unneeded":
        Always, yet never seen colliding; "ok"."""
        expected = self.entry.reason in EXPECTED_TO_COLLIDE or (
            self.entry.reason == "" and self.adjacent)
        if self.collisions or self.floating:
            return "expected" if expected else "wrong"
        return "unneeded" if self.entry.reason == "Always" and self.samples else "ok"


def lint(scene: ir.Scene, entries: list[Disabled], sink: DiagnosticSink, *,
         samples: int = 10000, seed: int = 0, batch: int = 1000) -> list[Finding]:
    """Each disabled pair between two links of the robot with how often they collide in
    random samples (Finding.verdict judges it by its reason); names that are no link of the
    robot are warnings."""
    import numpy as np

    from robrayc.analysis.acm import across_floating
    from robrayc.analysis.collision import CollisionChecker
    from robrayc.kinematics import sample_configs

    plan = plan_links(scene)
    frames = collision_links(scene, plan)
    adjacent = adjacent_links(scene, plan)
    todo = {(d.link1, d.link2): d for d in _known(entries, plan, sink) if d.link1 != d.link2}
    columns: dict[tuple[str, str], list[tuple[str, str]]] = {
        key: [_key(x, y) for x in frames.get(key[0], ()) for y in frames.get(key[1], ())]
        for key in todo}
    pairs = sorted({p for ps in columns.values() for p in ps})
    moved = across_floating(scene, pairs)
    floating = {k: next((moved[p] for p in columns[k] if p in moved), None) for k in todo}
    if not pairs or samples <= 0:
        return [Finding(d, 0, 0, None, k in adjacent, floating[k]) for k, d in todo.items()]
    checker = CollisionChecker(scene, sink, use_allowed=False, frame_pairs=pairs)
    index = {_key(*p): k for k, p in enumerate(checker.frame_pairs)}
    configs = sample_configs(scene, samples, seed)
    hits = np.zeros((len(configs), len(todo)), dtype=bool)
    keys = list(todo)
    cols = [[index[p] for p in columns[k] if p in index] for k in keys]
    for start in range(0, len(configs), batch):
        m = checker.collision_matrix(configs[start:start + batch])
        for j, c in enumerate(cols):
            if c:
                hits[start:start + len(m), j] = m[:, c].any(axis=1)
    out = []
    for j, key in enumerate(keys):
        rows = np.flatnonzero(hits[:, j])
        example = dict(zip(scene.variables, configs[rows[0]].tolist(), strict=True)) \
            if len(rows) else None
        out.append(Finding(todo[key], len(rows), len(configs), example, key in adjacent,
                           floating[key]))
    return out

"""SRDF (MoveIt's semantic robot description): the one writer of `<disable_collisions>` and
the reader behind `allowed-collisions --check-srdf` and the checking commands' `--srdf`
(`allowed`: the link pairs MoveIt does not check, by `<disable_collisions>`,
`<disable_default_collisions>` and `<enable_collisions>`, as the scene's allowed frame pairs).

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


@record(frozen=True)
class DefaultOff:
    """One `<disable_default_collisions link>`: the link's pairs are not checked by default."""

    link: str
    pos: SourcePos | None = None


@record(frozen=True)
class Collisions:
    """An SRDF's collision elements, as srdfdom's srdf::Model keeps them: `<disable_collisions>`
    (disabled), `<enable_collisions>` (enabled: link pairs, their reason kept) and
    `<disable_default_collisions>` (defaults)."""

    robot: str = ""
    disabled: tuple[Disabled, ...] = ()
    enabled: tuple[Disabled, ...] = ()
    defaults: tuple[DefaultOff, ...] = ()


# The elements of the collision matrix, read where srdfdom reads them: children of <robot>
# (srdfdom, src/model.cpp, loadCollisionDefaults / loadCollisionPairs: FirstChildElement).
_PAIR_TAGS = ("disable_collisions", "enable_collisions")
_DEFAULT_TAG = "disable_default_collisions"
_SPACE = " \t\n\v\f\r"  # what srdfdom's boost::trim_copy strips from a link name


def read_collisions(data: bytes, file: str, sink: DiagnosticSink) -> Collisions:
    """The collision elements of an SRDF, parsed as safely as a URDF; errors (a malformed
    file, an element without its link attributes) in the sink."""
    from robrayc.frontend.xmlsafe import parse_xml
    from robrayc.frontend.xmlsource import XmlSource

    root = parse_xml(data, file, sink, "SRDF")
    if root is None:
        return Collisions()
    source = XmlSource()  # positions: the element's own line and column
    source.sink, source.file = sink, file
    source.lines = data.decode("utf-8", "replace").split("\n")  # as libxml2 counts lines
    if root.tag != "robot":
        sink.error(f"not an SRDF: the root element is <{root.tag}>, not <robot>",
                   source.pos(root))
        return Collisions()
    pairs: dict[str, list[Disabled]] = {tag: [] for tag in _PAIR_TAGS}
    defaults = []
    for el in root:
        if el.tag in _PAIR_TAGS:
            a, b = ((el.get(k) or "").strip(_SPACE) for k in ("link1", "link2"))
            if not a or not b:
                sink.error(f"<{el.tag}> needs link1 and link2", source.pos(el))
                continue
            pairs[el.tag].append(Disabled(*_key(a, b), el.get("reason") or "", source.pos(el)))
        elif el.tag == _DEFAULT_TAG:
            link = (el.get("link") or "").strip(_SPACE)
            if not link:
                sink.error(f"<{_DEFAULT_TAG}> needs link", source.pos(el))
                continue
            defaults.append(DefaultOff(link, source.pos(el)))
    for el in root.iter(*_PAIR_TAGS, _DEFAULT_TAG):
        if el.getparent() is not root:
            sink.warning(f"<{el.tag}> inside <{el.getparent().tag}> is not applied: MoveIt "
                         "reads it only as a child of <robot>", source.pos(el),
                         name="srdf-ignored")
    return Collisions(root.get("name") or "", tuple(pairs["disable_collisions"]),
                      tuple(pairs["enable_collisions"]), tuple(defaults))


def read(data: bytes, file: str, sink: DiagnosticSink) -> tuple[str, list[Disabled]]:
    """(robot name, `<disable_collisions>` entries) of an SRDF (read_collisions)."""
    found = read_collisions(data, file, sink)
    return found.robot, list(found.disabled)


def read_for(scene: ir.Scene, path: str, sink: DiagnosticSink,
             sources: SourceCache | None = None) -> Collisions:
    """The collision elements of an SRDF file for the robot of `scene` (read; its text into
    `sources`, so that diagnostics show its lines); a warning when it names another robot."""
    try:
        with open(path, "rb") as fh:
            data = fh.read()
    except OSError as exc:
        raise sink.fatal(f"cannot read '{path}': {exc.strerror or exc}") from None
    if sources is not None:
        sources.add(path, data.decode("utf-8", "replace"))
    found = read_collisions(data, path, sink)
    if scene.robot_name and found.robot and found.robot != scene.robot_name:
        sink.warning(f"the SRDF is for robot '{found.robot}', the scene is "
                     f"'{scene.robot_name}'", SourcePos(path), name="unknown-frame")
    return found


def _unknown(name: str, known: set[str], pos: SourcePos | None, sink: DiagnosticSink) -> bool:
    """Whether `name` is no link of the robot (a warning with a hint if so: MoveIt leaves
    such an element out, as srdfdom's loadCollisionPairs does)."""
    if name in known:
        return False
    sink.warning(f"SRDF names '{name}', which is no link of the robot",
                 pos or SourcePos("<srdf>"), suggest(name, known), name="unknown-frame")
    return True


def _known(entries, plan: LinkPlan, sink: DiagnosticSink) -> list[Disabled]:
    """The entries naming two links of the robot; each other name is a warning."""
    known = set(plan.names.values())
    return [d for d in entries
            if not [n for n in (d.link1, d.link2) if _unknown(n, known, d.pos, sink)]]


def allowed_links(found: Collisions, plan: LinkPlan, shaped: Iterable[str],
                  sink: DiagnosticSink) -> dict[tuple[str, str], SourcePos | None]:
    """The link pairs MoveIt does not check (each with the element that says so), between
    links with collision geometry (`shaped`). As MoveIt builds the matrix from an SRDF
    (moveit2, moveit_core/collision_detection/src/collision_matrix.cpp, the constructor
    AllowedCollisionMatrix(const srdf::Model&)): each <disable_default_collisions> link gets
    the default entry ALWAYS (allowed), then each <enable_collisions> pair the entry NEVER,
    then each <disable_collisions> pair the entry ALWAYS, so that <disable_collisions> wins
    over <enable_collisions>; and a pair's own entry wins over the links' defaults
    (getAllowedCollision: getEntry, else getDefaultEntry, where one link's ALWAYS default
    is enough when the other has none). Unknown names are warnings, their elements left out."""
    known = set(plan.names.values())
    shaped = sorted(set(shaped))
    entries: dict[tuple[str, str], tuple[bool, SourcePos | None]] = {}
    for d in _known(found.enabled, plan, sink):
        entries[(d.link1, d.link2)] = (False, d.pos)
    for d in _known(found.disabled, plan, sink):
        entries[(d.link1, d.link2)] = (True, d.pos)
    out = {key: pos for key, (allow, pos) in entries.items() if allow}
    for default in found.defaults:
        if _unknown(default.link, known, default.pos, sink):
            continue
        for other in shaped:
            key = _key(default.link, other)
            if other != default.link and key not in entries:
                out.setdefault(key, default.pos)
    return out


def allowed(scene: ir.Scene, found: Collisions, sink: DiagnosticSink) -> ir.Scene:
    """The scene with every collision frame pair between two links MoveIt does not check
    (allowed_links) allowed, at the SRDF element's position (MoveIt's meaning: the two
    links are never checked against each other). Pairs the scene itself allows stay allowed,
    even if an <enable_collisions> names them (a warning)."""
    plan = plan_links(scene)
    frames = collision_links(scene, plan)
    pairs = {_key(p.a, p.b): p for p in scene.allowed}
    for (la, lb), pos in allowed_links(found, plan, frames, sink).items():
        for x in frames.get(la, ()):
            for y in frames.get(lb, ()):
                if x != y:
                    pairs.setdefault(_key(x, y), ir.AllowedCollision(*_key(x, y), pos))
    own = set(pairs)
    disabled = {(d.link1, d.link2) for d in found.disabled}
    for d in found.enabled:
        between = [_key(x, y) for x in frames.get(d.link1, ()) for y in frames.get(d.link2, ())]
        if (d.link1, d.link2) not in disabled and own.intersection(between):
            sink.warning(f"<enable_collisions> of {d.link1} and {d.link2} is not applied to "
                         "the frame pairs the scene itself allows (allow_collision)",
                         d.pos or SourcePos("<srdf>"), name="srdf-ignored")
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

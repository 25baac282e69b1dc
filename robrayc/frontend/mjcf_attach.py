"""MJCF `<attach>` and `<replicate>` (expand_replicates). `<attach model body prefix>`
(MuJoCo 3.2+): a body of another model, with its subtree, as a child of the attaching body (or
the worldbody), at the body's own pose, every name prefixed. The other model (`<asset><model
name file>`, its path relative to the attaching model's folder) is read with its own compiler
settings, classes and assets; its contact exclusions and equalities are not read (a
warning)."""

from __future__ import annotations

from pathlib import Path

from robrayc.frontend.xmlsource import local


def attach(loader, el, parent: str | None, offset) -> None:
    """Read the body `el` names from its model into `loader`'s frames under `parent`."""
    from robrayc.frontend.xmlsafe import parse_xml

    sink = loader.sink
    name, body = el.get("model"), el.get("body")
    if name not in loader.models:
        sink.error(f"<attach> names no <model> asset '{name}'", loader.pos(el, "model"),
                   "declare it: <asset><model name=\"NAME\" file=\"FILE\"/></asset>")
        return
    if not body:
        sink.error("<attach> without a body (a whole model) is not read by robrayc",
                   loader.pos(el), "name the body to attach: <attach model body prefix>")
        return
    file, asset = loader.models[name]
    path = loader.dir / file
    at = loader.pos(asset, "file")
    if str(path) in loader.chain:
        cycle = " -> ".join(Path(c).name for c in (*loader.chain, str(path)))
        sink.error(f"<attach> cycle: {cycle}", loader.pos(el, "model"))
        return
    data = loader.ctx.read_source(path, at)
    root = None if data is None else parse_xml(data, str(path), sink, "MJCF")
    if root is None:
        return
    text = data.decode("utf-8", "replace")
    loader.ctx.sources.add(str(path), text)
    # The attaching loader's own class reads the other model: this module imports no loader
    # (mjcf_in imports it, so the reverse import would be a cycle).
    other = type(loader)(loader.ctx, str(path), root, text, within=loader,
                         prefix=loader.prefix + el.get("prefix", ""))
    if other.prepare() is None:
        return
    found = next((b for b in other.root.iter("{*}body", "body") if b.get("name") == body),
                 None)
    if found is None:
        sink.error(f"model '{name}' ({file}) has no body '{body}'", loader.pos(el, "body"))
        return
    for section in other.root:
        if local(section.tag) in ("contact", "equality"):
            other.ignore(f"<{local(section.tag)}> of an attached model", section)
    other.body(found, parent, _childclass(found), offset)
    other.report_lost()


def _childclass(body) -> str:
    """The class a body's ancestors give it (the nearest childclass), else main."""
    node = body.getparent()
    while node is not None:
        if node.get("childclass"):
            return node.get("childclass")
        node = node.getparent()
    return "main"


def expand_replicates(loader, el) -> None:
    """Replace each <replicate count offset euler sep> below `el` by its children, count
    times, copy i in a <frame> placed by (offset, euler) composed i times, every name in it
    followed by sep and i (as many digits as count has), innermost first (as MuJoCo)."""
    import copy

    from robrayc import ir
    from robrayc.frontend.mjcf_geom import given
    from robrayc.kinematics import compose

    for child in list(el):
        if not isinstance(child.tag, str):
            continue
        expand_replicates(loader, child)
        if local(child.tag) != "replicate":
            continue
        attrs = given(child)
        count = loader.numbers(child, "count", text=attrs.get("count", "")) or ()
        if len(count) != 1 or count[0] != int(count[0]) or count[0] < 1:
            loader.sink.error("<replicate> needs a count of 1 or more", loader.pos(child, "count"))
            el.remove(child)
            continue
        offset = loader.numbers(child, "offset", text=attrs.get("offset", "0 0 0")) or ir.ZERO_V
        turn = loader.euler(loader.numbers(child, "euler", text=attrs.get("euler", "0 0 0"))
                            or (0.0, 0.0, 0.0))
        step, pose = (turn, tuple(offset)), (ir.IDENTITY_Q, ir.ZERO_V)
        n, sep, at = int(count[0]), attrs.get("sep", ""), el.index(child)
        for i in range(n):
            frame = child.makeelement("frame", {
                "pos": " ".join(map(repr, pose[1])),
                "quat": " ".join(map(repr, (pose[0][3], *pose[0][:3])))})
            frame.sourceline = child.sourceline
            for part in child:
                frame.append(copy.deepcopy(part))
            for named in frame.iter():
                if isinstance(named.tag, str) and named is not frame and named.get("name"):
                    named.set("name", f"{named.get('name')}{sep}{i:0{len(str(n))}d}")
            el.insert(at + i, frame)
            pose = compose(pose, step)
        el.remove(child)

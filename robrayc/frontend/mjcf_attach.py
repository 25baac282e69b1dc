"""MJCF `<attach model body prefix>` (MuJoCo 3.2+): a body of another model, with its subtree,
as a child of the attaching body (or the worldbody), at the body's own pose, every name
prefixed. The other model (`<asset><model name file>`, its path relative to the attaching
model's folder) is read with its own compiler settings, classes and assets; its contact
exclusions and equalities are not read (a warning)."""

from __future__ import annotations

from pathlib import Path

from robrayc.frontend.xmlsource import local


def attach(loader, el, parent: str | None, offset) -> None:
    """Read the body `el` names from its model into `loader`'s frames under `parent`."""
    from robrayc.frontend.mjcf_in import _Loader
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
    other = _Loader(loader.ctx, str(path), root, text, within=loader,
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

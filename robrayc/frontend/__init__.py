"""Front end: load every input (robray, URDF, JSON, ...), merge, validate -> one Scene.

Loaders are chosen by file suffix through LOADERS (module path, imported on demand); each
exposes ``load(path, ctx) -> Partial``. Merging checks what needs all inputs at once: duplicate
frames, unknown parents, parent cycles and allow_collision names; then orders frames
parents-first with siblings in source order.
"""

from __future__ import annotations

import importlib
import re
from pathlib import Path

from robrayc import ir
from robrayc.diagnostics import DiagnosticSink, SourcePos, suggest
from robrayc.frontend.common import LoadContext, LoadOptions, Partial, PendingFrame
from robrayc.records import replace

__all__ = ["LOADERS", "LoadContext", "LoadOptions", "load_scene", "load_with_context",
           "merge"]

# suffix -> loader module. "" is a file without suffix (robray, as the original).
LOADERS: dict[str, str] = {
    ".robray": "robrayc.frontend.robray",
    ".curly": "robrayc.frontend.robray",
    "": "robrayc.frontend.robray",
    ".board": "robrayc.frontend.cs2_in",
    ".urdf": "robrayc.frontend.urdf",
    ".xml": "robrayc.frontend.urdf",  # or MJCF, SDF: see XML_ROOTS
    ".json": "robrayc.frontend.json_in",
    ".xacro": "robrayc.frontend.xacro_in",
    ".mjcf": "robrayc.frontend.mjcf_in",
    ".sdf": "robrayc.frontend.sdf_in", ".world": "robrayc.frontend.sdf_in",
}
# an .xml file's loader by its root element (others: LOADERS[".xml"])
XML_ROOTS: dict[str, str] = {"mujoco": "robrayc.frontend.mjcf_in",
                             "sdf": "robrayc.frontend.sdf_in"}
# --input-format NAME -> loader, for files whose suffix does not tell
INPUT_FORMATS: dict[str, str] = {
    "robray": "robrayc.frontend.robray", "urdf": "robrayc.frontend.urdf",
    "mjcf": "robrayc.frontend.mjcf_in", "xacro": "robrayc.frontend.xacro_in",
    "json": "robrayc.frontend.json_in", "board": "robrayc.frontend.cs2_in",
    "sdf": "robrayc.frontend.sdf_in",
}
# compiled on first use (re caches them): a .robray compile never reads XML
_ROOT = rb"<(?![?!])([A-Za-z_][\w.:-]*)"
_SKIPPED = rb"(?s)<!--.*?-->|<\?.*?\?>|<!DOCTYPE[^>]*>"


def loader_for(path: Path, input_format: str | None = None) -> str | None:
    if input_format is not None:
        return INPUT_FORMATS[input_format]
    suffix = path.suffix.lower()
    if suffix == ".xml":
        return XML_ROOTS.get(_root_element(path), LOADERS[suffix])
    return LOADERS.get(suffix)


def _root_element(path: Path) -> str:
    """The name of an XML file's root element, from its first 64 KiB ('' if unreadable:
    the loader then reports the problem)."""
    try:
        with open(path, "rb") as fh:
            head = fh.read(65536)
    except OSError:
        return ""
    m = re.search(_ROOT, re.sub(_SKIPPED, b"", head))
    return m.group(1).decode("ascii", "replace").rsplit(":", 1)[-1] if m else ""


def load_scene(paths: list[str], options: LoadOptions | None = None,
               sink: DiagnosticSink | None = None) -> ir.Scene:
    """Load and merge `paths` into one validated Scene; raises CompileError on errors."""
    ctx = LoadContext(options or LoadOptions(), sink or DiagnosticSink())
    return load_with_context(paths, ctx)


def load_with_context(paths: list[str], ctx: LoadContext) -> ir.Scene:
    sink = ctx.sink
    if not paths:
        raise sink.fatal("no input scene")
    partials: list[Partial] = []
    for name in paths:
        path = Path(name)
        module = loader_for(path, ctx.options.input_format)
        if module is None:
            known = ", ".join(repr(s) for s in LOADERS if s)
            sink.error(f"unrecognized scene file suffix '{path.suffix}'", SourcePos(name),
                       f"known suffixes: {known}")
            continue
        partials.append(importlib.import_module(module).load(path, ctx))
    sink.check()
    return merge(partials, ctx)


def merge(partials: list[Partial], ctx: LoadContext) -> ir.Scene:
    sink = ctx.sink
    by_name: dict[str, PendingFrame] = {}
    order: list[PendingFrame] = []
    for part in partials:
        for pending in part.frames:
            f = pending.frame
            first = by_name.get(f.name)
            if first is None:
                by_name[f.name] = pending
                order.append(pending)
            elif first.frame.pos != f.pos:  # the same definition read by two inputs is one
                sink.error(f"duplicate frame '{f.name}'", f.pos,
                           notes=((first.frame.pos, "first defined here"),))
            _check_nul(f, sink)
    root = _root(partials, ctx)
    if root is not None and root in by_name:
        sink.error(f"frame '{root}' is defined in the scene, but --root names it as the frame "
                   "outside the scene that top-level frames hang from", by_name[root].frame.pos,
                   "rename the frame, or drop --root")
    for pending in order:
        parent = pending.frame.parent
        if parent is not None and parent not in by_name:
            if parent == root:  # the root lies outside the scene: a top-level frame
                pending.frame = replace(pending.frame, parent=None)
                continue
            if pending.outside is not None:
                sink.error(f"{pending.outside}: unknown parent link '{parent}' (neither in "
                           "its file nor a frame of another input)", pending.parent_position(),
                           suggest(parent, by_name))
                continue
            sink.error(f"unknown parent frame '{parent}' of frame '{pending.frame.name}'",
                       pending.parent_position(), suggest(parent, by_name))
        elif pending.outside is not None and parent is not None:
            sink.warning(f"{pending.outside}: parent link '{parent}' is not in its file: "
                         "attached to that frame of another input (as the original aarxc)",
                         pending.parent_position(),
                         notes=((by_name[parent].frame.pos, "that frame"),),
                         name="outside-parent")
    sink.check()
    frames = _unique_variables(_parents_first(order, sink), sink)
    sink.check()
    allowed = _allowed(partials, by_name, sink)
    sink.check()
    return ir.Scene(frames=tuple(frames), allowed=tuple(allowed),
                    sources=tuple(ctx.dependencies), root=root,
                    robot_name=next((p.robot_name for p in partials if p.robot_name), None),
                    root_link=next((p.root_link for p in partials if p.root_link), None))


def _unique_variables(frames: list[ir.Frame], sink: DiagnosticSink) -> list[ir.Frame]:
    """A ball or floating joint's variables are generated from its variable V (V_rx, ...:
    ir.joint_variables); one that is also another joint's variable would silently tie the two
    joints. Such a V becomes V_2 (V_3, ...: the first whose names are all free), with a
    warning; frames sharing V (of the same kind) share the new name."""
    multi = [f for f in frames if f.kind in ir.MULTI_DOF_SUFFIXES and f.variable is not None]
    if not multi:  # the common case: one pass, no more (robots of 100,000 links)
        return frames
    scalar = {f.variable for f in frames if f.variable is not None and f.kind != "fixed"
              and f.kind not in ir.MULTI_DOF_SUFFIXES}
    owners: dict[str, set[tuple[str, str]]] = {}  # generated variable -> (kind, V) giving it
    for f in multi:
        for name in ir.joint_variables(f):
            owners.setdefault(name, set()).add((f.kind, f.variable))
    renamed: dict[tuple[str, str], str] = {}
    for f in multi:
        key = (f.kind, f.variable)
        if key in renamed:
            continue
        names = ir.joint_variables(f)
        clash = next((n for n in names if n in scalar or owners[n] != {key}), None)
        if clash is None:
            continue
        k, suffixes = 2, ir.MULTI_DOF_SUFFIXES[f.kind]
        while any(f"{f.variable}_{k}{s}" in owners or f"{f.variable}_{k}{s}" in scalar
                  for s in ("", *suffixes)):
            k += 1
        base = renamed[key] = f"{f.variable}_{k}"
        for name in names:
            owners[name].discard(key)
        for s in suffixes:
            owners[base + s] = {(f.kind, base)}
        sink.warning(f"{f.kind} joint '{f.name}': its variable '{f.variable}' would give "
                     f"'{clash}', another joint's variable, and tie the two: renamed "
                     f"'{base}'", f.pos, name="renamed")
    if not renamed:
        return frames
    return [replace(f, variable=renamed[(f.kind, f.variable)])  # type: ignore[index]
            if (f.kind, f.variable) in renamed else f for f in frames]


def _root(partials: list[Partial], ctx: LoadContext) -> str | None:
    """--root, else the root an input names (a JSON scene); two different roots conflict."""
    root = ctx.options.root
    for part in partials:
        if part.root is not None and root is not None and part.root != root:
            ctx.sink.error(f"the scene's root frame '{part.root}' differs from '{root}'",
                           part.root_pos, "give the same --root, or none")
        root = root or part.root
    return root


def _check_nul(f: ir.Frame, sink: DiagnosticSink) -> None:
    """amino names are C strings: a NUL would silently cut the name (and merge frames)."""
    if "\0" not in f.name and (f.variable is None or "\0" not in f.variable):
        return  # the common case, without building the loop below
    for what, name in (("frame", f.name), ("variable", f.variable)):
        if name is not None and "\0" in name:
            shown = name.replace("\0", "\\0")
            sink.error(f"{what} name '{shown}' contains a NUL character", f.pos,
                       "names are C strings in amino and cannot hold NUL")


def _parents_first(order: list[PendingFrame], sink: DiagnosticSink) -> list[ir.Frame]:
    children: dict[str | None, list[ir.Frame]] = {}
    names = {p.frame.name for p in order}
    for p in order:
        parent = p.frame.parent if p.frame.parent in names else None
        children.setdefault(parent, []).append(p.frame)
    out: list[ir.Frame] = []
    stack = list(reversed(children.get(None, [])))
    while stack:  # iterative pre-order: deep chains cannot hit the recursion limit
        f = stack.pop()
        out.append(f)
        stack.extend(reversed(children.get(f.name, [])))
    if len(out) != len(order):
        _report_cycles(order, {f.name for f in out}, sink)
    return out


def _report_cycles(order: list[PendingFrame], placed: set[str], sink: DiagnosticSink) -> None:
    parent_of = {p.frame.name: p for p in order}
    reported: set[str] = set()
    for p in order:
        if p.frame.name in placed or p.frame.name in reported:
            continue
        chain = [p.frame.name]
        seen = {p.frame.name: 0}
        cur = p.frame.parent
        while cur is not None and cur not in seen and cur in parent_of:
            seen[cur] = len(chain)
            chain.append(cur)
            cur = parent_of[cur].frame.parent
        if cur is None or cur not in seen:
            continue
        cycle = chain[seen[cur]:]
        if reported.intersection(cycle):
            continue
        reported.update(cycle)
        first = parent_of[cycle[0]]
        notes = tuple((parent_of[n].parent_position(),
                       f"'{n}' has parent '{parent_of[n].frame.parent}'") for n in cycle[1:])
        sink.error("parent cycle: " + " -> ".join(cycle + [cycle[0]]),
                   first.parent_position(), notes=notes)


def _allowed(partials: list[Partial], frames: dict, sink: DiagnosticSink):
    pairs: dict[tuple[str, str], ir.AllowedCollision] = {}
    for part in partials:
        for a, b, pos in part.allowed:
            bad = [n for n in (a, b) if n not in frames]
            if bad:
                for n in bad:
                    sink.warning(f"allow_collision names unknown frame '{n}'; pair ignored", pos,
                                 suggest(n, frames), name="unknown-frame")
                continue
            key = (a, b) if a <= b else (b, a)
            pairs.setdefault(key, ir.AllowedCollision(key[0], key[1], pos))
    return [pairs[k] for k in sorted(pairs)]

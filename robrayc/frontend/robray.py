"""robray files -> IR frames: include resolution, constant folding, classes, lowering.

Semantics follow the original (see docs/reference/language.md): defs, classes and frames are
processed in file order, an include inserts the file at that point (once per input), classes
are frozen when defined. Attribute precedence: a block's own attributes (last wins), then its
classes: for geometry and classes the LAST `isa` wins, for frame-level `isa` the FIRST wins.
"""

from __future__ import annotations

import os
from pathlib import Path

from robrayc.diagnostics import DiagnosticSink, SourcePos, suggest
from robrayc.frontend.common import LoadContext, Partial, PendingFrame
from robrayc.frontend.fold import (
    POISONED,
    FoldError,
    Poisoned,
    attribute_value,
    fold,
    node_pos,
)
from robrayc.frontend.parse import decode, parse
from robrayc.frontend.robray_attrs import (
    ALIASES,
    ATTR_TYPES,
    CLASS_ATTRS,
    FRAME_ATTRS,
    GEOM_ATTRS,
    AttributeLowering,
    Block,
    ClassDef,
)
from robrayc.frontend.tree import Node, Tok


class _Unit(AttributeLowering):
    """One top-level input file and everything it includes: one def/class namespace."""

    def __init__(self, ctx: LoadContext, top: Path) -> None:
        self.ctx = ctx
        self.symbols = ctx.symbols  # None unless the language server asks (one test per hook)
        self.sink: DiagnosticSink = ctx.sink
        self.top = top
        self.env: dict[str, float] = {}
        self.def_pos: dict[str, SourcePos] = {}
        self.classes: dict[str, ClassDef] = {}
        self.loaded: set[str] = set()
        self.undeclared: set[str] = set()  # undeclared classes already warned about
        self.partial = Partial()

    # --- files and includes ----------------------------------------------------------------
    def run(self) -> Partial:
        self._load_file(self.top, chain=())
        return self.partial

    def _load_file(self, path: Path, chain: tuple[tuple[str, SourcePos], ...],
                   at: SourcePos | None = None) -> None:
        real = os.path.realpath(path)
        if real in self.loaded:
            return  # a file is read once per input, later includes are no-ops
        file = str(path)
        data = self.ctx.read_source(path, at)
        if data is None:
            return
        self.loaded.add(real)
        text = decode(data, file, self.sink)
        if text is None:  # the error's line is shown from the file as read, bad bytes replaced
            self.ctx.sources.add(file, data.decode("utf-8", "replace"))
            return
        self.ctx.sources.add(file, text)
        if self.symbols is not None:
            self.symbols.begin_file(real, file, text)
        tree = parse(text, file, self.sink)
        if self.symbols is not None:
            self.symbols.end_file(real, tree is not None)
        if tree is None:
            return
        if not tree.children and not chain:
            # the original reads it as an empty scene, and projects commit such files (an
            # empty list of allowed collisions): a warning, not an error
            self.sink.warning("empty scene file: no statements", SourcePos(file, 1, 1, 1, 2),
                              name="empty-scene")
            return
        chain = chain + ((real, at or SourcePos(file)),)
        for stmt in tree.children:
            kind = stmt.data
            try:
                if kind == "include":
                    self._include(stmt, path, chain)
                elif kind == "def_stmt":
                    self._def(stmt, file)
                elif kind == "class_stmt":
                    self._class(stmt, file)
                elif kind == "frame":
                    self._frame(stmt, file, None)
                elif kind == "allow":
                    self._allow(stmt, file)
            except FoldError:
                pass  # already reported; go on with the next statement

    def _include(self, stmt: Node, includer: Path, chain) -> None:
        tok = stmt.children[0]
        file = str(includer)
        pos = tok.pos(file)
        name = str(tok)[1:-1]
        target = resolve_include(name, includer, self.ctx.include_path())
        if self.symbols is not None:
            self.symbols.include(tok, name, file, target and os.path.realpath(target))
        if target is None:
            searched = [str(includer.parent)] + [str(d) for d in self.ctx.include_path()]
            self.sink.error(f"cannot find include file '{name}'", pos,
                            "searched: " + ", ".join(searched))
            return
        real = os.path.realpath(target)
        for i, (done, _) in enumerate(chain):
            if done == real:
                cycle = [os.path.relpath(c[0]) for c in chain[i:]] + [os.path.relpath(real)]
                notes = tuple((p, "included from here") for _, p in chain[i + 1:])
                self.sink.error("include cycle: " + " -> ".join(cycle), pos, notes=notes)
                return
        self.ctx.note_dependency(str(target))
        self._load_file(target, chain, pos)

    # --- defs and classes -------------------------------------------------------------------
    def _def(self, stmt: Node, file: str) -> None:
        tok, expr = stmt.children
        name = str(tok)
        pos = tok.pos(file)
        if self.symbols is not None:
            self.symbols.expression(expr, file)
        try:
            value = fold(expr, self.env, file, self.sink)
        except FoldError:
            self.env[name] = POISONED  # later uses fail quietly: one error, not one per use
            self.def_pos[name] = pos
            if self.symbols is not None:
                self.symbols.define("def", tok, name, file)
            raise
        if self.symbols is not None:
            self.symbols.define("def", tok, name, file, value)
        if name in self.env and not isinstance(self.env[name], Poisoned):
            self.sink.warning(f"redefinition of '{name}' shadows the earlier value", pos,
                              notes=((self.def_pos[name], "previous definition is here"),),
                              name="shadow")
        self.env[name] = value
        self.def_pos[name] = pos

    def _class(self, stmt: Node, file: str) -> None:
        tok = stmt.children[0]
        name = str(tok)
        pos = tok.pos(file)
        if name in self.classes:
            self.sink.error(f"duplicate class '{name}'", pos,
                            notes=((self.classes[name].pos, "first defined here"),))
            return
        block = self._block(stmt.children[1:], file, CLASS_ATTRS, "class", last_isa_wins=True)
        if self.symbols is not None:
            self.symbols.define("class", tok, name, file)
        self.classes[name] = ClassDef(name, block, pos)

    def _block(self, items, file: str, allowed: frozenset[str], context: str,
               last_isa_wins: bool) -> Block:
        """Evaluate a block's attributes, then merge in its classes by precedence."""
        block = Block()
        values, sources = block.values, block.sources
        isa: list[tuple[str, Node]] = []  # the attribute: positions only for a warning
        symbols, env, sink = self.symbols, self.env, self.sink
        for item in items:
            if not isinstance(item, Node) or item.data != "attr":
                continue
            name_tok, value = item.children
            name = name_tok.value
            name = ALIASES.get(name, name)
            if symbols is not None:
                self._record_attribute(name_tok, value, file, context)
            if name not in allowed:
                self._unknown_attr(name, _tok_pos(name_tok, file), allowed, context)
                continue
            kind, lengths = ATTR_TYPES[name]
            try:
                val = attribute_value(name, kind, lengths, value, env, file, sink)
            except FoldError:
                continue
            if name == "isa":
                isa.append((str(val), item))
            else:
                values[name] = val
                sources[name] = (item, file)
        order = reversed(isa) if last_isa_wins else iter(isa)
        for cname, citem in order:
            cdef = self.classes.get(cname)
            if cdef is None:
                if cname in self.undeclared:
                    continue
                self.undeclared.add(cname)
                self.sink.warning(f"class '{cname}' is not declared; kept as a tag only",
                                  _tok_pos(citem.children[0], file),
                                  suggest(cname, self.classes), name="undeclared-class")
                continue
            for key, source in cdef.block.sources.items():
                if key not in values:
                    values[key] = cdef.block.values[key]
                    sources[key] = source
        block.isa = [(cname, self.classes.get(cname)) for cname, _ in isa]
        return block

    def _record_attribute(self, key: Tok, value: Node, file: str, context: str) -> None:
        target = None
        if key.value == "isa" and value.data in ("ident", "string"):
            cname = value.children[0].value
            cname = cname[1:-1] if value.data == "string" else cname
            if cname in self.classes:  # the class the block merges (declared before it)
                target = self.symbols.class_definition(cname)
        self.symbols.attribute(key, value, file, context, target)

    def _unknown_attr(self, name: str, pos: SourcePos, allowed: frozenset[str], context: str):
        if context == "frame" and name in GEOM_ATTRS:
            self.sink.error(f"'{name}' is a geometry attribute, not a frame attribute", pos,
                            "put it inside a 'geometry { ... }' block of the frame")
        elif context == "geometry" and name in FRAME_ATTRS:
            self.sink.error(f"'{name}' is a frame attribute, not a geometry attribute", pos,
                            "put it in the enclosing frame, outside 'geometry { ... }'")
        else:
            self.sink.error(f"unknown attribute '{name}' in {context}", pos,
                            suggest(name, sorted(allowed)))

    # --- frames -------------------------------------------------------------------------------
    def _frame(self, stmt: Node, file: str, enclosing: str | None) -> None:
        # Nested frames are flattened with an explicit stack (no recursion limit).
        work: list[tuple[Node, str | None]] = [(stmt, enclosing)]
        while work:
            node, outer = work.pop()
            children = self._one_frame(node, file, outer)
            work.extend(reversed(children))

    def _one_frame(self, stmt: Node, file: str, outer: str | None) -> list[tuple[Node, str]]:
        name_node = stmt.children[0]
        name = str(name_node.children[0])
        if name_node.data == "string":
            name = name[1:-1]
        pos = node_pos(name_node, file)
        items = stmt.children[1:]
        if self.symbols is not None:
            self.symbols.define("frame", name_node.children[0], name, file, container=outer)
        try:
            block = self._block(items, file, FRAME_ATTRS, "frame", last_isa_wins=False)
        except FoldError:
            block = Block()
        parent: str | None = outer
        parent_pos = None
        if "parent" in block.values:
            if outer is not None:
                self.sink.error(f"cannot reparent nested frame '{name}'", block.pos("parent", pos),
                                f"it is nested in '{outer}', which is its parent")
            else:
                parent = str(block.values["parent"])
                parent_pos = block.position_finder("parent")
        geometries = []
        nested: list[tuple[Node, str]] = []
        for item in items:
            if not isinstance(item, Node):
                continue
            if item.data == "geometry":
                geom = self._geometry(item, file, name)
                if geom is not None:
                    geometries.append(geom)
            elif item.data == "frame":
                nested.append((item, name))
        frame = self._lower_frame(name, parent, block, tuple(geometries), pos)
        if frame is not None:
            self.partial.frames.append(PendingFrame(frame, parent_pos))
        return nested

    # --- allowed collisions ----------------------------------------------------------------
    def _allow(self, stmt: Node, file: str) -> None:
        names = []
        for node in stmt.children:
            text = str(node.children[0])
            names.append(text[1:-1] if node.data == "string" else text)
            if self.symbols is not None:
                self.symbols.frame_reference(node.children[0], names[-1], file)
        pos = node_pos(stmt.children[0], file)
        end = node_pos(stmt.children[1], file)
        pos = SourcePos(file, pos.line, pos.col, end.end_line, end.end_col)
        self.partial.allowed.append((names[0], names[1], pos))



def resolve_include(name: str, includer: Path, include_path: list[Path]) -> Path | None:
    """Where `include "name"` in `includer` leads: the includer's folder, then each folder of
    `include_path` (-I, then ROBRAY_PATH). A name without a suffix first tries the includer's
    suffix, as the original appends it."""
    names = [name]
    if not Path(name).suffix and includer.suffix:
        names.insert(0, name + includer.suffix)
    dirs = [Path("/")] if os.path.isabs(name) else [includer.parent, *include_path]
    for d in dirs:
        for n in names:
            candidate = d / n
            # os.path.exists: Path.exists raises on a name too long (ENAMETOOLONG), EACCES
            if os.path.exists(candidate):
                return candidate
    return None


def _tok_pos(tok: Tok, file: str) -> SourcePos:
    return tok.pos(file)


def _describe(node: Node | Tok) -> str:
    if isinstance(node, Node) and node.data == "array":
        return f"an array of {sum(isinstance(c, Node) for c in node.children)} values"
    if isinstance(node, Node) and node.data == "string":
        return "a string"
    return "a number expression"


def load(path: Path, ctx: LoadContext) -> Partial:
    """Load one top-level robray file (and its includes)."""
    return _Unit(ctx, path).run()

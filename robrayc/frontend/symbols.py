"""What the robray loader saw, for the language server: definitions and references with their
positions, each reference resolved as the loader resolved it (a name in an expression to the
def the fold used, an `isa` to the class the block merged, `parent` and `allow_collision` names
to frames by name, an include to the file it read).

A plain compile records nothing: ``LoadContext.symbols`` is None and each hook in the loader
is one test. Statement extents are not recorded; the server computes them on demand from the
name's offset (``statement_span``).
"""

from __future__ import annotations

from robrayc.diagnostics import SourcePos
from robrayc.frontend.tree import Node, Tok
from robrayc.records import field, record

# attribute -> the kind of name its value is (other attributes hold expressions or strings)
NAME_ATTRS = {"parent": "frame", "isa": "class", "shape": "shape", "type": "joint"}


@record(eq=False, slots=True)
class Definition:
    kind: str  # frame | class | def
    name: str
    pos: SourcePos  # the name
    start: int  # offset of the name in its file's text
    value: float | None = None  # defs: the folded value (None: it failed)
    container: str | None = None  # nested frames: the enclosing frame
    children: list[Definition] = field(default_factory=list)  # nested frames


@record(eq=False, slots=True)
class Reference:
    kind: str  # frame | class | def | include | attr | shape | joint
    name: str
    pos: SourcePos
    target: Definition | None = None  # def / class: what the loader used (None: built-in,
    # undeclared); frames are found by name in SymbolTable.frames once every file is read
    path: str | None = None  # include: the real path it read (None: not found)
    context: str = ""  # attr: frame | geometry | class


@record(eq=False, slots=True)
class FileSymbols:
    path: str  # real path (positions name it)
    text: str
    parsed: bool = False
    definitions: list[Definition] = field(default_factory=list)  # top level, frames nested
    references: list[Reference] = field(default_factory=list)


@record(eq=False)
class SymbolTable:
    files: dict[str, FileSymbols] = field(default_factory=dict)  # real path -> symbols
    frames: dict[str, list[Definition]] = field(default_factory=dict)
    classes: dict[str, list[Definition]] = field(default_factory=dict)
    defs: dict[str, list[Definition]] = field(default_factory=dict)
    included_from: dict[str, Reference] = field(default_factory=dict)  # real path -> include
    _visible: dict[str, Definition] = field(default_factory=dict)  # defs, in load order
    _by_name: dict[str, FileSymbols] = field(default_factory=dict)  # as the loader names files
    _last_frame: dict[str, Definition] = field(default_factory=dict)

    def by_kind(self, kind: str) -> dict[str, list[Definition]]:
        return {"frame": self.frames, "class": self.classes, "def": self.defs}[kind]

    # --- hooks called by the loader ----------------------------------------------------------
    def _pos(self, tok: Tok, file: str) -> SourcePos:
        return tok.pos(self._by_name[file].path)

    def begin_file(self, real: str, file: str, text: str) -> None:
        self._by_name[file] = self.files[real] = FileSymbols(real, text)

    def end_file(self, real: str, parsed: bool) -> None:
        self.files[real].parsed = parsed

    def include(self, tok: Tok, name: str, file: str, target: str | None) -> None:
        ref = Reference("include", name, self._pos(tok, file), path=target)
        self._by_name[file].references.append(ref)
        if target is not None:
            self.included_from.setdefault(target, ref)

    def define(self, kind: str, tok: Tok, name: str, file: str,
               value: float | None = None, container: str | None = None) -> Definition:
        d = Definition(kind, name, self._pos(tok, file), tok.start_pos, value, container)
        self.by_kind(kind).setdefault(name, []).append(d)
        if kind == "def":
            self._visible[name] = d
        outer = self._last_frame.get(container) if container is not None else None
        if outer is not None:
            outer.children.append(d)
        else:
            self._by_name[file].definitions.append(d)
        if kind == "frame":
            self._last_frame[name] = d
        return d

    def current_def(self, name: str) -> Definition | None:
        return self._visible.get(name)

    def class_definition(self, name: str) -> Definition | None:
        found = self.classes.get(name)
        return found[0] if found else None

    def attribute(self, key: Tok, value, file: str, context: str,
                  class_target: Definition | None = None) -> None:
        """An attribute: its key, then the names in its value."""
        refs = self._by_name[file].references
        refs.append(Reference("attr", key.value, self._pos(key, file), context=context))
        kind = NAME_ATTRS.get(key.value)
        if kind is not None and isinstance(value, Node) and value.data in ("ident", "string"):
            tok = value.children[0]
            name = tok.value[1:-1] if value.data == "string" else tok.value
            refs.append(Reference(kind, name, self._pos(tok, file), class_target))
        elif key.value not in ("variable", "mesh"):
            self.expression(value, file)

    def expression(self, expr, file: str) -> None:
        """Names in an expression, each to the def visible now (None: a built-in)."""
        refs = self._by_name[file].references
        stack = [expr]
        while stack:  # iterative: deep expressions must not hit the recursion limit
            node = stack.pop()
            if not isinstance(node, Node):
                continue
            if node.data == "ident":
                tok = node.children[0]
                refs.append(Reference("def", tok.value, self._pos(tok, file),
                                      self._visible.get(tok.value)))
            else:
                stack.extend(reversed(node.children))

    def frame_reference(self, tok: Tok, name: str, file: str) -> None:
        self._by_name[file].references.append(Reference("frame", name, self._pos(tok, file)))

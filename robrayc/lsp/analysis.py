"""What the language server knows about robray files, without the LSP plumbing (no pygls here).

- :class:`Workspace` holds the editor's unsaved texts (overlays) over the file system.
- :func:`compile_diagnostics` runs the REAL front end (``load_with_context``) on a root file,
  reading overlays instead of disk, and returns its diagnostics and, on success, the Scene.
- :func:`build_index` walks a root file and its includes in load order with the real parser
  and records where frames, classes, defs and includes are defined and where names are used,
  folding defs in order (a later ``def`` shadows an earlier one for later uses, as the loader).
- :func:`completion_context` reads the text before the cursor with the grammar's lexer (the
  text there is usually incomplete, so no parse tree) to say what can be typed there.

Positions here are robrayc's: 1-based lines and columns counted in characters, end exclusive.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from robrayc import ir
from robrayc.diagnostics import CompileError, Diagnostic, DiagnosticSink, SourceCache, SourcePos
from robrayc.frontend import LoadContext, LoadOptions, load_with_context
from robrayc.frontend.fold import BUILTINS, FoldError, fold
from robrayc.frontend.parse import decode, parse
from robrayc.frontend.robray import (
    ALIASES,
    ATTR_TYPES,
    CLASS_ATTRS,
    FRAME_ATTRS,
    GEOM_ATTRS,
    JOINT_TYPES,
    SHAPES,
)
from robrayc.frontend.robray import resolve_include as _resolve

Tree = Any  # a parse-tree node: .data, .children
Token = Any  # a token: .type, .line, .column, .end_line, .end_column, str(tok)


def _is_node(x: object) -> bool:
    return hasattr(x, "data") and hasattr(x, "children")


KEYWORDS_TOP = ("include", "def", "class", "frame", "object", "allow_collision")
KEYWORDS_FRAME = ("geometry", "frame", "object")

# One line per attribute, for hover and completion details.
ATTRIBUTE_DOCS: dict[str, str] = {
    "parent": "parent frame (a frame name; not in a nested frame)",
    "translation": "[x, y, z] position in the parent frame",
    "quaternion": "[x, y, z, w] orientation (scalar last); wins over rpy",
    "rpy": "[roll, pitch, yaw] orientation, R = Rz(yaw)·Ry(pitch)·Rx(roll)",
    "type": "joint type: fixed (default), revolute or prismatic",
    "axis": "[x, y, z] joint axis (required for revolute and prismatic)",
    "offset": "joint offset added to the configuration value",
    "variable": "configuration variable name (default: the frame name)",
    "isa": "class name: inherit its attributes and tag the geometry (repeatable)",
    "limit_position": "[min, max] joint position limits (extension)",
    "limit_velocity": "max or [min, max] joint velocity limit (extension)",
    "limit_acceleration": "max or [min, max] joint acceleration limit (extension)",
    "limit_effort": "max or [min, max] joint effort limit (extension)",
    "mass": "link mass (extension)",
    "link": "the robot link (URDF) this frame stands for or holds a part of (extension)",
    "link_role": "link (default), visual, collision or inertial: what the frame is to its link",
    "robot": "robot name, on a top-level frame (extension; URDF <robot name>)",
    "root_link": "the robot's root link, on a top-level frame (extension)",
    "material": "material name of the robot description (extension; URDF <material>)",
    "inertia": "[ixx, ixy, ixz, iyy, iyz, izz] or a 3x3 matrix (extension)",
    "shape": "box, sphere, cylinder, cone or grid",
    "mesh": '"file" mesh geometry (instead of shape)',
    "dimension": "[x, y, z] box size, or [x, y] grid size",
    "radius": "sphere or cylinder radius",
    "height": "cylinder or cone height (along +Z from the frame origin)",
    "start_radius": "cone radius at z = 0",
    "end_radius": "cone radius at z = height",
    "delta": "[dx, dy] grid cell size",
    "thickness": "grid line thickness",
    "color": "[r, g, b] colour, 0..1 (default 0.8 grey)",
    "alpha": "opacity, 0..1 (default 1)",
    "specular": "[r, g, b] specular colour (default 0)",
    "scale": "mesh scale factor (default 1)",
    "visual": "non-zero: drawn (default 1)",
    "collision": "non-zero: a collision object (default 1)",
    "no-shadow": "non-zero: casts no shadow (default 0)",
    "no_shadow": "same as no-shadow",
}


# --- the editor's texts over the file system ----------------------------------------------------


def real(path: str | Path) -> str:
    return os.path.realpath(path)


@dataclass
class Workspace:
    """Unsaved editor texts by real path; everything else is read from disk."""

    overlays: dict[str, str] = field(default_factory=dict)
    options: LoadOptions = field(default_factory=LoadOptions)

    def set_text(self, path: str | Path, text: str) -> None:
        self.overlays[real(path)] = text

    def drop(self, path: str | Path) -> None:
        self.overlays.pop(real(path), None)

    def read(self, path: str | Path) -> str | None:
        key = real(path)
        if key in self.overlays:
            return self.overlays[key]
        try:
            data = Path(path).read_bytes()
        except OSError:
            return None
        return decode(data, str(path), DiagnosticSink())


class _EditorContext(LoadContext):
    """The real load context, except that open documents are read from the editor."""

    def __init__(self, workspace: Workspace, sink: DiagnosticSink) -> None:
        super().__init__(workspace.options, sink)
        self.workspace = workspace

    def read_source(self, path: Path, at: SourcePos | None = None) -> bytes | None:
        text = self.workspace.overlays.get(real(path))
        if text is None:
            return super().read_source(path, at)
        self.note_dependency(str(path))
        return text.encode("utf-8")


@dataclass
class Compiled:
    diagnostics: list[Diagnostic]
    scene: ir.Scene | None
    files: list[str]  # real paths of every file read
    sources: SourceCache = field(default_factory=SourceCache)  # the texts read, for rendering


def compile_diagnostics(workspace: Workspace, root: str | Path) -> Compiled:
    """Run the real front end on `root`; never raises."""
    sink = DiagnosticSink()
    ctx = _EditorContext(workspace, sink)
    scene = None
    try:
        scene = load_with_context([str(root)], ctx)
    except CompileError:
        pass
    except RecursionError:
        sink.error("input nested too deeply", SourcePos(str(root), 1, 1, 1, 2))
    except Exception as exc:  # a compiler bug must not take the editor's server down
        sink.error(f"robrayc internal error: {type(exc).__name__}: {exc}",
                   SourcePos(str(root), 1, 1, 1, 2))
    files = [real(p) for p in ctx.dependencies] or [real(root)]
    return Compiled(list(sink.items), scene, files, ctx.sources)


# --- symbol index -------------------------------------------------------------------------------


@dataclass
class Symbol:
    kind: str  # frame | class | def
    name: str
    pos: SourcePos  # the name
    span: SourcePos  # the whole statement
    order: int  # load order (defs: later ones shadow earlier ones)
    value: float | None = None  # defs: the folded value
    container: str | None = None  # frames: the enclosing frame
    children: list[Symbol] = field(default_factory=list)


@dataclass
class Ref:
    kind: str  # frame | class | def | include | shape | joint | attr
    name: str
    pos: SourcePos
    order: int
    target: str | None = None  # include: the resolved real path
    context: str = ""  # attr: frame | geometry | class


@dataclass
class FileIndex:
    path: str  # real path
    text: str
    symbols: list[Symbol] = field(default_factory=list)  # top level, frames nested
    refs: list[Ref] = field(default_factory=list)
    parsed: bool = False


@dataclass
class Index:
    root: str
    files: dict[str, FileIndex] = field(default_factory=dict)  # load order
    frames: dict[str, list[Symbol]] = field(default_factory=dict)
    classes: dict[str, list[Symbol]] = field(default_factory=dict)
    defs: dict[str, list[Symbol]] = field(default_factory=dict)
    included_from: dict[str, Ref] = field(default_factory=dict)  # file -> include that read it

    def all_symbols(self, kind: str) -> dict[str, list[Symbol]]:
        return {"frame": self.frames, "class": self.classes, "def": self.defs}[kind]

    def visible_def(self, name: str, order: int) -> Symbol | None:
        """The def a use at load position `order` sees (the last one before it)."""
        cands = self.defs.get(name, [])
        before = [s for s in cands if s.order < order]
        if before:
            return before[-1]
        return cands[0] if cands else None

    def at(self, path: str, line: int, col: int) -> Symbol | Ref | None:
        """The symbol name or reference under (line, col) in `path`."""
        fi = self.files.get(real(path))
        if fi is None:
            return None
        for ref in fi.refs:
            if _contains(ref.pos, line, col):
                return ref
        stack = list(fi.symbols)
        while stack:
            sym = stack.pop()
            if _contains(sym.pos, line, col):
                return sym
            stack.extend(sym.children)
        return None


def _contains(pos: SourcePos, line: int, col: int) -> bool:
    if pos.line <= 0:
        return False
    end_line = pos.end_line or pos.line
    end_col = pos.end_col or pos.col + 1
    if (line, col) < (pos.line, pos.col):
        return False
    return (line, col) <= (end_line, end_col)  # the end too: the cursor just after a name


def resolve_include(name: str, includer: Path, options: LoadOptions) -> Path | None:
    """Where `include "name"` in `includer` leads, exactly as the loader resolves it."""
    return _resolve(name, includer, LoadContext(options, DiagnosticSink()).include_path())


# --- tokens -------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Lexeme:
    type: str
    value: str
    line: int
    column: int
    end_line: int
    end_column: int
    start_pos: int
    end_pos: int

    def __str__(self) -> str:
        return self.value


@lru_cache(maxsize=1)
def _lexer() -> tuple[re.Pattern, frozenset[str], dict[str, str]]:
    """One regex over the grammar's terminals (from the tables generated from
    grammar/robray.lark), the ignored terminals and the keyword map."""
    from robrayc.frontend import _tables as t

    terminals, ignore, keywords = t.TERMINALS, t.IGNORE, t.KEYWORDS
    master = re.compile("|".join(f"(?P<{name}>{rx})" for name, rx in terminals
                                 if name not in keywords.values()))
    return master, frozenset(ignore), dict(keywords)


def lex(text: str) -> tuple[list[Lexeme], int | None]:
    """The tokens of `text` and, if lexing stopped early, the offset where no token matched.
    A name is a keyword when it starts a statement (where the parser would take it as one)."""
    master, ignore, keywords = _lexer()
    out: list[Lexeme] = []
    pos, line, line_start, n = 0, 1, 0, len(text)
    while pos < n:
        m = master.match(text, pos)
        if m is None or m.end() == pos:
            return out, pos
        kind, value = m.lastgroup or "", m.group()
        end_line, end_start = line, line_start
        if "\n" in value:
            end_line = line + value.count("\n")
            end_start = pos + value.rindex("\n") + 1
        if kind not in ignore:
            if kind == "NAME" and value in keywords and (
                    not out or out[-1].type in ("SEMICOLON", "LBRACE", "RBRACE")):
                kind = keywords[value]
            out.append(Lexeme(kind, value, line, pos - line_start + 1, end_line,
                              m.end() - end_start + 1, pos, m.end()))
        line, line_start, pos = end_line, end_start, m.end()
    return out, None


def _tok_pos(file: str, tok: Token) -> SourcePos:
    return SourcePos(file, tok.line, tok.column, tok.end_line or tok.line,
                     tok.end_column or tok.column + len(tok))


def _name_of(node: Tree) -> tuple[str, Token]:
    tok = node.children[0]
    text = str(tok)
    return (text[1:-1] if node.data == "string" else text), tok


class _Indexer:
    def __init__(self, workspace: Workspace, root: str | Path) -> None:
        self.ws = workspace
        self.index = Index(real(root))
        self.order = 0
        self.env: dict[str, float] = {}

    def tick(self) -> int:
        self.order += 1
        return self.order

    def run(self) -> Index:
        self.file(Path(self.index.root))
        return self.index

    def file(self, path: Path) -> None:
        key = real(path)
        if key in self.index.files:
            return
        text = self.ws.read(path)
        fi = FileIndex(key, text or "")
        self.index.files[key] = fi
        if text is None:
            return
        tree = parse(text, str(path), DiagnosticSink())
        if tree is None:
            return
        fi.parsed = True
        spans = _Spans(text, key)
        for stmt in tree.children:
            self.statement(stmt, path, fi, spans)

    def statement(self, stmt: Tree, path: Path, fi: FileIndex, spans: _Spans) -> None:
        file = fi.path
        if stmt.data == "include":
            tok = stmt.children[0]
            target = resolve_include(str(tok)[1:-1], path, self.ws.options)
            ref = Ref("include", str(tok)[1:-1], _tok_pos(file, tok), self.tick(),
                      target=real(target) if target else None)
            fi.refs.append(ref)
            if target is not None and real(target) not in self.index.files:
                self.index.included_from[real(target)] = ref
                self.file(target)
        elif stmt.data == "def_stmt":
            tok, expr = stmt.children
            self.expr_refs(expr, fi)
            try:
                value = fold(expr, self.env, file, DiagnosticSink())
            except (FoldError, RecursionError):
                value = None
            if value is not None:
                self.env[str(tok)] = value
            sym = Symbol("def", str(tok), _tok_pos(file, tok), spans.statement(tok),
                         self.tick(), value=value)
            fi.symbols.append(sym)
            self.index.defs.setdefault(sym.name, []).append(sym)
        elif stmt.data == "class_stmt":
            tok = stmt.children[0]
            sym = Symbol("class", str(tok), _tok_pos(file, tok), spans.statement(tok),
                         self.tick())
            fi.symbols.append(sym)
            self.index.classes.setdefault(sym.name, []).append(sym)
            self.items(stmt.children[1:], fi, "class", None)
        elif stmt.data == "frame":
            fi.symbols.append(self.frame(stmt, fi, spans, None))
        elif stmt.data == "allow":
            for node in stmt.children:
                name, tok = _name_of(node)
                fi.refs.append(Ref("frame", name, _tok_pos(file, tok), self.tick()))

    def frame(self, stmt: Tree, fi: FileIndex, spans: _Spans, outer: Symbol | None) -> Symbol:
        # Iterative, like the loader: nesting depth must not hit the recursion limit.
        name, tok = _name_of(stmt.children[0])
        top = Symbol("frame", name, _tok_pos(fi.path, tok), spans.statement(tok), self.tick(),
                     container=outer.name if outer else None)
        work = [(stmt, top)]
        while work:
            node, sym = work.pop()
            self.index.frames.setdefault(sym.name, []).append(sym)
            nested = self.items(node.children[1:], fi, "frame", sym)
            for child in nested:
                cname, ctok = _name_of(child.children[0])
                csym = Symbol("frame", cname, _tok_pos(fi.path, ctok), spans.statement(ctok),
                              self.tick(), container=sym.name)
                sym.children.append(csym)
                work.append((child, csym))
        return top

    def items(self, items, fi: FileIndex, context: str, frame: Symbol | None) -> list[Tree]:
        nested = []
        for item in items:
            if not _is_node(item):
                continue
            if item.data == "attr":
                self.attr(item, fi, context)
            elif item.data == "geometry":
                self.items(item.children, fi, "geometry", frame)
            elif item.data == "frame":
                nested.append(item)
        return nested

    def attr(self, item: Tree, fi: FileIndex, context: str) -> None:
        key_tok, value = item.children
        key = str(key_tok)
        fi.refs.append(Ref("attr", key, _tok_pos(fi.path, key_tok), self.tick(),
                           context=context))
        kinds = {"parent": "frame", "isa": "class", "shape": "shape", "type": "joint"}
        if key in kinds and _is_node(value) and value.data in ("ident", "string"):
            name, tok = _name_of(value)
            kind = kinds[key]
            # The loader replaces a shape/type/parent value by a def of the same name.
            if kind != "class" and value.data == "ident" and name in self.env:
                kind = "def"
            fi.refs.append(Ref(kind, name, _tok_pos(fi.path, tok), self.tick()))
        elif key in ("variable", "mesh"):
            return
        else:
            self.expr_refs(value, fi)

    def expr_refs(self, expr, fi: FileIndex) -> None:
        stack = [expr]
        while stack:  # iterative: deep expressions must not hit the recursion limit
            node = stack.pop()
            if not _is_node(node):
                continue
            if node.data == "ident":
                tok = node.children[0]
                fi.refs.append(Ref("def", str(tok), _tok_pos(fi.path, tok), self.tick()))
            else:
                stack.extend(reversed(node.children))


class _Spans:
    """Statement extents from the token stream: keyword before the name to the matching `}`
    (frames and classes) or `;` (defs)."""

    def __init__(self, text: str, file: str) -> None:
        self.file = file
        self.tokens, _ = lex(text)
        self.at = {(t.line, t.column): i for i, t in enumerate(self.tokens)}
        self.match: dict[int, int] = {}
        stack: list[int] = []
        for i, t in enumerate(self.tokens):
            if t.type == "LBRACE":
                stack.append(i)
            elif t.type == "RBRACE" and stack:
                self.match[stack.pop()] = i

    def statement(self, name: Token) -> SourcePos:
        i = self.at.get((name.line, name.column))
        if i is None:
            return _tok_pos(self.file, name)
        start = self.tokens[i - 1] if i > 0 else self.tokens[i]
        end = self.tokens[i]
        if i + 1 < len(self.tokens) and self.tokens[i + 1].type == "LBRACE":
            end = self.tokens[self.match.get(i + 1, i + 1)]
        else:
            j = i
            while j + 1 < len(self.tokens) and self.tokens[j].type != "SEMICOLON":
                j += 1
            end = self.tokens[j]
        return SourcePos(self.file, start.line, start.column, end.end_line or end.line,
                         end.end_column or end.column + 1)


def build_index(workspace: Workspace, root: str | Path) -> Index:
    return _Indexer(workspace, root).run()


# --- hover texts --------------------------------------------------------------------------------


def _fmt(x: float) -> str:
    return repr(round(x, 12) + 0.0)


def _vec(v) -> str:
    return "[" + ", ".join(_fmt(x) for x in v) + "]"


def frame_hover(scene: ir.Scene | None, name: str) -> str | None:
    """Markdown describing a frame: its joint and its absolute pose at the zero configuration."""
    if scene is None or not scene.has_frame(name):
        return None
    from robrayc.kinematics import absolute_poses, quat_to_rpy

    f = scene.frame(name)
    q, v = absolute_poses(scene)[name]
    roll, pitch, yaw = quat_to_rpy(q)
    lines = [f"**frame** `{name}`" + (f" (child of `{f.parent}`)" if f.parent else " (root)")]
    if f.is_joint:
        lines.append(f"- {f.kind} joint, variable `{f.variable}`, axis {_vec(f.axis or ())}")
    lines.append(f"- relative translation {_vec(f.translation)}, quaternion {_vec(f.quaternion)}")
    lines.append("- absolute pose (all joints at 0):")
    lines.append(f"  - translation {_vec(v)}")
    lines.append(f"  - quaternion [x, y, z, w] {_vec(q)}")
    lines.append(f"  - rpy {_vec((roll, pitch, yaw))}")
    if f.geometries:
        shapes = ", ".join(ir.shape_name(g.shape) for g in f.geometries)
        lines.append(f"- geometry: {shapes}")
    return "\n".join(lines)


def def_hover(sym: Symbol) -> str:
    value = "(cannot be evaluated)" if sym.value is None else repr(sym.value)
    return f"**def** `{sym.name}` = `{value}`\n\ndefined at {sym.pos}"


def attribute_hover(name: str) -> str | None:
    doc = ATTRIBUTE_DOCS.get(name)
    if doc is None:
        return None
    where = []
    key = ALIASES.get(name, name)
    if key in FRAME_ATTRS:
        where.append("frame")
    if key in GEOM_ATTRS:
        where.append("geometry")
    if key in CLASS_ATTRS:
        where.append("class")
    kind, lengths = ATTR_TYPES.get(key, ("", ()))
    shape = f"{kind}" + (f" of {' or '.join(map(str, lengths))}" if lengths else "")
    return f"**{name}** ({', '.join(where)} attribute; {shape})\n\n{doc}"


def builtin_hover(name: str) -> str | None:
    if name in BUILTINS:
        return f"built-in constant `{name}` = `{BUILTINS[name]!r}`"
    return None


# --- completion context -------------------------------------------------------------------------


@dataclass
class CompletionContext:
    block: str  # top | frame | geometry | class | other
    kind: str  # statement | shape | joint | frame | class | value | include | allow | none
    prefix: str  # the part of the word before the cursor


def completion_context(text_before: str) -> CompletionContext:
    """What may be typed at the end of `text_before` (the document up to the cursor)."""
    tokens, stop = lex(text_before)
    in_string = False
    if stop is not None:
        rest = text_before[stop:]
        if rest.startswith('"'):
            in_string = True
        else:  # an unterminated /* comment, or a character no token starts with
            return CompletionContext("other", "none", "")
    if not in_string and text_before and _in_line_comment(text_before, tokens):
        return CompletionContext("other", "none", "")

    # Blocks open at the cursor, from the braces.
    blocks: list[str] = []
    for i, tok in enumerate(tokens):
        if tok.type == "LBRACE":
            before = [t.type for t in tokens[max(0, i - 2):i]]
            if before[-1:] == ["GEOMETRY"]:
                blocks.append("geometry")
            elif before[:1] in (["FRAME"], ["OBJECT"]):
                blocks.append("frame")
            elif before[:1] == ["CLASS"]:
                blocks.append("class")
            else:
                blocks.append("other")
        elif tok.type == "RBRACE" and blocks:
            blocks.pop()
    block = blocks[-1] if blocks else "top"

    # The statement so far: tokens after the last `;`, `{` or `}`.
    stmt: list[Token] = []
    for tok in reversed(tokens):
        if tok.type in ("SEMICOLON", "LBRACE", "RBRACE"):
            break
        stmt.insert(0, tok)
    prefix = ""
    if in_string:
        prefix = text_before[text_before.rfind('"') + 1:]
        if stmt and stmt[0].type == "INCLUDE":
            return CompletionContext(block, "include", prefix)
        if stmt and stmt[0].type == "ALLOW_COLLISION":
            return CompletionContext(block, "allow", prefix)
        return CompletionContext(block, "none", prefix)
    if stmt and stmt[-1].type == "NAME" and stmt[-1].end_pos == len(text_before):
        prefix = str(stmt.pop())  # a word being typed
    elif stmt and stmt[-1].end_pos == len(text_before) and stmt[-1].type in (
            "FRAME", "OBJECT", "CLASS", "DEF", "GEOMETRY", "INCLUDE", "ALLOW_COLLISION"):
        prefix = str(stmt.pop())  # a keyword being typed, e.g. `geo`metry completed
    if not stmt:
        return CompletionContext(block, "statement", prefix)
    first = stmt[0]
    if first.type == "NAME":
        attr = str(first)
        if len(stmt) == 1:
            return CompletionContext(block, {"shape": "shape", "type": "joint",
                                             "parent": "frame", "isa": "class"}.get(attr, "value"),
                                     prefix)
        return CompletionContext(block, "value", prefix)
    if first.type == "ALLOW_COLLISION" and len(stmt) <= 2:
        return CompletionContext(block, "allow", prefix)
    if first.type == "DEF" and len(stmt) >= 2:
        return CompletionContext(block, "value", prefix)
    return CompletionContext(block, "none", prefix)


def _in_line_comment(text: str, tokens: list[Token]) -> bool:
    """Is the end of `text` inside a // or # comment?"""
    line_start = text.rfind("\n") + 1
    last_end = tokens[-1].end_pos if tokens else 0
    tail = text[max(line_start, last_end):]
    return "//" in tail or "#" in tail


def shapes() -> tuple[str, ...]:
    return SHAPES


def joint_types() -> tuple[str, ...]:
    return JOINT_TYPES


def attributes_for(block: str) -> list[str]:
    names = {"frame": FRAME_ATTRS, "geometry": GEOM_ATTRS, "class": CLASS_ATTRS}.get(block)
    return sorted(names) if names else []

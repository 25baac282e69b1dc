"""What the language server knows about robray files, without the LSP plumbing (no pygls here).

- :class:`Workspace` holds the editor's unsaved texts (overlays) over the file system.
- :func:`compile_diagnostics` runs the REAL front end (``load_with_context``) on a root file,
  reading overlays instead of disk, and returns its diagnostics, on success the Scene, and
  the :class:`Index` of what the loader recorded (frontend/symbols.py): definitions and
  references resolved as the compiler resolved them (no second indexer).
- :func:`completion_context` reads the text before the cursor with the front end's tokens
  (the text there is usually incomplete, so no parse tree) to say what can be typed there.

Positions here are robrayc's: 1-based lines and columns counted in characters, end exclusive.
"""

from __future__ import annotations

import os
import re
from bisect import bisect_left
from functools import lru_cache
from pathlib import Path

from robrayc import ir
from robrayc.diagnostics import CompileError, Diagnostic, DiagnosticSink, SourceCache, SourcePos
from robrayc.frontend import LoadContext, LoadOptions, load_with_context
from robrayc.frontend.fold import BUILTINS
from robrayc.frontend.parse import decode, tokens
from robrayc.frontend.parse import lex as lex_text
from robrayc.frontend.robray import resolve_include as _resolve
from robrayc.frontend.robray_attrs import (
    ALIASES,
    ATTR_TYPES,
    CLASS_ATTRS,
    FRAME_ATTRS,
    GEOM_ATTRS,
    JOINT_TYPES,
    SHAPES,
)
from robrayc.frontend.symbols import Definition, FileSymbols, Reference, SymbolTable
from robrayc.frontend.tree import Lines, Tok
from robrayc.records import field, record

KEYWORDS_TOP = ("include", "def", "class", "frame", "object", "allow_collision")
KEYWORDS_FRAME = ("geometry", "frame", "object")

# One line per attribute, for hover and completion details.
ATTRIBUTE_DOCS: dict[str, str] = {
    "parent": "parent frame (a frame name; not in a nested frame)",
    "translation": "[x, y, z] position in the parent frame",
    "quaternion": "[x, y, z, w] orientation (scalar last); wins over rpy",
    "rpy": "[roll, pitch, yaw] orientation, R = Rz(yaw)·Ry(pitch)·Rx(roll)",
    "type": "joint type: fixed (default), revolute, prismatic, ball (variables VAR_rx, _ry, "
            "_rz: a rotation vector) or floating (VAR_x, _y, _z, then VAR_rx, _ry, _rz)",
    "axis": "[x, y, z] joint axis (required for revolute and prismatic)",
    "offset": "joint offset added to the configuration value",
    "variable": "configuration variable name (default: the frame name; a ball or floating "
                "joint's variables are named by suffixes of it)",
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


@record
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


@record
class Index:
    """Definitions and references the loader recorded while compiling `root`."""

    root: str
    table: SymbolTable

    @property
    def files(self) -> dict[str, FileSymbols]:
        return self.table.files

    @property
    def frames(self) -> dict[str, list[Definition]]:
        return self.table.frames

    @property
    def classes(self) -> dict[str, list[Definition]]:
        return self.table.classes

    @property
    def included_from(self) -> dict[str, Reference]:
        return self.table.included_from

    def all_symbols(self, kind: str) -> dict[str, list[Definition]]:
        return self.table.by_kind(kind)

    def at(self, path: str, line: int, col: int) -> Definition | Reference | None:
        """The definition's name or the reference under (line, col) in `path`."""
        fi = self.files.get(real(path))
        if fi is None:
            return None
        for ref in fi.references:
            if _contains(ref.pos, line, col):
                return ref
        stack = list(fi.definitions)
        while stack:
            sym = stack.pop()
            if _contains(sym.pos, line, col):
                return sym
            stack.extend(sym.children)
        return None


@record
class Compiled:
    diagnostics: list[Diagnostic]
    scene: ir.Scene | None
    files: list[str]  # real paths of every file read
    sources: SourceCache = field(default_factory=SourceCache)  # the texts read, for rendering
    index: Index = field(default_factory=lambda: Index("", SymbolTable()))


def compile_diagnostics(workspace: Workspace, root: str | Path) -> Compiled:
    """Run the real front end on `root`, recording definitions and references; never raises."""
    sink = DiagnosticSink()
    ctx = _EditorContext(workspace, sink)
    ctx.symbols = SymbolTable()
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
    return Compiled(list(sink.items), scene, files, ctx.sources, Index(real(root), ctx.symbols))


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


_STATEMENT_KEYWORD = re.compile(r"\b(?:frame|object|class|def)\s*$")


@lru_cache(maxsize=4)
def _file_tokens(text: str) -> tuple[list[int], list[str], list[int], Lines]:
    """The starts, types and ends of a text's tokens and its lines, made once for all its
    statements (the outline asks for every definition's span)."""
    lexed = lex_text(text)
    starts = [end - len(word) for word, end in zip(lexed.texts, lexed.ends, strict=True)]
    return starts, [lexed.kind[word] for word in lexed.texts], lexed.ends, lexed.lines


def statement_span(fi: FileSymbols, d: Definition) -> SourcePos:
    """A definition's whole statement: the keyword before its name (when only blanks separate
    them) to its closing `}` (or a def's `;`), found with the front end's own tokens."""
    text = fi.text
    keyword = _STATEMENT_KEYWORD.search(text, max(0, d.start - 64), d.start)
    start = keyword.start() if keyword else d.start
    starts, types, ends, lines = _file_tokens(text)
    depth, end = 0, None
    for k in range(bisect_left(starts, d.start), len(types)):
        kind = types[k]
        if kind == "LBRACE":
            depth += 1
        elif kind == "RBRACE":
            depth -= 1
        end = ends[k]
        if (depth == 0 and kind in ("RBRACE", "SEMICOLON")) or depth < 0:
            break
    line, col = lines.position(start)
    end_line, end_col = lines.position(end if end is not None else d.start)
    return SourcePos(fi.path, line, col, end_line, end_col)


# --- tokens -------------------------------------------------------------------------------------


def lex(text: str) -> tuple[list[Tok], int | None]:
    """The front end's tokens of `text` and, if they stopped early, the offset where no token
    matched. A name is a keyword when it starts a statement (where the parser takes it as one)."""
    from robrayc.frontend._tables import KEYWORDS

    out: list[Tok] = []
    for tok in tokens(text):
        if tok.type == "$BAD":
            return out, tok.start_pos
        if tok.type == "NAME" and tok.value in KEYWORDS and (
                not out or out[-1].type in ("SEMICOLON", "LBRACE", "RBRACE")):
            tok.type = KEYWORDS[tok.value]
        out.append(tok)
    return out, None


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
    if f.is_multi_dof:
        names = ", ".join(f"`{n}`" for n in ir.joint_variables(f))
        lines.append(f"- {f.kind} joint, variables {names}")
    elif f.is_joint:
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


def def_hover(sym: Definition) -> str:
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


@record
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
    stmt: list[Tok] = []
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


def _in_line_comment(text: str, tokens: list[Tok]) -> bool:
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

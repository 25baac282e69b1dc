"""The robray language server (`robrayc lsp`), on pygls 2 over stdio.

- Diagnostics from the real compiler (the front end, with the editor's unsaved texts) on open,
  change and save, for the document and for the files it includes. A file included by another
  open document is checked as part of that document (its defs and classes come from there).
  A problem in an included file that is not open is also shown on the `include` line.
- Go to definition: `parent`, `isa`, names in expressions (the `def` that use sees),
  `allow_collision` names, `include` paths; across included files and open documents.
- Hover: a def's folded value, a frame's joint and absolute pose, an attribute's meaning.
- Completion: attribute names by block (frame / geometry / class), statement keywords, shapes,
  joint types, known frames / classes / defs, include file names.
- Document symbols: frames (nested), classes, defs.

pygls is imported here only; `robrayc` compiles never import this module. The analysis itself
lives in robrayc.lsp.analysis (no pygls), which `robrayc lsp --check` also uses.
"""

from __future__ import annotations

import logging
import os
from pathlib import Path

from lsprotocol import types as lsp
from pygls.lsp.server import LanguageServer
from pygls.uris import from_fs_path, to_fs_path

from robrayc import __version__
from robrayc.diagnostics import Diagnostic, SourcePos
from robrayc.frontend import LoadOptions
from robrayc.lsp.analysis import (
    ATTRIBUTE_DOCS,
    KEYWORDS_FRAME,
    KEYWORDS_TOP,
    Compiled,
    Definition,
    Index,
    Reference,
    Workspace,
    attribute_hover,
    attributes_for,
    builtin_hover,
    compile_diagnostics,
    completion_context,
    def_hover,
    frame_hover,
    joint_types,
    real,
    shapes,
    statement_span,
)

log = logging.getLogger("robrayc.lsp.server")


class Analysis:
    """One root document: its compile result and its symbol index."""

    def __init__(self, root: str, compiled: Compiled) -> None:
        self.root = root
        self.compiled = compiled
        self.index = compiled.index
        self.scene = compiled.scene

    @property
    def files(self) -> set[str]:
        return set(self.compiled.files) | set(self.index.files)


class RobrayServer(LanguageServer):
    def __init__(self) -> None:
        super().__init__("robrayc", __version__,
                         text_document_sync_kind=lsp.TextDocumentSyncKind.Incremental)
        self.files = Workspace()
        self.analyses: dict[str, Analysis] = {}  # root real path -> analysis
        self.last_scene: dict[str, object] = {}  # root -> last scene that compiled
        self.published: dict[str, set[str]] = {}  # root -> uris it published to
        self.last_index: dict[str, Index] = {}  # root -> last index whose root file parsed

    # --- documents ------------------------------------------------------------------------------
    def open_paths(self) -> list[str]:
        out = []
        for uri in list(self.workspace.text_documents):
            path = to_fs_path(uri)
            if path is not None:
                out.append(real(path))
        return out

    def text_of(self, path: str) -> str:
        text = self.files.read(path)
        return text if text is not None else ""

    def roots_for(self, path: str) -> list[str]:
        """The root documents whose analysis covers `path`: the open documents that include it,
        else the document itself."""
        roots = [r for r, a in self.analyses.items() if r != path and path in a.files
                 and r in self.files.overlays]
        return roots or [path]

    def refresh(self, path: str) -> None:
        """Re-check everything `path` takes part in and publish the diagnostics."""
        roots = self.roots_for(path)
        if roots != [path]:
            # `path` is checked as part of its includers: it is not a root of its own.
            self.forget_root(path)
        for root in roots:
            self.analyse(root)

    def forget_root(self, root: str) -> None:
        self.analyses.pop(root, None)
        for uri in self.published.pop(root, set()):
            if not any(uri in s for s in self.published.values()):
                self.text_document_publish_diagnostics(
                    lsp.PublishDiagnosticsParams(uri=uri, diagnostics=[]))

    def analyse(self, root: str) -> Analysis:
        compiled = compile_diagnostics(self.files, root)
        index = compiled.index
        analysis = Analysis(root, compiled)
        if index.files.get(root) is not None and index.files[root].parsed:
            self.last_index[root] = index
        if compiled.scene is None:
            analysis.scene = self.last_scene.get(root)  # hover keeps working while editing
        else:
            self.last_scene[root] = compiled.scene
        self.analyses[root] = analysis
        self.publish(analysis)
        return analysis

    def analysis_for(self, path: str) -> Analysis:
        for root in self.roots_for(path):
            if root in self.analyses:
                return self.analyses[root]
        return self.analyse(path)

    # --- diagnostics ----------------------------------------------------------------------------
    def publish(self, analysis: Analysis) -> None:
        by_file: dict[str, list[lsp.Diagnostic]] = {p: [] for p in analysis.files}
        open_files = set(self.files.overlays)
        for d in analysis.compiled.diagnostics:
            file = real(d.pos.file) if d.pos.line > 0 or os.path.exists(d.pos.file) \
                else analysis.root
            by_file.setdefault(file, []).append(self.to_lsp_diagnostic(d, file))
            if file != analysis.root and file not in open_files:
                # Also at the include statement that (transitively) brings the file in.
                at = self.include_site(analysis.index, file)
                if at is not None and d.severity in ("error", "warning"):
                    where = f"{os.path.relpath(d.pos.file)}:{d.pos.line}:{d.pos.col}"
                    by_file.setdefault(analysis.root, []).append(lsp.Diagnostic(
                        range=self.range(at), severity=_severity(d.severity),
                        source="robrayc", message=f"in included file {where}: {d.message}"))
        uris = set()
        # The root last: a client waiting for the root's diagnostics then has them all.
        order = sorted(by_file, key=lambda f: f == analysis.root)
        for file in order:
            diags = by_file[file]
            uri = from_fs_path(file)
            if uri is None:
                continue
            uris.add(uri)
            self.text_document_publish_diagnostics(
                lsp.PublishDiagnosticsParams(uri=uri, diagnostics=diags))
        # Files this root no longer reaches lose its diagnostics.
        for uri in self.published.get(analysis.root, set()) - uris:
            self.text_document_publish_diagnostics(
                lsp.PublishDiagnosticsParams(uri=uri, diagnostics=[]))
        self.published[analysis.root] = uris

    @staticmethod
    def include_site(index: Index, file: str) -> SourcePos | None:
        ref = index.included_from.get(file)
        seen = set()
        while ref is not None and ref.pos.file != index.root and ref.pos.file not in seen:
            seen.add(ref.pos.file)
            ref = index.included_from.get(ref.pos.file)
        return None if ref is None else ref.pos

    def to_lsp_diagnostic(self, d: Diagnostic, file: str) -> lsp.Diagnostic:
        message = d.message + (f"\nhint: {d.hint}" if d.hint else "")
        related = []
        for pos, note in d.notes:
            uri = from_fs_path(real(pos.file)) if pos.line > 0 else None
            if uri is not None:
                related.append(lsp.DiagnosticRelatedInformation(
                    location=lsp.Location(uri=uri, range=self.range(pos)), message=note))
        pos = d.pos if d.pos.line > 0 else SourcePos(file, 1, 1, 1, 1)
        return lsp.Diagnostic(range=self.range(pos), severity=_severity(d.severity),
                              source="robrayc", message=message,
                              code=f"-W{d.name}" if d.name else None,  # as clangd names them
                              related_information=related or None)

    # --- positions --------------------------------------------------------------------------
    def lines(self, path: str) -> list[str]:
        return self.text_of(real(path)).split("\n")

    def position(self, path: str, line: int, col: int) -> lsp.Position:
        """robrayc's 1-based character position -> the client's position encoding."""
        lines = self.lines(path)
        server = lsp.Position(line=max(line - 1, 0), character=max(col - 1, 0))
        if server.line >= len(lines):
            return lsp.Position(line=server.line, character=0)
        return self.workspace.position_codec.position_to_client_units(lines, server)

    def range(self, pos: SourcePos) -> lsp.Range:
        end_line = pos.end_line or pos.line
        end_col = pos.end_col if pos.end_line else pos.col + 1
        if (end_line, end_col) < (pos.line, pos.col):
            end_line, end_col = pos.line, pos.col
        return lsp.Range(start=self.position(pos.file, pos.line, pos.col),
                         end=self.position(pos.file, end_line, end_col))

    def location(self, pos: SourcePos) -> lsp.Location:
        return lsp.Location(uri=from_fs_path(real(pos.file)), range=self.range(pos))

    def cursor(self, uri: str, position: lsp.Position) -> tuple[str, int, int]:
        """An LSP position -> (real path, 1-based line, 1-based character column)."""
        path = real(to_fs_path(uri))
        server = self.workspace.position_codec.position_from_client_units(
            self.lines(path), position)
        return path, server.line + 1, server.character + 1

    # --- lookups --------------------------------------------------------------------------------
    def indexes(self, first: Analysis) -> list[Index]:
        """The document's own index first, then every other open root's, then the last
        indexes that parsed (while a line is being typed, the file does not parse)."""
        out = [first.index] + [a.index for r, a in self.analyses.items() if r != first.root]
        return out + [i for i in self.last_index.values() if i not in out]

    def definition_of(self, analysis: Analysis, item: Definition | Reference) -> list[SourcePos]:
        """Where the loader resolved the name: defs and classes to the definition it used,
        frames by name (as merging does), includes to the file read."""
        if isinstance(item, Definition):
            return [item.pos]
        if item.kind == "include":
            return [SourcePos(item.path, 1, 1, 1, 1)] if item.path else []
        if item.target is not None:
            return [item.target.pos]
        if item.kind != "frame":  # a def or class the loader did not find there: none
            return []
        kind = "frame"
        for index in self.indexes(analysis):
            syms = index.all_symbols(kind).get(item.name)
            if syms:
                return [s.pos for s in syms]
        return []


def _severity(severity: str) -> lsp.DiagnosticSeverity:
    return {"error": lsp.DiagnosticSeverity.Error,
            "warning": lsp.DiagnosticSeverity.Warning}.get(severity,
                                                            lsp.DiagnosticSeverity.Information)


def _symbol_kind(kind: str) -> lsp.SymbolKind:
    return {"frame": lsp.SymbolKind.Object, "class": lsp.SymbolKind.Class,
            "def": lsp.SymbolKind.Constant}[kind]


def _item_at(ls: RobrayServer, params):
    """(analysis, the definition or reference under the cursor or None)."""
    path, line, col = ls.cursor(params.text_document.uri, params.position)
    analysis = ls.analysis_for(path)
    return analysis, analysis.index.at(path, line, col)


def _hover_text(analysis, item) -> str | None:
    """The Markdown hover of a definition or reference (None: nothing to say)."""
    text = None
    if item.kind == "def":
        sym = item if isinstance(item, Definition) else item.target
        text = def_hover(sym) if sym is not None else builtin_hover(item.name)
    elif item.kind == "frame":
        text = frame_hover(analysis.scene, item.name)
        if text is None:
            text = f"**frame** `{item.name}`"
    elif item.kind == "class":
        sym = item if isinstance(item, Definition) else item.target
        text = (f"**class** `{item.name}`" + (f"\n\ndefined at {sym.pos}" if sym
                                               else " (not declared: a tag only)"))
    elif item.kind == "attr":
        text = attribute_hover(item.name)
    elif item.kind == "include" and isinstance(item, Reference):
        text = f"`{item.path}`" if item.path else "include file not found"
    elif item.kind in ("shape", "joint"):
        text = f"{'shape' if item.kind == 'shape' else 'joint type'} `{item.name}`"
    return text


def _include_names(path: str, prefix: str) -> list[str]:
    """Completions of an include: folders and .robray/.curly files beside `path` under the
    typed prefix's folder."""
    folder = Path(path).parent / os.path.dirname(prefix)
    try:
        entries = sorted(os.listdir(folder))
    except OSError:
        entries = []
    base = os.path.dirname(prefix)
    return [os.path.join(base, e) + ("/" if (folder / e).is_dir() else "")
            for e in entries
            if (folder / e).is_dir() or e.endswith((".robray", ".curly"))]


def _register_documents(server: RobrayServer) -> None:
    """Open, change, save and close: keep the texts and the diagnostics current."""

    @server.feature(lsp.INITIALIZE)
    def initialize(ls: RobrayServer, params: lsp.InitializeParams) -> None:
        opts = params.initialization_options or {}
        if isinstance(opts, dict):
            dirs = opts.get("includeDirs") or opts.get("include_dirs") or []
            ls.files.options = LoadOptions(include_dirs=tuple(str(d) for d in dirs),
                                           missing_mesh=str(opts.get("missingMesh", "error")))

    @server.feature(lsp.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: RobrayServer, params: lsp.DidOpenTextDocumentParams) -> None:
        path = real(to_fs_path(params.text_document.uri))
        ls.files.set_text(path, params.text_document.text)
        ls.refresh(path)

    @server.feature(lsp.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: RobrayServer, params: lsp.DidChangeTextDocumentParams) -> None:
        doc = ls.workspace.get_text_document(params.text_document.uri)
        path = real(to_fs_path(params.text_document.uri))
        ls.files.set_text(path, doc.source)
        ls.refresh(path)

    @server.feature(lsp.TEXT_DOCUMENT_DID_SAVE)
    def did_save(ls: RobrayServer, params: lsp.DidSaveTextDocumentParams) -> None:
        path = real(to_fs_path(params.text_document.uri))
        ls.refresh(path)
        # Roots that include this file and are not open read it from disk: re-check them.
        for root, analysis in list(ls.analyses.items()):
            if root != path and path in analysis.files:
                ls.analyse(root)

    @server.feature(lsp.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: RobrayServer, params: lsp.DidCloseTextDocumentParams) -> None:
        path = real(to_fs_path(params.text_document.uri))
        ls.files.drop(path)
        ls.forget_root(path)
        ls.last_scene.pop(path, None)
        ls.last_index.pop(path, None)
        for root in list(ls.analyses):  # includers now read the file from disk
            if path in ls.analyses[root].files:
                ls.analyse(root)


def _register_navigation(server: RobrayServer) -> None:
    """Go to definition and hover."""

    @server.feature(lsp.TEXT_DOCUMENT_DEFINITION)
    def definition(ls: RobrayServer, params: lsp.DefinitionParams):
        analysis, item = _item_at(ls, params)
        if item is None:
            return None
        return [ls.location(p) for p in ls.definition_of(analysis, item)] or None

    @server.feature(lsp.TEXT_DOCUMENT_HOVER)
    def hover(ls: RobrayServer, params: lsp.HoverParams):
        analysis, item = _item_at(ls, params)
        if item is None:
            return None
        text = _hover_text(analysis, item)
        if not text:
            return None
        return lsp.Hover(contents=lsp.MarkupContent(kind=lsp.MarkupKind.Markdown, value=text),
                         range=ls.range(item.pos))


def _register_completion(server: RobrayServer) -> None:
    """Completion of keywords, attributes, shapes, names and include files."""

    @server.feature(lsp.TEXT_DOCUMENT_COMPLETION,
                    lsp.CompletionOptions(trigger_characters=[" ", '"']))
    def completion(ls: RobrayServer, params: lsp.CompletionParams):
        path, line, col = ls.cursor(params.text_document.uri, params.position)
        lines = ls.lines(path)
        before = "\n".join(lines[:line - 1] + [lines[line - 1][:col - 1] if line <= len(lines)
                                                else ""])
        ctx = completion_context(before)
        analysis = ls.analysis_for(path)
        items: list[lsp.CompletionItem] = []

        def add(names, kind: lsp.CompletionItemKind, detail: str | None = None, docs=None):
            for name in names:
                items.append(lsp.CompletionItem(
                    label=name, kind=kind, detail=detail or (docs or {}).get(name)))

        def known(kind: str) -> list[str]:
            names: list[str] = []
            for index in ls.indexes(analysis):
                names += [n for n in index.all_symbols(kind) if n not in names]
            return names

        if ctx.kind == "statement":
            if ctx.block == "top":
                add(KEYWORDS_TOP, lsp.CompletionItemKind.Keyword)
            elif ctx.block in ("frame", "geometry", "class"):
                add(attributes_for(ctx.block), lsp.CompletionItemKind.Property, docs=ATTRIBUTE_DOCS)
                if ctx.block == "frame":
                    add(KEYWORDS_FRAME, lsp.CompletionItemKind.Keyword)
        elif ctx.kind == "shape":
            add(shapes(), lsp.CompletionItemKind.EnumMember, "shape")
        elif ctx.kind == "joint":
            add(joint_types(), lsp.CompletionItemKind.EnumMember, "joint type")
        elif ctx.kind in ("frame", "allow"):
            add(known("frame"), lsp.CompletionItemKind.Reference, "frame")
        elif ctx.kind == "class":
            add(known("class"), lsp.CompletionItemKind.Class, "class")
        elif ctx.kind == "value":
            add(known("def"), lsp.CompletionItemKind.Constant, "def")
            add(["pi", "π", "deg"], lsp.CompletionItemKind.Constant, "built-in constant")
        elif ctx.kind == "include":
            add(_include_names(path, ctx.prefix), lsp.CompletionItemKind.File, "include file")
        if ctx.prefix:
            items = [i for i in items if i.label.startswith(ctx.prefix)]
        return lsp.CompletionList(is_incomplete=False, items=items)


def _register_symbols(server: RobrayServer) -> None:
    """The outline (document symbols)."""

    @server.feature(lsp.TEXT_DOCUMENT_DOCUMENT_SYMBOL)
    def document_symbols(ls: RobrayServer, params: lsp.DocumentSymbolParams):
        path = real(to_fs_path(params.text_document.uri))
        analysis = ls.analysis_for(path)
        fi = analysis.index.files.get(path)
        if fi is None:
            return []

        def convert(sym: Definition) -> lsp.DocumentSymbol:
            detail = None
            if sym.kind == "def" and sym.value is not None:
                detail = repr(sym.value)
            span = statement_span(fi, sym)
            if (span.line, span.col) > (sym.pos.line, sym.pos.col):
                span = sym.pos
            return lsp.DocumentSymbol(
                name=sym.name, kind=_symbol_kind(sym.kind), detail=detail,
                range=ls.range(span), selection_range=ls.range(sym.pos),
                children=[convert(c) for c in sym.children] or None)

        return [convert(s) for s in fi.definitions]


def build_server() -> RobrayServer:
    server = RobrayServer()
    for register in (_register_documents, _register_navigation, _register_completion,
                     _register_symbols):
        register(server)
    return server


def serve() -> None:
    """Run the server on stdin/stdout until the client says exit."""
    logging.basicConfig(level=logging.WARNING)
    build_server().start_io()

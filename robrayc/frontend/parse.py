"""Text -> lark parse tree, with syntax errors turned into located diagnostics.

The grammar (``grammar/robray.lark``) is the source of truth. The LALR tables are built once
per process and cached on disk next to the user's cache directory; see ``_parser()``.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from functools import lru_cache
from pathlib import Path

from lark import Lark, Token, Tree
from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken

from robrayc.diagnostics import DiagnosticSink, SourcePos, suggest
from robrayc.resources import resource_path

STATEMENT_WORDS = ("include", "def", "class", "frame", "object", "allow_collision")

# Terminal names lark generates -> what a user calls them.
_TERMINAL_TEXT = {
    "SEMICOLON": "';'", "LBRACE": "'{'", "RBRACE": "'}'", "LSQB": "'['", "RSQB": "']'",
    "LPAR": "'('", "RPAR": "')'", "COMMA": "','", "PLUS": "'+'", "MINUS": "'-'",
    "STAR": "'*'", "SLASH": "'/'", "POW": "'**'", "NAME": "a name", "NUMBER": "a number",
    "STRING": "a string", "PI": "'π'", "$END": "end of file", "GEOMETRY": "'geometry'",
    "FRAME": "'frame'", "OBJECT": "'object'", "DEF": "'def'", "CLASS": "'class'",
    "INCLUDE": "'include'", "ALLOW_COLLISION": "'allow_collision'",
}


def grammar_text() -> str:
    return resource_path("grammar", "robray.lark").read_text(encoding="utf-8")


def _cache_file(grammar: str) -> str:
    import lark

    digest = hashlib.sha256(f"{grammar}\0{lark.__version__}".encode()).hexdigest()[:20]
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    folder = Path(base) / "robrayc"
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError:
        folder = Path(tempfile.gettempdir())
    return str(folder / f"robray-{digest}.lark-cache")


@lru_cache(maxsize=1)
def _parser() -> Lark:
    grammar = grammar_text()
    try:
        return Lark(grammar, parser="lalr", lexer="contextual", cache=_cache_file(grammar),
                    maybe_placeholders=False)
    except OSError:  # read-only cache location: build in memory
        return Lark(grammar, parser="lalr", lexer="contextual", maybe_placeholders=False)


def _describe_token(tok: Token) -> str:
    if tok.type == "$END":
        return "end of file"
    text = str(tok)
    if len(text) > 40:
        text = text[:37] + "..."
    return f"'{text}'"


def _expected(names) -> str:
    words = sorted({_TERMINAL_TEXT.get(n, n.lower()) for n in names})
    if len(words) > 6:
        words = words[:6] + ["..."]
    return ", ".join(words)


def _syntax_error(err: UnexpectedInput, text: str, file: str, sink: DiagnosticSink) -> None:
    line, col = max(err.line, 1), max(err.column, 1)
    pos = SourcePos(file, line, col, line, col + 1)
    if isinstance(err, UnexpectedCharacters):
        rest = text[err.pos_in_stream: err.pos_in_stream + 2]
        if rest == "/*":
            sink.error("unterminated comment", pos, "a block comment opened here has no '*/'")
        elif rest[:1] == '"':
            sink.error("unterminated string", pos, "a string opened here has no closing '\"'")
        else:
            ch = err.char
            shown = repr(ch)[1:-1] if not ch.isprintable() or ch in "'\\" else ch
            sink.error(f"unexpected character '{shown}'", pos)
        return
    if isinstance(err, UnexpectedEOF):
        sink.error("unexpected end of file", pos, f"expected {_expected(err.expected)}")
        return
    assert isinstance(err, UnexpectedToken)
    tok = err.token
    expected = set(err.accepts or err.expected)
    if tok.type == "$END":
        last = text.rstrip()
        nline = last.count("\n") + 1
        ncol = len(last) - (last.rfind("\n") + 1) + 1
        hint = "a '{' block is still open" if "RBRACE" in expected else None
        sink.error(f"unexpected end of file, expected {_expected(expected)}",
                   SourcePos(file, nline, ncol, nline, ncol + 1), hint)
        return
    pos = SourcePos(file, tok.line, tok.column, tok.end_line or tok.line,
                    tok.end_column or tok.column + 1)
    start = tok.start_pos if tok.start_pos is not None else 0
    if text.startswith("/*", start):
        sink.error("unterminated comment", pos, "a block comment opened here has no '*/'")
    elif "DEF" in expected and tok.type == "RBRACE":
        sink.error("unexpected '}'", pos, "no block is open here")
    elif "DEF" in expected and tok.type == "NAME":
        hint = suggest(str(tok), STATEMENT_WORDS) or (
            "a statement starts with " + ", ".join(STATEMENT_WORDS))
        sink.error(f"unknown statement '{tok}'", pos, hint)
    elif "SEMICOLON" in expected and tok.type != "SEMICOLON":
        sink.error(f"expected ';' before {_describe_token(tok)}", pos,
                   "every attribute, def and allow_collision ends with ';'")
    else:
        sink.error(f"unexpected {_describe_token(tok)}, expected {_expected(expected)}", pos)


def decode(data: bytes, file: str, sink: DiagnosticSink) -> str | None:
    """UTF-8 (BOM allowed) to text; invalid bytes are a located error."""
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        before = data[: exc.start]
        line = before.count(b"\n") + 1
        col = len(before) - (before.rfind(b"\n") + 1) + 1
        sink.error(f"invalid UTF-8 byte 0x{data[exc.start]:02x}",
                   SourcePos(file, line, col, line, col + 1),
                   "robray files are UTF-8 text")
        return None


def parse(text: str, file: str, sink: DiagnosticSink) -> Tree | None:
    """Parse one file's text; on a syntax error report it and return None."""
    try:
        return _parser().parse(text)
    except UnexpectedInput as err:
        _syntax_error(err, text, file, sink)
        return None

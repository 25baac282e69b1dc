"""Text -> parse tree, with syntax errors turned into located diagnostics.

The grammar (``grammar/robray.lark``) is the source of truth: lark builds its LALR(1) tables,
``regen.py`` writes them to ``_tables.py``, and this module runs them with a small driver and
a contextual lexer (a keyword is a keyword only where the parser state accepts it, so
`frame-x`, `def frame 1;` and `parent geometry;` keep working). The tree has the shape lark
would build (same rule labels, filtered tokens, inlined `_rules`, `?rule` expansion) but with
light ``Node``/``Tok`` objects: this driver is several times faster than lark's own and needs
no lark import at run time.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from functools import lru_cache

from robrayc.diagnostics import DiagnosticSink, SourcePos, suggest
from robrayc.resources import resource_path

STATEMENT_WORDS = ("include", "def", "class", "frame", "object", "allow_collision")

# Terminal names -> what a user calls them.
_TERMINAL_TEXT = {
    "SEMICOLON": "';'", "LBRACE": "'{'", "RBRACE": "'}'", "LSQB": "'['", "RSQB": "']'",
    "LPAR": "'('", "RPAR": "')'", "COMMA": "','", "PLUS": "'+'", "MINUS": "'-'",
    "STAR": "'*'", "SLASH": "'/'", "POW": "'**'", "NAME": "a name", "NUMBER": "a number",
    "STRING": "a string", "PI": "'π'", "$END": "end of file", "GEOMETRY": "'geometry'",
    "FRAME": "'frame'", "OBJECT": "'object'", "DEF": "'def'", "CLASS": "'class'",
    "INCLUDE": "'include'", "ALLOW_COLLISION": "'allow_collision'",
}
_KEEP, _SPLICE = 1, 2
_NEWLINE = re.compile("\n")


class Lines:
    """Offsets where each line starts, to turn text offsets into 1-based line and column
    (lines end at \\n; the column counts characters). Built once per parse, used lazily."""

    __slots__ = ("starts",)

    def __init__(self, text: str) -> None:
        self.starts = [0]
        self.starts.extend(m.end() for m in _NEWLINE.finditer(text))

    def position(self, offset: int) -> tuple[int, int]:
        line = bisect_right(self.starts, offset)
        return line, offset - self.starts[line - 1] + 1


class Tok:
    """A token: terminal name, text and offsets; 1-based line/column (end column exclusive)
    are computed on demand (most tokens never need them)."""

    __slots__ = ("type", "value", "start_pos", "end_pos", "lines")

    def __init__(self, type_: str, value: str, start_pos: int, end_pos: int,
                 lines: Lines) -> None:
        self.type, self.value, self.start_pos, self.end_pos, self.lines = (
            type_, value, start_pos, end_pos, lines)

    @property
    def line(self) -> int:
        return self.lines.position(self.start_pos)[0]

    @property
    def column(self) -> int:
        return self.lines.position(self.start_pos)[1]

    @property
    def end_line(self) -> int:
        return self.lines.position(self.end_pos)[0]

    @property
    def end_column(self) -> int:
        return self.lines.position(self.end_pos)[1]

    def pos(self, file: str) -> SourcePos:
        """The token's span in `file`."""
        return self.span_to(self, file)

    def span_to(self, last: Tok, file: str) -> SourcePos:
        """The span from this token to `last` (inclusive) in `file`."""
        line, col = self.lines.position(self.start_pos)
        end_line, end_col = self.lines.position(last.end_pos)
        return SourcePos(file, line, col, end_line, end_col)

    def __str__(self) -> str:
        return self.value

    def __repr__(self) -> str:
        return f"Tok({self.type}, {self.value!r}, {self.line}:{self.column})"


class Node:
    """A parse-tree node: the rule (or alias) label and its children."""

    __slots__ = ("data", "children")

    def __init__(self, data: str, children: list) -> None:
        self.data, self.children = data, children

    def __repr__(self) -> str:
        return f"Node({self.data}, {self.children!r})"


class SyntaxProblem(Exception):
    def __init__(self, pos: int, line: int, column: int, token: Tok | None = None,
                 expected: frozenset[str] = frozenset()) -> None:
        super().__init__("syntax error")
        self.pos, self.line, self.column = pos, line, column
        self.token, self.expected = token, expected


def grammar_text() -> str:
    return resource_path("grammar", "robray.lark").read_text(encoding="utf-8")


@lru_cache(maxsize=1)
def _tables():
    from robrayc.frontend import _tables as t

    # Ignored text (blanks, comments) before a token is skipped by the same match: one regex
    # call per token. Positions are offsets; lines and columns come later, when needed.
    ignored = "|".join(rx for name, rx in t.TERMINALS if name in t.IGNORE)
    master = re.compile(f"(?:{ignored})*(?:"
                        + "|".join(f"(?P<{name}>{rx})" for name, rx in t.TERMINALS
                                   if name not in t.IGNORE) + ")?")
    rules = [(origin, length, _reducer(length, data, expand1, plan),
              # a unit rule (`?a: b` with one kept child) only changes the parser state
              bool(expand1 and length == 1 and plan[0] == _KEEP))
             for origin, length, data, expand1, plan in t.RULES]
    return master, t.KEYWORDS, rules, t.STATES, t.END


def _reducer(length: int, data: str | None, expand1: bool, plan: tuple[int, ...]):
    """A function popping a rule's `length` values and returning what lark's tree builder
    would: a Node, its only child (`?rule`), or a list to splice (`_rule`). Generated per rule
    so the parse loop does no per-child interpretation."""
    body = ["def reduce(values):"]
    if length:
        body += [f"    v = values[-{length}:]", f"    del values[-{length}:]"]
    steps = [(i, p) for i, p in enumerate(plan) if p]
    if steps and steps[0] == (0, _SPLICE):
        body.append("    ch = v[0]")  # left recursion: extend the list in place (no copy)
        steps = steps[1:]
    elif all(p == _KEEP for _, p in steps):
        body.append("    ch = [" + ", ".join(f"v[{i}]" for i, _ in steps) + "]")
        steps = []
    else:
        body.append("    ch = []")
    for i, p in steps:
        body.append(f"    ch.{'append' if p == _KEEP else 'extend'}(v[{i}])")
    if data is None:
        body.append("    return ch")
    elif expand1:
        body.append(f"    return ch[0] if len(ch) == 1 else Node({data!r}, ch)")
    else:
        body.append(f"    return Node({data!r}, ch)")
    scope = {"Node": Node}
    exec("\n".join(body), scope)  # noqa: S102 - code built from the generated tables only
    return scope["reduce"]


_UNIT_MEMO: dict[tuple[int, int, str], int] = {}


def parse_text(text: str) -> Node:
    """Parse a whole file; raises SyntaxProblem at the first error."""
    unit_memo = _UNIT_MEMO
    master, keywords, rules, states, end_state = _tables()
    match = master.match
    stack = [0]
    state = 0
    values: list = []
    pos, n = 0, len(text)
    lines = Lines(text)
    while True:
        m = match(text, pos) if pos < n else None
        if m is not None:
            kind = m.lastgroup
            if kind is None:  # blanks and comments, then nothing a terminal matches (or the end)
                pos = m.end()
                if pos < n:
                    raise SyntaxProblem(pos, *lines.position(pos))
                continue
            value = m.group(kind)
            start = m.start(kind)
            pos = m.end()
            if kind == "NAME":
                keyword = keywords.get(value)
                if keyword is not None and keyword in states[state]:
                    kind = keyword
            tok = Tok(kind, value, start, pos, lines)
        else:
            kind = "$END"
            tok = Tok("$END", "", pos, pos, lines)
        while True:
            action = states[state].get(kind)
            if action is None:
                if kind == "$END" and state == end_state:
                    return values[-1]
                expected = frozenset(s for s in states[state] if s.isupper() or s == "$END")
                raise SyntaxProblem(tok.start_pos, tok.line, tok.column, tok, expected)
            if action >= 0:
                state = action
                stack.append(state)
                values.append(tok)
                break
            origin, length, reduce, unit = rules[-1 - action]
            if unit:
                # `?a: b`: the value passes through, only the state changes. Chains of them
                # (a number climbs atom -> unary -> power -> product -> sum -> expr) depend
                # only on the state below and the lookahead: memoised.
                below = stack[-2]
                key = (below, state, kind)
                target = unit_memo.get(key)
                if target is None:
                    target = states[below][origin]
                    while True:
                        nxt = states[target].get(kind)
                        if nxt is None or nxt >= 0 or not rules[-1 - nxt][3]:
                            break
                        target = states[below][rules[-1 - nxt][0]]
                    unit_memo[key] = target
                state = target
                stack[-1] = state
                continue
            if length:
                del stack[-length:]
            result = reduce(values)
            state = states[stack[-1]][origin]
            stack.append(state)
            values.append(result)


def tokens(text: str, start: int = 0):
    """The tokens of `text` from offset `start`, with the parser's own regex (blanks and
    comments skipped; a NAME stays a NAME, since keywords depend on the parser state). Where
    no terminal matches, a last token of type "$BAD" (empty) marks the spot. For the language
    server, which reads incomplete text; compiles never call this."""
    master = _tables()[0]
    lines = Lines(text)
    pos, n = start, len(text)
    while pos < n:
        m = master.match(text, pos)
        kind = m.lastgroup
        if kind is None:
            if m.end() < n:
                yield Tok("$BAD", "", m.end(), m.end(), lines)
            return
        pos = m.end()
        yield Tok(kind, m.group(kind), m.start(kind), pos, lines)


def _describe_token(tok: Tok) -> str:
    if tok.type == "$END":
        return "end of file"
    text = tok.value
    if len(text) > 40:
        text = text[:37] + "..."
    return f"'{text}'"


def _expected(names) -> str:
    words = sorted({_TERMINAL_TEXT.get(n, n.lower()) for n in names})
    if len(words) > 6:
        words = words[:6] + ["..."]
    return ", ".join(words)


def _syntax_error(err: SyntaxProblem, text: str, file: str, sink: DiagnosticSink) -> None:
    tok = err.token
    pos = SourcePos(file, err.line, err.column, err.line, err.column + 1)
    if tok is None:  # no terminal matches here
        rest = text[err.pos: err.pos + 2]
        if rest == "/*":
            sink.error("unterminated comment", pos, "a block comment opened here has no '*/'")
        elif rest[:1] == '"':
            sink.error("unterminated string", pos, "a string opened here has no closing '\"'")
        else:
            ch = text[err.pos]
            shown = repr(ch)[1:-1] if not ch.isprintable() or ch in "'\\" else ch
            sink.error(f"unexpected character '{shown}'", pos)
        return
    expected = err.expected
    if tok.type == "$END":
        last = text.rstrip()
        line = last.count("\n") + 1
        col = len(last) - (last.rfind("\n") + 1) + 1
        hint = "a '{' block is still open" if "RBRACE" in expected else None
        sink.error(f"unexpected end of file, expected {_expected(expected)}",
                   SourcePos(file, line, col, line, col + 1), hint)
        return
    pos = tok.pos(file)
    if text.startswith("/*", tok.start_pos):
        sink.error("unterminated comment", pos, "a block comment opened here has no '*/'")
    elif "DEF" in expected and tok.type == "RBRACE":
        sink.error("unexpected '}'", pos, "no block is open here")
    elif "DEF" in expected and tok.type == "NAME":
        hint = suggest(tok.value, STATEMENT_WORDS) or (
            "a statement starts with " + ", ".join(STATEMENT_WORDS))
        sink.error(f"unknown statement '{tok.value}'", pos, hint)
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


def parse(text: str, file: str, sink: DiagnosticSink) -> Node | None:
    """Parse one file's text; on a syntax error report it and return None."""
    try:
        return parse_text(text)
    except SyntaxProblem as err:
        _syntax_error(err, text, file, sink)
        return None

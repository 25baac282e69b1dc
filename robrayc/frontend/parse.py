"""robray text -> parse tree: the lexer, the LALR(1) driver, and syntax errors as diagnostics.

How it works:

- The language is ``grammar/robray.lark``. At development time lark builds its LALR(1)
  automaton and ``tablegen.py`` writes it to ``_tables.py`` (``python -m robrayc.regen``):
  the terminals' regular expressions, ``SYMBOLS`` (the terminals in code order), ``ACTIONS``
  (per state, per terminal code: the state to shift to, ``-1 - rule`` to reduce by, or None),
  ``GOTOS`` (per state below a reduction and rule origin, per lookahead code: the state to go
  to, past the unit reductions that lookahead asks for), ``RULES`` and ``REDUCERS`` (per
  rule: the function that replaces its values by the node lark's tree builder would make).
  lark is not imported at run time.
- :func:`lex` is the one lexer: one regular expression of the grammar's terminals (ignored
  text, the named terminals, the literals longest first) splits the whole text in C; each
  distinct token text is then classified once. A keyword's spelling is classified as the
  keyword; whether it is one is the parser's decision (contextual lexing, as lark's
  ``lexer="contextual"``): where the state has no action for the keyword, it is a NAME, so
  `frame-x`, `def frame 1;` and `parent geometry;` keep working. One exception, for the
  message: a statement keyword starting a block's item (`include "x";` in a frame) is
  refused there, as a block left open, where lark would read an attribute that the loader
  refuses anyway (no attribute has a statement's name). The language server reads the
  same tokens through :func:`tokens`.
- :func:`parse_text` is the textbook LALR loop: look up the action for the state on top of
  the stack and the next token's terminal code (plain indexing: no dict, no method call per
  step); shift (push the state, and the token when the tree keeps it), or reduce (the
  rule's reducer turns its values into one, pop its states, push the goto state), until
  the end-of-input token is accepted. The tree has lark's shape (same labels, filtered
  tokens, inlined `_rules`, `?rule` expansion) with light ``Node``/``Tok`` objects
  (``tree.py``).
- :func:`parse` turns a syntax error into a located diagnostic (``_syntax_error``).
"""

from __future__ import annotations

import re
from functools import lru_cache
from itertools import accumulate
from operator import add
from types import SimpleNamespace

from robrayc.diagnostics import DiagnosticSink, SourcePos, suggest
from robrayc.frontend import _tables
from robrayc.frontend.tree import Lines, Node, Tok

STATEMENT_WORDS = ("include", "def", "class", "frame", "object", "allow_collision")
_STATEMENT_KEYWORDS = frozenset(word.upper() for word in STATEMENT_WORDS)
_KEYWORD_KINDS = frozenset(_tables.KEYWORDS.values())
_CODE = {name: code for code, name in enumerate(_tables.SYMBOLS)}  # terminal -> table index
_END_CODE, _NAME_CODE = _CODE["$END"], _CODE["NAME"]
# terminals the tree keeps (the reducers leave out punctuation and keywords)
_KEPT = frozenset(_CODE[name] for name in _tables.KEPT)

# Terminal names -> what a user calls them.
_TERMINAL_TEXT = {
    "SEMICOLON": "';'", "LBRACE": "'{'", "RBRACE": "'}'", "LSQB": "'['", "RSQB": "']'",
    "LPAR": "'('", "RPAR": "')'", "COMMA": "','", "PLUS": "'+'", "MINUS": "'-'",
    "STAR": "'*'", "SLASH": "'/'", "POW": "'**'", "NAME": "a name", "NUMBER": "a number",
    "STRING": "a string", "PI": "'π'", "$END": "end of file", "GEOMETRY": "'geometry'",
    "FRAME": "'frame'", "OBJECT": "'object'", "DEF": "'def'", "CLASS": "'class'",
    "INCLUDE": "'include'", "ALLOW_COLLISION": "'allow_collision'",
}


class SyntaxProblem(Exception):
    """The first syntax error: where (`pos`, `line`, `column`), the token refused (None: no
    terminal matches there) and the terminals the state expected."""

    def __init__(self, pos: int, line: int, column: int, token: Tok | None = None,
                 expected: frozenset[str] = frozenset()) -> None:
        super().__init__("syntax error")
        self.pos, self.line, self.column = pos, line, column
        self.token, self.expected = token, expected


@lru_cache(maxsize=1)
def _lexer() -> SimpleNamespace:
    """The lexer's regular expressions, from the generated terminal table."""
    t = _tables
    ignored = "|".join(rx for name, rx in t.TERMINALS if name in t.IGNORE)
    named = [(name, rx) for name, rx in t.TERMINALS
             if name not in t.IGNORE and name not in t.LITERALS.values()]
    literal = "|".join(re.escape(text) for text in t.LITERALS)  # longest first
    # (ignored text)(token): split() gives [skipped, ignored, token, ..., tail]
    splitter = re.compile(f"((?:{ignored})*+)(" + "|".join(rx for _, rx in named)
                          + f"|{literal})")
    assert splitter.groups == 2  # terminal patterns have no groups of their own
    return SimpleNamespace(
        splitter=splitter, ignorable=re.compile(f"(?:{ignored})*+"),
        # a token's text -> its terminal: the first alternative matching the whole text is
        # the one that matched it (an earlier one matching it would have matched there)
        classes=[(name, re.compile(rx)) for name, rx in named],
        known={**t.LITERALS, **t.KEYWORDS})


class Lexed:
    """A text's tokens: `texts`, `ends` (end offsets: a token starts at its end less its
    length), `bad` (the first offset no terminal matches, None: none), `kind` (a token text
    -> its terminal, a keyword's spelling as the keyword) and the `lines`."""

    __slots__ = ("texts", "ends", "bad", "kind", "lines")

    def __init__(self, texts: list[str], ends: list[int], bad: int | None,
                 kind: dict[str, str], lines: Lines) -> None:
        self.texts, self.ends, self.bad, self.kind, self.lines = texts, ends, bad, kind, lines


def lex(text: str, start: int = 0) -> Lexed:
    """The tokens of `text` from offset `start`. One `split` and one running sum do the work
    in C (a loop over matches in Python cost a third of a large compile); each distinct text
    is classified once (texts repeat: "0", "[", names)."""
    lx = _lexer()
    parts = lx.splitter.split(text[start:] if start else text)
    texts = parts[2::3]
    # Where every match starts where the one before ended (the skipped text is empty), a
    # token ends after the blanks and tokens up to it.
    ends = list(accumulate(map(add, map(len, parts[1::3]), map(len, texts)), initial=start))
    del ends[0]
    if (ends[-1] if ends else start) + len(parts[-1]) != len(text):  # text skipped somewhere
        ends = list(accumulate(map(len, parts), initial=start))[3::3]
        # Past the last good token no token follows its blanks and comments: the split then
        # went on searching, possibly inside those comments.
        first = next(i for i, piece in enumerate(parts[0::3]) if piece)
        del texts[first:], ends[first:]
    # What follows the last token's blanks and comments is the problem, unless it is the end
    bad = lx.ignorable.match(text, ends[-1] if ends else start).end()
    kind = dict(lx.known)
    for word in set(texts).difference(kind):
        kind[word] = next(name for name, rx in lx.classes if rx.fullmatch(word))
    return Lexed(texts, ends, None if bad == len(text) else bad, kind, Lines(text))


def tokens(text: str, start: int = 0):
    """The tokens of `text` from offset `start` as `Tok`s, for the language server (which
    reads incomplete text) and the error messages: a keyword's spelling is a NAME (whether it
    is a keyword depends on the parser's state), and where no terminal matches a last token
    of type "$BAD" (empty) marks the spot."""
    lexed = lex(text, start)
    for word, end in zip(lexed.texts, lexed.ends, strict=True):
        kind = lexed.kind[word]
        kind = "NAME" if kind in _KEYWORD_KINDS else kind
        yield Tok(kind, word, end - len(word), end, lexed.lines)
    if lexed.bad is not None:
        yield Tok("$BAD", "", lexed.bad, lexed.bad, lexed.lines)


def parse_text(text: str) -> Node:
    """Parse a whole file; raises SyntaxProblem at the first error."""
    actions, gotos = _tables.ACTIONS, _tables.GOTOS
    rules, reducers = _tables.RULES, _tables.REDUCERS
    lexed = lex(text)
    texts, ends = lexed.texts, lexed.ends
    if lexed.bad is None:  # the end-of-input token (else the parse stops at the bad text)
        texts.append("")
        ends.append(len(text))
    # each token's terminal as the tables' index: one dict look-up a token, in C, as the loop
    # goes (no list of them)
    code_of = {word: _CODE[kind] for word, kind in lexed.kind.items()}
    code_of[""] = _END_CODE
    codes = map(code_of.__getitem__, texts)
    lines, symbols, kept = lexed.lines, _tables.SYMBOLS, _KEPT
    stack, values = [0], []
    row = actions[0]
    for code, word, end in zip(codes, texts, ends, strict=True):
        action = row[code]
        if action is None:  # a keyword where the grammar takes a name, or an error
            _contextual(row, code, word, end, lexed)
            code, action = _NAME_CODE, row[_NAME_CODE]
        while action < 0:  # reduce
            rule = ~action
            origin, length, unit, wrap = rules[rule]
            if wrap is not None:  # `number: NUMBER`: a node around the value
                values[-1] = Node(wrap, [values[-1]])
            elif not unit:  # a unit rule (`?a: b`) passes its value through
                reducers[rule](values)  # in place: the rule's values become its one value
            if length:
                del stack[-length:]
            # the goto state, or the state after the unit reductions the lookahead asks for
            state = gotos[stack[-1]][origin][code]
            stack.append(state)
            row = actions[state]
            action = row[code]
            if action is None:
                if code == _END_CODE and state == _tables.END:
                    return values[-1]
                raise _refused(row, code, word, end, lexed)
        # shift; punctuation and keywords never reach the tree
        stack.append(action)
        values.append(Tok(symbols[code], word, end - len(word), end, lines)
                      if code in kept else None)
        row = actions[action]
    if lexed.bad is not None:  # the text no terminal matches
        raise SyntaxProblem(lexed.bad, *lexed.lines.position(lexed.bad))
    raise AssertionError("unreachable: $END is accepted or refused")


def _contextual(row: tuple, code: int, word: str, end: int, lexed: Lexed) -> None:
    """Whether a token the state `row` has no action for as lexed is a NAME: a keyword's
    spelling where the grammar takes a name (contextual lexing, decided in the state the
    token is read in, as lark's lexer does). Anything else is refused (SyntaxProblem)."""
    kind = _tables.SYMBOLS[code]
    if kind in _KEYWORD_KINDS:
        if kind in _STATEMENT_KEYWORDS and row[_CODE["RBRACE"]] is not None:
            # a statement where a block's items go on (no attribute has its name):
            # refused as the keyword, the block was not closed
            raise _refused(row, code, word, end, lexed)
        if row[_NAME_CODE] is not None:
            return
        code = _NAME_CODE
    raise _refused(row, code, word, end, lexed)


def _refused(row: tuple, code: int, word: str, end: int, lexed: Lexed) -> SyntaxProblem:
    """The syntax error of a token the parser state `row` has no action for."""
    expected = frozenset(name for name, action in zip(_tables.SYMBOLS, row, strict=True)
                         if action is not None)
    start = end - len(word)
    return SyntaxProblem(start, *lexed.lines.position(start),
                         Tok(_tables.SYMBOLS[code], word, start, end, lexed.lines), expected)


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
        pos = SourcePos(file, line, col, line, col + 1)
        if "RBRACE" in expected:  # as gcc: the missing brace, and where its block opened
            sink.error("expected '}' at end of input", pos, notes=_unclosed(text, tok, file))
        else:
            sink.error(f"unexpected end of file, expected {_expected(expected)}", pos)
        return
    pos = tok.pos(file)
    if tok.type in _STATEMENT_KEYWORDS and tok.type not in expected and "RBRACE" in expected:
        # a statement where a block's items go on: the block was not closed, as at the end
        # of the file
        sink.error(f"expected '}}' before {_describe_token(tok)}", pos,
                   "a block's '{' needs its '}' before the next statement",
                   notes=_unclosed(text, tok, file))
    elif text.startswith("/*", tok.start_pos):
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



def _unclosed(text: str, tok: Tok, file: str) -> tuple[tuple[SourcePos, str], ...]:
    """A note at the innermost '{' still open before `tok` (found again by the lexer: only
    an error pays for it)."""
    opened: list[Tok] = []
    for t in tokens(text[:tok.start_pos]):
        if t.type == "LBRACE":
            opened.append(t)
        elif t.type == "RBRACE" and opened:
            opened.pop()
    return ((opened[-1].pos(file), "to match this '{'"),) if opened else ()


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

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
from itertools import accumulate, count
from operator import add
from types import SimpleNamespace

from robrayc.diagnostics import DiagnosticSink, SourcePos, suggest
from robrayc.frontend import phrases
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
_LITERAL = "LITERAL"  # the master regex's group of literal terminals


class Lines:
    """Offsets where each line starts, to turn text offsets into 1-based line and column
    (lines end at \\n; the column counts characters). Built once per parse, used lazily."""

    __slots__ = ("starts",)

    def __init__(self, text: str) -> None:
        # line k starts after the k earlier lines and their newlines (computed in C)
        lengths = map(len, text.split("\n")[:-1])
        self.starts = [0, *map(add, accumulate(lengths), count(1))]

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
        starts = self.lines.starts
        line = bisect_right(starts, self.start_pos)
        end = last.end_pos
        if line < len(starts) and end >= starts[line]:  # ends on a later line
            end_line, end_col = self.lines.position(end)
        else:
            end_line, end_col = line, end - starts[line - 1] + 1
        return SourcePos(file, line, self.start_pos - starts[line - 1] + 1, end_line, end_col)

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


class Phrase(Node):
    """An attribute built from its shape's template (phrases.py): its tree is made when first
    read, and a loader may read its value from the token texts instead (`template.form`)."""

    __slots__ = ("template", "lexed", "i", "_node")
    data = "attr"

    def __init__(self, template: phrases.Template, lexed: _Lexed, i: int) -> None:
        self.template, self.lexed, self.i, self._node = template, lexed, i, None

    @property
    def children(self) -> list:  # type: ignore[override]
        if self._node is None:
            self._node = self.template.build(self.lexed, self.i)
        return self._node.children


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
    # match per token. The regular terminals are groups; the literal ones (punctuation) share
    # one group, their text naming them: fewer alternatives for the regex engine to try.
    ignored = "|".join(rx for name, rx in t.TERMINALS if name in t.IGNORE)
    named = [name for name, _ in t.TERMINALS
             if name not in t.IGNORE and name not in t.LITERALS.values()]
    patterns = [f"(?P<{name}>{rx})" for name, rx in t.TERMINALS if name in named]
    literal = "|".join(re.escape(text) for text in t.LITERALS)  # longest first
    master = re.compile(f"(?:{ignored})*+(?:" + "|".join(patterns)
                        + f"|(?P<{_LITERAL}>{literal}))?")
    # group number -> terminal (terminal patterns have no groups of their own)
    group_kinds = [None, *named, _LITERAL]
    assert master.groupindex == {k: i for i, k in enumerate(group_kinds) if k}
    # The same alternatives for a whole-text split (see _lex): (ignored text)(token)
    splitter = re.compile(f"((?:{ignored})*+)(" + "|".join(
        rx for name, rx in t.TERMINALS if name in named) + f"|{literal})")
    assert splitter.groups == 2
    # A token's text -> its terminal: the first alternative matching the whole text is the
    # one that matched it (an earlier one matching it would have matched there).
    classes = [(name, re.compile(rx)) for name, rx in t.TERMINALS if name in named]
    ignorable = re.compile(f"(?:{ignored})*+")
    rules = [(origin, length, reduce, unit, wrap)
             for (origin, length, unit, wrap), reduce in zip(t.RULES, t.REDUCERS, strict=True)]
    # One character per terminal (a punctuation its own), for phrases.py to find and key
    # phrases by string operations: codes[i] is token i's terminal.
    kinds = sorted({*named, *t.LITERALS.values(), *t.KEYWORDS.values()})
    own = {kind: text for text, kind in t.LITERALS.items() if len(text) == 1}
    letters = iter("ABCDEGHIJKLMNOQRSTUVWXYZ")
    code = {kind: own.get(kind) or next(letters) for kind in kinds}
    assert len(set(code.values())) == len(code)
    # Where a phrase may start: its first terminal -> (parser states, its end's finder)
    attr_states = frozenset(s for s, row in enumerate(t.STATES) if "attr" in row)
    frame_states = frozenset(s for s, row in enumerate(t.STATES) if "frame" in row)
    statement = phrases.statement_end(code["FRAME"] + code["OBJECT"], code["LBRACE"],
                                      code["RBRACE"])
    phrase_starts = {"NAME": (attr_states, phrases.attribute_end(code["SEMICOLON"])),
                     "FRAME": (frame_states, statement), "OBJECT": (frame_states, statement)}
    return SimpleNamespace(
        master=master, group_kinds=group_kinds, keywords=t.KEYWORDS,
        keyword_kinds=frozenset(t.KEYWORDS.values()), literals=t.LITERALS,
        kept=frozenset(t.KEPT), rules=rules, states=t.STATES, end_state=t.END,
        splitter=splitter, classes=classes, ignorable=ignorable, code=code,
        phrase_starts=phrase_starts)


def _lex(text: str) -> tuple[list[str], list[int], int | None]:
    """Every token's text and end offset (its start is its end less its length), and the
    offset of the first text no terminal matches (None: none). One `split` and one running
    sum do the work in C: a loop over matches in Python cost a third of a large compile."""
    t = _tables()
    splitter, ignorable = t.splitter, t.ignorable
    parts = splitter.split(text)  # [skipped, ignored, token, skipped, ignored, token, ..., tail]
    texts = parts[2::3]
    # Where every match starts where the one before ended (the skipped text is empty), a
    # token ends after the blanks and tokens up to it.
    ends = list(accumulate(map(add, map(len, parts[1::3]), map(len, texts))))
    if (ends[-1] if ends else 0) + len(parts[-1]) != len(text):  # text skipped before a token
        bounds = list(accumulate(map(len, parts)))
        ends = bounds[2::3]
        # Past the last good token no token follows its blanks and comments: the split then
        # went on searching, possibly inside those comments.
        first = next(i for i, piece in enumerate(parts[0::3]) if piece)
        del texts[first:], ends[first:]
    # What follows the last token's blanks and comments is the problem, unless it is the end
    bad = ignorable.match(text, ends[-1] if ends else 0).end()
    return texts, ends, None if bad == len(text) else bad


_GOTO_MEMO: dict[tuple[int, str, str], int] = {}


def _goto(states: list, rules: list, below: int, origin: str, kind: str) -> int:
    """The state after reducing to `origin` above state `below` with lookahead `kind`, and
    then every unit reduction that lookahead asks for."""
    state = states[below][origin]
    while True:
        action = states[state].get(kind)
        if action is None or action >= 0 or not rules[~action][3]:
            return state
        state = states[below][rules[~action][0]]


def parse_text(text: str) -> Node:
    """Parse a whole file; raises SyntaxProblem at the first error."""
    t = _tables()
    keywords, kept, rules, states, end_state = (t.keyword_kinds, t.kept, t.rules, t.states,
                                                t.end_state)
    phrase_starts = t.phrase_starts
    goto_memo = _GOTO_MEMO
    stack = [0]
    row = states[0]
    values: list = []
    n = len(text)
    lexed = _Lexed(text)
    texts, ends, kind_of, lines = lexed.texts, lexed.ends, lexed.kind, lexed.lines
    count = len(texts)
    # phrases parsed token by token (their template to be recorded), innermost last:
    # (shape, first token, stack depth, last token)
    pending: list[tuple[tuple, int, int, int]] = []
    resolved = None  # the next token's terminal, as decided after a templated phrase
    i = -1
    while True:
        i += 1
        if i == count:  # the end of the input (or the text no terminal matches,
            if lexed.bad is not None:  # refused here: an earlier error comes first)
                raise SyntaxProblem(lexed.bad, *lines.position(lexed.bad))
            kind, start, end = "$END", n, n
        else:
            end = ends[i]
            kind, start = kind_of[texts[i]], end - len(texts[i])
            if resolved is not None:
                kind, resolved = resolved, None
            elif kind in keywords and kind not in row:
                kind = "NAME"  # a keyword's spelling where the grammar takes a name
        while True:
            action = row.get(kind)
            if action is None:
                if kind == "$END" and stack[-1] == end_state:
                    return values[-1]
                raise _refused(row, kind, text, start, end, lines)
            if action >= 0:
                if kind in phrase_starts and stack[-1] in phrase_starts[kind][0]:
                    done = _from_template(stack, values, lexed, i, t, phrase_starts[kind][1],
                                          pending)
                    if done is not None:  # a phrase starts here
                        i, resolved = done
                        row = states[stack[-1]]
                        break
                stack.append(action)
                # Punctuation and keywords never reach the tree: no token object for them.
                values.append(Tok(kind, texts[i], start, end, lines) if kind in kept else None)
                row = states[action]
                break
            origin, length, reduce, unit, wrap = rules[~action]
            if unit:  # `?a: b`: the value passes through, only the state changes
                below = stack[-2]
                del stack[-1]
            elif wrap is not None:  # `number: NUMBER`: a node around the value, in place
                values[-1] = Node(wrap, [values[-1]])
                below = stack[-2]
                del stack[-1]
            else:
                reduce(values)  # in place: the rule's values become its one value
                if pending and len(stack) - length == pending[-1][2]:  # a phrase's reduction
                    _record(pending.pop(), values, lexed, i, stack[-1], action)
                if length == 1:
                    below = stack[-2]
                    del stack[-1]
                else:
                    if length:
                        del stack[-length:]
                    below = stack[-1]
            # The goto, and the unit reductions it leads to (a number climbs atom -> unary ->
            # power -> product -> sum -> expr), depend only on the state below, the rule and
            # the lookahead: memoised.
            key = (below, origin, kind)
            state = goto_memo.get(key)
            if state is None:
                state = goto_memo[key] = _goto(states, rules, below, origin, kind)
            stack.append(state)
            row = states[state]


def _record(pending: tuple[tuple, int, int, int], values: list, lexed: _Lexed, i: int,
            after: int, action: int) -> None:
    """Make the template of a phrase the automaton has just reduced (`pending`: its shape,
    first token, stack depth, last token; `after`: the state its last token led to, not yet
    popped); an attribute's tree becomes the same tree as a lazy phrase, for the template of
    a statement holding it."""
    shape, first, _, last = pending
    made = last == i - 1 and phrases.record(shape, values[-1], first, lexed, after, action)
    if made and made.lazy:
        values[-1] = Phrase(made, lexed, first)


def _refused(row: dict, kind: str, text: str, start: int, end: int,
             lines: Lines) -> SyntaxProblem:
    """The syntax error of a token the parser state `row` has no action for."""
    expected = frozenset(s for s in row if s.isupper() or s == "$END")
    return SyntaxProblem(start, *lines.position(start),
                         Tok(kind, text[start:end], start, end, lines), expected)


class _Lexed:
    """A text's tokens: texts, end offsets, the first offset no terminal matches (None: none),
    `kind` (a token's text -> its terminal, see _classify), `codes` (one character per token,
    its terminal's: see _tables) and the line starts."""

    __slots__ = ("texts", "ends", "bad", "kind", "codes", "lines")

    def __init__(self, text: str) -> None:
        self.texts, self.ends, self.bad = _lex(text)
        self.kind, self.codes = _classify(self.texts)
        self.lines = Lines(text)


def _classify(texts: list[str]) -> tuple[dict[str, str], str]:
    """Each distinct token text's terminal, a keyword's spelling as that keyword (whether it
    is one depends on the parser state: parse_text decides), and the tokens' codes. Texts
    repeat ("0", "[", names): each distinct one is classified once, the codes joined in C."""
    t = _tables()
    kinds: dict[str, str] = {**t.literals, **t.keywords}
    for text in set(texts).difference(kinds):
        kinds[text] = next(name for name, rx in t.classes if rx.fullmatch(text))
    code = t.code
    chars = {text: code[kind] for text, kind in kinds.items()}
    return kinds, "".join(map(chars.__getitem__, texts))


def _from_template(stack: list, values: list, lexed: _Lexed, i: int, t, ends, pending: list
                   ) -> tuple[int, str] | None:
    """Build the phrase starting at token i (its last token found by `ends`) from its shape's
    template (phrases.py), as the automaton would: its tree on `values`, the state after it
    on `stack`. Returns the index of its last token and the terminal the next token is there,
    decided in the state after the phrase as the automaton decides it; None when there is no
    template yet (then, when the automaton is to parse it, `pending` gets what phrases.record
    needs), or the token after it does not lead to the phrase's reduction there (the
    automaton then finds what it does). `t`: _tables()."""
    found = phrases.phrase(stack[-1], lexed.codes, i, ends)
    if found is None:
        return None
    shape, last = found
    built = phrases.template(shape)
    if built is None:
        pending.append((shape, i, len(stack), last))
        return None
    kind = lexed.kind[lexed.texts[last + 1]]
    row = t.states[built.after]
    if kind in t.keyword_kinds and kind not in row:
        kind = "NAME"
    if row.get(kind) != built.action:
        pending.append((shape, i, len(stack), last))
        return None
    below = stack[-1]
    key = (below, t.rules[~built.action][0], kind)
    state = _GOTO_MEMO.get(key)
    if state is None:
        state = _GOTO_MEMO[key] = _goto(t.states, t.rules, below, key[1], kind)
    built.uses += 1
    if built.uses >= phrases.COMPILE_AFTER and not built.compiled:
        phrases.compile_template(built, lexed, i)
    values.append(Phrase(built, lexed, i) if built.lazy else built.build(lexed, i))
    stack.append(state)
    return last, kind


def tokens(text: str, start: int = 0):
    """The tokens of `text` from offset `start`, with the parser's own regex (blanks and
    comments skipped; a NAME stays a NAME, since keywords depend on the parser state). Where
    no terminal matches, a last token of type "$BAD" (empty) marks the spot. For the language
    server, which reads incomplete text; compiles never call this."""
    t = _tables()
    master, group_kinds, literals = t.master, t.group_kinds, t.literals
    lines = Lines(text)
    pos, n = start, len(text)
    while pos < n:
        m = master.match(text, pos)
        group = m.lastindex
        if group is None:
            if m.end() < n:
                yield Tok("$BAD", "", m.end(), m.end(), lines)
            return
        pos = m.end()
        kind, value = group_kinds[group], m.group(group)
        yield Tok(literals[value] if kind == _LITERAL else kind, value, m.start(group), pos, lines)


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
        # a statement where a block's contents go on: that block was not closed
        sink.error(f"expected '}}' before {_describe_token(tok)}", pos,
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


_STATEMENT_KEYWORDS = frozenset(word.upper() for word in STATEMENT_WORDS)


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

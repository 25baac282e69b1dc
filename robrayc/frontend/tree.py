"""The robray parse tree: `Node` (a rule's label and children) and `Tok` (a token), as lark
builds them, and `Lines` (text offsets -> line and column). The generated tables, the parser,
the evaluation and the language server all build on these."""

from __future__ import annotations

from bisect import bisect_right
from itertools import accumulate, count
from operator import add

from robrayc.diagnostics import SourcePos


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

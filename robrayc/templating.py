"""The text backends' templates (templates/*.j2, jinja2 syntax) rendered without jinja2.

templates/ stays the truth people read and edit. ``python -m robrayc.regen`` translates
each template, through jinja2's own parser, into a plain Python function in
``_templates.py`` (committed; a test fails when it is stale and another renders every
template both ways). A run then imports no jinja2: importing it and loading the templates
cost ~40 ms, more than a whole small compile. A template edited but not yet regenerated
is rendered by jinja2 itself, so nothing is ever out of date.

The translator knows the constructs the templates use (output, if/elif/else, for with
unpacking, `if` filter, else and loop.index0/index/first/last/length, attribute and item
access, literals, comparisons, arithmetic, `~`, conditional expressions, the length and max
filters) and refuses anything else, naming it.
"""

from __future__ import annotations

import keyword
from functools import cache, lru_cache

from robrayc.resources import resource_dir

OPTIONS = {"trim_blocks": True, "lstrip_blocks": True, "keep_trailing_newline": True}


def render(template: str, model: dict) -> str:
    compiled = _compiled(template)
    if compiled is not None:
        return compiled(model)
    return _jinja_environment().get_template(template).render(**model)


@cache
def _compiled(template: str):
    """The generated function of `template`, or None when the file differs from the text it
    was generated from (edited since) or was never generated."""
    from robrayc import _templates

    entry = _templates.TEMPLATES.get(template)
    if entry is None:
        return None
    crc, function = entry
    if _crc((resource_dir("templates") / template).read_text(encoding="utf-8")) != crc:
        return None
    return function


@lru_cache(maxsize=1)
def _jinja_environment():
    import jinja2

    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(resource_dir("templates"))),
        undefined=jinja2.StrictUndefined, autoescape=False, **OPTIONS)


def render_with_jinja(template: str, model: dict) -> str:
    """What jinja2 itself renders (the reference the compiled functions are tested against)."""
    return _jinja_environment().get_template(template).render(**model)


# --- the translator (needs jinja2; run at development time) -----------------------------------

_BINARY = {"Add": "+", "Sub": "-", "Mul": "*", "Div": "/", "FloorDiv": "//", "Mod": "%",
           "Pow": "**", "And": "and", "Or": "or"}
_COMPARE = {"eq": "==", "ne": "!=", "gt": ">", "gteq": ">=", "lt": "<", "lteq": "<=",
            "in": "in", "notin": "not in"}
_FILTERS = {"length": "len", "count": "len", "max": "max", "min": "min", "string": "str"}
_LOOP = {"index0": "{i}", "index": "({i} + 1)", "first": "({i} == 0)",
         "last": "({i} == len({items}) - 1)", "length": "len({items})"}


class _Translator:
    def __init__(self, template: str) -> None:
        self.template = template
        self.line = 0  # the template line of the last statement emitted
        self.lines: list[str] = []
        self.scopes: list[dict[str, str]] = []  # jinja loop names -> Python locals
        self.loops: list[tuple[str, str]] = []  # (index variable, item list) per loop
        self.temps = 0
        # (variable, attribute) -> the temporary holding it, one dict per enclosing block: a
        # value read once in a block is read again from its temporary in that block and in
        # the blocks inside it (a frame's name is printed several times per frame)
        self.known: list[dict[tuple[str, str], str]] = [{}]

    def fresh(self, stem: str) -> str:
        self.temps += 1
        return f"{stem}{self.temps}"

    def emit(self, depth: int, line: str) -> None:
        self.lines.append("    " * depth + line)

    def body(self, nodes, depth: int) -> None:
        start = len(self.lines)
        self.known.append({})
        for node in nodes:
            if node.lineno != self.line:  # where the code comes from, for a reader
                self.line = node.lineno
                self.emit(depth, f"# {self.template}:{node.lineno}")
            getattr(self, "stmt_" + type(node).__name__, self.unsupported)(node, depth)
        self.known.pop()
        if len(self.lines) == start:
            self.emit(depth, "pass")

    def unsupported(self, node, *_):
        raise NotImplementedError(f"template construct {type(node).__name__} (line "
                                  f"{node.lineno}) is not supported by robrayc.templating")

    def stmt_Output(self, node, depth: int) -> None:
        """One `w(...)` of the output's text, a string per line of the template's text (a long
        line cut in pieces), a field `{x!s}` per expression."""
        pieces: list[tuple[str, bool]] = []  # (text, has fields), the next one after a newline
        for part in node.nodes:
            if type(part).__name__ == "TemplateData":
                for line in part.data.splitlines(keepends=True):
                    for k in range(0, len(line), _PIECE):
                        _add(pieces, line[k:k + _PIECE].replace("{", "{{").replace("}", "}}"))
            else:
                code = self.read(part, depth)
                if not code.isidentifier():  # f-string fields hold no quotes: a temporary
                    temp = self.fresh("_v")
                    self.emit(depth, f"{temp} = {code}")
                    code = temp
                _add(pieces, "{" + code + "!s}", field=True)
        texts = [("f" if field else "") + repr(text if field else
                                               text.replace("{{", "{").replace("}}", "}"))
                 for text, field in pieces]
        if len(texts) == 1:
            self.emit(depth, f"w({texts[0]})")
            return
        self.emit(depth, f"w({texts[0]}")
        for text in texts[1:-1]:
            self.emit(depth, f"  {text}")
        self.emit(depth, f"  {texts[-1]})")

    def read(self, node, depth: int) -> str:
        """Python code for `node`, read where it is always evaluated (an output, an if's test).
        `x.name` of a variable (also as `x.name[i]`) is read inline, as _attr does it (an
        attribute, else an item), into a temporary that later reads in the block reuse: no
        call, and one read, for each of a large model's values."""
        kind = type(node).__name__
        if kind == "Getitem" and type(node.node).__name__ == "Getattr":
            return f"{self.read(node.node, depth)}[{self.expr(node.arg)}]"
        if kind != "Getattr" or type(node.node).__name__ != "Name" or \
                keyword.iskeyword(node.attr) or node.node.name == "loop":
            return self.expr(node)
        obj = self.expr(node.node)
        for known in reversed(self.known):
            if (obj, node.attr) in known:
                return known[obj, node.attr]
        temp = self.fresh("_v")
        self.emit(depth, "try:")
        self.emit(depth + 1, f"{temp} = {obj}.{node.attr}")
        self.emit(depth, "except AttributeError:")
        self.emit(depth + 1, f"{temp} = {obj}[{node.attr!r}]")
        self.known[-1][obj, node.attr] = temp
        return temp

    def stmt_If(self, node, depth: int) -> None:
        self.emit(depth, f"if {self.read(node.test, depth)}:")
        self.body(node.body, depth + 1)
        for elif_ in node.elif_:  # evaluated only when the tests before fail: not read ahead
            self.emit(depth, f"elif {self.expr(elif_.test)}:")
            self.body(elif_.body, depth + 1)
        if node.else_:
            self.emit(depth, "else:")
            self.body(node.else_, depth + 1)

    def stmt_For(self, node, depth: int) -> None:
        if node.recursive:
            self.unsupported(node)
        items, index = self.fresh("_items"), self.fresh("_i")
        iterable = self.read(node.iter, depth)
        scope = {name: self.fresh(f"l_{name}_") for name in _target_names(node.target)}
        self.scopes.append(scope)
        target = self.target(node.target)
        uses_loop = any(n.name == "loop" for b in node.body
                        for n in b.find_all(_jinja_nodes().Name))
        if node.test is not None:
            iterable = f"[{target} for {target} in {iterable} if {self.expr(node.test)}]"
        if node.else_ or uses_loop:  # both need the items as a list
            self.emit(depth, f"{items} = list({iterable})")
            iterable = items
        self.loops.append((index, items))
        if uses_loop:
            self.emit(depth, f"for {index}, {target} in enumerate({items}):")
        else:  # iterated as given: a generator of a large model is never all in memory
            self.emit(depth, f"for {target} in {iterable}:")
        self.body(node.body, depth + 1)
        self.loops.pop()
        self.scopes.pop()
        if node.else_:
            self.emit(depth, f"if not {items}:")
            self.body(node.else_, depth + 1)

    def target(self, node) -> str:
        kind = type(node).__name__
        if kind == "Name":
            return self.scopes[-1][node.name]
        if kind == "Tuple":
            return "(" + ", ".join(self.target(i) for i in node.items) + ",)"
        return self.unsupported(node)

    def expr(self, node) -> str:
        kind = type(node).__name__
        if kind in _BINARY:
            return f"({self.expr(node.left)} {_BINARY[kind]} {self.expr(node.right)})"
        method = getattr(self, "expr_" + kind, None)
        return method(node) if method else self.unsupported(node)

    def expr_Name(self, node) -> str:
        for scope in reversed(self.scopes):
            if node.name in scope:
                return scope[node.name]
        return f"ctx[{node.name!r}]"

    def expr_Const(self, node) -> str:
        return repr(node.value)

    def expr_Getattr(self, node) -> str:
        if type(node.node).__name__ == "Name" and node.node.name == "loop" and self.loops:
            if node.attr not in _LOOP:
                self.unsupported(node)
            index, items = self.loops[-1]
            return _LOOP[node.attr].format(i=index, items=items)
        return f"_attr({self.expr(node.node)}, {node.attr!r})"

    def expr_Getitem(self, node) -> str:
        return f"{self.expr(node.node)}[{self.expr(node.arg)}]"

    def expr_Neg(self, node) -> str:
        return f"(-{self.expr(node.node)})"

    def expr_Not(self, node) -> str:
        return f"(not {self.expr(node.node)})"

    def expr_List(self, node) -> str:
        return "[" + ", ".join(self.expr(i) for i in node.items) + "]"

    def expr_Tuple(self, node) -> str:
        return "(" + ", ".join(self.expr(i) for i in node.items) + ",)"

    def expr_Concat(self, node) -> str:
        return "(" + " + ".join(repr(str(n.value)) if type(n).__name__ == "Const"
                                else f"str({self.expr(n)})" for n in node.nodes) + ")"

    def expr_CondExpr(self, node) -> str:
        if node.expr2 is None:
            self.unsupported(node)
        return (f"({self.expr(node.expr1)} if {self.expr(node.test)} "
                f"else {self.expr(node.expr2)})")

    def expr_Compare(self, node) -> str:
        parts = [self.expr(node.expr)]
        for op in node.ops:
            parts += [_COMPARE[op.op], self.expr(op.expr)]
        return "(" + " ".join(parts) + ")"

    def expr_Filter(self, node) -> str:
        if node.name not in _FILTERS or node.args or node.kwargs or node.dyn_args:
            self.unsupported(node)
        return f"{_FILTERS[node.name]}({self.expr(node.node)})"


_PIECE = 72  # characters of template text in one generated line


def _add(pieces: list[tuple[str, bool]], text: str, field: bool = False) -> None:
    """Append `text` to the last piece unless that one ends a line or is long already."""
    if pieces and not pieces[-1][0].endswith("\n") and len(pieces[-1][0]) + len(text) <= _PIECE:
        pieces[-1] = (pieces[-1][0] + text, pieces[-1][1] or field)
    else:
        pieces.append((text, field))


def _jinja_nodes():
    from jinja2 import nodes

    return nodes


def _target_names(node) -> list[str]:
    if type(node).__name__ == "Name":
        return [node.name]
    return [n for item in node.items for n in _target_names(item)]


def function_name(template: str) -> str:
    return "render_" + "".join(c if c.isalnum() else "_" for c in template)


def translate(template: str, source: str) -> str:
    """Python source of a function rendering `source` (jinja2 syntax) from a model dict."""
    import jinja2

    tree = jinja2.Environment(**OPTIONS).parse(source)
    t = _Translator(template)
    t.body(tree.body, 1)
    return "\n".join([f"def {function_name(template)}(ctx: dict) -> str:",
                      "    out: list[str] = []", "    w = out.append", *t.lines,
                      '    return "".join(out)', ""])


def generate(header: str) -> str:
    """_templates.py's text; `header` says how to regenerate it."""
    names = sorted(p.name for p in resource_dir("templates").glob("*.j2"))
    sources = {n: (resource_dir("templates") / n).read_text(encoding="utf-8") for n in names}
    parts = ['"""templates/*.j2 as plain Python (robrayc/templating.py).', "", header, "",
             "A comment `# NAME:LINE` before each statement names the template line it renders.",
             "TEMPLATES maps a template to the CRC-32 of the text it was generated from and its",
             'function (templating.render uses jinja2 for a template edited since)."""',
             "", "", "def _attr(obj, name):",
             "    try:  # jinja2's rule: an attribute, else an item",
             "        return getattr(obj, name)", "    except AttributeError:",
             "        return obj[name]", "", ""]
    for name in names:
        parts += [translate(name, sources[name]), ""]
    parts.append("TEMPLATES = {")
    parts += [f"    {n!r}: (0x{_crc(sources[n]):08x}, {function_name(n)})," for n in names]
    parts += ["}", ""]
    return "\n".join(parts)


def _crc(text: str) -> int:
    import zlib

    return zlib.crc32(text.encode("utf-8"))

"""Generate ``_tables.py`` (LALR tables + lexer spec) from ``grammar/robray.lark`` with lark.

Called by ``python -m robrayc.regen`` (which writes every generated module, or checks them).

lark builds the LALR(1) automaton; states are renumbered breadth-first from the start state so
the output does not depend on hash seeds. At run time robrayc reads only the generated module
(no lark import: start-up matters for a compiler run once per build step).
"""

from __future__ import annotations

import pprint
import re
import textwrap

from lark import Lark
from lark.grammar import NonTerminal
from lark.lexer import PatternStr
from lark.parsers.lalr_analysis import Shift

from robrayc.resources import resource_path

DROP, KEEP, SPLICE = 0, 1, 2


def _states(table, rule_index: dict[int, int]) -> tuple[dict, list[dict[str, int]]]:
    """(old state -> canonical number, the canonical action rows)."""
    # Canonical state numbering: breadth-first from the start, symbols in sorted order.
    start = table.start_states["start"]
    order = {start: 0}
    queue = [start]
    while queue:
        state = queue.pop(0)
        for sym in sorted(table.states[state]):
            action, arg = table.states[state][sym]
            if action is Shift and arg not in order:
                order[arg] = len(order)
                queue.append(arg)
    states = []
    for old in sorted(order, key=order.get):
        row = {}
        for sym, (action, arg) in sorted(table.states[old].items()):
            row[str(sym)] = order[arg] if action is Shift else -1 - rule_index[id(arg)]
        states.append(row)
    return order, states


def _symbols(states: list[dict[str, int]], terminals: list, ignore: set[str],
             rule_specs: list) -> list[str]:
    """The terminals in code order (`$END` first, then by name): a token's code indexes a
    state's row of ACTIONS and a goto's row of GOTOS."""
    origins = {origin for origin, *_ in rule_specs}
    names = {name for name, _ in terminals if name not in ignore}
    names |= {sym for row in states for sym in row if sym not in origins}
    names.discard("$END")
    return ["$END", *sorted(names)]


def _actions(states: list[dict[str, int]], symbols: list[str]) -> list[tuple]:
    """Per state, per terminal code: the state to shift to, -1 - rule to reduce by, or None
    (a syntax error)."""
    return [tuple(row.get(sym) for sym in symbols) for row in states]


def _gotos(states: list[dict[str, int]], rule_specs: list,
           symbols: list[str]) -> list[dict[str, tuple]]:
    """Per state below a reduction: origin -> per lookahead code, the goto state, or the
    state after the unit reductions that lookahead then asks for there. A unit rule (`?sum:
    product`) only changes the state, so the driver jumps over the chain (a number climbs
    atom -> unary -> power -> product -> sum -> expr) in one look-up."""
    origins = {origin for origin, *_ in rule_specs}
    table = []
    for row in states:
        entry = {}
        for origin in sorted(sym for sym in row if sym in origins):
            after = []
            for lookahead in symbols:
                state = row[origin]
                while True:
                    action = states[state].get(lookahead)
                    if action is None or action >= 0 or not rule_specs[~action][2]:
                        break
                    state = row[rule_specs[~action][0]]
                after.append(state)
            entry[origin] = tuple(after)
        table.append(entry)
    return table


def _rules(rules) -> tuple[list[tuple[str, int, bool, str | None]], list[str], set[str]]:
    """(per rule: origin, length, unit, wrap), the reducers' source, the terminals the tree
    keeps. `wrap` labels a rule whose value is a node around its one symbol (`number`,
    `ident`: the commonest reductions), which the driver builds without calling a reducer."""
    rule_specs, reducers = [], []
    kept: set[str] = set()
    for i, r in enumerate(rules):
        origin = str(r.origin.name)
        plan = []
        for sym in r.expansion:
            if isinstance(sym, NonTerminal):
                plan.append(SPLICE if sym.name.startswith("_") else KEEP)
            else:
                plan.append(DROP if sym.filter_out else KEEP)
                if not sym.filter_out:
                    kept.add(sym.name)
        data = None if origin.startswith("_") else str(r.alias or origin)
        expand1 = bool(r.options.expand1 and not r.alias)
        # A unit rule only changes the parser state, its one kept child passing through:
        # `?a: b`, and `_a: b` (a one-element list to splice: spliced values that are not
        # lists are appended instead, see reducer()).
        unit = (expand1 or data is None) and len(plan) == 1 and plan[0] == KEEP
        wrap = data if plan == [KEEP] and data is not None and not expand1 else None
        rule_specs.append((origin, len(r.expansion), unit, wrap))
        reducers.append(f"# {i}: {_rule_text(r)}\n"
                        + reducer(f"_r{i}", len(r.expansion), data, expand1, tuple(plan)))
    return rule_specs, reducers, kept


def _rule_text(rule) -> str:
    """A rule as the grammar's reader sees it: `frame: FRAME name LBRACE __frame_item_star RBRACE`
    (lark's expansion: literals by terminal name, repetitions as `__..._star` helper rules)."""
    symbols = " ".join(sym.name for sym in rule.expansion) or "<empty>"
    alias = f"  -> {rule.alias}" if rule.alias else ""
    return f"{rule.origin.name}: {symbols}{alias}"


def _terminals(lark: Lark) -> tuple[list, set[str], dict[str, str], dict[str, str]]:
    """(terminals in match order, ignored terminals, keywords, literals text -> name)."""
    name_re = next(t for t in lark.terminals if t.name == "NAME").pattern.to_regexp()
    keywords, patterns, strings = {}, [], []
    ignore = set(lark.ignore_tokens)
    for t in lark.terminals:
        regexp = t.pattern.to_regexp()
        if isinstance(t.pattern, PatternStr) and re.fullmatch(name_re, t.pattern.value):
            keywords[t.pattern.value] = t.name
        elif isinstance(t.pattern, PatternStr):
            strings.append((t.name, regexp, t.pattern.value))
        else:
            patterns.append((t.name, regexp))
    # Ignored text first, then the other patterns, then literals longest first.
    patterns.sort(key=lambda p: (p[0] not in ignore, p[0]))
    strings.sort(key=lambda s: (-len(s[2]), s[0]))
    terminals = patterns + [(n, rx) for n, rx, _ in strings]
    literals = {text: n for n, _, text in strings}
    return terminals, ignore, keywords, literals


def grammar_text() -> str:
    return resource_path("grammar", "robray.lark").read_text(encoding="utf-8")


def generate(header: str) -> str:
    """_tables.py's text; `header` says how to regenerate it."""
    lark = Lark(grammar_text(), parser="lalr", lexer="contextual", maybe_placeholders=False)
    table = lark.parser.parser.parser.parse_table
    rules = lark.rules
    order, states = _states(table, {id(r): i for i, r in enumerate(rules)})
    rule_specs, reducers, kept = _rules(rules)
    terminals, ignore, keywords, literals = _terminals(lark)
    symbols = _symbols(states, terminals, ignore, rule_specs)

    rule_lines = [f"    {spec!r},  # {i}: {_rule_text(r)}"
                  for i, (spec, r) in enumerate(zip(rule_specs, rules, strict=True))]
    body = [
        '"""The robray parser\'s LALR(1) tables and lexer spec, made by lark from',
        "grammar/robray.lark (robrayc/frontend/tablegen.py); read by robrayc/frontend/parse.py.",
        "",
        header,
        "",
        "Each rule's comment is lark's expansion of a grammar rule (`__x_star_N`: a repetition).",
        '"""',
        "",
        "from robrayc.frontend.tree import Node",
        "",
        f"END = {order[table.end_states['start']]!r}",
        f"TERMINALS = {pprint.pformat(terminals, width=96)}",
        f"IGNORE = {pprint.pformat(sorted(ignore), width=96)}",
        f"KEYWORDS = {pprint.pformat(keywords, width=96)}",
        "# literal terminals (text -> name), longest first",
        f"LITERALS = {pprint.pformat(literals, width=96, sort_dicts=False)}",
        "# terminals the tree keeps (the others, punctuation and keywords, are never looked at)",
        f"KEPT = {pprint.pformat(sorted(kept), width=96)}",
        "# (origin, length, unit: a `?rule` with one kept child, which only changes the state,",
        "#  wrap: the label of a node around the rule's one symbol, else None)",
        "RULES = [",
        *rule_lines,
        "]",
        "",
        "",
        "# Per rule: replace its values by what lark's tree builder would make (a Node, the only",
        "# child of a `?rule`, or a list to splice for an `_rule`).",
        *reducers,
        "REDUCERS = [",
        *textwrap.wrap(", ".join(f"_r{i}" for i in range(len(rules))) + ",", 92,
                       initial_indent="    ", subsequent_indent="    "),
        "]",
        "",
        "# terminal names in code order: a token's code indexes the rows below",
        f"SYMBOLS = {pprint.pformat(symbols, width=96)}",
        "",
        "# state -> per terminal code: the state to shift to (>= 0), -1 - rule index (reduce),",
        "#  or None (a syntax error)",
        "ACTIONS = [",
        *(line for i, row in enumerate(_actions(states, symbols))
          for line in _tuple_lines(row, f"    # {i}", "    ")),
        "]",
        "",
        "# state below a reduction -> {origin: per lookahead code, the goto state, or the state",
        "#  after the unit reductions the lookahead asks for there}",
        "GOTOS = [",
        *_gotos_lines(_gotos(states, rule_specs, symbols)),
        "]",
        "",
    ]
    return "\n".join(body)


def _gotos_lines(table: list[dict[str, tuple]]) -> list[str]:
    lines = []
    for i, entry in enumerate(table):
        lines.append(f"    {{  # {i}")
        for origin, after in entry.items():
            lines += _tuple_lines(after, f"        {origin!r}:", "            ")
        lines.append("    },")
    return lines


def _tuple_lines(values: tuple, head: str, indent: str) -> list[str]:
    """`head` then `values` as a tuple literal on lines of at most 96 characters."""
    return [head, *textwrap.wrap("(" + ", ".join(map(repr, values)) + "),", 96,
                                 initial_indent=indent, subsequent_indent=indent)]


def reducer(name: str, length: int, data: str | None, expand1: bool,
            plan: tuple[int, ...]) -> str:
    """Source of the function reducing one rule in place: its `length` values on top of
    `values` become the one value lark's tree builder would make (no per-child work at run
    time; children read by negative index, no slice copied)."""
    def child(i: int) -> str:
        return f"values[{i - length}]"

    body = [f"def {name}(values):"]
    steps = [(i, p) for i, p in enumerate(plan) if p]
    # A spliced value is the list of an `_rule`, or the one child a unit `_rule` passed on.
    if steps and steps[0] == (0, SPLICE):
        # left recursion: extend the list in place (no copy)
        body.append(f"    ch = {child(0)} if type({child(0)}) is list else [{child(0)}]")
        steps = steps[1:]
    elif all(p == KEEP for _, p in steps):
        body.append("    ch = [" + ", ".join(child(i) for i, _ in steps) + "]")
        steps = []
    else:
        body.append("    ch = []")
    for i, p in steps:
        if p == KEEP:
            body.append(f"    ch.append({child(i)})")
        else:
            body.append(f"    ch.extend({child(i)}) if type({child(i)}) is list "
                        f"else ch.append({child(i)})")
    if data is None:
        result = "ch"
    elif expand1:
        result = f"ch[0] if len(ch) == 1 else Node({data!r}, ch)"
    else:
        result = f"Node({data!r}, ch)"
    if length == 0:
        body.append(f"    values.append({result})")
    else:
        if length > 1:
            body.append(f"    del values[{1 - length}:]")
        body.append(f"    values[-1] = {result}")
    return "\n".join(body) + "\n\n"

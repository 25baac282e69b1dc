"""Grammar-aware hypothesis strategies: valid robray scene trees, and mutations of them.

`scenes()` draws a :class:`SceneTree`: a main file and (sometimes) included files, each a list
of tokens, covering defs (every number spelling, pi/π/deg, + - * / ** ^, unary signs,
parentheses, hyphenated names), classes with isa chains, nested frames and objects, every
frame attribute and joint type, every shape and geometry option, string names with arbitrary
characters, allow_collision, comments, stray semicolons and includes found beside the file or
through -I. Every drawn scene is valid: the compiler must accept it (warnings allowed).

`mutants()` draws a SceneTree and a list of mutations applied to one of its files: token
deletion, duplication and swap, truncation, byte flips, invalid UTF-8, NULs, CRLF and lone CR
line ends, a BOM. Mutated scenes may be valid or not; the property is about how the compiler
fails, not whether.

Values are evaluated while drawing (as robrayc folds them: right-associative power, unary minus
tighter than power) so constraints like non-negative radii and non-zero axes hold by
construction rather than by filtering.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, field
from pathlib import Path

from hypothesis import strategies as st

# A small closed triangle mesh, written beside the scene when a geometry names it.
TET_OBJ = b"""v 0 0 0
v 1 0 0
v 0 1 0
v 0 0 1
f 1 3 2
f 1 2 4
f 1 4 3
f 2 3 4
"""

KEYWORDS = frozenset({"include", "def", "class", "frame", "object", "allow_collision",
                      "geometry", "pi", "deg"})
SEPARATORS = (" ", " ", " ", "\n", "\n    ", "\t", "  ", " /* c */ ", "\n// note\n", "\n# x\n",
              "\n/* multi\n line */\n")


@dataclass
class SceneFile:
    """One file: its path relative to the scene root and its tokens."""

    path: str
    tokens: list[str] = field(default_factory=list)
    separators: list[str] = field(default_factory=list)  # one before each token

    def render(self, newline: str = "\n") -> bytes:
        """The file's text; `newline` replaces line ends between tokens (not inside strings)."""
        parts = []
        for sep, tok in zip(self.separators, self.tokens, strict=True):
            parts.append(sep.replace("\n", newline))
            parts.append(tok)
        parts.append(newline)
        return "".join(parts).encode("utf-8")


@dataclass
class SceneTree:
    """Files of one scene; `main` is compiled, `include_dirs` are passed with -I."""

    files: list[SceneFile]
    include_dirs: list[str] = field(default_factory=list)
    frames: list[str] = field(default_factory=list)  # every frame name, in drawing order
    needs_mesh: bool = False
    raw: dict[str, bytes] = field(default_factory=dict)  # rendered/mutated bytes by path

    @property
    def main(self) -> SceneFile:
        return self.files[0]

    def contents(self) -> dict[str, bytes]:
        out = {f.path: self.raw.get(f.path, f.render()) for f in self.files}
        if self.needs_mesh:
            out["tet.obj"] = TET_OBJ
            out["inc/tet.obj"] = TET_OBJ
        return out

    def write(self, root: Path) -> Path:
        """Write every file under `root`; return the main file's path."""
        for rel, data in self.contents().items():
            p = root / rel
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_bytes(data)
        for d in self.include_dirs:
            (root / d).mkdir(parents=True, exist_ok=True)
        return root / self.main.path


# --- expressions ------------------------------------------------------------------------------

# An expression tree: ("num", text, value) | ("name", text, value) | ("neg", e) | ("plus", e)
# | ("paren", e) | (op, a, b) with op in + - * / ** ^.
Expr = tuple


def value_of(e: Expr) -> float:
    kind = e[0]
    if kind in ("num", "name"):
        return e[2]
    if kind == "neg":
        return -value_of(e[1])
    if kind in ("plus", "paren"):
        return value_of(e[1])
    a, b = value_of(e[1]), value_of(e[2])
    if kind == "+":
        return a + b
    if kind == "-":
        return a - b
    if kind == "*":
        return a * b
    if kind == "/":
        return a / b
    return a ** b


def tokens_of(e: Expr) -> list[str]:
    kind = e[0]
    if kind in ("num", "name"):
        return [e[1]]
    if kind == "neg":
        return ["-", *tokens_of(e[1])]
    if kind == "plus":
        return ["+", *tokens_of(e[1])]
    if kind == "paren":
        return ["(", *tokens_of(e[1]), ")"]
    return [*tokens_of(e[1]), kind, *tokens_of(e[2])]


_NUMBER_FORMS = ("{i}", "{i}.{f}", ".{f}", "{i}.", "{i}e{x}", "{i}.{f}E-{x}", "{i}d-{x}",
                 "{i}.{f}D{x}", "{i}s{x}", "{i}e+{x}")
_BUILTINS = (("name", "pi", math.pi), ("name", "π", math.pi), ("name", "deg", math.pi / 180))


def number_literal(rnd: random.Random) -> Expr:
    """A non-negative literal in one of robray's spellings (exponents d, D, s as in Lisp)."""
    text = rnd.choice(_NUMBER_FORMS).format(i=rnd.randint(0, 99), f=rnd.randint(0, 999),
                                            x=rnd.randint(0, 2))
    return ("num", text, float(text.replace("d", "e").replace("D", "e").replace("s", "e")))


def _ok(v: float, bound: float = 1e6) -> bool:
    return isinstance(v, float) and math.isfinite(v) and abs(v) <= bound


def _operand(e: Expr) -> Expr:
    """Parenthesise a binary operand so the rendered text means exactly the drawn tree."""
    return ("paren", e) if e[0] in ("+", "-", "*", "/", "**", "^") else e


def expression(rnd: random.Random, defs: dict[str, float], depth: int = 2) -> Expr:
    """A finite expression over literals, earlier defs and builtins."""

    def leaf() -> Expr:
        k = rnd.randint(0, 5)
        if k <= 2 or (k <= 4 and not defs):
            return number_literal(rnd)
        if k <= 4:
            n = rnd.choice(sorted(defs))
            return ("name", n, defs[n])
        return rnd.choice(_BUILTINS)

    if depth <= 0 or rnd.randint(0, 2) == 0:
        return leaf()
    kind = rnd.choice(("+", "-", "*", "/", "**", "^", "neg", "plus", "paren"))
    if kind in ("neg", "plus", "paren"):
        return (kind, _operand(expression(rnd, defs, depth - 1)))
    a = _operand(expression(rnd, defs, depth - 1))
    if kind in ("**", "^"):  # a small integer exponent: never complex, rarely huge
        k = rnd.randint(0, 3)
        e = (kind, a, ("num", str(k), float(k)))
    elif kind == "/":
        d = number_literal(rnd)
        e = (kind, a, d if d[2] != 0 else ("num", "2", 2.0))
    else:
        e = (kind, a, _operand(expression(rnd, defs, depth - 1)))
    try:
        v = value_of(e)
    except (OverflowError, ZeroDivisionError):
        return leaf()
    return e if _ok(v) else leaf()


def value_tokens(rnd: random.Random, defs: dict[str, float], lo: float = -1e6,
                 hi: float = 1e6, nonzero: bool = False) -> list[str]:
    """Tokens of an expression whose value is within [lo, hi] (and not zero if asked)."""
    e = expression(rnd, defs)
    try:
        v = value_of(e)
    except (OverflowError, ZeroDivisionError):
        v = math.nan
    if _ok(v) and lo <= v <= hi and not (nonzero and v == 0):
        return tokens_of(e)
    v = rnd.uniform(max(lo, -1e3), min(hi, 1e3))
    if nonzero and v == 0:
        v = hi if hi > 0 else lo
    text = repr(abs(v))
    return ["-", text] if v < 0 else [text]


_SEEDS = st.integers(0, 2**32 - 1)


# --- names ----------------------------------------------------------------------------------

# Characters a "string" name may hold (anything but '"'): printable ASCII, controls, line ends,
# C-hostile sequences, DEL, Latin-1, CJK, emoji, bidi controls.
_NAME_CHARS = ([chr(c) for c in range(0x20, 0x7F) if c != 0x22] * 3
               + ["\\", "\n", "\t", "\r", "\x01", "\x1b", "\x7f", "é", "ß", "\xa0",
                  "机", "器", "人", "😀", "🤖", "\u202e", "\u200f", "\u2028", "\ufeff", "?"])
_NAME_PIECES = ("*/", "/*", "??/", "%n", "%s", "\\n", "//", "#", "\\x41", "{", "}")


def random_text(rnd: random.Random, max_size: int = 12) -> str:
    out = []
    for _ in range(rnd.randint(0, max_size)):
        out.append(rnd.choice(_NAME_PIECES) if rnd.random() < 0.15 else rnd.choice(_NAME_CHARS))
    return "".join(out)


class Names:
    """Unique names: identifiers (sometimes hyphenated) or "string" names."""

    def __init__(self) -> None:
        self.n = 0

    def ident(self, rnd: random.Random, base: str | None = None) -> str:
        self.n += 1
        base = base or rnd.choice(("link", "joint", "frame_", "a", "x-y", "geometry-", "_b",
                                   "Base", "obj", "pi_", "d"))
        return f"{base}{self.n}"

    def frame_token(self, rnd: random.Random) -> tuple[str, str]:
        """(token, name) of a frame name: mostly identifiers, sometimes strings."""
        if rnd.random() < 0.2:
            self.n += 1
            name = f"{random_text(rnd)}#{self.n}"
            return f'"{name}"', name
        name = self.ident(rnd)
        return name, name


# --- statements -------------------------------------------------------------------------------
# Structure (which statements, how many frames, how deep) is drawn with hypothesis, so failures
# shrink to few statements; each statement's details come from one drawn seed.


@dataclass
class _State:
    names: Names
    defs: dict[str, float] = field(default_factory=dict)
    classes: list[str] = field(default_factory=list)
    frames: list[str] = field(default_factory=list)
    frame_tokens: list[str] = field(default_factory=list)
    needs_mesh: bool = False


def def_stmt(rnd: random.Random, s: _State) -> list[str]:
    name = s.names.ident(rnd, rnd.choice(("k", "len", "w-", "r_", "D")))
    toks = value_tokens(rnd, s.defs, -1e3, 1e3)
    s.defs[name] = eval_tokens(toks, s.defs)
    return ["def", name, *toks, ";"]


def eval_tokens(toks: list[str], defs: dict[str, float]) -> float:
    """Value of an expression's tokens, with robray's precedence (a tiny recursive descent)."""
    pos = 0

    def atom() -> float:
        nonlocal pos
        t = toks[pos]
        pos += 1
        if t == "-":
            return -atom()
        if t == "+":
            return atom()
        if t == "(":
            v = expr()
            pos += 1
            return v
        if t in ("pi", "π"):
            return math.pi
        if t == "deg":
            return math.pi / 180
        if t in defs:
            return defs[t]
        return float(t.replace("d", "e").replace("D", "e").replace("s", "e"))

    def power() -> float:
        nonlocal pos
        base = atom()
        if pos < len(toks) and toks[pos] in ("**", "^"):
            pos += 1
            return base ** power()
        return base

    def product() -> float:
        nonlocal pos
        v = power()
        while pos < len(toks) and toks[pos] in ("*", "/"):
            op = toks[pos]
            pos += 1
            w = power()
            v = v * w if op == "*" else v / w
        return v

    def expr() -> float:
        nonlocal pos
        v = product()
        while pos < len(toks) and toks[pos] in ("+", "-"):
            op = toks[pos]
            pos += 1
            w = product()
            v = v + w if op == "+" else v - w
        return v

    return expr()


def vector_tokens(rnd: random.Random, defs: dict[str, float], n: int, lo: float = -1e3,
                  hi: float = 1e3) -> list[str]:
    out = ["["]
    for i in range(n):
        if i:
            out.append(",")
        out += value_tokens(rnd, defs, lo, hi)
    if rnd.random() < 0.3:
        out.append(",")  # a trailing comma is allowed
    out.append("]")
    return out


_GEOM_OPTIONS = ("color", "alpha", "specular", "scale", "visual", "collision", "no-shadow",
                 "no_shadow")


def geometry_option(rnd: random.Random, s: _State, key: str) -> list[str]:
    if key in ("color", "specular"):
        return [key, *vector_tokens(rnd, s.defs, 3, 0, 1), ";"]
    if key == "alpha":
        return [key, *value_tokens(rnd, s.defs, 0, 1), ";"]
    if key == "scale":
        return [key, *value_tokens(rnd, s.defs, 0.01, 10), ";"]
    return [key, rnd.choice(("0", "1")), ";"]


def shape_attrs(rnd: random.Random, s: _State) -> list[str]:
    shape = rnd.choice(("box", "sphere", "cylinder", "cone", "grid", "mesh", "mesh-only"))

    def pos() -> list[str]:
        return value_tokens(rnd, s.defs, 0, 100)

    if shape == "box":
        return ["shape", "box", ";", "dimension", *vector_tokens(rnd, s.defs, 3, 0, 100), ";"]
    if shape == "sphere":
        return ["shape", "sphere", ";", "radius", *pos(), ";"]
    if shape == "cylinder":
        return ["shape", "cylinder", ";", "height", *pos(), ";", "radius", *pos(), ";"]
    if shape == "cone":
        return ["shape", "cone", ";", "height", *pos(), ";", "start_radius", *pos(), ";",
                "end_radius", *pos(), ";"]
    if shape == "grid":
        return ["shape", "grid", ";", "dimension", *vector_tokens(rnd, s.defs, 2, 0, 100), ";",
                "delta", *vector_tokens(rnd, s.defs, 2, 0.01, 10), ";", "thickness", *pos(),
                ";"]
    s.needs_mesh = True
    head = ["shape", "mesh", ";"] if shape == "mesh" else []
    return [*head, "mesh", '"tet.obj"', ";"]


def _shuffled(rnd: random.Random, parts: list[list[str]]) -> list[str]:
    rnd.shuffle(parts)
    return [t for p in parts for t in p]


def geometry_block(rnd: random.Random, s: _State) -> list[str]:
    parts = [shape_attrs(rnd, s)]
    for key in rnd.sample(_GEOM_OPTIONS, rnd.randint(0, 3)):
        parts.append(geometry_option(rnd, s, key))
    if s.classes and rnd.random() < 0.5:
        parts.append(["isa", rnd.choice(s.classes), ";"])
    if rnd.random() < 0.15:
        parts.append(["material", s.names.ident(rnd, "paint"), ";"])
    return ["geometry", "{", *_shuffled(rnd, parts), "}"]


def class_stmt(rnd: random.Random, s: _State) -> list[str]:
    name = s.names.ident(rnd, rnd.choice(("C", "class_", "red-", "Thing")))
    parts: list[list[str]] = []
    for key in rnd.sample(_GEOM_OPTIONS + ("translation", "rpy", "mass"), rnd.randint(0, 3)):
        if key == "translation" or key == "rpy":
            parts.append([key, *vector_tokens(rnd, s.defs, 3), ";"])
        elif key == "mass":
            parts.append([key, *value_tokens(rnd, s.defs, 0, 100), ";"])
        else:
            parts.append(geometry_option(rnd, s, key))
    for _ in range(rnd.randint(0, 2) if s.classes else 0):
        parts.append(["isa", rnd.choice(s.classes), ";"])
    if rnd.random() < 0.15:
        parts.append(["isa", s.names.ident(rnd, "undeclared"), ";"])  # a tag-only class
    s.classes.append(name)
    return ["class", name, "{", *[t for p in parts for t in p], "}"]


_AXES = (["[", "0", ",", "0", ",", "1", "]"], ["[", "1", ",", "0", ",", "0", "]"],
         ["[", "0", ",", "-", "1", ",", "0", "]"], ["[", "1", ",", "1", ",", "0", "]"])
_INERTIAS = (["[", "1", ",", "0", ",", "0", ",", "2", ",", "0", ",", "3", "]"],
             ["[", "1", ",", ".5", ",", "0", ",", ".5", ",", "2", ",", "0", ",", "0", ",", "0",
              ",", "3", "]"])


def frame_attrs(rnd: random.Random, s: _State, top_level: bool) -> list[list[str]]:
    parts: list[list[str]] = []
    if top_level and s.frames and rnd.random() < 0.5:
        parts.append(["parent", rnd.choice(s.frame_tokens), ";"])
    if rnd.random() < 0.5:
        parts.append(["translation", *vector_tokens(rnd, s.defs, 3), ";"])
    rot = rnd.choice(("none", "rpy", "quaternion", "both"))
    if rot in ("rpy", "both"):
        parts.append(["rpy", *vector_tokens(rnd, s.defs, 3, -7, 7), ";"])
    if rot in ("quaternion", "both"):
        comps = [value_tokens(rnd, s.defs, -2, 2) for _ in range(4)]
        if all(eval_tokens(c, s.defs) == 0 for c in comps):
            comps[3] = ["1"]
        parts.append(["quaternion", "[", *comps[0], ",", *comps[1], ",", *comps[2], ",",
                      *comps[3], "]", ";"])
    kind = rnd.choice(("fixed", "fixed", "revolute", "prismatic", None))
    if kind is not None:
        parts.append(["type", kind, ";"])
    if kind in ("revolute", "prismatic"):
        parts.append(["axis", *rnd.choice(_AXES), ";"])
        if rnd.random() < 0.5:
            parts.append(["offset", *value_tokens(rnd, s.defs, -10, 10), ";"])
        if rnd.random() < 0.5:
            var = f'"v {s.names.n}"' if rnd.random() < 0.5 else s.names.ident(rnd, "var")
            parts.append(["variable", var, ";"])
        for key in rnd.sample(("limit_position", "limit_velocity", "limit_acceleration",
                               "limit_effort"), rnd.randint(0, 2)):
            if key != "limit_position" and rnd.random() < 0.5:
                parts.append([key, *value_tokens(rnd, s.defs, 0, 100), ";"])
            else:
                lo, hi = rnd.randint(-50, 0), rnd.randint(0, 50)
                parts.append([key, "[", *(["-", str(-lo)] if lo < 0 else [str(lo)]), ",",
                              str(hi), "]", ";"])
    if rnd.random() < 0.25:
        parts.append(["mass", *value_tokens(rnd, s.defs, 0, 100), ";"])
        parts.append(["inertia", *rnd.choice(_INERTIAS), ";"])
    if s.classes and rnd.random() < 0.25:
        parts.append(["isa", rnd.choice(s.classes), ";"])
    if rnd.random() < 0.2:  # robot identity (extension attributes)
        parts.append(["link", f'"link {s.names.n}"' if rnd.random() < 0.5
                      else s.names.ident(rnd, "link"), ";"])
        if rnd.random() < 0.5:
            parts.append(["link_role", rnd.choice(("link", "visual", "collision", "inertial")),
                          ";"])
    for _ in range(rnd.choice((0, 0, 1, 1, 2))):
        parts.append(geometry_block(rnd, s))
    if rnd.random() < 0.25:
        parts.append([";"])  # stray semicolon
    return parts


@st.composite
def frame_stmt(draw, s: _State, depth: int = 0) -> list[str]:
    rnd = random.Random(draw(_SEEDS))
    token, name = s.names.frame_token(rnd)
    parts = frame_attrs(rnd, s, top_level=depth == 0)
    s.frames.append(name)
    s.frame_tokens.append(token)
    if depth < 3:
        for _ in range(draw(st.integers(0, 2))):
            parts.append(draw(frame_stmt(s, depth + 1)))
    kw = rnd.choice(("frame", "frame", "object"))
    return [kw, token, "{", *_shuffled(rnd, parts), "}"]


@st.composite
def statements(draw, s: _State, min_frames: int, max_stmts: int) -> list[str]:
    out: list[str] = []
    frames = 0
    for kind in draw(st.lists(st.sampled_from(("def", "def", "class", "frame", "frame", "frame",
                                               "allow", "semi")), max_size=max_stmts)):
        if kind == "frame":
            out += draw(frame_stmt(s))
            frames += 1
            continue
        rnd = random.Random(draw(_SEEDS))
        if kind == "def":
            out += def_stmt(rnd, s)
        elif kind == "class":
            out += class_stmt(rnd, s)
        elif kind == "allow" and s.frames:
            out += ["allow_collision", rnd.choice(s.frame_tokens), rnd.choice(s.frame_tokens),
                    ";"]
        elif kind == "semi":
            out.append(";")
    while frames < min_frames:
        out += draw(frame_stmt(s))
        frames += 1
    return out


def _with_separators(draw, path: str, tokens: list[str]) -> SceneFile:
    rnd = random.Random(draw(_SEEDS))
    seps = [rnd.choice(SEPARATORS) for _ in tokens]
    if seps:
        seps[0] = rnd.choice(("", "/* head */\n", "// head\n", "\n"))
    return SceneFile(path, tokens, seps)


@st.composite
def scenes(draw, max_stmts: int = 6) -> SceneTree:
    """A valid scene: the main file, sometimes with included files (beside it or via -I)."""
    s = _State(Names())
    files: list[SceneFile] = []
    include_dirs: list[str] = []
    main: list[str] = []
    mode = draw(st.sampled_from(("none", "none", "beside", "search", "suffixless", "twice")))
    if mode != "none":
        inc_tokens = draw(statements(s, 0, max_stmts))
        if not inc_tokens:
            inc_tokens = ["def", s.names.ident(random.Random(0), "inc"), "1", ";"]
        if mode == "beside":
            files.append(_with_separators(draw, "inc/part.robray", inc_tokens))
            main += ["include", '"inc/part.robray"', ";"]
        elif mode == "search":
            files.append(_with_separators(draw, "lib/part.robray", inc_tokens))
            include_dirs.append("lib")
            main += ["include", '"part.robray"']  # the ';' after include is optional
        elif mode == "suffixless":
            files.append(_with_separators(draw, "inc/part.robray", inc_tokens))
            main += ["include", '"inc/part"', ";"]
        else:  # a second include of the same file is a no-op
            files.append(_with_separators(draw, "inc/part.robray", inc_tokens))
            main += ["include", '"inc/part.robray"', ";", "include", '"inc/part.robray"', ";"]
    main += draw(statements(s, 1, max_stmts))
    files.insert(0, _with_separators(draw, "scene.robray", main))
    tree = SceneTree(files, include_dirs, list(s.frames), s.needs_mesh)
    return tree


# --- mutations --------------------------------------------------------------------------------

TOKEN_MUTATIONS = ("delete", "duplicate", "swap", "replace")
BYTE_MUTATIONS = ("truncate", "flip", "invalid_utf8", "nul", "crlf", "lone_cr", "bom",
                  "insert_token")
_INTERESTING = ("{", "}", "[", "]", "(", ")", ";", ",", '"', "-", "**", "^", "/", "*", "/*",
                "//", "frame", "geometry", "isa", "class", "def", "include", "1e999", "0",
                "9**9**9", "π", "\\", "\u202e", "\x7f", "\x00", "\ufeff", "1d", ".", "e5")


@dataclass(frozen=True)
class Mutation:
    kind: str
    where: int  # a token or byte index (taken modulo the length)
    arg: int = 0

    def __str__(self) -> str:
        return f"{self.kind}@{self.where}/{self.arg}"


mutation_list = st.lists(
    st.builds(Mutation, st.sampled_from(TOKEN_MUTATIONS + BYTE_MUTATIONS),
              st.integers(0, 1 << 16), st.integers(0, 255)),
    min_size=1, max_size=4)


def apply_mutations(f: SceneFile, mutations: list[Mutation]) -> bytes:
    """Token mutations first (on a copy of the token list), then byte mutations in order."""
    tokens, seps = list(f.tokens), list(f.separators)
    for m in mutations:
        if m.kind not in TOKEN_MUTATIONS or not tokens:
            continue
        i = m.where % len(tokens)
        j = m.arg % len(tokens)
        if m.kind == "delete":
            del tokens[i], seps[i]
        elif m.kind == "duplicate":
            tokens.insert(i, tokens[i])
            seps.insert(i, " ")
        elif m.kind == "swap":
            tokens[i], tokens[j] = tokens[j], tokens[i]
        else:
            tokens[i] = _INTERESTING[m.arg % len(_INTERESTING)]
    data = SceneFile(f.path, tokens, seps).render()
    for m in mutations:
        if m.kind in TOKEN_MUTATIONS:
            continue
        n = max(len(data), 1)
        i = m.where % n
        if m.kind == "truncate":
            data = data[:i]
        elif m.kind == "flip":
            if data:
                data = data[:i] + bytes([data[i] ^ (1 << (m.arg % 8))]) + data[i + 1:]
        elif m.kind == "invalid_utf8":
            bad = (b"\xff", b"\xc3", b"\xe2\x82", b"\xed\xa0\x80", b"\xf8\x88\x80\x80\x80",
                   b"\x80")[m.arg % 6]
            data = data[:i] + bad + data[i:]
        elif m.kind == "nul":
            data = data[:i] + b"\x00" + data[i:]
        elif m.kind == "crlf":
            data = data.replace(b"\r\n", b"\n").replace(b"\n", b"\r\n")
        elif m.kind == "lone_cr":
            data = data.replace(b"\n", b"\r")
        elif m.kind == "bom":
            data = b"\xef\xbb\xbf" + data
        else:  # insert_token: an interesting token at a byte position
            data = data[:i] + _INTERESTING[m.arg % len(_INTERESTING)].encode() + data[i:]
    return data


@st.composite
def mutants(draw, max_stmts: int = 5) -> tuple[SceneTree, list[Mutation]]:
    tree = draw(scenes(max_stmts))
    target = draw(st.integers(0, len(tree.files) - 1))
    muts = draw(mutation_list)
    tree.raw[tree.files[target].path] = apply_mutations(tree.files[target], muts)
    return tree, muts

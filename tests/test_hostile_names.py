"""Hostile names through every output: frame, variable and allow_collision names holding
backslashes, line ends, tabs, comment delimiters, trigraphs, printf directives, quotes, bidi
controls, DEL, other controls, emoji, CJK and 5,000 characters.

Each format carries them exactly (C read back by the real amino library and by a compiled
program, JSON, robray re-read, URDF re-parsed, DOT strings unescaped) or, where the format
cannot hold a character, fails with a clear error or writes a sanitised label into a file
that stays well-formed. Diagnostics never pass a control character to the terminal.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from robrayc.diagnostics import DiagnosticSink
from robrayc.frontend import LoadOptions, load_scene
from tests.fuzz.harness import gcc_check
from tests.run import robrayc

# id -> name. None of them holds '"' (robray strings cannot); QUOTED adds those via URDF.
HOSTILE = {
    "backslash": "a\\b\\",
    "newline": "line1\nline2",
    "crlf": "a\r\nb",
    "lone_cr": "a\rb",
    "tab": "a\tb",
    "comment_end": "x*/y",
    "comment_start": "x/*y",
    "line_comment": "x//y",
    "trigraph": "a??/b??=c??'d??(",
    "printf": "%n%s%x%%%p",
    "bidi": "abc\u202edcba\u2066x\u2069",
    "del": "a\x7fb",
    "escape": "\x1b[31mred\x1b[0m",
    "controls": "\x01\x02\x1f",
    "emoji": "🤖😀👍🏽",
    "cjk": "机器人の腕",
    "long": "L" * 5000,
    "preprocessor": "#include <stdio.h>",
    "apostrophe": "it's",
    "markup": "<a href='x'>&amp;</a>",
    "xml_comment": "x-->y<!--z",
    "spaces": " sp ace ",
    "json": '\\u0000 {"a": 1}'.replace('"', "'"),
}
CONTROL = {"newline", "crlf", "lone_cr", "tab", "escape", "controls"}
QUOTED = {"quote": 'say "hi"', "quotes": '""', "mixed": "a\"b'c\\"}


def robray_scene(names: dict[str, str], spacing: float = 1.0) -> str:
    """One revolute frame per name (variable 'v' + name, a box), a nested child, and
    allow_collision between neighbours."""
    lines = []
    ids = list(names)
    for i, key in enumerate(ids):
        n = names[key]
        lines.append(f'frame "{n}" {{ type revolute; axis [0, 0, 1]; variable "v{n}";\n'
                     f'  translation [{i * spacing!r}, 0, 0];\n'
                     f'  geometry {{ shape box; dimension [1, 1, 1]; }}\n'
                     f'  frame "child {n}" {{ translation [0, 0, 1]; }}\n}}')
    for a, b in zip(ids, ids[1:], strict=False):
        lines.append(f'allow_collision "{names[a]}" "{names[b]}";')
    return "\n".join(lines) + "\n"


def expected_frames(names: dict[str, str]) -> set[str]:
    return set(names.values()) | {f"child {n}" for n in names.values()}


def expected_pairs(names: dict[str, str]) -> set[tuple[str, str]]:
    vals = list(names.values())
    return {tuple(sorted(p)) for p in zip(vals, vals[1:], strict=False)}


@pytest.fixture(scope="module")
def scene_file(tmp_path_factory) -> Path:
    d = tmp_path_factory.mktemp("hostile")
    p = d / "hostile.robray"
    p.write_bytes(robray_scene(HOSTILE).encode())
    return p


def compile_to(src: Path, out: Path, *extra: str) -> None:
    run = robrayc(src, "-o", out, "-q", *extra)
    assert run.status == 0, run.err[:3000]


def test_front_end_reads_every_name_exactly(scene_file):
    scene = load_scene([str(scene_file)], LoadOptions(), DiagnosticSink())
    assert {f.name for f in scene.frames} == expected_frames(HOSTILE)
    assert set(scene.variables) == {"v" + n for n in HOSTILE.values()}
    assert {(a.a, a.b) for a in scene.allowed} == expected_pairs(HOSTILE)


# --- C ---------------------------------------------------------------------------------------


def test_amino_c_names_byte_for_byte_in_the_real_library(scene_file, tmp_path):
    from tests.amino_real import load_c, require_library

    require_library()
    out = tmp_path / "hostile.c"
    compile_to(scene_file, out, "-n", "hostile")
    assert gcc_check([out]) == []  # -Wall -Werror: no trigraph, comment or format warnings
    loaded = load_c(out, "hostile")[0]
    assert {f["name"] for f in loaded["frames"]} == expected_frames(HOSTILE)
    assert {c["name"] for c in loaded["configs"]} == {"v" + n for n in HOSTILE.values()}
    parents = {f["name"]: f["parent"] for f in loaded["frames"]}
    assert all(parents[f"child {n}"] == n for n in HOSTILE.values())
    assert {tuple(sorted(p)) for p in loaded["allowed_collision"]} == expected_pairs(HOSTILE)


def test_amino_c_quotes_from_urdf(tmp_path):
    from tests.amino_real import load_c, require_library

    require_library()
    src = tmp_path / "q.urdf"
    src.write_text(urdf_with(QUOTED), encoding="utf-8")
    out = tmp_path / "q.c"
    compile_to(src, out, "-n", "quoted")
    loaded = load_c(out, "quoted")[0]
    # amino's frame for a URDF joint and its child link is named after the joint
    assert {"j" + n for n in QUOTED.values()} <= {f["name"] for f in loaded["frames"]}


_C_MAIN = r"""
#include <stdio.h>
#include "hs.h"
static void put(const char *s) {
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) printf("%02x", *p);
    putchar('\n');
}
int main(void) {
    for (int i = 0; i < hs_N_FRAMES; i++) put(hs_frames[i].name);
    puts("--");
    for (int i = 0; i < hs_N_CONFIG; i++) put(hs_configs[i].name);
    return 0;
}
"""


def test_standalone_c_names_byte_for_byte(scene_file, tmp_path):
    if shutil.which("gcc") is None:
        pytest.skip("gcc not available")
    out = tmp_path / "hs.c"
    compile_to(scene_file, out, "--format", "c-standalone", "-n", "hs")
    (tmp_path / "main.c").write_text(_C_MAIN)
    exe = tmp_path / "names"
    r = subprocess.run(["gcc", "-std=c99", "-Wall", "-Werror", "-o", str(exe), str(out),
                        str(tmp_path / "main.c"), "-lm"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr[-3000:]
    text = subprocess.run([str(exe)], capture_output=True, text=True, check=True).stdout
    frames, configs = text.split("--\n")
    decode = lambda block: {bytes.fromhex(h).decode() for h in block.split()}  # noqa: E731
    assert decode(frames) == expected_frames(HOSTILE)
    assert decode(configs) == {"v" + n for n in HOSTILE.values()}


# --- JSON, robray, URDF, DOT -------------------------------------------------------------------


def test_json_names_exact(scene_file, tmp_path):
    out = tmp_path / "hostile.json"
    compile_to(scene_file, out)
    doc = json.loads(out.read_text(encoding="utf-8"))
    assert {f["name"] for f in doc["frames"]} == expected_frames(HOSTILE)
    # ... and read back as an input
    scene = load_scene([str(out)], LoadOptions(), DiagnosticSink())
    assert {f.name for f in scene.frames} == expected_frames(HOSTILE)
    assert {(a.a, a.b) for a in scene.allowed} == expected_pairs(HOSTILE)


def test_robray_output_reads_back_identical(scene_file, tmp_path):
    out = tmp_path / "again.robray"
    compile_to(scene_file, out)
    first = load_scene([str(scene_file)], LoadOptions(), DiagnosticSink())
    again = load_scene([str(out)], LoadOptions(), DiagnosticSink())
    strip = lambda s: [(f.name, f.parent, f.kind, f.variable, f.translation)  # noqa: E731
                       for f in s.frames]
    assert strip(again) == strip(first)
    assert {(a.a, a.b) for a in again.allowed} == {(a.a, a.b) for a in first.allowed}


def test_robray_output_refuses_a_name_with_a_double_quote(tmp_path):
    src = tmp_path / "q.urdf"
    src.write_text(urdf_with(QUOTED), encoding="utf-8")
    out = tmp_path / "q.robray"
    outcome = robrayc(str(src), "-o", str(out))
    assert outcome.status == 1 and "double quote" in outcome.err
    assert not out.exists()


def urdf_with(names: dict[str, str]) -> str:
    """A URDF whose links and joints carry `names` (XML-escaped, control characters as
    character references where XML allows them)."""
    from xml.sax.saxutils import quoteattr

    parts = ['<?xml version="1.0"?>', '<robot name="hostile">', '<link name="base"/>']
    for i, n in enumerate(names.values()):
        parts.append(f"<link name={quoteattr(n)}/>")
        parts.append(f"<joint name={quoteattr('j' + n)} type='revolute'><parent link='base'/>"
                     f"<child link={quoteattr(n)}/><origin xyz='{i} 0 0'/><axis xyz='0 0 1'/>"
                     f"<limit lower='-1' upper='1' effort='1' velocity='1'/></joint>")
    parts.append("</robot>")
    return "\n".join(parts)


def test_urdf_output_names_exact_or_a_clear_error(scene_file, tmp_path):
    from lxml import etree

    carried = {k: v for k, v in HOSTILE.items() if k not in ("controls", "escape")}
    src = tmp_path / "ok.robray"
    src.write_text(robray_scene(carried), encoding="utf-8")
    out = tmp_path / "ok.urdf"
    compile_to(src, out)
    root = etree.parse(str(out)).getroot()
    names = {el.get("name") for el in root.iter("link")}
    assert expected_frames(carried) <= names
    # C0 controls other than tab and line ends cannot be written in XML 1.0 at all.
    bad = tmp_path / "bad.urdf"
    outcome = robrayc(str(scene_file), "-o", str(bad), "-q")
    assert outcome.status == 1 and "URDF" in outcome.err, outcome.err[-2000:]
    assert not bad.exists()


def test_dot_strings_unescape_to_the_names(scene_file, tmp_path):
    out = tmp_path / "hostile.dot"
    compile_to(scene_file, out)
    text = out.read_text(encoding="utf-8")
    strings = [re.sub(r"\\(.)", lambda m: {"n": "\n", "r": "\r"}.get(m[1], m[1]), s)
               for s in re.findall(r'"((?:[^"\\\n]|\\.)*)"', text)]
    ids = {s[len("frame:"):] for s in strings if s.startswith("frame:")}
    assert ids == expected_frames(HOSTILE)
    if shutil.which("dot"):
        r = subprocess.run(["dot", "-Tsvg", str(out), "-o", str(tmp_path / "g.svg")],
                           capture_output=True, text=True)
        assert r.returncode == 0, r.stderr


# --- 2D and simulator formats: well-formed files with sanitised labels ------------------------


def _robot_scene(tmp_path: Path) -> Path:
    src = tmp_path / "robot.robray"
    text = robray_scene(HOSTILE, 0.05) + (
        'class robot { }\nframe "R\x1b[0m\\-->" { translation [0.5, 0.5, 0];\n'
        "  geometry { isa robot; shape cylinder; radius 0.05; height 0.1; } }\n")
    src.write_text(text, encoding="utf-8")
    return src


@pytest.mark.parametrize("fmt", ["svg", "pysimiam", "cs2", "simmer", "cajunbot"])
def test_2d_formats_stay_well_formed(tmp_path, fmt):
    from lxml import etree

    src = _robot_scene(tmp_path)
    out = tmp_path / ("out" if fmt == "simmer" else f"out.{fmt}")
    compile_to(src, out, "--format", fmt)
    files = sorted(out.iterdir()) if out.is_dir() else [out]
    assert files
    for f in files:
        data = f.read_bytes()
        text = data.decode("utf-8")  # valid UTF-8
        if fmt in ("svg", "pysimiam", "cajunbot"):
            etree.fromstring(data)  # well-formed XML
        else:  # line-based: no name broke a line or injected a control character
            assert not re.search(r"[\x00-\x08\x0b-\x1f\x7f\u202a-\u202e\u2066-\u2069]", text)
        if fmt == "cs2":
            for line in text.splitlines():
                assert line == "" or line.startswith("#") or re.match(r"[a-z-]+( |$)", line), line


# --- diagnostics -------------------------------------------------------------------------------


@pytest.mark.parametrize("key", sorted(CONTROL | {"bidi", "del"}))
def test_diagnostics_never_print_raw_controls(tmp_path, key):
    name = HOSTILE[key]
    src = tmp_path / "bad.robray"
    src.write_text(f'frame a {{ parent "{name}"; }}\nframe b {{ isa "{name}"; }}\n',
                   encoding="utf-8")
    outcome = robrayc(str(src), "-o", str(tmp_path / "o.c"))
    assert outcome.status == 1
    assert re.search(rf"^{re.escape(str(src))}:1:\d+: error: unknown parent frame ",
                     outcome.err, re.M), outcome.err
    shown = outcome.err.replace("\n", "")
    assert not re.search(r"[\x00-\x08\x0b-\x1f\x7f\u202a-\u202e\u2066-\u2069]", shown), \
        repr(outcome.err)

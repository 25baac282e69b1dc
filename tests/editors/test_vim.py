"""The vim package (editors/vim) driven in a real, headless vim.

Each test writes a small Vim script that loads the package from editors/vim only
(`vim -Nu NONE -es`, runtimepath prepended), does its work and writes JSON results to a file.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from tests.editors.conftest import (
    EDITORS,
    EXPECTED_GROUPS,
    SAMPLE,
    find_token,
    require_program,
    robrayc_executable,
)

VIM_RUNTIME = EDITORS / "vim"


def run_vim(script: str, tmp_path: Path, env: dict[str, str] | None = None) -> object:
    """Run `script` in headless vim with the package loaded; return what it wrote as JSON.

    The script stores its result in `g:result`; any Vim error fails the test with its text."""
    vim = require_program("vim")
    out = tmp_path / "result.json"
    wrapper = tmp_path / "test.vim"
    wrapper.write_text(
        "set nocompatible\n"
        f"let &runtimepath = '{VIM_RUNTIME}' . ',' . &runtimepath\n"
        "filetype plugin indent on\n"
        "syntax on\n"
        "let g:result = v:null\n"
        "try\n"
        f"{script}\n"
        f"  call writefile([json_encode(g:result)], '{out}')\n"
        "catch\n"
        f"  call writefile(['ERROR: ' . v:exception . ' at ' . v:throwpoint], '{out}')\n"
        "endtry\n"
        "qall!\n")
    proc = subprocess.run([vim, "-Nu", "NONE", "-i", "NONE", "-n", "-es", "-S", str(wrapper)],
                          capture_output=True, text=True, timeout=60, cwd=tmp_path,
                          env={**os.environ, **(env or {})}, stdin=subprocess.DEVNULL)
    assert out.exists(), f"vim wrote nothing (exit {proc.returncode}): {proc.stderr}"
    text = out.read_text()
    assert not text.startswith("ERROR:"), text
    return json.loads(text)


# --- syntax ------------------------------------------------------------------------------------

SYNTAX_DUMP = """
  execute 'edit ' . fnameescape($FIXTURE)
  let g:result = {'filetype': &filetype, 'syntax': get(b:, 'current_syntax', ''), 'lines': []}
  for lnum in range(1, line('$'))
    let groups = []
    let col = 1
    for ch in split(getline(lnum), '\\zs')
      call add(groups, synIDattr(synID(lnum, col, 1), 'name'))
      let col += len(ch)
    endfor
    call add(g:result.lines, groups)
  endfor
"""


@pytest.fixture(scope="module")
def sample_groups(tmp_path_factory) -> list[list[tuple[str, str]]]:
    """For every line of the fixture: (character, syntax group) pairs, as real vim sees them."""
    tmp = tmp_path_factory.mktemp("vim-syntax")
    result = run_vim(SYNTAX_DUMP, tmp, {"FIXTURE": str(SAMPLE)})
    assert result["filetype"] == "robray"  # ftdetect
    assert result["syntax"] == "robray"
    lines = SAMPLE.read_text(encoding="utf-8").split("\n")
    out = []
    for text, groups in zip(lines, result["lines"], strict=False):
        assert len(text) == len(groups)
        out.append(list(zip(text, groups, strict=True)))
    return out


def group_of(groups, token: str, occurrence: int = 0, context: str | None = None) -> str:
    """The syntax group of a token; every character of it must have the same group."""
    line, col = find_token(token, occurrence, context)
    names = {g for _, g in groups[line][col:col + len(token)]}
    assert len(names) == 1, f"{token!r} is split across groups {names}"
    return names.pop()




@pytest.mark.parametrize(("token", "occurrence", "context", "group"), EXPECTED_GROUPS,
                         ids=[f"{t}-{g}" for t, _, _, g in EXPECTED_GROUPS])
def test_syntax_group(sample_groups, token, occurrence, context, group):
    assert group_of(sample_groups, token, occurrence, context) == group


def test_keyword_prefix_of_hyphenated_name_is_not_a_keyword(sample_groups):
    # `frame-x` after `parent` is a frame reference as a whole, not `frame` + `-x`.
    line, col = find_token("frame-x", 0, r"parent frame-x")
    assert {g for _, g in sample_groups[line][col:col + 7]} == {"robrayFrameRef"}


def test_every_group_is_linked_to_a_highlight(tmp_path):
    script = """
  execute 'edit ' . fnameescape($FIXTURE)
  let g:result = {}
  for name in getcompletion('robray', 'highlight')
    let g:result[name] = get(hlget(name)[0], 'linksto', name)
  endfor
"""
    links = run_vim(script, tmp_path, {"FIXTURE": str(SAMPLE)})
    assert "robrayFrameAttr" in links
    # robrayName (plain names) is left to the colour scheme; robrayBlock is transparent.
    unlinked = {k for k, v in links.items() if v == k and k not in ("robrayName", "robrayBlock")}
    assert not unlinked, f"groups without a highlight link: {unlinked}"
    assert links["robrayLineComment"] == "Comment"
    assert links["robrayNumber"] == "Number"
    assert links["robrayKeyword"] == "Keyword"
    assert links["robrayFrameName"] == "Function"


# --- indentation -------------------------------------------------------------------------------

REINDENT = """
  execute 'edit ' . fnameescape($FIXTURE)
  setlocal shiftwidth=4 expandtab
  let g:result = {}
  let want = getline(1, '$')
  " Strip all indentation, then re-indent.
  silent %s/^\\s\\+//e
  normal! gg=G
  let g:result.stripped = getline(1, '$')
  " Scramble the indentation (tabs, too deep), then re-indent.
  for lnum in range(1, line('$'))
    call setline(lnum, repeat(lnum % 3 ? ' ' : "\\t", lnum % 7) . getline(lnum))
  endfor
  normal! gg=G
  let g:result.scrambled = getline(1, '$')
  let g:result.indentexpr = &l:indentexpr
"""


def test_reindent_restores_fixture(tmp_path):
    result = run_vim(REINDENT, tmp_path, {"FIXTURE": str(SAMPLE)})
    want = SAMPLE.read_text(encoding="utf-8").rstrip("\n").split("\n")
    assert result["indentexpr"].startswith("GetRobrayIndent")
    assert result["stripped"] == want
    assert result["scrambled"] == want


def test_default_settings_indent_with_four_spaces(tmp_path):
    """With Vim's defaults (tabstop 8, noexpandtab) the ftplugin indents as the corpus does:
    4 spaces per level, no tabs, for `=`, `>>` and typing."""
    script = """
  execute 'edit ' . fnameescape($FIXTURE)
  let g:result = {'sw': &l:shiftwidth, 'et': &l:expandtab, 'sts': &l:softtabstop}
  silent %s/^\\s\\+//e
  normal! gg=G
  let g:result.lines = getline(1, '$')
  normal! gg>>
  let g:result.shifted = getline(1)
  execute "normal! Goframe t {\\<CR>\\<Tab>x;\\<CR>}"
  let g:result.typed = getline(line('$') - 1)
"""
    result = run_vim(script, tmp_path, {"FIXTURE": str(SAMPLE)})
    assert (result["sw"], result["et"], result["sts"]) == (4, 1, 4)
    assert result["lines"] == SAMPLE.read_text(encoding="utf-8").rstrip("\n").split("\n")
    assert not any("\t" in line for line in result["lines"])
    assert result["shifted"].startswith("    ") and result["shifted"][4] != " "
    assert result["typed"] == "        x;"  # the indent plus one <Tab>: spaces only


def test_indent_while_typing(tmp_path):
    # `o` after a line ending in `{` indents; typing `}` dedents (indentkeys).
    script = """
  enew
  setfiletype robray
  setlocal shiftwidth=2 expandtab
  execute "normal! iframe a {\\<CR>parent b;\\<CR>geometry {\\<CR>shape box;\\<CR>}\\<CR>}"
  let g:result = getline(1, '$')
"""
    lines = run_vim(script, tmp_path)
    assert lines == ["frame a {", "  parent b;", "  geometry {", "    shape box;", "  }", "}"]


def test_braces_in_comments_and_strings_do_not_indent(tmp_path):
    script = """
  enew
  setfiletype robray
  setlocal shiftwidth=4 expandtab
  call setline(1, ['frame "a{" { // {', '# {', '/* { */', 'parent b;', '}'])
  normal! gg=G
  let g:result = getline(1, '$')
"""
    lines = run_vim(script, tmp_path)
    assert lines == ['frame "a{" { // {', "    # {", "    /* { */", "    parent b;", "}"]


# --- ftplugin ----------------------------------------------------------------------------------


def test_ftplugin_settings(tmp_path):
    script = """
  execute 'edit ' . fnameescape($FIXTURE)
  let g:result = {'commentstring': &l:commentstring, 'comments': &l:comments,
        \\ 'iskeyword': &l:iskeyword, 'compiler': get(b:, 'current_compiler', ''),
        \\ 'makeprg': &l:makeprg}
  " `*`-style word under the cursor on a hyphenated name
  call search('upper-link')
  let g:result.cword = expand('<cword>')
  " `gf` target of an include line
  call cursor(1, 1)
  call search('^include "parts')
  let g:result.include = matchstr(getline('.'), &l:include)
"""
    r = run_vim(script, tmp_path, {"FIXTURE": str(SAMPLE)})
    assert r["commentstring"] == "// %s"
    assert "://" in r["comments"] and ":#" in r["comments"] and "s1:/*" in r["comments"]
    assert r["cword"] == "upper-link"
    assert r["compiler"] == "robrayc"
    assert r["makeprg"].startswith("robrayc")
    assert r["include"] == "parts.robray"


def test_comment_formatting_continues_block_comment(tmp_path):
    script = """
  enew
  setfiletype robray
  execute "normal! i/* first\\<CR>second"
  let g:result = getline(1, '$')
"""
    assert run_vim(script, tmp_path) == ["/* first", " * second"]


# --- compiler / errorformat --------------------------------------------------------------------


def test_errorformat_parses_real_robrayc_error(tmp_path, broken_scene):
    path, stderr = broken_scene
    errors = tmp_path / "errors.txt"
    errors.write_text(stderr)
    script = f"""
  compiler robrayc
  cgetfile {errors}
  let g:result = map(getqflist(), {{_, e -> {{'file': bufname(e.bufnr), 'lnum': e.lnum,
        \\ 'col': e.col, 'type': e.type, 'text': e.text, 'valid': e.valid}}}})
"""
    entries = [e for e in run_vim(script, tmp_path) if e["valid"]]
    assert len(entries) == 1, entries
    e = entries[0]
    assert (Path(e["file"]).name, e["lnum"], e["col"], e["type"]) == (path.name, 7, 5, "E")
    assert "unknown attribute 'tranlsation'" in e["text"]
    assert "did you mean 'translation'" in e["text"]  # the hint line is kept


def test_make_puts_cursor_on_error(tmp_path, broken_scene):
    """`:make` with `compiler robrayc` runs the real robrayc and jumps to file:line:col."""
    path, _ = broken_scene
    exe = robrayc_executable(tmp_path)
    script = f"""
  execute 'edit ' . fnameescape('{path}')
  let &l:makeprg = '{exe} %:S'
  silent make!
  cfirst
  let g:result = {{'file': expand('%:t'), 'line': line('.'), 'col': col('.'),
        \\ 'count': len(filter(getqflist(), 'v:val.valid'))}}
"""
    r = run_vim(script, tmp_path)
    assert r == {"file": path.name, "line": 7, "col": 5, "count": 1}


def test_errorformat_warning_and_note(tmp_path):
    """Warnings and notes keep their type; the source and caret lines are dropped."""
    scene = tmp_path / "dup.robray"
    scene.write_text("def a 1;\ndef a 2;\nframe f { translation [a, 0, 0]; }\n")
    exe = robrayc_executable(tmp_path)
    script = f"""
  execute 'edit ' . fnameescape('{scene}')
  let &l:makeprg = '{exe} %:S'
  silent make!
  let g:result = map(filter(getqflist(), 'v:val.valid'),
        \\ {{_, e -> [e.lnum, e.col, e.type]}})
"""
    assert run_vim(script, tmp_path) == [[2, 5, "W"], [1, 5, "I"]]

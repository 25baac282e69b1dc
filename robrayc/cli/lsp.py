"""`robrayc lsp`: the language server on stdio, or `--check` for editors without LSP.

    robrayc lsp [--stdio]                       serve LSP on stdin/stdout
    robrayc lsp --check FILE [--stdin] [-I DIR] print FILE's diagnostics (gcc style)

`--check --stdin` reads FILE's current text from standard input (an editor's unsaved buffer)
while includes still resolve from FILE's folder; the emacs flymake backend uses it. It prints
what the language server would publish, through the same analysis, and exits 1 on errors.
"""

from __future__ import annotations

import argparse
import sys


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="robrayc lsp",
                                description="robray language server (LSP over stdio)")
    p.add_argument("--stdio", action="store_true", help="use stdin/stdout (the default)")
    p.add_argument("--check", metavar="FILE",
                   help="print FILE's diagnostics instead of serving, then exit")
    p.add_argument("--stdin", action="store_true",
                   help="with --check: read FILE's text from standard input")
    p.add_argument("-I", dest="include_dirs", action="append", default=[], metavar="DIR",
                   help="search DIR for include files")
    return p


def check(path: str, text: str | None, include_dirs: list[str]) -> int:
    from robrayc.diagnostics import render
    from robrayc.frontend import LoadOptions
    from robrayc.lsp.analysis import Workspace, compile_diagnostics

    ws = Workspace(options=LoadOptions(include_dirs=tuple(include_dirs)))
    if text is not None:
        ws.set_text(path, text)
    result = compile_diagnostics(ws, path)
    out = sys.stdout
    for d in result.diagnostics:  # with the source line and a caret, as the compiler prints
        out.write(render(d, result.sources) + "\n")
    out.flush()
    return 1 if any(d.severity == "error" for d in result.diagnostics) else 0


def main(argv: list[str]) -> int:
    args = _parser().parse_args(argv)
    if args.check is not None:
        text = None
        if args.stdin:
            text = sys.stdin.buffer.read().decode("utf-8", errors="replace")
        return check(args.check, text, args.include_dirs)
    if args.stdin:
        sys.stderr.write("robrayc lsp: error: --stdin needs --check FILE\n")
        return 2
    from robrayc.lsp.server import serve

    serve()
    return 0

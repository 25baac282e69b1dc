"""The command line. `robrayc FILE...` compiles (cli/main.py); `robrayc WORD ...` runs a
subcommand when WORD is a key of SUBCOMMANDS (and not an existing file): one module each here.
"""

# `robrayc WORD ...` -> "module:function". Add one line to register a subcommand.
SUBCOMMANDS: dict[str, str] = {
    "lsp": "robrayc.cli.lsp:main",
    "collide": "robrayc.cli.collide:main",
    "allowed-collisions": "robrayc.cli.collide:acm_main",
    "spheres": "robrayc.cli.spheres:main",
}


def main(argv: list[str] | None = None) -> int:
    """The `robrayc` command (console entry point): `--version` is answered before the compiler
    (argparse, pathlib, ...) is imported, since build systems probe it often; everything else
    is robrayc.cli.main.main."""
    import sys

    if (sys.argv[1:] if argv is None else list(argv)) == ["--version"]:
        from robrayc import __version__

        print(f"robrayc {__version__}")
        return 0
    from robrayc.cli.main import main as compile_main

    return compile_main(argv)

"""The command line. `robrayc FILE...` compiles (cli/main.py); `robrayc WORD ...` runs a
subcommand (cli/subcommands.py names them: one module each here).
"""

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

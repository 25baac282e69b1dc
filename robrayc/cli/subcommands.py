"""`robrayc WORD ...` runs a subcommand when WORD is a key of SUBCOMMANDS (and not an existing
file): one module each in robrayc/cli."""

# `robrayc WORD ...` -> "module:function". Add one line to register a subcommand.
SUBCOMMANDS: dict[str, str] = {
    "lsp": "robrayc.cli.lsp:main",
    "collide": "robrayc.cli.collide:main",
    "allowed-collisions": "robrayc.cli.collide:acm_main",
    "spheres": "robrayc.cli.spheres:main",
    "plan": "robrayc.cli.plan:main",
}

"""robrayc: a compiler toolchain for robray robot scene files."""

__version__ = "0.1.0"

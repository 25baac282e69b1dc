"""Coverage-guided fuzzing of robrayc with atheris (libFuzzer for Python).

    python -m tests.fuzz.atheris_harness robray [libFuzzer options] [CORPUS_DIR ...]
    python -m tests.fuzz.atheris_harness urdf -runs=20000 -seed=1 /tmp/urdf-corpus

Each input is written to a scratch file (.robray or .urdf) and compiled in-process by
``robrayc.cli.main`` to C; a violation of the robustness property (see harness.py) raises, so
libFuzzer records the input as a crash. The robrayc package is instrumented for coverage.

Seeds: ``--seed-from-shared`` copies the matching files of ../shared/corpus into the first
corpus folder (which libFuzzer also writes new inputs into; never pass ../shared itself).
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from pathlib import Path

import atheris

with atheris.instrument_imports(include=["robrayc"]):
    import robrayc.backends.amino_c  # noqa: F401  (instrumented before first use)
    import robrayc.cli.main  # noqa: F401
    import robrayc.frontend.robray  # noqa: F401
    import robrayc.frontend.urdf  # noqa: F401

from tests.fuzz.harness import BIG_INPUT, run_inprocess, violations  # noqa: E402

SUFFIX = {"robray": ".robray", "urdf": ".urdf"}
SHARED = Path(__file__).resolve().parents[2] / ".." / "shared" / "corpus"


class PropertyViolation(Exception):
    pass


def make_target(kind: str, scratch: Path):
    src = scratch / f"input{SUFFIX[kind]}"
    out = scratch / "out.c"

    def test_one_input(data: bytes) -> None:
        if len(data) >= BIG_INPUT:
            return
        src.write_bytes(data)
        if out.exists():
            out.unlink()
        # No SIGALRM of ours: libFuzzer's -timeout owns that signal.
        argv = [str(src), "-o", str(out), "--no-header", "-q"]
        if kind == "urdf" and len(data) % 2:  # half the inputs get past missing meshes
            argv.append("--missing-mesh=bbox")
        outcome = run_inprocess(argv, timeout=None)
        problems = violations(outcome, {src: data}, [out])
        if problems:
            raise PropertyViolation("; ".join(problems)[:4000])

    return test_one_input


def seed(kind: str, folder: Path) -> int:
    """Copy the shared corpus's files of this kind into `folder`; how many."""
    n = 0
    if SHARED.is_dir():
        for p in sorted(SHARED.rglob(f"*{SUFFIX[kind]}")):
            if p.is_file() and p.stat().st_size < BIG_INPUT:
                shutil.copyfile(p, folder / f"seed{n:04d}{SUFFIX[kind]}")
                n += 1
    return n


def main(argv: list[str]) -> None:
    if len(argv) < 2 or argv[1] not in SUFFIX:
        sys.exit(f"usage: {argv[0]} robray|urdf [--seed-from-shared] [libFuzzer args] [CORPUS]")
    kind = argv[1]
    args = [argv[0]] + [a for a in argv[2:] if a != "--seed-from-shared"]
    if "--seed-from-shared" in argv:
        corpora = [a for a in args[1:] if not a.startswith("-")]
        if not corpora:
            sys.exit("--seed-from-shared needs a corpus folder to copy into")
        Path(corpora[0]).mkdir(parents=True, exist_ok=True)
        print(f"seeded {seed(kind, Path(corpora[0]))} {kind} files", file=sys.stderr)
    scratch = Path(tempfile.mkdtemp(prefix="robrayc-atheris-"))
    try:
        atheris.Setup(args, make_target(kind, scratch))
        atheris.Fuzz()
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    os.environ.setdefault("ROBRAYC_FUZZ_TIME_LIMIT", "2.0")
    main(sys.argv)

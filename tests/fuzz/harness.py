"""Run robrayc on one input and judge the result against the robustness property.

Property, for every input: exit 0 with the outputs written (and, checked separately, C that
gcc accepts), or exit 1 with at least one `file:line:col: error:` diagnostic that points into
a file that was given or included, at a line that exists; never a traceback, never exit 3
("internal error"), never a signal, never longer than TIME_LIMIT seconds for inputs under
1 MB.

`run_inprocess` calls `robrayc.cli.main.main(argv)` directly (thousands of runs a minute; no
process start-up); `run_subprocess` runs the real command for a small sample, where signals
and interpreter-level failures would show.
"""

from __future__ import annotations

import contextlib
import gc
import importlib
import io
import os
import re
import resource
import signal
import subprocess
import sys
import time
import traceback
from dataclasses import dataclass
from pathlib import Path

TIME_LIMIT = float(os.environ.get("ROBRAYC_FUZZ_TIME_LIMIT", "2.0"))
HARD_TIMEOUT = 60.0  # a run this long is a hang: it is stopped and reported
MEMORY_LIMIT = 1 << 30
BIG_INPUT = 1 << 20

ERROR_LINE = re.compile(r"^(?P<file>.+?):(?P<line>\d+):(?P<col>\d+): error: ", re.M)


class _Timeout(BaseException):
    """Raised by SIGALRM inside a hung run; a BaseException so `except Exception` misses it."""


@dataclass
class Outcome:
    status: int | None  # exit status; None: the run did not return (exception, timeout)
    stdout: bytes
    stderr: str
    seconds: float
    exception: str | None = None  # traceback of anything that escaped main()
    max_rss: int = 0  # peak resident set size of the process after the run, bytes
    cpu: float | None = None  # CPU seconds of an in-process run (a busy machine does not
    # stretch them: the time limits look for blow-ups); None for a subprocess


def _alarm(signum, frame):
    raise _Timeout


def run_inprocess(argv: list[str], timeout: float | None = HARD_TIMEOUT) -> Outcome:
    """`robrayc argv` in this process, with stdout/stderr captured and a hard timeout (None:
    no timer, when something else, e.g. libFuzzer, owns SIGALRM)."""
    # the module (`from robrayc.cli import main` is the package's entry function until the
    # module has been imported)
    cli = importlib.import_module("robrayc.cli.main")

    out = io.BytesIO()
    out_text = io.TextIOWrapper(out, encoding="utf-8")
    err = io.StringIO()
    if timeout is not None:
        old_alarm = signal.signal(signal.SIGALRM, _alarm)
        signal.setitimer(signal.ITIMER_REAL, timeout)
    old_term = signal.getsignal(signal.SIGTERM)
    status: int | None = None
    exc_text = None
    start, start_cpu = time.perf_counter(), time.process_time()
    try:
        with contextlib.redirect_stdout(out_text), contextlib.redirect_stderr(err):
            status = cli.main(list(argv))
    except _Timeout:
        exc_text = f"timeout: no result after {timeout} s"
    except BaseException:  # noqa: BLE001 - anything escaping main() is a finding
        exc_text = traceback.format_exc()
    finally:
        seconds, cpu = time.perf_counter() - start, time.process_time() - start_cpu
        if timeout is not None:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, old_alarm)
        if old_term is not None:
            signal.signal(signal.SIGTERM, old_term)
        gc.enable()  # main() turns the cyclic GC off for its short life; this process lives on
        cli._SOURCES.clear()  # a per-process cache: keep runs independent
    with contextlib.suppress(ValueError):
        out_text.flush()
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    return Outcome(status, out.getvalue(), err.getvalue(), seconds, exc_text, rss, cpu)


def robrayc_command() -> list[str]:
    return [sys.executable, "-m", "robrayc"]


def run_subprocess(argv: list[str], timeout: float = HARD_TIMEOUT,
                   cwd: Path | None = None) -> Outcome:
    """`robrayc argv` as a process, for the fuzzers: its output as bytes, its time, a signal
    death or a timeout as a finding (tests/run.py's robrayc gives text and raises)."""
    start = time.perf_counter()
    try:
        r = subprocess.run([*robrayc_command(), *argv], capture_output=True, timeout=timeout,
                           stdin=subprocess.DEVNULL, cwd=cwd)
    except subprocess.TimeoutExpired:
        return Outcome(None, b"", "", time.perf_counter() - start,
                       f"timeout: no result after {timeout} s")
    seconds = time.perf_counter() - start
    exc = None if r.returncode >= 0 else f"killed by signal {-r.returncode}"
    return Outcome(r.returncode, r.stdout, r.stderr.decode("utf-8", "replace"), seconds, exc)


def _line_count(data: bytes) -> int:
    return data.count(b"\n") + 1


def violations(outcome: Outcome, inputs: dict[Path, bytes], outputs: list[Path],
               time_limit: float = TIME_LIMIT) -> list[str]:
    """Every way `outcome` breaks the property (empty: it holds).

    `inputs`: every file the run may read (main file and includes) with its bytes;
    `outputs`: files a successful run must have written.
    """
    problems: list[str] = []
    if outcome.exception is not None:
        problems.append("exception escaped main():\n" + outcome.exception)
    if "Traceback (most recent call last)" in outcome.stderr:
        problems.append("traceback printed")
    if outcome.status == 3 or "internal error" in outcome.stderr:
        problems.append("internal error (exit 3)")
    if outcome.status not in (0, 1, None):
        problems.append(f"exit status {outcome.status}")
    size = sum(len(d) for d in inputs.values())
    taken = outcome.seconds if outcome.cpu is None else outcome.cpu
    if size < BIG_INPUT and taken > time_limit:
        problems.append(f"took {taken:.2f} s (limit {time_limit} s) on {size} bytes")
    if outcome.status == 0:
        missing = [str(p) for p in outputs if not p.is_file()]
        if missing:
            problems.append("exit 0 but outputs missing: " + ", ".join(missing))
    elif outcome.status == 1:
        problems += _located_errors(outcome.stderr, inputs)
    return problems


def _located_errors(stderr: str, inputs: dict[Path, bytes]) -> list[str]:
    known = {}
    for path, data in inputs.items():
        for spelling in {str(path), os.path.realpath(path), os.path.relpath(path)}:
            known[spelling] = data
    found = 0
    problems = []
    for m in ERROR_LINE.finditer(stderr):
        data = known.get(m["file"])
        if data is None:
            problems.append(f"error located in an unknown file {m['file']!r}")
            continue
        line, col = int(m["line"]), int(m["col"])
        if not 1 <= line <= _line_count(data) or col < 1:
            problems.append(f"error at {line}:{col}, outside {m['file']} "
                            f"({_line_count(data)} lines)")
            continue
        found += 1
    if not found and not problems:
        first = stderr.strip().splitlines()[:3]
        problems.append("exit 1 without a file:line:col: error: diagnostic: " + repr(first))
    return problems


def amino_include_dir() -> Path:
    from tests.amino_real import PREFIX

    return PREFIX / "include" / "amino-1.0"


def gcc_check(c_files: list[Path], batch: int = 40) -> list[str]:
    """Compile generated C files (syntax and types, -Wall -Werror); a message per failure."""
    problems = []
    inc = amino_include_dir()
    for i in range(0, len(c_files), batch):
        chunk = [str(p) for p in c_files[i:i + batch]]
        r = subprocess.run(["gcc", "-fsyntax-only", "-std=gnu99", "-Wall", "-Werror",
                            f"-I{inc}", *chunk], capture_output=True, text=True,
                           stdin=subprocess.DEVNULL, timeout=600)
        if r.returncode != 0:
            problems.append(r.stderr[-4000:])
    return problems

"""Long robustness campaigns: one command, a table of inputs, crashes, slowest input, memory.

    python benchmarks/fuzz_campaign.py                       # 100,000 inputs, 2 workers
    python benchmarks/fuzz_campaign.py --inputs 5000 --seed 7 --out /tmp/campaign
    python benchmarks/fuzz_campaign.py --atheris urdf --inputs 200000

Default mode: inputs drawn by the grammar-aware hypothesis strategies of tests/fuzz/scenes.py
(valid scenes, which must compile, and mutants of them: token deletion/duplication/swap,
truncation, byte flips, invalid UTF-8, NULs, CRLF, lone CR, BOM) plus byte/token mutants of the
shared corpus files, compiled in-process by ``robrayc.cli.main`` in worker processes. A crash
is any violation of the property in tests/fuzz/harness.py (traceback, exit 3, a signal, exit 1
without a located error, a valid scene rejected, > 2 s under 1 MB, > 1 GiB); each one's files
are saved under --out. A sample of the C of successful runs is compiled with gcc at the end.

--atheris KIND runs the coverage-guided harness (tests/fuzz/atheris_harness.py) for --inputs
executions instead, seeded from ../shared/corpus, and reports libFuzzer's figures.
"""

from __future__ import annotations

import argparse
import concurrent.futures as cf
import json
import os
import random
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

CORPUS = REPO / ".." / "shared" / "corpus"
CHUNK = 500  # inputs per worker task (one hypothesis run, bounded memory)
MIX = (("mutant", 8), ("valid", 1), ("corpus", 1))  # shares of the input kinds


@dataclass
class Stats:
    inputs: int = 0
    by_kind: dict = field(default_factory=dict)  # kind -> [inputs, exit0, exit1]
    crashes: list = field(default_factory=list)  # (kind, folder, problems)
    slowest: tuple = (0.0, "", "", 0)  # seconds, kind, folder, size
    max_rss: int = 0
    seconds: float = 0.0
    c_files: list = field(default_factory=list)

    def merge(self, other: Stats) -> None:
        self.inputs += other.inputs
        for k, v in other.by_kind.items():
            mine = self.by_kind.setdefault(k, [0, 0, 0])
            for i in range(3):
                mine[i] += v[i]
        self.crashes += other.crashes
        if other.slowest[0] > self.slowest[0]:
            self.slowest = other.slowest
        self.max_rss = max(self.max_rss, other.max_rss)
        self.c_files += other.c_files


def _save(files: dict[str, bytes], folder: Path, note: str = "") -> None:
    if folder.exists():
        shutil.rmtree(folder)
    for rel, data in files.items():
        p = folder / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(data)
    if note:
        (folder / "PROBLEM.txt").write_text(note)


class Worker:
    """Runs inputs in this process and keeps the figures."""

    def __init__(self, out: Path, name: str, gcc_quota: int) -> None:
        self.out = out
        self.name = name
        self.scratch = Path(tempfile.mkdtemp(prefix=f"robrayc-campaign-{name}-"))
        self.stats = Stats()
        self.gcc_quota = gcc_quota
        self.n = 0

    def run(self, kind: str, files: dict[str, bytes], main: str, include_dirs=()) -> None:
        from tests.fuzz.harness import MEMORY_LIMIT, run_inprocess, violations

        self.n += 1
        root = self.scratch / "case"
        if root.exists():
            shutil.rmtree(root)
        _save(files, root)
        for d in include_dirs:
            (root / d).mkdir(parents=True, exist_ok=True)
        out_c = self.scratch / "out" / "scene.c"
        out_c.parent.mkdir(exist_ok=True)
        for p in out_c.parent.iterdir():
            p.unlink()
        argv = [str(root / main), "-n", "fuzz", "-o", str(out_c)]
        for d in include_dirs:
            argv += ["-I", str(root / d)]
        outcome = run_inprocess(argv)
        inputs = {root / rel: data for rel, data in files.items()}
        problems = violations(outcome, inputs, [out_c])
        if kind == "valid" and outcome.status != 0:
            problems.append("a valid scene was rejected:\n" + outcome.stderr[:2000])
        if outcome.max_rss > MEMORY_LIMIT:
            problems.append(f"peak RSS {outcome.max_rss >> 20} MiB")
        s = self.stats
        s.inputs += 1
        counts = s.by_kind.setdefault(kind, [0, 0, 0])
        counts[0] += 1
        if outcome.status in (0, 1):
            counts[1 + outcome.status] += 1
        s.max_rss = max(s.max_rss, outcome.max_rss)
        size = sum(len(d) for d in files.values())
        if outcome.seconds > s.slowest[0]:
            folder = self.out / "slowest" / self.name
            _save(files, folder, f"{outcome.seconds:.3f} s, exit {outcome.status}\n")
            s.slowest = (outcome.seconds, kind, str(folder), size)
        if problems:
            folder = self.out / "crashes" / f"{self.name}-{self.n}"
            _save(files, folder, "\n".join(problems) + "\n\nstderr:\n" + outcome.stderr[:8000])
            s.crashes.append((kind, str(folder), problems[0][:300]))
        if outcome.status == 0 and len(s.c_files) < self.gcc_quota and out_c.is_file():
            keep = self.out / "gcc" / f"{self.name}-{self.n}"
            keep.mkdir(parents=True, exist_ok=True)
            for p in out_c.parent.iterdir():
                shutil.copyfile(p, keep / p.name)
            s.c_files.append(str(keep / "scene.c"))


def _hypothesis_chunk(worker: Worker, kind: str, seed: int, count: int) -> None:
    from hypothesis import HealthCheck, Phase, given, settings
    from hypothesis import seed as hseed

    from tests.fuzz.scenes import mutants, scenes

    strategy = mutants() if kind == "mutant" else scenes()

    @hseed(seed)
    @settings(max_examples=count, phases=[Phase.generate], database=None, deadline=None,
              suppress_health_check=list(HealthCheck))
    @given(strategy)
    def body(case) -> None:
        tree = case[0] if kind == "mutant" else case
        worker.run(kind, tree.contents(), tree.main.path, tree.include_dirs)

    body()


def _corpus_files() -> list[Path]:
    if not CORPUS.is_dir():
        return []
    return sorted(p for p in CORPUS.rglob("*") if p.suffix in (".robray", ".urdf")
                  and p.is_file() and p.stat().st_size < 1 << 20)


def _corpus_chunk(worker: Worker, seed: int, count: int) -> None:
    from tests.fuzz.scenes import (
        BYTE_MUTATIONS,
        TOKEN_MUTATIONS,
        Mutation,
        SceneFile,
        apply_mutations,
    )

    files = _corpus_files()
    if not files:
        return
    rnd = random.Random(seed)
    kinds = TOKEN_MUTATIONS + BYTE_MUTATIONS
    for _ in range(count):
        src = rnd.choice(files)
        text = src.read_bytes().decode("utf-8", "replace")
        tokens = re.findall(r'"[^"]*"|<[^>]*>|\S+', text) or [""]
        f = SceneFile("input" + src.suffix, tokens, [" "] * len(tokens))
        muts = [Mutation(rnd.choice(kinds), rnd.randrange(1 << 16), rnd.randrange(256))
                for _ in range(rnd.randint(1, 4))]
        worker.run("corpus", {f.path: apply_mutations(f, muts)}, f.path)


def run_task(task: tuple) -> Stats:
    kind, seed, count, out, gcc_quota = task
    worker = Worker(Path(out), f"{kind}{seed}", gcc_quota)
    start = time.perf_counter()
    try:
        if kind == "corpus":
            _corpus_chunk(worker, seed, count)
        else:
            _hypothesis_chunk(worker, kind, seed, count)
    finally:
        shutil.rmtree(worker.scratch, ignore_errors=True)
    worker.stats.seconds = time.perf_counter() - start
    worker.stats.max_rss = max(worker.stats.max_rss,
                               resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024)
    return worker.stats


def campaign(args) -> int:
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    total_share = sum(w for _, w in MIX)
    tasks = []
    seed = args.seed * 1_000_003
    for kind, share in MIX:
        n = args.inputs * share // total_share
        while n > 0:
            count = min(CHUNK, n)
            tasks.append((kind, seed, count, str(out), max(1, args.gcc_sample // 20)))
            seed += 1
            n -= count
    random.Random(args.seed).shuffle(tasks)
    stats = Stats()
    start = time.perf_counter()
    done = 0
    broken = 0
    pending = list(tasks)
    while pending:
        with cf.ProcessPoolExecutor(args.workers) as pool:
            futures = {pool.submit(run_task, t): t for t in pending}
            pending = []
            try:
                for fut in cf.as_completed(futures):
                    stats.merge(fut.result())
                    done += 1
                    if not args.quiet:
                        rate = stats.inputs / (time.perf_counter() - start)
                        print(f"\r{done}/{len(tasks)} chunks, {stats.inputs} inputs, "
                              f"{len(stats.crashes)} crashes, {rate:.0f}/s", end="",
                              file=sys.stderr, flush=True)
            except cf.process.BrokenProcessPool:
                # A worker died (a signal): that is a crash; rerun the unfinished chunks.
                broken += 1
                stats.crashes.append(("worker", "", "a worker process died (signal)"))
                pending = [t for f, t in futures.items() if not f.done() or f.exception()]
                if broken > 3:
                    break
    elapsed = time.perf_counter() - start
    if not args.quiet:
        print(file=sys.stderr)
    gcc = _gcc(stats.c_files[: args.gcc_sample])
    _report(stats, elapsed, args, gcc, out)
    return 1 if stats.crashes or gcc[1] else 0


def _gcc(c_files: list[str]) -> tuple[int, list[str]]:
    from tests.fuzz.harness import gcc_check

    if not c_files or shutil.which("gcc") is None:
        return 0, []
    try:
        from tests.amino_real import library_built
        if not library_built():
            return 0, []
    except ImportError:
        return 0, []
    return len(c_files), gcc_check([Path(p) for p in c_files])


def _report(stats: Stats, elapsed: float, args, gcc: tuple[int, list[str]], out: Path) -> None:
    rows = [("inputs", f"{stats.inputs}"), ("workers", f"{args.workers}"),
            ("wall time", f"{elapsed:.0f} s"),
            ("throughput", f"{stats.inputs / max(elapsed, 1e-9):.0f} inputs/s")]
    for kind, (n, ok, err) in sorted(stats.by_kind.items()):
        rows.append((f"  {kind}", f"{n} (exit 0: {ok} = {ok / max(n, 1):.1%}, "
                                  f"exit 1: {err} = {err / max(n, 1):.1%})"))
    rows.append(("crashes", f"{len(stats.crashes)}"))
    sec, kind, folder, size = stats.slowest
    rows.append(("slowest input", f"{sec:.3f} s ({kind}, {size} bytes) {folder}"))
    rows.append(("peak memory", f"{stats.max_rss / 2**20:.0f} MiB (max RSS of a worker)"))
    rows.append(("gcc sample", f"{gcc[0]} C files, {len(gcc[1])} failures" if gcc[0]
                 else "skipped (no gcc or amino headers)"))
    width = max(len(k) for k, _ in rows)
    print("\n".join(f"{k:<{width}}  {v}" for k, v in rows))
    for kind, folder, problem in stats.crashes[:20]:
        print(f"CRASH [{kind}] {folder}: {problem}")
    for msg in gcc[1][:3]:
        print("GCC FAILURE:", msg[:1000])
    summary = {"inputs": stats.inputs, "crashes": len(stats.crashes),
               "slowest_seconds": sec, "slowest": folder, "peak_rss_bytes": stats.max_rss,
               "wall_seconds": elapsed, "by_kind": stats.by_kind,
               "gcc_checked": gcc[0], "gcc_failures": len(gcc[1])}
    (out / "summary.json").write_text(json.dumps(summary, indent=2) + "\n")


def atheris(args) -> int:
    """The coverage-guided harness for --inputs executions; libFuzzer's own figures."""
    out = Path(args.out)
    corpus = out / f"corpus-{args.atheris}"
    artifacts = out / f"artifacts-{args.atheris}"
    artifacts.mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()
    r = subprocess.run(
        [sys.executable, "-m", "tests.fuzz.atheris_harness", args.atheris, "--seed-from-shared",
         f"-runs={args.inputs}", f"-seed={args.seed}", "-timeout=30", "-rss_limit_mb=2048",
         "-report_slow_units=1", f"-artifact_prefix={artifacts}/", str(corpus)],
        cwd=REPO, capture_output=True, text=True)
    elapsed = time.perf_counter() - start
    (out / f"atheris-{args.atheris}.log").write_text(r.stderr)
    done = re.findall(r"#(\d+)\s+DONE\s+cov: (\d+).*?rss: (\d+)Mb", r.stderr)
    rss = max((int(m) for m in re.findall(r"rss: (\d+)Mb", r.stderr)), default=0)
    slow = [float(s) for s in re.findall(r"Slowest unit: (\d+) s", r.stderr)]
    crashes = sorted(p.name for p in artifacts.iterdir())
    rows = [("mode", f"atheris ({args.atheris})"), ("executions", done[-1][0] if done else "?"),
            ("coverage (edges)", done[-1][1] if done else "?"),
            ("wall time", f"{elapsed:.0f} s"), ("crashes", f"{len(crashes)}"),
            ("slowest unit", f">= {max(slow)} s" if slow else "< 1 s (none reported)"),
            ("peak memory", f"{rss} MiB (libFuzzer rss)"), ("exit", f"{r.returncode}")]
    width = max(len(k) for k, _ in rows)
    print("\n".join(f"{k:<{width}}  {v}" for k, v in rows))
    for c in crashes:
        print("CRASH", artifacts / c)
    return 1 if crashes or r.returncode else 0


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--inputs", type=int, default=100_000)
    p.add_argument("--workers", type=int, default=os.cpu_count() or 2)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--out", default=os.path.join(tempfile.gettempdir(), "robrayc-campaign"))
    p.add_argument("--gcc-sample", type=int, default=300,
                   help="C files of successful runs compiled with gcc at the end")
    p.add_argument("--atheris", choices=("robray", "urdf"),
                   help="coverage-guided mode (needs the fuzz extra)")
    p.add_argument("-q", "--quiet", action="store_true")
    args = p.parse_args()
    return atheris(args) if args.atheris else campaign(args)


if __name__ == "__main__":
    raise SystemExit(main())

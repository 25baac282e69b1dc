"""The sampling run of allowed-collision generation (robrayc.analysis.acm): batches of the
seeded sample stream counted on a worker pool, in waves, with proofs (acm_proof) that pairs
never collide, tried before sampling and after the first wave, so that those proven are not
sampled further.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import NamedTuple

import numpy as np

from robrayc import ir
from robrayc.diagnostics import DiagnosticSink
from robrayc.kinematics import SampleStream, sample_ranges
from robrayc.records import record

# --- workers --------------------------------------------------------------------------------

_WORKER: tuple[int, object] | None = None  # (token, checker) of this process


def _init_worker(token: int, scene: ir.Scene, pairs: list[tuple[str, str]],
                 backend: str) -> None:
    global _WORKER
    import signal

    # The parent may have turned SIGTERM into an exception (the CLI does): Pool.terminate()
    # must simply end the workers, and Ctrl-C is the parent's to handle.
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if _WORKER is not None and _WORKER[0] == token:
        return  # forked from the parent, which built it already
    from robrayc.analysis.collision import CollisionChecker

    _WORKER = (token, CollisionChecker(scene, use_allowed=False, frame_pairs=pairs,
                                       backend=backend, cells=False))


_STREAM: tuple | None = None  # (scene, seed, SampleStream) of this process


def _rows(scene: ir.Scene, seed: int, start: int, n: int) -> np.ndarray:
    """Rows start .. start+n-1 of the seeded sample stream (drawn where they are checked: a
    worker is sent three numbers, not the configurations)."""
    global _STREAM
    if _STREAM is None or _STREAM[0] is not scene or _STREAM[1] != seed:
        _STREAM = (scene, seed, SampleStream(scene, seed))
    return _STREAM[2].rows(start, n)


def _count(job: tuple[np.ndarray | tuple[int, int, int], np.ndarray]) -> np.ndarray:
    """Collisions per frame pair over a batch (configurations, or (seed, first row, rows) of
    the sample stream), asking only about the active pairs."""
    configs, active = job
    checker = _WORKER[1]  # type: ignore[index]
    if not isinstance(configs, np.ndarray):
        configs = _rows(checker.scene, *configs)  # type: ignore[attr-defined]
    checker.restrict(active)  # type: ignore[attr-defined]
    return checker.collision_counts(configs)  # type: ignore[attr-defined]


def _pool(jobs: int, token: int, scene: ir.Scene, pairs: list[tuple[str, str]], backend: str):
    import multiprocessing

    methods = multiprocessing.get_all_start_methods()
    ctx = multiprocessing.get_context("fork" if "fork" in methods else None)
    return ctx.Pool(jobs, initializer=_init_worker, initargs=(token, scene, pairs, backend))


# A pair seen colliding whose collision share is below 'always' by this many standard deviations
# (Wilson's bound; a chance below 1e-9 of being wrong) is 'sometimes' and is not sampled further.
SETTLE_Z = 6.0
# Batches handed out between two updates of the settled pairs: fixed (not the number of
# workers), so that the result does not depend on --jobs.
WAVE = 8
# From this many samples on, pairs not seen colliding in the first wave are tried for a proof
# that they never collide (acm_proof), and those proven are not sampled further. A pair gets
# a budget of distance evaluations worth the exact tests it would need in the samples left
# (an FCL mesh test costs about a sixth of an evaluation), at most PROVE_MAX_BUDGET.
PROVE_MIN_SAMPLES = 50000
PROVE_EVAL_COST = 6
# Every pair gets this many at least: a quick proof turns a bound of 3/N into certainty.
PROVE_MIN_BUDGET = 128
# Pairs the compiled kernel leaves open (MAYBE) in at least this share of the first batch, and
# that the exact tests find colliding in none of its first EARLY_EXACT configurations, are
# tried before sampling (see _Prover).
EARLY_SHARE = 0.5
EARLY_EXACT = 200
# A proof with a larger budget is made in four parts, so that the workers share it.
PROVE_SPLIT_BUDGET = 8192
PROVE_MAX_BUDGET = 131072


@record(frozen=True)
class Plan:
    """What to sample: samples asked for, seed, batch size, the share that makes a pair
    'always', worker processes, the checker's backend."""

    samples: int
    seed: int
    batch: int
    always_fraction: float
    jobs: int
    backend: str


class Sampled(NamedTuple):
    """Per pair of `rest` (sample_pairs): collisions seen, samples checked, proven apart,
    proven before sampling; and the samples drawn."""

    counts: np.ndarray
    checked: np.ndarray
    proven: np.ndarray
    before: np.ndarray
    total: int


def sample_pairs(scene: ir.Scene, full, rest: list[tuple[str, str]], q0: np.ndarray,
                 plan: Plan, sink: DiagnosticSink, progress, prove: bool) -> Sampled:
    """Sample the frame pairs `rest` (full: the exact checker of every pair; q0: the default
    configuration) as `plan` says, proving pairs apart when `prove`."""
    from robrayc.analysis.collision import CollisionChecker

    global _WORKER
    counts = np.zeros(len(rest), dtype=np.int64)
    checked = np.zeros(len(rest), dtype=np.int64)
    proven = np.zeros(len(rest), dtype=bool)
    before = np.zeros(len(rest), dtype=bool)
    if not rest or plan.samples <= 0:
        return Sampled(counts, checked, proven, before, 0)
    # no certified cells: their proofs cost more than sampling's MAYBE pairs (PR2)
    checker = CollisionChecker(scene, sink, use_allowed=False, frame_pairs=rest,
                               backend=plan.backend, cells=False)
    if checker.note:
        sink.warning(checker.note, name="exact-checker")
    order = {tuple(sorted(p)): k for k, p in enumerate(checker.frame_pairs)}
    cols = np.array([order[p] for p in rest])
    _WORKER = (id(checker) ^ os.getpid(), checker)
    try:
        prover = _Prover(full, checker, rest, cols, q0, proven) if prove else None
        total = _sample(scene, checker, cols, counts, checked, plan, progress, rest, prover)
    finally:
        _WORKER = None
    if prover is not None:
        before = prover.before
    return Sampled(counts, checked, proven, before, total)


class _Prover:
    """Proves the pairs out of each other's reach at once (cheap); tries acm_proof's branch and
    bound, once each, on the pairs the compiled kernel leaves open (MAYBE) in most of the first
    batch and finds colliding in none of it, before sampling (sampling would give each an exact
    test per sample from the start), then on the pairs not seen colliding in the first wave."""

    def __init__(self, full, checker, rest: list, cols: np.ndarray, q0: np.ndarray,
                 proven: np.ndarray) -> None:
        from robrayc.analysis.acm_proof import one_turn, out_of_reach

        self.full, self.checker, self.rest, self.cols = full, checker, rest, cols
        self.q0, self.proven = q0, proven
        self.tried = np.zeros(len(rest), dtype=bool)
        self.before = np.zeros(len(rest), dtype=bool)  # proven before sampling
        lo, hi = sample_ranges(full.scene)
        self.memo: dict = {}  # each frame's reach and rates, computed once
        for k, (a, b) in enumerate(rest):
            proven[k] = out_of_reach(full, a, b, lo, hi, self.memo)
        # the proofs' ranges, cut to one turn before they are cut in parts
        self.lo, self.hi = one_turn(full, lo, hi)

    def early(self, first: np.ndarray, samples: int, pool=None) -> None:
        """Before sampling: the pairs the kernel leaves open in at least EARLY_SHARE of the
        configurations `first`, finds colliding in none of them, and the exact tests find
        colliding in none of the first EARLY_EXACT of them."""
        if getattr(self.checker, "_kernel", None) is None:
            return
        shares, hit = self._exact_shares(first, np.flatnonzero(~self.proven), pool)
        ks = np.flatnonzero((shares >= EARLY_SHARE) & ~hit & ~self.proven)
        if len(ks):  # the kernel leaves meshes that meet open: the exact tests on a few
            columns = _column_mask(self.checker, self.cols[ks])
            jobs = [(part, columns) for part in np.array_split(first[:EARLY_EXACT], 2)]
            seen = sum(pool.map(_count, jobs) if pool else map(_count, jobs))[self.cols[ks]]
            self._try(ks[seen == 0], shares, samples, pool)
        self.before[:] = self.proven & self.tried

    def __call__(self, counts: np.ndarray, seen: np.ndarray, samples: int, pool=None) -> None:
        """Try the pairs with no collision in the `seen` configurations (the first wave) not
        tried before, each with a budget from the exact tests sampling would give it in the
        samples left (as often as in `seen`)."""
        ks = np.flatnonzero((counts == 0) & ~self.proven & ~self.tried)
        if len(ks):
            self._try(ks, self._exact_shares(seen, ks, pool)[0], samples - len(seen), pool)

    def _try(self, ks: np.ndarray, shares: np.ndarray, left: int, pool) -> None:
        """Proofs of the pairs ks (those of at most MAX_VARIABLES variables), each with a
        budget from the exact tests sampling would give it in `left` samples (as often as in
        `shares`); on the worker pool when there is one (each proof is the same wherever it
        runs)."""
        from robrayc.analysis.acm_proof import MAX_VARIABLES, pair_rates, pair_signature

        lo, hi = self.lo, self.hi
        alike: dict[bytes, list[int]] = {}  # pairs with one proof (e.g. left and right arm)
        budget: dict[bytes, float] = {}
        cols: dict[bytes, list[int]] = {}
        for k in ks.tolist():
            a, b = self.rest[k]
            self.tried[k] = True
            rates = pair_rates(self.full, a, b, lo, hi, self.memo)
            if rates is None or len(rates) > MAX_VARIABLES:
                continue
            key = pair_signature(self.full, a, b, lo, hi, self.memo)
            alike.setdefault(key, []).append(k)
            budget[key] = budget.get(key, 0.0) + shares[k] * left
            cols.setdefault(key, sorted(rates))  # the variables of the pair that is proven
        jobs = []
        for key, group in alike.items():
            total = min(PROVE_MAX_BUDGET, max(PROVE_MIN_BUDGET,
                                              int(budget[key] / PROVE_EVAL_COST)))
            parts = _quarters(lo, hi, cols[key]) if total > PROVE_SPLIT_BUDGET else [(lo, hi)]
            jobs += [(key, *self.rest[group[0]], self.q0, plo, phi, total / len(parts))
                     for plo, phi in parts]
        jobs.sort(key=lambda job: -job[-1])  # the long ones first, spread over the workers
        done: dict[bytes, bool] = {}
        for key, ok in (pool.imap_unordered(_prove, jobs) if pool else map(_prove, jobs)):
            done[key] = done.get(key, True) and ok
        for key, ok in done.items():
            self.proven[alike[key]] = ok

    def _exact_shares(self, seen: np.ndarray, ks: np.ndarray, pool=None
                      ) -> tuple[np.ndarray, np.ndarray]:
        """Per pair (those ks only: 0 and False for the rest): the share of the configurations
        `seen` in which sampling needs more than the compiled kernel (a MAYBE) or, without
        one, than a bounding-sphere test; and whether the kernel found it colliding in any of
        them (without one: False). On the pool's workers, in halves, when there is one."""
        from robrayc.analysis.acm_proof import near_share

        shares, hit = np.zeros(len(self.rest)), np.zeros(len(self.rest), dtype=bool)
        if getattr(self.checker, "_kernel", None) is None:
            G = self.full.group_poses(seen)
            shares[ks] = [near_share(self.full, *self.rest[k], G) for k in ks.tolist()]
            return shares, hit
        columns = _column_mask(self.checker, self.cols[ks])
        jobs = [(part, columns) for part in np.array_split(seen, 2)]
        parts = list(pool.map(_open_counts, jobs) if pool else map(_open_counts, jobs))
        shares[ks] = (sum(maybe for maybe, _ in parts)[self.cols] / len(seen))[ks]
        hit[ks] = np.logical_or.reduce([seen_hit for _, seen_hit in parts])[self.cols][ks]
        return shares, hit


def _column_mask(checker, columns: np.ndarray) -> np.ndarray:
    """The checker's frame-pair columns `columns` as a mask (what restrict() takes)."""
    mask = np.zeros(len(checker.frame_pairs), dtype=bool)
    mask[columns] = True
    return mask


def _open_counts(job: tuple[np.ndarray, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """Per frame pair of this process's checker, over the configurations: in how many the
    compiled kernel leaves it open (MAYBE), and whether it found it colliding in any (only
    the frame pairs whose column is True are looked at)."""
    configs, columns = job
    checker = _WORKER[1]  # type: ignore[index]
    rows, cols, states = checker._kernel.open_states(configs, columns[checker._pfp])
    width = len(checker.frame_pairs)
    fp = checker._pfp[cols]
    keys = np.unique(rows[states == 2] * width + fp[states == 2])
    hit = np.zeros(width, dtype=bool)
    hit[fp[states == 1]] = True
    return np.bincount(keys % width, minlength=width), hit


def _quarters(lo: np.ndarray, hi: np.ndarray, cols: list[int]
              ) -> list[tuple[np.ndarray, np.ndarray]]:
    """The ranges cut in four (each of two variables halved, or one variable in quarters): a
    pair apart in each part is apart in the whole, and the parts' proofs run on the workers
    side by side."""
    halves = cols * 2 if len(cols) == 1 else cols
    parts = [(lo.astype(float), hi.astype(float))]
    for c in halves[:2]:
        cut = []
        for plo, phi in parts:
            mid = (plo[c] + phi[c]) / 2
            left_hi, right_lo = phi.copy(), plo.copy()
            left_hi[c], right_lo[c] = mid, mid
            cut += [(plo, left_hi), (right_lo, phi)]
        parts = cut
    return parts


def _prove(job: tuple) -> tuple[bytes, bool]:
    """One pair's proof on this process's checker (a worker's, or the parent's)."""
    from robrayc.analysis.acm_proof import prove_apart

    k, a, b, q0, lo, hi, budget = job
    return k, prove_apart(_WORKER[1], a, b, q0, lo, hi, budget)  # type: ignore[index]


class _Tally:
    """The counts of a sampling run, taken in wave order: what decides when sampling stops
    (the set of 'always' pairs the same after two consecutive batches, once the samples asked
    for are drawn)."""

    def __init__(self, cols: np.ndarray, counts: np.ndarray, checked: np.ndarray, plan: Plan,
                 bar) -> None:
        self.cols, self.counts, self.checked, self.plan, self.bar = (cols, counts, checked,
                                                                     plan, bar)
        self.drawn = 0
        self.always_prev: np.ndarray | None = None

    def live(self, prover: _Prover | None) -> np.ndarray:
        """The pairs still to sample: all but those seen colliding and settled (see _sample),
        and those proven."""
        counts, checked, z = self.counts, self.checked, SETTLE_Z
        n = np.maximum(checked, 1)
        share = counts / n
        # Wilson upper bound of the pair's collision share at z standard deviations
        upper = (share + z * z / (2 * n) + z * np.sqrt(share * (1 - share) / n
                                                       + z * z / (4 * n * n))) / (1 + z * z / n)
        slack = (1 - self.plan.always_fraction) * 2 * self.plan.samples
        settled = (checked - counts > slack) | (upper < self.plan.always_fraction)
        live = ~((counts > 0) & settled)
        return live & ~prover.proven if prover is not None else live

    def take(self, wave: tuple) -> bool:
        """Adds a wave's results, batch by batch; True once sampling is to stop."""
        sizes, live, results = wave
        cols = self.cols[live]
        for size, got in zip(sizes, results, strict=True):
            self.counts[live] += got[cols]
            self.checked[live] += size
            self.drawn += size
            if self.bar is not None:
                self.bar(size)
            if self.drawn + self.plan.batch < self.plan.samples:
                continue  # the 'always' pairs matter from the batch before the last on
            always = self.counts >= self.plan.always_fraction * self.checked
            if (self.drawn >= self.plan.samples and self.always_prev is not None
                    and np.array_equal(always, self.always_prev)):
                return True
            self.always_prev = always
        return False


def _sample(scene: ir.Scene, checker, cols: np.ndarray, counts: np.ndarray,
            checked: np.ndarray, plan: Plan, progress, rest: list,
            prover: _Prover | None = None) -> int:
    """Count collisions of the pairs `rest` (checker columns `cols`) batch by batch, in waves
    of WAVE batches: the samples asked for, then (rarely) up to as many more until the set of
    'always' pairs settles. A pair seen colliding, and missing in more samples than 'always'
    allows even at twice the samples (certain), or with a collision share SETTLE_Z standard
    deviations below 'always' (statistical), is 'sometimes': later waves skip it.

    From the third wave of the samples asked for on, a wave is handed out before the one
    before it is counted (so the workers never wait for the parent), with the pairs still
    live after the wave before that: the same pairs whatever the number of workers."""
    samples, batch = plan.samples, plan.batch
    sizes = [min(batch, samples - i) for i in range(0, samples, batch)]
    tally = _Tally(cols, counts, checked, plan, _progress_bar(samples, progress))
    pool = _pool(plan.jobs, _WORKER[0], scene, rest, plan.backend) if plan.jobs > 1 else None
    pending = None  # a wave handed out, not yet counted
    first_wave: list[np.ndarray] = []
    try:
        for phase in (0, 1):  # the samples asked for, then up to as many more
            for w in range(0, len(sizes), WAVE):
                if pending is not None and not (phase == 0 and w > WAVE):
                    if tally.take(pending):
                        return tally.drawn
                    pending = None
                if prover is not None and w == WAVE and phase == 0:
                    prover(counts, np.concatenate(first_wave), samples, pool)
                first_row = phase * samples + w * batch
                rows = [(plan.seed, first_row + i * batch, size)
                        for i, size in enumerate(sizes[w:w + WAVE])]
                if prover is not None and w == 0 and phase == 0:
                    first_wave = [_rows(scene, *spec) for spec in rows]
                    prover.early(first_wave[0], samples, pool)
                live = tally.live(prover)
                active = _column_mask(checker, cols[live])
                jobs = [(spec, active) for spec in rows]
                wave = ([size for _, _, size in rows], live,
                        pool.imap(_count, jobs) if pool else map(_count, jobs))
                if pending is not None and tally.take(pending):
                    return tally.drawn
                pending = wave
        if pending is not None:
            tally.take(pending)
        return tally.drawn
    finally:
        if pool is not None:
            pool.terminate()
            pool.join()
        if tally.bar is not None:
            tally.bar(-1)


def _progress_bar(total: int, progress) -> Callable[[int], None] | None:
    """update(n) callback (n < 0 closes) for a tqdm bar on stderr, or the caller's own."""
    if callable(progress):
        return progress
    if not progress:
        return None
    from tqdm import tqdm

    from robrayc.progress import bar_updater

    return bar_updater(tqdm(total=total, unit="samples", desc="allowed collisions",
                            leave=False))

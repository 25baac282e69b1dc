"""Progress bars on standard error, only when it is a terminal and only for long work."""

from __future__ import annotations

import sys
from collections.abc import Callable

DELAY = 0.5  # seconds before a bar appears: a quick run stays silent, as cargo's do


def terminal_bar(total: int, desc: str, unit: str) -> Callable[[int], None]:
    """update(n) advances a tqdm bar by n (n < 0 closes it); a no-op off a terminal."""
    if not sys.stderr.isatty():
        return lambda n: None
    from tqdm import tqdm

    return bar_updater(tqdm(total=total, desc=desc, unit=unit, leave=False, delay=DELAY,
                            file=sys.stderr))


def bar_updater(bar) -> Callable[[int], None]:
    """update(n) for a tqdm bar: advance by n, never past its total; n < 0 closes it."""
    def update(n: int) -> None:
        if n < 0:
            bar.close()
        else:
            bar.update(min(n, max(bar.total - bar.n, 0)))
    return update

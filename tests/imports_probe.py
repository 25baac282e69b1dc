"""What a robrayc run imports: the modules loaded by one `robrayc ARGV...` in a fresh process
(start-up tests pin what each kind of run may pay for)."""

from __future__ import annotations

import subprocess
import sys


def modules_after(argv: list[str]) -> set[str]:
    """sys.modules after the command entry ran `argv` in a new interpreter (it must succeed)."""
    probe = ("import sys; from robrayc.cli import main; "
             f"status = main({argv!r}); print(); print(status, ' '.join(sorted(sys.modules)))")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                         check=True).stdout.splitlines()[-1].split()
    assert out[0] == "0", out[:1]
    return set(out[1:])

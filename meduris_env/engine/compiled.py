"""Whether numba has compiled the engine's kernels yet, so that a command's progress bar does
not sit at 0 % for a minute without a word on a fresh install (issue 31).

numba caches each compiled kernel beside its module (``__pycache__/<module>.<function>-<line>
.py311.nbi``), or under ``NUMBA_CACHE_DIR`` when that is set; ``make install`` fills the cache
by playing one tournament. :func:`compile_notice` prints one line when the engine's cache is
empty, once per process, before the bar that would otherwise wait in silence.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

ENGINE = Path(__file__).resolve().parent
NOTICE = "meduris: compiling the game kernels (once: numba caches them; about a minute) ..."
_said = False


def kernels_cached(engine: Path | None = None) -> bool:
    """Has numba cached the engine's rules kernels (in the ``__pycache__`` of ``engine``, by
    default this package, or anywhere under ``NUMBA_CACHE_DIR``)?"""
    where = os.environ.get("NUMBA_CACHE_DIR")
    folder = Path(where) if where else (engine or ENGINE) / "__pycache__"
    pattern = "kernel.*.nbi"  # (engine/kernel.py: the rules' kernels)
    return folder.is_dir() and next(
        folder.rglob(pattern) if where else folder.glob(pattern), None) is not None


def compile_notice(engine: Path | None = None, file=None) -> bool:
    """Print :data:`NOTICE` (stderr) if the kernels are not cached and it was not said yet in
    this process; whether it was printed now."""
    global _said
    if _said or kernels_cached(engine):
        return False
    _said = True
    print(NOTICE, file=file or sys.stderr, flush=True)
    return True

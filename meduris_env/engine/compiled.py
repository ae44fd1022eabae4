"""Whether numba has compiled the engine's kernels yet, so that a command's progress bar does
not sit at 0 % for a minute without a word on a fresh install (issue 31).

numba caches each compiled kernel beside its module (``__pycache__/<module>.<function>-<line>
.py311.nbi``), under ``NUMBA_CACHE_DIR`` when that is set, or in the user's cache folder when
the package's folder cannot be written; ``make install`` fills the cache by playing one
tournament. :func:`compile_notice` prints one line when the engine's cache is
empty, once per process, before the bar that would otherwise wait in silence.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

ENGINE = Path(__file__).resolve().parent
NOTICE = "meduris: compiling the game kernels (once: numba caches them; about a minute) ..."
_said = False


def cache_folders(engine: Path | None = None) -> list[Path]:
    """Where numba keeps the cache of ``engine``'s (default: this package's) kernels: under
    ``NUMBA_CACHE_DIR`` when set, else beside the module, or in the user's cache folder where
    the package's own ``__pycache__`` cannot be written (an installed package); numba's own
    naming of the folder (its parent's name and a hash of its path)."""
    engine = engine or ENGINE
    try:
        from numba.core.caching import UserProvidedCacheLocator
        from numba.misc.appdirs import user_cache_dir
        sub = UserProvidedCacheLocator.get_suitable_cache_subpath(str(engine / "kernel.py"))
        user = Path(user_cache_dir(appname="numba", appauthor=False)) / sub
    except (ImportError, AttributeError):  # (another numba: the folder beside the module)
        sub, user = None, None
    where = os.environ.get("NUMBA_CACHE_DIR")
    if where and sub:
        return [Path(where) / sub]
    return [engine / "__pycache__"] + ([user] if user else [])


def kernels_cached(engine: Path | None = None) -> bool:
    """Has numba cached the engine's rules kernels (``engine/kernel.py``'s) in one of
    :func:`cache_folders`?"""
    return any(folder.is_dir() and next(folder.glob("kernel.*.nbi"), None) is not None
               for folder in cache_folders(engine))


def compile_notice(engine: Path | None = None, file=None) -> bool:
    """Print :data:`NOTICE` (stderr) if the kernels are not cached and it was not said yet in
    this process; whether it was printed now."""
    global _said
    if _said or kernels_cached(engine):
        return False
    _said = True
    print(NOTICE, file=file or sys.stderr, flush=True)
    return True

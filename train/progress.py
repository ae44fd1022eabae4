"""The progress bar every phase of a run shows (tqdm; off with ``--no-progress``)."""

from __future__ import annotations

from collections.abc import Callable


def bar(total: int, desc: str, enabled: bool, notice: Callable[[], None] | None = None):
    """A tqdm bar to ``total``; when it is shown, ``notice()`` first: the game row's
    ``compile_notice`` (a fresh install's first minute compiles the game's kernels, which would
    otherwise sit at 0 % without a word)."""
    from tqdm import tqdm

    if enabled and notice is not None:
        notice()
    return tqdm(total=total, desc=desc, disable=not enabled, dynamic_ncols=True)

"""The progress bar every phase of a run shows (tqdm; off with ``--no-progress``)."""

from __future__ import annotations


def bar(total: int, desc: str, enabled: bool):
    from tqdm import tqdm

    from meduris_env.engine.compiled import compile_notice
    if enabled:
        compile_notice()  # (a fresh install's first minute, else at 0 % without a word)
    return tqdm(total=total, desc=desc, disable=not enabled, dynamic_ncols=True)

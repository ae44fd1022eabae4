"""The progress bar every phase of a run shows (tqdm; off with ``--no-progress``)."""

from __future__ import annotations


def bar(total: int, desc: str, enabled: bool):
    from tqdm import tqdm
    return tqdm(total=total, desc=desc, disable=not enabled, dynamic_ncols=True)

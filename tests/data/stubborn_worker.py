"""Helpers of tests/test_workers.py, importable by spawned worker processes."""

import os
import signal
import time
from pathlib import Path


def ignore_sigterm() -> None:
    """A worker whose SIGTERM never does anything (as one blocked where its handler never runs)."""
    signal.signal(signal.SIGTERM, signal.SIG_IGN)


def sleep_long(seconds: float) -> float:
    time.sleep(seconds)
    return seconds


def die_once(task: tuple[str, int]) -> int:
    """Task ``(folder, n)``: the first time a task is run its worker dies by SIGKILL (a marker
    file remembers it), the second time it returns ``n * n``."""
    folder, n = task
    marker = Path(folder) / f"died-{n}"
    if not marker.exists():
        marker.write_text(str(os.getpid()))
        os.kill(os.getpid(), signal.SIGKILL)
    return n * n


def always_exit(task: int) -> int:
    os._exit(3)  # (as a plug-in calling os._exit would)


def refuse_to_start() -> None:
    raise ValueError("the constructor raises in workers only")


def die_while_starting() -> None:
    os._exit(7)

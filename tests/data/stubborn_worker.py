"""Helpers of tests/test_stop_pool.py, importable by spawned pool workers."""

import signal
import time


def ignore_sigterm() -> None:
    """A worker whose SIGTERM never does anything (as one blocked where its handler never runs)."""
    signal.signal(signal.SIGTERM, signal.SIG_IGN)


def sleep_long(seconds: float) -> float:
    time.sleep(seconds)
    return seconds

"""meduris_rl.agents.arena.tournament.backends.stop_pool: a tournament's or duel's worker pool is
stopped without waiting for ever. A worker that ignores SIGTERM (as one blocked where its handler
never ran, seen at the end of a duel with a cmd: bot) is killed after the grace time; a pool whose
tasks are all done is let end on its own."""

import multiprocessing
import sys
import time
from pathlib import Path

from meduris_rl.agents.arena.tournament.backends import stop_pool, worker_pool

sys.path.insert(0, str(Path(__file__).parent / "data"))
import stubborn_worker  # noqa: E402  (spawned workers import it by its module name)


def test_a_worker_deaf_to_sigterm_is_killed_after_the_grace_time(monkeypatch):
    monkeypatch.setenv("PYTHONPATH", str(Path(__file__).parent / "data"))
    pool = worker_pool(2, stubborn_worker.ignore_sigterm)
    pool.apply_async(stubborn_worker.sleep_long, (60,))
    time.sleep(1.0)  # the task is running in a worker
    t0 = time.monotonic()
    stop_pool(pool, finished=False, grace=1.0)
    assert time.monotonic() - t0 < 10
    assert multiprocessing.active_children() == []


def test_a_finished_pool_ends_on_its_own(monkeypatch):
    monkeypatch.setenv("PYTHONPATH", str(Path(__file__).parent / "data"))
    pool = worker_pool(2)
    assert pool.apply_async(stubborn_worker.sleep_long, (0.1,)).get(30) == 0.1
    t0 = time.monotonic()
    stop_pool(pool, finished=True, grace=10.0)
    assert time.monotonic() - t0 < 5
    assert multiprocessing.active_children() == []

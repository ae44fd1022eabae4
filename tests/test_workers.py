"""meduris_rl.agents.arena.workers: the arena's supervised worker processes. A worker that dies
(SIGKILL, os._exit) costs only its task, run again by a replacement; a task that kills its worker
every time, an initializer that raises and workers dying while they start end the run with one
line; the processes are stopped without waiting for ever (a worker deaf to SIGTERM is killed
after the grace time); nothing is left running."""

import multiprocessing
import sys
import time
from pathlib import Path

import pytest

from meduris_rl.agents.arena.workers import WorkerLost, Workers

sys.path.insert(0, str(Path(__file__).parent / "data"))
import stubborn_worker  # noqa: E402  (spawned workers import it by its module name)


@pytest.fixture(autouse=True)
def helpers_importable(monkeypatch):
    monkeypatch.setenv("PYTHONPATH", str(Path(__file__).parent / "data"))


def test_a_killed_worker_costs_only_its_task_which_a_new_worker_runs(tmp_path):
    tasks = [(str(tmp_path), n) for n in range(6)]
    with Workers(2, None, (), stubborn_worker.die_once) as pool:
        assert list(pool.map(tasks)) == [n * n for n in range(6)]  # in order, none lost
    assert len(list(tmp_path.glob("died-*"))) == 6  # every task's first worker was killed
    assert multiprocessing.active_children() == []


def test_unordered_results_and_a_window_take_tasks_lazily(tmp_path):
    taken = []

    def source():
        for n in range(5):
            taken.append(n)
            yield n / 100
    with Workers(2, None, (), stubborn_worker.sleep_long) as pool:
        results = pool.map_unordered(source(), window=2)
        first = next(results)
        assert len(taken) <= 3  # (two running, the third taken once one finished)
        assert sorted([first, *results]) == [n / 100 for n in range(5)]


def test_a_task_that_kills_its_worker_every_time_ends_the_run_in_one_line():
    with pytest.raises(WorkerLost) as err:
        with Workers(2, None, (), stubborn_worker.always_exit, describe=lambda t: f"game {t}")\
                as pool:
            list(pool.map_unordered([11]))
    assert str(err.value) == ("game 11 was lost with its worker process 3 times (the last: exit "
                              "code 3); the run stops")
    assert multiprocessing.active_children() == []


def test_an_initializer_that_raises_in_workers_is_raised_once_not_respawned_for_ever():
    t0 = time.monotonic()
    with pytest.raises(ValueError, match="the constructor raises in workers only"):
        with Workers(2, stubborn_worker.refuse_to_start, (), stubborn_worker.sleep_long) as pool:
            list(pool.map_unordered([0.01, 0.01]))
    assert time.monotonic() - t0 < 60
    assert multiprocessing.active_children() == []


def test_workers_dying_while_they_start_end_the_run_in_one_line():
    with pytest.raises(WorkerLost, match=r"die while they start \(3 in a row; the last: exit "
                                         r"code 7\)"):
        with Workers(1, stubborn_worker.die_while_starting, (), stubborn_worker.sleep_long) \
                as pool:
            list(pool.map_unordered([0.01]))
    assert multiprocessing.active_children() == []


def test_a_worker_deaf_to_sigterm_is_killed_after_the_grace_time():
    pool = Workers(2, stubborn_worker.ignore_sigterm, (), stubborn_worker.sleep_long)
    pool.grace = 1.0
    results = pool.map_unordered([0.01, 60, 60])
    assert next(results) == 0.01  # (the other worker sleeps in its 60-second task)
    t0 = time.monotonic()
    pool.close()  # (the run is left unfinished: both are sent SIGTERM, which they ignore)
    assert time.monotonic() - t0 < 10
    assert multiprocessing.active_children() == []


def test_finished_workers_end_on_their_own():
    pool = Workers(2, None, (), stubborn_worker.sleep_long)
    assert list(pool.map([0.1])) == [0.1]
    t0 = time.monotonic()
    pool.close()
    assert time.monotonic() - t0 < 5
    assert multiprocessing.active_children() == []

"""Given games played as they finish: a worker pool (or this process) kept open for several
batches of tasks, for callers that decide the next games from the last ones (the ladder's
gauntlet, :mod:`meduris_rl.agents.arena.ladder.gauntlet`) and store each game as soon as it ends.

:func:`game_stream` sets up the players once (:func:`~.backends.init_worker` in every worker
of :func:`~.backends.supervised` workers, or in this process for one worker) and yields a function
``play(tasks)`` that plays the given :data:`~.schedule.Task` tuples through
:func:`~.backends.play_task` and yields ``(index, GameResult)`` pairs **as they finish** (any
order with several workers: a caller that needs determinism keys each result by its index).
Leaving the ``with`` block stops the workers (also on Ctrl-C or an error).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager

from meduris_rl.agents.arena.match import GameResult
from meduris_rl.agents.arena.tournament.backends import init_worker, play_task, supervised
from meduris_rl.agents.arena.tournament.schedule import Task, TournamentConfig

Player = Callable[[Iterable[Task]], Iterator[tuple[int, GameResult]]]


@contextmanager
def game_stream(cfg: TournamentConfig, labels: list[str]) -> Iterator[Player]:
    """``play(tasks)`` for the agents ``cfg.agents`` (labelled ``labels``) in ``cfg.workers``
    processes: see the module docstring."""
    if cfg.workers <= 1:
        init_worker(cfg, labels, None, cfg.row)
        yield lambda tasks: map(play_task, tasks)
        return
    with supervised(cfg, labels) as workers:
        yield workers.map_unordered

"""The thinking pool of ``meduris serve``: the opponents' moves computed in worker processes.

**What a decision is.** :func:`decide` is a pure function of (agent name, player count, the
state's JSON (:meth:`State.to_json`), seat, seed): the agent named is reset with ``seed`` and
asked for its action in that state. The server passes ``derive_seed(seed, seat + 1, step)``
(the game's seed, the seat, the step: :mod:`meduris_rl.kit.seeding`), as it always has, so a
game played through the pool is the same game, bit for bit, as one played in-process
(``tests/test_web_live.py`` compares them). A worker keeps one agent per name (its cache):
resetting before every decision makes a shared agent behave as a fresh one.

**The pool** (:class:`Thinkers`) is a :class:`concurrent.futures.ProcessPoolExecutor` of
``workers`` spawned processes (``meduris serve --thinkers N``, default the CPU count). Each
worker, when it starts, lowers its CPU priority (``os.nice(NICENESS)``: the server's event loop
always wins the CPU), then warms up (:func:`warm_up`): it builds and caches every agent named in
``warm`` (the server names every opponent its page offers) and plays a decision where that
compiles or loads something (numba's kernels, each model for each player count). The
constructor returns only when every worker has warmed up (each reports its pid), so no move
waits for a compilation; ``meduris serve`` builds the pool in the background while the page
already answers (:meth:`.live.Live.warm`), and ``stop`` (set when the server stops) ends a
warm-up half way. :meth:`Thinkers.decide` is a coroutine
(:func:`asyncio.wrap_future`): the event loop awaits a worker, it never computes. No lock is
held across games: decisions of different games run side by side, as many at once as there
are workers, the others queued in submission order.

**Instant agents** (:func:`is_instant`: random, greedy, and an installed entry-point plug-in
whose object declares ``instant = True``, as the two bots of the project's example package,
``first-legal`` and ``cautious``, do) are not sent to the pool: a decision costs well under a
millisecond in-process, while a decision queued behind searching opponents' waits for a free
worker (seconds under load; docs/web.md has the measurement). The server plays them in a
thread (:mod:`.live`). Any other plug-in thinks in the pool: nothing says it is quick.

:meth:`Thinkers.close` cancels the queued decisions and ends the workers (terminated, then
reaped): no process outlives the server.
"""

from __future__ import annotations

import asyncio
import functools
import multiprocessing
import os
import shutil
import signal
import tempfile
import threading
import time
from collections.abc import Iterable
from concurrent.futures import ProcessPoolExecutor
from typing import Any

INSTANT = ("random", "greedy")  # built-ins decided in the server process, never in the pool
NICENESS = 10  # added to a worker's nice value: the server process wins the CPU
WARM_TIMEOUT = 300.0  # seconds a worker may take to start and warm up

AGENTS: dict[str, Any] = {}  # a worker's agents, by name (built once)


def agent_for(name: str):
    """The worker's agent called ``name``, built on first use."""
    if name not in AGENTS:
        from meduris_rl.agents import make_agent
        AGENTS[name] = make_agent(name)
    return AGENTS[name]


def decide(name: str, players: int, state_json: str, seat: int, seed: int) -> int:
    """The action the agent ``name`` takes at ``seat`` in the state ``state_json`` of a
    ``players``-player game, after ``reset(seed)``. Pure: the same arguments, the same action."""
    from meduris_env.engine.serialize import state_from_json
    from meduris_env.envs.observation import observe_state

    state = state_from_json(state_json)
    if state.game.num_players != players or state.current_player() != seat:
        raise ValueError(f"decide: seat {seat} of a {players}-player game is not to move")
    bot = agent_for(name)
    bot.reset(seed)
    obs = observe_state(state, seat) if bot.uses_observation else None
    return int(bot.act(obs, state))


@functools.cache
def is_instant(name: str) -> bool:
    """Whether the opponent ``name`` is decided in the server process (module docstring): a
    built-in of :data:`INSTANT`, or an entry point named bare (a parameter may make it slow)
    whose object says ``instant = True``."""
    if name in INSTANT:
        return True
    from meduris_rl.agents.plugins.load import PluginError, resolve_entry_point
    from meduris_rl.agents.registry import kind_named
    row = kind_named(name)
    if row is None or row.source != "entry point":
        return False
    try:
        return getattr(resolve_entry_point(row.target, row.package, name), "instant",
                       False) is True
    except PluginError:  # (it thinks in the pool, which says why it cannot)
        return False


def warm_up(warm: Iterable[tuple[str, int]]) -> None:
    """Every agent named in ``warm`` (``(agent name, players)``) built and cached, and one
    decision played at the first decision of a game with seed 0 by each one needing a model
    (its model for that player count loaded) and by the first of each other kind (numba's
    kernels compiled or loaded, shared by its other budgets)."""
    import random

    from meduris_env import MedurisGame
    from meduris_rl.agents import UnknownAgentError
    from meduris_rl.agents.registry import AgentSpec
    from meduris_rl.kit.loop import resolve_chance

    played: set[tuple[str, int]] = set()
    for name, players in warm:
        spec = AgentSpec.parse(name)
        if "model" not in spec.row.needs and (spec.kind, players) in played:
            agent_for(name)
            continue
        played.add((spec.kind, players))
        state = MedurisGame(players).new_initial_state()
        resolve_chance(state, random.Random(0))
        try:
            decide(name, players, state.to_json(), state.current_player(), 0)
        except UnknownAgentError:  # a model of another player count: such a game says so
            continue


def start_worker(niceness: int, warm: list[tuple[str, int]], ready: str) -> None:
    """A worker's initializer: lower priority, warm up, report the pid: an empty file named
    by it in the folder ``ready`` (a file, not a multiprocessing queue: a queue's semaphores
    stay referenced by the executor's initializer arguments and are reported as leaked at
    exit)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C stops the server, which stops us
    die_with_parent()
    os.nice(niceness)
    warm_up(warm)
    with open(os.path.join(ready, f"{os.getpid()}.tmp"), "w"):
        pass
    os.replace(os.path.join(ready, f"{os.getpid()}.tmp"), os.path.join(ready, str(os.getpid())))


def die_with_parent() -> None:
    """On Linux, have the kernel end this worker when the server process dies (even by
    SIGKILL): no orphan keeps searching. Elsewhere the worker ends when its queue closes."""
    try:
        import ctypes
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGKILL, 0, 0, 0)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


START_FOLDER = "meduris-thinkers-"  # + the server's pid: a pool's start folder in the temp dir


def sweep_start_folders(where: str | None = None) -> list[str]:
    """Remove the start folders (:class:`Thinkers`) that servers killed while their pool was
    starting left behind in ``where`` (the temp dir): this user's, named by a process that no
    longer runs. Returns their paths. (A live server's folder, or another user's, is kept.)"""
    where = where or tempfile.gettempdir()
    swept = []
    try:
        names = [n for n in os.listdir(where) if n.startswith(START_FOLDER)]
    except OSError:
        return swept
    for name in names:
        pid, _, rest = name[len(START_FOLDER):].partition("-")
        path = os.path.join(where, name)
        try:
            if not (pid.isdigit() and rest) or os.stat(path).st_uid != os.getuid():
                continue
            os.kill(int(pid), 0)  # (raises when no such process runs)
        except ProcessLookupError:
            shutil.rmtree(path, ignore_errors=True)
            swept.append(path)
        except (OSError, OverflowError):  # (another user's process, or gone meanwhile)
            continue
    return swept


def nothing() -> None:
    """A task that makes the executor start a worker."""


class Thinkers:
    """``workers`` worker processes deciding the opponents' moves (module docstring)."""

    def __init__(self, workers: int, warm: Iterable[tuple[str, int]] = (),
                 niceness: int = NICENESS, timeout: float = WARM_TIMEOUT,
                 stop: threading.Event | None = None):
        if not isinstance(workers, int) or workers < 1:
            raise ValueError(f"thinkers: at least 1 worker process, got {workers!r}")
        self.workers = workers
        ctx = multiprocessing.get_context("spawn")
        sweep_start_folders()
        ready = tempfile.mkdtemp(prefix=f"{START_FOLDER}{os.getpid()}-")
        self.executor = ProcessPoolExecutor(workers, mp_context=ctx, initializer=start_worker,
                                            initargs=(niceness, list(warm), ready))
        self.pids: list[int] = []
        self.closed = False
        deadline = time.monotonic() + timeout
        # each submission while no worker is idle starts one
        starts = [self.executor.submit(nothing) for _ in range(workers)]
        try:
            while len(self.pids) < workers:
                failed = [f.exception() for f in starts if f.done() and f.exception()]
                stopped = stop is not None and stop.is_set()
                if failed or stopped or time.monotonic() > deadline:
                    self.close()
                    why = (f"{type(failed[0]).__name__}: {failed[0]}" if failed
                           else "the server stopped" if stopped
                           else f"not within {timeout:.0f} s")
                    raise RuntimeError(f"the thinking workers did not start ({why})")
                time.sleep(0.05)
                self.pids = [int(n) for n in os.listdir(ready) if n.isdigit()]
        finally:
            shutil.rmtree(ready, ignore_errors=True)

    async def decide(self, name: str, players: int, state_json: str, seat: int,
                     seed: int) -> int:
        """:func:`decide` in a worker, awaited without blocking the event loop."""
        return await asyncio.wrap_future(
            self.executor.submit(decide, name, players, state_json, seat, seed))

    def close(self) -> None:
        """Cancel what is queued, end the workers (even mid-decision) and reap them. Once."""
        if self.closed:
            return
        self.closed = True
        # (every worker, also one still warming up that has not reported its pid: the
        # executor would wait for its warm-up to end)
        processes = getattr(self.executor, "_processes", None) or {}
        for pid in set(self.pids) | set(processes):
            try:
                os.kill(pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
        self.executor.shutdown(wait=True, cancel_futures=True)

"""Where a tournament's games are played: in this process, in a pool of spawned processes on
this machine, or as Ray tasks; :func:`run_tournament` plays them and summarises.

Every backend plays game ``i`` the same way (:func:`play_task` with the schedule's seed and
lineup), so the results do not depend on the backend or the number of workers. (Agents with a
time budget, like ``mcts:0.5s``, depend on machine speed; iteration budgets do not.)

The processes are supervised (:mod:`meduris_rl.agents.arena.workers`): a worker that dies costs
only its game, played again with the same seed by a new worker. Ctrl-C: the workers ignore SIGINT
and the parent stops them, so an interrupted tournament ends with one line, not a traceback per
worker.
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable

from meduris_rl.agents.arena.match import GameResult, play_game
from meduris_rl.agents.arena.tournament.schedule import (
    Task,
    TournamentConfig,
    TournamentError,
    check_config,
    tasks,
)
from meduris_rl.agents.arena.tournament.statistics import summarize
from meduris_rl.agents.arena.workers import MAX_LOSSES, WorkerLost, Workers
from meduris_rl.agents.plugins import load as plugins
from meduris_rl.agents.plugins.external import close_agents, set_limits
from meduris_rl.agents.registry import AgentSpec, make_agent
from meduris_rl.kit.games import GameSpec, register

_WORKER: dict = {}


def init_worker(cfg: TournamentConfig, labels: list[str], context: dict | None = None,
                row: GameSpec | None = None) -> None:
    """Build the game and the entrants once per worker (the pool's initializer), each from its
    name (plug-ins too: nothing of an agent is pickled). ``row``, the game's row, is registered
    in the worker first (a game registered by hand in the parent, not installed, plays too:
    :mod:`meduris_rl.kit.games`). ``context``
    (:func:`meduris_rl.agents.plugins.load.worker_context`) gives a worker that does not inherit
    them (a Ray actor) the parent's current folder and ``sys.path``, so a plug-in's relative file
    path or module resolves as in the parent; spawned pool workers inherit both (and PYTHONPATH)."""
    plugins.apply_worker_context(context)
    spec = register(row) if row is not None else cfg.row
    if any("torch" in AgentSpec.parse(n, spec.name).row.needs for n in cfg.agents):
        import torch
        torch.set_num_threads(1)  # one process per core already
    _WORKER["game"] = spec.make(cfg.players, cfg.options)
    names = [n.strip() for n in cfg.agents]
    _WORKER["agents"] = [make_agent(n, spec.name) for n in names]
    quiet_worker(context)
    set_limits(_WORKER["agents"], cfg.move_time, cfg.game_time, cfg.log_dir or None)
    _WORKER["labels"] = labels


def quiet_worker(context: dict | None) -> None:
    """In a worker process (a spawned one, a Ray actor): no warnings about policy files of
    unknown player counts (:func:`meduris_rl.agents.policies.network.warn_unknown_players`; the
    parent checked the entrants and warned once). Torch is not imported for it."""
    import multiprocessing
    network = sys.modules.get("meduris_rl.agents.policies.network")
    if network is not None and (context is not None or multiprocessing.parent_process()):
        network.quiet_player_warnings()


def supervised(cfg: TournamentConfig, labels: list[str]) -> Workers:
    """``cfg.workers`` supervised processes (:mod:`meduris_rl.agents.arena.workers`) that play
    tasks with :func:`play_task` after :func:`init_worker`; a task lost with its worker is
    named by its game number and agents."""
    def describe(task: Task) -> str:
        return f"game {task[0]} (seed {task[2]}; {', '.join(labels[e] for e in task[1])})"
    return Workers(cfg.workers, init_worker, (cfg, labels, None, cfg.row), play_task, describe)


def play_task(task: Task) -> tuple[int, GameResult]:
    """Play one game of the schedule in a worker set up by :func:`init_worker`."""
    index, lineup, seed, keep_record, seeds = task
    agents = [_WORKER["agents"][e] for e in lineup]
    labels = [_WORKER["labels"][e] for e in lineup]
    return index, play_game(_WORKER["game"], agents, seed, labels, keep_record=keep_record,
                            meta={"tournament_game": index}, seeds=seeds)


class TournamentInterrupted(KeyboardInterrupt):
    """Ctrl-C (or SIGTERM, as the command turns it into one) during a tournament: ``results``
    holds the finished games by number, ``summary`` their summary, marked ``"interrupted"``."""

    def __init__(self, results: dict[int, GameResult], summary: dict):
        super().__init__(summary["interrupted"])
        self.results, self.summary = results, summary


def run_tournament(cfg: TournamentConfig, progress: bool = False,
                   done: dict[int, GameResult] | None = None,
                   on_result: Callable[[int, GameResult], None] | None = None
                   ) -> tuple[list[GameResult], dict]:
    """Play the tournament; return the results in game order and the summary. ``done``: games
    already played (by number: a resumed run), not played again; ``on_result(number, result)``
    is called as each game ends (a journal). Interrupted, it raises
    :class:`TournamentInterrupted` with the finished games."""
    labels, lineups, games = check_config(cfg)
    done = done or {}
    todo = [task for task in tasks(cfg, lineups, games) if task[0] not in done]
    bar = None
    if progress:
        from tqdm import tqdm

        cfg.row.compile_notice()  # (a fresh install's first minute, else 0 % without a word)
        bar = tqdm(total=games, initial=len(done), desc="games", unit="game", file=sys.stderr,
                   dynamic_ncols=True)
    results: list[GameResult | None] = [done.get(i) for i in range(games)]
    stop = None
    try:  # (Ctrl-C may come while the workers start: the bar is closed whatever happens)
        if cfg.backend == "ray":
            outcomes, stop = _ray_outcomes(cfg, labels, todo)
        elif cfg.workers == 1:
            init_worker(cfg, labels, None, cfg.row)
            outcomes = map(play_task, todo)
            stop = functools.partial(close_agents, _WORKER["agents"])  # (cmd: agents' children)
        else:
            workers = supervised(cfg, labels)
            outcomes, stop = workers.map_unordered(todo), workers.close
        for index, result in outcomes:
            results[index] = result
            if on_result is not None:
                on_result(index, result)
            if bar is not None:
                bar.update(1)
    except KeyboardInterrupt:
        finished = {i: r for i, r in enumerate(results) if r is not None}
        summary = summarize(cfg, labels, lineups, list(finished.values()))
        summary["interrupted"] = f"after {len(finished)} of {games} games"
        raise TournamentInterrupted(finished, summary) from None
    finally:
        if stop is not None:
            stop()
        if bar is not None:
            bar.close()
    done = [r for r in results if r is not None]
    return done, summarize(cfg, labels, lineups, done)


# --- Ray ---------------------------------------------------------------------------------------
RAY_CHUNK = 8  # games per Ray task: a task costs ~1 ms, a greedy game ~10 ms


class RayError(TournamentError):
    """Ray is missing or its cluster cannot be reached (the message names the fix)."""


def ray_available() -> bool:
    import importlib.util
    return importlib.util.find_spec("ray") is not None


def check_ray(address: str | None) -> None:
    """Before any work: Ray is installed, and a given cluster address answers."""
    if not ray_available():
        raise RayError("backend 'ray' needs Ray: install the extra with "
                       "pip install -e '.[ray]' (make test builds .venv-ray with it)")
    problem = ray_address_problem(address)
    if problem:
        raise RayError(problem)


# Ray's head (its GCS, and the Ray Client server of ray://) speaks gRPC: HTTP/2 without TLS,
# whose server answers a client's connection preface with a SETTINGS frame at once
HTTP2_PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + bytes([0, 0, 0, 4, 0, 0, 0, 0, 0])
PROBE_SECONDS = 3.0  # the whole check (connect, answer, Ray's reply): a Ray head takes ms
# a method of Ray's GCS that every client calls first (empty request): a gRPC server that is
# not Ray's GCS answers UNIMPLEMENTED, or nothing
RAY_METHOD = "/ray.rpc.NodeInfoGcsService/GetClusterId"
# a Ray GCS with token authentication (Ray's default since 2.5x) answers the method without a
# token so; a gRPC server without the method answers UNIMPLEMENTED
RAY_REFUSALS = ("UNAUTHENTICATED", "PERMISSION_DENIED")


def ray_address_problem(address: str | None, target: str | None = None) -> str | None:
    """Why a Ray cluster address will not do, or None; no address or ``auto`` always does.

    Decided within :data:`PROBE_SECONDS` in all (one deadline, however slowly a server
    trickles its bytes), without importing ray: the address is ``host:port``; something
    answers a TCP connect at ``target`` (by default the address itself); it answers as a gRPC
    server does (an HTTP/2 SETTINGS frame in reply to HTTP/2's connection preface); and, with
    grpcio installed (Ray needs it), it answers :data:`RAY_METHOD` of Ray's GCS, which another
    gRPC or HTTP/2 server does not (:func:`ray_rpc_problem`; not for a ``ray://`` address,
    whose Ray Client server has no GCS methods). A cluster with TLS
    (``RAY_USE_TLS=1``) is only connected to, not probed."""
    if not address or address == "auto":
        return None
    import os
    import socket
    import time
    deadline = time.monotonic() + PROBE_SECONDS
    host, _, port = (target or address).rpartition(":")
    if not host or not port.isdigit() or not 0 < int(port) < 65536:
        return f"address {address!r}: write host:port of the Ray head node, e.g. 127.0.0.1:6379"
    fix = "start one with `ray start --head` there, or give no address to use a local Ray"
    try:
        conn = socket.create_connection((host.strip("[]"), int(port)), timeout=PROBE_SECONDS)
    except OSError as err:
        return f"cannot reach a Ray cluster at {address} ({err.strerror or err}); {fix}"
    if os.environ.get("RAY_USE_TLS", "0").lower() in ("1", "true"):
        conn.close()
        return None
    with conn:
        reply = grpc_reply(conn, deadline)
    if reply is None:
        return (f"something at {address} accepts connections but does not answer as a Ray "
                f"cluster does (no gRPC reply within {PROBE_SECONDS:.0f} s): is it the Ray head "
                f"node's port (ray start prints it)? {fix}")
    if len(reply) < 9 or reply[3] != 4:  # not the header of an HTTP/2 SETTINGS frame
        said = "closed the connection" if not reply else f"answered {reply[:9]!r}"
        return (f"something at {address} is not a Ray cluster (it {said}, not gRPC): is it the "
                f"Ray head node's port (ray start prints it)? {fix}")
    # (a ray:// address is Ray Client's server, not the GCS: its HTTP/2 answer is the check)
    why = None if "://" in address else ray_rpc_problem(f"{host}:{port}", deadline)
    if why:
        return (f"something at {address} speaks gRPC but is not a Ray cluster ({why}): is it "
                f"the Ray head node's port (ray start prints it)? {fix}")
    return None


def ray_rpc_problem(target: str, deadline: float) -> str | None:
    """Why the gRPC server at ``target`` is not Ray's GCS (its answer to :data:`RAY_METHOD`
    by ``deadline``), or None; None too without grpcio (then the HTTP/2 check alone)."""
    import time
    try:
        import grpc
    except ImportError:
        return None
    channel = grpc.insecure_channel(target)
    try:
        call = channel.unary_unary(RAY_METHOD)
        call(b"", timeout=max(0.1, deadline - time.monotonic()))
    except grpc.RpcError as err:
        code = err.code() if hasattr(err, "code") else None
        if getattr(code, "name", None) in RAY_REFUSALS:  # the method is there: Ray's GCS,
            # asking for its token
            return None
        if code == grpc.StatusCode.DEADLINE_EXCEEDED:
            return f"no answer to Ray's GetClusterId within {PROBE_SECONDS:.0f} s"
        return f"Ray's GetClusterId answered {getattr(code, 'name', code)}"
    finally:
        channel.close()
    return None


def grpc_reply(conn, deadline: float) -> bytes | None:
    """The first 9 bytes (fewer if the peer closes) a server sends after HTTP/2's preface on
    ``conn``, or None when it says nothing by ``deadline`` (a time.monotonic())."""
    import time
    reply = b""
    try:
        conn.sendall(HTTP2_PREFACE)
        while len(reply) < 9:
            left = deadline - time.monotonic()
            if left <= 0:
                return reply or None
            conn.settimeout(left)
            chunk = conn.recv(9 - len(reply))
            if not chunk:
                break
            reply += chunk
    except TimeoutError:
        return reply or None
    except OSError:  # reset by the peer
        return reply
    return reply


def _ray_outcomes(cfg: TournamentConfig, labels: list[str], todo: list[Task]):
    """The games as Ray tasks, RAY_CHUNK per task on actors that keep their agents (like the
    worker processes): (index, result) pairs as they finish, and a stop function. Supervised
    like the processes (:mod:`meduris_rl.agents.arena.workers`): an actor that dies costs only
    its chunk of games, played again (same seeds) by a new actor; a chunk lost
    :data:`~meduris_rl.agents.arena.workers.MAX_LOSSES` times ends the run in one line, and an
    actor whose set-up raises (a plug-in's constructor) raises that error here."""
    import ray

    check_ray(cfg.address)
    started = not ray.is_initialized()
    if started:
        ray.init(address=cfg.address or None, include_dashboard=False, log_to_driver=False,
                 configure_logging=False)

    @ray.remote(num_cpus=1, max_restarts=0)
    class Worker:
        def __init__(self, cfg, labels, context, row):
            self.failed = None
            try:
                init_worker(cfg, labels, context, row)
            except Exception as err:  # (raised by play, as a task's error: not a dead actor)
                self.failed = err

        def play(self, chunk):
            if self.failed is not None:
                raise self.failed
            return [play_task(task) for task in chunk]

    size = max(1, min(cfg.workers, int(ray.cluster_resources().get("CPU", 1))))
    context = plugins.worker_context()
    actors: list = []

    def new_actor():
        actor = Worker.remote(cfg, labels, context, cfg.row)
        actors.append(actor)
        return actor
    chunks = [todo[i:i + RAY_CHUNK] for i in range(0, len(todo), RAY_CHUNK)]

    def stop():
        for actor in actors:
            ray.kill(actor)
        if started:
            ray.shutdown()
    return _ray_supervised(chunks, [new_actor() for _ in range(size)], new_actor), stop


def _ray_supervised(chunks: list[list[Task]], idle: list, new_actor):
    """(index, result) of every task of ``chunks`` played on the actors, replacing dead ones."""
    import collections

    import ray
    from ray.exceptions import RayActorError, RayTaskError

    pending = collections.deque(range(len(chunks)))
    running: dict = {}  # object ref -> (actor, chunk number)
    losses: collections.Counter = collections.Counter()
    while pending or running:
        while idle and pending:
            actor, k = idle.pop(), pending.popleft()
            running[actor.play.remote(chunks[k])] = (actor, k)
        ready, _ = ray.wait(list(running), num_returns=1)
        actor, k = running.pop(ready[0])
        try:
            done = ray.get(ready[0])
        except RayTaskError as err:  # an error of the game (a plug-in's): raised as itself
            cause = getattr(err, "cause", None)
            raise (cause if isinstance(cause, BaseException) else err) from None
        except RayActorError as err:
            losses[k] += 1
            if losses[k] >= MAX_LOSSES:
                first = chunks[k][0][0]
                raise WorkerLost(f"games {first}..{first + len(chunks[k]) - 1} were lost with "
                                 f"their Ray actor {losses[k]} times (the last: "
                                 f"{type(err).__name__}); the run stops") from None
            ray.kill(actor)
            pending.appendleft(k)
            idle.append(new_actor())
            continue
        idle.append(actor)
        yield from done

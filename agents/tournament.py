"""Tournaments: every lineup (ordered choice of agents for the seats) played equally, games in
parallel processes, a leaderboard, and results written atomically.

Reproducibility: game ``i`` of a tournament with seed ``s`` has the seed ``derive_seed(s, i)``
(chance and the agents' streams follow from it, :func:`agents.match.play_game`) and the lineup
``lineups[i % len(lineups)]``, so results do not depend on ``workers``. (Agents with a time
budget, like ``mcts:0.5s``, depend on machine speed; iteration budgets do not.)
"""

from __future__ import annotations

import csv
import io
import itertools
import json
import math
import sys
from dataclasses import asdict, dataclass
from pathlib import Path

from meduris_env import MedurisGame
from meduris_env.records.atomic import atomic_write, unwritable_reason

from .match import GameResult, derive_seed, play_game
from .registry import UnknownAgentError, make_agent


class TournamentError(ValueError):
    """A tournament that cannot be run as asked (the message names the fix)."""


@dataclass
class TournamentConfig:
    agents: list[str]
    players: int = 2
    games: int = 100
    seed: int = 0
    workers: int = 1
    exchange: str = "auto"
    max_turns: int = 1000
    save_records: str = ""  # which games to keep records of: "", "all" or "0,5,10-19"
    backend: str = "process"  # "process" (a pool on this machine) or "ray"
    address: str | None = None  # Ray cluster (host:port); None: a local Ray


def entrant_labels(names: list[str]) -> list[str]:
    """One label per entrant; a repeated name gets ``#2``, ``#3`` ... (``random``, ``random#2``)."""
    seen: dict[str, int] = {}
    out = []
    for name in names:
        seen[name] = seen.get(name, 0) + 1
        out.append(name if seen[name] == 1 else f"{name}#{seen[name]}")
    return out


def check_config(cfg: TournamentConfig) -> tuple[list[str], list[tuple[int, ...]], int]:
    """Validate; return (labels, lineups, games rounded up to a multiple of the lineups)."""
    if isinstance(cfg.players, bool) or cfg.players not in (2, 3, 4):
        raise TournamentError(f"--players {cfg.players}: Meduris is played by 2, 3 or 4 (R1)")
    names = [n.strip() for n in cfg.agents]
    if not names or any(not n for n in names):
        raise TournamentError("--agents needs a comma-separated list of agent names, "
                              "e.g. random,greedy,mcts:200")
    if len(names) < cfg.players:
        raise TournamentError(
            f"{cfg.players} players need at least {cfg.players} agents, got {len(names)}; "
            f"repeat a name to seat it more than once (e.g. greedy{',random' * (cfg.players - 1)})")
    for name in dict.fromkeys(names):
        try:
            make_agent(name)
        except UnknownAgentError as err:
            raise TournamentError(str(err)) from None
    if cfg.games < 1:
        raise TournamentError(f"--games {cfg.games}: play at least one game")
    if cfg.workers < 1:
        raise TournamentError(f"--workers {cfg.workers}: use at least 1 worker process")
    if cfg.backend not in ("process", "ray"):
        raise TournamentError(f"--backend {cfg.backend!r}: 'process' or 'ray'")
    if cfg.address and cfg.backend != "ray":
        raise TournamentError("--address is the Ray cluster's: it needs --backend ray")
    labels = entrant_labels(names)
    lineups = list(itertools.permutations(range(len(names)), cfg.players))
    games = math.ceil(cfg.games / len(lineups)) * len(lineups)
    recorded_games(cfg.save_records, games)
    return labels, lineups, games


def recorded_games(spec: str, games: int) -> set[int]:
    """The game indices a ``--save-records`` spec names: "" (none), "all", or indices and
    ranges like ``0,5,10-19`` (each below ``games``)."""
    spec = (spec or "").strip()
    if not spec:
        return set()
    if spec == "all":
        return set(range(games))
    chosen: set[int] = set()
    for part in spec.split(","):
        lo, dash, hi = part.strip().partition("-")
        try:
            first, last = int(lo), int(hi if dash else lo)
        except ValueError:
            raise TournamentError(f"--save-records {spec!r}: write 'all' or game numbers and "
                                  "ranges such as 0,5,10-19") from None
        if not 0 <= first <= last < games:
            raise TournamentError(f"--save-records {spec!r}: {part.strip()!r} is outside the "
                                  f"games 0..{games - 1}")
        chosen.update(range(first, last + 1))
    return chosen


# --- playing ---------------------------------------------------------------------------------
_WORKER: dict = {}


def worker_pool(processes: int, initializer=None, initargs: tuple = ()):
    """A pool of ``processes`` spawned workers that leave Ctrl-C to the parent, which stops
    them (``pool.terminate``) and says what was kept, instead of every worker printing a
    KeyboardInterrupt traceback. Ctrl-C sends SIGINT to the whole process group, even while
    the workers start: SIGINT is blocked while the pool is made (the workers inherit the
    blocked mask and ignore SIGINT before unblocking it; a Ctrl-C meanwhile reaches the parent
    as soon as it unblocks). Spawn, not fork: a forked child of a process that has used torch
    can deadlock."""
    import multiprocessing as mp
    import signal
    from multiprocessing import resource_tracker

    # the pool starts multiprocessing's resource tracker if it is not running yet, and that
    # start unblocks SIGINT when it is done: start it first
    resource_tracker.ensure_running()
    blocked = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    pool = None
    try:
        pool = mp.get_context("spawn").Pool(processes, _start_worker, (initializer, initargs))
        signal.pthread_sigmask(signal.SIG_SETMASK, blocked)  # a Ctrl-C meanwhile: raised now
        return pool
    except BaseException:
        signal.pthread_sigmask(signal.SIG_SETMASK, blocked)
        if pool is not None:
            pool.terminate()
        raise


def _start_worker(initializer, initargs: tuple) -> None:
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)  # (drops a Ctrl-C pending since the start)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
    if initializer is not None:
        initializer(*initargs)


def _init_worker(cfg: TournamentConfig, labels: list[str]) -> None:
    if any(n.strip().split(":")[0] in ("ppo", "az", "rllib") for n in cfg.agents):
        import torch
        torch.set_num_threads(1)  # one process per core already
    _WORKER["game"] = MedurisGame(cfg.players, exchange=cfg.exchange, max_turns=cfg.max_turns)
    names = [n.strip() for n in cfg.agents]
    _WORKER["agents"] = [make_agent(n) for n in names]
    _WORKER["labels"] = labels


def _play_task(task: tuple[int, tuple[int, ...], int, bool]) -> tuple[int, GameResult]:
    index, lineup, seed, keep_record = task
    agents = [_WORKER["agents"][e] for e in lineup]
    labels = [_WORKER["labels"][e] for e in lineup]
    return index, play_game(_WORKER["game"], agents, seed, labels, keep_record=keep_record,
                            meta={"tournament_game": index})


def run_tournament(cfg: TournamentConfig, progress: bool = False) -> tuple[list[GameResult], dict]:
    """Play the tournament; return the results in game order and the summary."""
    labels, lineups, games = check_config(cfg)
    keep = recorded_games(cfg.save_records, games)
    tasks = [(i, lineups[i % len(lineups)], derive_seed(cfg.seed, i), i in keep)
             for i in range(games)]
    bar = None
    if progress:
        from tqdm import tqdm
        bar = tqdm(total=games, desc="games", unit="game", file=sys.stderr, dynamic_ncols=True)
    results: list[GameResult | None] = [None] * games
    if cfg.backend == "ray":
        outcomes, stop = _ray_outcomes(cfg, labels, tasks)
    elif cfg.workers == 1:
        _init_worker(cfg, labels)
        outcomes, stop = map(_play_task, tasks), None
    else:
        pool = worker_pool(cfg.workers, _init_worker, (cfg, labels))
        outcomes, stop = pool.imap_unordered(_play_task, tasks, chunksize=1), pool.terminate
    try:
        for index, result in outcomes:
            results[index] = result
            if bar is not None:
                bar.update(1)
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
        raise RayError("--backend ray needs Ray: install the extra with "
                       "pip install -e '.[ray]' (make test builds .venv-ray with it)")
    problem = ray_address_problem(address)
    if problem:
        raise RayError(problem)


def ray_address_problem(address: str | None, target: str | None = None) -> str | None:
    """Why a Ray cluster address will not do (malformed, or nothing answers a TCP connect at
    ``target``, by default the address itself), or None; no address or ``auto`` always does."""
    if not address or address == "auto":
        return None
    import socket
    host, _, port = (target or address).rpartition(":")
    if not host or not port.isdigit():
        return f"--address {address!r}: write host:port of the Ray head node, e.g. 127.0.0.1:6379"
    try:
        socket.create_connection((host, int(port)), timeout=3).close()
    except OSError as err:
        return (f"cannot reach a Ray cluster at {address} ({err.strerror or err}); start one "
                "with `ray start --head` there, or leave out --address to use a local Ray")
    return None


def _ray_outcomes(cfg: TournamentConfig, labels: list[str], tasks: list):
    """The games as Ray tasks, RAY_CHUNK per task on actors that keep their agents (like the
    process pool's workers): (index, result) pairs as they finish, and a stop function."""
    import ray

    check_ray(cfg.address)
    started = not ray.is_initialized()
    if started:
        ray.init(address=cfg.address or None, include_dashboard=False, log_to_driver=False,
                 configure_logging=False)

    @ray.remote(num_cpus=1)
    class Worker:
        def __init__(self, cfg, labels):
            _init_worker(cfg, labels)

        def play(self, chunk):
            return [_play_task(task) for task in chunk]

    workers = max(1, min(cfg.workers, int(ray.cluster_resources().get("CPU", 1))))
    actors = [Worker.remote(cfg, labels) for _ in range(workers)]
    chunks = [tasks[i:i + RAY_CHUNK] for i in range(0, len(tasks), RAY_CHUNK)]
    pool = ray.util.ActorPool(actors)

    def outcomes():
        for done in pool.map_unordered(lambda actor, chunk: actor.play.remote(chunk), chunks):
            yield from done

    def stop():
        for actor in actors:
            ray.kill(actor)
        if started:
            ray.shutdown()
    return outcomes(), stop


# --- statistics ------------------------------------------------------------------------------
def wilson_interval(wins: float, games: int, z: float = 1.96) -> tuple[float, float]:
    """95% Wilson score interval of a win rate (shared wins count fractionally)."""
    if games == 0:
        return 0.0, 1.0
    p = wins / games
    denom = 1 + z * z / games
    centre = (p + z * z / (2 * games)) / denom
    half = z * math.sqrt(p * (1 - p) / games + z * z / (4 * games * games)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


def summarize(cfg: TournamentConfig, labels: list[str], lineups, results: list[GameResult]) -> dict:
    """Per-agent statistics and an OpenSkill (Plackett-Luce) rating, games taken in order."""
    from openskill.models import PlackettLuce

    model = PlackettLuce()
    ratings = {label: model.rating(name=label) for label in labels}
    per = {label: {"games": 0, "wins": 0.0, "vp": [], "turns": [], "seconds": 0.0,
                   "decisions": 0, "longest": 0.0} for label in labels}
    for r in results:
        share = 1.0 / len(r.winners)
        for seat, label in enumerate(r.agents):
            p = per[label]
            p["games"] += 1
            p["wins"] += share if seat in r.winners else 0.0
            p["vp"].append(r.vp[seat])
            p["turns"].append(r.turns)
            p["seconds"] += r.seconds_per_seat[seat]
            p["decisions"] += r.decisions_per_seat[seat]
            p["longest"] = max(p["longest"], r.max_seconds_per_decision[seat])
        new = model.rate([[ratings[label]] for label in r.agents], ranks=r.ranks)
        for label, team in zip(r.agents, new, strict=False):
            ratings[label] = team[0]
    agents = {}
    for label in labels:
        p = per[label]
        g = p["games"]
        vp = p["vp"]
        mean = sum(vp) / g if g else 0.0
        sd = math.sqrt(sum((v - mean) ** 2 for v in vp) / (g - 1)) if g > 1 else 0.0
        lo, hi = wilson_interval(p["wins"], g)
        rating = ratings[label]
        agents[label] = {
            "games": g, "wins": p["wins"], "win_rate": p["wins"] / g if g else 0.0,
            "win_rate_ci95": [lo, hi], "mean_vp": mean, "sd_vp": sd,
            "mean_turns": sum(p["turns"]) / g if g else 0.0,
            "rating": rating.mu, "rating_sigma": rating.sigma,
            "rating_ordinal": rating.mu - 3 * rating.sigma,
            "seconds_per_game": p["seconds"] / g if g else 0.0,
            "seconds_per_decision": p["seconds"] / p["decisions"] if p["decisions"] else 0.0,
            "max_seconds_per_decision": p["longest"],
        }
    return {"config": asdict(cfg), "games": len(results), "lineups": len(lineups),
            "rating_model": "openskill PlackettLuce (rating = mu, ordinal = mu - 3 sigma)",
            "agents": agents}


def leaderboard(summary: dict) -> str:
    """The leaderboard as a text table, best rating (ordinal) first."""
    rows = sorted(summary["agents"].items(), key=lambda kv: -kv[1]["rating_ordinal"])
    width = max(16, 2 + max(len(label) for label, _ in rows))  # long names keep columns aligned
    head = (f"{'agent':<{width}}{'games':>6}{'wins':>8}{'win rate':>10}{'95% CI':>16}"
            f"{'VP mean ± sd':>16}{'turns':>7}{'rating':>14}{'ms/move':>9}")
    lines = [head, "-" * len(head)]
    for label, a in rows:
        lo, hi = a["win_rate_ci95"]
        ci = f"{lo:.1%}-{hi:.1%}"
        vp = f"{a['mean_vp']:.1f} ± {a['sd_vp']:.1f}"
        rating = f"{a['rating']:.1f} ± {a['rating_sigma']:.1f}"
        lines.append(f"{label:<{width}}{a['games']:>6}{a['wins']:>8.1f}{a['win_rate']:>10.1%}"
                     f"{ci:>16}{vp:>16}{a['mean_turns']:>7.1f}{rating:>14}"
                     f"{1000 * a['seconds_per_decision']:>9.2f}")
    cfg = summary["config"]
    lines.append(f"{summary['games']} games, {cfg['players']} players, {summary['lineups']} "
                 f"lineups played equally, seed {cfg['seed']}")
    return "\n".join(lines)


# --- files -----------------------------------------------------------------------------------
def check_writable(out: Path) -> None:
    """Create ``out`` and prove we can write there, before any game is played."""
    reason = unwritable_reason(out)
    if reason:
        raise TournamentError(f"cannot write results to {str(out)!r} ({reason}); choose "
                              "another folder with --out")


def games_csv(results: list[GameResult], players: int) -> str:
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["game", "seed", *[f"seat{s}_agent" for s in range(players)],
                *[f"seat{s}_vp" for s in range(players)], "winners", "turns", "decisions",
                "end_reason"])
    for i, r in enumerate(results):
        w.writerow([i, r.seed, *r.agents, *r.vp, ";".join(map(str, r.winners)), r.turns,
                    r.decisions, r.end_reason])
    return buf.getvalue()


def write_results(out: Path, results: list[GameResult], summary: dict) -> list[Path]:
    """games.csv, summary.json and a record per recorded game (records/game-00012.json);
    returns the record paths."""
    players = summary["config"]["players"]
    paths = []
    for i, r in enumerate(results):
        if r.record is not None:
            (out / "records").mkdir(exist_ok=True)
            paths.append(out / "records" / f"game-{i:05d}.json")
            atomic_write(paths[-1], json.dumps(r.record, separators=(",", ":")) + "\n")
    atomic_write(out / "games.csv", games_csv(results, players))
    atomic_write(out / "summary.json", json.dumps(summary, indent=2) + "\n")
    # an earlier run's records that this one did not write go: the folder holds one run
    if (out / "records").is_dir():
        for stale in set((out / "records").glob("game-*.json")) - set(paths):
            stale.unlink()
        if not any((out / "records").iterdir()):
            (out / "records").rmdir()
    return paths

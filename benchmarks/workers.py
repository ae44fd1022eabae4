"""What the supervised workers (issue 46) cost, beside ``multiprocessing.Pool`` in the same run:
the figures of docs/benchmarks.md ("A fair, unbreakable arena"). Usage from the repo root::

    python benchmarks/workers.py [--games 2000] [--agents random,random] [--workers 2]
                                 [--rounds 2] [--json]

The same tournament tasks (:func:`meduris_rl.agents.arena.tournament.schedule.tasks`, the same
``init_worker`` and ``play_task``) are played by ``--workers`` processes of
:class:`meduris_rl.agents.arena.workers.Workers` and of a ``multiprocessing.Pool`` (spawned,
``imap_unordered`` with ``chunksize=1``, as tournaments played before), alternating, ``--rounds``
times each; the best round of each counts (the machine's other jobs only slow a round down).
Random agents make the games short (a few ms), so the figure is the cost of handing out tasks,
the worst case for the supervisor.

JSON keys: ``supervised_games_per_s``, ``pool_games_per_s``, ``supervised_vs_pool`` (their
ratio), ``start_s`` (workers started and set up, supervised), ``pool_start_s``, ``games``,
``workers``, ``agents``. Results are also written to ``results/benchmark_workers.json``.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import sys
import time
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent


def timed_supervised(cfg, labels, todo) -> tuple[float, float]:
    from meduris_rl.agents.arena.tournament.backends import supervised

    t0 = time.perf_counter()
    with supervised(cfg, labels) as workers:
        results = workers.map_unordered(todo[:1])
        next(results)  # (started and set up: the first game is done)
        list(results)
        t1 = time.perf_counter()
        count = sum(1 for _ in workers.map_unordered(todo[1:]))
        t2 = time.perf_counter()
    return t1 - t0, (count + 1) / (t2 - t1 + (t1 - t0) / len(todo))


def timed_pool(cfg, labels, todo) -> tuple[float, float]:
    from meduris_rl.agents.arena.tournament.backends import init_worker, play_task

    t0 = time.perf_counter()
    with multiprocessing.get_context("spawn").Pool(
            cfg.workers, init_worker, (cfg, labels, None, cfg.row)) as pool:
        list(pool.imap_unordered(play_task, todo[:1], chunksize=1))
        t1 = time.perf_counter()
        count = sum(1 for _ in pool.imap_unordered(play_task, todo[1:], chunksize=1))
        t2 = time.perf_counter()
    return t1 - t0, (count + 1) / (t2 - t1 + (t1 - t0) / len(todo))


def main(argv: list[str] | None = None) -> dict:
    sys.path.insert(0, str(REPO_ROOT))
    from meduris_rl.agents.arena.tournament.schedule import TournamentConfig, check_config, tasks
    from meduris_rl.kit.atomic import atomic_write

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=2000)
    ap.add_argument("--agents", default="random,random")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    if args.games < 2 or args.workers < 1 or args.rounds < 1:
        ap.error("--games at least 2, --workers and --rounds at least 1")
    cfg = TournamentConfig(agents=args.agents.split(","), games=args.games,
                           workers=args.workers, seed=1)
    labels, lineups, games = check_config(cfg)
    todo = tasks(cfg, lineups, games)
    best = {"supervised": (0.0, 0.0), "pool": (0.0, 0.0)}
    for _ in range(args.rounds):
        for name, run in (("supervised", timed_supervised), ("pool", timed_pool)):
            start, rate = run(cfg, labels, todo)
            if rate > best[name][1]:
                best[name] = (start, rate)
    out = {"supervised_games_per_s": round(best["supervised"][1], 1),
           "pool_games_per_s": round(best["pool"][1], 1),
           "supervised_vs_pool": round(best["supervised"][1] / best["pool"][1], 3),
           "start_s": round(best["supervised"][0], 2), "pool_start_s": round(best["pool"][0], 2),
           "games": games, "workers": args.workers, "agents": args.agents}
    (REPO_ROOT / "results").mkdir(exist_ok=True)
    atomic_write(REPO_ROOT / "results" / "benchmark_workers.json", json.dumps(out, indent=2))
    print(json.dumps(out) if args.json else "\n".join(f"{k}: {v}" for k, v in out.items()))
    return out


if __name__ == "__main__":
    main()

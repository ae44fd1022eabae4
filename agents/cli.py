"""The ``meduris`` command: ``meduris tournament ...`` and ``meduris train ...``.

Errors the user can fix (unknown agent, impossible player count, unwritable folder) print one
line, ``meduris: error: ...``, and exit with status 2.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

DEFAULT_AGENTS = "random,greedy,mcts:100,ppo"


def _tournament_parser(sub) -> None:
    p = sub.add_parser("tournament", help="play agents against each other and print a leaderboard",
                       description="Play every lineup (ordered choice of agents for the seats) "
                       "equally often; write games.csv and summary.json to --out.")
    p.add_argument("--agents", default=DEFAULT_AGENTS,
                   help=f"comma-separated agent names (default {DEFAULT_AGENTS}); repeat a name "
                   "to seat it twice; known: random, greedy, mcts[:iterations|:seconds s], "
                   "ppo[:model.zip]")
    p.add_argument("--players", type=int, default=2, help="2, 3 or 4 (default 2)")
    p.add_argument("--games", type=int, default=180,
                   help="games to play, rounded up to a multiple of the lineups (default 180)")
    p.add_argument("--seed", type=int, default=0, help="tournament seed (default 0)")
    p.add_argument("--workers", type=int, default=min(2, os.cpu_count() or 1),
                   help="parallel processes (default: 2 or the CPUs there are)")
    p.add_argument("--exchange", choices=("auto", "manual"), default="auto")
    p.add_argument("--out", default="results", help="output folder (default results/)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")


def _run_tournament(args) -> int:
    from .tournament import (
        TournamentConfig,
        check_config,
        check_writable,
        leaderboard,
        run_tournament,
        write_results,
    )

    cfg = TournamentConfig(agents=args.agents.split(","), players=args.players, games=args.games,
                           seed=args.seed, workers=args.workers, exchange=args.exchange)
    _, lineups, games = check_config(cfg)
    out = Path(args.out)
    check_writable(out)
    if games != cfg.games:
        print(f"note: {cfg.games} games rounded up to {games} so each of the {len(lineups)} "
              "lineups plays equally often", file=sys.stderr)
    t0 = time.perf_counter()
    results, summary = run_tournament(cfg, progress=not args.no_progress)
    summary["wall_seconds"] = time.perf_counter() - t0
    write_results(out, results, summary)
    print(leaderboard(summary))
    print(f"wall time {summary['wall_seconds']:.1f} s with {cfg.workers} worker(s); "
          f"results in {out / 'games.csv'} and {out / 'summary.json'}")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="meduris", description="Meduris RL tools")
    sub = parser.add_subparsers(dest="command", required=True)
    _tournament_parser(sub)
    from train.cli import add_parser as add_train_parser
    add_train_parser(sub)
    args = parser.parse_args(argv)
    if args.command == "train":
        from train.cli import run as run_train
        return run_train(args)
    from .tournament import TournamentError
    try:
        if args.command == "tournament":
            return _run_tournament(args)
    except TournamentError as err:
        print(f"meduris: error: {err}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("meduris: interrupted; nothing was written", file=sys.stderr)
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""``meduris tournament``: play agents against each other
(:mod:`meduris_rl.agents.arena.tournament`), print the leaderboard and write games.csv, summary.json
and the asked-for game records to ``--out``.

Everything is checked before the first game, each error one line naming the flag to change:
the configuration (worded with the flags' names, :data:`FLAGS`), Ray and its cluster with
``--backend ray``, and the output folder.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

from meduris_rl.agents.arena.tournament import (
    TournamentConfig,
    TournamentError,
    check_config,
    check_ray,
    leaderboard,
    run_tournament,
    write_results,
)
from meduris_rl.cli.checks import MAX_GAMES, SEED, add_time_flags, int_in, output_folder
from meduris_rl.cli.commands.games import add_game_flags, game_settings
from meduris_rl.kit.atomic import unwritable_reason

DEFAULT_AGENTS = "random,greedy,mcts:100,ppo"
RESULT_FILES = ("games.csv", "summary.json", "records", "logs")  # what a tournament writes
# the flag of each TournamentConfig setting, for check_config's errors
FLAGS = {name: "--" + name.replace("_", "-") for name in
         ("agents", "players", "games", "workers", "backend", "address", "save_records",
          "move_time", "game_time")}


def add_parser(sub) -> None:
    p = sub.add_parser("tournament", help="play agents against each other and print a leaderboard",
                       description="Play every lineup (ordered choice of agents for the seats) "
                       "equally often; write games.csv and summary.json to --out.")
    p.add_argument("--agents", default=None,
                   help="comma-separated agent names (default: the game's own list, Meduris's "
                   f"{DEFAULT_AGENTS}); repeat a name "
                   "to seat it twice; known: random, greedy, mcts[:iterations|:<seconds>s], "
                   "ppo[:policy.pt], az[:iterations[:policy.pt]], openspiel-mcts[:simulations], "
                   "rllib:<checkpoint>; your own: path/bots.py:Class, my_pkg.bots:Class, an "
                   "installed plug-in's name, or cmd:<program> (docs/bring_your_own_agent.md; "
                   "meduris agents lists them)")
    p.add_argument("--players", type=int, default=2, help="2, 3 or 4 (default 2)")
    add_game_flags(p)
    p.add_argument("--games", type=int_in(1, MAX_GAMES), default=180,
                   help="games to play, rounded up to a multiple of the lineups (default 180)")
    p.add_argument("--seed", type=SEED, default=0, help="tournament seed (default 0)")
    p.add_argument("--workers", type=int_in(1), default=min(2, os.cpu_count() or 1),
                   help="parallel processes (default: 2 or the CPUs there are; at most one per "
                   "game and per CPU with the process backend)")
    p.add_argument("--backend", choices=("process", "ray"), default="process",
                   help="play the games in processes on this machine (default) or as Ray tasks")
    p.add_argument("--address", default=None, metavar="HOST:PORT",
                   help="with --backend ray: the Ray cluster's head (default: a local Ray)")
    p.add_argument("--out", default="results", help="output folder (default results/)")
    p.add_argument("--force", action="store_true",
                   help="replace the results of an earlier run in --out")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.add_argument("--save-records", default="", metavar="GAMES",
                   help="save game records of these games to OUT/records/: 'all' or numbers and "
                   "ranges such as 0,5,10-19 (default: none)")
    add_time_flags(p)
    p.set_defaults(func=run)


def check_writable(out: Path) -> None:
    """Create ``out`` and prove we can write there, before any game is played."""
    reason = unwritable_reason(out)
    if reason:
        raise TournamentError(f"cannot write results to {str(out)!r} ({reason}); choose "
                              "another folder with --out")


def checked_config(args) -> tuple[TournamentConfig, int, int]:
    """The tournament of the flags, checked: (config, lineups, games after rounding up)."""
    row, options = game_settings(args, TournamentError)
    agents = args.agents if args.agents is not None else ",".join(row.default_agents)
    cfg = TournamentConfig(agents=agents.split(","), players=args.players, games=args.games,
                           seed=args.seed, workers=args.workers, save_records=args.save_records,
                           backend=args.backend, address=args.address, move_time=args.move_time,
                           game_time=args.game_time, game=row.name, options=options)
    _, lineups, games = check_config(cfg, FLAGS)
    if cfg.backend == "ray":
        check_ray(cfg.address)  # before any work: Ray installed, the cluster reachable
    else:
        useful = min(cfg.workers, games, os.cpu_count() or 1)
        if useful < cfg.workers:
            print(f"note: --workers {cfg.workers} capped to {useful} (one per game and per CPU "
                  "at most)", file=sys.stderr)
            cfg.workers = useful
    return cfg, len(lineups), games


def run(args) -> int:
    cfg, lineups, games = checked_config(args)
    out = output_folder(args.out, "--out", args.force, RESULT_FILES)
    check_writable(out)
    cfg.log_dir = str((out / "logs").resolve())  # the cmd: agents' stderr, if any
    remove_logs(out / "logs")
    if games != cfg.games:
        print(f"note: {cfg.games} games rounded up to {games} so each of the {lineups} "
              "lineups plays equally often", file=sys.stderr)
    t0 = time.perf_counter()
    results, summary = run_tournament(cfg, progress=not args.no_progress)
    summary["wall_seconds"] = time.perf_counter() - t0
    records = write_results(out, results, summary)
    print(leaderboard(summary))
    print(f"wall time {summary['wall_seconds']:.1f} s with {cfg.workers} worker(s); "
          f"results in {out / 'games.csv'} and {out / 'summary.json'}")
    if records:
        print(f"{len(records)} game record(s) in {out / 'records'}; watch one with: "
              f"meduris replay {records[0]}")
    forfeits = sum(a["forfeits"] for a in summary["agents"].values())
    if (out / "logs").is_dir():
        print(f"{forfeits} forfeit(s) (reasons in games.csv); the cmd: agents' stderr is in "
              f"{out / 'logs'}")
    return 0


def remove_logs(logs: Path) -> None:
    """An earlier run's bot logs go (the folder holds one run's, like records/)."""
    if logs.is_dir():
        for old in logs.glob("*.log"):
            old.unlink()
        if not any(logs.iterdir()):
            logs.rmdir()

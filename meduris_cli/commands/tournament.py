"""``meduris tournament``: play agents against each other
(:mod:`meduris_rl.agents.arena.tournament`), print the leaderboard and write games.csv, summary.json
and the asked-for game records to ``--out``.

Everything is checked before the first game, each error one line naming the flag to change:
the configuration (worded with the flags' names, :data:`FLAGS`), Ray and its cluster with
``--backend ray``, and the output folder.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading
import time
from pathlib import Path

from meduris_rl.agents.arena.tournament import (
    TournamentConfig,
    TournamentError,
    TournamentInterrupted,
    check_config,
    check_ray,
    leaderboard,
    run_tournament,
    write_results,
)
from meduris_rl.agents.arena.tournament.journal import JOURNAL, Journal
from meduris_rl.cli.checks import (
    MAX_GAMES,
    SEED,
    UsageError,
    add_time_flags,
    int_in,
    output_folder,
)
from meduris_rl.cli.commands.games import add_game_flags, game_settings
from meduris_rl.kit.atomic import unwritable_reason

DEFAULT_AGENTS = "random,greedy,mcts:100,ppo"
# what a tournament writes (its journal while it runs)
RESULT_FILES = ("games.csv", "summary.json", "records", "logs", JOURNAL)
# the flag of each TournamentConfig setting, for check_config's errors
FLAGS = {name: "--" + name.replace("_", "-") for name in
         ("agents", "players", "games", "workers", "backend", "address", "save_records",
          "move_time", "game_time")}


# the settings of a run that --resume takes from the run's journal, not from flags
RUN_SETTINGS = ("agents", "players", "game", "option", "games", "seed", "backend", "address",
                "save_records", "move_time", "game_time")


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
    p.add_argument("--seed", type=SEED, default=None,
                   help="tournament seed (default: drawn from the operating system and "
                        "recorded; a seed a bot can guess lets it compute the dice)")
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
    p.add_argument("--resume", action="store_true",
                   help="finish the interrupted run in --out (Ctrl-C, SIGTERM or a crash): its "
                   "own settings, nothing played twice")
    add_time_flags(p)
    p.set_defaults(func=run, defaults={name: p.get_default(name) for name in RUN_SETTINGS})


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
    if args.resume:
        return resume(args)
    cfg, lineups, games = checked_config(args)
    journal = Journal(Path(args.out))
    if journal.exists() and not args.force:
        raise UsageError(f"{args.out} holds an interrupted tournament: finish it with "
                         "--resume, or start it again with --force")
    out = output_folder(args.out, "--out", args.force, RESULT_FILES)
    check_writable(out)
    cfg.log_dir = str((out / "logs").resolve())  # the cmd: agents' stderr, if any
    remove_logs(out / "logs")
    if games != cfg.games:
        print(f"note: {cfg.games} games rounded up to {games} so each of the {lineups} "
              "lineups plays equally often", file=sys.stderr)
    return play(args, cfg, out, journal.start(cfg), {})


def resume(args) -> int:
    """Finish the interrupted run in ``--out`` with the settings of its journal."""
    given = [name for name, default in args.defaults.items()
             if getattr(args, name, default) != default]
    if given:
        raise UsageError(f"--resume plays the run with its own settings: leave out --"
                         f"{given[0].replace('_', '-')}")
    journal = Journal(Path(args.out))
    if not journal.exists():
        raise UsageError(f"{args.out} holds no interrupted tournament to resume (no "
                         f"{JOURNAL}); start one without --resume")
    cfg, done = journal.read()
    cfg.workers = args.workers
    cfg.log_dir = str((Path(args.out) / "logs").resolve())
    check_config(cfg, FLAGS)
    print(f"resuming {args.out}: {len(done)} of {cfg.games} games were played, seed "
          f"{cfg.seed}", file=sys.stderr)
    return play(args, cfg, Path(args.out), journal.reopen(), done)


def play(args, cfg: TournamentConfig, out: Path, journal: Journal, done: dict) -> int:
    """Play the games not in ``done``, each written to ``journal`` as it ends; write the
    results (interrupted: those of the finished games, and say how to finish)."""
    t0 = time.perf_counter()
    try:
        with sigterm_as_interrupt():
            results, summary = run_tournament(cfg, progress=not args.no_progress, done=done,
                                              on_result=journal.add)
    except TournamentInterrupted as stop:
        if not stop.results and not done:  # (no game to keep: earlier results stay whole)
            journal.remove()
            raise KeyboardInterrupt from None  # ("interrupted; nothing was written")
        journal.close()
        numbers = sorted(stop.results)
        write_results(out, [stop.results[i] for i in numbers], stop.summary, numbers)
        print(f"meduris: interrupted {stop.summary['interrupted']}: they are in "
              f"{out / 'games.csv'}; finish the run with: meduris tournament --resume --out "
              f"{out}", file=sys.stderr)
        return 130
    summary["wall_seconds"] = time.perf_counter() - t0
    records = write_results(out, results, summary)
    journal.remove()
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


@contextlib.contextmanager
def sigterm_as_interrupt():
    """SIGTERM (a service manager, ``kill``) stops the run as Ctrl-C does: the finished games
    are written. (Main thread only: elsewhere SIGTERM keeps its handler.)"""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def interrupt(signum, frame):
        raise KeyboardInterrupt
    before = signal.signal(signal.SIGTERM, interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, before)


def remove_logs(logs: Path) -> None:
    """An earlier run's bot logs go (the folder holds one run's, like records/)."""
    if logs.is_dir():
        for old in logs.glob("*.log"):
            old.unlink()
        if not any(logs.iterdir()):
            logs.rmdir()

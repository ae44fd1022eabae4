"""The ``meduris`` command: ``tournament``, ``play``, ``replay``, ``train`` and ``serve``.

Errors the user can fix (unknown agent, impossible player count, unwritable folder) print one
line, ``meduris: error: ...``, and exit with status 2.
"""

from __future__ import annotations

import functools
import os
import sys
import time
from pathlib import Path

from .checks import (
    MAX_GAMES,
    SEED,
    ArgumentParser,
    HelpFormatter,
    UsageError,
    int_in,
    output_file,
    output_folder,
)
from .train import add_parser as add_train_parser
from .train import run as run_train

DEFAULT_AGENTS = "random,greedy,mcts:100,ppo"
RESULT_FILES = ("games.csv", "summary.json", "records")  # what a tournament writes to --out


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version
    try:
        return version("meduris-rl")
    except PackageNotFoundError:  # pragma: no cover - running from a source tree
        return "unknown (not installed)"


def _tournament_parser(sub) -> None:
    p = sub.add_parser("tournament", help="play agents against each other and print a leaderboard",
                       description="Play every lineup (ordered choice of agents for the seats) "
                       "equally often; write games.csv and summary.json to --out.")
    p.add_argument("--agents", default=DEFAULT_AGENTS,
                   help=f"comma-separated agent names (default {DEFAULT_AGENTS}); repeat a name "
                   "to seat it twice; known: random, greedy, mcts[:iterations|:<seconds>s], "
                   "ppo[:policy.pt], az[:iterations[:policy.pt]], openspiel-mcts[:simulations], "
                   "rllib:<checkpoint>")
    p.add_argument("--players", type=int, default=2, help="2, 3 or 4 (default 2)")
    p.add_argument("--games", type=int_in(1, MAX_GAMES), default=180,
                   help="games to play, rounded up to a multiple of the lineups (default 180)")
    p.add_argument("--seed", type=SEED, default=0, help="tournament seed (default 0)")
    p.add_argument("--workers", type=int_in(1), default=min(2, os.cpu_count() or 1),
                   help="parallel processes (default: 2 or the CPUs there are; at most one per "
                   "game and per CPU with the process backend)")
    p.add_argument("--exchange", choices=("auto", "manual"), default="auto",
                   help="exchanges made by the engine when needed, or chosen by the agents (R15)")
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


def _play_parser(sub) -> None:
    p = sub.add_parser("play", help="play against agents in the terminal",
                       description="Play Meduris against agents: the board is shown each turn "
                       "and your legal actions are numbered. The game record is saved at the end.")
    p.add_argument("--players", type=int, default=2, help="2, 3 or 4 (default 2)")
    p.add_argument("--opponents", default="mcts:200",
                   help="agent name for every opponent, or one per opponent separated by commas "
                   "(default mcts:200)")
    p.add_argument("--seat", type=int, default=0, help="your seat, 0 starts (default 0)")
    p.add_argument("--seed", type=SEED, default=None, help="seed of the dice (default: random)")
    p.add_argument("--exchange", choices=("auto", "manual"), default="auto",
                   help="exchanges made by the engine when needed, or chosen by you (R15)")
    p.add_argument("--record", default=None,
                   help="where to save the game record (default records/play-<seed>.json)")
    p.add_argument("--force", action="store_true", help="replace an existing --record file")
    p.add_argument("--open-screens", action="store_true",
                   help="show the opponents' materials (by the rules they are behind screens: "
                   "you see their totals)")


def _run_play(args) -> int:
    import random

    from agents.play import play
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(2**31)
    record = args.record or f"records/play-{seed}.json"
    return play(args.players, args.opponents, args.seat, seed, record, sys.stdin, sys.stdout,
                exchange=args.exchange, open_screens=args.open_screens, force=args.force)


def _replay_parser(sub) -> None:
    p = sub.add_parser("replay", help="step through a game record, or write it as an HTML page",
                       description="Replay a game record exactly (the result is checked against "
                       "the record). In a terminal it waits for a key after each step; piped, "
                       "or with --all, it prints every step.")
    p.add_argument("record", help="a game record (.json) from play or tournament --save-records")
    p.add_argument("--html", metavar="OUT", help="write a self-contained HTML page (the board of "
                   "every step drawn in the browser, a slider), instead of stepping in the "
                   "terminal")
    p.add_argument("--force", action="store_true", help="replace an existing --html file")
    p.add_argument("--all", action="store_true", help="print every step without waiting")


def _run_replay(args) -> int:
    from meduris_env.records.record import GameRecord
    from meduris_env.records.replay import summary, terminal_replay, write_html
    out = None
    if args.html:  # before the work: the page may be written there
        if not Path(args.html).parent.is_dir():
            raise UsageError(f"cannot write {args.html!r}: folder "
                             f"{str(Path(args.html).parent)!r} does not exist")
        out = output_file(args.html, "--html", args.force, inputs=(Path(args.record),))
    record = GameRecord.load(args.record)
    if out is not None:
        write_html(record, out)
        print(f"{summary(record)} (replayed exactly)\nwrote {out} "
              f"({len(record.actions) + 1} steps, {out.stat().st_size / 1e3:.0f} kB)")
        return 0
    interactive = not args.all and sys.stdin.isatty()
    terminal_replay(record, sys.stdout, sys.stdin if interactive else None)
    return 0


def _serve_parser(sub) -> None:
    p = sub.add_parser("serve", help="play against agents in the browser (a small web app)",
                       description="Serve a web page to play Meduris against the built-in agents "
                       "and shipped models. Games are stored in an SQLite file: a restarted "
                       "server resumes them exactly. Binds to localhost unless --host says "
                       "otherwise; there is no login.")
    p.add_argument("--host", default="127.0.0.1",
                   help="address to listen on (default 127.0.0.1: this machine only)")
    p.add_argument("--port", type=int_in(1, 65535), default=8000, help="port (default 8000)")
    p.add_argument("--db", default="games.sqlite",
                   help="SQLite file holding the games (default games.sqlite; created if missing)")


class ServeError(ValueError):
    """``meduris serve`` cannot start as asked (the message names the fix)."""


def _run_serve(args) -> int:
    import socket
    import sqlite3

    from meduris_env.records.atomic import unwritable_reason
    if not 1 <= args.port <= 65535:
        raise ServeError(f"--port {args.port}: a port is 1..65535")
    db = Path(args.db)
    if db.is_dir():
        raise ServeError(f"--db {str(db)!r} is a folder; give a file name such as games.sqlite")
    reason = unwritable_reason(db.parent)
    if reason:
        raise ServeError(f"cannot write the games database in {str(db.parent)!r} ({reason}); "
                         "choose another file with --db")
    try:
        import uvicorn

        from .web.app import create_app
    except ImportError as err:
        raise ServeError(f"meduris serve needs fastapi and uvicorn ({err}); install them with "
                         "pip install fastapi uvicorn") from None
    try:
        info = socket.getaddrinfo(args.host, args.port, type=socket.SOCK_STREAM)[0]
        with socket.socket(info[0], socket.SOCK_STREAM) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            probe.bind(info[4])
    except OSError as err:
        raise ServeError(f"cannot listen on {args.host}:{args.port} "
                         f"({err.strerror or err}); choose another --port or --host") from None
    try:
        app = create_app(db)
    except sqlite3.DatabaseError as err:
        raise ServeError(f"--db {str(db)!r} is not a games database ({err}); choose another "
                         "file") from None
    if args.host not in ("127.0.0.1", "localhost", "::1"):
        print(f"warning: --host {args.host} lets other machines reach the server; there is no "
              "login", file=sys.stderr)
    host = f"[{args.host}]" if ":" in args.host else args.host
    print(f"Meduris: open http://{host}:{args.port}/ in a browser (games in {db}); "
          "Ctrl-C stops the server", flush=True)
    uvicorn.run(app, host=args.host, port=args.port, log_level="warning")
    return 0


def _run_tournament(args) -> int:
    from agents.tournament import (
        TournamentConfig,
        check_config,
        check_ray,
        check_writable,
        leaderboard,
        run_tournament,
        write_results,
    )

    cfg = TournamentConfig(agents=args.agents.split(","), players=args.players, games=args.games,
                           seed=args.seed, workers=args.workers, exchange=args.exchange,
                           save_records=args.save_records, backend=args.backend,
                           address=args.address)
    _, lineups, games = check_config(cfg)
    if cfg.backend == "ray":
        check_ray(cfg.address)  # before any work: Ray installed, the cluster reachable
    else:
        useful = min(cfg.workers, games, os.cpu_count() or 1)
        if useful < cfg.workers:
            print(f"note: --workers {cfg.workers} capped to {useful} (one per game and per CPU "
                  "at most)", file=sys.stderr)
            cfg.workers = useful
    out = output_folder(args.out, "--out", args.force, RESULT_FILES)
    check_writable(out)
    if games != cfg.games:
        print(f"note: {cfg.games} games rounded up to {games} so each of the {len(lineups)} "
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
    return 0


def build_parser() -> ArgumentParser:
    """The ``meduris`` parser with every subcommand (tests read its flags from here)."""
    parser = ArgumentParser(prog="meduris", description="Meduris RL tools",
                            formatter_class=HelpFormatter)
    parser.add_argument("--version", action="version", version=f"meduris {_version()}")
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser = functools.partial(sub.add_parser, formatter_class=HelpFormatter)
    _tournament_parser(sub)
    _play_parser(sub)
    _replay_parser(sub)
    add_train_parser(sub)
    _serve_parser(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.command == "train":
        return run_train(args)
    from agents.play import PlayError
    from agents.tournament import TournamentError
    from meduris_env.records.record import RecordError
    try:
        if args.command == "tournament":
            return _run_tournament(args)
        if args.command == "play":
            return _run_play(args)
        if args.command == "replay":
            return _run_replay(args)
        if args.command == "serve":
            return _run_serve(args)
    except (TournamentError, PlayError, RecordError, ServeError, UsageError, OSError) as err:
        print(f"meduris: error: {err}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("meduris: interrupted; nothing was written", file=sys.stderr)
        return 130
    return 0

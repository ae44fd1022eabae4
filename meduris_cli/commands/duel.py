"""``meduris duel A B``: is A stronger than B? Pairs of games with the same seed and the seats
swapped, a GSPRT after each pair (:mod:`meduris_rl.agents.arena.duel`,
:mod:`meduris_rl.agents.arena.sprt`), stopping when H0 (``--elo0``) or H1 (``--elo1``) is accepted
or at ``--max-games``.

Prints the result, the LLR against its bounds (also in the progress bar), the Elo difference
with its 95% interval and the games and pairs played; ``--json`` prints one JSON object instead
(:meth:`meduris_rl.agents.arena.duel.DuelResult.to_dict`). Exit status 0 once the duel ends
(whatever it accepted), 130 after Ctrl-C (what was played is still printed). Everything is checked
before the first game, each error one line naming the flag.
"""

from __future__ import annotations

import json
import os
import sys

from meduris_rl.agents.arena.duel import DuelConfig, DuelError, check_duel, run_duel
from meduris_rl.cli.checks import MAX_GAMES, SEED, add_time_flags, int_in
from meduris_rl.cli.commands.games import add_game_flags, game_settings

# the flag of each DuelConfig setting, for check_duel's errors
FLAGS = {name: "--" + name.replace("_", "-") for name in
         ("elo0", "elo1", "alpha", "beta", "max_games", "workers", "move_time", "game_time")}


def add_parser(sub) -> None:
    p = sub.add_parser("duel", help="play pairs of games until a sequential test (SPRT) says "
                       "whether A is stronger than B",
                       description="Play A against B in pairs of games with the same seed and "
                       "the seats swapped (duplicate play) and run fishtest's GSPRT on the pair "
                       "scores: stop when H0 (A is --elo0 Elo stronger) or H1 (--elo1) is "
                       "accepted, or at --max-games.")
    p.add_argument("a", metavar="A", help="the agent under test (any name of meduris agents)")
    p.add_argument("b", metavar="B", help="its opponent")
    p.add_argument("--elo0", type=float, default=0.0, help="Elo difference of H0")
    p.add_argument("--elo1", type=float, default=20.0, help="Elo difference of H1")
    p.add_argument("--alpha", type=float, default=0.05,
                   help="chance to accept H1 when H0 holds, in (0, 0.5)")
    p.add_argument("--beta", type=float, default=0.05,
                   help="chance to accept H0 when H1 holds, in (0, 0.5)")
    p.add_argument("--max-games", type=int_in(2, MAX_GAMES), default=10_000,
                   help="stop undecided after this many games (whole pairs)")
    p.add_argument("--workers", type=int_in(1), default=min(2, os.cpu_count() or 1),
                   help="parallel processes (default: 2 or the CPUs there are)")
    p.add_argument("--seed", type=SEED, default=None,
                   help="duel seed (default: drawn from the operating system and recorded)")
    p.add_argument("--players", type=int, default=2,
                   help="a duel is between 2 players (other counts are refused)")
    add_game_flags(p)
    add_time_flags(p)
    p.add_argument("--json", action="store_true", help="print one JSON object (for scripts)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.set_defaults(func=run)


def run(args) -> int:
    if args.players != 2:
        raise DuelError(f"--players {args.players}: a duel is between 2 players; for 3 or 4 "
                        "use meduris tournament --players")
    row, options = game_settings(args, DuelError)
    cfg = DuelConfig(a=args.a, b=args.b, elo0=args.elo0, elo1=args.elo1, alpha=args.alpha,
                     beta=args.beta, max_games=args.max_games, workers=args.workers,
                     seed=args.seed, move_time=args.move_time, game_time=args.game_time,
                     game=row.name, options=options)
    check_duel(cfg, FLAGS)
    useful = min(cfg.workers, os.cpu_count() or 1)
    if useful < cfg.workers:
        print(f"note: --workers {cfg.workers} capped to {useful} (one per CPU at most)",
              file=sys.stderr)
        cfg.workers = useful
    out = run_duel(cfg, progress=not args.no_progress)
    if args.json:
        print(json.dumps(out.to_dict(), indent=2))
    else:
        print(out.summary())
    if out.result == "interrupted":
        print("meduris: interrupted; the games played so far are above", file=sys.stderr)
        return 130
    return 0

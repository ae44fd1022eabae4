"""``meduris play``: a person plays against agents in the terminal (the game itself is
:func:`meduris_rl.agents.arena.play.play_human`); this module is its flags and their checks, made
before the game starts, each error one line naming the flag to change (:class:`PlayError`).

``--game druids`` plays Druids (docs/druids.md): the person sees only what their seat knows
(D14). Its opponents are Druids agents (``meduris agents --game druids``; default
``ismcts:200``); Meduris's own flags (``--exchange``, ``--open-screens``, ``--level``, whose
ladder is Meduris's) are refused with it."""

from __future__ import annotations

import random
import sys
from pathlib import Path
from typing import TextIO

from meduris_env.engine.errors import MedurisError
from meduris_env.envs.opponents import opponent_count
from meduris_env.records.atomic import unwritable_reason
from meduris_rl.agents import UnknownAgentError, make_agent
from meduris_rl.agents.arena.play import play_human
from meduris_rl.agents.base import check_names
from meduris_rl.agents.games import GAME_NAMES, game_spec
from meduris_rl.agents.levels import describe, level
from meduris_rl.agents.plugins.external import DEFAULT_MOVE_TIME, set_limits
from meduris_rl.cli.checks import SEED, add_time_flags


class PlayError(MedurisError, ValueError):
    """A game that cannot be set up as asked (the message names the fix)."""


DEFAULT_OPPONENTS = {"meduris": "mcts:200", "druids": "ismcts:200"}


def add_parser(sub) -> None:
    p = sub.add_parser("play", help="play against agents in the terminal",
                       description="Play Meduris (or Druids, --game druids) against agents: "
                       "the board is shown each turn and your legal actions are numbered. The "
                       "game record is saved at the end.")
    p.add_argument("--game", choices=GAME_NAMES, default="meduris",
                   help="the game to play (default meduris; druids: docs/druids.md, you see "
                   "only your own cards)")
    p.add_argument("--players", type=int, default=2, help="2, 3 or 4 (default 2)")
    p.add_argument("--opponents", default=None,
                   help="agent name for every opponent, or one per opponent separated by commas "
                   f"(default {DEFAULT_OPPONENTS['meduris']}; with --game druids "
                   f"{DEFAULT_OPPONENTS['druids']}: meduris agents --game druids lists them)")
    p.add_argument("--level", type=int, default=None,
                   help="every opponent at a difficulty level: 1 beginner .. 5 expert, each an "
                   "agent with its rating on the ladder (meduris agents lists them); instead "
                   "of --opponents")
    p.add_argument("--seat", type=int, default=0, help="your seat, 0 starts (default 0)")
    p.add_argument("--seed", type=SEED, default=None, help="seed of the dice (default: random)")
    p.add_argument("--exchange", choices=("auto", "manual"), default=None,
                   help="Meduris: exchanges made by the engine when needed (auto, the "
                   "default), or chosen by you (R15)")
    p.add_argument("--record", default=None,
                   help="where to save the game record (default records/play-<seed>.json)")
    p.add_argument("--force", action="store_true", help="replace an existing --record file")
    p.add_argument("--open-screens", action="store_true",
                   help="Meduris: show the opponents' materials (by the rules they are behind "
                   "screens: you see their totals)")
    add_time_flags(p)
    p.set_defaults(func=run)


def run(args) -> int:
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(2**31)
    record = args.record or f"records/play-{seed}.json"
    opponents = args.opponents or DEFAULT_OPPONENTS[args.game]
    if args.level is not None:
        if args.game != "meduris":
            raise PlayError(f"--level picks Meduris opponents from its ladder; with --game "
                            f"{args.game} name them with --opponents (meduris agents --game "
                            f"{args.game} lists them)")
        if args.opponents is not None:
            raise PlayError("give --level or --opponents, not both")
        chosen = level(args.level)
        opponents = chosen.agent_for(args.players)
        print(f"opponents: {describe(chosen, args.players)}", flush=True)
    return play(args.players, opponents, args.seat, seed, record, sys.stdin, sys.stdout,
                exchange=args.exchange, open_screens=args.open_screens, force=args.force,
                move_time=args.move_time, game_time=args.game_time, game=args.game)


def opponent_specs(opponents: str, players: int, game: str = "meduris") -> list[str]:
    """One agent name per opponent seat; a single name fills every opponent seat."""
    spec = game_spec(game)
    spec.check_players(players, "--players", PlayError)
    names = check_names(opponents.split(","), "--opponents", PlayError,
                        DEFAULT_OPPONENTS[game])
    if len(names) == 1:
        names *= players - 1
    if len(names) != players - 1:
        raise PlayError(f"{players} players means {opponent_count(players - 1)}, but "
                        f"--opponents names {len(names)}: give one name for all or one per "
                        "opponent")
    return names


def check_record_path(path: Path, force: bool) -> None:
    """A record file that may be written (before the game, not after an hour of play)."""
    if path.is_dir():
        raise PlayError(f"--record {str(path)!r} is a folder; give a file name")
    if path.exists() and not force:
        raise PlayError(f"--record {str(path)!r} exists; add --force to replace it, or choose "
                        "another file")
    reason = unwritable_reason(path.parent)
    if reason:
        raise PlayError(f"cannot write the game record to {str(path)!r} ({reason}); choose "
                        "another path with --record")


def play(players: int, opponents: str, seat: int, seed: int | None, record_path: str | Path,
         inp: TextIO, out: TextIO, exchange: str | None = None, open_screens: bool = False,
         force: bool = False, move_time: float = DEFAULT_MOVE_TIME,
         game_time: float | None = None, game: str = "meduris") -> int:
    """Check the flags' values, then play one game of ``game`` with the person at ``seat``
    (:func:`meduris_rl.agents.arena.play.play_human`); return its exit status. ``move_time`` and
    ``game_time`` limit ``cmd:`` opponents (their stderr goes to ``<temp dir>/meduris-bots``).
    ``exchange`` (None: "auto") and ``open_screens`` are Meduris's options, refused with Druids."""
    check_game_options(game, exchange, open_screens)
    names = opponent_specs(opponents, players, game)
    if not 0 <= seat < players:
        raise PlayError(f"--seat {seat}: seats are 0..{players - 1} (seat 0 starts, "
                        f"{'R6' if game == 'meduris' else 'D3'})")
    try:
        bots = [make_agent(n, game) for n in names]
        for bot in bots:  # a policy file trained for another player count: refused now
            if hasattr(bot, "check_players"):
                bot.check_players(players)
    except UnknownAgentError as err:
        raise PlayError(str(err) if game == "meduris" else f"--opponents: {err}") from None
    set_limits(bots, move_time, game_time)
    record_path = Path(record_path)
    check_record_path(record_path, force)
    if seed is None:
        seed = random.SystemRandom().randrange(2**31)
    return play_human(players, bots, seat, seed, record_path, inp, out,
                      exchange=exchange or "auto", open_screens=open_screens, game=game)


def check_game_options(game: str, exchange: str | None, open_screens: bool) -> None:
    """The game is one of :data:`meduris_rl.agents.games.GAMES` and only its own options are
    given."""
    if game not in GAME_NAMES:
        raise PlayError(f"--game {game!r}: the games are {', '.join(GAME_NAMES)}")
    if game == "meduris":
        return
    if exchange is not None:
        raise PlayError(f"--exchange is a Meduris option (R15); {game.capitalize()} has no "
                        "exchanges: leave it out")
    if open_screens:
        raise PlayError(f"--open-screens is a Meduris option; in {game.capitalize()} you see "
                        "only your own cards (D14): leave it out")

"""``meduris play``: a person plays against agents in the terminal (the game itself is
:func:`meduris_rl.agents.arena.play.play_human`); this module is its flags and their checks, made
before the game starts, each error one line naming the flag to change (:class:`PlayError`).

Any game of the table of games: ``--game druids`` plays Druids (docs/druids.md), where the
person sees only what their seat knows (D14). The opponents default to the game's own
(its row's ``default_opponent``); ``--option NAME=VALUE`` sets the game's options and the
person's seat's (Meduris: ``exchange=manual``, ``open_screens=true``); ``--level`` picks the
opponents from the game's levels (its row's; Meduris has them)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TextIO

from meduris_rl.agents import UnknownAgentError, make_agent
from meduris_rl.agents.arena.play import play_human
from meduris_rl.agents.base import check_names
from meduris_rl.agents.levels import LevelError, describe, level
from meduris_rl.agents.plugins.external import DEFAULT_MOVE_TIME, set_limits
from meduris_rl.cli.checks import SEED, add_time_flags
from meduris_rl.cli.commands.games import add_game_flags, game_settings
from meduris_rl.kit.atomic import unwritable_reason
from meduris_rl.kit.envs.opponents import opponent_count
from meduris_rl.kit.errors import InputError
from meduris_rl.kit.games import game_spec
from meduris_rl.kit.seeding import fresh_seed


class PlayError(InputError, ValueError):
    """A game that cannot be set up as asked (the message names the fix)."""


def add_parser(sub) -> None:
    p = sub.add_parser("play", help="play against agents in the terminal",
                       description="Play a game (Meduris by default; Druids with --game "
                       "druids) against agents: the position is shown each turn and your legal "
                       "actions are numbered. The game record is saved at the end.")
    add_game_flags(p)
    p.add_argument("--players", type=int, default=2, help="2, 3 or 4 (default 2)")
    p.add_argument("--opponents", default=None,
                   help="agent name for every opponent, or one per opponent separated by commas "
                   "(default: the game's own, Meduris's mcts:200, Druids' ismcts:200; meduris "
                   "agents --game GAME lists them)")
    p.add_argument("--level", type=int, default=None,
                   help="every opponent at a difficulty level: 1 beginner .. 5 expert, each an "
                   "agent with its rating on the ladder (meduris agents lists them); instead "
                   "of --opponents")
    p.add_argument("--seat", type=int, default=0, help="your seat, 0 starts (default 0)")
    p.add_argument("--seed", type=SEED, default=None,
                   help="seed of the game: its dice and deals and the opponents' seeds "
                        "(default: a fresh one, 63 random bits)")
    p.add_argument("--record", default=None,
                   help="where to save the game record (default records/play-<seed>.json)")
    p.add_argument("--force", action="store_true", help="replace an existing --record file")
    add_time_flags(p)
    p.set_defaults(func=run)


def run(args) -> int:
    seed = args.seed if args.seed is not None else fresh_seed()
    record = args.record or f"records/play-{seed}.json"
    row, options = game_settings(args, PlayError)
    opponents = args.opponents or row.default_opponent
    row.check_players(args.players, "--players", PlayError)  # before a level is described
    if args.level is not None:
        if args.opponents is not None:
            raise PlayError("give --level or --opponents, not both")
        try:
            chosen = level(args.level, row)
        except LevelError as err:
            raise PlayError(f"--level: {err}") from None
        opponents = chosen.agent_for(args.players)
        print(f"opponents: {describe(chosen, args.players, row)}", flush=True)
    return play(args.players, opponents, args.seat, seed, record, sys.stdin, sys.stdout,
                options=options, force=args.force, move_time=args.move_time,
                game_time=args.game_time, game=row.name)


def opponent_specs(opponents: str, players: int, game: str | None = None) -> list[str]:
    """One agent name per opponent seat; a single name fills every opponent seat."""
    spec = game_spec(game, PlayError)
    spec.check_players(players, "--players", PlayError)
    names = check_names(opponents.split(","), "--opponents", PlayError, spec.default_opponent)
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
         inp: TextIO, out: TextIO, options: dict | None = None, force: bool = False,
         move_time: float = DEFAULT_MOVE_TIME, game_time: float | None = None,
         game: str | None = None) -> int:
    """Check the flags' values, then play one game of ``game`` (None: the default game) with
    the person at ``seat`` (:func:`meduris_rl.agents.arena.play.play_human`); return its exit
    status. ``options`` are the game's and the person's seat's (its row's, by name).
    ``move_time`` and ``game_time`` limit ``cmd:`` opponents (their stderr goes to
    a private ``<temp dir>/meduris-bots-XXXXXXXX`` folder, made for the process)."""
    spec = game_spec(game, PlayError)
    if not spec.has_part("human"):
        raise PlayError(f"{spec.title} has no person's seat (its row names no human part): it "
                        "cannot be played at the terminal")
    options = spec.check_options(options, seat=None, error=PlayError)
    names = opponent_specs(opponents, players, spec.name)
    if not 0 <= seat < players:
        raise PlayError(f"--seat {seat}: seats are 0..{players - 1} (seat 0 starts)")
    try:
        bots = [make_agent(n, spec.name) for n in names]
        for bot in bots:  # a policy file trained for another player count: refused now
            if hasattr(bot, "check_players"):
                bot.check_players(players)
    except UnknownAgentError as err:
        raise PlayError(f"--opponents: {err}") from None
    set_limits(bots, move_time, game_time)
    record_path = Path(record_path)
    check_record_path(record_path, force)
    if seed is None:
        seed = fresh_seed()
    return play_human(players, bots, seat, seed, record_path, inp, out, spec.name, options)

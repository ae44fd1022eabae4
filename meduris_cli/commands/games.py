"""``meduris games``: the table of games (:mod:`meduris_rl.kit.games`): each game's name (what
``--game`` takes), player counts, options with their defaults (what ``--option NAME=VALUE``
takes; the person's seat's options are ``meduris play``'s) and what its scores count.
``--json`` prints the same for scripts. Also the one form every command takes a game and its
options in (:func:`add_game_flags`, :func:`game_settings`)."""

from __future__ import annotations

import json

from meduris_rl.cli.checks import UsageError
from meduris_rl.kit.games import GameSpec, game_spec, games


def add_parser(sub) -> None:
    p = sub.add_parser("games", help="list the games, their player counts and options",
                       description="List every game the commands play (--game NAME), with its "
                       "player counts and its own options (--option NAME=VALUE), each with its "
                       "default; the default game is marked.")
    p.add_argument("--json", action="store_true", help="print the table as JSON")
    p.set_defaults(func=run)


def as_dict(row: GameSpec) -> dict:
    return {"name": row.name, "title": row.title, "summary": row.summary,
            "default": row.default, "players": list(row.player_counts),
            "score_unit": row.score_unit,
            "options": [{"name": o.name, "default": o.default, "help": o.help,
                         "seat": o.seat} for o in row.options]}


def run(args) -> int:
    rows = list(games().values())
    if args.json:
        print(json.dumps({"games": [as_dict(r) for r in rows]}, indent=2))
        return 0
    for r in rows:
        counts = ", ".join(map(str, r.player_counts))
        mark = " (the default)" if r.default else ""
        print(f"{r.name}{mark}: {r.summary}; {counts} players ({r.players_rule}); scores in "
              f"{r.score_unit}")
        for o in r.options:
            whose = "meduris play's seat option" if o.seat else "option"
            print(f"  {whose} {o.name}={o.default}: {o.help}")
    return 0


def add_game_flags(parser, options: bool = True, what: str = "the game to play") -> None:
    """``--game`` (any game of the table of games; none: the default game) and, with
    ``options``, ``--option NAME=VALUE`` (a game's own option, repeatable): the one form every
    command takes a game and its options in (:func:`game_settings` reads them)."""
    parser.add_argument("--game", default=None, metavar="GAME",
                        help=f"{what} (default: the default game; meduris games lists the "
                        "games, their player counts and options)")
    if options:
        parser.add_argument("--option", action="append", default=None, metavar="NAME=VALUE",
                            help="one of the game's own options, e.g. --option exchange=manual "
                            "(Meduris), --option circles=4 (Druids), --option max_turns=300 "
                            "(any game's turn limit); repeat it for several (meduris games "
                            "lists each game's)")


def game_settings(args, error: type[Exception] = UsageError):
    """(the game's row, its options as a checked mapping) of ``--game`` and ``--option``; an
    unknown game or option, a bad pair or value is ``error`` in one line."""
    row = game_spec(getattr(args, "game", None), error)
    return row, row.parse_options(getattr(args, "option", None), error)

"""``meduris ladder``: a rating ladder that persists (:mod:`meduris_rl.agents.arena.ladder`).

* ``ladder add AGENT``: the agent's gauntlet against the anchors
  (:mod:`meduris_rl.agents.arena.ladder.gauntlet`), every game stored in ``--db`` as it ends; a
  ladder without the anchors' games of ``--players`` first gets a copy of the shipped ones
  (when there are any), so the agent lands on the shipped scale. Run again after a kill: only
  the games not stored yet are played. A missing or empty (0-byte) ``--db`` becomes a new
  ladder. When the agent or an anchor forfeited games of the run, one line each says how many
  and, for a ``cmd:`` bot, the folder of the bots' logs (their stderr).
* ``ladder anchors``: the anchors' own games (neighbours against each other), the command
  that made the shipped ladder (its forfeits said as ``add``'s).
* ``ladder show``: the ratings fitted over all stored games
  (:mod:`meduris_rl.agents.arena.ladder.fit`), one table per player count, the anchors held at
  the ratings of their own games (an entrant never moves them; ``--free-anchors``: everything
  fitted together); ``--json`` for scripts, ``--png`` for the picture. ``ladder add`` and
  ``ladder anchors`` end with the same table.
* ``ladder list`` / ``ladder remove AGENT``: the agents stored; an entrant's games deleted.
  ``remove`` checks everything (the file, every stored game, that the entrant is there) with
  the file opened to read only, and opens it to write (which changes its journal mode) only
  to delete: a refused ``remove`` leaves the file byte-identical.

``add`` and ``anchors`` take ``--move-time`` / ``--game-time``, the limits of ``cmd:`` agents
(a program over its limit forfeits that game, a loss stored with its reason).

**Names.** Agents are stored and looked up by their canonical names
(:mod:`meduris_rl.agents.arena.ladder.names`: `` greedy `` is ``greedy``, ``mcts:05`` is
``mcts:5``); a name given otherwise is said once on stderr (``note: ...``) when the command
goes ahead. ``remove`` finds an entrant under any spelling of its name (a ladder made before
names were canonical). Tables print names escaped and cut
(:mod:`meduris_rl.agents.arena.ladder.report`: 40 characters in a column, 100 in a line such as
``ladder list``'s); ``show --json`` keeps them whole.

**Files.** Every subcommand reads a ladder strictly (:mod:`meduris_rl.agents.arena.ladder.store`):
a file that is not one, a damaged one (its schema, ``ladder_meta`` or any stored game: a bad
JSON column, a ``null`` agent, NaN, a wrong column, a key that is not its row's) is refused in
one line naming the file, the row and the column, before anything is written to it. An empty
file is refused by ``show``, ``list`` and ``remove`` (nothing to read) and started as a new
ladder by ``add`` and ``anchors``.

Every subcommand takes ``--game`` (``meduris``, the default, or ``druids``): each game has its
own anchors, shipped anchors' file and default ``--db``
(:mod:`meduris_rl.agents.arena.ladder.anchors`); a ladder file records its game, and opening it
for another game is refused.

Every check happens before the first game, each error one line
(:class:`~meduris_rl.agents.arena.ladder.LadderError`, or argparse's for numbers out of range).
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

from meduris_rl.agents.arena.ladder import (
    MAX_LADDER_GAMES,
    LadderError,
    check_agents,
    copy_anchors,
    draw,
    game_flag,
    ladder_fit,
    ladder_of,
    open_ladder,
    play_anchors,
    play_gauntlet,
    table,
    to_json,
)
from meduris_rl.agents.arena.ladder.names import canonical_name, spellings
from meduris_rl.agents.arena.ladder.report import LINE_WIDTH, shown
from meduris_rl.agents.arena.ladder.store import is_empty
from meduris_rl.agents.base import check_names
from meduris_rl.cli.checks import SEED, HelpFormatter, add_time_flags, int_in, output_file
from meduris_rl.cli.commands.games import add_game_flags
from meduris_rl.kit.games import game_spec
from meduris_rl.kit.values import excerpt


def add_parser(sub) -> None:
    p = sub.add_parser("ladder", help="a persistent rating ladder: place agents on a fixed scale",
                       description="Place agents on a fixed rating scale by games against "
                       "anchors, every game kept in an SQLite file (docs/agents.md, the rating "
                       "ladder).")
    cmds = p.add_subparsers(dest="ladder_command", required=True)

    def command(name: str, help: str, func) -> object:
        c = cmds.add_parser(name, help=help, description=help, formatter_class=HelpFormatter)
        c.add_argument("--db", default=None, help="the ladder file (default: the game's, "
                       "ladder.sqlite for Meduris, ladder_druids.sqlite for Druids)")
        add_game_flags(c, options=False, what="the game of the ladder")
        c.set_defaults(func=lambda args: func(with_db(args)))
        return c

    def playing(c, games: int, games_help: str) -> None:
        c.add_argument("--games", type=int_in(1, MAX_LADDER_GAMES), default=games,
                       help=games_help)
        c.add_argument("--players", type=int, default=2,
                       help="the number of players, one the game is played by (default 2)")
        c.add_argument("--workers", type=int_in(1, 1024), default=min(2, os.cpu_count() or 1),
                       help="parallel processes (default: 2 or the CPUs there are)")
        c.add_argument("--seed", type=SEED, default=None,
                       help="seed of the games (default: the ladder's own, drawn from the "
                            "operating system when the ladder was made)")
        add_time_flags(c)
        c.add_argument("--no-progress", action="store_true", help="no progress bar")

    add = command("add", "play an agent's gauntlet against the anchors and store its games",
                  run_add)
    add.add_argument("agent", help="the agent's name, as --agents takes it (e.g. mcts:300)")
    playing(add, 40, "games in all, rounded up to whole seat-swapped pairs (default 40)")
    anchors = command("anchors", "play the anchors' games (each anchor against its "
                      "neighbours)", run_anchors)
    playing(anchors, 24, "games per pair of neighbouring anchors (default 24)")
    anchors.add_argument("--anchors", default=None, help="comma-separated anchors, weakest "
                         "first (default: the shipped anchors of --players)")
    show = command("show", "print the ratings fitted over all stored games", run_show)
    show.add_argument("--players", type=int, default=None,
                      help="one player count (default: each one stored, a table each)")
    show.add_argument("--free-anchors", action="store_true", help="fit the anchors with every "
                      "game, the entrants' too (default: the anchors held at the ratings of "
                      "their own games, so adding an agent never moves them)")
    show.add_argument("--json", action="store_true", help="print the ratings as JSON")
    show.add_argument("--png", default=None, help="also draw the ratings to this PNG file")
    show.add_argument("--force", action="store_true", help="replace an existing --png")
    command("list", "list the stored agents and their games", run_list)
    remove = command("remove", "delete an entrant's games (never the anchors')", run_remove)
    remove.add_argument("agent", help="the entrant's name")
    remove.add_argument("--players", type=int, default=2,
                        help="the number of players, one the game is played by (default 2)")


def with_db(args):
    """``args`` with the game named (``--game``, the default game if not given; one without a
    ladder is one line), its player count checked and ``--db`` filled in: the game's default
    ladder file if not given (``db_given``: the flag as given)."""
    ladder = ladder_of(game_spec(args.game, LadderError))
    args.game = ladder.game
    if getattr(args, "players", None) is not None:
        game_spec(args.game).check_players(args.players, "--players", LadderError)
    args.db_given = args.db
    if args.db is None:
        args.db = ladder.db
    return args


def workers(args) -> int:
    useful = min(args.workers, os.cpu_count() or 1)
    if useful < args.workers:
        print(f"note: --workers {args.workers} capped to {useful} (one per CPU at most)",
              file=sys.stderr)
    return useful


def progress(args, total: int, desc: str):
    """A progress bar's update function (and the bar, to close), or a silent one."""
    if args.no_progress:
        return (lambda count: None), None
    from tqdm import tqdm

    game_spec(args.game).compile_notice()
    bar = tqdm(total=total, desc=desc, unit="game", file=sys.stderr, dynamic_ncols=True)
    return bar.update, bar


def canonical_note(given: str, name: str) -> None:
    """Say (stderr) that an agent name given otherwise is used under its canonical name."""
    if given != name:
        print(f"note: the agent {excerpt(given, LINE_WIDTH)} is stored and looked up as "
              f"{excerpt(name, LINE_WIDTH)} (its canonical name)", file=sys.stderr)


def run_add(args) -> int:
    check_agents([args.agent], args.game)  # before the ladder file is made
    agent = canonical_name(args.agent, args.game)
    with open_ladder(args.db, game=args.game) as store:
        canonical_note(args.agent, agent)
        if not store.anchors(args.players):
            copied = copy_anchors(ladder_of(args.game).shipped, store, args.players)
            if copied:
                print(f"{args.db}: started from the shipped ladder ({copied} anchors' games, "
                      f"{args.players} players)", file=sys.stderr)
        total = -(-args.games // args.players) * args.players
        if total != args.games:
            print(f"note: {args.games} games rounded up to {total} (whole units of "
                  f"{args.players} games with one seed)", file=sys.stderr)
        done = play_and_fit(args, store, total, shown(agent), lambda update, bar: play_gauntlet(
            store, agent, args.players, args.games, args.seed, workers(args), update,
            say=lambda line: say(bar, line), limits=(args.move_time, args.game_time)))
    if done is None:
        return 130
    played, seconds = done
    print(f"{played} games played ({total - played} stored before) in {seconds:.0f} s; "
          f"ladder in {args.db}")
    return 0


def play_and_fit(args, store, total: int, desc: str, play) -> tuple[int, float] | None:
    """``play(update, bar)`` under a progress bar of ``total`` games, then the table of the
    ladder's fit printed; (games played, seconds), or None after Ctrl-C (said)."""
    update, bar = progress(args, total, desc)
    t0 = time.perf_counter()
    try:
        played = play(update, bar)
    except KeyboardInterrupt:
        interrupted(bar, args.db)
        return None
    finally:
        if bar is not None:
            bar.close()
    print(table(ladder_fit(store, args.players)))
    return played, time.perf_counter() - t0


def interrupted(bar, db: str) -> None:
    """Ctrl-C: the workers are stopped; every game that ended is stored."""
    if bar is not None:
        bar.close()
    print(f"meduris: interrupted; every game that ended is stored in {db}: run the same "
          "command again to play the rest", file=sys.stderr)


def say(bar, line: str) -> None:
    if bar is not None:
        bar.write(line, file=sys.stderr)
    else:
        print(line, file=sys.stderr)


def anchor_list(args) -> list[str]:
    if args.anchors is None:
        return list(ladder_of(args.game).anchors[args.players])
    names = check_names(args.anchors.split(","), "--anchors", LadderError,
                        "random,greedy,mcts:50")
    names = [canonical_name(n, args.game) for n in names]
    if len(set(names)) != len(names):
        raise LadderError(f"--anchors {excerpt(args.anchors, LINE_WIDTH)}: write distinct agent "
                          "names separated by commas, weakest first, e.g. random,greedy,mcts:50 "
                          "(names are compared in their canonical spelling: mcts:05 is mcts:5)")
    if len(names) < args.players:
        raise LadderError(f"--anchors: {args.players} players need at least {args.players} "
                          f"anchors, got {len(names)}")
    return names


def rated_zero(db: str, players: int, game: str) -> bool:
    """Whether the ladder in ``db`` (if there is one: not an empty file) has ``random`` among
    its anchors."""
    if not Path(db).is_file() or is_empty(db):
        return False
    with open_ladder(db, read_only=True, game=game) as store:
        return "random" in store.anchors(players)


def run_anchors(args) -> int:
    names = anchor_list(args)
    check_agents(names, args.game)
    given = [n.strip() for n in args.anchors.split(",")] if args.anchors else names
    links = len(names) - args.players + 1
    per = -(-args.games // args.players) * args.players
    if "random" not in names and not rated_zero(args.db, args.players, args.game):
        # (a subset, e.g. more games for some links, is fine once random is on the ladder)
        raise LadderError(f"--anchors {args.anchors!r}: the anchors must include random (the "
                          f"agent rated 0) while {args.db} has no {args.players}-player games "
                          "of it")
    with open_ladder(args.db, game=args.game) as store:
        for before, name in zip(given, names, strict=True):
            canonical_note(before, name)
        done = play_and_fit(args, store, links * per, "anchors", lambda update, bar: play_anchors(
            store, names, args.players, args.games, args.seed, workers(args), update,
            limits=(args.move_time, args.game_time), say=lambda line: say(bar, line)))
    if done is None:
        return 130
    played, seconds = done
    print(f"{played} games played ({links * per - played} stored before; {links} pairs of "
          f"neighbours x {per} games) in {seconds:.0f} s; ladder in {args.db}")
    return 0


def run_show(args) -> int:
    png = output_file(args.png, "--png", args.force) if args.png else None
    if args.db_given is None and not Path(args.db).exists():  # (a new user's first look)
        args.db = str(ladder_of(args.game).shipped)
        print(f"no {Path(ladder_of(args.game).db).name} here: the shipped anchors' ladder "
              f"({args.db})", file=sys.stderr)
    with open_ladder(args.db, read_only=True, game=args.game) as store:
        counts = [args.players] if args.players else store.player_counts()
        fits = []
        for n in counts:
            games = store.games(n)
            if not games:
                raise LadderError(f"{args.db} holds no {n}-player games")
            fits.append(ladder_fit(store, n, args.free_anchors))
    if not fits:
        raise LadderError(f"{args.db} holds no games yet: meduris ladder add AGENT"
                          f"{game_flag(args.game)} --db {args.db} plays some")
    print(to_json(fits) if args.json else "\n\n".join(table(f) for f in fits), end="" if
          args.json else "\n")
    if png is not None:
        draw(fits, png)
        print(f"picture in {png}", file=sys.stderr)
    return 0


def run_list(args) -> int:
    with open_ladder(args.db, read_only=True, game=args.game) as store:
        lines = []  # (every row read and checked before the first line is printed)
        for n in store.player_counts():
            anchors = [shown(a, LINE_WIDTH) for a in store.anchors(n)]
            lines.append(f"{n} players: anchors {', '.join(anchors) or 'none'} "
                         f"({len(store.games(n, ''))} games)")
            lines += [f"  {shown(name, LINE_WIDTH)}: {count} games"
                      for name, count in store.entrants(n).items()]
    if lines:
        print("\n".join(lines))
    return 0


def run_remove(args) -> int:
    """Everything checked with the file opened to read only; opened to write only to delete
    (a refused remove leaves the file byte-identical)."""
    agent = canonical_name(args.agent, args.game)
    with open_ladder(args.db, read_only=True, game=args.game) as store:
        entrants = store.entrants(args.players)
    found = spellings(agent, entrants, args.game)
    if not found:
        known = ", ".join(shown(e) for e in list(entrants)[:10]) or "none"
        more = f", ... ({len(entrants)} in all)" if len(entrants) > 10 else ""
        raise LadderError(f"{excerpt(agent, LINE_WIDTH)} has no {args.players}-player gauntlet "
                          f"in {args.db} (entrants: {known}{more})")
    with open_ladder(args.db, create=False, game=args.game) as store:
        removed = store.remove(args.players, *found)
    canonical_note(args.agent, agent)
    spelt = "" if found == [agent] else \
        f" (stored as {', '.join(shown(e, LINE_WIDTH) for e in found)})"
    print(f"removed {removed} games of {shown(agent, LINE_WIDTH)}{spelt} ({args.players} "
          f"players) from {args.db}")
    return 0

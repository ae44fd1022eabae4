"""``meduris agents``: the table of agent kinds of a game
(:func:`meduris_rl.agents.registry.kinds`), the names every other command accepts: how to write
each, its budget parameter and default, what it needs (torch, a model file, ray, open_spiel),
whether the web server offers it, and what it is. The kinds every game has come first, then the
game's own (its row's), then the plug-in forms (a file, a module, ``cmd:``), then the agents
installed packages register in the entry-point group ``meduris_rl.agents`` (an entry point whose
name is taken is left out, and a line on stderr says so). ``--json`` prints the same as a list of
objects, for scripts (``source``: built-in, file, module, cmd or entry point), with the game's
levels where it has them. ``--game`` lists another game's kinds (none: the default game's)."""

from __future__ import annotations

import json
import sys

from meduris_rl.agents.levels import as_dict, describe, ratings
from meduris_rl.agents.registry import AgentKind, ignored_entry_points, kinds
from meduris_rl.cli.checks import UsageError
from meduris_rl.cli.commands.games import add_game_flags
from meduris_rl.kit.games import game_spec


def add_parser(sub) -> None:
    p = sub.add_parser("agents", help="list the kinds of agents and how to name them",
                       description="List every kind of agent the commands accept (--agents, "
                       "--opponents, --best-against): how to write its name, its budget "
                       "parameter and default, what it needs installed, and whether the web "
                       "server offers it; then the plug-in forms and the agents installed "
                       "packages register (docs/bring_your_own_agent.md).")
    p.add_argument("--json", action="store_true", help="print the table as JSON")
    add_game_flags(p, options=False, what="the game whose agents to list")
    p.set_defaults(func=run)


def row(kind: AgentKind, game: str | None = None) -> dict:
    """One kind as plain data (the --json row)."""
    budget = kind.budget
    return {"name": kind.name, "usage": kind.usage(),
            "budget": None if budget is None else {"parameter": budget.name,
                                                   "default": budget.default,
                                                   "seconds": budget.seconds},
            "file": kind.file, "needs": list(kind.needs), "web": kind.web,
            "batch": kind.batch is not None, "summary": kind.summary,
            "players": list(kind.players),
            "source": kind.source, "entry_point": kind.target, "package": kind.package,
            "games": None if kind.games is None else list(kind.games)}


def table(game: str | None = None) -> str:
    """The kinds of ``game`` as a text table, one line each, in the table's order."""
    lines = []
    for kind in kinds(game):
        budget = "-" if kind.budget is None else kind.budget.describe()
        lines.append((kind.usage(), budget, ",".join(kind.needs) or "-",
                      "yes" if kind.web else "no", kind.summary))
    head = ("agent", "budget", "needs", "web", "summary")
    widths = [max(len(line[i]) for line in [head, *lines]) for i in range(4)]
    return "\n".join("  ".join(f"{cell:<{w}}" for cell, w in zip(line[:4], widths, strict=True))
                     + "  " + line[4] for line in [head, *lines])


def run(args) -> int:
    for reason in ignored_entry_points().values():
        print(f"meduris agents: {reason}", file=sys.stderr)
    game = game_spec(args.game, UsageError)
    found = [row(kind, game.name) for kind in kinds(game)]
    levels = list(game.part("levels")) if game.has_part("levels") else []
    if args.json:
        print(json.dumps({"game": game.name, "agents": found,
                          "levels": [as_dict(lv, game) for lv in levels]}, indent=2))
        return 0
    print(table(game.name))
    if levels:
        print("\nlevels for people (meduris play --level N; Elo on the shipped ladder of the "
              "player count):")
        others = [n for n in game.player_counts if n != 2]
        for lv in levels:
            at = ", ".join(f"{n} players {ratings(n, game)[lv.number][0]:.0f}" for n in others)
            print("  " + describe(lv, 2, game) + (f"; at {' and '.join(map(str, others))} "
                                                  f"players {lv.agent_for(3)} ({at})"
                                                  if others else ""))
    return 0

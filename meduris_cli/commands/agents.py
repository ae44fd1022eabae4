"""``meduris agents``: the table of agent kinds (:data:`meduris_rl.agents.registry.KINDS`), the
names every other command accepts: how to write each, its budget parameter and default, what it
needs (torch, a model file, ray, open_spiel), whether the web server offers it, and what it is. The
built-in kinds come first, then the plug-in forms (a file, a module, ``cmd:``), then the agents
installed packages register in the entry-point group ``meduris.agents`` (an entry point whose
name is taken is left out, and a line on stderr says so). ``--json`` prints the same as a list
of objects, for scripts (``source``: built-in, file, module, cmd or entry point). ``--game
druids`` lists the kinds serving that game (:mod:`meduris_rl.agents.games`), with their summaries
there."""

from __future__ import annotations

import json
import sys

from meduris_rl.agents.games import GAME_NAMES
from meduris_rl.agents.levels import LEVELS, as_dict, describe, ratings
from meduris_rl.agents.registry import IGNORED_ENTRY_POINTS, KINDS, AgentKind


def add_parser(sub) -> None:
    p = sub.add_parser("agents", help="list the kinds of agents and how to name them",
                       description="List every kind of agent the commands accept (--agents, "
                       "--opponents, --best-against): how to write its name, its budget "
                       "parameter and default, what it needs installed, and whether the web "
                       "server offers it; then the plug-in forms and the agents installed "
                       "packages register (docs/bring_your_own_agent.md).")
    p.add_argument("--json", action="store_true", help="print the table as JSON")
    p.add_argument("--game", choices=GAME_NAMES, default="meduris",
                   help="list the agents of this game (default meduris)")
    p.set_defaults(func=run)


def row(kind: AgentKind, game: str = "meduris") -> dict:
    """One kind as plain data (the --json row; ``games`` only for another game than Meduris)."""
    budget = kind.budget
    return {"name": kind.name, "usage": kind.usage(),
            "budget": None if budget is None else {"parameter": budget.name,
                                                   "default": budget.default,
                                                   "seconds": budget.seconds},
            "file": kind.file, "needs": list(kind.needs), "web": kind.web,
            "batch": kind.batch is not None, "summary": kind.summary_for(game),
            "players": list(kind.players),
            "source": kind.source, "entry_point": kind.target, "package": kind.package,
            **({} if game == "meduris" else {"games": list(kind.games)})}


def table(game: str = "meduris") -> str:
    """The kinds serving ``game`` as a text table, one line each, in the table's order."""
    lines = []
    for kind in (k for k in KINDS if k.serves(game)):
        budget = "-" if kind.budget is None else kind.budget.describe()
        lines.append((kind.usage(), budget, ",".join(kind.needs) or "-",
                      "yes" if kind.web else "no", kind.summary_for(game)))
    head = ("agent", "budget", "needs", "web", "summary")
    widths = [max(len(line[i]) for line in [head, *lines]) for i in range(4)]
    return "\n".join("  ".join(f"{cell:<{w}}" for cell, w in zip(line[:4], widths, strict=True))
                     + "  " + line[4] for line in [head, *lines])


def run(args) -> int:
    for reason in IGNORED_ENTRY_POINTS.values():
        print(f"meduris agents: {reason}", file=sys.stderr)
    game = args.game
    if game != "meduris":
        rows = [row(kind, game) for kind in KINDS if kind.serves(game)]
        print(json.dumps({"game": game, "agents": rows}, indent=2) if args.json else table(game))
        return 0
    if args.json:
        levels = [as_dict(lv) for lv in LEVELS]
        print(json.dumps({"agents": [row(kind) for kind in KINDS], "levels": levels}, indent=2))
    else:
        print(table())
        print("\nlevels for people (meduris play --level N; Elo on the shipped ladder of the "
              "player count):")
        for lv in LEVELS:
            at_3_4 = ", ".join(f"{n} players {ratings(n)[lv.number][0]:.0f}" for n in (3, 4))
            print("  " + describe(lv) + f"; at 3 and 4 players {lv.agent_for(3)} ({at_3_4})")
    return 0

"""What ``meduris ladder show`` prints and draws from a :class:`~.fit.Fit`: the table, its
JSON and the PNG (ratings with their 95% intervals, anchors and entrants marked).

Each depends on the fit only, so the same stored games give the same text, JSON and picture,
byte for byte (the PNG is written without a date or a software version in it).

Names are text from a file (a ladder may hold anything): the table and the picture print each
through :func:`~meduris_rl.kit.values.printable`, control characters and terminal escape codes
escaped (``\\x1b``) and cut (the cut marked ``...``): to :data:`NAME_WIDTH` characters in the
table's column and the picture, to :data:`LINE_WIDTH` in the lines under the table (forfeits,
agents not connected: a ``cmd:`` bot's command line is often longer than the column), a
forfeit's reason to :data:`REASON_WIDTH`; the JSON keeps every name whole, as stored.
"""

from __future__ import annotations

import json
from pathlib import Path

from meduris_rl.agents.arena.ladder.fit import PRIOR_GAMES, Fit
from meduris_rl.kit.atomic import atomic_replace
from meduris_rl.kit.values import printable

MODEL = {2: "Bradley-Terry", 3: "Plackett-Luce", 4: "Plackett-Luce"}
NAME_WIDTH = 40  # characters of a name in the table's column and the picture
LINE_WIDTH = 100  # characters of a name in a line of text (under the table, ladder list)
REASON_WIDTH = 200  # characters of a forfeit's reason


def shown(name: str, limit: int = NAME_WIDTH) -> str:
    """A name as the table prints it: escaped, cut to ``limit`` characters."""
    return printable(name, limit)


def anchoring(fit: Fit) -> str:
    return ("anchors held at the ratings of their own games" if fit.held else
            "anchors fitted with every game (--free-anchors)")


def describe(fit: Fit) -> str:
    """The table's first line; with entrants, how the anchors were rated (without, both ways
    give the same numbers)."""
    held = f"; {anchoring(fit)}" if any(not r.anchor for r in fit.ratings) else ""
    return (f"{fit.players} players: {fit.games} games, {MODEL[fit.players]} maximum "
            f"likelihood on the Elo scale, random = 0; 95% intervals from the observed "
            f"information; prior {PRIOR_GAMES:g} drawn game per pair that met{held}")


def table(fit: Fit) -> str:
    """The ladder as a text table, best first."""
    width = max([10] + [len(shown(r.name)) + 2 for r in fit.ratings])
    head = (f"{'#':>3}  {'agent':<{width}}{'rating':>8}{'95% interval':>18}{'games':>7}"
            f"{'score':>8}  role")
    lines = [describe(fit), head, "-" * len(head)]
    for i, r in enumerate(fit.ratings, 1):
        interval = f"{r.low:.0f} .. {r.high:.0f}" if r.se else "fixed at 0"
        lines.append(f"{i:>3}  {shown(r.name):<{width}}{r.elo:>8.0f}{interval:>18}{r.games:>7}"
                     f"{r.score:>8.1%}  {'anchor' if r.anchor else 'entrant'}")
    if fit.unconnected:
        lines.append("not connected to random by any game (not rated): "
                     + ", ".join(shown(n, LINE_WIDTH) for n in fit.unconnected))
    for name, (count, first) in sorted(fit.forfeits.items()):
        lines.append(f"{shown(name, LINE_WIDTH)} forfeited {count} game(s) (lost, rated as "
                     f"losses), the first: {printable(first, REASON_WIDTH)}")
    return "\n".join(lines)


def as_json(fit: Fit) -> dict:
    return {"players": fit.players, "games": fit.games, "model": MODEL[fit.players],
            "scale": "Elo (400 log10 of the strength), random = 0",
            "anchors_held": fit.held, "anchors": anchoring(fit),
            "interval": "95% Wald, observed information", "prior_draws_per_pair": PRIOR_GAMES,
            "ratings": [{"agent": r.name, "rating": round(r.elo, 3), "se": round(r.se, 3),
                         "low": round(r.low, 3), "high": round(r.high, 3), "games": r.games,
                         "score": round(r.score, 6), "anchor": r.anchor}
                        for r in fit.ratings],
            "unconnected": fit.unconnected,
            "forfeits": {name: {"games": count, "first": first}
                         for name, (count, first) in sorted(fit.forfeits.items())}}


def to_json(fits: list[Fit]) -> str:
    return json.dumps([as_json(f) for f in fits], indent=2) + "\n"


def draw(fits: list[Fit], path: Path) -> None:
    """The ratings of each fit (one panel per player count) with their 95% intervals;
    anchors as blue circles, entrants as orange diamonds."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = max(len(f.ratings) for f in fits)
    fig, axes = plt.subplots(1, len(fits), figsize=(6.4 * len(fits), 1.2 + 0.38 * rows),
                             squeeze=False)
    for ax, fit in zip(axes[0], fits, strict=True):
        order = list(reversed(fit.ratings))  # best at the top
        for y, r in enumerate(order):
            style = (dict(fmt="o", color="tab:blue") if r.anchor else
                     dict(fmt="D", color="tab:orange"))
            ax.errorbar([r.elo], [y], xerr=[[r.elo - r.low], [r.high - r.elo]], capsize=3,
                        **style)
        ax.set_yticks(range(len(order)), [shown(r.name) for r in order])
        ax.set_xlabel("rating (Elo, random = 0), 95% interval")
        ax.set_title(f"{fit.players} players: {fit.games} games "
                     "(circles anchors, diamonds entrants)", fontsize=9)
        ax.grid(axis="x", alpha=0.3)
    fig.tight_layout()
    atomic_replace(path, lambda tmp: fig.savefig(tmp, format="png", dpi=100,
                                                 metadata={"Software": None}))
    plt.close(fig)

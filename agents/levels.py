"""Difficulty levels for people: a game's agents from a beginner's opponent to the strongest
shipped one, each with its rating measured on the game's shipped ladder of the anchors of the
player count (Elo with ``random`` = 0), so that "level 3" means a known strength (``meduris play
--level 3``, ``meduris agents``, the web page). A game has levels when its row names them (the
part ``levels``: Meduris's are :mod:`meduris_rl.agents.meduris.levels`).

The ratings are read from the ladder's games by the same fit as ``meduris ladder show`` (never
typed in), and a test checks that they increase with the level at every player count.
"""

from __future__ import annotations

from dataclasses import dataclass

from meduris_rl.kit.errors import InputError
from meduris_rl.kit.games import GameSpec, game_spec


@dataclass(frozen=True)
class Level:
    number: int
    name: str  # in a player's words
    agent: str  # an agent name (an anchor of the 2-player ladder)
    more: str | None = None  # the agent at 3 and 4 players where it differs

    def agent_for(self, players: int) -> str:
        """The agent this level seats in a game of ``players``."""
        return self.more if players > 2 and self.more else self.agent


class LevelError(InputError, ValueError):
    """A level that does not exist (the message lists them)."""


def levels(game: str | GameSpec | None = None) -> tuple[Level, ...]:
    """The levels of ``game`` (None: the default game), or a one-line LevelError for a game
    without levels."""
    row = game_spec(game, LevelError)
    if not row.has_part("levels"):
        raise LevelError(f"{row.title} has no levels; name its opponents (meduris agents "
                         f"--game {row.name} lists them)")
    return row.part("levels")


def level(number: object, game: str | GameSpec | None = None) -> Level:
    """Level ``number`` of ``game``'s levels, else a one-line error listing them."""
    LEVELS = levels(game)
    for lv in LEVELS:
        if number == lv.number and not isinstance(number, bool):
            return lv
    names = ", ".join(f"{lv.number} {lv.name}" for lv in LEVELS)
    raise LevelError(f"level {number!r} does not exist; the levels are {names}")


def ratings(players: int = 2, game: str | GameSpec | None = None
            ) -> dict[int, tuple[float, float, float]]:
    """Each level's (Elo, low, high: its 95% interval) on ``game``'s shipped ladder of
    ``players`` (the agent it seats there)."""
    from meduris_rl.agents.arena.ladder import shipped_ratings

    row = game_spec(game, LevelError)
    fit = shipped_ratings(players, row.name)
    missing = sorted({lv.agent_for(players) for lv in levels(row)} - set(fit))
    if missing:
        raise LevelError(f"{row.title}'s shipped ladder of {players} players does not rate "
                         f"{', '.join(missing)}")
    return {lv.number: (fit[lv.agent_for(players)].elo, fit[lv.agent_for(players)].low,
                        fit[lv.agent_for(players)].high) for lv in levels(row)}


def as_dict(lv: Level, game: str | GameSpec | None = None) -> dict:
    """A level as JSON (``meduris agents --json``, the web server's ``/api/agents``): its agent
    at 2 and at 3-4 players and its Elo on each player count's ladder."""
    row = game_spec(game, LevelError)
    return {"level": lv.number, "name": lv.name, "agent": lv.agent,
            "agent_3_4": lv.agent_for(3),
            **{f"elo_{n}p": round(ratings(n, row)[lv.number][0], 1)
               for n in row.player_counts}}


def describe(lv: Level, players: int = 2, game: str | GameSpec | None = None) -> str:
    """``level 3 (club): mcts:200, rated 1003 Elo (95% 587..1419) on the 2-player ladder``,
    the agent and ladder of ``players``."""
    elo, low, high = ratings(players, game)[lv.number]
    return (f"level {lv.number} ({lv.name}): {lv.agent_for(players)}, rated {elo:.0f} Elo "
            f"(95% {low:.0f}..{high:.0f}) on the {players}-player ladder")

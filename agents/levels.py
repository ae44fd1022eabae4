"""Difficulty levels for people: five agents from a beginner's opponent to the strongest
shipped one, each with its rating measured on the shipped ladder of the anchors of the game's
player count (:data:`meduris_rl.agents.arena.ladder.SHIPPED`, Elo with ``random`` = 0), so that
"level 3" means a known strength (``meduris play --level 3``, ``meduris agents``).

The levels are anchors of the ladder, chosen roughly evenly spaced in rating on the 2-player
ladder (about 500 Elo apart, the top one further): their ratings are read from the ladder's
games by the same fit as ``meduris ladder show`` (never typed in here), and a test checks that
they increase with the level at 2, 3 and 4 players. At 3 and 4 players the same agents play
(``ppo`` with the shipped model of that player count), except where a level names another
(:attr:`Level.more`): the top level's ``search`` ships for 2 players only, so at 3 and 4 it is
``mcts:800``, the strongest anchor of those ladders (``az:200`` is not one of them: its
strength there is not measured).
"""

from __future__ import annotations

from dataclasses import dataclass

from meduris_env.engine.errors import MedurisError


@dataclass(frozen=True)
class Level:
    number: int
    name: str  # in a player's words
    agent: str  # an agent name (an anchor of the 2-player ladder)
    more: str | None = None  # the agent at 3 and 4 players where it differs

    def agent_for(self, players: int) -> str:
        """The agent this level seats in a game of ``players``."""
        return self.more if players > 2 and self.more else self.agent


LEVELS = (
    Level(1, "beginner", "random"),
    Level(2, "casual", "greedy"),
    Level(3, "club", "mcts:200"),
    Level(4, "strong", "ppo"),
    Level(5, "expert", "search", more="mcts:800"),
)


class LevelError(MedurisError, ValueError):
    """A level that does not exist (the message lists them)."""


def level(number: object) -> Level:
    """Level ``number`` (1-5), else a one-line error listing the levels."""
    for lv in LEVELS:
        if number == lv.number and not isinstance(number, bool):
            return lv
    names = ", ".join(f"{lv.number} {lv.name}" for lv in LEVELS)
    raise LevelError(f"level {number!r} does not exist; the levels are {names}")


def ratings(players: int = 2) -> dict[int, tuple[float, float, float]]:
    """Each level's (Elo, low, high: its 95% interval) on the shipped ladder of ``players``
    (the agent it seats there)."""
    from meduris_rl.agents.arena.ladder import shipped_ratings

    fit = shipped_ratings(players)
    return {lv.number: (fit[lv.agent_for(players)].elo, fit[lv.agent_for(players)].low,
                        fit[lv.agent_for(players)].high) for lv in LEVELS}


def as_dict(lv: Level) -> dict:
    """A level as JSON (``meduris agents --json``, the web server's ``/api/agents``): its agent
    at 2 and at 3-4 players and its Elo on each player count's ladder."""
    return {"level": lv.number, "name": lv.name, "agent": lv.agent,
            "agent_3_4": lv.agent_for(3),
            **{f"elo_{n}p": round(ratings(n)[lv.number][0], 1) for n in (2, 3, 4)}}


def describe(lv: Level, players: int = 2) -> str:
    """``level 3 (club): mcts:200, rated 1003 Elo (95% 587..1419) on the 2-player ladder``,
    the agent and ladder of ``players``."""
    elo, low, high = ratings(players)[lv.number]
    return (f"level {lv.number} ({lv.name}): {lv.agent_for(players)}, rated {elo:.0f} Elo "
            f"(95% {low:.0f}..{high:.0f}) on the {players}-player ladder")

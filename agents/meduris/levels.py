"""Meduris's difficulty levels (its row's ``levels`` part, :mod:`meduris_rl.agents.levels`):
five anchors of its ladder, chosen roughly evenly spaced in rating on the 2-player ladder
(about 500 Elo apart, the top one further). At 3 and 4 players the same agents play (``ppo``
with the shipped model of that player count), except where a level names another
(:attr:`~meduris_rl.agents.levels.Level.more`): the top level's ``search`` ships for 2 players
only, so at 3 and 4 it is ``mcts:800``, the strongest anchor of those ladders (``az:200`` is not
one of them: its strength there is not measured)."""

from __future__ import annotations

from meduris_rl.agents.levels import Level

LEVELS = (
    Level(1, "beginner", "random"),
    Level(2, "casual", "greedy"),
    Level(3, "club", "mcts:200"),
    Level(4, "strong", "ppo"),
    Level(5, "expert", "search", more="mcts:800"),
)

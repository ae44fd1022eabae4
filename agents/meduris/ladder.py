"""Meduris's ladder (its row's ``ladder`` part, :mod:`meduris_rl.agents.arena.ladder.anchors`):
the anchors of each player count weakest first, from ``random`` and ``greedy`` through MCTS at
doubling budgets to the shipped networks, the first round's probes, the shipped anchors' games
(``agents/data/ladder_anchors.sqlite``) and the default ladder file."""

from __future__ import annotations

from meduris_rl.agents.arena.ladder.anchors import DATA, LadderGame

LADDER = LadderGame(
    "meduris",
    {2: ("random", "greedy", "mcts:50", "mcts:100", "mcts:200", "mcts:400", "mcts:800",
         "mcts:1600", "ppo", "az:200", "search"),
     3: ("random", "greedy", "mcts:50", "mcts:200", "mcts:800", "ppo"),
     4: ("random", "greedy", "mcts:50", "mcts:200", "mcts:800", "ppo")},
    ("greedy", "mcts:200"), DATA / "ladder_anchors.sqlite", "ladder.sqlite")

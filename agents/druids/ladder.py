"""Druids' ladder (its row's ``ladder`` part, :mod:`meduris_rl.agents.arena.ladder.anchors`;
docs/druids.md): ``random``, the documented ``greedy`` and information-set MCTS (``ismcts``,
D14: it sees only what its seat sees) at fixed iteration budgets, so every anchor is
deterministic given the game's seed."""

from __future__ import annotations

from meduris_rl.agents.arena.ladder.anchors import DATA, LadderGame

LADDER = LadderGame(
    "druids",
    {2: ("random", "greedy", "ismcts:10", "ismcts:50", "ismcts:200", "ismcts:800"),
     3: ("random", "greedy", "ismcts:10", "ismcts:50", "ismcts:200"),
     4: ("random", "greedy", "ismcts:10", "ismcts:50", "ismcts:200")},
    ("greedy", "ismcts:50"), DATA / "ladder_anchors_druids.sqlite", "ladder_druids.sqlite")

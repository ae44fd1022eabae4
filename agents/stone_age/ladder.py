"""Stone Age's ladder (its row's ``ladder`` part, :mod:`meduris_rl.agents.arena.ladder.anchors`;
docs/stone_age.md): ``random``, the documented ``greedy`` and greedy improved by rollouts
(``rollout``) at fixed playout budgets, so every anchor is deterministic given the game's seed
(none of them reads another seat's face-down card: rules section 3)."""

from __future__ import annotations

from meduris_rl.agents.arena.ladder.anchors import DATA, LadderGame

LADDER = LadderGame(
    "stone_age",
    {2: ("random", "greedy", "rollout:5", "rollout:30", "rollout:240"),
     3: ("random", "greedy", "rollout:30", "rollout:120", "rollout:240"),
     4: ("random", "greedy", "rollout:30", "rollout:120", "rollout:240")},
    ("greedy", "rollout:5"), DATA / "ladder_anchors_stone_age.sqlite", "ladder_stone_age.sqlite")

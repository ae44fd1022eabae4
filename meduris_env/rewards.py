"""Reward schemes shared by the AEC environment and the single-agent wrapper.

* ``"win"`` (zero-sum): at the end, winners (R26) share +1 and losers share -1, so rewards sum to
  0; a game where everyone ties gives 0 to all.
* ``"score"`` (zero-sum): at the end, each seat's VP minus the mean VP of the other players,
  divided by :data:`SCORE_SCALE`. In two players this is the VP margin / 50.
* ``"dense"``: after every step, each seat's change in VP divided by :data:`SCORE_SCALE`
  (negative when an offering is refused, R19), plus the ``"score"`` margin at the end.

A game cut off by the turn limit (truncation) has no result, so it pays no terminal reward; in
``"dense"`` the VP changes up to the cut are still paid.
"""

from __future__ import annotations

import numpy as np

REWARD_MODES = ("win", "score", "dense")
SCORE_SCALE = 50.0  # VP; a typical decisive margin, keeps "score"/"dense" rewards near [-1, 1]


def check_reward_mode(reward: str) -> str:
    if reward not in REWARD_MODES:
        raise ValueError(f"reward must be one of {', '.join(map(repr, REWARD_MODES))}, "
                         f"got {reward!r}")
    return reward


def terminal_rewards(state, reward: str) -> np.ndarray:
    """Per-seat reward paid when ``state`` has just ended by the rules (not truncated)."""
    n = state.game.num_players
    if reward == "win":
        out = np.zeros(n)
        win = state.winners()
        if len(win) < n:
            out[:] = -1.0 / (n - len(win))
            out[win] = 1.0 / len(win)
        return out
    vp = state.scores().astype(np.float64)
    others_mean = (vp.sum() - vp) / (n - 1)
    return (vp - others_mean) / SCORE_SCALE

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
from numba import njit

from ..engine.kernel import win_returns
from ..engine.layout import O_NP, O_VP

REWARD_MODES = ("win", "score", "dense")
WIN, SCORE, DENSE = 0, 1, 2  # mode codes for the kernels (index into REWARD_MODES)
SCORE_SCALE = 50.0  # VP; a typical decisive margin, keeps "score"/"dense" rewards near [-1, 1]


def check_reward_mode(reward: str) -> str:
    if reward not in REWARD_MODES:
        raise ValueError(f"reward must be one of {', '.join(map(repr, REWARD_MODES))}, "
                         f"got {reward!r}")
    return reward


@njit(cache=True)
def terminal_reward_kernel(st, mode, out):
    """Per-seat reward paid when ``st`` has just ended by the rules, into ``out[:num_players]``:
    ``mode`` WIN is the zero-sum R26 result, SCORE and DENSE the VP margin over the mean of the
    others divided by SCORE_SCALE."""
    n = st[O_NP]
    if mode == WIN:
        win_returns(st, True, out)
        return
    total = 0.0
    for s in range(n):
        total += st[O_VP + s]
    for s in range(n):
        vp = float(st[O_VP + s])
        out[s] = (vp - (total - vp) / (n - 1)) / SCORE_SCALE


def terminal_rewards(state, reward: str) -> np.ndarray:
    """Per-seat reward paid when ``state`` has just ended by the rules (not truncated)."""
    out = np.zeros(state.game.num_players)
    terminal_reward_kernel(state.array, REWARD_MODES.index(reward), out)
    return out

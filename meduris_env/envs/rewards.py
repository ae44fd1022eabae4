"""Reward schemes shared by the AEC environment and the single-agent wrapper.

* ``"win"`` (zero-sum): at the end, winners (R26) share +1 and losers share -1, so rewards sum to
  0; a game where everyone ties gives 0 to all.
* ``"score"`` (zero-sum): at the end, each seat's VP minus the mean VP of the other players,
  divided by :data:`SCORE_SCALE`. In two players this is the VP margin / 50.
* ``"dense"``: after every step, each seat's change in VP divided by :data:`SCORE_SCALE`
  (negative when an offering is refused, R19), plus the ``"score"`` margin at the end.

**A game cut at ``max_turns``** (truncation, R22 ruling) is scored in one of two ways, chosen by
``truncation_reward`` (:data:`TRUNCATION_REWARDS`; one default, ``"none"``, everywhere):

* ``"none"`` (default): the cut is not an outcome, so no terminal reward is paid; the step
  reports ``truncated=True, terminated=False`` (gymnasium and PettingZoo: a learner bootstraps
  from the last observation). In ``"dense"`` the VP changes up to the cut are still paid.
* ``"standings"``: the terminal reward of the scheme is paid on the standings at the cut, as if
  the game had ended there (``"win"``: R26's ranking of the position, the engine's
  ``State.returns()``); the flags stay ``truncated=True, terminated=False``.

The engine (``State.returns()``), OpenSpiel's ``returns()`` (a python game has no truncation: its
terminal needs utilities) and a game record's ``result`` (``winners``) always score a cut game on
its standings, which is what ``"standings"`` pays in the ``"win"`` scheme. The AEC and single-agent
environments take ``truncation_reward``; the batch, vector and RLlib environments pay
``"none"``.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from meduris_rl.kit.values import ValueCheckError, check_choice, excerpt

from ..engine.kernel import win_returns
from ..engine.layout import O_NP, O_VP

REWARD_MODES = ("win", "score", "dense")
TRUNCATION_REWARDS = ("none", "standings")
WIN, SCORE, DENSE = 0, 1, 2  # mode codes for the kernels (index into REWARD_MODES)
SCORE_SCALE = 50.0  # VP; a typical decisive margin, keeps "score"/"dense" rewards near [-1, 1]


def check_reward_mode(reward: str) -> str:
    """``reward`` if it is one of :data:`REWARD_MODES`, else a one-line ValueCheckError."""
    return check_choice("reward", reward, REWARD_MODES)


def check_truncation_reward(truncation_reward: str) -> str:
    """``truncation_reward`` if it is one of :data:`TRUNCATION_REWARDS`, else a ValueCheckError
    (``must be one of`` although there are two: the wording the tests and docs know)."""
    if isinstance(truncation_reward, str) and truncation_reward in TRUNCATION_REWARDS:
        return truncation_reward
    raise ValueCheckError(f"truncation_reward must be one of "
                          f"{', '.join(map(repr, TRUNCATION_REWARDS))}, got "
                          f"{excerpt(truncation_reward)}")


@njit(cache=True, nogil=True)
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


def final_rewards(state, reward: str, truncation_reward: str = "none") -> np.ndarray:
    """Per-seat reward paid when ``state`` has just ended: :func:`terminal_rewards` when it
    ended by the rules; when it was cut at ``max_turns``, zeros with ``truncation_reward``
    ``"none"`` and :func:`terminal_rewards` of the position with ``"standings"``."""
    if state.is_truncated() and truncation_reward == "none":
        return np.zeros(state.game.num_players)
    return terminal_rewards(state, reward)

"""One learning seat of Stone Age as a ``gymnasium.Env``, the other seats played by opponents.

>>> from stoneage_env.envs import StoneAgeSingleAgentEnv
>>> env = StoneAgeSingleAgentEnv(num_players=2, opponents="random", seat="random")
>>> obs, info = env.reset(seed=0)
>>> obs, reward, terminated, truncated, info = env.step(env.action_space.sample())

For stable-baselines3 and sb3-contrib's ``MaskablePPO``: the **observation** is the learner's
vector (what it knows, rules section 3), the legal-action mask is ``action_masks()`` and
``info["action_mask"]``; the **action** space is ``Discrete(100)`` whose ``sample()`` plays a
legal action; the **reward** is the engine's ``returns()`` for the learner at the end;
``terminated`` when the game ends by a rule (S30), ``truncated`` at ``max_rounds`` (X20;
``truncation_reward`` as in the AEC env). ``illegal_action="raise"`` (default) raises
:class:`~stoneage_env.engine.errors.IllegalActionError` on an illegal action and changes
nothing; ``"terminate"`` ends the episode there with -1 for the learner (what gymnasium's
``check_env`` needs: its determinism check plays an action sampled in one game in another).

**Opponents**, one per other seat (a list in seat order from the learner on) or one for all:
``"random"``, an object with ``act(observation, state)`` (the seat's own ``{"observation",
"action_mask"}`` and the live engine state: read or ``clone()`` it, never change it) or a
callable ``f(obs, mask) -> action``. ``seat`` is the learner's seat or ``"random"``.
Registered as ``gymnasium.make("stoneage_env/StoneAge-v0", num_players=..., opponents=...)``.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from meduris_rl.kit.envs.single_agent import TurnBasedSingleAgentEnv
from meduris_rl.kit.envs.turn_based import check_illegal_action

from ..engine.constants import DEFAULT_MAX_ROUNDS
from ..engine.game import StoneAgeGame
from ..engine.information import observation_tensor
from ..engine.state import StoneAgeState
from .common import (
    ENGINE,
    RENDER_MODES,
    OpponentSpec,
    check_opponent,
    check_render_mode,
    check_seed,
    check_truncation_reward,
    final_rewards,
    game_from,
    observation_box,
    opponent_decision,
    opponent_label,
    render_view,
)


class StoneAgeSingleAgentEnv(TurnBasedSingleAgentEnv):
    """Stone Age for one learner against fixed opponents (see the module docstring)."""

    metadata = {"render_modes": list(RENDER_MODES), "render_fps": 1}
    engine = ENGINE
    state_label = "StoneAgeState"
    check_opponent = staticmethod(check_opponent)
    opponent_label = staticmethod(opponent_label)

    def __init__(self, num_players: int | None = None,
                 opponents: OpponentSpec | Sequence[OpponentSpec] = "random",
                 seat: int | str = 0, *, game: StoneAgeGame | None = None,
                 max_rounds: int | None = DEFAULT_MAX_ROUNDS, truncation_reward: str = "none",
                 render_mode: str | None = None, illegal_action: str = "raise",
                 **game_options):
        self.illegal_action = check_illegal_action(illegal_action)
        self.choose_seat(game_from(game, num_players, max_rounds, **game_options), seat)
        self.truncation_reward = check_truncation_reward(truncation_reward)
        self.render_mode = check_render_mode(render_mode)
        self.setup(opponents, observation_box(self.game))

    def render(self):
        return render_view(self.state, self.seat, self.render_mode)

    # --- the game's parts ----------------------------------------------------------------------
    def check_seed(self, seed) -> int | None:
        return check_seed(seed)

    def opponent_decides(self, opp, state: StoneAgeState, seat: int) -> int:
        return opponent_decision(opp, state, seat, self.random_action)

    def terminal_reward(self) -> float:
        return final_rewards(self.state, self.truncation_reward)[self.seat]

    def observe(self) -> np.ndarray:
        return observation_tensor(self.state, self.seat)

    def final_info(self) -> dict:
        return {"scores": self.state.scores(), "winners": self.state.winners()}

"""One learning seat as a ``gymnasium.Env``, the other seats played by given opponents.

>>> from meduris_env import MedurisSingleAgentEnv
>>> env = MedurisSingleAgentEnv(num_players=2, opponents="random", seat="random")
>>> obs, info = env.reset(seed=0)
>>> obs, reward, terminated, truncated, info = env.step(env.action_space.sample())

This is the environment for stable-baselines3 / sb3-contrib's ``MaskablePPO``:

* **observation**: the learner's observation vector, ``Box(0, high, (OBS_SIZE,), float32)``
  (:mod:`meduris_env.envs.observation`); the legal-action mask is ``action_masks()`` and
  ``info["action_mask"]``;
* **action**: ``Discrete(241)`` (:class:`~meduris_rl.kit.envs.spaces.LegalActionSpace`: ``sample()``
  plays a legal action); an illegal action raises
  :class:`~meduris_env.engine.state.IllegalActionError`;
* **reward**: ``"win"``, ``"score"`` or ``"dense"`` for the learning seat
  (:mod:`meduris_env.envs.rewards`); in ``"dense"`` the VP changes during the opponents'
  decisions are paid with the learner's next step;
* **episode**: one game; ``terminated`` when it ends by the rules, ``truncated`` at ``max_turns``
  (``truncation_reward``: ``"none"``, the default, pays no terminal reward at the cut;
  ``"standings"`` pays it on the standings there, as :mod:`meduris_env.envs.rewards` says).

Opponents: one per other seat (a list, in seat order from the learner clockwise) or one shared by
all. Each is ``"random"`` (built in: uniform over legal actions, from the env's seeded RNG), an
object with ``act(observation, state)`` (an agent: ``agents.make_agent("greedy")``), or a
callable ``f(observation, state) -> action``; environments never look agents up by name.
``observation`` is the opponent's own env observation (``{"observation", "action_mask"}``) and
``state`` the live engine state (read it or ``clone()`` it, do not change it). Objects with a
``reset(seed)`` method are reset every episode with a seed derived from the episode's.
``seat`` is the learner's seat, or ``"random"`` to draw it each episode. The game: ``game=`` a
:class:`~meduris_env.engine.game.MedurisGame`, or its options as keywords (``num_players``,
``board``, ``exchange``, ``max_turns``, ...). ``game_record()``
returns the episode as a :class:`~meduris_rl.kit.records.GameRecord`.

:class:`~meduris_rl.kit.envs.single_agent.TurnBasedSingleAgentEnv` (the kit's) is the
game-generic core (seat and opponents, seeding, starting from a state, the opponents' turns,
``illegal_action``, the terminal reward, the info); this class and Druids' single-agent env
supply only their game's parts.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
from gymnasium import spaces

from meduris_rl.kit.envs.opponents import (
    OpponentSpec,
    check_opponent,
    opponent_label,
)
from meduris_rl.kit.envs.single_agent import TurnBasedSingleAgentEnv
from meduris_rl.kit.values import (
    SEED_MAX,
    check_bool,
    check_int,
)

from ..engine.game import MedurisGame, game_from
from ..engine.state import State
from ..render.modes import RENDER_MODES, check_render_mode, render_state
from .aec import MEDURIS_ENGINE
from .observation import observation_high, observation_vector, observe_state
from .rewards import SCORE_SCALE, check_reward_mode, check_truncation_reward, final_rewards


class MedurisSingleAgentEnv(TurnBasedSingleAgentEnv):
    """Meduris for one learner against fixed opponents (see the module docstring)."""

    metadata = {"render_modes": RENDER_MODES, "render_fps": 1}
    engine = MEDURIS_ENGINE
    state_label = "State"
    check_opponent = staticmethod(check_opponent)
    opponent_label = staticmethod(opponent_label)

    def __init__(self, num_players: int | None = None,
                 opponents: OpponentSpec | Sequence[OpponentSpec] = "random",
                 seat: int | str = 0, *, game: MedurisGame | None = None, reward: str = "win",
                 truncation_reward: str = "none", hidden_materials: bool = False,
                 render_mode: str | None = None,
                 **game_options):
        if num_players is not None:
            game_options["num_players"] = num_players
        self.choose_seat(game_from(game, **game_options), seat)
        self.reward_mode = check_reward_mode(reward)
        self.truncation_reward = check_truncation_reward(truncation_reward)
        self.hidden_materials = check_bool("hidden_materials", hidden_materials)
        self.render_mode = check_render_mode(render_mode)
        self.setup(opponents, spaces.Box(0.0, observation_high(self.game.max_turns),
                                         dtype=np.float32))

    def game_record(self, learner: str = "learner", meta: dict | None = None):
        """The episode so far as a :class:`~meduris_rl.kit.records.GameRecord`: the
        learner's seat labelled ``learner``, the others by their agent names."""
        from meduris_rl.kit.records import GameRecord
        if self.state is None:
            raise RuntimeError("call reset() before game_record()")
        n = self.game.num_players
        labels = [learner] * n
        for k, opp in enumerate(self.opponents):
            labels[(self.seat + 1 + k) % n] = opponent_label(opp)
        return GameRecord.from_state(self.state, labels, self.episode_seed, meta)

    def render(self):
        return render_state(self.state, self.render_mode)

    # --- the game's parts ----------------------------------------------------------------------
    def check_seed(self, seed) -> int | None:
        # numpy ints too (gymnasium takes only Python ints)
        return None if seed is None else check_int("seed", seed, 0, SEED_MAX)

    def resets(self, opponent) -> bool:
        return hasattr(opponent, "reset")

    def mark_reward_start(self) -> None:
        self._last_vp = int(self.state.vp[self.seat])

    def opponents_reward(self) -> float:
        """``"dense"``: the learner's VP gained since its last decision (0 in the other
        modes)."""
        if self.reward_mode != "dense":
            return 0.0
        vp = int(self.state.vp[self.seat])
        gained, self._last_vp = vp - self._last_vp, vp
        return gained / SCORE_SCALE

    def opponent_decides(self, opp, state: State, seat: int) -> int:
        if opp == "random":
            return self.random_action(state.legal_actions())
        uses_obs = getattr(opp, "uses_observation", True)
        obs = observe_state(state, seat, self.hidden_materials) if uses_obs else None
        act: Callable = opp.act if hasattr(opp, "act") else opp
        return act(obs, state)

    def terminal_reward(self) -> float:
        return float(final_rewards(self.state, self.reward_mode,
                                   self.truncation_reward)[self.seat])

    def observe(self) -> np.ndarray:
        return observation_vector(self.state, self.seat, self.hidden_materials)

    def final_info(self) -> dict:
        return {"vp": self.state.scores().tolist(), "winners": self.state.winners()}

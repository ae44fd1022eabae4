"""One learning seat as a ``gymnasium.Env``, the other seats played by given opponents.

>>> from meduris_env import MedurisSingleAgentEnv
>>> env = MedurisSingleAgentEnv(num_players=2, opponents="random", seat="random")
>>> obs, info = env.reset(seed=0)
>>> obs, reward, terminated, truncated, info = env.step(env.action_space.sample())

This is the environment for stable-baselines3 / sb3-contrib's ``MaskablePPO``:

* **observation**: the learner's observation vector, ``Box(0, high, (OBS_SIZE,), float32)``
  (:mod:`meduris_env.envs.observation`); the legal-action mask is ``action_masks()`` and
  ``info["action_mask"]``;
* **action**: ``Discrete(241)`` (:class:`~meduris_env.envs.spaces.LegalActionSpace`: ``sample()``
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
returns the episode as a :class:`~meduris_env.records.record.GameRecord`.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence

import gymnasium
import numpy as np
from gymnasium import spaces

from ..engine.constants import END_TRUNCATED, NUM_ACTIONS
from ..engine.game import MedurisGame, game_from
from ..engine.loop import play, resolve_chance
from ..engine.seeding import STREAM_OPPONENT, derive_seed
from ..engine.state import IllegalActionError, State
from ..engine.values import HASHED_SEEDS, check_int
from ..render.modes import RENDER_MODES, check_render_mode, render_state
from .observation import observation_high, observation_vector, observe_state
from .opponents import OpponentSpec, check_opponent, opponent_label
from .rewards import SCORE_SCALE, check_reward_mode, check_truncation_reward, final_rewards
from .spaces import LegalActionSpace


class MedurisSingleAgentEnv(gymnasium.Env):
    """Meduris for one learner against fixed opponents (see the module docstring)."""

    metadata = {"render_modes": RENDER_MODES, "render_fps": 1}

    def __init__(self, num_players: int | None = None,
                 opponents: OpponentSpec | Sequence[OpponentSpec] = "random",
                 seat: int | str = 0, *, game: MedurisGame | None = None, reward: str = "win",
                 truncation_reward: str = "none", hidden_materials: bool = False,
                 render_mode: str | None = None,
                 **game_options):
        if num_players is not None:
            game_options["num_players"] = num_players
        self.game = game_from(game, **game_options)
        n = self.game.num_players
        if seat != "random" and (isinstance(seat, bool) or not isinstance(seat, (int, np.integer))
                                 or not 0 <= seat < n):
            raise ValueError(f"seat must be 0..{n - 1} or 'random', got {seat!r}")
        self.seat_option = seat
        self.reward_mode = check_reward_mode(reward)
        self.truncation_reward = check_truncation_reward(truncation_reward)
        self.hidden_materials = bool(hidden_materials)
        self.render_mode = check_render_mode(render_mode)
        self.set_opponents(opponents)
        self.observation_space = spaces.Box(0.0, observation_high(self.game.max_turns),
                                            dtype=np.float32)
        self.action_space = LegalActionSpace(NUM_ACTIONS, self._learner_mask)
        self._rng = random.Random()
        self._seed: int | None = None
        self.state: State | None = None
        self.seat = 0 if seat == "random" else int(seat)

    def set_opponents(self, opponents: OpponentSpec | Sequence[OpponentSpec]) -> None:
        """Replace the opponents (from the next decision on); e.g. a self-play pool's pick."""
        n = self.game.num_players
        if isinstance(opponents, (list, tuple)):
            if len(opponents) != n - 1:
                raise ValueError(f"{n} players need {n - 1} opponents, got {len(opponents)}")
            self.opponents = [check_opponent(o) for o in opponents]
        else:
            self.opponents = [check_opponent(opponents)] * (n - 1)

    # --- gymnasium API -------------------------------------------------------------------------
    def reset(self, *, seed: int | None = None, options: dict | None = None):
        if seed is not None:  # numpy ints too (gymnasium takes only Python ints)
            seed = check_int("seed", seed, 0, HASHED_SEEDS[1])
        super().reset(seed=seed)
        self._seed = seed
        if seed is not None:
            self._rng = random.Random(seed)
        n = self.game.num_players
        if self.seat_option == "random":
            self.seat = self._rng.randrange(n)
        for k, opp in enumerate(self.opponents):
            if hasattr(opp, "reset"):
                opp.reset(None if seed is None else derive_seed(seed, STREAM_OPPONENT, k))
        start = (options or {}).get("state")
        if start is None:
            self.state = self.game.new_initial_state()
        else:
            if not isinstance(start, State) or start.game != self.game:
                raise ValueError(f"options['state'] must be a State of {self.game!r}")
            self.state = start.clone()
        resolve_chance(self.state, self._rng)
        self._last_vp = int(self.state.vp[self.seat])
        self._play_opponents()  # up to the learner's first decision; nothing to reward yet
        if self.state.is_terminal():
            raise ValueError("the starting state is already over; there is nothing to decide")
        self._last_vp = int(self.state.vp[self.seat])
        return self._observe(), self._info()

    def step(self, action):
        if self.state is None:
            raise RuntimeError("call reset() before step()")
        if self.state.is_terminal():
            raise RuntimeError("the episode is over; call reset()")
        try:
            self.state.apply_action(action, self.seat)
        except IllegalActionError as err:
            raise IllegalActionError(f"learner (seat {self.seat}): {err}") from None
        resolve_chance(self.state, self._rng)
        reward = self._play_opponents()
        state = self.state
        terminated = truncated = False
        if state.is_terminal():
            truncated = state.end_reason == END_TRUNCATED
            terminated = not truncated
            reward += float(final_rewards(state, self.reward_mode,
                                          self.truncation_reward)[self.seat])
        if self.render_mode == "human":
            self.render()
        return self._observe(), reward, terminated, truncated, self._info()

    def game_record(self, learner: str = "learner", meta: dict | None = None):
        """The episode so far as a :class:`~meduris_env.records.record.GameRecord`: the
        learner's seat labelled ``learner``, the others by their agent names."""
        from ..records.record import GameRecord
        if self.state is None:
            raise RuntimeError("call reset() before game_record()")
        n = self.game.num_players
        labels = [learner] * n
        for k, opp in enumerate(self.opponents):
            labels[(self.seat + 1 + k) % n] = opponent_label(opp)
        return GameRecord.from_state(self.state, labels, self._seed, meta)

    def action_masks(self) -> np.ndarray:
        """The learner's legal actions as a bool array (sb3-contrib's MaskablePPO calls this)."""
        return self.state.legal_action_mask().astype(bool)

    def render(self):
        return render_state(self.state, self.render_mode)

    # --- internals -----------------------------------------------------------------------------
    def _play_opponents(self) -> float:
        """Let the opponents decide until the learner must or the game is over; return the
        learner's dense reward since its last decision (0 in the other modes)."""
        me = self.seat
        play(self.state, self._opponent_decides, self._rng,
             until=lambda state: state.current_player() == me,
             who=lambda seat: f"opponent {opponent_label(self._opponent_at(seat))} at seat {seat}")
        if self.reward_mode != "dense":
            return 0.0
        vp = int(self.state.vp[me])
        gained, self._last_vp = vp - self._last_vp, vp
        return gained / SCORE_SCALE

    def _opponent_at(self, seat: int) -> OpponentSpec:
        return self.opponents[(seat - self.seat) % self.game.num_players - 1]

    def _opponent_decides(self, state: State, seat: int) -> int:
        opp = self._opponent_at(seat)
        if opp == "random":
            legal = state.legal_actions()
            return legal[self._rng.randrange(len(legal))]
        uses_obs = getattr(opp, "uses_observation", True)
        obs = observe_state(state, seat, self.hidden_materials) if uses_obs else None
        act: Callable = opp.act if hasattr(opp, "act") else opp
        return act(obs, state)

    def _observe(self) -> np.ndarray:
        return observation_vector(self.state, self.seat, self.hidden_materials)

    def _info(self) -> dict:
        state = self.state
        info: dict = {"action_mask": state.legal_action_mask(), "seat": self.seat}
        if state.is_terminal():
            info["vp"] = state.scores().tolist()
            info["winners"] = state.winners()
        return info

    def _learner_mask(self) -> np.ndarray | None:
        if self.state is None or self.state.current_player() != self.seat:
            return None
        return self.state.legal_action_mask()

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

:class:`TurnBasedSingleAgentEnv` is the game-generic core (seat and opponents, seeding, starting
from a state, the opponents' turns, ``illegal_action``, the terminal reward, the info); this
class and Druids' single-agent env supply only their game's parts.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence

import gymnasium
import numpy as np
from gymnasium import spaces

from ..engine.game import MedurisGame, game_from
from ..engine.seeding import STREAM_OPPONENT, derive_seed
from ..engine.state import State
from ..engine.values import (
    SEED_MAX,
    ValueCheckError,
    check_bool,
    check_int,
    excerpt,
    unwrap_action,
)
from ..render.modes import RENDER_MODES, check_render_mode, render_state
from .aec import MEDURIS_ENGINE
from .observation import observation_high, observation_vector, observe_state
from .opponents import (
    OpponentError,
    OpponentSpec,
    check_opponent,
    opponent_count,
    opponent_label,
)
from .rewards import SCORE_SCALE, check_reward_mode, check_truncation_reward, final_rewards
from .spaces import LegalActionSpace
from .turn_based import GameEngine


class TurnBasedSingleAgentEnv(gymnasium.Env):
    """One learning seat of a turn-based game against opponents: the game-generic core.

    Subclasses set ``engine`` (a :class:`~meduris_env.envs.turn_based.GameEngine`),
    ``state_label`` (how messages name its state class) and ``check_opponent`` /
    ``opponent_label`` (static methods), call :meth:`choose_seat` and :meth:`setup` from
    ``__init__`` and implement :meth:`observe`, :meth:`render`, :meth:`opponent_decides`,
    :meth:`terminal_reward` and :meth:`final_info`; :meth:`check_seed`, :meth:`resets`,
    :meth:`mark_reward_start` and :meth:`opponents_reward` have defaults.
    ``illegal_action="terminate"`` ends the episode on an illegal action with -1.
    """

    engine: GameEngine
    state_label = "state"
    illegal_action = "raise"
    check_opponent: Callable
    opponent_label: Callable

    def choose_seat(self, game, seat: int | str) -> None:
        """``game``, and the learner's seat option (a seat or ``"random"``)."""
        self.game = game
        n = game.num_players
        if seat != "random" and (isinstance(seat, bool) or not isinstance(seat, (int, np.integer))
                                 or not 0 <= seat < n):
            raise ValueCheckError(f"seat must be 0..{n - 1} or 'random', got {excerpt(seat)}")
        self.seat_option = seat
        self.seat = 0 if seat == "random" else int(seat)

    def setup(self, opponents, observation_space: spaces.Space) -> None:
        self.set_opponents(opponents)
        self.observation_space = observation_space
        self.action_space = LegalActionSpace(self.engine.num_actions, self.learner_mask)
        self.rng = random.Random()
        self.episode_seed: int | None = None
        self.state = None
        self.illegal = False  # the episode ended on an illegal action (illegal_action)

    def set_opponents(self, opponents) -> None:
        """Replace the opponents (from the next decision on); e.g. a self-play pool's pick."""
        n = self.game.num_players
        if isinstance(opponents, (list, tuple)):
            if len(opponents) != n - 1:
                raise OpponentError(f"{n} players need {opponent_count(n - 1)}, got "
                                    f"{len(opponents)}")
            self.opponents = [self.check_opponent(o) for o in opponents]
        else:
            self.opponents = [self.check_opponent(opponents)] * (n - 1)

    # --- hooks ---------------------------------------------------------------------------------
    def check_seed(self, seed) -> int | None:
        return seed

    def resets(self, opponent) -> bool:
        """Whether ``opponent`` is reset every episode."""
        return callable(getattr(opponent, "reset", None))

    def mark_reward_start(self) -> None:
        """Start counting the learner's step rewards from now (at reset, before and after the
        opponents' first turns)."""

    def opponents_reward(self) -> float:
        """The learner's reward for what happened since its last decision (after the
        opponents' turns); 0 by default."""
        return 0.0

    # --- gymnasium API -------------------------------------------------------------------------
    def reset(self, *, seed: int | None = None, options: dict | None = None):
        seed = self.check_seed(seed)
        super().reset(seed=seed)
        self.episode_seed = seed
        if seed is not None:
            self.rng = random.Random(seed)
        if self.seat_option == "random":
            self.seat = self.rng.randrange(self.game.num_players)
        for k, opp in enumerate(self.opponents):
            if self.resets(opp):
                opp.reset(None if seed is None else derive_seed(seed, STREAM_OPPONENT, k))
        start = (options or {}).get("state")
        if start is None:
            self.state = self.game.new_initial_state()
        else:
            if not isinstance(start, self.engine.state_type) or start.game != self.game:
                raise ValueError(f"options['state'] must be a {self.state_label} of "
                                 f"{self.game!r}")
            self.state = start.clone()
        self.engine.resolve_chance(self.state, self.rng)
        self.illegal = False
        self.mark_reward_start()
        self.play_opponents()  # up to the learner's first decision; nothing to reward yet
        if self.state.is_terminal():
            raise ValueError("the starting state is already over; there is nothing to decide")
        self.mark_reward_start()
        return self.observe(), self.info()

    def step(self, action):
        if self.state is None:
            raise RuntimeError("call reset() before step()")
        if self.state.is_terminal() or self.illegal:
            raise RuntimeError("the episode is over; call reset()")
        try:
            self.state.apply_action(unwrap_action(action), self.seat)  # SB3's array(3) too
        except self.engine.illegal_action_error as err:
            if self.illegal_action == "terminate":
                self.illegal = True
                return self.observe(), -1.0, True, False, {**self.info(), "illegal": True}
            raise self.engine.illegal_action_error(f"learner (seat {self.seat}): {err}") from None
        self.engine.resolve_chance(self.state, self.rng)
        self.play_opponents()
        reward = self.opponents_reward()
        state = self.state
        terminated = truncated = False
        if state.is_terminal():
            truncated = state.is_truncated()
            terminated = not truncated
            reward += self.terminal_reward()
        if self.render_mode == "human":
            self.render()
        return self.observe(), reward, terminated, truncated, self.info()

    def action_masks(self) -> np.ndarray:
        """The learner's legal actions as a bool array (sb3-contrib's MaskablePPO calls this)."""
        return self.state.legal_action_mask().astype(bool)

    # --- internals -----------------------------------------------------------------------------
    def play_opponents(self) -> None:
        """Let the opponents decide until the learner must or the game is over."""
        me = self.seat
        self.engine.play(self.state, self.opponent_decides_at, self.rng,
                  until=lambda state: state.current_player() == me,
                  who=lambda seat: f"opponent {self.opponent_label(self.opponent_at(seat))} "
                                   f"at seat {seat}")

    def opponent_at(self, seat: int):
        return self.opponents[(seat - self.seat) % self.game.num_players - 1]

    def opponent_decides_at(self, state, seat: int) -> int:
        return self.opponent_decides(self.opponent_at(seat), state, seat)

    def random_action(self, legal: list[int]) -> int:
        return legal[self.rng.randrange(len(legal))]

    def info(self) -> dict:
        state = self.state
        info: dict = {"action_mask": state.legal_action_mask(), "seat": self.seat}
        if state.is_terminal():
            info.update(self.final_info())
        return info

    def learner_mask(self) -> np.ndarray | None:
        if self.state is None or self.state.current_player() != self.seat:
            return None
        return self.state.legal_action_mask()


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
        """The episode so far as a :class:`~meduris_env.records.record.GameRecord`: the
        learner's seat labelled ``learner``, the others by their agent names."""
        from ..records.record import GameRecord
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

"""One learning seat as a ``gymnasium.Env``, the other seats played by given opponents.

>>> from meduris_env import MedurisSingleAgentEnv
>>> env = MedurisSingleAgentEnv(num_players=2, opponents="random", seat="random")
>>> obs, info = env.reset(seed=0)
>>> obs, reward, terminated, truncated, info = env.step(env.action_space.sample())

This is the environment for stable-baselines3 / sb3-contrib's ``MaskablePPO``:

* **observation**: the learner's observation vector, ``Box(0, high, (OBS_SIZE,), float32)``
  (:mod:`meduris_env.observation`); the legal-action mask is ``action_masks()`` and
  ``info["action_mask"]``;
* **action**: ``Discrete(241)`` (:class:`~meduris_env.spaces.LegalActionSpace`: ``sample()``
  plays a legal action); an illegal action raises :class:`~meduris_env.state.IllegalActionError`;
* **reward**: ``"win"``, ``"score"`` or ``"dense"`` for the learning seat
  (:mod:`meduris_env.rewards`); in ``"dense"`` the VP changes during the opponents' decisions are
  paid with the learner's next step;
* **episode**: one game; ``terminated`` when it ends by the rules, ``truncated`` at ``max_turns``.

Opponents: one per other seat (a list, in seat order from the learner clockwise) or one shared by
all. Each is ``"random"`` (uniform over legal actions, from the env's seeded RNG), an agent name
from :mod:`agents` (``"greedy"``, ``"mcts:200"``), an object with ``act(observation, state)``, or a
callable ``f(observation, state) -> action``. ``observation`` is the opponent's own env
observation (``{"observation", "action_mask"}``) and ``state`` the live engine state (read it or
``clone()`` it, do not change it). Objects with a ``reset(seed)`` method are reset every episode.
``seat`` is the learner's seat, or ``"random"`` to draw it each episode. ``game_record()``
returns the episode as a :class:`~meduris_env.record.GameRecord`.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces

from .chance import resolve_chance
from .constants import END_TRUNCATED, NUM_ACTIONS
from .game import DEFAULT_MAX_TURNS, MedurisGame
from .observation import OBS_SIZE, encode_observation, observation_high, observe_state
from .render import RENDER_MODES, check_render_mode, render_state
from .rewards import SCORE_SCALE, check_reward_mode, terminal_rewards
from .spaces import LegalActionSpace
from .state import IllegalActionError, State

Opponent = Any  # "random", an agent name, an object with act(observation, state), or a callable


def _resolve_opponent(spec: Opponent) -> Opponent:
    if isinstance(spec, str):
        if spec == "random":
            return "random"
        try:
            from agents import make_agent
        except ImportError as err:  # pragma: no cover - agents ship with the package
            raise ValueError(f"opponent {spec!r}: the agents package is not available") from err
        return make_agent(spec)
    if hasattr(spec, "act") or callable(spec):
        return spec
    raise TypeError(f"an opponent is 'random', an agent name, an object with act(observation, "
                    f"state) or a callable; got {spec!r}")


class MedurisSingleAgentEnv(gymnasium.Env):
    """Meduris for one learner against fixed opponents (see the module docstring)."""

    metadata = {"render_modes": RENDER_MODES, "render_fps": 1}

    def __init__(self, num_players: int = 2, opponents: Opponent | Sequence[Opponent] = "random",
                 seat: int | str = 0, board=None, exchange: str = "auto", reward: str = "win",
                 max_turns: int | None = DEFAULT_MAX_TURNS, hidden_materials: bool = False,
                 render_mode: str | None = None):
        self.game = MedurisGame(num_players, board=board, exchange=exchange, max_turns=max_turns)
        n = self.game.num_players
        if seat != "random" and (isinstance(seat, bool) or not isinstance(seat, (int, np.integer))
                                 or not 0 <= seat < n):
            raise ValueError(f"seat must be 0..{n - 1} or 'random', got {seat!r}")
        self.seat_option = seat
        self.reward_mode = check_reward_mode(reward)
        self.hidden_materials = bool(hidden_materials)
        self.render_mode = check_render_mode(render_mode)
        self.set_opponents(opponents)
        self.observation_space = spaces.Box(0.0, observation_high(self.game.max_turns),
                                            dtype=np.float32)
        self.action_space = LegalActionSpace(NUM_ACTIONS, self._learner_mask)
        self._fm, self._fa = self.game._fm, self.game._fa
        self._rng = random.Random()
        self._seed: int | None = None
        self.state: State | None = None
        self.seat = 0 if seat == "random" else int(seat)

    def set_opponents(self, opponents: Opponent | Sequence[Opponent]) -> None:
        """Replace the opponents (from the next decision on); e.g. a self-play pool's pick."""
        n = self.game.num_players
        if isinstance(opponents, (list, tuple)):
            if len(opponents) != n - 1:
                raise ValueError(f"{n} players need {n - 1} opponents, got {len(opponents)}")
            self.opponents = [_resolve_opponent(o) for o in opponents]
        else:
            self.opponents = [_resolve_opponent(opponents)] * (n - 1)

    # --- gymnasium API -------------------------------------------------------------------------
    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        self._seed = seed
        if seed is not None:
            self._rng = random.Random(seed)
        n = self.game.num_players
        if self.seat_option == "random":
            self.seat = self._rng.randrange(n)
        for k, opp in enumerate(self.opponents):
            if hasattr(opp, "reset"):
                opp.reset(None if seed is None else seed * 7919 + k + 1)
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
            if state.end_reason == END_TRUNCATED:
                truncated = True
            else:
                terminated = True
                reward += float(terminal_rewards(state, self.reward_mode)[self.seat])
        if self.render_mode == "human":
            self.render()
        return self._observe(), reward, terminated, truncated, self._info()

    def game_record(self, learner: str = "learner", meta: dict | None = None):
        """The episode so far as a :class:`~meduris_env.record.GameRecord`: the learner's seat
        labelled ``learner``, the others by their agent names."""
        from .record import GameRecord
        if self.state is None:
            raise RuntimeError("call reset() before game_record()")
        n = self.game.num_players
        labels = [learner] * n
        for k, opp in enumerate(self.opponents):
            name = opp if isinstance(opp, str) else getattr(opp, "name", type(opp).__name__)
            labels[(self.seat + 1 + k) % n] = str(name)
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
        state, n, me = self.state, self.game.num_players, self.seat
        while True:
            cur = state.current_player()
            if cur < 0 or cur == me:
                break
            opp = self.opponents[(cur - me) % n - 1]
            if opp == "random":
                legal = state.legal_actions()
                action = legal[self._rng.randrange(len(legal))]
            else:
                uses_obs = getattr(opp, "uses_observation", True)
                obs = observe_state(state, cur, self.hidden_materials) if uses_obs else None
                act: Callable = opp.act if hasattr(opp, "act") else opp
                action = act(obs, state)
            try:
                state.apply_action(action, cur)
            except IllegalActionError as err:
                raise IllegalActionError(f"opponent {opp!r} at seat {cur}: {err}") from None
            resolve_chance(state, self._rng)
        if self.reward_mode != "dense":
            return 0.0
        vp = int(state.vp[me])
        gained, self._last_vp = vp - self._last_vp, vp
        return gained / SCORE_SCALE

    def _encode(self, seat: int) -> np.ndarray:
        out = np.empty(OBS_SIZE, dtype=np.float32)
        encode_observation(self.state._a, self._fm, self._fa, seat, self.hidden_materials, out)
        return out

    def _observe(self) -> np.ndarray:
        return self._encode(self.seat)

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

"""One learning seat of Druids as a ``gymnasium.Env``, the other seats played by opponents.

>>> from druids_env.envs import DruidsSingleAgentEnv
>>> env = DruidsSingleAgentEnv(num_players=2, opponents="random", seat="random")
>>> obs, info = env.reset(seed=0)
>>> obs, reward, terminated, truncated, info = env.step(env.action_space.sample())

For stable-baselines3 and sb3-contrib's ``MaskablePPO``: the **observation** is the learner's
D14 vector (``Box(0, high, (857,), float32)``), the legal-action mask is ``action_masks()`` and
``info["action_mask"]``; the **action** space is ``Discrete(424)`` whose ``sample()`` plays a
legal action (:class:`meduris_env.envs.spaces.LegalActionSpace`); the **reward** is the engine's
``returns()`` for the learner at the end (D13); ``terminated`` when the game ends by the rules,
``truncated`` at ``max_turns`` (``truncation_reward`` as in the AEC env).
``illegal_action="raise"`` (default) raises :class:`~druids_env.engine.errors.IllegalActionError`
on an illegal action and changes nothing; ``"terminate"`` ends the episode there with -1 for
the learner (for algorithms without masks, as PettingZoo's ``TerminateIllegalWrapper``; also
what gymnasium's ``check_env`` needs: its step-determinism check samples an action in one game
and plays it in another, and which actions are legal depends on the cards dealt).

**Opponents**, one per other seat (a list in seat order from the learner on) or one for all:
``"random"`` (uniform over the legal actions, from the env's seeded stream), an object with
``act(observation, state)`` (``observation`` is the seat's own ``{"observation",
"action_mask"}``, ``state`` the live engine state: read or ``clone()`` it, never change it), or
a callable ``f(obs, mask) -> action`` (the seat's own vector and int8 mask, e.g. a policy
network). Objects with ``reset(seed)`` are reset every episode with a seed derived from the
episode's. ``seat`` is the learner's seat or ``"random"`` (drawn each episode).
Registered as ``gymnasium.make("druids_env/Druids-v0", num_players=..., opponents=...)``.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

import gymnasium
import numpy as np

from meduris_env.engine.seeding import STREAM_OPPONENT, derive_seed
from meduris_env.envs.spaces import LegalActionSpace

from ..engine import play, resolve_chance
from ..engine.actions import NUM_ACTIONS
from ..engine.errors import IllegalActionError
from ..engine.game import DEFAULT_MAX_TURNS, DruidsGame
from ..engine.information import observation_tensor
from ..engine.state import DruidsState
from .common import (
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


class DruidsSingleAgentEnv(gymnasium.Env):
    """Druids for one learner against fixed opponents (see the module docstring)."""

    metadata = {"render_modes": list(RENDER_MODES), "render_fps": 1}

    def __init__(self, num_players: int | None = None,
                 opponents: OpponentSpec | Sequence[OpponentSpec] = "random",
                 seat: int | str = 0, *, game: DruidsGame | None = None,
                 max_turns: int | None = DEFAULT_MAX_TURNS, truncation_reward: str = "none",
                 render_mode: str | None = None, illegal_action: str = "raise",
                 **game_options):
        if illegal_action not in ("raise", "terminate"):
            raise ValueError("illegal_action must be 'raise' or 'terminate', got "
                             f"{illegal_action!r}")
        self.illegal_action = illegal_action
        self.game = game_from(game, num_players, max_turns, **game_options)
        n = self.game.num_players
        if seat != "random" and (isinstance(seat, bool) or not isinstance(seat, (int, np.integer))
                                 or not 0 <= seat < n):
            raise ValueError(f"seat must be 0..{n - 1} or 'random', got {seat!r}")
        self.seat_option = seat
        self.truncation_reward = check_truncation_reward(truncation_reward)
        self.render_mode = check_render_mode(render_mode)
        self.set_opponents(opponents)
        self.observation_space = observation_box(self.game)
        self.action_space = LegalActionSpace(NUM_ACTIONS, self._learner_mask)
        self._rng = random.Random()
        self.state: DruidsState | None = None
        self.illegal = False  # the episode ended on an illegal action (illegal_action)
        self.seat = 0 if seat == "random" else int(seat)

    def set_opponents(self, opponents: OpponentSpec | Sequence[OpponentSpec]) -> None:
        """Replace the opponents (from the next decision on)."""
        n = self.game.num_players
        if isinstance(opponents, (list, tuple)):
            if len(opponents) != n - 1:
                raise ValueError(f"{n} players need {n - 1} opponents, got {len(opponents)}")
            self.opponents = [check_opponent(o) for o in opponents]
        else:
            self.opponents = [check_opponent(opponents)] * (n - 1)

    # --- gymnasium API -------------------------------------------------------------------------
    def reset(self, *, seed: int | None = None, options: dict | None = None):
        seed = check_seed(seed)
        super().reset(seed=seed)
        if seed is not None:
            self._rng = random.Random(seed)
        n = self.game.num_players
        if self.seat_option == "random":
            self.seat = self._rng.randrange(n)
        for k, opp in enumerate(self.opponents):
            if callable(getattr(opp, "reset", None)):
                opp.reset(None if seed is None else derive_seed(seed, STREAM_OPPONENT, k))
        start = (options or {}).get("state")
        if start is None:
            self.state = self.game.new_initial_state()
        else:
            if not isinstance(start, DruidsState) or start.game != self.game:
                raise ValueError(f"options['state'] must be a DruidsState of {self.game!r}")
            self.state = start.clone()
        resolve_chance(self.state, self._rng)
        self.illegal = False
        self._play_opponents()
        if self.state.is_terminal():
            raise ValueError("the starting state is already over; there is nothing to decide")
        return self._observe(), self._info()

    def step(self, action):
        if self.state is None:
            raise RuntimeError("call reset() before step()")
        if self.state.is_terminal() or self.illegal:
            raise RuntimeError("the episode is over; call reset()")
        try:
            self.state.apply_action(action, self.seat)
        except IllegalActionError as err:
            if self.illegal_action == "terminate":
                self.illegal = True
                return self._observe(), -1.0, True, False, {**self._info(), "illegal": True}
            raise IllegalActionError(f"learner (seat {self.seat}): {err}") from None
        resolve_chance(self.state, self._rng)
        self._play_opponents()
        state = self.state
        terminated = truncated = False
        reward = 0.0
        if state.is_terminal():
            truncated = state.is_truncated()
            terminated = not truncated
            reward = final_rewards(state, self.truncation_reward)[self.seat]
        if self.render_mode == "human":
            self.render()
        return self._observe(), reward, terminated, truncated, self._info()

    def action_masks(self) -> np.ndarray:
        """The learner's legal actions as a bool array (MaskablePPO calls this)."""
        return self.state.legal_action_mask().astype(bool)

    def render(self):
        return render_view(self.state, self.seat, self.render_mode)

    # --- internals -----------------------------------------------------------------------------
    def _play_opponents(self) -> None:
        me = self.seat
        play(self.state, self._opponent_decides, self._rng,
             until=lambda state: state.current_player() == me,
             who=lambda seat: f"opponent {opponent_label(self._opponent_at(seat))} at seat {seat}")

    def _opponent_at(self, seat: int) -> OpponentSpec:
        return self.opponents[(seat - self.seat) % self.game.num_players - 1]

    def _opponent_decides(self, state: DruidsState, seat: int) -> int:
        return opponent_decision(self._opponent_at(seat), state, seat, self._pick)

    def _pick(self, legal: list[int]) -> int:
        return legal[self._rng.randrange(len(legal))]

    def _observe(self) -> np.ndarray:
        return observation_tensor(self.state, self.seat)

    def _info(self) -> dict:
        state = self.state
        info: dict = {"action_mask": state.legal_action_mask(), "seat": self.seat}
        if state.is_terminal():
            info["scores"] = state.scores()
            info["winners"] = state.winners()
        return info

    def _learner_mask(self) -> np.ndarray | None:
        if self.state is None or self.state.current_player() != self.seat:
            return None
        return self.state.legal_action_mask()

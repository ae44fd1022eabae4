"""One learning seat of any turn-based game as a ``gymnasium.Env``, the other seats played by
given opponents: the game-generic core of Meduris's and Druids' single-agent environments (seat
and opponents, seeding, starting from a state, the opponents' turns, ``illegal_action``, the
terminal reward, the info). A game's environment supplies only its own parts (see the class).
"""

from __future__ import annotations

import random
from collections.abc import Callable

import gymnasium
import numpy as np
from gymnasium import spaces

from meduris_rl.kit.envs.opponents import (
    OpponentError,
    opponent_count,
)
from meduris_rl.kit.envs.spaces import LegalActionSpace
from meduris_rl.kit.envs.turn_based import GameEngine
from meduris_rl.kit.seeding import STREAM_OPPONENT, derive_seed
from meduris_rl.kit.values import (
    ValueCheckError,
    excerpt,
    unwrap_action,
)


class TurnBasedSingleAgentEnv(gymnasium.Env):
    """One learning seat of a turn-based game against opponents: the game-generic core.

    Subclasses set ``engine`` (a :class:`~meduris_rl.kit.envs.turn_based.GameEngine`),
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

"""The AEC and single-agent environments of a game whose seats see one observation vector and
one action mask (Druids', Stone Age's): the kit's turn-based cores
(:mod:`meduris_rl.kit.envs.turn_based`, :mod:`meduris_rl.kit.envs.single_agent`) with the game's
parts taken from one :class:`EnvViews` row. A game's env module is then its docstring (the
contract), its class name and its ``__init__`` (its own options and limit).

What the row holds and the bases do: the engine (:class:`~meduris_rl.kit.envs.turn_based.
GameEngine`), ``observation(state, seat)`` (the seat's vector; :meth:`EnvViews.observe` adds
the mask, zero unless the seat moves), ``observation_box(game)``, ``render_view(state, seat,
mode)`` and the game's name (its agents' hint in an opponent's error); the seed check, the
rewards at the end (``truncation_reward``), the render modes and the simple opponents are the
kit's (:mod:`meduris_rl.kit.envs.views`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from gymnasium import spaces

from meduris_rl.kit.envs.single_agent import TurnBasedSingleAgentEnv
from meduris_rl.kit.envs.turn_based import (
    GameEngine,
    TurnBasedAEC,
    check_illegal_action,
    check_max_cycles,
)
from meduris_rl.kit.envs.views import (
    check_render_mode,
    check_seed,
    check_simple_opponent,
    check_truncation_reward,
    final_rewards,
    simple_opponent_decision,
    simple_opponent_label,
)
from meduris_rl.kit.values import ValueCheckError, excerpt


@dataclass(frozen=True)
class EnvViews:
    """One game's parts of its simple environments (see the module docstring)."""

    engine: GameEngine
    state_label: str  # the state class's name, in messages
    game: str  # the game's row name
    observation: Callable  # observation(state, seat) -> the seat's observation vector
    observation_box: Callable  # observation_box(game) -> spaces.Box
    render_view: Callable  # render_view(state, seat, mode) -> str | None

    def observe(self, state, seat: int) -> dict[str, np.ndarray]:
        """``{"observation", "action_mask"}`` for ``seat`` (the mask is zero unless it
        moves)."""
        if state.current_player() == seat:
            mask = state.legal_action_mask()
        else:
            mask = np.zeros(self.engine.num_actions, dtype=np.int8)
        return {"observation": self.observation(state, seat), "action_mask": mask}

    def mask_box(self) -> spaces.Box:
        return spaces.Box(0, 1, (self.engine.num_actions,), dtype=np.int8)


class SimpleAEC(TurnBasedAEC):
    """A game's AEC env from its :class:`EnvViews` (class attribute ``views``)."""

    views: EnvViews

    @property
    def engine(self) -> GameEngine:
        return self.views.engine

    @property
    def state_label(self) -> str:
        return self.views.state_label

    def configure(self, game, truncation_reward: str, max_cycles: int | None,
                  render_mode: str | None, render_seat: int | None) -> None:
        """The checks and spaces every such env has (called by the game's ``__init__``)."""
        self.truncation_reward = check_truncation_reward(truncation_reward)
        self.max_cycles = check_max_cycles(max_cycles)
        self.render_mode = check_render_mode(render_mode)
        n = game.num_players
        if render_seat is not None and render_seat not in range(n):
            raise ValueCheckError(f"render_seat must be 0..{n - 1} or None, got "
                                  f"{excerpt(render_seat)}")
        self.render_seat = render_seat
        self.setup(game)
        self.observation_spaces = {a: spaces.Dict({
            "observation": self.views.observation_box(self.game),
            "action_mask": self.views.mask_box()}) for a in self.possible_agents}

    def check_seed(self, seed) -> int | None:
        return check_seed(seed)

    def terminal_rewards(self) -> list[float]:
        return final_rewards(self.state, self.truncation_reward)

    def final_info(self, seat: int) -> dict:
        state = self.state
        return {"score": state.scores()[seat],
                "winner": state.is_terminal() and seat in state.winners()}

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        return self.views.observe(self.state, self.seat_of[agent])

    def render(self):
        if self.render_mode is None:
            return None
        seat = self.render_seat
        if seat is None:
            seat = self.seat_of[self.agent_selection]
        return self.views.render_view(self.state, seat, self.render_mode)


class SimpleSingleAgentEnv(TurnBasedSingleAgentEnv):
    """A game's single-agent env from its :class:`EnvViews` (class attribute ``views``)."""

    views: EnvViews
    opponent_label = staticmethod(simple_opponent_label)

    @property
    def engine(self) -> GameEngine:
        return self.views.engine

    @property
    def state_label(self) -> str:
        return self.views.state_label

    def check_opponent(self, spec):
        return check_simple_opponent(spec, self.views.game)

    def configure(self, game, seat, opponents, truncation_reward: str,
                  render_mode: str | None, illegal_action: str) -> None:
        """The checks and spaces every such env has (called by the game's ``__init__``)."""
        self.illegal_action = check_illegal_action(illegal_action)
        self.choose_seat(game, seat)
        self.truncation_reward = check_truncation_reward(truncation_reward)
        self.render_mode = check_render_mode(render_mode)
        self.setup(opponents, self.views.observation_box(self.game))

    def render(self):
        return self.views.render_view(self.state, self.seat, self.render_mode)

    def check_seed(self, seed) -> int | None:
        return check_seed(seed)

    def opponent_decides(self, opp, state, seat: int) -> int:
        return simple_opponent_decision(opp, state, seat, self.random_action, self.views.observe)

    def terminal_reward(self) -> float:
        return final_rewards(self.state, self.truncation_reward)[self.seat]

    def observe(self) -> np.ndarray:
        return self.views.observation(self.state, self.seat)

    def final_info(self) -> dict:
        return {"scores": self.state.scores(), "winners": self.state.winners()}

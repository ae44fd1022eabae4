"""The AEC and single-agent environments of a game whose seats see one observation vector and
one action mask (Druids', Stone Age's): the kit's turn-based cores
(:mod:`meduris_rl.kit.envs.turn_based`, :mod:`meduris_rl.kit.envs.single_agent`) with the game's
parts taken from one :class:`EnvViews` row. A game's env module is then its docstring (the
contract), its class name and its row (its metadata's name: :func:`aec_metadata`).

What the row holds and the bases do: the engine (:class:`~meduris_rl.kit.envs.turn_based.
GameEngine`), ``observation(state, seat)`` (the seat's vector; :meth:`EnvViews.observe` adds
the mask, zero unless the seat moves), ``observation_box(game)``, ``observation_string(state,
seat)`` (the seat's view in words, :meth:`EnvViews.render_view` shows it), the game's name
(its agents' hint in an opponent's error) and ``game_from(game, num_players, **options)``,
the game an env plays (the game's own keywords, such as its turn limit, pass through the
bases' ``__init__`` to it; :func:`game_from` is its shared core); the seed check, the rewards
at the end (``truncation_reward``), the render modes and the simple opponents are the kit's
(:mod:`meduris_rl.kit.envs.views`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
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
    RENDER_MODES,
    OpponentSpec,
    check_render_mode,
    check_seed,
    check_simple_opponent,
    check_truncation_reward,
    final_rewards,
    render_text,
    simple_opponent_decision,
    simple_opponent_label,
)
from meduris_rl.kit.states import seat_observation
from meduris_rl.kit.values import ValueCheckError, excerpt


@dataclass(frozen=True)
class EnvViews:
    """One game's parts of its simple environments (see the module docstring)."""

    engine: GameEngine
    state_label: str  # the state class's name, in messages
    game: str  # the game's row name
    observation: Callable  # observation(state, seat) -> the seat's observation vector
    observation_box: Callable  # observation_box(game) -> spaces.Box
    observation_string: Callable  # observation_string(state, seat) -> the seat's view in words
    game_from: Callable  # game_from(game, num_players, **options) -> the game an env plays

    def observe(self, state, seat: int) -> dict[str, np.ndarray]:
        """``{"observation", "action_mask"}`` for ``seat`` (the mask is zero unless it
        moves)."""
        return seat_observation(state, seat, self.observation)

    def render_view(self, state, seat: int, mode: str | None) -> str | None:
        """``seat``'s own view of ``state`` in words: returned for ``"ansi"``, printed for
        ``"human"``."""
        if mode is None or state is None:
            return None
        return render_text(self.observation_string(state, seat), mode)

    def mask_box(self) -> spaces.Box:
        return spaces.Box(0, 1, (self.engine.num_actions,), dtype=np.int8)


def game_from(game_class: type, game, num_players: int | None, options: dict, **limit):
    """``game`` itself (a ``game_class``), or a ``game_class`` built from ``num_players``
    (None: 2), ``options`` and ``limit`` (the env's default of the game's turn or round limit,
    so no clash with ``game=``); ``game`` with ``num_players`` or options: which would win? a
    :class:`~meduris_rl.kit.values.ValueCheckError`."""
    if game is not None:
        if not isinstance(game, game_class):
            raise ValueCheckError(f"game must be a {game_class.__name__}, got {excerpt(game)}")
        if num_players is not None or options:
            raise ValueCheckError("pass either game= or the game's options, not both")
        return game
    return game_class(2 if num_players is None else num_players, **limit, **options)


class _ViewsEnv:
    """What both simple envs take from their :class:`EnvViews` (class attribute ``views``)."""

    views: EnvViews

    @property
    def engine(self) -> GameEngine:
        return self.views.engine

    @property
    def state_label(self) -> str:
        return self.views.state_label

    def check_seed(self, seed) -> int | None:
        return check_seed(seed)


def aec_metadata(game: str) -> dict:
    """PettingZoo's ``metadata`` of the game ``game``'s AEC env (``<game>_v0``, turn-based)."""
    return {"name": f"{game}_v0", "render_modes": list(RENDER_MODES),
            "is_parallelizable": False, "render_fps": 1}


class SimpleAEC(_ViewsEnv, TurnBasedAEC):
    """A game's AEC env from its :class:`EnvViews` (class attribute ``views``): ``raw_env(
    num_players=None, *, game=None, truncation_reward="none", max_cycles=None,
    render_mode=None, render_seat=None, **game_options)``."""

    def __init__(self, num_players: int | None = None, *, game=None,
                 truncation_reward: str = "none", max_cycles: int | None = None,
                 render_mode: str | None = None, render_seat: int | None = None,
                 **game_options):
        super().__init__()
        self.configure(self.views.game_from(game, num_players, **game_options),
                       truncation_reward, max_cycles, render_mode, render_seat)

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


class SimpleSingleAgentEnv(_ViewsEnv, TurnBasedSingleAgentEnv):
    """A game's single-agent env from its :class:`EnvViews` (class attribute ``views``):
    ``Env(num_players=None, opponents="random", seat=0, *, game=None,
    truncation_reward="none", render_mode=None, illegal_action="raise", **game_options)``."""

    metadata = {"render_modes": list(RENDER_MODES), "render_fps": 1}
    opponent_label = staticmethod(simple_opponent_label)

    def __init__(self, num_players: int | None = None,
                 opponents: OpponentSpec | Sequence[OpponentSpec] = "random",
                 seat: int | str = 0, *, game=None, truncation_reward: str = "none",
                 render_mode: str | None = None, illegal_action: str = "raise",
                 **game_options):
        self.configure(self.views.game_from(game, num_players, **game_options), seat,
                       opponents, truncation_reward, render_mode, illegal_action)

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

    def opponent_decides(self, opp, state, seat: int) -> int:
        return simple_opponent_decision(opp, state, seat, self.random_action, self.views.observe)

    def terminal_reward(self) -> float:
        return final_rewards(self.state, self.truncation_reward)[self.seat]

    def observe(self) -> np.ndarray:
        return self.views.observation(self.state, self.seat)

    def final_info(self) -> dict:
        return {"scores": self.state.scores(), "winners": self.state.winners()}

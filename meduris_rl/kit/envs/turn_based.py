"""The game-generic part of a turn-based PettingZoo AEC environment (Meduris's and Druids').

:class:`TurnBasedAEC` holds what does not depend on the game: the agents ``player_0`` ..
``player_{n-1}`` and their seats, the per-agent legal-action spaces, seeding (one RNG for chance
and the environment's own decisions, one derived stream per action space), starting from a given
state, stepping with PettingZoo's reward accumulation and dead steps, the end of the game
(terminations or truncations, the terminal rewards, the final infos), :meth:`truncate` and
``max_cycles`` (an agent out of decisions is truncated and the environment plays its seat with
random legal actions). A game supplies its parts as hooks: the observation spaces and
:meth:`observe`, the terminal rewards, the final info fields, the seed range, rendering and any
per-step rewards. :func:`wrap_aec` wraps a raw environment like PettingZoo's classic ones.

The engine state must offer ``current_player()``, ``apply_action(action, seat)``,
``legal_actions()``, ``legal_action_mask()``, ``is_terminal()``, ``is_truncated()``,
``clone()`` and ``game``; the game ``num_players`` and ``new_initial_state()``; ``play`` and
``resolve_chance`` are the game's play loop (:mod:`meduris_rl.kit.loop`'s signature).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial

import numpy as np
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from meduris_rl.kit.envs.spaces import LegalActionSpace
from meduris_rl.kit.seeding import STREAM_ACTION_SPACE, derive_seed
from meduris_rl.kit.values import ValueCheckError, excerpt, unwrap_action

ILLEGAL_ACTIONS = ("raise", "terminate")


def agent_name(seat: int) -> str:
    return f"player_{seat}"


def check_max_cycles(max_cycles, integer_types: tuple = (int, np.integer)) -> int | None:
    """``max_cycles`` if it is a positive int (of ``integer_types``) or None."""
    if max_cycles is not None and (isinstance(max_cycles, bool) or not isinstance(
            max_cycles, integer_types) or max_cycles < 1):
        raise ValueCheckError(f"max_cycles must be a positive int or None, got "
                              f"{excerpt(max_cycles)}")
    return max_cycles


def check_illegal_action(illegal_action: str) -> str:
    if not isinstance(illegal_action, str) or illegal_action not in ILLEGAL_ACTIONS:
        raise ValueCheckError(f"illegal_action must be 'raise' or 'terminate', got "
                              f"{excerpt(illegal_action)}")
    return illegal_action


def wrap_aec(raw_class: Callable[..., AECEnv], illegal_action: str = "raise",
             **kwargs) -> AECEnv:
    """``raw_class(**kwargs)`` wrapped like PettingZoo's classic environments:
    ``illegal_action="terminate"`` adds ``TerminateIllegalWrapper`` (the offender gets -1 and
    the game ends), then ``OrderEnforcingWrapper``."""
    check_illegal_action(illegal_action)
    e = raw_class(**kwargs)
    if illegal_action == "terminate":
        e = wrappers.TerminateIllegalWrapper(e, illegal_reward=-1)
    return wrappers.OrderEnforcingWrapper(e)


@dataclass(frozen=True)
class GameEngine:
    """What an environment needs of a game's engine: the state class (what
    ``options["state"]`` must be), its illegal-action exception, the number of player actions
    and the play loop's ``play`` and ``resolve_chance`` (:mod:`meduris_rl.kit.loop`'s
    signatures)."""

    state_type: type
    illegal_action_error: type[Exception]
    num_actions: int
    play: Callable
    resolve_chance: Callable


class TurnBasedAEC(AECEnv):
    """A turn-based AEC environment over a game engine (see the module docstring).

    Subclasses set ``engine`` (a :class:`GameEngine`) and ``state_label`` (how messages name
    the state class), call :meth:`setup` from ``__init__`` and
    implement :meth:`observe`, :meth:`render`, :meth:`terminal_rewards` and
    :meth:`final_info`; :meth:`check_seed`, :meth:`reset_extra`, :meth:`step_rewards` and
    :meth:`must_decide_message` have defaults.
    """

    max_cycles: int | None = None
    engine: GameEngine
    state_label = "state"

    def setup(self, game) -> None:
        """The game-independent attributes: ``game``, the agents, the action spaces, the RNG
        and seed, ``state`` (``max_cycles`` the subclass sets, with :func:`check_max_cycles`)."""
        self.game = game
        self.possible_agents = [agent_name(s) for s in range(game.num_players)]
        self.seat_of = {a: s for s, a in enumerate(self.possible_agents)}
        n = self.engine.num_actions
        self.action_spaces = {a: LegalActionSpace(n, partial(self.legal_mask_of, s))
                              for s, a in enumerate(self.possible_agents)}
        self.rng: random.Random | None = None
        self.episode_seed: int | None = None
        self.state = None

    # --- spaces --------------------------------------------------------------------------------
    def observation_space(self, agent: str):
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> LegalActionSpace:
        return self.action_spaces[agent]

    # --- hooks ---------------------------------------------------------------------------------
    def check_seed(self, seed) -> int | None:
        return seed

    def reset_extra(self) -> None:
        """Per-game bookkeeping at the start of an episode (after the state is set)."""

    def step_rewards(self, live: list[str]) -> None:
        """Per-step rewards into ``self.rewards`` (zeroed before); ``live`` as in step."""

    def must_decide_message(self, agent: str) -> str:
        return f"{agent} must decide; None is only for agents whose game is over"

    def terminal_rewards(self) -> list[float]:
        raise NotImplementedError

    def final_info(self, seat: int) -> dict:
        raise NotImplementedError

    # --- episode -------------------------------------------------------------------------------
    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        seed = self.check_seed(seed)
        self.episode_seed = seed
        if seed is not None:
            self.rng = random.Random(seed)
            # each agent's action space gets its own stream, so sample(mask) repeats too
            for s, agent in enumerate(self.possible_agents):
                self.action_spaces[agent].seed(derive_seed(seed, STREAM_ACTION_SPACE, s))
        elif self.rng is None:
            self.rng = random.Random()
        self.state = self.start_state((options or {}).get("state"))
        self.engine.resolve_chance(self.state, self.rng)
        self.agents = self.possible_agents[:]
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: {} for a in self.agents}
        self.decisions = [0] * self.game.num_players
        self.reset_extra()
        self.agent_selection = self.possible_agents[max(self.state.current_player(), 0)]
        self.check_game_over(self.agents)
        if self.render_mode == "human":
            self.render()

    def start_state(self, start):
        """A new initial state, or a copy of ``start`` (of this env's game)."""
        if start is None:
            return self.game.new_initial_state()
        if not isinstance(start, self.engine.state_type) or start.game != self.game:
            raise ValueError(f"options['state'] must be a {self.state_label} of this env's game "
                             f"({self.game!r})")
        return start.clone()

    def step(self, action) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        if action is None:
            raise self.engine.illegal_action_error(self.must_decide_message(agent))
        seat = self.seat_of[agent]
        try:
            self.state.apply_action(unwrap_action(action), seat)  # SB3's array(3) too
        except self.engine.illegal_action_error as err:
            raise self.engine.illegal_action_error(f"{agent}: {err}") from None
        live = [a for a in self.agents if not (self.terminations[a] or self.truncations[a])]
        self.decisions[seat] += 1
        self._cumulative_rewards[agent] = 0.0
        self.engine.resolve_chance(self.state, self.rng)
        if self.max_cycles is not None:
            self.spend_budget(seat)
        self.after_step(live)
        if self.render_mode == "human":
            self.render()

    def spend_budget(self, seat: int) -> None:
        """``max_cycles``: an agent that has made its last decision is truncated; the seats of
        truncated agents are played by the environment (uniformly random legal actions from the
        seeded RNG) until an agent with budget left must decide or nobody has any left."""
        if self.decisions[seat] >= self.max_cycles:
            self.truncations[self.possible_agents[seat]] = True

        def has_budget(state) -> bool:
            return all(self.truncations.values()) or \
                self.decisions[state.current_player()] < self.max_cycles

        self.engine.play(self.state, self.random_decision, self.rng, until=has_budget)

    def random_decision(self, state, seat: int) -> int:
        legal = state.legal_actions()
        return legal[self.rng.randrange(len(legal))]

    def after_step(self, live: list[str]) -> None:
        """Rewards, terminations and the next agent after a step; ``live`` were the agents
        still playing before it."""
        for a in self.agents:
            self.rewards[a] = 0.0
        self.step_rewards(live)
        self.check_game_over(live)
        cur = self.state.current_player()
        if cur >= 0:
            self.agent_selection = self.possible_agents[cur]
        if any(self.terminations[a] or self.truncations[a] for a in self.agents):
            self._deads_step_first()
        self._accumulate_rewards()

    def check_game_over(self, live: list[str]) -> None:
        """Set terminations/truncations and the terminal rewards once the game has ended."""
        state = self.state
        if state.is_terminal():
            flags = self.truncations if state.is_truncated() else self.terminations
            bonus = self.terminal_rewards()
            for a in live:
                self.rewards[a] += bonus[self.seat_of[a]]
                flags[a] = True
        for a in self.agents:
            if (self.terminations[a] or self.truncations[a]) and not self.infos[a]:
                self.infos[a] = self.final_info(self.seat_of[a])

    def truncate(self) -> None:
        """End the episode now as truncated for every agent still playing (no terminal reward)."""
        for a in self.agents:
            if not self.terminations[a]:
                self.truncations[a] = True
                self.infos[a] = self.final_info(self.seat_of[a])
        self._deads_step_first()

    # --- observing -----------------------------------------------------------------------------
    def legal_mask_of(self, seat: int) -> np.ndarray | None:
        if self.state is None or self.state.current_player() != seat:
            return None
        return self.state.legal_action_mask()

    def close(self) -> None:
        pass

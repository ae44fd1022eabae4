"""Druids as a PettingZoo AEC environment (turn-based, with action masks).

>>> from druids_env.envs import env
>>> e = env(num_players=3)
>>> e.reset(seed=7)
>>> for agent in e.agent_iter():
...     obs, reward, terminated, truncated, info = e.last()
...     done = terminated or truncated
...     e.step(None if done else e.action_space(agent).sample(obs["action_mask"]))

**Agents** ``player_0`` .. ``player_{n-1}``: the seats (D2; seat 0 starts, D3 ruling).
``agent_selection`` is whoever must decide next (collect, play, discard, draw: D4-D10); the
engine takes decisions with a single legal action itself.

**Actions** ``Discrete(424)``, the engine's player actions (docs/druids.md). Illegal actions
raise :class:`~druids_env.engine.errors.IllegalActionError` and change nothing (or, with
``illegal_action="terminate"``, end the game with -1 for the offender). ``sample()`` without a
mask draws a legal action (:class:`meduris_env.envs.spaces.LegalActionSpace`).

**Observations** ``Dict(observation=Box(0, high, (857,), float32), action_mask=Box(0, 1, (424,),
int8))``: what that agent knows (D14, :func:`druids_env.engine.observation_tensor`), never
another hand or a face-down card it did not play. The mask is zero for agents not to move.

**Rewards** at the end only: the engine's ``returns()`` (D13: winners share +1, the others
-1). **Termination** when the game ends by the rules (D11, D12); **truncation** at
``max_turns`` (default 500): ``truncation_reward="none"`` pays nothing then, ``"standings"`` the
returns on the standings. ``max_cycles=k``: each agent makes at most k decisions, after which
it is truncated and the environment plays its seat (random legal actions from the seeded
stream), as PettingZoo's ``max_cycles_test`` expects.

Chance (deals, draws, places revealed) is sampled inside the environment from
``reset(seed=...)``: the same seed and actions give the same game. ``reset(options={"state":
s})`` starts from a :class:`~druids_env.engine.state.DruidsState` of the same game.
``render_mode="ansi"`` returns, ``"human"`` prints, the view of the agent to move (or
``render_seat``): its own hand only.
"""

from __future__ import annotations

import random
from functools import partial

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from meduris_env.engine.seeding import STREAM_ACTION_SPACE, derive_seed
from meduris_env.envs.spaces import LegalActionSpace

from ..engine import play, resolve_chance
from ..engine.actions import NUM_ACTIONS
from ..engine.errors import IllegalActionError
from ..engine.game import DEFAULT_MAX_TURNS, DruidsGame
from ..engine.state import DruidsState
from .common import (
    RENDER_MODES,
    check_render_mode,
    check_seed,
    check_truncation_reward,
    final_rewards,
    game_from,
    mask_box,
    observation_box,
    observe,
    render_view,
)


def agent_name(seat: int) -> str:
    return f"player_{seat}"


class raw_env(AECEnv):
    """Druids, unwrapped (see the module docstring)."""

    metadata = {"name": "druids_v0", "render_modes": list(RENDER_MODES),
                "is_parallelizable": False, "render_fps": 1}

    def __init__(self, num_players: int | None = None, *, game: DruidsGame | None = None,
                 max_turns: int | None = DEFAULT_MAX_TURNS, truncation_reward: str = "none",
                 max_cycles: int | None = None, render_mode: str | None = None,
                 render_seat: int | None = None, **game_options):
        super().__init__()
        self.game = game_from(game, num_players, max_turns, **game_options)
        self.truncation_reward = check_truncation_reward(truncation_reward)
        if max_cycles is not None and (isinstance(max_cycles, bool) or not isinstance(
                max_cycles, (int, np.integer)) or max_cycles < 1):
            raise ValueError(f"max_cycles must be a positive int or None, got {max_cycles!r}")
        self.max_cycles = max_cycles
        self.render_mode = check_render_mode(render_mode)
        n = self.game.num_players
        if render_seat is not None and render_seat not in range(n):
            raise ValueError(f"render_seat must be 0..{n - 1} or None, got {render_seat!r}")
        self.render_seat = render_seat
        self.possible_agents = [agent_name(s) for s in range(n)]
        self._seat_of = {a: s for s, a in enumerate(self.possible_agents)}
        self._observation_spaces = {a: spaces.Dict({
            "observation": observation_box(self.game), "action_mask": mask_box()})
            for a in self.possible_agents}
        self._action_spaces = {a: LegalActionSpace(NUM_ACTIONS, partial(self._legal_mask_of, s))
                               for s, a in enumerate(self.possible_agents)}
        self._rng = random.Random()
        self._seed: int | None = None
        self.state: DruidsState | None = None

    def observation_space(self, agent: str) -> spaces.Dict:
        return self._observation_spaces[agent]

    def action_space(self, agent: str) -> LegalActionSpace:
        return self._action_spaces[agent]

    # --- episode -------------------------------------------------------------------------------
    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        seed = check_seed(seed)
        self._seed = seed
        if seed is not None:
            self._rng = random.Random(seed)
            for s, agent in enumerate(self.possible_agents):
                self._action_spaces[agent].seed(derive_seed(seed, STREAM_ACTION_SPACE, s))
        start = (options or {}).get("state")
        if start is None:
            self.state = self.game.new_initial_state()
        else:
            if not isinstance(start, DruidsState) or start.game != self.game:
                raise ValueError("options['state'] must be a DruidsState of this env's game "
                                 f"({self.game!r})")
            self.state = start.clone()
        resolve_chance(self.state, self._rng)
        self.agents = self.possible_agents[:]
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: {} for a in self.agents}
        self._decisions = [0] * self.game.num_players
        self.agent_selection = self.possible_agents[max(self.state.current_player(), 0)]
        self._check_game_over(self.agents)
        if self.render_mode == "human":
            self.render()

    def step(self, action) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        if action is None:
            raise IllegalActionError(f"{agent} must decide; None is only for agents whose game "
                                     "is over")
        seat = self._seat_of[agent]
        try:
            self.state.apply_action(action, seat)
        except IllegalActionError as err:
            raise IllegalActionError(f"{agent}: {err}") from None
        live = [a for a in self.agents if not (self.terminations[a] or self.truncations[a])]
        self._decisions[seat] += 1
        self._cumulative_rewards[agent] = 0.0
        resolve_chance(self.state, self._rng)
        if self.max_cycles is not None:
            self._spend_budget(seat)
        for a in self.agents:
            self.rewards[a] = 0.0
        self._check_game_over(live)
        cur = self.state.current_player()
        if cur >= 0:
            self.agent_selection = self.possible_agents[cur]
        if any(self.terminations[a] or self.truncations[a] for a in self.agents):
            self._deads_step_first()
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def _spend_budget(self, seat: int) -> None:
        """``max_cycles``: an agent that has made its last decision is truncated; the
        environment plays truncated agents' seats until an agent with budget left must decide
        or nobody has any left."""
        if self._decisions[seat] >= self.max_cycles:
            self.truncations[self.possible_agents[seat]] = True

        def has_budget(state: DruidsState) -> bool:
            return all(self.truncations.values()) or \
                self._decisions[state.current_player()] < self.max_cycles

        play(self.state, self._random_decision, self._rng, until=has_budget)

    def _random_decision(self, state: DruidsState, seat: int) -> int:
        legal = state.legal_actions()
        return legal[self._rng.randrange(len(legal))]

    def _check_game_over(self, live: list[str]) -> None:
        state = self.state
        if state.is_terminal():
            flags = self.truncations if state.is_truncated() else self.terminations
            bonus = final_rewards(state, self.truncation_reward)
            for a in live:
                self.rewards[a] += bonus[self._seat_of[a]]
                flags[a] = True
        for a in self.agents:
            if (self.terminations[a] or self.truncations[a]) and not self.infos[a]:
                self.infos[a] = self._final_info(self._seat_of[a])

    def truncate(self) -> None:
        """End the episode now as truncated for every agent still playing (no reward)."""
        for a in self.agents:
            if not self.terminations[a]:
                self.truncations[a] = True
                self.infos[a] = self._final_info(self._seat_of[a])
        self._deads_step_first()

    def _final_info(self, seat: int) -> dict:
        state = self.state
        return {"score": state.scores()[seat],
                "winner": state.is_terminal() and seat in state.winners()}

    # --- observing -----------------------------------------------------------------------------
    def observe(self, agent: str) -> dict[str, np.ndarray]:
        return observe(self.state, self._seat_of[agent])

    def _legal_mask_of(self, seat: int) -> np.ndarray | None:
        if self.state is None or self.state.current_player() != seat:
            return None
        return self.state.legal_action_mask()

    def render(self):
        if self.render_mode is None:
            return None
        seat = self.render_seat
        if seat is None:
            seat = self._seat_of[self.agent_selection]
        return render_view(self.state, seat, self.render_mode)

    def close(self) -> None:
        pass


def env(illegal_action: str = "raise", **kwargs) -> AECEnv:
    """The Druids AEC environment wrapped like PettingZoo's classic ones (keyword arguments:
    :class:`raw_env`'s; ``illegal_action="terminate"`` adds ``TerminateIllegalWrapper``)."""
    if illegal_action not in ("raise", "terminate"):
        raise ValueError(f"illegal_action must be 'raise' or 'terminate', got {illegal_action!r}")
    e = raw_env(**kwargs)
    if illegal_action == "terminate":
        e = wrappers.TerminateIllegalWrapper(e, illegal_reward=-1)
    return wrappers.OrderEnforcingWrapper(e)

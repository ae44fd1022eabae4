"""Meduris as a PettingZoo AEC environment (the classic turn-based API, with action masking).

>>> from meduris_env import env
>>> e = env(num_players=3)
>>> e.reset(seed=7)
>>> for agent in e.agent_iter():
...     obs, reward, terminated, truncated, info = e.last()
...     done = terminated or truncated
...     action = None if done else e.action_space(agent).sample(obs["action_mask"])
...     e.step(action)

**Agents** ``player_0`` .. ``player_{n-1}``: the seats in turn order (clockwise, R6); seat 0
starts. ``agent_selection`` is whoever must decide next: worker placement (R6), "+1"/"-1" (R9,
R10), the turn action (R11-R14) or an offering (R19, R20). Decisions are not strictly
alternating: a "+1" asks every player in turn, a ritual asks each hut's owner.

**Actions** ``Discrete(241)``, the engine's flat action space (README "Action space"). Illegal
actions raise :class:`~meduris_env.engine.state.IllegalActionError` and change nothing (or, with
``illegal_action="terminate"``, end the game with -1 for the offender, as PettingZoo's classic
environments do). The action space's ``sample()`` without a mask draws a legal action.

**Observations** ``Dict(observation=Box(0, high, (OBS_SIZE,) = (1470,), float32),
action_mask=Box(0, 1, (241,), int8))``: the observer's view (:mod:`meduris_env.envs.observation`;
observer first, then the others clockwise). The mask is all zero for agents that are not to move.

**Rewards** ``reward="win" | "score" | "dense"`` (:mod:`meduris_env.envs.rewards`).

**Termination** when the game ends by the rules (R22-R26); **truncation** when ``max_turns``
turns have been played: ``truncation_reward="none"`` (default) pays no terminal reward then,
``"standings"`` pays the scheme's terminal reward on the standings at the cut (in ``"win"``, the
engine's ``State.returns()``). The final infos' ``winner`` is R26's ranking either way (the
standings at a cut, as the game record's ``winners``). With ``max_cycles=k`` each agent makes
at most k decisions: after its k-th it is truncated, and the environment plays its seat
(random legal actions from the seeded RNG) while the others finish theirs, as PettingZoo's
``max_cycles_test`` expects.
Chance (bonus chips R4, the die R7) is sampled inside the environment from ``reset(seed=...)``;
the same seed and actions give the same game, bit for bit.

Arguments:
    game: a :class:`~meduris_env.engine.game.MedurisGame`; or, instead, its options:
    num_players: 2, 3 or 4 (R1).
    board: ``None`` (the board for the player count), ``"2-3"``, ``"4"``, a path or a dict.
    exchange: ``"auto"`` (the engine makes 3-for-1 exchanges, R15) or ``"manual"``.
    max_turns: turn limit (truncation); ``None`` for none. Default 1000.
    reward: see above.
    truncation_reward: ``"none"`` (default) or ``"standings"``, see above.
    max_cycles: optional cap on each agent's decisions (PettingZoo convention; see above).
    hidden_materials: opponents' chips behind their screens show only as a total (R2).
    render_mode: ``"human"`` (print the board), ``"ansi"`` (return it as text), ``"rgb_array"``.
    illegal_action: ``"raise"`` (default) or ``"terminate"``.

``game_record(agents)`` returns the episode as a :class:`~meduris_env.records.record.GameRecord`
(``.save(path)``; it replays exactly, and ``meduris replay`` shows it).

``reset(options={"state": s})`` starts from a given engine
:class:`~meduris_env.engine.state.State` (of the same game) instead of a new game, e.g. a
position loaded with ``meduris_env.load_state``.
"""

from __future__ import annotations

import random
from functools import partial

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from ..engine.constants import END_TRUNCATED, NUM_ACTIONS, TERMINAL
from ..engine.game import MedurisGame, game_from
from ..engine.loop import play, resolve_chance
from ..engine.seeding import STREAM_ACTION_SPACE, derive_seed
from ..engine.state import IllegalActionError, State
from ..engine.values import HASHED_SEEDS, check_int
from ..render.modes import RENDER_MODES, check_render_mode, render_state
from .observation import observation_high, observe_state
from .rewards import SCORE_SCALE, check_reward_mode, check_truncation_reward, final_rewards
from .spaces import LegalActionSpace


def agent_name(seat: int) -> str:
    return f"player_{seat}"


class raw_env(AECEnv):
    """Meduris, unwrapped (see the module docstring for spaces, rewards and arguments)."""

    metadata = {"name": "meduris_v0", "render_modes": RENDER_MODES, "is_parallelizable": False,
                "render_fps": 1}

    def __init__(self, num_players: int | None = None, *, game: MedurisGame | None = None,
                 reward: str = "win", truncation_reward: str = "none",
                 max_cycles: int | None = None,
                 hidden_materials: bool = False, render_mode: str | None = None,
                 **game_options):
        super().__init__()
        if num_players is not None:
            game_options["num_players"] = num_players
        self.game = game_from(game, **game_options)
        self.reward_mode = check_reward_mode(reward)
        self.truncation_reward = check_truncation_reward(truncation_reward)
        if max_cycles is not None and (isinstance(max_cycles, bool) or not isinstance(
                max_cycles, (int, np.integer)) or max_cycles < 1):
            raise ValueError(f"max_cycles must be a positive int or None, got {max_cycles!r}")
        self.max_cycles = max_cycles
        self.hidden_materials = bool(hidden_materials)
        self.render_mode = check_render_mode(render_mode)
        n = self.game.num_players
        self.possible_agents = [agent_name(s) for s in range(n)]
        self._seat_of = {a: s for s, a in enumerate(self.possible_agents)}
        high = observation_high(self.game.max_turns)
        self._observation_spaces = {a: spaces.Dict({
            "observation": spaces.Box(0.0, high, dtype=np.float32),
            "action_mask": spaces.Box(0, 1, (NUM_ACTIONS,), dtype=np.int8),
        }) for a in self.possible_agents}
        self._action_spaces = {a: LegalActionSpace(NUM_ACTIONS, partial(self._legal_mask_of, s))
                               for s, a in enumerate(self.possible_agents)}
        self._rng: random.Random | None = None
        self._seed: int | None = None
        self.state: State | None = None

    # --- spaces --------------------------------------------------------------------------------
    def observation_space(self, agent: str) -> spaces.Dict:
        return self._observation_spaces[agent]

    def action_space(self, agent: str) -> LegalActionSpace:
        return self._action_spaces[agent]

    # --- episode -------------------------------------------------------------------------------
    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        if seed is not None:
            seed = check_int("seed", seed, *HASHED_SEEDS)  # numpy ints too
        self._seed = seed
        if seed is not None:
            self._rng = random.Random(seed)
            # each agent's action space gets its own stream, so sample(mask) repeats too
            for s, agent in enumerate(self.possible_agents):
                self._action_spaces[agent].seed(derive_seed(seed, STREAM_ACTION_SPACE, s))
        elif self._rng is None:
            self._rng = random.Random()
        start = (options or {}).get("state")
        if start is None:
            self.state = self.game.new_initial_state()
        else:
            if not isinstance(start, State) or start.game != self.game:
                raise ValueError("options['state'] must be a meduris State of this env's game "
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
        self._last_vp = self.state.scores()
        self._skip_agent_selection = None
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
            kind = self.state.pending_decision()["kind"]
            raise IllegalActionError(f"{agent} must decide ({kind}); None is only for agents "
                                     "whose game is over")
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
        self._after_step(live)
        if self.render_mode == "human":
            self.render()

    def _spend_budget(self, seat: int) -> None:
        """``max_cycles``: an agent that has made its last decision is truncated; the seats of
        truncated agents are played by the environment (uniformly random legal actions from the
        seeded RNG) until an agent with budget left must decide or nobody has any left."""
        if self._decisions[seat] >= self.max_cycles:
            self.truncations[self.possible_agents[seat]] = True

        def has_budget(state: State) -> bool:
            return all(self.truncations.values()) or \
                self._decisions[state.current_player()] < self.max_cycles

        play(self.state, self._random_decision, self._rng, until=has_budget)

    def _random_decision(self, state: State, seat: int) -> int:
        legal = state.legal_actions()
        return legal[self._rng.randrange(len(legal))]

    def _after_step(self, live: list[str]) -> None:
        """Rewards, terminations and the next agent after a step; ``live`` were the agents
        still playing before it."""
        state = self.state
        for a in self.agents:
            self.rewards[a] = 0.0
        if self.reward_mode == "dense":
            vp = state.scores()
            for s, gained in enumerate((vp - self._last_vp).tolist()):
                if gained and self.possible_agents[s] in live:
                    self.rewards[self.possible_agents[s]] = gained / SCORE_SCALE
            self._last_vp = vp
        self._check_game_over(live)
        cur = state.current_player()
        if cur >= 0:
            self.agent_selection = self.possible_agents[cur]
        if any(self.terminations[a] or self.truncations[a] for a in self.agents):
            self._deads_step_first()
        self._accumulate_rewards()

    def _check_game_over(self, live: list[str]) -> None:
        """Set terminations/truncations and the terminal rewards once the game has ended."""
        state = self.state
        if state.current_player() == TERMINAL:
            flags = self.truncations if state.end_reason == END_TRUNCATED else self.terminations
            bonus = final_rewards(state, self.reward_mode, self.truncation_reward).tolist()
            for a in live:
                self.rewards[a] += bonus[self._seat_of[a]]
                flags[a] = True
        for a in self.agents:
            if (self.terminations[a] or self.truncations[a]) and not self.infos[a]:
                self.infos[a] = self._final_info(self._seat_of[a])

    def truncate(self) -> None:
        """End the episode now as truncated for every agent still playing (no terminal reward)."""
        for a in self.agents:
            if not self.terminations[a]:
                self.truncations[a] = True
                self.infos[a] = self._final_info(self._seat_of[a])
        self._deads_step_first()

    def _final_info(self, seat: int) -> dict:
        state = self.state
        return {"vp": int(state.vp[seat]),
                "winner": state.is_terminal() and seat in state.winners()}

    # --- observing -----------------------------------------------------------------------------
    def observe(self, agent: str) -> dict[str, np.ndarray]:
        return observe_state(self.state, self._seat_of[agent], self.hidden_materials)

    def _legal_mask_of(self, seat: int) -> np.ndarray | None:
        if self.state is None or self.state.current_player() != seat:
            return None
        return self.state.legal_action_mask()

    # --- rendering -----------------------------------------------------------------------------
    def render(self):
        return render_state(self.state, self.render_mode)

    def game_record(self, agents: list[str] | None = None, meta: dict | None = None):
        """The episode so far (all of it, chance included) as a game record; ``agents``
        labels the seats (default: the agent names)."""
        from ..records.record import GameRecord
        if self.state is None:
            raise RuntimeError("call reset() before game_record()")
        return GameRecord.from_state(self.state, agents or list(self.possible_agents),
                                     self._seed, meta)

    def close(self) -> None:
        pass


def env(illegal_action: str = "raise", **kwargs) -> AECEnv:
    """The Meduris AEC environment, wrapped like PettingZoo's classic environments.

    Keyword arguments are those of :class:`raw_env`; ``illegal_action="terminate"`` adds
    PettingZoo's ``TerminateIllegalWrapper`` (the offender gets -1 and the game ends) instead of
    raising :class:`~meduris_env.engine.state.IllegalActionError`.
    """
    if illegal_action not in ("raise", "terminate"):
        raise ValueError(f"illegal_action must be 'raise' or 'terminate', got {illegal_action!r}")
    e = raw_env(**kwargs)
    if illegal_action == "terminate":
        e = wrappers.TerminateIllegalWrapper(e, illegal_reward=-1)
    return wrappers.OrderEnforcingWrapper(e)

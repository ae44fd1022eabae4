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

``game_record(agents)`` returns the episode as a :class:`~meduris_rl.kit.records.GameRecord`
(``.save(path)``; it replays exactly, and ``meduris replay`` shows it).

``reset(options={"state": s})`` starts from a given engine
:class:`~meduris_env.engine.state.State` (of the same game) instead of a new game, e.g. a
position loaded with ``meduris_env.load_state``.
"""

from __future__ import annotations

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from meduris_rl.kit.envs.turn_based import (
    GameEngine,
    TurnBasedAEC,
    agent_name,
    check_max_cycles,
    wrap_aec,
)
from meduris_rl.kit.loop import play, resolve_chance
from meduris_rl.kit.values import SEED_MAX, check_bool, check_int

from ..engine.constants import NUM_ACTIONS
from ..engine.game import MedurisGame, game_from
from ..engine.state import IllegalActionError, State
from ..render.modes import RENDER_MODES, check_render_mode, render_state
from .observation import observation_high, observe_state
from .rewards import SCORE_SCALE, check_reward_mode, check_truncation_reward, final_rewards

__all__ = ["MEDURIS_ENGINE", "agent_name", "env", "raw_env"]

# what the environments need of the Meduris engine (the AEC and the single-agent env)
MEDURIS_ENGINE = GameEngine(State, IllegalActionError, NUM_ACTIONS, play, resolve_chance)


class raw_env(TurnBasedAEC):
    """Meduris, unwrapped (see the module docstring for spaces, rewards and arguments)."""

    metadata = {"name": "meduris_v0", "render_modes": RENDER_MODES, "is_parallelizable": False,
                "render_fps": 1}
    engine = MEDURIS_ENGINE
    state_label = "meduris State"

    def __init__(self, num_players: int | None = None, *, game: MedurisGame | None = None,
                 reward: str = "win", truncation_reward: str = "none",
                 max_cycles: int | None = None,
                 hidden_materials: bool = False, render_mode: str | None = None,
                 **game_options):
        super().__init__()
        if num_players is not None:
            game_options["num_players"] = num_players
        game = game_from(game, **game_options)
        self.reward_mode = check_reward_mode(reward)
        self.truncation_reward = check_truncation_reward(truncation_reward)
        self.max_cycles = check_max_cycles(max_cycles)
        self.hidden_materials = check_bool("hidden_materials", hidden_materials)
        self.render_mode = check_render_mode(render_mode)
        self.setup(game)
        high = observation_high(self.game.max_turns)
        self.observation_spaces = {a: spaces.Dict({
            "observation": spaces.Box(0.0, high, dtype=np.float32),
            "action_mask": spaces.Box(0, 1, (NUM_ACTIONS,), dtype=np.int8),
        }) for a in self.possible_agents}

    # --- the game's parts ----------------------------------------------------------------------
    def check_seed(self, seed) -> int | None:
        return None if seed is None else check_int("seed", seed, 0, SEED_MAX)  # numpy ints too

    def reset_extra(self) -> None:
        self._last_vp = self.state.scores()
        self._skip_agent_selection = None

    def must_decide_message(self, agent: str) -> str:
        kind = self.state.pending_decision()["kind"]
        return f"{agent} must decide ({kind}); None is only for agents whose game is over"

    def step_rewards(self, live: list[str]) -> None:
        """``"dense"``: the VP each live agent gained in the step."""
        if self.reward_mode == "dense":
            vp = self.state.scores()
            for s, gained in enumerate((vp - self._last_vp).tolist()):
                if gained and self.possible_agents[s] in live:
                    self.rewards[self.possible_agents[s]] = gained / SCORE_SCALE
            self._last_vp = vp

    def terminal_rewards(self) -> list[float]:
        return final_rewards(self.state, self.reward_mode, self.truncation_reward).tolist()

    def final_info(self, seat: int) -> dict:
        state = self.state
        return {"vp": int(state.vp[seat]),
                "winner": state.is_terminal() and seat in state.winners()}

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        return observe_state(self.state, self.seat_of[agent], self.hidden_materials)

    # --- rendering -----------------------------------------------------------------------------
    def render(self):
        return render_state(self.state, self.render_mode)

    def game_record(self, agents: list[str] | None = None, meta: dict | None = None):
        """The episode so far (all of it, chance included) as a game record; ``agents``
        labels the seats (default: the agent names)."""
        from meduris_rl.kit.records import GameRecord
        if self.state is None:
            raise RuntimeError("call reset() before game_record()")
        return GameRecord.from_state(self.state, agents or list(self.possible_agents),
                                     self.episode_seed, meta)


def env(illegal_action: str = "raise", **kwargs) -> AECEnv:
    """The Meduris AEC environment, wrapped like PettingZoo's classic environments.

    Keyword arguments are those of :class:`raw_env`; ``illegal_action="terminate"`` adds
    PettingZoo's ``TerminateIllegalWrapper`` (the offender gets -1 and the game ends) instead of
    raising :class:`~meduris_env.engine.state.IllegalActionError`.
    """
    return wrap_aec(raw_env, illegal_action, **kwargs)

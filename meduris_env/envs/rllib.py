"""Meduris as an RLlib ``MultiAgentEnv`` over the engine (:class:`MedurisMultiAgentEnv`).

Agents are ``"player_0"`` .. ``"player_{n-1}"`` (the seats, 2-4 players, R1); only the agent
that must decide receives an observation, ``{"observations": the 1470-float vector of
:mod:`meduris_env.envs.observation` scaled into [0, 1] by ``observation_high(max_turns)``,
"action_mask": the 241 legal actions as 0/1 float32}``. Chance (bonus chips R4, the die R7) is
drawn from a ``random.Random`` seeded per episode with ``derive_seed``. At the end every seat
gets a last observation and its reward, the ``"win"`` scheme of :mod:`meduris_env.envs.rewards`
(winners share +1, losers share -1); a game cut at ``max_turns`` is truncated (``__all__``) and
pays nothing.

Ray is imported lazily: this module imports without it (Ray and RLlib live in their own
environment, ``.venv-ray``: RLlib 2.60 pins gymnasium 1.2.2). The game logic is
:class:`MedurisMultiAgentCore`, plain Python; :class:`MedurisMultiAgentEnv` is that logic on
RLlib's ``MultiAgentEnv`` base class, made the first time the name is looked up (``from
meduris_env.envs.rllib import MedurisMultiAgentEnv``), which then imports Ray; without Ray
that lookup raises ImportError naming the fix. The class made is cached, so every lookup (and
pickling it by name for RLlib's EnvRunner actors) gives the same class.
"""

from __future__ import annotations

import random
from functools import partial

import gymnasium as gym
import numpy as np

from meduris_rl.kit.envs.spaces import LegalActionSpace
from meduris_rl.kit.loop import resolve_chance
from meduris_rl.kit.seeding import STREAM_ACTION_SPACE, STREAM_ENV, derive_seed

from ..engine.constants import NUM_ACTIONS
from ..engine.game import DEFAULT_MAX_TURNS, MedurisGame
from .observation import OBS_SIZE, observation_high, observation_vector
from .rewards import terminal_rewards

RAY_MISSING = "RLlib training needs Ray: install the extra: pip install -e '.[ray]'"

# (and MedurisMultiAgentEnv, made on first use: not in __all__, which * would make need Ray)
__all__ = ["RAY_MISSING", "MedurisMultiAgentCore", "agent_id", "multi_agent_env_class"]


def agent_id(seat: int) -> str:
    """The RLlib agent id of ``seat``: ``"player_<seat>"``."""
    return f"player_{seat}"


class MedurisMultiAgentCore:
    """The environment of the module docstring without RLlib's base class (no Ray needed);
    :class:`MedurisMultiAgentEnv` is this on ``MultiAgentEnv``.

    ``config`` (RLlib's ``env_config``, an ``EnvContext`` or a dict): ``players`` (2), ``max_turns``
    (1000), ``exchange`` ("auto"), ``seed`` (0). The chance stream of episode ``e`` is
    ``random.Random(derive_seed(base, e))``, ``base`` derived from the seed and the EnvRunner's
    worker and vector index; ``reset(seed=s)`` restarts it from ``s``."""

    metadata = {"render_modes": ["ansi"]}

    def __init__(self, config=None):
        super().__init__()  # (RLlib's MultiAgentEnv, when this is MedurisMultiAgentEnv)
        context, config = config, dict(config or {})  # an EnvContext also names its runner
        self.num_players = int(config.get("players", 2))
        max_turns = config.get("max_turns", DEFAULT_MAX_TURNS)
        self.game = MedurisGame(self.num_players, exchange=config.get("exchange", "auto"),
                                max_turns=max_turns)
        self._scale = (1.0 / observation_high(self.game.max_turns)).astype(np.float32)
        self.agents = self.possible_agents = [agent_id(s) for s in range(self.num_players)]
        space = gym.spaces.Dict({
            "observations": gym.spaces.Box(0.0, 1.0, (OBS_SIZE,), np.float32),
            "action_mask": gym.spaces.Box(0.0, 1.0, (NUM_ACTIONS,), np.float32),
        })
        self.observation_spaces = {a: space for a in self.agents}
        worker = int(getattr(context, "worker_index", 0) or 0)
        vector = int(getattr(context, "vector_index", 0) or 0)
        self._base = derive_seed(int(config.get("seed", 0)), STREAM_ENV, worker, vector)
        # Discrete(241) whose unmasked sample() is legal (RLlib's env checker samples so)
        self.action_spaces = {
            agent_id(s): LegalActionSpace(NUM_ACTIONS, partial(self._legal_mask_of, s),
                                          seed=derive_seed(self._base, STREAM_ACTION_SPACE, s))
            for s in range(self.num_players)}
        self._episode = 0
        self._rng = random.Random(self._base)
        self.state = None

    def _legal_mask_of(self, seat: int) -> np.ndarray | None:
        if self.state is None or seat != self.state.current_player():
            return None
        return self.state.legal_action_mask()

    def observe(self, seat: int) -> dict[str, np.ndarray]:
        """``seat``'s observation: the scaled vector and the legal-action mask (all zero unless
        ``seat`` is to move)."""
        vector = observation_vector(self.state, seat) * self._scale
        if seat == self.state.current_player():
            mask = self.state.legal_action_mask().astype(np.float32)
        else:
            mask = np.zeros(NUM_ACTIONS, dtype=np.float32)
        return {"observations": vector, "action_mask": mask}

    def reset(self, *, seed=None, options=None):
        if seed is not None:
            self._base, self._episode = derive_seed(int(seed)), 0
        self._rng = random.Random(derive_seed(self._base, self._episode))
        self._episode += 1
        self.state = self.game.new_initial_state()
        resolve_chance(self.state, self._rng)  # R4's chips, R7's die
        mover = self.state.current_player()
        return {agent_id(mover): self.observe(mover)}, {}

    def step(self, action_dict):
        mover = self.state.current_player()
        me = agent_id(mover)
        if set(action_dict) != {me}:
            raise ValueError(f"{me} must decide now; got actions for {sorted(action_dict)}")
        self.state.apply_action(int(action_dict[me]), mover)
        resolve_chance(self.state, self._rng)
        if not self.state.is_terminal():
            nxt = self.state.current_player()
            return ({agent_id(nxt): self.observe(nxt)}, {me: 0.0}, {"__all__": False},
                    {"__all__": False}, {})
        return self._last_step()

    def _last_step(self):
        """The game is over: every seat observes the end and gets its reward (R26's winners
        by the "win" scheme), or nothing when the game was cut at the turn limit."""
        truncated = self.state.is_truncated()
        paid = np.zeros(self.num_players) if truncated else terminal_rewards(self.state, "win")
        winners = set(self.state.winners())
        scores = self.state.scores()
        obs = {agent_id(s): self.observe(s) for s in range(self.num_players)}
        rewards = {agent_id(s): float(paid[s]) for s in range(self.num_players)}
        infos = {agent_id(s): {"vp": int(scores[s]), "winner": s in winners}
                 for s in range(self.num_players)}
        return (obs, rewards, {"__all__": not truncated}, {"__all__": truncated}, infos)

    def render(self):
        return None if self.state is None else str(self.state)


_ENV_CLASS: type | None = None  # MedurisMultiAgentEnv, once made


def multi_agent_env_class() -> type:
    """:class:`MedurisMultiAgentCore` on RLlib's ``MultiAgentEnv`` (made once, then cached);
    ImportError naming the fix when Ray is not installed."""
    global _ENV_CLASS
    if _ENV_CLASS is None:
        try:
            from ray.rllib.env.multi_agent_env import MultiAgentEnv
        except ImportError as err:
            raise ImportError(f"{RAY_MISSING} ({err})") from None

        class MedurisMultiAgentEnv(MedurisMultiAgentCore, MultiAgentEnv):
            """Meduris as an RLlib ``MultiAgentEnv`` (the module docstring):
            :class:`MedurisMultiAgentCore`, its ``config`` and seeding, on RLlib's base class."""

        # named as the module attribute it is reached by: pickled by reference, so RLlib's
        # EnvRunner actors import this module and make the class there too
        MedurisMultiAgentEnv.__module__ = __name__
        MedurisMultiAgentEnv.__qualname__ = "MedurisMultiAgentEnv"
        _ENV_CLASS = MedurisMultiAgentEnv
    return _ENV_CLASS


def __getattr__(name: str):
    if name == "MedurisMultiAgentEnv":  # (Ray imported here, on first use)
        return multi_agent_env_class()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

"""The environments over the engine: PettingZoo AEC (:func:`env`, :class:`raw_env`) and
parallel (:func:`parallel_env`) views, the single-agent gymnasium wrapper
(:class:`MedurisSingleAgentEnv`), the batch engine (:class:`MedurisBatch`), its position pool
for batched search (:class:`PositionPool`) and its
``gymnasium.vector.VectorEnv`` (:class:`MedurisVectorEnv`; :mod:`.sb3` adapts it to
stable-baselines3), the observation encoding, the reward schemes and the action space.
Environments take agent objects or callables, never agent names (:mod:`.opponents`: the two
opponent protocols)."""

from meduris_rl.kit.envs.opponents import BatchOpponent, Decisions, Opponent

from .aec import env, raw_env
from .batch import MedurisBatch
from .observation import OBS_FIELDS, OBS_SIZE, decode_observation, observe_state
from .parallel import parallel_env
from .positions import PositionPool
from .rewards import REWARD_MODES
from .single_agent import MedurisSingleAgentEnv
from .vector import MedurisVectorEnv

__all__ = ["BatchOpponent", "Decisions", "MedurisBatch", "MedurisSingleAgentEnv",
           "MedurisVectorEnv", "OBS_FIELDS", "OBS_SIZE", "Opponent", "PositionPool", "REWARD_MODES",
           "decode_observation", "env", "observe_state", "parallel_env", "raw_env"]

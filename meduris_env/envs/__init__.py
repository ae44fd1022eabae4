"""The environments over the engine: PettingZoo AEC (:func:`env`, :class:`raw_env`) and
parallel (:func:`parallel_env`) views, the single-agent gymnasium wrapper
(:class:`MedurisSingleAgentEnv`), the batch engine (:class:`MedurisBatch`) and its
``gymnasium.vector.VectorEnv`` (:class:`MedurisVectorEnv`; :mod:`.sb3` adapts it to
stable-baselines3), the observation encoding, the reward schemes and the action space.
Environments take agent objects or callables, never agent names."""

from .aec import env, raw_env
from .observation import OBS_FIELDS, OBS_SIZE, decode_observation, observe_state
from .parallel import parallel_env
from .rewards import REWARD_MODES
from .single_agent import MedurisSingleAgentEnv
from .vector import MedurisBatch, MedurisVectorEnv

__all__ = ["MedurisBatch", "MedurisSingleAgentEnv", "MedurisVectorEnv", "OBS_FIELDS", "OBS_SIZE",
           "REWARD_MODES",
           "decode_observation", "env", "observe_state", "parallel_env", "raw_env"]

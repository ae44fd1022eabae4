"""The Stone Age environments over :mod:`stoneage_env.engine`: PettingZoo AEC (:func:`env`,
:class:`raw_env`) and its turn-based parallel view (:func:`parallel_env`), the single-agent
gymnasium wrapper (:class:`StoneAgeSingleAgentEnv`, registered as
``stoneage_env/StoneAge-v0``) and, imported on its own because pyspiel is optional, the
OpenSpiel game ``python_stone_age`` (:mod:`stoneage_env.envs.openspiel`). docs/stone_age.md,
"Environments"."""

import gymnasium

from .aec import env, raw_env
from .common import observe
from .parallel import StoneAgeParallelEnv, parallel_env
from .single_agent import StoneAgeSingleAgentEnv

__all__ = ["StoneAgeParallelEnv", "StoneAgeSingleAgentEnv", "env", "observe", "parallel_env",
           "raw_env"]

# gymnasium.make("stoneage_env/StoneAge-v0", num_players=..., opponents=...)
if "stoneage_env/StoneAge-v0" not in gymnasium.registry:
    gymnasium.register(id="stoneage_env/StoneAge-v0",
                       entry_point="stoneage_env.envs.single_agent:StoneAgeSingleAgentEnv")

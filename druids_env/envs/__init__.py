"""The Druids environments over :mod:`druids_env.engine`: PettingZoo AEC (:func:`env`,
:class:`raw_env`) and its turn-based parallel view (:func:`parallel_env`), the single-agent
gymnasium wrapper (:class:`DruidsSingleAgentEnv`, registered as ``druids_env/Druids-v0``)
and, imported on its own because pyspiel is optional, the OpenSpiel game ``python_druids``
(:mod:`druids_env.envs.openspiel`). docs/druids.md, "Environments"."""

import gymnasium

from .aec import env, raw_env
from .common import observe
from .parallel import DruidsParallelEnv, parallel_env
from .single_agent import DruidsSingleAgentEnv

__all__ = ["DruidsParallelEnv", "DruidsSingleAgentEnv", "env", "observe", "parallel_env",
           "raw_env"]

# gymnasium.make("druids_env/Druids-v0", num_players=..., opponents=...)
if "druids_env/Druids-v0" not in gymnasium.registry:
    gymnasium.register(id="druids_env/Druids-v0",
                       entry_point="druids_env.envs.single_agent:DruidsSingleAgentEnv")

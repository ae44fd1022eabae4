"""druids_env: *Druids* (Leo Colovini, Kidult 2004), a hidden-information card game for 2-4
players, beside Meduris on the same machinery. The rules text with its numbers D1-D14 and
rulings is docs/druids.md. This module re-exports the engine's public API
(:mod:`druids_env.engine`) and the environments' (:mod:`druids_env.envs`: ``env``,
``raw_env``, ``parallel_env``, ``DruidsSingleAgentEnv``; gymnasium's ``druids_env/Druids-v0``)."""

from .engine import *  # noqa: F403
from .engine import __all__  # noqa: F401
from .envs import DruidsSingleAgentEnv, env, parallel_env, raw_env
from .row import ROW  # Druids' row in the table of games (registered on import)

__all__ = [*__all__, "ROW", "DruidsSingleAgentEnv", "env", "parallel_env", "raw_env"]

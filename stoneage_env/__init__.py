"""stoneage_env: *Stone Age* (Bernd Brunnhofer, Hans im Glück 2008) with its *Mammoth Herd*
expansion, for 2-4 players, beside Meduris and Druids on the same machinery. The rules text
with its numbers is docs/stone_age.md. This module re-exports the engine's public API
(:mod:`stoneage_env.engine`) and the environments' (:mod:`stoneage_env.envs`: ``env``,
``raw_env``, ``parallel_env``, ``StoneAgeSingleAgentEnv``; gymnasium's
``stoneage_env/StoneAge-v0``)."""

from .engine import *  # noqa: F403
from .engine import __all__  # noqa: F401
from .envs import StoneAgeSingleAgentEnv, env, parallel_env, raw_env
from .row import ROW  # Stone Age's row in the table of games (registered on import)

__all__ = [*__all__, "ROW", "StoneAgeSingleAgentEnv", "env", "parallel_env", "raw_env"]

"""A PettingZoo ``ParallelEnv`` view of Stone Age, for tools written against the parallel API.

Stone Age is turn-based: each parallel step applies the action of the one agent to move
(``infos[agent]["active_agent"]``; only its ``action_mask`` has legal actions) and ignores the
others'. This is the kit's generic turn-based parallel view
(:class:`meduris_rl.kit.envs.parallel.TurnBasedParallelEnv`) over the AEC env; ``max_cycles``
caps the parallel steps, the other arguments are :class:`~stoneage_env.envs.aec.raw_env`'s.
"""

from __future__ import annotations

from meduris_rl.kit.envs.parallel import TurnBasedParallelEnv

from .aec import raw_env


class StoneAgeParallelEnv(TurnBasedParallelEnv):
    """The turn-based parallel view of Stone Age (see the module docstring)."""

    metadata = raw_env.metadata
    aec_class = raw_env


def parallel_env(**kwargs) -> StoneAgeParallelEnv:
    """The turn-based parallel view of Stone Age (see :class:`StoneAgeParallelEnv`)."""
    return StoneAgeParallelEnv(**kwargs)

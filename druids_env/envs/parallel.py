"""A PettingZoo ``ParallelEnv`` view of Druids, for tools written against the parallel API.

Druids is turn-based: each parallel step applies the action of the one agent to move
(``infos[agent]["active_agent"]``; only its ``action_mask`` has legal actions) and ignores the
others'. This is the generic turn-based parallel view
(:class:`meduris_rl.kit.envs.parallel.TurnBasedParallelEnv`, the kit's) over the Druids AEC
env; ``max_cycles`` caps the parallel steps, the other arguments are
:class:`~druids_env.envs.aec.raw_env`'s.
"""

from __future__ import annotations

from meduris_rl.kit.envs.parallel import TurnBasedParallelEnv

from .aec import raw_env


class DruidsParallelEnv(TurnBasedParallelEnv):
    """The turn-based parallel view of Druids (see the module docstring)."""

    metadata = raw_env.metadata
    aec_class = raw_env


def parallel_env(**kwargs) -> DruidsParallelEnv:
    """The turn-based parallel view of Druids (see :class:`DruidsParallelEnv`)."""
    return DruidsParallelEnv(**kwargs)

"""A PettingZoo ``ParallelEnv`` view of Meduris, for tools written against the parallel API.

Meduris is turn-based, so each parallel step applies the action of the one agent whose decision
is due; every live agent still submits an action (the others' are ignored) and gets an
observation. ``infos[agent]["active_agent"]`` names the agent to move; only its
``action_mask`` has legal actions. ``max_cycles`` caps the number of parallel steps (in each of
which every agent "steps"), matching PettingZoo's meaning of the argument; the rest of the
arguments are those of :class:`~meduris_env.envs.aec.raw_env`.

:class:`~meduris_rl.kit.envs.parallel.TurnBasedParallelEnv` (the kit's) is this view over any
turn-based AEC environment class; Druids' parallel view is one too.
"""

from __future__ import annotations

from meduris_rl.kit.envs.parallel import TurnBasedParallelEnv

from .aec import raw_env


class MedurisParallelEnv(TurnBasedParallelEnv):
    """The turn-based parallel view of Meduris (see the module docstring)."""

    metadata = raw_env.metadata
    aec_class = raw_env


def parallel_env(**kwargs) -> MedurisParallelEnv:
    """The turn-based parallel view (see :class:`MedurisParallelEnv`)."""
    return MedurisParallelEnv(**kwargs)

"""A PettingZoo ``ParallelEnv`` view of Druids, for tools written against the parallel API.

Druids is turn-based: each parallel step applies the action of the one agent to move
(``infos[agent]["active_agent"]``; only its ``action_mask`` has legal actions) and ignores the
others'. This is Meduris's parallel view (:class:`meduris_env.envs.parallel.MedurisParallelEnv`,
whose methods it reuses) over the Druids AEC env; ``max_cycles`` caps the parallel steps, the
other arguments are :class:`~druids_env.envs.aec.raw_env`'s.
"""

from __future__ import annotations

from meduris_env.envs.parallel import MedurisParallelEnv

from .aec import raw_env


class DruidsParallelEnv(MedurisParallelEnv):
    metadata = raw_env.metadata

    def __init__(self, max_cycles: int | None = None, **kwargs):
        if max_cycles is not None and (isinstance(max_cycles, bool) or not isinstance(
                max_cycles, int) or max_cycles < 1):
            raise ValueError(f"max_cycles must be a positive int or None, got {max_cycles!r}")
        # (not super().__init__: that builds a Meduris env; the view's methods are shared)
        self.aec_env = raw_env(**kwargs)
        self.max_cycles = max_cycles
        self.possible_agents = self.aec_env.possible_agents[:]
        self.render_mode = self.aec_env.render_mode
        self.agents: list[str] = []


def parallel_env(**kwargs) -> DruidsParallelEnv:
    """The turn-based parallel view of Druids (see :class:`DruidsParallelEnv`)."""
    return DruidsParallelEnv(**kwargs)

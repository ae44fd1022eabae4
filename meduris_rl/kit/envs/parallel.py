"""The turn-based PettingZoo ``ParallelEnv`` view of any turn-based AEC environment class (a
:class:`~meduris_rl.kit.envs.turn_based.TurnBasedAEC`): Meduris's and Druids' parallel views are
this class with their AEC class.

The game is turn-based, so each parallel step applies the action of the one agent whose decision
is due; every live agent still submits an action (the others' are ignored) and gets an
observation. ``infos[agent]["active_agent"]`` names the agent to move; only its
``action_mask`` has legal actions. ``max_cycles`` caps the number of parallel steps (in each of
which every agent "steps"), matching PettingZoo's meaning of the argument; the other keyword
arguments are the AEC class's.
"""

from __future__ import annotations

from pettingzoo import ParallelEnv

from meduris_rl.kit.envs.turn_based import check_max_cycles


class TurnBasedParallelEnv(ParallelEnv):
    """The turn-based parallel view of the AEC environment ``aec_class(**kwargs)`` (see the
    module docstring); subclasses set ``aec_class`` and ``metadata``."""

    aec_class: type

    def __init__(self, max_cycles: int | None = None, **kwargs):
        check_max_cycles(max_cycles, (int,))
        self.aec_env = self.aec_class(**kwargs)
        self.max_cycles = max_cycles
        self.possible_agents = self.aec_env.possible_agents[:]
        self.render_mode = self.aec_env.render_mode
        self.agents: list[str] = []

    def observation_space(self, agent):
        return self.aec_env.observation_space(agent)

    def action_space(self, agent):
        return self.aec_env.action_space(agent)

    @property
    def unwrapped(self):
        return self.aec_env

    def reset(self, seed=None, options=None):
        self.aec_env.reset(seed=seed, options=options)
        self._steps = 0
        self.agents = self.aec_env.agents[:]
        return self._observations(), self._infos()

    def step(self, actions: dict):
        aec = self.aec_env
        if not self.agents:
            raise RuntimeError("the episode is over; call reset()")
        active = aec.agent_selection
        if active not in actions:
            raise ValueError(f"actions must include one for {active}, the agent to move "
                             f"(infos[agent]['active_agent'])")
        aec.step(actions[active])
        self._steps += 1
        done = aec.terminations[active] or aec.truncations[active]
        if not done and self.max_cycles is not None and self._steps >= self.max_cycles:
            aec.truncate()
        observations = self._observations()
        rewards = {a: aec.rewards[a] for a in self.agents}
        terminations = {a: aec.terminations[a] for a in self.agents}
        truncations = {a: aec.truncations[a] for a in self.agents}
        infos = self._infos()
        if all(terminations[a] or truncations[a] for a in self.agents):
            self.agents = []
        return observations, rewards, terminations, truncations, infos

    def _observations(self):
        return {a: self.aec_env.observe(a) for a in self.agents}

    def _infos(self):
        active = self.aec_env.agent_selection
        return {a: {**self.aec_env.infos[a], "active_agent": active} for a in self.agents}

    def render(self):
        return self.aec_env.render()

    def close(self):
        self.aec_env.close()

"""Agents that decide for a whole batch of games at once, as opponents of
:class:`~meduris_env.envs.vector.MedurisVectorEnv` (and the training built on it).

Each takes a :class:`~meduris_rl.kit.envs.opponents.Decisions` (observations, masks, state rows
and one seed per decision) and returns one action per row:

* ``BatchGreedy``: the greedy agent (:mod:`meduris_rl.agents.meduris.heuristics`) on every row in
parallel; with
  the same seed it chooses exactly what :class:`~meduris_rl.agents.meduris.greedy.GreedyAgent`
  would;
* ``BatchPolicy``: a policy network (the ``ppo`` agent's), its most probable legal action on a
  whole batch in one forward pass.

:func:`make_batch_opponent` builds them by name, from the ``batch`` column of the table of agent
kinds (:mod:`meduris_rl.agents.registry`; ``"random"`` is the environment's own).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from meduris_env.row import ROW
from meduris_rl.agents.base import UnknownAgentError
from meduris_rl.agents.meduris.features import batch_features, feature_set_of_size
from meduris_rl.agents.meduris.heuristics import greedy_actions
from meduris_rl.agents.registry import AgentSpec, kinds


class BatchGreedy:
    """The greedy agent for a batch of decisions (in parallel over rows)."""

    name = "greedy"

    def act_batch(self, decisions) -> np.ndarray:
        game = decisions.game
        out = np.empty(len(decisions.seeds), dtype=np.int64)
        greedy_actions(np.ascontiguousarray(decisions.states), game.field_materials,
                       game.field_areas, decisions.seeds, out)
        return out

    def __repr__(self) -> str:
        return "<batch agent greedy>"


class BatchPolicy:
    """A policy network's most probable legal action for each row (one forward pass)."""

    def __init__(self, policy, name: str = "ppo"):
        self.policy = policy
        self.name = name
        self.feature_set = feature_set_of_size(policy.observation_space.shape[0])
        self._high: dict[int, np.ndarray] = {}

    def inputs(self, decisions) -> np.ndarray:
        """The network inputs of the decisions (the features the policy was trained on)."""
        from meduris_env.envs.observation import observation_high

        game = decisions.game
        if game.max_turns not in self._high:
            self._high[game.max_turns] = observation_high(game.max_turns)
        return batch_features(decisions.obs, decisions.states, game.field_materials,
                              game.field_areas, self.feature_set, self._high[game.max_turns])

    def act_batch(self, decisions) -> np.ndarray:
        import torch

        x = torch.as_tensor(self.inputs(decisions))
        with torch.no_grad():
            dist = self.policy.get_distribution(x, action_masks=decisions.mask.astype(bool))
            return dist.distribution.probs.argmax(dim=1).cpu().numpy().astype(np.int64)

    def __repr__(self) -> str:
        return f"<batch agent {self.name}>"


def make_batch_opponent(spec: str, players: int = 2):
    """An opponent for the vector environment by name: the batched version of its kind's row
    among Meduris's kinds (``random``: the environment's built-in; ``greedy``; ``ppo``, the
    shipped model for ``players``, or ``ppo:<policy.pt>``)."""
    parsed = AgentSpec.parse(spec, ROW)
    batch = parsed.row.batch
    if batch == "environment":
        return "random"
    if batch == "greedy":
        return BatchGreedy()
    if batch == "policy":
        from meduris_rl.agents.meduris.ppo import shipped_model
        from meduris_rl.agents.policies.network import PolicyFileError, check_players
        from meduris_rl.agents.policies.ppo import load_policy_and_architecture
        path = Path(parsed.parameter) if parsed.parameter else shipped_model(players)
        policy, arch = load_policy_and_architecture(path, spec)
        try:  # (a policy of another player count would read the wrong inputs in silence)
            check_players(arch, path, players)
        except PolicyFileError as err:
            raise UnknownAgentError(f"agent {spec!r}: {err}") from None
        return BatchPolicy(policy, name=spec)
    batched = [form for k in kinds(ROW) if k.batch
               for form in (k.name, *([f"{k.name}:<{k.file}>"] if k.file else []))]
    raise UnknownAgentError(f"no batch version of agent {spec!r}; batch opponents are "
                            f"{', '.join(batched[:-1])} and {batched[-1]}")

"""Search guided by the trained network, AlphaZero-style: ``az:200`` (iterations per move),
``az:0.5s`` (seconds per move), ``az:200:<policy.pt>`` (another network).

The tree is open-loop, as in :mod:`agents.mcts`: each iteration copies the root position and
samples the dice and other chance outcomes afresh from the agent's seeded stream, so a node
stands for a sequence of decisions. At a node met for the first time the network gives the
**prior** (its action logits, kept unmasked so that every sample's legal actions get one) and
the **value** of the position for the seat to move; that value is the iteration's result: the
mover's share ``v``, each other seat ``-v / (n - 1)`` (the network was trained on zero-sum
results, "win" reward). A finished game is scored by its zero-sum result (R26). Inside the tree
the seat to move picks the legal child with the best PUCT score
``Q + c_puct * P * sqrt(N) / (1 + n)``: Q its mean value for that seat (unvisited children count
as the node's own mean, "first-play urgency"), P the prior renormalised over the actions legal in
this sample. The move played is the root child visited most (ties: the higher prior).

One network evaluation per iteration (about 0.2 ms), so ``az:150`` spends about as long per move
as ``mcts:400`` (37 and 39 ms measured over 400 games; docs/training.md). The network is the
shipped model for the game's player count (the ``ppo`` agent's) unless a file is given.
"""

from __future__ import annotations

import math

import numpy as np

from meduris_env.engine.loop import resolve_chance
from meduris_env.envs.observation import observation_vector

from .mcts import MCTSAgent
from .ppo import PPOAgent


class _Node:
    __slots__ = ("children", "logits", "visits", "value")

    def __init__(self, num_players: int):
        self.children: dict[int, _Node] = {}
        self.logits: np.ndarray | None = None  # the network's prior, when first evaluated
        self.visits = 0
        self.value = np.zeros(num_players)


class AZAgent(MCTSAgent):
    """Network-guided search (see the module docstring); the budget as for ``mcts``."""

    def __init__(self, name: str, iterations: int | None = 200, seconds: float | None = None,
                 path: str | None = None, c_puct: float = 1.5):
        super().__init__(name, iterations=iterations, seconds=seconds)
        self.c_puct = c_puct
        self.network = PPOAgent(name, path)  # loads (and checks) the network now
        self._forward: dict[int, object] = {}  # policy id -> its numpy forward pass

    def _new_root(self, num_players: int) -> _Node:
        return _Node(num_players)

    def _iterate(self, root: _Node, root_state, n: int) -> None:
        state = root_state.clone()
        node = root
        path = [root]
        while True:
            resolve_chance(state, self.rng)
            if state.is_terminal():
                values = state.returns()
                break
            player = state.current_player()
            if node.logits is None:
                node.logits, v = self._evaluate(state, player)
                values = np.full(n, -v / (n - 1))
                values[player] = v
                break
            action = self._puct(node, state.legal_action_mask(), player)
            child = node.children.get(action)
            if child is None:
                child = node.children[action] = _Node(n)
            state.apply_action(action)
            path.append(child)
            node = child
        for nd in path:
            nd.visits += 1
            nd.value += values

    def _evaluate(self, state, player: int) -> tuple[np.ndarray, float]:
        from .network import NumpyForward

        obs = {"observation": observation_vector(state, player)}
        policy, x = self.network.inputs(obs, state)
        forward = self._forward.get(id(policy))
        if forward is None:
            forward = self._forward[id(policy)] = NumpyForward(policy)
        logits, values = forward(x[None])
        return logits[0], float(values[0])

    def _puct(self, node: _Node, mask: np.ndarray, player: int) -> int:
        legal = np.flatnonzero(mask)
        logits = node.logits[legal]
        prior = np.exp(logits - logits.max())
        prior /= prior.sum()
        visits = np.zeros(len(legal))
        q = np.full(len(legal), node.value[player] / max(1, node.visits))  # first-play urgency
        for i, a in enumerate(legal.tolist()):
            child = node.children.get(a)
            if child is not None and child.visits:
                visits[i] = child.visits
                q[i] = child.value[player] / child.visits
        score = q + self.c_puct * prior * math.sqrt(max(1, node.visits)) / (1.0 + visits)
        return int(legal[int(np.argmax(score))])

    def _choose(self, root: _Node) -> int:
        """The most visited root child; ties go to the higher prior."""
        return max(root.children.items(),
                   key=lambda kv: (kv[1].visits, root.logits[kv[0]]))[0]

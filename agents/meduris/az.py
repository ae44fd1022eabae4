"""Search guided by the trained networks, AlphaZero-style: ``az:200`` (iterations per move),
``az:0.5s`` (seconds per move), ``az:200:<policy.pt>`` (other networks).

The tree is open-loop, as in :mod:`meduris_rl.agents.meduris.mcts`: each iteration copies the root
position and samples the dice and other chance outcomes afresh from the agent's seeded stream, so a
node stands for a sequence of decisions. At a node met for the first time the networks give

* the **prior**: the policy's action logits (kept unmasked so that every sample's legal actions
  get one), softened by ``prior_temperature`` (the policy was trained to be sure of itself; a
  flatter prior lets the search look at its second choices);
* the **value** of the position for the seat to move, ``v``: the policy file's value network
  (trained on the policy's own games, :mod:`meduris_rl.train.meduris.value`) when it carries one;
  otherwise PPO's critic mixed with a heuristic rollout (``rollout_weight`` of it: the mcts agent's
  6-decision epsilon-greedy rollout and evaluation, squashed by ``tanh(margin / 10)``), because the
  critic alone predicts the results of strong play poorly.

That value is the iteration's result: the mover's ``v``, each other seat ``-v / (n - 1)``. A
finished game is scored by its zero-sum result (R26). Inside the tree the seat to move picks the
legal child with the best PUCT score ``Q + c_puct * P * sqrt(N) / (1 + n)``: Q its mean value for
that seat (unvisited children count as the node's own mean, "first-play urgency"), P the prior
renormalised over the actions legal in this sample. The move played is the root child visited
most (ties: the higher prior).

**Leaves in batches.** The networks' cost is mostly reading their weights, whether for one row
or eight, so ``leaf_batch`` (8) iterations descend before their new nodes are evaluated in one
forward pass. Each marks its way with a *virtual loss* (a visit whose value is pending, counted as
a loss for the seat that chose it) so that the next one tends elsewhere; then every iteration
backs its value up. The first batch's descents all stop at the root, which is evaluated once
(as measured; evaluating the root alone first was tried and measured weaker, docs/training.md),
so a budget of at most ``leaf_batch`` iterations leaves the choice to the prior. With
``leaf_batch=1`` this is the plain one-at-a-time search. After each move,
``last_visits`` holds the root children's visits (what :mod:`meduris_rl.train.meduris.distill`
learns from). Numpy's BLAS runs on one thread while searching (a few rows gain nothing from threads,
and a tournament already runs a process per core). That limit is process-wide, so searches in
several threads share it (:data:`_ONE_BLAS_THREAD`): set by the first to start, restored by the last
to finish.

Measured with the shipped 2-player model and its value network (docs/training.md): ``az:200``
spends a little less time per move than ``mcts:400`` (33 and 36 ms over 200 games on this
project's machine). The networks are the shipped model's for the game's player count (the
``ppo`` agent's) unless a file is given.
"""

from __future__ import annotations

import functools
import math
import threading

import numpy as np

from meduris_env.envs.observation import observation_vector
from meduris_rl.agents.meduris.heuristics import rollout_values
from meduris_rl.agents.meduris.mcts import MCTSAgent
from meduris_rl.agents.meduris.ppo import NetworkGuided
from meduris_rl.kit.loop import resolve_chance
from meduris_rl.kit.values import check_float, check_int


class _Node:
    __slots__ = ("children", "logits", "visits", "value", "pending")

    def __init__(self, num_players: int):
        self.children: dict[int, _Node] = {}
        self.logits: np.ndarray | None = None  # the network's prior, when first evaluated
        self.visits = 0  # iterations through this node, those awaiting their value included
        self.value = np.zeros(num_players)  # summed values of the finished ones
        self.pending = 0  # iterations through it whose leaf awaits its evaluation


PRIOR_TEMPERATURE = 3.0
LEAF_BATCH = 8  # leaves evaluated together (one forward pass of the networks for all)
VIRTUAL_LOSS = 1.0  # a pending iteration counts as a loss for the seat that chose the way
ROLLOUT_WEIGHT = 0.5  # of the leaf value, when the policy file has no value network
ROLLOUT_DEPTH, ROLLOUT_EPSILON, ROLLOUT_SCALE = 6, 0.1, 10.0  # as the mcts agent's


class AZAgent(NetworkGuided, MCTSAgent):
    """Network-guided search (see the module docstring); the budget as for ``mcts``."""

    def __init__(self, name: str, iterations: int | None = 200, seconds: float | None = None,
                 path: str | None = None, c_puct: float = 1.5,
                 prior_temperature: float = PRIOR_TEMPERATURE,
                 rollout_weight: float | None = None, leaf_batch: int = LEAF_BATCH):
        super().__init__(name, iterations=iterations, seconds=seconds)
        self.c_puct = check_float("c_puct", c_puct, 0.0, 100.0)
        self.leaf_batch = check_int("leaf_batch", leaf_batch, 1, 1024)
        self.prior_temperature = check_float("prior_temperature", prior_temperature, 1e-3, 1e3)
        # None: ROLLOUT_WEIGHT without a value network
        self.rollout_weight = None if rollout_weight is None else check_float(
            "rollout_weight", rollout_weight, 0.0, 1.0)
        self.load_networks(name, path)

    def _new_root(self, num_players: int) -> _Node:
        return _Node(num_players)

    def act(self, observation, state) -> int:
        # the networks' products on a few rows: numpy's BLAS threads would only wait on each
        # other (and on the other processes of a tournament), so one thread while searching
        with _ONE_BLAS_THREAD:
            return super().act(observation, state)

    def _search(self, root: _Node, root_state, n: int, left: int | None) -> int:
        """``leaf_batch`` iterations (fewer if the budget has fewer left): each descends to a
        new node or the end of the game, marking its way with a virtual loss so that the next
        one tends elsewhere; then the new nodes are evaluated in one batch and every iteration
        backs its value up the way it came."""
        k = self.leaf_batch if left is None else max(1, min(self.leaf_batch, left))
        descents = [self._descend(root, root_state, n) for _ in range(k)]
        new = {}  # id(node) -> (node, state, player): each new node evaluated once
        for path, state in descents:
            if not state.is_terminal():
                new.setdefault(id(path[-1]), (path[-1], state, state.current_player()))
        if new:
            rows = list(new.values())
            logits, values = self._evaluate([(state, player) for _, state, player in rows], n)
            for j, (node, _, _) in enumerate(rows):
                node.logits = logits[j]
            value_of = {id(node): values[j] for j, (node, _, _) in enumerate(rows)}
        for path, state in descents:
            values = state.returns() if state.is_terminal() else value_of[id(path[-1])]
            for nd in path:
                nd.pending -= 1
                nd.value += values
        return k

    def _descend(self, root: _Node, root_state, n: int):
        """One iteration's way down (chance sampled afresh): the nodes passed, each counting
        the iteration as a visit pending its value, and the state reached."""
        state = root_state.clone()
        node = root
        path = [root]
        root.visits += 1
        root.pending += 1
        while True:
            resolve_chance(state, self.rng)
            if state.is_terminal() or node.logits is None:  # the end, or a new node
                return path, state
            player = state.current_player()
            action = self._puct(node, state.legal_action_mask(), player)
            child = node.children.get(action)
            if child is None:
                child = node.children[action] = _Node(n)
            state.apply_action(action)
            child.visits += 1
            child.pending += 1
            path.append(child)
            node = child

    def _evaluate(self, leaves: list, n: int) -> tuple[np.ndarray, np.ndarray]:
        """For new nodes ``leaves`` (state, seat to move): their prior logits (k, 241) and the
        iterations' values for every seat (k, n)."""
        obs = np.stack([observation_vector(state, player) for state, player in leaves])
        arrays = np.stack([state.array for state, _ in leaves])
        movers = np.array([player for _, player in leaves])
        return self.evaluate_rows(obs, arrays, movers, leaves[0][0].game, n)

    def evaluate_rows(self, obs: np.ndarray, arrays: np.ndarray, movers: np.ndarray, game,
                      n: int) -> tuple[np.ndarray, np.ndarray]:
        """:meth:`_evaluate` of positions given as rows: ``obs[j]`` the observation of seat
        ``movers[j]`` (to move) in state array ``arrays[j]`` (the
        :mod:`meduris_rl.agents.meduris.az_fast` search hands its leaves so)."""
        policy, x = self.network.batch_inputs(obs, arrays, game)
        forward, value_network = self.forward_passes(policy, n)
        weight = self.rollout_weight
        if value_network is not None:
            logits, v = forward.logits(x), value_network(x)
            weight = weight or 0.0
        else:
            logits, v = forward(x)
            weight = ROLLOUT_WEIGHT if weight is None else weight
        values = np.repeat((-v / (n - 1))[:, None], n, axis=1)
        values[np.arange(len(movers)), movers] = v
        if weight > 0:
            rollout = np.zeros(n)
            for j in range(len(movers)):
                rollout_values(arrays[j].copy(), game.field_materials, game.field_areas,
                               ROLLOUT_DEPTH, ROLLOUT_EPSILON, self.rng.getrandbits(31),
                               rollout)
                values[j] = (1 - weight) * values[j] + weight * np.tanh(rollout / ROLLOUT_SCALE)
        return logits / self.prior_temperature, values

    def _puct(self, node: _Node, mask: np.ndarray, player: int) -> int:
        legal = np.flatnonzero(mask)
        logits = node.logits[legal]
        prior = np.exp(logits - logits.max())
        prior /= prior.sum()
        visits = np.zeros(len(legal))
        # first-play urgency: unvisited children count as the node's mean (its finished ones)
        q = np.full(len(legal), node.value[player] / max(1, node.visits - node.pending))
        for i, a in enumerate(legal.tolist()):
            child = node.children.get(a)
            if child is not None and child.visits:
                visits[i] = child.visits
                q[i] = (child.value[player] - VIRTUAL_LOSS * child.pending) / child.visits
        # (the node's visits before this iteration's: the others pending count as visits)
        score = q + self.c_puct * prior * math.sqrt(max(1, node.visits - 1)) / (1.0 + visits)
        return int(legal[int(np.argmax(score))])

    def _choose(self, root: _Node, state) -> int:
        """The most visited root child; ties go to the higher prior (and with a budget that
        only evaluated the root, the prior decides)."""
        visits, logits = self._root_visits(root), self._root_logits(root)
        if not visits:
            return max(state.legal_actions(), key=lambda a: logits[a])
        return max(visits.items(), key=lambda kv: (kv[1], logits[kv[0]]))[0]

    def _root_logits(self, root: _Node) -> np.ndarray:
        """The root's prior logits (as the tree keeps them)."""
        return root.logits


@functools.cache
def _blas():
    from threadpoolctl import ThreadpoolController
    return ThreadpoolController()


class _OneBlasThread:
    """Numpy's BLAS on one thread while at least one search runs (a context manager shared by
    every thread). threadpoolctl's limit is process-wide: two searches that each set and
    restored it could restore the other's setting (one thread for good) or lift it under a
    running search; so the first to enter sets it and the last to leave restores it."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._users = 0
        self._limiter = None

    def __enter__(self) -> None:
        with self._lock:
            if self._users == 0:
                self._limiter = _blas().limit(limits=1, user_api="blas")
            self._users += 1

    def __exit__(self, *exc) -> None:
        with self._lock:
            self._users -= 1
            if self._users == 0:
                self._limiter.restore_original_limits()
                self._limiter = None


_ONE_BLAS_THREAD = _OneBlasThread()

"""The ``az`` search with its tree in arrays and its descents in numba: ``az-fast:800``
(iterations per move), ``az-fast:0.03s`` (seconds per move), ``az-fast:800:<policy.pt>`` (other
networks). Issue 29's search agent: the same time per move buys about three times ``az``'s
iterations (docs/training.md and the benchmark row ``az-fast-vs-az-2p`` measure both).

**The same search as** :mod:`meduris_rl.agents.meduris.az`, decision for decision: an open-loop tree
(each iteration copies the root position and draws the die afresh, so a node stands for a sequence
of decisions), the networks' prior softened by ``prior_temperature`` and their value of the seat to
move at a node met for the first time, PUCT ``Q + c_puct * P * sqrt(N) / (1 + n)`` with
first-play urgency inside the tree, ``leaf_batch`` descents marked by a virtual loss and their new
nodes evaluated in one forward pass, the most visited root child played (ties: the higher prior).
The defaults are ``az``'s. What differs is where the work runs:

* the tree is a set of arrays (per node its parent, first child, next sibling, action, visits,
  pending visits, whether it was evaluated, the summed value vectors and the prior logits), grown
  by doubling up to :data:`MAX_NODES`; a time budget stops early when the tree is full;
* :func:`descend` runs a batch's descents in one numba call (no GIL): the copy of the root, the
  die and every other chance outcome (:func:`~meduris_env.engine.kernel.chance_outcome`, drawn
  from a counter-based stream of the batch engine's kind whose key comes from the agent's
  ``rng`` once per move), the legal masks, the PUCT choices, the moves;
* the new nodes' observations are encoded in numba, and their network inputs and forward passes
  are ``az``'s own (:meth:`meduris_rl.agents.meduris.az.AZAgent.evaluate_rows`);
* :func:`back_up` stores the priors and adds every descent's values along its way in numba.

With ``chance_nodes=True`` (off by default: measured weaker, docs/training.md) the tree is
closed-loop instead: each chance outcome drawn is an edge, so a node stands for a position.

So ``az-fast:N`` plays like ``az:N`` (the same distribution of moves, not the same moves: the die
comes from another stream) in a fraction of the time. One seed gives the same games.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from meduris_env.engine.batch import (
    CHANCE_DOMAIN,
    CHANCE_DRAWS,
    STREAM_COLUMNS,
    draw,
    scratch,
)
from meduris_env.engine.constants import NUM_ACTIONS, PH_QUEUE, PH_TERMINAL
from meduris_env.engine.kernel import (
    apply_legal,
    chance_outcome,
    current_player,
    legal_mask,
    win_returns,
)
from meduris_env.engine.layout import O_PHASE, STATE_SIZE
from meduris_env.envs.observation import OBS_SIZE, encode_observation
from meduris_rl.agents.budgets import MAX_TREE_ITERATIONS
from meduris_rl.agents.meduris.az import VIRTUAL_LOSS, AZAgent
from meduris_rl.kit.values import check_bool, check_int

#: the most nodes a tree holds: a time budget stops there
MAX_NODES = MAX_TREE_ITERATIONS + 1
FIRST_CAPACITY = 1024
#: the most nodes a descent adds: the new decision node and, with chance nodes, the chance
#: outcomes before the next decision (a die roll; the setup's chips only before the first)
NODES_PER_DESCENT = 8
# the integer columns of a tree's nodes
PARENT, FIRST_CHILD, NEXT_SIBLING, ACTION, VISITS, PENDING, EVALUATED = range(7)
NODE_COLUMNS = 7


class Tree:
    """One search's tree in arrays (see the module docstring); node 0 is the root."""

    def __init__(self, players: int, key: int, capacity: int = FIRST_CAPACITY):
        # the move's chance stream: its key, its counters from 0 (engine.batch's columns)
        self.streams = np.zeros((1, STREAM_COLUMNS), dtype=np.uint64)
        self.streams[0, 0] = key
        self.nodes = np.zeros((capacity, NODE_COLUMNS), dtype=np.int64)
        self.values = np.zeros((capacity, players))
        self.logits = np.zeros((capacity, NUM_ACTIONS), dtype=np.float32)
        self.size = np.ones(1, dtype=np.int64)  # (an array: the kernels add nodes)
        self.nodes[0, PARENT] = -1
        self.nodes[0, FIRST_CHILD] = -1

    @property
    def capacity(self) -> int:
        return len(self.nodes)

    def reserve(self, count: int) -> bool:
        """Room for ``count`` more nodes (doubling, at most :data:`MAX_NODES`); False when the
        tree is full."""
        need = int(self.size[0]) + count
        if need > MAX_NODES:
            return False
        if need <= self.capacity:
            return True
        grown = min(MAX_NODES, max(need, 2 * self.capacity))
        for name in ("nodes", "values", "logits"):
            old = getattr(self, name)
            new = np.zeros((grown,) + old.shape[1:], dtype=old.dtype)
            new[:len(old)] = old
            setattr(self, name, new)
        return True

    def root_visits(self) -> dict[int, int]:
        """``{action: visits}`` of the root's children that were visited."""
        out = {}
        child = self.nodes[0, FIRST_CHILD]
        while child >= 0:
            if self.nodes[child, VISITS]:
                out[int(self.nodes[child, ACTION])] = int(self.nodes[child, VISITS])
            child = self.nodes[child, NEXT_SIBLING]
        return out


@njit(cache=True, nogil=True)
def _puct(nodes, values, logits, node, mask, child_of, player, c_puct, virtual_loss):
    """The legal action of best PUCT score at ``node`` for ``player`` (as ``AZAgent._puct``:
    the prior's softmax over the legal actions, unvisited children at the node's mean of its
    finished iterations, pending ones counted as losses; ties to the lowest id)."""
    c = nodes[node, FIRST_CHILD]
    while c >= 0:
        child_of[nodes[c, ACTION]] = c
        c = nodes[c, NEXT_SIBLING]
    top = -np.inf
    for a in range(mask.shape[0]):
        if mask[a] and logits[node, a] > top:
            top = logits[node, a]
    total = np.float32(0.0)
    for a in range(mask.shape[0]):
        if mask[a]:
            total += np.exp(logits[node, a] - top)
    finished = max(1, nodes[node, VISITS] - nodes[node, PENDING])
    fpu = values[node, player] / finished
    root_n = math.sqrt(max(1, nodes[node, VISITS] - 1))
    best, best_a = -np.inf, -1
    for a in range(mask.shape[0]):
        if not mask[a]:
            continue
        prior = np.exp(logits[node, a] - top) / total
        q, n = fpu, 0.0
        c = child_of[a]
        if c >= 0 and nodes[c, VISITS] > 0:
            n = float(nodes[c, VISITS])
            q = (values[c, player] - virtual_loss * nodes[c, PENDING]) / n
        score = q + c_puct * prior * root_n / (1.0 + n)
        if score > best:
            best, best_a = score, a
    c = nodes[node, FIRST_CHILD]
    while c >= 0:  # (the scratch table back to -1 for the next call)
        child_of[nodes[c, ACTION]] = -1
        c = nodes[c, NEXT_SIBLING]
    return best_a


@njit(cache=True, nogil=True)
def _child(nodes, size, node, action):
    """``node``'s child by ``action``, added (unvisited) when it has none yet."""
    c = nodes[node, FIRST_CHILD]
    while c >= 0:
        if nodes[c, ACTION] == action:
            return c
        c = nodes[c, NEXT_SIBLING]
    c = size[0]
    if c >= nodes.shape[0]:  # (the caller reserves NODES_PER_DESCENT a descent: never here)
        raise IndexError("az-fast: the tree has no room for a node")
    size[0] = c + 1
    nodes[c, :] = 0
    nodes[c, PARENT] = node
    nodes[c, FIRST_CHILD] = -1
    nodes[c, ACTION] = action
    nodes[c, NEXT_SIBLING] = nodes[node, FIRST_CHILD]
    nodes[node, FIRST_CHILD] = c
    return c


@njit(cache=True, nogil=True)
def _chance(st, fm, fa, streams, nodes, size, node, chance_nodes, ev, evc, cmask):
    """Apply chance outcomes from ``streams`` until a decision is due or the game is over. With
    ``chance_nodes`` each outcome is an edge of the tree: the node before it is a chance node
    (marked evaluated: it is passed through, never scored) and the outcome's child, visited,
    is where the way goes on; return the node reached."""
    while st[O_PHASE] != PH_QUEUE and st[O_PHASE] != PH_TERMINAL:
        outcome = chance_outcome(st, cmask, draw(streams, 0, CHANCE_DRAWS, CHANCE_DOMAIN),
                                 draw(streams, 0, CHANCE_DRAWS, CHANCE_DOMAIN))
        apply_legal(st, fm, fa, outcome, ev, evc)
        if chance_nodes:
            nodes[node, EVALUATED] = 1
            node = _child(nodes, size, node, outcome)
            nodes[node, VISITS] += 1
            nodes[node, PENDING] += 1
    return node


@njit(cache=True, nogil=True)
def descend(root, fm, fa, zero_sum, nodes, values, logits, size, streams, c_puct,
            virtual_loss, chance_nodes, states, leaves, finished, returns):
    """``len(leaves)`` descents from position ``root`` (as ``AZAgent._descend``): each copies
    the root into ``states[i]``, draws chance from ``streams`` (row 0), and follows the PUCT
    choices through evaluated nodes, adding one visit pending its value to each node on its
    way, until a node not yet evaluated (``leaves[i]``, its position in ``states[i]``) or the
    end of the game (``finished[i]``, the engine's returns in ``returns[i]``). The caller makes
    room for :data:`NODES_PER_DESCENT` new nodes per descent."""
    ev, evc, cmask, mask = scratch()
    child_of = np.full(mask.shape[0], -1, dtype=np.int64)
    for i in range(len(leaves)):
        st = states[i]
        st[:] = root
        node = 0
        nodes[0, VISITS] += 1
        nodes[0, PENDING] += 1
        finished[i] = False
        while True:
            node = _chance(st, fm, fa, streams, nodes, size, node, chance_nodes, ev, evc, cmask)
            if st[O_PHASE] == PH_TERMINAL:
                finished[i] = True
                returns[i, :] = 0.0
                win_returns(st, zero_sum, returns[i])
                break
            if not nodes[node, EVALUATED]:
                break
            legal_mask(st, fm, mask)
            action = _puct(nodes, values, logits, node, mask, child_of, current_player(st),
                           c_puct, virtual_loss)
            node = _child(nodes, size, node, action)
            apply_legal(st, fm, fa, action, ev, evc)
            nodes[node, VISITS] += 1
            nodes[node, PENDING] += 1
        leaves[i] = node


@njit(cache=True, nogil=True)
def observe(states, rows, fm, fa, out, movers):
    """The seat to move in ``states[rows[j]]`` into ``movers[j]``, its observation into
    ``out[j]``."""
    for j in range(len(rows)):
        st = states[rows[j]]
        movers[j] = current_player(st)
        encode_observation(st, fm, fa, movers[j], False, out[j])


@njit(cache=True, nogil=True)
def back_up(nodes, values, logits, new_nodes, new_logits, leaves, leaf_values):
    """Store the priors ``new_logits[j]`` of the evaluated ``new_nodes[j]``, then add each
    descent's value vector ``leaf_values[i]`` to every node from ``leaves[i]`` up to the root,
    its pending visit now finished."""
    for j in range(len(new_nodes)):
        logits[new_nodes[j]] = new_logits[j]
        nodes[new_nodes[j], EVALUATED] = 1
    for i in range(len(leaves)):
        node = leaves[i]
        while node >= 0:
            nodes[node, PENDING] -= 1
            values[node] += leaf_values[i]
            node = nodes[node, PARENT]


class AZFastAgent(AZAgent):
    """``az``'s search in numba arrays (see the module docstring); the same parameters, the
    budget's iterations at most :data:`meduris_rl.agents.budgets.MAX_TREE_ITERATIONS`."""

    def __init__(self, name: str, iterations: int | None = 200, seconds: float | None = None,
                 chance_nodes: bool = False, **kwargs):
        if iterations is not None:
            check_int("iterations", iterations, 1, MAX_TREE_ITERATIONS)
        super().__init__(name, iterations=iterations, seconds=seconds, **kwargs)
        self.chance_nodes = check_bool("chance_nodes", chance_nodes)
        self._sparse_values: dict[int, object] = {}  # value network id -> its sparse twin

    def forward_passes(self, policy, n: int):
        """``az``'s networks with sparse input layers
        (:func:`meduris_rl.agents.policies.network.input_layer`)."""
        from meduris_rl.agents.policies.network import NumpyForward

        forward = self._forward.get(id(policy))
        if forward is None:
            forward = self._forward[id(policy)] = NumpyForward(policy, sparse_inputs=True)
        value = self.value_network(n)
        if value is None:
            return forward, None
        twin = self._sparse_values.get(id(value))
        if twin is None:
            twin = self._sparse_values[id(value)] = value.with_sparse_inputs()
        return forward, twin

    def _new_root(self, num_players: int) -> Tree:
        return Tree(num_players, key=self.rng.getrandbits(63))

    def _search(self, tree: Tree, root_state, n: int, left: int | None) -> int:
        """``leaf_batch`` descents (fewer if the budget has fewer left), their new nodes
        evaluated in one forward pass, their values backed up (``AZAgent._search``); 0 when
        the tree is full."""
        k = self.leaf_batch if left is None else max(1, min(self.leaf_batch, left))
        if not tree.reserve(k * NODES_PER_DESCENT):
            return 0
        game = root_state.game
        states = np.empty((k, STATE_SIZE), dtype=np.int32)
        leaves = np.empty(k, dtype=np.int64)
        finished = np.empty(k, dtype=np.bool_)
        leaf_values = np.zeros((k, n))  # (a finished game's returns, the others' below)
        fm, fa = game.field_materials, game.field_areas
        descend(np.asarray(root_state.array, dtype=np.int32), fm, fa, game.zero_sum, tree.nodes,
                tree.values, tree.logits, tree.size, tree.streams, self.c_puct,
                float(VIRTUAL_LOSS), self.chance_nodes, states, leaves, finished, leaf_values)
        open_ = np.flatnonzero(~finished)
        # each new node evaluated once, in the position of the first descent that reached it
        new_nodes, first = np.unique(leaves[open_], return_index=True)
        rows = open_[first]
        new_logits = np.zeros((0, NUM_ACTIONS), dtype=np.float32)
        if len(rows):
            obs = np.empty((len(rows), OBS_SIZE), dtype=np.float32)
            movers = np.empty(len(rows), dtype=np.int64)
            observe(states, rows, fm, fa, obs, movers)
            new_logits, node_values = self.evaluate_rows(obs, states[rows], movers, game, n)
            leaf_values[open_] = node_values[np.searchsorted(new_nodes, leaves[open_])]
        back_up(tree.nodes, tree.values, tree.logits, new_nodes,
                np.asarray(new_logits, dtype=np.float32), leaves, leaf_values)
        return k

    def _root_visits(self, tree: Tree) -> dict[int, int]:
        return tree.root_visits()

    def _root_logits(self, tree: Tree) -> np.ndarray:
        return tree.logits[0]

"""The batched Gumbel search (issue 29): the trees of ``B`` games advanced together, the trees
in arrays, selection and backup in numba kernels, and every simulation's new leaves evaluated in
ONE call of a batched evaluator.

It computes what :func:`meduris_rl.agents.search.gumbel.gumbel_search` (the reference search on one
game) computes, tree by tree: Gumbel top-k at the root, Sequential Halving (mctx's
``gumbel_muzero_root_action_selection``) at the root, mctx's deterministic interior selection
below it, completed Q-values by the mixed value, and the played action by
:func:`meduris_rl.agents.search.gumbel.final_action`. The per-node formulas are numba ports of
:mod:`meduris_rl.agents.search.gumbel`'s numpy functions (:func:`node_sigma`, :func:`root_pick`,
:func:`interior_pick`) that sum in numpy's pairwise order, so the completed Q-values are the same
bits; the interior softmax calls libm's ``exp`` where numpy may use its own SIMD ``exp`` (a last
ulp apart), which changes a choice only on a tie to that ulp.

**Positions** live in a *position pool* (``meduris_env.envs.positions.PositionPool`` on the batch
engine, or any object with the same methods; ids are int64 rows):

* ``pool.expand(parents int64[k], actions int64[k]) -> int64[k]``: the children (the pool settles
  chance: die, bonus chips, from the games' own streams);
* ``pool.observe(ids) -> (obs float32[k, D], mask int8[k, A])`` for the seat to move;
* ``pool.mover(ids) -> int8[k]`` (-1 once the game is over); ``pool.returns(ids) ->
  float32[k, P]``.

``evaluate(obs, mask) -> (logits float32[k, A], values float32[k])`` (the value for the seat to
move, in [-1, 1]) is called once for the roots and then once per simulation with the new
leaves of all ``B`` trees that need an evaluation (a leaf whose game is over takes its returns
instead; a simulation whose every leaf is a finished game makes no call).

**The trees** (one per root, ``N = num_simulations + 1`` nodes each, node 0 the root): per node
its parent, the action from it, its pool id, its mover, its prior logits (masked) and the
prior's softmax, the network's value, its children (``N x A``, -1 for none), its visits and the
sums of the value vectors backed up through it (one entry per player: an evaluated leaf gives
``v`` to its mover and ``-v / (P - 1)`` to the others; a finished game its returns), so that a
node's ``q(a)`` for its mover is the mean of its child's sums for that seat (the child's own
value included, as in mctx). One simulation: :func:`select_leaves` walks every tree down to an
action without a child (or to a finished game), the pool expands those, the evaluator scores
them in one call, and :func:`insert_and_backup` adds the nodes and backs the values up.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

import numpy as np
from numba import njit, prange

from meduris_rl.agents.search.gumbel import (
    C_SCALE,
    C_VISIT,
    LOW_LOGIT,
    RESCALE_EPSILON,
    TINY,
    completed_q,
    considered_visits_table,
    final_action,
    gumbel_topk,
    improved_policy,
)

BatchEvaluate = Callable[[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]]


class GumbelResult(NamedTuple):
    """What :func:`batched_gumbel_search` found at the ``B`` roots (arrays over ``A`` actions)."""
    actions: np.ndarray  # (B,) int64: the moves to play (final_action)
    policy: np.ndarray  # (B, A): the improved policies pi' (the training targets)
    visits: np.ndarray  # (B, A) int64: simulations through each root action
    q: np.ndarray  # (B, A): their mean value for the seat to move (0 where unvisited)
    values: np.ndarray  # (B,): the network's value of each root for the seat to move
    sigma: np.ndarray  # (B, A): completed_q at the roots after the search
    considered: np.ndarray  # (B, k): gumbel_topk's actions, best first (-1 padded)
    gumbel: np.ndarray  # (B, A): the roots' Gumbel noise (times gumbel_scale)


# --- the per-node formulas in numba ----------------------------------------------------------
@njit(cache=True)
def block_sum(a, lo, n):
    """numpy's sum of at most 128 entries: 8 accumulators (a plain loop below 8 entries)."""
    if n < 8:
        res = -0.0
        for i in range(lo, lo + n):
            res += a[i]
        return res
    r0, r1, r2, r3 = a[lo], a[lo + 1], a[lo + 2], a[lo + 3]
    r4, r5, r6, r7 = a[lo + 4], a[lo + 5], a[lo + 6], a[lo + 7]
    i = 8
    while i < n - (n % 8):
        j = lo + i
        r0 += a[j]
        r1 += a[j + 1]
        r2 += a[j + 2]
        r3 += a[j + 3]
        r4 += a[j + 4]
        r5 += a[j + 5]
        r6 += a[j + 6]
        r7 += a[j + 7]
        i += 8
    res = ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))
    while i < n:
        res += a[lo + i]
        i += 1
    return res


@njit(cache=True)
def pairwise_sum(a, lo, n):
    """numpy's pairwise summation of ``a[lo:lo + n]`` (``np.sum``'s order, so the same bits):
    blocks of at most 128, halves cut at a multiple of 8. numpy recurses; this walks the same
    tree with a stack (numba's cache mishandles recursive functions)."""
    if n <= 128:
        return block_sum(a, lo, n)
    seg_lo, seg_n = np.empty(192, np.int64), np.empty(192, np.int64)
    seg_join, sums = np.empty(192, np.bool_), np.empty(192)
    top, filled = 0, 0
    seg_lo[0], seg_n[0], seg_join[0] = lo, n, False
    while top >= 0:
        s_lo, s_n, join = seg_lo[top], seg_n[top], seg_join[top]
        top -= 1
        if join:  # both halves summed: join them
            sums[filled - 2] = sums[filled - 2] + sums[filled - 1]
            filled -= 1
        elif s_n <= 128:
            sums[filled] = block_sum(a, s_lo, s_n)
            filled += 1
        else:
            half = s_n // 2
            half -= half % 8
            seg_lo[top + 1], seg_n[top + 1], seg_join[top + 1] = s_lo, s_n, True
            seg_lo[top + 2], seg_n[top + 2], seg_join[top + 2] = s_lo + half, s_n - half, False
            seg_lo[top + 3], seg_n[top + 3], seg_join[top + 3] = s_lo, half, False
            top += 3
    return sums[0]


@njit(cache=True)
def node_sigma(q, visits, probs, value, c_visit, c_scale, min_span, out):
    """:func:`meduris_rl.agents.search.gumbel.completed_q` of one node into ``out``: ``q``,
    ``visits`` (float64) and ``probs`` (the prior's softmax floored at ``TINY``) over the ``A``
    actions."""
    num = q.shape[0]
    buf = np.empty(num)
    for a in range(num):
        buf[a] = probs[a] if visits[a] > 0 else 0.0
    sum_probs = pairwise_sum(buf, 0, num)
    div = sum_probs if sum_probs > 0 else 1.0
    for a in range(num):
        buf[a] = probs[a] * q[a] / div if visits[a] > 0 else 0.0
    weighted = pairwise_sum(buf, 0, num)
    total = pairwise_sum(visits, 0, num)
    v_mix = (value + total * weighted) / (total + 1.0)
    low, high, most = np.inf, -np.inf, 0.0
    for a in range(num):
        out[a] = q[a] if visits[a] > 0 else v_mix
        low = min(low, out[a])
        high = max(high, out[a])
        most = max(most, visits[a])
    scale = (c_visit + most) * c_scale
    span = max(high - low, min_span)
    for a in range(num):
        out[a] = scale * ((out[a] - low) / span)


@njit(cache=True)
def legal_argmax(score, legal):
    """numpy's ``argmax(where(legal, score, -inf))`` (first on ties); -1 with nothing legal."""
    best, top, any_legal = 0, -np.inf, False
    for a in range(score.shape[0]):
        v = score[a] if legal[a] else -np.inf
        any_legal = any_legal or legal[a]
        if v > top:
            best, top = a, v
    return best if any_legal else -1


@njit(cache=True)
def root_pick(gumbel, logits, sigma, visits, legal, considered_visit):
    """:func:`meduris_rl.agents.search.gumbel.root_action_selection` with the asked visit count
    given: the legal argmax of ``max(LOW_LOGIT, g + logits + sigma)`` among the actions with that
    count."""
    score = np.empty(gumbel.shape[0])
    for a in range(gumbel.shape[0]):
        s = max(LOW_LOGIT, gumbel[a] + logits[a] + sigma[a])
        score[a] = s if visits[a] == considered_visit else -np.inf
    return legal_argmax(score, legal)


@njit(cache=True)
def interior_policy(logits, sigma, legal, out):
    """:func:`meduris_rl.agents.search.gumbel.improved_policy` of one node (``logits`` masked)
    into ``out``."""
    num = logits.shape[0]
    top = -np.inf
    for a in range(num):
        if legal[a]:
            top = max(top, logits[a] + sigma[a])
    if not np.isfinite(top):
        top = 0.0
    for a in range(num):
        out[a] = np.exp(logits[a] + sigma[a] - top) if legal[a] else 0.0
    total = pairwise_sum(out, 0, num)
    for a in range(num):
        out[a] = out[a] / total if total > 0 else 0.0


@njit(cache=True)
def interior_pick(logits, sigma, visits, legal):
    """:func:`meduris_rl.agents.search.gumbel.interior_action_selection`: argmax of
    ``pi' - n / (1 + sum n)``."""
    num = logits.shape[0]
    probs = np.empty(num)
    interior_policy(logits, sigma, legal, probs)
    denominator = 1.0 + pairwise_sum(visits, 0, num)
    for a in range(num):
        probs[a] = probs[a] - visits[a] / denominator
    return legal_argmax(probs, legal)


@njit(cache=True)
def mask_logits(logits, mask, out):
    """:func:`meduris_rl.agents.search.gumbel.masked_logits` of every row into ``out`` (float64)."""
    lowest = np.finfo(np.float64).min
    for j in range(logits.shape[0]):
        top = -np.inf
        for a in range(logits.shape[1]):
            if mask[j, a] != 0 and np.float64(logits[j, a]) > top:
                top = np.float64(logits[j, a])
        if not np.isfinite(top):
            top = 0.0
        for a in range(logits.shape[1]):
            out[j, a] = np.float64(logits[j, a]) - top if mask[j, a] != 0 else lowest


@njit(cache=True)
def set_priors(trees, nodes, masked, exp, mask, values, out_logits, out_legal, out_probs,
               out_value, out_leaf_value, mover):
    """The evaluation of decision nodes (``nodes[j]`` of tree ``trees[j]``) into the trees'
    arrays: the masked logits, the legal mask, ``max(softmax(masked logits), TINY)`` over the
    legal actions as :func:`meduris_rl.agents.search.gumbel.mixed_value` takes it (the same bits:
    ``exp`` is numpy's exponential of the masked logits, 0 where illegal, and the sum numpy's
    pairwise one), the value, and the own value vector (the value for the mover, ``-value / (P -
    1)`` for every other seat)."""
    num_actions, num_players = masked.shape[1], out_leaf_value.shape[2]
    for j in range(trees.shape[0]):
        b, node = trees[j], nodes[j]
        total = pairwise_sum(exp[j], 0, num_actions)
        for a in range(num_actions):
            out_legal[b, node, a] = mask[j, a] != 0
            out_logits[b, node, a] = masked[j, a]
            p = exp[j, a] / total if total > 0 else 0.0
            out_probs[b, node, a] = max(p, TINY) if mask[j, a] != 0 else TINY
        value = np.float64(values[j])
        out_value[b, node] = value
        for p in range(num_players):
            out_leaf_value[b, node, p] = -value / max(1, num_players - 1)
        out_leaf_value[b, node, mover[b, node]] = value


def prior_of(logits, mask) -> tuple[np.ndarray, np.ndarray]:
    """The masked logits (float64) of ``(k, A)`` network logits and numpy's exponential of
    them (exactly 0 where illegal: the exponential of the most negative float)."""
    logits, mask = np.atleast_2d(logits), np.atleast_2d(mask)
    masked = np.empty(logits.shape)
    mask_logits(logits, mask, masked)
    return masked, np.exp(masked)


# --- the tree kernels ------------------------------------------------------------------------
@njit(cache=True)
def gather_edges(children, visits, value_sum, mover, node, q, n):
    """The node's per-action visits ``n`` and mean values ``q`` for its mover (0 unvisited)."""
    for a in range(children.shape[1]):
        child = children[node, a]
        if child >= 0 and visits[child] > 0:
            n[a] = visits[child]
            q[a] = value_sum[child, mover] / visits[child]
        else:
            n[a] = 0.0
            q[a] = 0.0


@njit(cache=True, parallel=True)
def select_leaves(children, visits, value_sum, mover, logits, legal, probs, value, gumbel,
                  table, num_considered, c_visit, c_scale, min_span, out_node, out_action,
                  out_end):
    """One selection in each of the ``B`` trees: from the root (Sequential Halving) down
    (interior selection) to an action without a child: ``out_node[b], out_action[b]`` and
    ``out_end[b] = -1``; or to a finished game already in the tree: ``out_end[b]`` its node.
    The trees are independent: walked in parallel, each with its own work arrays (the same
    bits as one thread)."""
    num_actions = children.shape[2]
    for b in prange(children.shape[0]):
        q, n, sigma = np.empty(num_actions), np.empty(num_actions), np.empty(num_actions)
        node = 0
        while True:
            gather_edges(children[b], visits[b], value_sum[b], mover[b, node], node, q, n)
            node_sigma(q, n, probs[b, node], value[b, node], c_visit, c_scale, min_span,
                       sigma)
            if node == 0:
                asked = table[num_considered[b], visits[b, 0]]
                action = root_pick(gumbel[b], logits[b, 0], sigma, n, legal[b, 0], asked)
            else:
                action = interior_pick(logits[b, node], sigma, n, legal[b, node])
            child = children[b, node, action]
            out_node[b], out_action[b], out_end[b] = node, action, -1
            if child < 0:
                break
            if mover[b, child] < 0:
                out_end[b] = child
                break
            node = child


@njit(cache=True)
def backup(parent, visits, value_sum, leaves, leaf_values):
    """Add one visit and the value vector ``leaf_values[b]`` to every node from ``leaves[b]``
    up to the root of tree ``b``."""
    for b in range(leaves.shape[0]):
        node = leaves[b]
        while node >= 0:
            visits[b, node] += 1
            for p in range(value_sum.shape[2]):
                value_sum[b, node, p] += leaf_values[b, p]
            node = parent[b, node]


# --- the trees in arrays ---------------------------------------------------------------------
class _Trees:
    """The arrays of ``B`` trees of ``N`` nodes over ``A`` actions and ``P`` players."""

    def __init__(self, num_trees: int, num_nodes: int, num_actions: int, num_players: int):
        shape, edges = (num_trees, num_nodes), (num_trees, num_nodes, num_actions)
        self.parent = np.full(shape, -1, dtype=np.int64)
        self.action = np.full(shape, -1, dtype=np.int64)
        self.pool_id = np.full(shape, -1, dtype=np.int64)
        self.mover = np.full(shape, -1, dtype=np.int64)
        self.value = np.zeros(shape)  # the network's value for the mover
        self.logits = np.zeros(edges)  # masked prior logits
        self.probs = np.zeros(edges)  # their softmax over the legal actions, floored at TINY
        self.legal = np.zeros(edges, dtype=np.bool_)
        self.children = np.full(edges, -1, dtype=np.int64)
        self.visits = np.zeros(shape, dtype=np.int64)
        self.value_sum = np.zeros((num_trees, num_nodes, num_players))
        self.leaf_value = np.zeros((num_trees, num_nodes, num_players))  # its own value vector
        self.size = np.zeros(num_trees, dtype=np.int64)

    def add(self, trees, parents, actions, ids, movers) -> np.ndarray:
        """New nodes (one in each of ``trees``) below ``parents`` by ``actions``: their index."""
        nodes = self.size[trees].copy()
        self.size[trees] += 1
        self.parent[trees, nodes], self.action[trees, nodes] = parents, actions
        self.pool_id[trees, nodes], self.mover[trees, nodes] = ids, movers
        has_parent = parents >= 0
        self.children[trees[has_parent], parents[has_parent], actions[has_parent]] = \
            nodes[has_parent]
        return nodes

    def set_prior(self, trees, nodes, logits, mask, values) -> None:
        """The evaluation of decision nodes: prior, value, own value vector."""
        mask = np.asarray(mask)
        masked, exp = prior_of(np.asarray(logits), mask)
        set_priors(np.asarray(trees, dtype=np.int64), np.asarray(nodes, dtype=np.int64),
                   masked, exp, mask, np.asarray(values).reshape(-1), self.logits, self.legal,
                   self.probs, self.value, self.leaf_value, self.mover)

    def root_edges(self) -> tuple[np.ndarray, np.ndarray]:
        """The roots' visits (int64) and mean values for their movers, ``(B, A)`` each."""
        num_trees, num_actions = self.children.shape[0], self.children.shape[2]
        visits, q = np.zeros((num_trees, num_actions)), np.zeros((num_trees, num_actions))
        for b in range(num_trees):
            gather_edges(self.children[b], self.visits[b], self.value_sum[b], self.mover[b, 0],
                         0, q[b], visits[b])
        return visits.astype(np.int64), q


class _FixedNoise:
    """A stand-in for a Generator whose ``gumbel`` returns given draws (to reuse gumbel_topk)."""

    def __init__(self, draws: np.ndarray):
        self.draws = draws

    def gumbel(self, size):
        return np.asarray(self.draws, dtype=np.float64).reshape(size)


# --- the search ------------------------------------------------------------------------------
def _root_trees(pool, roots, evaluate, num_nodes: int):
    """The trees with their roots added and evaluated; the roots' raw logits (float64) and
    legal masks."""
    movers = np.asarray(pool.mover(roots), dtype=np.int64)
    if (movers < 0).any():
        raise ValueError(f"roots {roots[movers < 0].tolist()} are finished games: the search "
                         "needs positions where a player must decide")
    num_players = int(np.asarray(pool.returns(roots[:1])).shape[1])
    obs, mask = pool.observe(roots)
    logits, values = evaluate(obs, mask)
    trees = _Trees(len(roots), num_nodes, int(np.shape(mask)[1]), num_players)
    everything, minus = np.arange(len(roots)), np.full(len(roots), -1, dtype=np.int64)
    nodes = trees.add(everything, minus, minus, roots, movers)
    trees.set_prior(everything, nodes, logits, mask, values)
    if not trees.legal[:, 0].any(axis=-1).all():
        raise ValueError("a root has no legal action")
    return trees, np.asarray(logits, dtype=np.float64), trees.legal[:, 0].copy()


def _expand_leaves(pool, evaluate, trees: _Trees, node, action, end, num_players: int,
                   streams=None):
    """Expand the new leaves (``end < 0``) in the pool, evaluate the live ones in one call,
    add them to the trees: the leaf node of every tree and its value vector."""
    leaves, new = end.copy(), np.flatnonzero(end < 0)
    if len(new):
        parents = trees.pool_id[new, node[new]]
        if streams is None:
            ids = pool.expand(parents, action[new])
        else:  # one stream number per node of each tree: its chance whatever the batch
            numbers = streams[new] * trees.parent.shape[1] + trees.size[new]
            ids = pool.expand(parents, action[new], numbers)
        ids = np.asarray(ids, dtype=np.int64)
        movers = np.asarray(pool.mover(ids), dtype=np.int64)
        nodes = trees.add(new, node[new], action[new], ids, movers)
        leaves[new] = nodes
        live = movers >= 0
        if live.any():
            obs, mask = pool.observe(ids[live])
            logits, values = evaluate(obs, mask)
            trees.set_prior(new[live], nodes[live], logits, mask, values)
        if not live.all():
            returns = np.asarray(pool.returns(ids[~live]), dtype=np.float64)
            trees.leaf_value[new[~live], nodes[~live]] = returns
    return leaves, trees.leaf_value[np.arange(len(leaves)), leaves]


def batched_gumbel_search(pool, roots, evaluate: BatchEvaluate, num_simulations: int,
                          max_num_considered: int, rng: np.random.Generator,
                          c_visit: float = C_VISIT, c_scale: float = C_SCALE,
                          gumbel_scale: float = 1.0, gumbel: np.ndarray | None = None,
                          streams=None, min_span: float = RESCALE_EPSILON) -> GumbelResult:
    """Gumbel search from the ``B`` pool positions ``roots`` together (see the module
    docstring). ``rng`` draws the roots' Gumbel noise ``(B, A)`` (before any expansion; the pool
    draws chance); ``gumbel`` gives those draws instead (standard Gumbel, still times
    ``gumbel_scale``), e.g. to search a root alone with the noise it had in a batch.
    ``streams`` (``B`` ints >= 0, optional) makes each tree's chance its own: node ``i`` of
    tree ``b`` is expanded with ``pool.expand(parents, actions, streams)`` and stream number
    ``streams[b] * (num_simulations + 1) + i`` (``PositionPool``'s keyed streams), so that a
    tree searched in any batch draws the same dice; without it the pool draws (the
    PositionPool from its expansion counter, which depends on the batch). ``min_span`` is
    :func:`meduris_rl.agents.search.gumbel.completed_q`'s (mctx's epsilon by default)."""
    if num_simulations < 0 or max_num_considered < 1:
        raise ValueError("num_simulations must be >= 0 and max_num_considered >= 1, got "
                         f"{num_simulations} and {max_num_considered}")
    roots = np.asarray(roots, dtype=np.int64).reshape(-1)
    if streams is not None:
        streams = np.asarray(streams, dtype=np.int64).reshape(-1)
        if streams.shape != roots.shape or (streams < 0).any():
            raise ValueError(f"streams must be {len(roots)} ints >= 0, one per root")
    trees, raw, legal = _root_trees(pool, roots, evaluate, num_simulations + 1)
    num_players = trees.value_sum.shape[2]
    noise = rng if gumbel is None else _FixedNoise(gumbel)
    top = gumbel_topk(raw, legal, max_num_considered, noise, gumbel_scale)
    table = considered_visits_table(max_num_considered, num_simulations)
    num_considered = np.minimum(max_num_considered, legal.sum(axis=-1)).astype(np.int64)
    size = len(roots)
    node, action, end = (np.zeros(size, dtype=np.int64) for _ in range(3))
    for _ in range(num_simulations):
        select_leaves(trees.children, trees.visits, trees.value_sum, trees.mover, trees.logits,
                      trees.legal, trees.probs, trees.value, top.gumbel, table, num_considered,
                      float(c_visit), float(c_scale), float(min_span), node, action, end)
        leaves, values = _expand_leaves(pool, evaluate, trees, node, action, end, num_players,
                                        streams)
        backup(trees.parent, trees.visits, trees.value_sum, leaves, values)
    visits, q = trees.root_edges()
    value = trees.value[:, 0].copy()
    sigma = completed_q(q, visits, raw, legal, value, c_visit, c_scale, min_span)
    return GumbelResult(
        actions=np.asarray(final_action(top.gumbel, raw, sigma, visits, legal), dtype=np.int64),
        policy=improved_policy(raw, sigma, legal), visits=visits, q=q, values=value,
        sigma=sigma, considered=top.actions, gumbel=top.gumbel)


class InputsPool:
    """A position pool as the search sees it when the evaluator wants a network's inputs:
    ``observe`` returns ``inputs(pool, ids, observations)`` (and the legal masks) instead of
    the observations; ``expand``, ``mover`` and ``returns`` are the pool's. Used by the
    ``gumbel`` agent and ``meduris az-train``."""

    def __init__(self, pool, inputs):
        self.pool = pool
        self.inputs = inputs  # (pool, ids, observations) -> network inputs

    def observe(self, ids):
        ids = np.asarray(ids, dtype=np.int64)
        obs, mask = self.pool.observe(ids)
        return self.inputs(self.pool, ids, obs), mask

    def expand(self, parents, actions, streams=None):
        return self.pool.expand(parents, actions, streams)

    def mover(self, ids):
        return self.pool.mover(ids)

    def returns(self, ids):
        return self.pool.returns(ids)

"""The root-search mathematics of Gumbel AlphaZero/MuZero (Danihelka, Guez, Schrittwieser and
Silver, "Policy improvement by planning with Gumbel", ICLR 2022), as DeepMind's ``mctx`` computes
it (``mctx/_src/{seq_halving,qtransforms,action_selection,policies}.py``), in numpy, and a small
reference search on the scalar engine that the batched search (issue 29) is tested against.

Every array function takes one root (arrays of shape ``(A,)``) or a batch of roots (``(B, A)``;
``value`` then has shape ``(B,)``), works along the last axis, and takes ``mask``: True (or 1)
where an action is legal. Q-values and values are from the point of view of the player to move
at the node, in [-1, 1] (any range works: they are rescaled).

* :func:`considered_visits_table` ``(m, n)`` is mctx's ``get_table_of_considered_visits``: an
  int array ``(m + 1, n)`` whose row ``k`` is the visit count Sequential Halving (Karnin et al.
  2013) asks of the root child to simulate next, at each simulation index, when ``k`` actions
  are considered (``get_sequence_of_considered_visits``). Rows 0 and 1 are ``0, 1, ..., n-1``.
  For ``k >= 2`` with ``L = ceil(log2 k)``, phases repeat until ``n`` entries exist: with ``c``
  actions considered (``k`` at first), each of ``max(1, floor(n / (L c)))`` rounds appends the
  current visit count of the ``c`` survivors ``c`` times and adds one visit to each; then
  ``c = max(2, c // 2)``. The row is the first ``n`` entries.
* :func:`gumbel_topk` draws ``g ~ Gumbel(0, 1)`` for every action (``rng.gumbel``, a numpy
  ``Generator``) and returns the ``k`` legal actions with the largest ``g + logits`` (sampling
  ``k`` actions without replacement from ``softmax(logits)``, the Gumbel-top-k trick), best
  first, with ``g`` itself (the root's ``root_gumbel`` of mctx's ``GumbelMuZeroExtraData``).
  ``scale`` multiplies ``g`` (mctx's ``gumbel_scale``: 1 to sample, as in self-play; 0 for a
  deterministic search, as mctx advises for evaluation in perfect-information games).
* :func:`completed_q` is mctx's ``qtransform_completed_by_mix_value`` with ``use_mixed_value``
  and ``rescale_values`` (its defaults): with ``N = sum_b n(b)`` the root's visits and ``pi =
  softmax(logits)`` over the legal actions (floored at the smallest float, mctx's ``tiny``), the
  mixed value ``v_mix = (v + N * sum_{b visited} pi(b) q(b) / sum_{b visited} pi(b)) / (N + 1)``
  (``_compute_mixed_value``; ``v`` the network's value at the node, ``v_mix = v`` when ``N = 0``);
  ``completedQ(a) = q(a)`` where ``n(a) > 0``, else ``v_mix`` (``_complete_qvalues``), for every
  entry, illegal ones included; rescaled to [0, 1] by ``(completedQ - min) / max(max - min,
  min_span)`` with the min and max over all ``A`` entries as mctx's ``_rescale_qvalues`` takes them
  (an illegal action, never visited, holds ``v_mix``; ``min_span`` is mctx's epsilon 1e-8 by
  default; a larger one, e.g. 1, stops the rescaling from stretching a node's small spread of
  values, mostly the value network's noise, to the whole scale: see :data:`RESCALE_EPSILON`);
  and returned as ``sigma(a) = (c_visit +
  max_b n(b)) * c_scale * completedQ(a)`` (mctx's ``maxvisit_init = 50``, ``value_scale = 0.1``).
* :func:`improved_policy` is ``pi' = softmax(logits + sigma)`` over the legal actions, 0 on the
  illegal ones: the training target (mctx's ``action_weights`` of ``gumbel_muzero_policy``).
* :func:`root_action_selection` is ``gumbel_muzero_root_action_selection``: with ``k' = min(m,
  number of legal actions)`` and the simulation index ``N`` (the root's visits so far), the
  considered visit count ``c = table[k', N]``; the action is the legal argmax of
  ``max(-1e9, g + logits - max(logits) + sigma) + (0 if n(a) == c else -inf)``
  (``seq_halving.score_considered``). In the first ``k'`` simulations all counts are 0 and
  ``sigma`` is equal among the unvisited, so the ``k'`` actions of :func:`gumbel_topk` are
  visited in its order; later, only survivors have the asked count, and halving keeps those of
  the highest ``g + logits + sigma``.
* :func:`final_action` is the action ``gumbel_muzero_policy`` plays: the same score with ``c =
  max_a n(a)`` (the most visited considered actions; ties to the highest score).
* :func:`interior_action_selection` is ``gumbel_muzero_interior_action_selection``, the
  deterministic selection below the root: the legal argmax of ``pi'(a) - n(a) / (1 + sum_b
  n(b))`` (``_prepare_argmax_input``), so that visit frequencies follow ``pi'``.

Argmax ties go to the lowest action id (``jnp.argmax`` as numpy's). Rows with no legal action
get action -1 and an all-zero policy.

:func:`gumbel_search` is the reference search on one position of any game with the OpenSpiel
protocol (``clone``, ``apply_action``, ``legal_actions``, ``is_chance_node``,
``chance_outcomes``, ``is_terminal``, ``returns``, ``current_player``; Meduris's ``State``).
``evaluate(state) -> (logits (A,), v)`` gives the prior logits and the value for the player to
move. The tree keeps a position per node: chance outcomes are drawn from ``rng`` (with
``chance_outcomes()``'s probabilities) when a node is created, until a player must decide or the
game ends, and stay fixed afterwards (chance "sampled at expansion", as the batched search will
do with the games' own streams). One simulation: from the root, pick actions
(:func:`root_action_selection` at the root, :func:`interior_action_selection` below, both with
:func:`completed_q` of the node) until an action without a child or a finished game; create and
evaluate the child; back its value vector up the path. Values are vectors with one entry per
player: a finished game's ``returns()``; an evaluated position ``v`` for its mover and ``-v /
(P - 1)`` for each other seat of ``P`` (two players: negation), so a node's ``q(a)`` is the mean,
for the player who chooses there, of the values backed up through ``a`` (the child's own
evaluation included, as mctx's node values include the raw value). Every search draws its Gumbel
noise from ``rng`` first, then its chance outcomes: one seed gives one result.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np

C_VISIT = 50.0  # mctx's maxvisit_init
C_SCALE = 0.1  # mctx's value_scale
#: mctx's epsilon of _rescale_qvalues: the smallest spread of a node's completed Q-values that
#: is stretched to [0, 1] (``min_span``). With few simulations and a weak value network the
#: spread is mostly noise, and stretching it makes the improved policy follow that noise; the
#: trainer's ``min_span`` (train/meduris/az.py) keeps a spread below it at its own size instead.
RESCALE_EPSILON = 1e-8
LOW_LOGIT = -1e9  # mctx's low_logit of score_considered
TINY = np.finfo(np.float64).tiny


# --- Sequential Halving ----------------------------------------------------------------------
def considered_visits_sequence(max_num_considered: int, num_simulations: int) -> tuple[int, ...]:
    """mctx's ``get_sequence_of_considered_visits`` (see the module docstring)."""
    if max_num_considered <= 1:
        return tuple(range(num_simulations))
    log2max = int(np.ceil(np.log2(max_num_considered)))
    sequence: list[int] = []
    visits = [0] * max_num_considered
    num_considered = max_num_considered
    while len(sequence) < num_simulations:
        num_extra_visits = max(1, int(num_simulations / (log2max * num_considered)))
        for _ in range(num_extra_visits):
            sequence.extend(visits[:num_considered])
            for i in range(num_considered):
                visits[i] += 1
        num_considered = max(2, num_considered // 2)
    return tuple(sequence[:num_simulations])


@functools.lru_cache(maxsize=64)
def _table(max_num_considered: int, num_simulations: int) -> np.ndarray:
    table = np.array([considered_visits_sequence(m, num_simulations)
                      for m in range(max_num_considered + 1)], dtype=np.int64)
    table = table.reshape(max_num_considered + 1, num_simulations)
    table.flags.writeable = False
    return table


def considered_visits_table(max_num_considered: int, num_simulations: int) -> np.ndarray:
    """mctx's ``get_table_of_considered_visits``: int64 ``(max_num_considered + 1,
    num_simulations)``, row ``k`` for ``k`` considered actions (read-only, cached)."""
    if max_num_considered < 0 or num_simulations < 0:
        raise ValueError("max_num_considered and num_simulations must be >= 0, got "
                         f"{max_num_considered} and {num_simulations}")
    return _table(int(max_num_considered), int(num_simulations))


# --- masks and logits -----------------------------------------------------------------------
def _legal(mask, shape) -> np.ndarray:
    legal = np.asarray(mask).astype(bool)
    if legal.shape != shape:
        raise ValueError(f"mask has shape {legal.shape}, the logits {shape}")
    return legal


def masked_logits(logits, mask) -> np.ndarray:
    """``logits - max(legal logits)`` on legal actions, the most negative float elsewhere
    (mctx's ``_mask_invalid_actions``; softmax gives the illegal ones no mass)."""
    logits = np.asarray(logits, dtype=np.float64)
    legal = _legal(mask, logits.shape)
    top = np.max(np.where(legal, logits, -np.inf), axis=-1, keepdims=True)
    top = np.where(np.isfinite(top), top, 0.0)
    return np.where(legal, logits - top, np.finfo(np.float64).min)


def _softmax(x: np.ndarray, legal: np.ndarray) -> np.ndarray:
    z = np.where(legal, x, -np.inf)
    top = np.max(z, axis=-1, keepdims=True)
    e = np.where(legal, np.exp(z - np.where(np.isfinite(top), top, 0.0)), 0.0)
    total = np.sum(e, axis=-1, keepdims=True)
    return np.divide(e, total, out=np.zeros_like(e), where=total > 0)


def _argmax(score: np.ndarray, legal: np.ndarray) -> np.ndarray | int:
    """The legal argmax per row (lowest id on ties), -1 for a row with no legal action."""
    best = np.argmax(np.where(legal, score, -np.inf), axis=-1)
    out = np.where(legal.any(axis=-1), best, -1)
    return int(out) if out.ndim == 0 else out.astype(np.int64)


# --- Gumbel top-k -----------------------------------------------------------------------------
class TopK(NamedTuple):
    """The considered actions (best first) and the Gumbel noise they were drawn with."""
    actions: np.ndarray  # (k',) for one root; (B, k) padded with -1 for a batch
    gumbel: np.ndarray  # the shape of the logits


def gumbel_topk(logits, mask, k: int, rng: np.random.Generator, scale: float = 1.0) -> TopK:
    """The ``k`` legal actions with the largest ``g + logits``, ``g ~ Gumbel(0, 1)`` drawn from
    ``rng`` for every entry, times ``scale`` (mctx's ``gumbel_scale``; 0 for a deterministic
    choice). One root: ``min(k, legal)`` actions; a batch: ``(B, k)``, rows with fewer legal
    actions padded with -1."""
    logits = np.asarray(logits, dtype=np.float64)
    legal = _legal(mask, logits.shape)
    gumbel = scale * rng.gumbel(size=logits.shape)
    score = np.where(legal, gumbel + logits, -np.inf)
    order = np.argsort(-score, axis=-1, kind="stable")[..., :max(0, int(k))]
    taken = np.take_along_axis(legal, order, axis=-1)
    if logits.ndim == 1:
        return TopK(order[taken].astype(np.int64), gumbel)
    return TopK(np.where(taken, order, -1).astype(np.int64), gumbel)


# --- completed Q-values -----------------------------------------------------------------------
def mixed_value(q, visits, prior_logits, mask, value) -> np.ndarray:
    """mctx's ``_compute_mixed_value`` (see the module docstring); shape ``()`` or ``(B,)``."""
    q = np.asarray(q, dtype=np.float64)
    visits = np.asarray(visits, dtype=np.float64)
    legal = _legal(mask, q.shape)
    probs = np.maximum(_softmax(masked_logits(prior_logits, legal), legal), TINY)
    seen = visits > 0
    total = np.sum(visits, axis=-1)
    sum_probs = np.sum(np.where(seen, probs, 0.0), axis=-1, keepdims=True)
    weighted = np.sum(np.where(seen, probs * q / np.where(sum_probs > 0, sum_probs, 1.0), 0.0),
                      axis=-1)
    return (np.asarray(value, dtype=np.float64) + total * weighted) / (total + 1.0)


def completed_q(q, visits, prior_logits, mask, value, c_visit: float = C_VISIT,
                c_scale: float = C_SCALE, min_span: float = RESCALE_EPSILON) -> np.ndarray:
    """``sigma = (c_visit + max n) * c_scale * rescaled completedQ``: mctx's
    ``qtransform_completed_by_mix_value`` (see the module docstring). ``q`` is read only where
    ``visits > 0``."""
    q = np.asarray(q, dtype=np.float64)
    visits = np.asarray(visits)
    if visits.shape != q.shape:
        raise ValueError(f"visits has shape {visits.shape}, q {q.shape}")
    v_mix = mixed_value(q, visits, prior_logits, mask, value)
    completed = np.where(visits > 0, q, np.expand_dims(v_mix, -1))
    low = np.min(completed, axis=-1, keepdims=True)
    high = np.max(completed, axis=-1, keepdims=True)
    rescaled = (completed - low) / np.maximum(high - low, min_span)
    scale = (c_visit + np.max(visits, axis=-1, keepdims=True)) * c_scale
    return scale * rescaled


def improved_policy(prior_logits, completed_q_sigma, mask) -> np.ndarray:
    """``softmax(logits + sigma)`` over the legal actions, 0 on the illegal ones."""
    logits = np.asarray(prior_logits, dtype=np.float64)
    legal = _legal(mask, logits.shape)
    return _softmax(masked_logits(logits, legal) + completed_q_sigma, legal)


# --- action selection -------------------------------------------------------------------------
def _considered_score(considered_visit, gumbel, prior_logits, sigma, visits, legal):
    """mctx's ``seq_halving.score_considered``."""
    logits = masked_logits(prior_logits, legal)
    penalty = np.where(visits == considered_visit, 0.0, -np.inf)
    return np.maximum(LOW_LOGIT, gumbel + logits + sigma) + penalty


def root_action_selection(gumbel, prior_logits, sigma, visits, mask, num_simulations: int,
                          max_num_considered: int):
    """The root's next action to simulate by Sequential Halving with Gumbel (mctx's
    ``gumbel_muzero_root_action_selection``); an int, or ``(B,)`` for a batch."""
    visits = np.asarray(visits, dtype=np.int64)
    legal = _legal(mask, visits.shape)
    table = considered_visits_table(max_num_considered, num_simulations)
    num_considered = np.minimum(max_num_considered, legal.sum(axis=-1))
    simulation = visits.sum(axis=-1)
    if np.any(simulation >= num_simulations):
        raise ValueError(f"the root has {simulation} visits: the budget of {num_simulations} "
                         "simulations is spent")
    considered_visit = np.expand_dims(table[num_considered, simulation], -1)
    return _argmax(_considered_score(considered_visit, gumbel, prior_logits, sigma, visits,
                                     legal), legal)


def final_action(gumbel, prior_logits, sigma, visits, mask):
    """The action to play after the search (mctx's ``gumbel_muzero_policy``): the best
    ``g + logits + sigma`` among the most visited actions."""
    visits = np.asarray(visits, dtype=np.int64)
    legal = _legal(mask, visits.shape)
    most = np.max(np.where(legal, visits, 0), axis=-1, keepdims=True)
    return _argmax(_considered_score(most, gumbel, prior_logits, sigma, visits, legal), legal)


def interior_action_selection(prior_logits, sigma, visits, mask):
    """The deterministic selection below the root (mctx's
    ``gumbel_muzero_interior_action_selection``): argmax of ``pi' - n / (1 + sum n)``."""
    visits = np.asarray(visits, dtype=np.float64)
    legal = _legal(mask, visits.shape)
    probs = improved_policy(prior_logits, sigma, legal)
    score = probs - visits / (1.0 + np.sum(visits, axis=-1, keepdims=True))
    return _argmax(score, legal)


# --- the reference search on one position -----------------------------------------------------
Evaluate = Callable[[Any], tuple[np.ndarray, float]]


class _Node:
    """A position of the tree with its per-action statistics, for the player to move."""
    __slots__ = ("state", "player", "logits", "legal", "value", "visits", "total", "children")

    def __init__(self, state, num_actions: int):
        self.state = state
        self.player = state.current_player()
        self.logits = np.zeros(num_actions)
        self.legal = np.zeros(num_actions, dtype=bool)
        self.value = 0.0  # the network's value for the player to move (mctx's raw value)
        self.visits = np.zeros(num_actions, dtype=np.int64)  # simulations through each action
        self.total = np.zeros(num_actions)  # their summed values for self.player
        self.children: dict[int, _Node] = {}

    def q(self) -> np.ndarray:
        return np.divide(self.total, self.visits, out=np.zeros_like(self.total),
                         where=self.visits > 0)

    def sigma(self, c_visit: float, c_scale: float,
              min_span: float = RESCALE_EPSILON) -> np.ndarray:
        return completed_q(self.q(), self.visits, self.logits, self.legal, self.value,
                           c_visit, c_scale, min_span)


@dataclass(frozen=True)
class SearchResult:
    """What :func:`gumbel_search` found at the root (arrays over the ``A`` actions)."""
    action: int  # the move to play (final_action)
    policy: np.ndarray  # the improved policy pi' (the training target)
    visits: np.ndarray  # simulations through each root action; they sum to num_simulations
    q: np.ndarray  # their mean value for the player to move (0 where unvisited)
    sigma: np.ndarray  # completed_q at the root after the search
    considered: np.ndarray  # gumbel_topk's actions, best first
    gumbel: np.ndarray  # the root's Gumbel noise
    value: float  # the network's value of the root for the player to move


def _settle(state, rng: np.random.Generator) -> None:
    """Draw chance outcomes in place until a player must decide or the game is over (one
    outcome, then the rest by recursion: chance nodes come a few in a row)."""
    if state.is_chance_node():
        outcomes = state.chance_outcomes()
        probs = np.array([p for _, p in outcomes], dtype=np.float64)
        state.apply_action(outcomes[int(rng.choice(len(outcomes), p=probs / probs.sum()))][0])
        _settle(state, rng)


def _leaf(node: _Node, evaluate: Evaluate, num_players: int, evaluation=None) -> np.ndarray:
    """Evaluate a new node (with ``evaluation`` when given, else ``evaluate``): its value
    vector, one entry per player; fills its prior."""
    state = node.state
    if state.is_terminal():
        return np.asarray(state.returns(), dtype=np.float64)
    logits, value = evaluate(state) if evaluation is None else evaluation
    node.logits = np.asarray(logits, dtype=np.float64).reshape(node.logits.shape)
    node.legal[state.legal_actions()] = True
    node.value = float(value)
    out = np.full(num_players, -node.value / max(1, num_players - 1))
    out[node.player] = node.value
    return out


def _expand(node: _Node, action: int, rng, evaluate: Evaluate, num_players: int):
    """The child of ``node`` by ``action`` (chance drawn now) and its value vector."""
    state = node.state.clone()
    state.apply_action(int(action))
    _settle(state, rng)
    child = _Node(state, len(node.logits))
    node.children[int(action)] = child
    return _leaf(child, evaluate, num_players)


def _simulate(root: _Node, gumbel, num_simulations: int, max_num_considered: int, rng,
              evaluate: Evaluate, num_players: int, c: tuple[float, float]) -> None:
    """One simulation: select down to a new node or a finished game, back its value up."""
    path: list[tuple[_Node, int]] = []
    node = root
    while True:
        if node is root:
            action = root_action_selection(gumbel, node.logits, node.sigma(*c), node.visits,
                                           node.legal, num_simulations, max_num_considered)
        else:
            action = interior_action_selection(node.logits, node.sigma(*c), node.visits,
                                               node.legal)
        path.append((node, action))
        child = node.children.get(action)
        if child is None:
            values = _expand(node, action, rng, evaluate, num_players)
            break
        if child.state.is_terminal():
            values = np.asarray(child.state.returns(), dtype=np.float64)
            break
        node = child
    for parent, action in path:
        parent.visits[action] += 1
        parent.total[action] += values[parent.player]


def gumbel_search(state, evaluate: Evaluate, num_simulations: int, max_num_considered: int,
                  rng: np.random.Generator, c_visit: float = C_VISIT,
                  c_scale: float = C_SCALE, gumbel_scale: float = 1.0,
                  min_span: float = RESCALE_EPSILON) -> SearchResult:
    """Gumbel search from ``state`` (a decision node; it is not changed) with
    ``num_simulations`` simulations and at most ``max_num_considered`` root actions (see the
    module docstring). ``gumbel_scale`` 0 makes the choice deterministic (mctx: for evaluation
    in perfect-information games); 1 makes the played action a sample of about the improved
    policy (for self-play)."""
    if state.is_chance_node() or state.is_terminal():
        raise ValueError("gumbel_search needs a position where a player must decide")
    if num_simulations < 0 or max_num_considered < 1:
        raise ValueError("num_simulations must be >= 0 and max_num_considered >= 1, got "
                         f"{num_simulations} and {max_num_considered}")
    num_players = len(state.returns())
    evaluation = evaluate(state)
    root = _Node(state.clone(), len(evaluation[0]))
    _leaf(root, evaluate, num_players, evaluation)
    top = gumbel_topk(root.logits, root.legal, max_num_considered, rng, gumbel_scale)
    c = (c_visit, c_scale, min_span)
    for _ in range(num_simulations):
        _simulate(root, top.gumbel, num_simulations, max_num_considered, rng, evaluate,
                  num_players, c)
    sigma = root.sigma(*c)
    return SearchResult(
        action=final_action(top.gumbel, root.logits, sigma, root.visits, root.legal),
        policy=improved_policy(root.logits, sigma, root.legal), visits=root.visits.copy(),
        q=root.q(), sigma=sigma, considered=top.actions, gumbel=top.gumbel, value=root.value)

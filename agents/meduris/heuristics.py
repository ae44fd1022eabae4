"""The hand-written evaluation behind the greedy agent and the MCTS rollouts (numba kernels).

``seat_value(st, s)`` estimates what seat ``s`` will end the game with, in VP:

* its VP now;
* rune stones held, scored as at the end (R25: k stones give 1 + ... + k), so taking a rune stone
  from a player is worth its loss to them as well;
* each temple's end score as it stands (R24: the settlements directly left and right);
* each hut: ``SETTLEMENT_WEIGHT`` x its settlement's size, what rituals pay for it (R19 "both"
  pays the size);
* materials with diminishing returns (``MATERIAL_WEIGHT`` each up to 4 of a kind, then
  ``SPARE_MATERIAL_WEIGHT``), so taking scarce ones and returning plentiful ones is preferred;
* each worker, a little for the supply on its plain (what a die roll there can yield, R8).

Once the game is over only VP count. ``evaluate(st, me)`` is ``seat_value`` of ``me`` minus the
best other seat's: greedy play chases the leader, and 2-player play is zero-sum.

``greedy_action`` applies every legal action to a copy and keeps the best ``evaluate`` for the
player to move (ties broken at random from the given seed). A manual exchange (R15) is worth the
best action it makes newly affordable. ``rollout_values`` plays a few decisions with that policy
(epsilon-greedy) and sampled chance, then evaluates every seat: the MCTS leaf value.

The one-position kernels release the GIL (``nogil=True``) and allocate their scratch per call,
so searches in several threads run at once; numba's ``np.random`` is per thread, so a kernel
that seeds it draws the same numbers whatever the other threads do. The batch kernels
(``parallel=True``) keep the GIL: they already use every core, and with numba's fallback
threading layer (workqueue, when neither OpenMP nor TBB is there) two of them launched at once
from two threads would abort the process.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from meduris_env.engine.constants import (
    A_EXCHANGE,
    HUT,
    NUM_ACTIONS,
    NUM_CHANCE_OUTCOMES,
    PH_QUEUE,
    PH_TERMINAL,
    TEMPLE,
)
from meduris_env.engine.kernel import (
    EV_CAPACITY,
    EV_WIDTH,
    apply,
    current_player,
    legal_mask,
    random_legal_action,
    run_size,
    runes_of,
    sample_chance_outcome,
    temple_score,
)
from meduris_env.engine.layout import (
    O_MAT,
    O_NF,
    O_NP,
    O_OCC,
    O_OWN,
    O_PHASE,
    O_STACK,
    O_SUP,
    O_VP,
)

SETTLEMENT_WEIGHT = 0.5
MATERIAL_WEIGHT = 0.6
SPARE_MATERIAL_WEIGHT = 0.2
WORKER_WEIGHT = 0.02
TIE_NOISE = 1e-6


@njit(cache=True, nogil=True)
def seat_value(st, s):
    vp = float(st[O_VP + s])
    if st[O_PHASE] == PH_TERMINAL:
        return vp
    n = st[O_NF]
    k = runes_of(st, s)
    v = vp + k * (k + 1) / 2.0
    for f in range(n):
        if st[O_OWN + f] != s:
            continue
        occ = st[O_OCC + f]
        if occ == HUT:
            v += SETTLEMENT_WEIGHT * run_size(st, f, n)
        elif occ == TEMPLE:
            v += temple_score(st, f, n)
    for m in range(4):
        c = st[O_MAT + s * 4 + m]
        if c <= 4:
            v += MATERIAL_WEIGHT * c
        else:
            v += MATERIAL_WEIGHT * 4 + SPARE_MATERIAL_WEIGHT * (c - 4)
    for p in range(4):
        for lv in range(3):
            if st[O_STACK + p * 3 + lv] == s:
                v += WORKER_WEIGHT * st[O_SUP + p]
    return v


@njit(cache=True, nogil=True)
def evaluate(st, me):
    """``me``'s value minus the best other seat's (VP-equivalents)."""
    best = -1e9
    mine = 0.0
    for s in range(st[O_NP]):
        v = seat_value(st, s)
        if s == me:
            mine = v
        elif v > best:
            best = v
    return mine - best


@njit(cache=True, nogil=True)
def _value_after(st, fm, fa, a, me, tmp, ev, evc):
    tmp[:] = st
    apply(tmp, fm, fa, a, ev, evc)
    return evaluate(tmp, me)


@njit(cache=True, nogil=True)
def _action_values(st, fm, fa, me, vals, mask, mask2, tmp, tmp2, ev, evc):
    """``evaluate`` for ``me`` after each legal action into ``vals`` (-inf where illegal)."""
    legal_mask(st, fm, mask)
    for a in range(NUM_ACTIONS):
        if mask[a] == 0:
            vals[a] = -np.inf
        elif a < A_EXCHANGE:
            vals[a] = _value_after(st, fm, fa, a, me, tmp, ev, evc)
        else:  # an exchange is worth the best action it newly makes affordable (R15)
            tmp2[:] = st
            apply(tmp2, fm, fa, a, ev, evc)
            v = evaluate(tmp2, me) - 1.0  # giving 3 for 1 must pay for itself
            if current_player(tmp2) == me:
                legal_mask(tmp2, fm, mask2)
                for b in range(A_EXCHANGE):
                    if mask2[b] != 0 and mask[b] == 0:
                        w = _value_after(tmp2, fm, fa, b, me, tmp, ev, evc)
                        if w > v:
                            v = w
            vals[a] = v


@njit(cache=True, nogil=True)
def _greedy(st, fm, fa, me, vals, mask, mask2, tmp, tmp2, ev, evc):
    """Best action for ``me`` at ``st`` by one-step lookahead (np.random must be seeded)."""
    _action_values(st, fm, fa, me, vals, mask, mask2, tmp, tmp2, ev, evc)
    best = -np.inf
    best_a = -1
    for a in range(NUM_ACTIONS):
        if mask[a] != 0:
            v = vals[a] + TIE_NOISE * np.random.random()
            if v > best:
                best = v
                best_a = a
    return best_a


@njit(cache=True, nogil=True)
def _scratch(size):
    """Work arrays: masks, two state copies, the event buffer and its count, action values."""
    return (np.zeros(NUM_ACTIONS, dtype=np.int8), np.zeros(NUM_ACTIONS, dtype=np.int8),
            np.empty(size, dtype=np.int32), np.empty(size, dtype=np.int32),
            np.zeros((EV_CAPACITY, EV_WIDTH), dtype=np.int32), np.zeros(1, dtype=np.int64),
            np.empty(NUM_ACTIONS, dtype=np.float64))


@njit(cache=True, nogil=True)
def action_values(st, fm, fa):
    """``evaluate`` for the player to move after each action (-inf where illegal)."""
    mask, mask2, tmp, tmp2, ev, evc, vals = _scratch(st.shape[0])
    _action_values(st, fm, fa, current_player(st), vals, mask, mask2, tmp, tmp2, ev, evc)
    return vals


@njit(cache=True, nogil=True)
def greedy_action(st, fm, fa, seed):
    """The greedy agent's action for the player to move at ``st`` (a decision node)."""
    np.random.seed(seed)
    mask, mask2, tmp, tmp2, ev, evc, vals = _scratch(st.shape[0])
    return _greedy(st, fm, fa, current_player(st), vals, mask, mask2, tmp, tmp2, ev, evc)


@njit(cache=True, parallel=True)
def greedy_actions(states, fm, fa, seeds, out):
    """:func:`greedy_action` for every row of ``states`` (in parallel): ``out[j]`` is the
    greedy agent's action at ``states[j]`` with the tie-break seed ``seeds[j]``."""
    for j in prange(states.shape[0]):
        out[j] = greedy_action(states[j], fm, fa, seeds[j])


#: a batch of at least this many rows is worked on in parallel, fewer in this thread (waking
#: numba's workers costs more than one row, and far more when the cores are busy: 7 ms instead
#: of 30 us was seen)
PARALLEL_ROWS = 16


@njit(cache=True, parallel=True)
def batch_evaluate(states, seats, out):
    """:func:`evaluate` of ``states[j]`` for seat ``seats[j]`` into ``out[j]`` (in parallel)."""
    for j in prange(states.shape[0]):
        out[j] = evaluate(states[j], seats[j])


@njit(cache=True, nogil=True)
def rollout_values(st, fm, fa, decisions, epsilon, seed, out):
    """Play ``decisions`` decisions from ``st`` (changed in place): each is the greedy action
    with probability 1 - epsilon, else uniform; chance is sampled. Then write ``evaluate`` for
    every seat into ``out``."""
    np.random.seed(seed)
    mask, mask2, tmp, tmp2, ev, evc, vals = _scratch(st.shape[0])
    cmask = np.zeros(NUM_CHANCE_OUTCOMES, dtype=np.int8)
    done = 0
    while st[O_PHASE] != PH_TERMINAL and done < decisions:
        if st[O_PHASE] == PH_QUEUE:
            if np.random.random() < epsilon:
                a = random_legal_action(st, fm, mask)
            else:
                a = _greedy(st, fm, fa, current_player(st), vals, mask, mask2, tmp, tmp2, ev,
                            evc)
            done += 1
        else:
            a = sample_chance_outcome(st, cmask)
        apply(st, fm, fa, a, ev, evc)
    for s in range(st[O_NP]):
        out[s] = evaluate(st, s)

"""Row kernels for a batch of games: a batch of B games is one ``(B, STATE_SIZE)`` int32 array,
and these kernels reset or advance one row; :mod:`meduris_env.envs.batch_kernels` runs them in
parallel over games.

Each row is an ordinary state (``State(game, row)`` reads it): the kernels apply the same
:func:`~meduris_env.engine.kernel.apply` as the scalar engine. What the batch adds is chance
resolved inside the kernel: after every reset and every action, chance nodes are resolved at once
with outcomes drawn by :func:`~meduris_env.engine.kernel.chance_outcome` (the documented
distributions) from the game's own **counter-based random stream**. Game ``i``'s stream is
SplitMix64 from the key ``stream_key(seed, i, episode)`` (the project's seed hash,
:mod:`~meduris_rl.kit.seeding`), stepped by a per-game counter. Each game therefore depends
on ``(seed, i, episode)`` and its own actions only, never on the batch size or the number of
threads. A second counter on the same key, in another domain, serves the game's agent
randomness: the batched random sampler and the environments' built-in random opponent.

Per-game bookkeeping travels in two small 2-D arrays, one row per game:

=============  =========  =====================================================================
array          dtype      columns
=============  =========  =====================================================================
``streams``    uint64     ``KEY`` (the episode's stream key), ``CHANCE_DRAWS``, ``AGENT_DRAWS``
``counts``     int64      ``EPISODE`` (episodes started, -1 before the first),
                          ``HISTORY_LENGTH`` (ids applied this episode)
=============  =========  =====================================================================

Every applied id (actions and chance outcomes) can be appended to a per-game history
(``history[b, :counts[b, HISTORY_LENGTH]]``; a zero-width ``history`` keeps none), which replays
through ``State.apply_action``.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from meduris_rl.kit.seeding import STREAM_BATCH, _splitmix64

from .constants import NUM_ACTIONS, NUM_CHANCE_OUTCOMES, PH_QUEUE, PH_TERMINAL
from .kernel import (
    EV_CAPACITY,
    EV_WIDTH,
    apply_legal,
    chance_outcome,
    current_player,
    masked_choice,
)
from .layout import O_PHASE

# the columns of ``streams`` and ``counts``
KEY, CHANCE_DRAWS, AGENT_DRAWS = 0, 1, 2
STREAM_COLUMNS = 3
EPISODE, HISTORY_LENGTH = 0, 1
COUNT_COLUMNS = 2

CHANCE_DOMAIN = np.uint64(0)  # draws of the game's chance outcomes
AGENT_DOMAIN = np.uint64(0x5851F42D4C957F2D)  # draws of the game's random agents
CHUNK = 16  # games per parallel work item (scratch buffers are allocated once per chunk)


@njit(cache=True, nogil=True)
def stream_key(seed, game, episode):
    """The 64-bit key of game ``game``'s random stream in episode ``episode`` of a batch seeded
    with ``seed`` (the seed hash of :func:`~meduris_rl.kit.seeding.derive_seed_kernel`)."""
    h = np.uint64(0x6A09E667F3BCC908)
    h = _splitmix64(h ^ np.uint64(seed))
    h = _splitmix64(h ^ np.uint64(STREAM_BATCH))
    h = _splitmix64(h ^ np.uint64(game))
    return _splitmix64(h ^ np.uint64(episode))


@njit(cache=True, nogil=True)
def draw(streams, b, counter, domain):
    """The next uniform 32-bit number of game ``b``'s stream in ``domain``, counted in column
    ``counter`` (counter-based: SplitMix64 of key + count)."""
    c = streams[b, counter]
    streams[b, counter] = c + np.uint64(1)
    x = _splitmix64((streams[b, KEY] ^ domain) + c * np.uint64(0x9E3779B97F4A7C15))
    return np.int64(x >> np.uint64(32))


@njit(cache=True, nogil=True)
def agent_draw(streams, b):
    """The next number of game ``b``'s agent stream."""
    return draw(streams, b, AGENT_DRAWS, AGENT_DOMAIN)


@njit(cache=True, nogil=True)
def _record(history, counts, b, a):
    n = counts[b, HISTORY_LENGTH]
    if n < history.shape[1]:
        history[b, n] = a
    counts[b, HISTORY_LENGTH] = n + 1  # beyond the capacity it still counts: overflow shows


@njit(cache=True, nogil=True)
def resolve_chance_row(st, fm, fa, streams, b, history, counts, ev, evc, cmask):
    """Apply chance outcomes from game ``b``'s stream until a decision is due or the game is
    over; return the current player."""
    while st[O_PHASE] != PH_QUEUE and st[O_PHASE] != PH_TERMINAL:
        a = chance_outcome(st, cmask, draw(streams, b, CHANCE_DRAWS, CHANCE_DOMAIN),
                           draw(streams, b, CHANCE_DRAWS, CHANCE_DOMAIN))
        apply_legal(st, fm, fa, a, ev, evc)  # a possible outcome by construction
        _record(history, counts, b, a)
    return current_player(st)


@njit(cache=True, nogil=True)
def reset_row(states, initial, fm, fa, b, seed, streams, history, counts, ev, evc, cmask):
    """Start game ``b`` afresh: the initial position, a new episode's stream, setup chance
    (bonus chips R4, the starting player R6) resolved up to the first decision."""
    st = states[b]
    st[:] = initial
    counts[b, EPISODE] += 1
    streams[b, KEY] = stream_key(seed, b, counts[b, EPISODE])
    streams[b, CHANCE_DRAWS] = 0
    streams[b, AGENT_DRAWS] = 0
    counts[b, HISTORY_LENGTH] = 0
    return resolve_chance_row(st, fm, fa, streams, b, history, counts, ev, evc, cmask)


@njit(cache=True, nogil=True)
def act_row(states, fm, fa, b, action, streams, history, counts, ev, evc, cmask):
    """Apply ``action`` to game ``b`` for its mover, then resolve chance; return the current
    player. The action must be legal: the caller checks it (against the legal mask)."""
    apply_legal(states[b], fm, fa, action, ev, evc)
    _record(history, counts, b, action)
    return resolve_chance_row(states[b], fm, fa, streams, b, history, counts, ev, evc, cmask)


@njit(cache=True, nogil=True)
def scratch():
    """Per-chunk work buffers: events, event count, chance mask, legal mask."""
    return (np.empty((EV_CAPACITY, EV_WIDTH), dtype=np.int32), np.zeros(1, dtype=np.int64),
            np.zeros(NUM_CHANCE_OUTCOMES, dtype=np.int8), np.zeros(NUM_ACTIONS, dtype=np.int8))


@njit(cache=True, nogil=True)
def random_action(mask_row, streams, b):
    """A uniformly random legal action from ``mask_row`` (game ``b``'s legal mask), drawn from
    game ``b``'s agent stream."""
    return masked_choice(mask_row, agent_draw(streams, b))

"""Batch kernels: a batch of B games is one ``(B, STATE_SIZE)`` int32 array, and one call
resets, checks or advances all of them, in parallel over games (numba ``prange``).

Each row is an ordinary state (``State(game, row)`` reads it): the kernels apply the same
:func:`~meduris_env.engine.kernel.apply` as the scalar engine. What the batch adds is chance
resolved inside the kernel: after every reset and every action, chance nodes are resolved at once
with outcomes drawn by :func:`~meduris_env.engine.kernel.chance_outcome` (the documented
distributions) from the game's own **counter-based random stream**. Game ``i``'s stream is
SplitMix64 from the key ``stream_key(seed, i, episode)`` (the project's seed hash,
:mod:`~meduris_env.engine.seeding`), stepped by a per-game counter. Each game therefore depends
on ``(seed, i, episode)`` and its own actions only, never on the batch size or the number of
threads. A second stream per game (the same key, another domain) serves the game's agent
randomness: the batched random sampler and the environments' built-in random opponent.

Every applied id (actions and chance outcomes) can be appended to a per-game history
(``hist[b, :hlen[b]]``; a zero-width ``hist`` keeps none), which replays through
``State.apply_action``.

Kernels take index arrays (``games``) so that callers can advance any subset of the batch.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

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
from .seeding import STREAM_BATCH, _splitmix64

CHANCE_DOMAIN = np.uint64(0)  # draws of the game's chance outcomes
AGENT_DOMAIN = np.uint64(0x5851F42D4C957F2D)  # draws of the game's random agents
CHUNK = 16  # games per parallel work item (scratch buffers are allocated once per chunk)


@njit(cache=True)
def stream_key(seed, game, episode):
    """The 64-bit key of game ``game``'s random stream in episode ``episode`` of a batch seeded
    with ``seed`` (the seed hash of :func:`~meduris_env.engine.seeding.derive_seed_kernel`)."""
    h = np.uint64(0x6A09E667F3BCC908)
    h = _splitmix64(h ^ np.uint64(seed))
    h = _splitmix64(h ^ np.uint64(STREAM_BATCH))
    h = _splitmix64(h ^ np.uint64(game))
    return _splitmix64(h ^ np.uint64(episode))


@njit(cache=True)
def draw(keys, counters, b, domain):
    """The next uniform 32-bit number of game ``b``'s stream in ``domain`` (counter-based:
    SplitMix64 of key + counter)."""
    c = counters[b]
    counters[b] = c + np.uint64(1)
    x = _splitmix64((keys[b] ^ domain) + c * np.uint64(0x9E3779B97F4A7C15))
    return np.int64(x >> np.uint64(32))


@njit(cache=True)
def _record(hist, hlen, b, a):
    n = hlen[b]
    if n < hist.shape[1]:
        hist[b, n] = a
    hlen[b] = n + 1  # beyond the capacity it still counts: overflow is visible to the caller


@njit(cache=True)
def resolve_chance_row(st, fm, fa, keys, chance_ctr, b, hist, hlen, ev, evc, cmask):
    """Apply chance outcomes from game ``b``'s stream until a decision is due or the game is
    over; return the current player."""
    while st[O_PHASE] != PH_QUEUE and st[O_PHASE] != PH_TERMINAL:
        a = chance_outcome(st, cmask, draw(keys, chance_ctr, b, CHANCE_DOMAIN),
                           draw(keys, chance_ctr, b, CHANCE_DOMAIN))
        apply_legal(st, fm, fa, a, ev, evc)  # a possible outcome by construction
        _record(hist, hlen, b, a)
    return current_player(st)


@njit(cache=True)
def reset_row(states, initial, fm, fa, b, seed, episodes, keys, chance_ctr, agent_ctr, hist,
              hlen, ev, evc, cmask):
    """Start game ``b`` afresh: the initial position, a new episode's stream, setup chance
    (bonus chips R4, the starting player R6) resolved up to the first decision."""
    st = states[b]
    st[:] = initial
    episodes[b] += 1
    keys[b] = stream_key(seed, b, episodes[b])
    chance_ctr[b] = 0
    agent_ctr[b] = 0
    hlen[b] = 0
    return resolve_chance_row(st, fm, fa, keys, chance_ctr, b, hist, hlen, ev, evc, cmask)


@njit(cache=True)
def act_row(states, fm, fa, b, action, keys, chance_ctr, hist, hlen, ev, evc, cmask):
    """Apply ``action`` to game ``b`` for its mover, then resolve chance; return the current
    player. The action must be legal: the caller checks it (against the legal mask)."""
    apply_legal(states[b], fm, fa, action, ev, evc)
    _record(hist, hlen, b, action)
    return resolve_chance_row(states[b], fm, fa, keys, chance_ctr, b, hist, hlen, ev, evc,
                              cmask)


@njit(cache=True)
def scratch():
    """Per-chunk work buffers: events, event count, chance mask, legal mask."""
    return (np.empty((EV_CAPACITY, EV_WIDTH), dtype=np.int32), np.zeros(1, dtype=np.int64),
            np.zeros(NUM_CHANCE_OUTCOMES, dtype=np.int8), np.zeros(NUM_ACTIONS, dtype=np.int8))


@njit(cache=True, parallel=True)
def reset_games(states, initial, fm, fa, games, seed, episodes, keys, chance_ctr, agent_ctr,
                hist, hlen, movers):
    """``reset_row`` for every game in ``games``; the current player into ``movers``."""
    n = games.shape[0]
    for c in prange((n + CHUNK - 1) // CHUNK):
        ev, evc, cmask, _ = scratch()
        for j in range(c * CHUNK, min(n, (c + 1) * CHUNK)):
            b = games[j]
            movers[b] = reset_row(states, initial, fm, fa, b, seed, episodes, keys, chance_ctr,
                                  agent_ctr, hist, hlen, ev, evc, cmask)


@njit(cache=True, parallel=True)
def step_games(states, fm, fa, games, actions, keys, chance_ctr, hist, hlen, movers):
    """``act_row`` for every game in ``games`` (actions checked legal before); the current
    player into ``movers``."""
    n = games.shape[0]
    for c in prange((n + CHUNK - 1) // CHUNK):
        ev, evc, cmask, _ = scratch()
        for j in range(c * CHUNK, min(n, (c + 1) * CHUNK)):
            b = games[j]
            movers[b] = act_row(states, fm, fa, b, actions[j], keys, chance_ctr, hist, hlen,
                                ev, evc, cmask)


@njit(cache=True)
def random_action(mask_row, keys, agent_ctr, b):
    """A uniformly random legal action from ``mask_row`` (game ``b``'s legal mask), drawn from
    game ``b``'s agent stream."""
    return masked_choice(mask_row, draw(keys, agent_ctr, b, AGENT_DOMAIN))


@njit(cache=True, parallel=True)
def sample_actions(masks, games, keys, agent_ctr, out):
    """The batched random sampler: ``out[j]`` uniform among the legal actions in ``masks[j]``,
    the mask of game ``games[j]``, drawn from that game's agent stream."""
    for j in prange(games.shape[0]):
        out[j] = random_action(masks[j], keys, agent_ctr, games[j])

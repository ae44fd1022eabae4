"""The parallel kernels of :class:`~meduris_env.envs.batch.MedurisBatch`: they start, step and
finish any subset of a batch's games, in parallel over games, and write observations, masks,
rewards and flags into its buffers.

A batch's per-game buffers are a few typed arrays, one row per game (:class:`Games`); small
per-game numbers share one array by type, their columns named below. What every game shares is
the board (``fm``, ``fa``), the initial position and the ``settings`` (an int64 array, columns
below). Kernels take ``*games, fm, fa, initial, settings`` and then their own arguments.

``seats`` (int32) columns: ``MOVER`` (seat to move, ``TERMINAL`` once over), ``LEARNER``
(``ALL_SEATS`` or the learning seat), ``LAST_ACTOR`` (the seat that chose the last action),
``REWARDED`` (whose reward a step reports: the finished episode's learner, not the next
episode's drawn at the reset, or the seat that acted), ``LAST_VP`` .. ``+4`` (VP when rewards
were last paid), ``FINAL_SCORES`` .. ``+4`` (VP at the end of a finished game).
``flags`` (bool) columns: ``TERMINATED``, ``TRUNCATED``. ``streams`` and ``counts``:
:mod:`meduris_env.engine.batch`.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit, prange

from ..engine.batch import (
    AGENT_DRAWS,
    CHANCE_DRAWS,
    CHUNK,
    HISTORY_LENGTH,
    KEY,
    act_row,
    agent_draw,
    random_action,
    reset_row,
    scratch,
    stream_key,
)
from ..engine.constants import END_TRUNCATED, MAX_PLAYERS, TERMINAL
from ..engine.kernel import below, current_player, is_legal, legal_mask, win_returns
from ..engine.layout import O_END, O_NF, O_NP, O_VP
from .observation import encode_board, encode_position
from .rewards import DENSE, SCORE_SCALE, terminal_reward_kernel

ALL_SEATS = -1  # learner value: every seat learns (self-play); the observer is the mover
RANDOM_SEAT = -2  # learner mode: each episode's learning seat drawn from the game's stream

# the columns of ``seats``
MOVER, LEARNER, LAST_ACTOR, REWARDED = 0, 1, 2, 3
LAST_VP = 4
FINAL_SCORES = LAST_VP + MAX_PLAYERS
SEAT_COLUMNS = FINAL_SCORES + MAX_PLAYERS
# the columns of ``flags``
TERMINATED, TRUNCATED = 0, 1
# the columns of ``settings``
SEED, REWARD_MODE, HIDDEN, AUTO_RESET, LEARNER_MODE, RANDOM_OPPONENTS = range(6)
SETTINGS = 6


class Games(NamedTuple):
    """The per-game buffers of a batch, one row per game (passed to kernels as ``*games``)."""

    states: np.ndarray  # (B, STATE_SIZE) int32
    obs: np.ndarray  # (B, OBS_SIZE) float32, the observer's observation
    final_obs: np.ndarray  # (B, OBS_SIZE) float32, a finished game's last observation
    mask: np.ndarray  # (B, NUM_ACTIONS) int8, the observer's legal actions
    seats: np.ndarray  # (B, SEAT_COLUMNS) int32
    rewards: np.ndarray  # (B, MAX_PLAYERS) float32
    flags: np.ndarray  # (B, 2) bool
    counts: np.ndarray  # (B, COUNT_COLUMNS) int64
    streams: np.ndarray  # (B, STREAM_COLUMNS) uint64
    history: np.ndarray  # (B, H) int16


@njit(cache=True, nogil=True)
def _observe_row(st, fm, hidden, observer, obs_row, mask_row):
    """``observer``'s observation and legal mask (zeros unless it is to move). The batch's own
    buffer rows hold the board's slices from the start: only the position is written."""
    encode_position(st, observer, hidden, obs_row)
    if current_player(st) == observer:
        legal_mask(st, fm, mask_row)
    else:
        mask_row[:] = 0


@njit(cache=True, nogil=True)
def _observer(st, seats, b):
    """Whose view a game's buffers show: the learner, else the mover, else (game over) the seat
    that acted last."""
    if seats[b, LEARNER] >= 0:
        return seats[b, LEARNER]
    mover = current_player(st)
    return mover if mover >= 0 else seats[b, LAST_ACTOR]


@njit(cache=True, nogil=True)
def _random_opponents(states, fm, fa, b, learner, mover, streams, history, counts, ev, evc,
                      cmask, mask):
    """The built-in random opponents play game ``b`` until its learner must decide or it ends."""
    while mover >= 0 and mover != learner:
        legal_mask(states[b], fm, mask)
        a = random_action(mask, streams, b)
        mover = act_row(states, fm, fa, b, a, streams, history, counts, ev, evc, cmask)
    return mover


@njit(cache=True, nogil=True)
def _start_row(states, seats, counts, streams, history, fm, fa, initial, settings, b, ev, evc,
               cmask, mask):
    """A new episode of game ``b``: the learner's seat for it, and the built-in random
    opponents' decisions up to the learner's first."""
    current = reset_row(states, initial, fm, fa, b, settings[SEED], streams, history, counts,
                        ev, evc, cmask)
    st = states[b]
    n = st[O_NP]
    mode = settings[LEARNER_MODE]
    seats[b, LEARNER] = below(agent_draw(streams, b), n) if mode == RANDOM_SEAT else mode
    if settings[RANDOM_OPPONENTS] and seats[b, LEARNER] >= 0:
        current = _random_opponents(states, fm, fa, b, seats[b, LEARNER], current, streams,
                                    history, counts, ev, evc, cmask, mask)
    seats[b, MOVER] = current
    for s in range(MAX_PLAYERS):
        seats[b, LAST_VP + s] = st[O_VP + s] if s < n else 0


@njit(cache=True, nogil=True)
def _pay_rewards(st, seats, rewards, flags, settings, b, out):
    """Rewards per seat since game ``b``'s last step and its end-of-game flags; whether the
    game is over."""
    n = st[O_NP]
    seats[b, REWARDED] = seats[b, LEARNER] if seats[b, LEARNER] >= 0 else max(
        seats[b, LAST_ACTOR], 0)
    for s in range(MAX_PLAYERS):
        rewards[b, s] = 0.0
    if settings[REWARD_MODE] == DENSE:
        for s in range(n):
            rewards[b, s] = (st[O_VP + s] - seats[b, LAST_VP + s]) / SCORE_SCALE
    for s in range(n):
        seats[b, LAST_VP + s] = st[O_VP + s]
    over = seats[b, MOVER] == TERMINAL
    cut = over and st[O_END] == END_TRUNCATED
    flags[b, TERMINATED] = over and not cut
    flags[b, TRUNCATED] = cut
    if over and not cut:
        terminal_reward_kernel(st, settings[REWARD_MODE], out)
        for s in range(n):
            rewards[b, s] += out[s]
    return over


@njit(cache=True, nogil=True)
def _finish_row(states, obs, final_obs, masks, seats, rewards, flags, counts, streams, history,
                fm, fa, initial, settings, b, ev, evc, cmask, mask, out):
    """After a step of game ``b``: rewards per seat since its last step, the end-of-game flags,
    the finished game's last observation and scores, its next episode (``AUTO_RESET``), and the
    observer's observation and mask."""
    st = states[b]
    hidden = settings[HIDDEN] != 0
    if _pay_rewards(st, seats, rewards, flags, settings, b, out):
        _observe_row(st, fm, hidden, _observer(st, seats, b), final_obs[b], mask)
        n = st[O_NP]
        for s in range(MAX_PLAYERS):
            seats[b, FINAL_SCORES + s] = st[O_VP + s] if s < n else 0
        if settings[AUTO_RESET]:
            _start_row(states, seats, counts, streams, history, fm, fa, initial, settings, b,
                       ev, evc, cmask, mask)
    _observe_row(st, fm, hidden, _observer(st, seats, b), obs[b], masks[b])


@njit(cache=True, nogil=True)
def _scratch():
    ev, evc, cmask, mask = scratch()
    return ev, evc, cmask, mask, np.zeros(MAX_PLAYERS)


@njit(cache=True, parallel=True)
def start_games(states, obs, final_obs, masks, seats, rewards, flags, counts, streams, history,
                fm, fa, initial, settings, games):
    """New episodes of the games in ``games`` (their observations are written separately)."""
    n = games.shape[0]
    for k in prange((n + CHUNK - 1) // CHUNK):
        ev, evc, cmask, mask, _ = _scratch()
        for j in range(k * CHUNK, min(n, (k + 1) * CHUNK)):
            _start_row(states, seats, counts, streams, history, fm, fa, initial, settings,
                       games[j], ev, evc, cmask, mask)


@njit(cache=True, nogil=True)
def _play_row(states, seats, counts, streams, history, fm, fa, settings, b, action, ev, evc,
              cmask, mask):
    """Apply ``action`` (checked legal before) to game ``b`` for its mover; with a learner and
    the built-in random opponents, then their decisions up to the learner's next."""
    seats[b, LAST_ACTOR] = seats[b, MOVER]
    current = act_row(states, fm, fa, b, action, streams, history, counts, ev, evc, cmask)
    if settings[RANDOM_OPPONENTS] and seats[b, LEARNER] >= 0:
        current = _random_opponents(states, fm, fa, b, seats[b, LEARNER], current, streams,
                                    history, counts, ev, evc, cmask, mask)
    seats[b, MOVER] = current


@njit(cache=True, parallel=True)
def step_games(states, obs, final_obs, masks, seats, rewards, flags, counts, streams, history,
               fm, fa, initial, settings, games, actions, play, finish):
    """For every j, game ``games[j]``: with ``play`` :func:`_play_row` with ``actions[j]``; with
    ``finish`` its :func:`_finish_row` (at once after its play: its buffers are still in
    cache)."""
    n = games.shape[0]
    for k in prange((n + CHUNK - 1) // CHUNK):
        ev, evc, cmask, mask, out = _scratch()
        for j in range(k * CHUNK, min(n, (k + 1) * CHUNK)):
            b = games[j]
            if play:
                _play_row(states, seats, counts, streams, history, fm, fa, settings, b,
                          actions[j], ev, evc, cmask, mask)
            if finish:
                _finish_row(states, obs, final_obs, masks, seats, rewards, flags, counts,
                            streams, history, fm, fa, initial, settings, b, ev, evc, cmask,
                            mask, out)


@njit(cache=True, parallel=True)
def observe_games(states, fm, fa, hidden, games, observers, obs, masks, board):
    """Row ``j`` of ``obs`` / ``masks``: game ``games[j]`` seen by seat ``observers[j]`` (with
    ``board``, the board's slices too)."""
    for j in prange(games.shape[0]):
        st = states[games[j]]
        if board:
            encode_board(fm, fa, st[O_NF], obs[j])
        _observe_row(st, fm, hidden, observers[j], obs[j], masks[j])


@njit(cache=True, parallel=True)
def sample_actions(masks, games, streams, out):
    """The batched random sampler: ``out[j]`` uniform among the legal actions in ``masks[j]``,
    the mask of game ``games[j]``, drawn from that game's agent stream."""
    for j in prange(games.shape[0]):
        out[j] = random_action(masks[j], streams, games[j])


@njit(cache=True, parallel=True)
def draw_seeds(games, streams, out):
    """A 31-bit seed per game from its agent stream (for opponents that act in batch)."""
    for j in prange(games.shape[0]):
        out[j] = agent_draw(streams, games[j]) >> 1


# --- the position pool (:mod:`.positions`) -----------------------------------------------------
# A pool's rows are positions, not games: ``states`` (N, STATE_SIZE), ``streams`` (N, 3) and
# ``counts`` (N, 2) as a batch's (``counts[:, HISTORY_LENGTH]`` counts the ids of ``record``),
# ``record`` (N, POOL_RECORD) int16: the action that made the row from its parent, then the
# chance outcomes drawn after it; ``movers`` (N,) int8, the seat to move or -1 once over.
POOL_RECORD = 16
# the "game" numbers of the pool's stream keys (``stream_key(seed, tag, value)``): far beyond
# any batch's game index, so a pool never draws a batch's dice
POOL_COUNTER_TAG = 1 << 62  # value: the pool's expansion counter
POOL_STREAM_TAG = (1 << 62) + 1  # value: a stream number given by the caller


@njit(cache=True, parallel=True, nogil=True)
def check_expansions(states, fm, parents, actions, bad):
    """``bad[j]`` = 1 where ``actions[j]`` is not a legal action of row ``parents[j]`` (the
    legal-mask test, before anything is written)."""
    for j in prange(parents.shape[0]):
        bad[j] = 0 if is_legal(states[parents[j]], fm, actions[j]) else 1


@njit(cache=True, parallel=True, nogil=True)
def expand_rows(states, streams, counts, record, movers, parents_of, fm, fa, seed, tag, values,
                parents, actions, rows):
    """Row ``rows[j]``: a copy of row ``parents[j]`` after ``actions[j]`` (checked legal before),
    chance resolved from the stream ``stream_key(seed, tag, values[j])``; in parallel over j."""
    n = parents.shape[0]
    for c in prange((n + CHUNK - 1) // CHUNK):
        ev, evc, cmask, _ = scratch()
        for j in range(c * CHUNK, min(n, (c + 1) * CHUNK)):
            r = rows[j]
            states[r, :] = states[parents[j]]
            streams[r, KEY] = stream_key(seed, tag, values[j])
            streams[r, CHANCE_DRAWS] = 0
            streams[r, AGENT_DRAWS] = 0
            counts[r, HISTORY_LENGTH] = 0
            parents_of[r] = parents[j]
            mover = act_row(states, fm, fa, r, actions[j], streams, record, counts, ev, evc,
                            cmask)
            movers[r] = mover if mover >= 0 else -1


@njit(cache=True, parallel=True, nogil=True)
def pool_returns(states, ids, zero_sum, out):
    """``out[j, :players]``: the engine's returns of row ``ids[j]`` (win/lose utility), 0 while
    the game is not over."""
    for j in prange(ids.shape[0]):
        st = states[ids[j]]
        if current_player(st) == TERMINAL:
            win_returns(st, zero_sum, out[j])
        else:
            out[j, :] = 0.0


@njit(cache=True, parallel=True, nogil=True)
def row_players(states, ids, out):
    """``out[j]``: the current player of row ``ids[j]`` (a seat, ``CHANCE`` or ``TERMINAL``)."""
    for j in prange(ids.shape[0]):
        out[j] = current_player(states[ids[j]])

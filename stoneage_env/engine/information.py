"""What each Stone Age player knows (rules section 3, "Information"), and every view built on
it: the observation tensor and string, the information state (string, rows, tensor), the
position a ``cmd:`` bot is sent, and :func:`resample_hidden` for searches.

Everything is public except the cards drawn face down (S24 and the Mammoth civ-card bonus,
M10): each is its owner's secret; the others know that a card was drawn and, by recall, only
that it is one of the cards they have not seen. The deck's order and the tiles below the
stacks' tops are nobody's: the engine draws them when they are turned, so no state holds them.
Hence a seat's knowledge is the position with the others' secret cards taken out: their
``cards`` lose them (the count stays public), ``deck`` becomes the cards the seat has not seen
(:func:`unseen_cards`: the deck and the others' secret cards together), ``secret`` keeps the
seat's own row only. Every view here is a function of that knowledge (the paired-state test,
tests/test_stone_age_information.py).
"""

from __future__ import annotations

import random

import numpy as np

from .components import card_name
from .constants import (
    C_CARD,
    MAX_MAMMOTH_TILES,
    MAX_PLAYERS,
    MODE_NAMES,
    NUM_CARD_ROWS,
    NUM_LOCATIONS,
    PHASE_NAMES,
)
from .events import PRIVATE, Event
from .layout import FIELDS

# --- knowledge -------------------------------------------------------------------------------


def unseen_cards(st, seat: int) -> np.ndarray:
    """Per card row, the cards ``seat`` has not seen: the deck and the other seats' secret
    cards (int array [34])."""
    out = st.deck.astype(np.int64).copy()
    for q in range(st.game.num_players):
        if q != seat:
            out += st.secret[q]
    return out


def known_cards(st, seat: int) -> np.ndarray:
    """Per seat and card row, the cards ``seat`` knows each seat holds (int [players, 34]):
    all of its own, the others' without their secret ones."""
    n = st.game.num_players
    out = st.cards[:n].astype(np.int64).copy()
    for q in range(n):
        if q != seat:
            out[q] -= st.secret[q]
    return out


def secret_counts(st) -> list[int]:
    """How many cards each seat drew face down (public: the drawing is seen)."""
    return [int(st.secret[q].sum()) for q in range(st.game.num_players)]


def seen_event(ev: Event, seat: int) -> Event:
    """``ev`` as ``seat`` saw it: another seat's face-down card is -1."""
    if ev.kind in PRIVATE and ev.data.get("seat") != seat:
        return ev._replace(data={**ev.data, "card": -1})
    return ev


# --- the observation tensor ------------------------------------------------------------------
_PLAYER = (("goods", 5), ("figures", 1), ("unplaced", 1), ("agriculture", 1), ("tiles", 3),
           ("tile_used", 3), ("one_use", 4), ("any_unclaimed", 1), ("score", 1),
           ("cards", NUM_CARD_ROWS), ("secret_cards", 1), ("built", 22), ("tiles_won", 1),
           ("on_tile", 1), ("tame_dice", 6), ("placed", NUM_LOCATIONS), ("to_move", 1),
           ("start_player", 1), ("in_game", 1))
PLAYER_SIZE = sum(k for _, k in _PLAYER)
_BOARD = (("display", 4 * NUM_CARD_ROWS), ("unseen_cards", NUM_CARD_ROWS), ("stack_size", 4),
          ("stack_top", 4 * 22), ("unseen_buildings", 22), ("mammoth", 1), ("back", 4),
          ("herd", 4), ("tile_now", MAX_MAMMOTH_TILES), ("tile_state", 7 * MAX_MAMMOTH_TILES),
          ("tile_now_bonuses", 18))
_NODE = (("phase", len(PHASE_NAMES)), ("mode", len(MODE_NAMES)), ("round", 1),
         ("loc", NUM_LOCATIONS), ("roll_goods", 5), ("roll", 3), ("tool_sum", 1),
         ("tool_last", 9), ("paid", 5), ("pay", 3), ("dfa_dice", 6), ("claim_left", 1),
         ("end_reason", 4))
OBS_FIELDS = tuple((f"player_{k}", PLAYER_SIZE) for k in range(MAX_PLAYERS)) + _BOARD + _NODE
OBS_SIZE = sum(k for _, k in OBS_FIELDS)
FEATURE_HIGH = 10.0  # every feature is at most this (scores / 100 and round / 50 aside)


def _one_hot(k: int, size: int, offset: int = 0) -> np.ndarray:
    out = np.zeros(size, dtype=np.float32)
    if 0 <= k + offset < size:
        out[k + offset] = 1.0
    return out


def _player_features(st, seat: int, q: int, known: np.ndarray) -> np.ndarray:
    n = st.game.num_players
    parts = [st.goods[q] / 10.0, [st.figures[q] / 10.0, st.unplaced[q] / 10.0,
                                  st.agriculture[q] / 10.0], st.tiles[q] / 4.0, st.tile_used[q],
             st.one_use[q], [st.any_unclaimed[q], st.score[q] / 100.0], known[q] / 2.0,
             [st.secret[q].sum() / 5.0], st.built[q] / 3.0,
             [st.tiles_won[q] / 5.0, st.on_tile[q] / 7.0], st.tame_dice[q] / 7.0,
             st.placed[:, q] / 10.0,
             [float(st.to_move == q), float(st.start_player == q), float(q < n)]]
    return np.concatenate([np.asarray(p, dtype=np.float32).ravel() for p in parts])


def _board_features(st, seat: int, order: list[int]) -> np.ndarray:
    game = st.game
    display = np.concatenate([_one_hot(int(c), NUM_CARD_ROWS) for c in st.display])
    tops = np.concatenate([_one_hot(int(b), 22) for b in st.stack_top])
    states = np.zeros((MAX_MAMMOTH_TILES, 7), dtype=np.float32)
    for i in range(st.num_tiles):
        t = int(st.tile_state[i])
        states[i, t if t < 3 else 3 + order.index(t - 3)] = 1.0
    bonuses = np.zeros(18, dtype=np.float32)
    if st.tile_now >= 0:
        row = game.tile_table[st.tile_now]
        bonuses[:9] = np.concatenate([_one_hot(int(row[1]), 7), [row[2] / 5.0, row[3] / 5.0]])
        bonuses[9:] = np.concatenate([_one_hot(int(row[4]), 7), [row[5] / 5.0, row[6] / 5.0]])
    parts = [display, unseen_cards(st, seat) / 2.0, st.stack_size / 7.0, tops,
             st.unseen / 3.0, [float(st.mammoth)], _one_hot(st.back, 4, -1),
             _one_hot(st.herd, 4, -1), _one_hot(st.tile_now, MAX_MAMMOTH_TILES),
             states.ravel(), bonuses]
    return np.concatenate([np.asarray(p, dtype=np.float32).ravel() for p in parts])


def _node_features(st) -> np.ndarray:
    parts = [_one_hot(st.phase, len(PHASE_NAMES)), _one_hot(st.mode, len(MODE_NAMES)),
             [st.round / 50.0], _one_hot(st.loc, NUM_LOCATIONS), _one_hot(st.roll_goods, 5),
             [st.roll_left / 10.0, st.roll_dice / 10.0, st.roll_sum / 30.0],
             [st.tool_sum / 12.0], _one_hot(st.tool_last, 9, 1), st.paid / 5.0,
             [st.pay_count / 5.0, st.pay_need / 10.0, st.moves_max / 7.0],
             st.dfa_dice / 4.0, [st.claim_left / 2.0], _one_hot(st.end_reason, 4)]
    return np.concatenate([np.asarray(p, dtype=np.float32).ravel() for p in parts])


def observation_tensor(st, seat: int) -> np.ndarray:
    """What ``seat`` knows now as ``OBS_SIZE`` float32 features: the seats from ``seat`` on
    (itself first), the board, the node being decided. Never another seat's secret card."""
    n = st.game.num_players
    order = [(seat + k) % n for k in range(n)]
    known = known_cards(st, seat)
    players = [_player_features(st, seat, q, known) for q in order]
    players += [np.zeros(PLAYER_SIZE, dtype=np.float32)] * (MAX_PLAYERS - n)
    out = np.concatenate(players + [_board_features(st, seat, order), _node_features(st)])
    assert out.shape == (OBS_SIZE,)
    return out


# --- strings ---------------------------------------------------------------------------------
def observation_string(st, seat: int) -> str:
    """The position as ``seat`` knows it, in words (its own secret cards named, the others'
    counted)."""
    from .text import render_text
    return render_text(st, seat)


def information_state_string(st, seat: int) -> str:
    """Everything ``seat`` has seen and done, in order, one event a line (perfect recall)."""
    tiles = st.game.tile_table
    head = f"seat {seat} of {st.game.num_players}"
    lines = [head]
    for ev in st.events():
        seen = seen_event(ev, seat)
        text = seen.describe(tiles)
        if seen is not ev:
            text = f"seat {ev.data['seat']} draws a card face down (S24)"
        lines.append(text)
    return "\n".join(lines)


INFO_WIDTH = 5  # an information-state row: kind code, seat, then 3 fields (-1: hidden/none)


def information_state_rows(st, seat: int) -> np.ndarray:
    """The events ``seat`` saw as int rows (the kernel's code, seat, a, b, c; a hidden card
    -1)."""
    from .events import EVENT_KINDS, KIND_CODES
    evs = st.events()
    out = np.full((len(evs), INFO_WIDTH), -1, dtype=np.int32)
    for i, ev in enumerate(evs):
        d = seen_event(ev, seat).data
        code = KIND_CODES[ev.kind]
        out[i, 0] = code
        for j, name in enumerate(EVENT_KINDS[code][1]):
            if name is not None:
                out[i, 1 + j] = d[name]
    return out


def max_info_rows(game) -> int:
    """A bound on the events of a game with a round limit (-1 without one)."""
    if not game.max_rounds:
        return -1
    return 32 + game.max_rounds * (game.num_players * 220 + 60)


def information_state_tensor(st, seat: int) -> np.ndarray:
    """:func:`information_state_rows` as a flat float32 vector, zero-padded to
    ``max_info_rows(game)`` rows when there is a round limit (real rows have a kind >= 1)."""
    rows = information_state_rows(st, seat).astype(np.float32)
    limit = max_info_rows(st.game)
    if limit > 0:
        pad = np.zeros((limit, INFO_WIDTH), dtype=np.float32)
        pad[:len(rows)] = rows[:limit]
        rows = pad
    return rows.reshape(-1)


# --- a seat's position as JSON (what a cmd: bot is sent) -------------------------------------
_HIDDEN = ("deck", "secret", "cards")


def seat_state(st, seat: int) -> dict:
    """A Stone Age position as ``seat`` knows it, for a ``cmd:`` bot: every named part of the
    position (docs/stone_age.md) except ``deck``, ``secret`` and ``cards``, which become
    ``cards`` (per seat and row, the cards ``seat`` knows each holds), ``secret_counts`` (cards
    drawn face down per seat), ``my_secret`` (``seat``'s own, per row) and ``unseen_cards``
    (per row, the cards ``seat`` has not seen); and the events with the others' face-down
    cards -1. Never another seat's secret card or the history of ids (a chance outcome names
    the card drawn)."""
    position = {}
    for name, shape, _ in FIELDS:
        if name in _HIDDEN:
            continue
        v = getattr(st, name)
        position[name] = v.tolist() if shape else int(v)
    position.update(cards=known_cards(st, seat).tolist(), secret_counts=secret_counts(st),
                    my_secret=st.secret[seat].tolist(),
                    unseen_cards=unseen_cards(st, seat).tolist())
    return {"game": "stone_age", "params": st.game.params(), "viewer": seat,
            "to_move": st.to_move, "decision": MODE_NAMES[st.mode], "position": position,
            "events": [[e.step, e.kind, seen_event(e, seat).data] for e in st.events()]}


# --- determinisation -------------------------------------------------------------------------
def resample_hidden(st, seat: int, rng: random.Random, *, rewrite_log: bool = True):
    """A state ``seat`` cannot tell from ``st``: the other seats' face-down cards dealt again
    from the cards ``seat`` has not seen (each assignment equally likely). With
    ``rewrite_log`` the game is replayed with them (history, deck and events agree: ``seat``'s
    views of both states are the same); without, only the position is changed (fast, for a
    search's determinisations; the logs then still name the old cards)."""
    n = st.game.num_players
    counts = [0 if q == seat else int(st.secret[q].sum()) for q in range(n)]
    if not any(counts):
        return st.clone()
    pool = [c for c, k in enumerate(unseen_cards(st, seat).tolist()) for _ in range(k)]
    rng.shuffle(pool)
    if rewrite_log:
        from .statefile import replay
        history = st.history()
        for e in st.events():
            if e.kind == "card_drawn" and e.data["seat"] != seat:
                history[e.step] = C_CARD + pool.pop()
        return replay(st.game, history)
    out = st.clone()
    out.deck[:] = 0
    for q, k in enumerate(counts):
        if k:
            out.cards[q] -= out.secret[q]
            out.secret[q] = 0
            for _ in range(k):
                c = pool.pop()
                out.cards[q, c] += 1
                out.secret[q, c] += 1
    for c in pool:
        out.deck[c] += 1
    return out


def describe_card(row: int) -> str:
    return card_name(row) if row >= 0 else "a card drawn face down"

"""JSON round trip of a State: game parameters, board, every named array, moves and events.

``state_from_json`` checks the file thoroughly (parsing, shapes, and the game's invariants:
conservation of the 72 materials, piece counts, rune holders, druid, decision queue) and raises
:class:`StateFileError` naming the first problem; nothing is half-built.
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np

from . import kernel as K
from .boards import BoardError
from .constants import (
    CHIPS_PER_KIND,
    EMPTY,
    HUT,
    HUTS,
    MATERIAL_TOTAL,
    MAX_VP,
    NUM_IDS,
    NUM_RUNE_AREAS,
    PH_CHIPS,
    PH_QUEUE,
    PH_START,
    PH_TERMINAL,
    Q_INTERIM,
    Q_OFFER,
    STAGE_SETUP,
    TEMPLE,
    TEMPLES,
    WORKERS,
)
from .errors import MedurisError
from .events import EVENT_KINDS
from .layout import FIELDS, OFFSETS, QUEUE_CAPACITY, STATE_SIZE

FORMAT = "meduris-state"
VERSION = 1


class StateFileError(MedurisError, ValueError):
    """A state file that does not parse or does not describe a consistent position."""


def state_to_json(state) -> str:
    arrays: dict[str, Any] = {}
    for name, shape, _ in FIELDS:
        v = getattr(state, name)
        arrays[name] = v.tolist() if shape else int(v)
    log = state._entries()
    doc = {
        "format": FORMAT,
        "version": VERSION,
        "game": game_to_dict(state.game),
        "arrays": arrays,
        "moves": [a for a, _ in log],
        "events": [[list(r) for r in rows] for _, rows in log],
    }
    return json.dumps(doc, separators=(",", ":"))


def game_to_dict(game) -> dict:
    """The game's parameters and board, as saved in state files and game records."""
    return {**game.params(), "board": game.board.to_dict()}


def game_from_dict(g: dict, error: type[Exception], what: str):
    """The MedurisGame a saved ``game`` object describes; ``error(f"{what}: game: ...")`` if
    it describes none."""
    from .game import MedurisGame

    unknown = sorted(set(g) - GAME_KEYS)
    if unknown:
        raise error(f"{what}: game: unknown key(s) {unknown}; a game has {sorted(GAME_KEYS)}")
    for key in ("random_start_player", "zero_sum"):
        if key in g and not isinstance(g[key], bool):
            raise error(f"{what}: game: {key!r} must be true or false")
    if "board" in g and not isinstance(g["board"], dict):  # the board, never a path to read
        raise error(f"{what}: game: 'board' must be the board object")
    try:
        return MedurisGame(num_players=g.get("num_players"), board=g.get("board"),
                           exchange=g.get("exchange"), max_turns=g.get("max_turns"),
                           random_start_player=g.get("random_start_player", False),
                           zero_sum=g.get("zero_sum", True))
    except (BoardError, ValueError, TypeError) as exc:
        raise error(f"{what}: game: {exc}") from None


GAME_KEYS = {"num_players", "exchange", "max_turns", "random_start_player", "zero_sum", "board"}


def _int_array(value, shape: tuple[int, ...], name: str) -> np.ndarray:
    """Nested lists of JSON integers (not booleans, not floats) of exactly ``shape``."""
    def flat(v, dims):
        if not dims:
            if type(v) is not int or not INT32_MIN <= v <= INT32_MAX:
                _fail(f"arrays: '{name}' must hold 32-bit integers, found {v!r}")
            return [v]
        if not isinstance(v, list) or len(v) != dims[0]:
            _fail(f"arrays: '{name}' must be integers of shape {shape}")
        return [x for item in v for x in flat(item, dims[1:])]
    return np.array(flat(value, shape), dtype=np.int64)


INT32_MIN, INT32_MAX = -(2**31), 2**31 - 1


def _fail(msg: str) -> None:
    raise StateFileError(f"state file: {msg}")


def load_state(text: str | bytes):
    """A state from ``State.to_json()`` text, with the game taken from the file (raises
    :class:`StateFileError` naming the first problem)."""
    return state_from_json(text)


def state_from_json(text: str | bytes):
    from .state import State

    try:
        doc = json.loads(text)
    except (TypeError, ValueError) as exc:
        raise StateFileError(f"state file: not JSON ({exc})") from None
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        _fail(f"'format' must be {FORMAT!r}")
    if doc.get("version") != VERSION:
        _fail(f"version {doc.get('version')!r} is not supported (expected {VERSION})")
    g = doc.get("game")
    if not isinstance(g, dict):
        _fail("'game' must be an object")
    game = game_from_dict(g, StateFileError, "state file")
    arrays = doc.get("arrays")
    if not isinstance(arrays, dict):
        _fail("'arrays' must be an object")
    flat = np.zeros(STATE_SIZE, dtype=np.int32)
    for name, shape, _ in FIELDS:
        if name not in arrays:
            _fail(f"arrays: '{name}' is missing")
        v = _int_array(arrays[name], shape, name)
        start, _ = OFFSETS[name]
        flat[start:start + v.size] = v.ravel()
    moves = doc.get("moves", [])
    events = doc.get("events", [])
    if not isinstance(moves, list) or not isinstance(events, list) or len(moves) != len(events):
        _fail("'moves' and 'events' must be lists of the same length")
    log = None
    for i, (a, rows) in enumerate(zip(moves, events, strict=False)):
        if type(a) is not int or not 0 <= a < NUM_IDS or not isinstance(rows, list):
            _fail(f"moves[{i}] must be an action or outcome id 0..{NUM_IDS - 1} and events[{i}] "
                  "a list")
        for r in rows:
            if (not isinstance(r, list) or len(r) != K.EV_WIDTH
                    or not all(type(x) is int and INT32_MIN <= x <= INT32_MAX for x in r)
                    or r[0] not in EVENT_KINDS):
                _fail(f"events[{i}] holds a malformed event {r!r}")
        log = (log, a, tuple(tuple(r) for r in rows))
    state = State(game, flat, log)
    check_consistency(state)
    return state


def check_consistency(state) -> None:
    """Raise StateFileError unless the position obeys the game's invariants."""
    game = state.game
    p = game.num_players
    n = game.num_fields
    if state.num_players != p or state.num_fields != n:
        _fail("num_players / num_fields do not match the game")
    if state.manual_exchange != (game.exchange == "manual") or state.max_turns != game.max_turns:
        _fail("exchange mode / max_turns do not match the game")
    supply, mats = state.supply, state.materials
    if np.any(mats < 0) or np.any(supply < 0) or np.any(supply > MATERIAL_TOTAL):
        _fail("materials must be >= 0 and each supply in 0..18 (R2)")
    if np.any(mats[p:] != 0):
        _fail("seats beyond num_players hold materials")
    totals = supply + mats.sum(axis=0)
    if np.any(totals != MATERIAL_TOTAL):
        _fail(f"materials not conserved: supply + players = {totals.tolist()}, expected 18 "
              "each (R2)")
    if np.any(state.vp[:p] < 0):
        _fail("VP below 0 (R19)")
    occ, own, chip = state.board_occupant, state.board_owner, state.bonus_chip
    if np.any((occ < 0) | (occ > 2)) or np.any(occ[n:] != 0) or np.any(chip[n:] != 0):
        _fail("board_occupant must be 0/1/2 on the board's fields only")
    if np.any((occ == EMPTY) != (own == -1)) or np.any(own >= p) or np.any(own < -1):
        _fail("board_owner must be a seat exactly where a hut or temple stands")
    if np.any((chip < 0) | (chip > 3)) or np.any((chip > 0) & (occ == TEMPLE)) \
            or np.any((chip > 0) & (chip < 3) & (occ == HUT)):
        _fail("bonus chips: only druid chips may lie under huts, none under temples (R13, R14)")
    left = state.chips_to_place
    placed = [int(np.sum(chip == k + 1)) for k in range(3)]
    if np.any(left < 0) or any(placed[k] + left[k] > CHIPS_PER_KIND for k in range(3)):
        _fail("more than 2 bonus chips of a kind (R4)")
    for s in range(p):
        huts = int(np.sum((occ == HUT) & (own == s)))
        temples = int(np.sum((occ == TEMPLE) & (own == s)))
        if huts + state.huts_left[s] != HUTS[p] or temples + state.temples_left[s] != TEMPLES:
            _fail(f"seat {s}: huts/temples on the board plus those left do not make "
                  f"{HUTS[p]} huts and {TEMPLES} temples (R1)")
    stacks = state.stacks
    for plain in range(4):
        col = stacks[plain]
        h = int(np.sum(col >= 0))
        if np.any(col[:h] < 0) or np.any(col[h:] != -1) or np.any(col >= p):
            _fail(f"stack on plain {plain} must be seats from the bottom up, then -1")
    in_setup = state.phase in (PH_CHIPS, PH_START) or (state.phase == PH_QUEUE
                                                       and state.stage == STAGE_SETUP)
    for s in range(p):
        w = int(np.sum(stacks == s))
        if w > WORKERS[p] or (not in_setup and w != WORKERS[p]):
            _fail(f"seat {s} has {w} workers on the plains, expected {WORKERS[p]} (R1, R6)")
    runes = state.rune_holder
    for r in range(NUM_RUNE_AREAS):
        h = int(runes[r])
        if h != -1 and not (0 <= h < p and np.any((occ == HUT) & (own == h)
                                                  & (game._fa_full == r))):
            _fail(f"rune stone {game.board.rune_areas[r]!r} is held by seat {h}, who has no hut "
                  "in that area (R12)")
    if not 0 <= state.druid_stone <= 3 or not -1 <= state.druid_field < n:
        _fail("druid position out of range (R5, R17)")
    if state.druid_field >= 0 and (state.druid_stone != 3 or occ[state.druid_field] != HUT):
        _fail("the druid stands on the ring only after his stone fields, and only at a hut (R17)")
    if not 0 <= state.phase <= PH_TERMINAL or not 0 <= state.stage <= 2:
        _fail("phase / stage out of range")
    if np.any(state.vp[:p] > MAX_VP) or np.any(state.vp[p:] != 0):
        _fail(f"VP beyond {MAX_VP}, or VP for seats that do not play")
    turns = state.turn
    if turns < 0 or (game.max_turns and turns > game.max_turns):
        _fail(f"turn {turns} outside 0..max_turns ({game.max_turns})")
    flags = (state.built_this_turn, state.final_circuit, state.random_start)
    if any(f not in (0, 1) for f in flags) or not 0 <= state.end_reason <= 3:
        _fail("built_this_turn / final_circuit / random_start must be 0 or 1, end_reason 0..3")
    if not 0 <= state.constructions <= n or state.constructions != int(np.sum(occ > 0)):
        _fail("constructions must count the huts and temples on the board (R17)")
    if not 0 <= state.idle_turns <= p or not 0 <= state.finale_turns_left <= p - 1:
        _fail("idle_turns / finale_turns_left out of range (R22)")
    if not 0 <= state.roller < p or not 0 <= state.start_player < p:
        _fail("roller / start_player out of range")
    if not -1 <= state.die_face <= 5 or not -1 <= state.finale_seat < p:
        _fail("die_face / finale_seat out of range")
    head, length = state.queue_head, state.queue_len
    if not 0 <= head <= length <= QUEUE_CAPACITY:
        _fail("queue_head / queue_len out of range")
    for kind, seat, field, _size in state.queue[head:length]:
        if not 1 <= kind <= Q_INTERIM or (kind != Q_INTERIM and not 0 <= seat < p):
            _fail(f"queue entry ({kind}, {seat}) is not a decision of a seat")
        if kind == Q_OFFER and (not 0 <= field < n or occ[field] != HUT or own[field] != seat):
            _fail(f"queued offering at field {field} is not a hut of seat {seat}")
    if state.phase == PH_QUEUE and head >= length:
        _fail("decision phase with an empty queue")

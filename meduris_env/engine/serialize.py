"""JSON round trip of a State: game parameters, board, every named array, moves and events.

``state_from_json`` checks the file thoroughly (parsing, shapes, that the position fits its
game, and every invariant of :mod:`~meduris_env.engine.invariants`, the one checker:
conservation of the 72 materials, piece counts, rune holders, druid, decision queue ...) and
raises :class:`StateFileError` naming the first problem; nothing is half-built. The text is
parsed by :func:`~meduris_rl.kit.jsonfile.parse_json` (size, nesting depth and 64-bit
integers bounded, so deep or huge values are StateFileErrors too).
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np

from meduris_rl.kit.errors import InputError
from meduris_rl.kit.jsonfile import parse_json

from . import kernel as K
from .boards import BoardError
from .constants import NUM_IDS
from .events import EVENT_KINDS
from .invariants import first_problem
from .layout import FIELDS, OFFSETS, STATE_SIZE

FORMAT = "meduris-state"
VERSION = 1


class StateFileError(InputError, ValueError):
    """A state file that does not parse or does not describe a consistent position."""


def state_to_json(state) -> str:
    arrays: dict[str, Any] = {}
    for name, shape, _ in FIELDS:
        v = getattr(state, name)
        arrays[name] = v.tolist() if shape else int(v)
    log = state.log_entries()
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
    except (BoardError, ValueError, TypeError, OverflowError) as exc:
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

    doc = parse_json(text, StateFileError, "state file")
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
    """Raise StateFileError unless the file's position fits its game and keeps every invariant
    of :mod:`~meduris_env.engine.invariants` (the one checker; its words name the problem)."""
    game = state.game
    if state.num_players != game.num_players or state.num_fields != game.num_fields:
        _fail("num_players / num_fields do not match the game")
    if state.manual_exchange != (game.exchange == "manual") or state.max_turns != game.max_turns:
        _fail("exchange mode / max_turns do not match the game")
    problem = first_problem(state)
    if problem:
        _fail(problem)

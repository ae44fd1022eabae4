"""The JSON round trip of a Stone Age state: the game (its parameters and Mammoth tile set), the
history (every decision and chance outcome) and, for readers, the position's named parts.

Reading replays the history from the game's initial state, so a file gives back exactly the
state that wrote it (position, logs, events) or is refused: an action that was not legal where
the file puts it, a position that does not follow from its history, a game that is not the one
expected, odd keys or values — each a :class:`~stoneage_env.engine.errors.StateFileError` of
one line. The text is parsed by :func:`meduris_rl.kit.jsonfile.parse_json` (size, depth and
integers bounded; duplicate keys and NaN refused).
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np

from meduris_rl.kit.errors import InputError
from meduris_rl.kit.jsonfile import parse_json

from .components import ComponentsError, tile_set
from .constants import NUM_IDS
from .errors import IllegalActionError, StateFileError, StoneAgeError
from .layout import FIELDS

FORMAT = "stone-age-state"
VERSION = 1
_KEYS = {"format", "version", "game", "history", "position"}
_GAME_KEYS = {"num_players", "mammoth_herd", "max_rounds", "start_player", "tiles"}
MAX_HISTORY = 2_000_000


def game_to_dict(game) -> dict:
    """The game's parameters and tile set, as state files and records save them."""
    return {**game.params(), "tiles": game.tile_set_json()}


def state_to_json(state) -> str:
    position: dict[str, Any] = {}
    for name, shape, _ in FIELDS:
        v = getattr(state, name)
        position[name] = v.tolist() if shape else int(v)
    doc = {"format": FORMAT, "version": VERSION, "game": game_to_dict(state.game),
           "history": state.history(), "position": position}
    return json.dumps(doc, separators=(",", ":"))


def game_from_dict(g: Any, what: str = "state file"):
    """The :class:`StoneAgeGame` a saved ``game`` object describes, or a StateFileError."""
    from .game import StoneAgeGame
    if not isinstance(g, dict):
        raise StateFileError(f"{what}: 'game' must be an object")
    keys = set(g)
    if keys != _GAME_KEYS:
        odd = sorted(keys ^ _GAME_KEYS)[0]
        raise StateFileError(f"{what}: game: {'unknown' if odd in keys else 'missing'} "
                             f"field {odd!r:.40}")
    try:
        tiles = tile_set(g["tiles"], f"{what}: game: tiles")
        return StoneAgeGame(g["num_players"], mammoth_herd=g["mammoth_herd"], tiles=tiles,
                            max_rounds=g["max_rounds"], start_player=g["start_player"])
    except ComponentsError as e:
        raise StateFileError(str(e)) from None
    except (StoneAgeError, InputError) as e:
        raise StateFileError(f"{what}: game: {e}") from None


def read_state(text: str | bytes, game=None, what: str = "state file"):
    """The state in ``text`` (:func:`state_to_json`'s), for ``game`` if given (the file's game
    must be it); StateFileError for anything else."""
    doc = parse_json(text, StateFileError, what)
    if not isinstance(doc, dict):
        raise StateFileError(f"{what}: not a Stone Age state (a JSON object expected)")
    keys = set(doc)
    if keys - _KEYS or not {"format", "version", "game", "history"} <= keys:
        odd = sorted((keys - _KEYS) or ({"format", "version", "game", "history"} - keys))[0]
        raise StateFileError(f"{what}: {'unknown' if odd in keys else 'missing'} field "
                             f"{odd!r:.40}")
    if doc["format"] != FORMAT or doc["version"] != VERSION:
        raise StateFileError(f"{what}: not a {FORMAT} file of version {VERSION}")
    saved = game_from_dict(doc["game"], what)
    if game is not None and saved != game:
        raise StateFileError(f"{what}: the file's game ({saved!r}) is not this game "
                             f"({game!r})")
    state = replay(saved, doc["history"], what)
    if "position" in doc:
        _same_position(state, doc["position"], what)
    return state


def replay(game, history: Any, what: str = "history"):
    """The state reached by applying ``history`` (ids) from ``game``'s initial state."""
    if not isinstance(history, list) or len(history) > MAX_HISTORY:
        raise StateFileError(f"{what}: 'history' must be a list of at most {MAX_HISTORY:,} "
                             "action ids")
    state = game.new_initial_state()
    for i, a in enumerate(history):
        if isinstance(a, bool) or not isinstance(a, int) or not 0 <= a < NUM_IDS:
            raise StateFileError(f"{what}: history step {i}: {a!r:.40} is not an action id "
                                 f"(0..{NUM_IDS - 1})")
        try:
            state.apply_action(a)
        except IllegalActionError as e:
            raise StateFileError(f"{what}: history step {i}: {e}") from None
    return state


def _same_position(state, position: Any, what: str) -> None:
    if not isinstance(position, dict):
        raise StateFileError(f"{what}: 'position' must be an object")
    names = [name for name, _, _ in FIELDS]
    if set(position) != set(names):
        odd = sorted(set(position) ^ set(names))[0]
        raise StateFileError(f"{what}: position: {'unknown' if odd in position else 'missing'}"
                             f" part {odd!r:.40}")
    for name, shape, _ in FIELDS:
        have = getattr(state, name)
        want = position[name]
        try:
            same = np.array_equal(np.asarray(want, dtype=np.int64), np.asarray(have)) and \
                np.shape(want) == (shape or ())
        except (TypeError, ValueError, OverflowError):
            same = False
        if not same:
            raise StateFileError(f"{what}: position: {name!r} does not follow from the "
                                 "history (the file was edited?)")


def state_from_json(text: str | bytes):
    """A state saved by :func:`state_to_json`, its game built from the parameters saved
    (pickling uses it)."""
    return read_state(text)

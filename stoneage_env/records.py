"""Stone Age in the game records of every game (:mod:`meduris_rl.kit.records`): the codec that
writes and reads what is Stone Age's own in a record (its row, :mod:`stoneage_env.row`, names
it).

A Stone Age record's ``game`` object is ``{"name": "stone_age", "num_players", "mammoth_herd",
"max_rounds", "start_player", "tiles"}`` (the Mammoth tile set in full: a record replays with
the set it was played with). Its events are :class:`~stoneage_env.engine.events.Event`'s kind
and data: a record is the full game, every card face up, as the other games' records are.
"""

from __future__ import annotations

from meduris_rl.kit.records import is_int

from .engine import action_to_string
from .engine.events import EVENT_KINDS, Event
from .engine.statefile import StateFileError, game_from_dict, game_to_dict

EVENT_KEYS = {"step", "kind", "data"}
_COLUMNS = {name: {c for c in cols if c is not None} for name, cols in EVENT_KINDS.values()}
_LIMIT = 1 << 20  # no event number comes near it (the sum of a player's points, 10 figures)


class StoneAgeRecords:
    """The record codec of Stone Age (the protocol of :mod:`meduris_rl.kit.records`)."""

    name = "stone_age"

    @staticmethod
    def game_to_dict(game) -> dict:
        return {"name": "stone_age", **game_to_dict(game)}

    @staticmethod
    def game_from_dict(doc: dict, error: type[Exception]):
        try:
            return game_from_dict({k: v for k, v in doc.items() if k != "name"}, "record")
        except StateFileError as err:
            raise error(str(err)) from None

    @staticmethod
    def action_text(action: int) -> str:
        return action_to_string(action)

    @staticmethod
    def event_to_dict(event: Event) -> dict:
        return {"step": event.step, "kind": event.kind, "data": dict(event.data)}

    @staticmethod
    def event_from_dict(row, i: int, error: type[Exception]) -> Event:
        """An event of a record, its kind and each field of that kind checked (an int in
        range), so a tampered event is one line here, never an error where it is shown."""
        if not isinstance(row, dict) or set(row) != EVENT_KEYS or not is_int(row["step"]) \
                or row["step"] < -1:
            raise error(f"record: events[{i}] needs step (an action's index), kind and data")
        kind, data = row["kind"], row["data"]
        if kind not in _COLUMNS:
            raise error(f"record: events[{i}]: no Stone Age event is called "
                        f"{str(kind)[:40]!r}")
        if not isinstance(data, dict) or set(data) != _COLUMNS[kind] or not all(
                is_int(v) and -_LIMIT < v < _LIMIT for v in data.values()):
            raise error(f"record: events[{i}]: a {kind} event has the integers "
                        f"{sorted(_COLUMNS[kind])}")
        return Event(row["step"], kind, dict(data))


STONE_AGE_RECORDS = StoneAgeRecords()

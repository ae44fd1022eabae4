"""Meduris in the game records of every game (:mod:`meduris_rl.kit.records`): the codec that
writes and reads what is Meduris's own in a record.

A Meduris record's ``game`` object is the game's parameters and board
(:func:`~meduris_env.engine.serialize.game_to_dict`) with no ``"name"``: Meduris's records were
the first, and every record written since reads as it did (:attr:`MedurisRecords.name` is None).
Its actions carry Meduris's action texts and its events each event's named integers::

    {"step", "kind", ...the event's columns (seats, fields, materials, VP)}
"""

from __future__ import annotations

from typing import Any

from meduris_rl.kit.records import is_int

from ..engine.events import EVENT_KINDS, Event
from ..engine.serialize import game_from_dict, game_to_dict

#: kind -> the columns an event of that kind names
EVENT_COLUMNS = {name: {c for c in cols if c} for name, cols in EVENT_KINDS.values()}


def action_text(action: int) -> str:
    """Meduris's action ``action`` in words (``action N`` for a number that is no action)."""
    from ..engine.actions import action_to_string
    try:
        return action_to_string(action)
    except ValueError:
        return f"action {action}"


class MedurisRecords:
    """The record codec of Meduris (the protocol of :mod:`meduris_rl.kit.records`)."""

    name = None  # a Meduris record's game object names no game (see the module docstring)

    @staticmethod
    def game_to_dict(game) -> dict:
        return game_to_dict(game)

    @staticmethod
    def game_from_dict(doc: dict, error: type[Exception]):
        return game_from_dict(doc, error, "record")

    action_text = staticmethod(action_text)

    @staticmethod
    def event_to_dict(event: Event) -> dict:
        return {"step": event.step, "kind": event.kind, **event.data}

    @staticmethod
    def event_from_dict(row: Any, i: int, error: type[Exception]) -> Event:
        if not isinstance(row, dict) or not is_int(row.get("step")) \
                or not isinstance(row.get("kind"), str):
            raise error(f"record: events[{i}] needs 'step' and 'kind'")
        data = {k: v for k, v in row.items() if k not in ("step", "kind")}
        columns = EVENT_COLUMNS.get(row["kind"])
        if columns is None:
            raise error(f"record: events[{i}]: unknown kind {row['kind']!r}")
        if set(data) != columns or not all(is_int(v) for v in data.values()):
            raise error(f"record: events[{i}] ({row['kind']}) needs the integers "
                        f"{sorted(columns)}")
        return Event(row["step"], row["kind"], data)


MEDURIS_RECORDS = MedurisRecords()

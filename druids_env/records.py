"""Druids in the game records of every game (:mod:`meduris_rl.kit.records`): the codec that
writes and reads what is Druids' own in a record (its row, :mod:`druids_env.row`, names it).

A Druids record's ``game`` object names the game: ``{"name": "druids", "num_players",
"circles", "max_turns"}``. Its actions carry Druids' action texts; its events carry each
:class:`~druids_env.engine.events.Event` whole (``data``, ``owner``, ``hidden``): a record is the
full game, every card face up, as Meduris's records are.
"""

from __future__ import annotations

from meduris_rl.kit.records import is_int

from .engine import DruidsGame, action_to_string
from .engine.events import Event
from .engine.statefile import event_problem

PARAMS = {"num_players", "circles", "max_turns"}
EVENT_KEYS = {"step", "kind", "data", "owner", "hidden"}


class DruidsRecords:
    """The record codec of Druids (the protocol of :mod:`meduris_rl.kit.records`)."""

    name = "druids"

    @staticmethod
    def game_to_dict(game) -> dict:
        return {"name": "druids", **game.params()}

    @staticmethod
    def game_from_dict(doc: dict, error: type[Exception]):
        params = {k: v for k, v in doc.items() if k != "name"}
        if set(params) != PARAMS or not all(is_int(v) for v in params.values()):
            raise error(f"record: a Druids 'game' needs the integers {sorted(PARAMS)}")
        try:
            return DruidsGame(**params)
        except ValueError as err:
            raise error(f"record: game: {err}") from None

    @staticmethod
    def action_text(action: int) -> str:
        try:
            return action_to_string(action)
        except ValueError:
            return f"action {action}"

    @staticmethod
    def event_to_dict(event: Event) -> dict:
        return {"step": event.step, "kind": event.kind, "data": dict(event.data),
                "owner": event.owner, "hidden": list(event.hidden)}

    @staticmethod
    def event_from_dict(row, i: int, error: type[Exception]) -> Event:
        """An event of a record, checked as a state file's are
        (:func:`~druids_env.engine.statefile.event_problem`: its kind, the data fields of that
        kind in range, its owner and hidden fields), so a tampered event is one line here, never
        an error later where it is shown."""
        if not isinstance(row, dict) or set(row) != EVENT_KEYS or not is_int(row["step"]) \
                or row["step"] < 0:
            raise error(f"record: events[{i}] needs step (an action's index), kind, data, owner "
                        "and hidden")
        problem = event_problem(row["kind"], row["data"], row["owner"], row["hidden"])
        if problem:
            raise error(f"record: events[{i}]: {problem}")
        return Event(row["step"], row["kind"], dict(row["data"]), row["owner"],
                     tuple(row["hidden"]))


DRUIDS_RECORDS = DruidsRecords()

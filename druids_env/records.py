"""Druids in the project's game records (:mod:`meduris_env.records.record`): the codec that
records and replays a Druids game through its own protocol. The records layer imports no game
but Meduris; the agents layer hands it this codec
(:func:`meduris_rl.agents.games.register_records`).

A Druids record is a Meduris record in form (``format`` "meduris-record", version 1) whose
``game`` object names the game: ``{"name": "druids", "num_players", "circles", "max_turns"}``
(a record without ``name`` is Meduris's). Its actions carry Druids' action texts; its events
carry each :class:`~druids_env.engine.events.Event` whole (``data``, ``owner``, ``hidden``): a
record is the full game, every card face up, as Meduris's records are.
"""

from __future__ import annotations

from .engine import DruidsGame, action_to_string
from .engine.events import KINDS, Event
from .engine.rules import END_NAMES

PARAMS = {"num_players", "circles", "max_turns"}
EVENT_KEYS = {"step", "kind", "data", "owner", "hidden"}


def is_int(v) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


class DruidsRecords:
    """The record codec of Druids (the protocol :func:`meduris_env.records.record.register_game`
    takes)."""

    name = "druids"
    score_unit = "amulets"  # what its scores count (D5: amulets), in a replay's summary

    @staticmethod
    def owns(game) -> bool:
        return isinstance(game, DruidsGame)

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
        if not isinstance(row, dict) or set(row) != EVENT_KEYS or not is_int(row["step"]) \
                or row["kind"] not in KINDS or not isinstance(row["data"], dict) \
                or not is_int(row["owner"]) or not isinstance(row["hidden"], list):
            raise error(f"record: events[{i}] needs step, a Druids event kind, data, owner and "
                        "hidden")
        if not all(isinstance(k, str) and (v is None or is_int(v) or isinstance(v, str))
                   for k, v in row["data"].items()):
            raise error(f"record: events[{i}]: data must map names to integers or words")
        return Event(row["step"], row["kind"], dict(row["data"]), row["owner"],
                     tuple(row["hidden"]))

    @staticmethod
    def result(state) -> dict:
        terminal = state.is_terminal()
        return {"terminal": terminal,
                "end_reason": END_NAMES[state.end_reason] if terminal else None,
                "turns": int(state.turn),
                "scores": [int(v) for v in state.scores()],
                "winners": state.winners() if terminal else []}


DRUIDS_RECORDS = DruidsRecords()

"""Game records of every game: one game as a JSON file that replays exactly.

A record holds the game (its settings, written by the game's codec), the seed its chance
outcomes were drawn from, a label per seat (``"greedy"``, ``"mcts:200"``, ``"human"``), every
action in order (player actions and chance outcomes alike, so replaying needs no random numbers),
the events they caused and the result. :meth:`GameRecord.replay` applies the actions to a fresh
initial state and checks that every action is legal for the seat recorded and that events,
scores and winners come out exactly as recorded; any difference raises :class:`RecordError`
naming the first one.

File format (a JSON object)::

    format   "meduris-record"          version  1
    game     {...}                     the game's settings, by its codec (with its "name",
                                       except Meduris's, whose records were first)
    seed     int or null               agents   [label per seat]
    actions  [{"step", "seat" (-1: chance), "action" (id), "text"}]
    events   [...]                     by the game's codec (as the state's events())
    result   {"terminal", "end_reason", "turns", "scores", "winners"}
    meta     {...}                     free-form (tournament, game index)

**Codecs.** Each game's row (:mod:`meduris_rl.kit.games`) has a record codec, the game's own
code for what differs: ``name`` (the ``game`` object's ``"name"``, or None for a game whose
records carry none: Meduris's), ``game_to_dict(game)``, ``game_from_dict(doc, error)``,
``action_text(action)``, ``event_to_dict(event)`` and ``event_from_dict(row, index, error)``.
The result is the same for every game (:func:`result_of`: the row's end reason, the state's
turn, scores and winners). This module imports no game: a record names its game and the table
finds the row.

Files are read through :mod:`meduris_rl.kit.jsonfile` (size, nesting depth and 64-bit
integers bounded, no key given twice): a hostile file is a one-line RecordError, never a
RecursionError or an OverflowError. The agent labels, which a replay prints, are printable text
of one line (:func:`label_problem`: no terminal escapes), checked when a record is read and when
one is made (:func:`record_labels`).
"""

from __future__ import annotations

import json
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from meduris_rl.kit.atomic import atomic_write
from meduris_rl.kit.errors import IllegalActionError, InputError
from meduris_rl.kit.games import GameSpec, games, spec_of
from meduris_rl.kit.jsonfile import clip, parse_json, read_bounded
from meduris_rl.kit.values import excerpt

FORMAT = "meduris-record"
VERSION = 1


ACTION_KEYS = {"step", "seat", "action", "text"}
#: the longest agent label a record holds (a label is printed at every step of a replay)
MAX_LABEL = 200


def label_problem(label: Any) -> str | None:
    """Why ``label`` cannot be a record's agent label, or None: printable text (no control
    characters: a replay prints labels to a terminal, where ``\\x1b[2J`` would clear it) of one
    line of at most :data:`MAX_LABEL` characters."""
    if not isinstance(label, str):
        return f"a label must be text, got {excerpt(label)}"
    if len(label) > MAX_LABEL:
        return f"a label has at most {MAX_LABEL} characters, got one of {len(label):,}"
    if any(c in label for c in "\n\r\x00"):
        return f"a label is one line, got {excerpt(label)}"
    if not label.isprintable():
        return ("a label must be printable text (no control characters such as terminal "
                f"escapes), got {excerpt(label)}")
    return None


def short_label(label: str) -> str:
    """``label`` as a record keeps it: one line, cut to :data:`MAX_LABEL` characters."""
    label = " ".join(str(label).replace("\x00", " ").splitlines())
    return label if len(label) <= MAX_LABEL else label[:MAX_LABEL - 3] + "..."


def record_labels(labels: list[Any]) -> list[str]:
    """``labels`` as a record keeps them (:func:`short_label`), or a RecordError naming the
    first that is not printable (:func:`label_problem`): what a record is written with, so a
    record written always reads back. :func:`meduris_rl.agents.arena.match.play_game` checks its
    labels so before the game, not after it."""
    kept = [short_label(a) for a in labels]
    for seat, label in enumerate(kept):
        problem = label_problem(label)
        if problem:
            raise RecordError(f"record: agents[{seat}]: {problem}")
    return kept


class RecordError(InputError, ValueError):
    """A record file that does not parse, or a record that does not replay as recorded."""


def is_int(v: Any) -> bool:
    """An integer of JSON (not a bool): what a codec's fields are checked with."""
    return isinstance(v, int) and not isinstance(v, bool)


def codec_row(game_doc: dict) -> GameSpec:
    """The row whose codec reads a record's ``game`` object (by its ``"name"``)."""
    name = game_doc.get("name")
    rows = games()
    for row in rows.values():
        if row.records.name == name:
            return row
    known = ", ".join(rows)
    raise RecordError(f"record: game {excerpt(name, 40)} is not known here (the games: "
                      f"{known})")


@dataclass
class GameRecord:
    """One game: see the module docstring for the fields."""

    game: Any  # the game object (the kit's Game protocol)
    actions: list[int]
    seats: list[int]  # who chose each action (-1: chance)
    agents: list[str]
    seed: int | None = None
    events: list = field(default_factory=list)
    result: dict = field(default_factory=dict)
    meta: dict = field(default_factory=dict)

    # --- making ----------------------------------------------------------------------------
    @classmethod
    def from_state(cls, state: Any, agents: list[str] | None = None, seed: int | None = None,
                   meta: dict | None = None) -> GameRecord:
        """The record of the game that led to ``state`` (finished or not)."""
        game = state.game
        n = game.num_players
        agents = list(agents) if agents is not None else [f"seat {s}" for s in range(n)]
        if len(agents) != n:
            raise ValueError(f"{n} players need {n} agent labels, got {len(agents)}")
        agents = record_labels(agents)
        actions, seats = _actions_and_seats(state)
        return cls(game=game, actions=actions, seats=seats, agents=agents, seed=seed,
                   events=state.events(), result=result_of(state), meta=dict(meta or {}))

    @property
    def row(self) -> GameSpec:
        """The row of this record's game."""
        return spec_of(self.game)

    @property
    def game_name(self) -> str:
        return self.row.name

    def text_of(self, action: int) -> str:
        """An action of this record's game in words."""
        return self.row.records.action_text(action)

    # --- replaying -------------------------------------------------------------------------
    def states(self) -> Iterator[Any]:
        """The initial state, then the state after each action (each one a new object)."""
        state = self.game.new_initial_state()
        yield state.clone()
        for step, (action, seat) in enumerate(zip(self.actions, self.seats, strict=True)):
            try:
                state.apply_action(action, seat)
            except IllegalActionError as err:
                raise RecordError(f"record: step {step} ({self.text_of(action)}) does not "
                                  f"replay: {err}") from None
            yield state.clone()

    def replay(self) -> Any:
        """The final state, after checking it reproduces the recorded events and result."""
        state = deque(self.states(), maxlen=1)[0]  # run through every step, keep the last
        events = state.events()
        if events != self.events:
            pairs = enumerate(zip(events, self.events, strict=False))
            at = next((i for i, (a, b) in pairs if a != b), min(len(events), len(self.events)))
            got = events[at].describe() if at < len(events) else "no event"
            want = self.events[at].describe() if at < len(self.events) else "no event"
            raise RecordError(f"record: replayed event {at} is '{got}', the record says '{want}'")
        result = result_of(state)
        for key in ("scores", "winners", "terminal", "end_reason", "turns"):
            if result[key] != self.result.get(key):
                raise RecordError(f"record: replayed {key} {result[key]!r}, the record says "
                                  f"{self.result.get(key)!r}")
        return state

    # --- files -----------------------------------------------------------------------------
    def to_dict(self) -> dict:
        codec = self.row.records
        return {
            "format": FORMAT,
            "version": VERSION,
            "game": codec.game_to_dict(self.game),
            "seed": self.seed,
            "agents": record_labels(self.agents),  # (a record is never written unreadable)
            "actions": [{"step": i, "seat": s, "action": a, "text": codec.action_text(a)}
                        for i, (a, s) in enumerate(zip(self.actions, self.seats, strict=True))],
            "events": [codec.event_to_dict(e) for e in self.events],
            "result": dict(self.result),
            "meta": dict(self.meta),
        }

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), separators=(",", ":"))

    def save(self, path: str | Path) -> Path:
        """Write the record atomically (a crash never leaves half a file)."""
        path = Path(path)
        atomic_write(path, self.to_json() + "\n")
        return path

    @classmethod
    def from_json(cls, text: str | bytes) -> GameRecord:
        return cls.from_dict(parse_json(text, RecordError, "record"))

    @classmethod
    def from_dict(cls, doc: Any) -> GameRecord:
        if not isinstance(doc, dict) or doc.get("format") != FORMAT:
            raise RecordError(f"record: 'format' must be {FORMAT!r} (is this a game record?)")
        if doc.get("version") != VERSION:
            raise RecordError(f"record: version {doc.get('version')!r} is not supported "
                              f"(expected {VERSION})")
        if not isinstance(doc.get("game"), dict):
            raise RecordError("record: 'game' must be an object")
        codec = codec_row(doc["game"]).records
        game = codec.game_from_dict(doc["game"], RecordError)
        agents = doc.get("agents")
        if not isinstance(agents, list) or len(agents) != game.num_players:
            raise RecordError(f"record: 'agents' must list {game.num_players} labels")
        for seat, label in enumerate(agents):
            problem = label_problem(label)
            if problem:
                raise RecordError(f"record: agents[{seat}]: {problem}")
        seed = doc.get("seed")
        if seed is not None and not is_int(seed):
            raise RecordError("record: 'seed' must be an integer or null")
        actions, seats = read_actions(doc.get("actions"), codec.action_text)
        rows = doc.get("events") or []
        if not isinstance(rows, list):
            raise RecordError("record: 'events' must be a list")
        events = [codec.event_from_dict(row, i, RecordError) for i, row in enumerate(rows)]
        result = doc.get("result")
        if not isinstance(result, dict):
            raise RecordError("record: 'result' must be an object")
        meta = doc.get("meta") or {}
        return cls(game=game, actions=actions, seats=seats, agents=agents, seed=seed,
                   events=events, result=result, meta=meta if isinstance(meta, dict) else {})

    @classmethod
    def load(cls, path: str | Path) -> GameRecord:
        """The record in the file at ``path`` (read by the one bounded reader,
        :func:`~meduris_rl.kit.jsonfile.read_bounded`: a regular file of at most
        64 MiB; a folder, a device or a FIFO is refused before it is opened)."""
        data = read_bounded(path, RecordError, "record")
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            raise RecordError(f"{clip(str(path), 200)!r} is not a game record (not UTF-8 text; "
                              "records are JSON files)") from None
        return cls.from_json(text)


def read_actions(rows: Any, text_of) -> tuple[list[int], list[int]]:
    """The actions and seats of a record's ``actions`` list, each row checked (its text must
    be the action in the game's words: ``text_of``)."""
    actions, seats = [], []
    if not isinstance(rows, list):
        raise RecordError("record: 'actions' must be a list")
    for i, row in enumerate(rows):
        if not isinstance(row, dict) or not is_int(row.get("action")) \
                or not is_int(row.get("seat")):
            raise RecordError(f"record: actions[{i}] needs integer 'action' and 'seat'")
        if set(row) != ACTION_KEYS or row["step"] != i or type(row["step"]) is not int \
                or row["text"] != text_of(row["action"]):
            raise RecordError(f"record: actions[{i}] must be {{step: {i}, seat, action, "
                              "text: the action in words}")
        actions.append(row["action"])
        seats.append(row["seat"])
    return actions, seats


def _actions_and_seats(final: Any) -> tuple[list[int], list[int]]:
    """Who chose each action, found by replaying (the log keeps actions only). A position
    edited by hand is not the end of its history, and cannot be recorded."""
    history = final.history()
    state = final.game.new_initial_state()
    seats = []
    try:
        for a in history:
            seats.append(state.current_player())
            state.apply_action(a)
    except IllegalActionError:
        state = None
    if state != final:
        raise ValueError("this state was edited by hand, so its actions do not lead to it from "
                         "the start; a game record needs a game played from "
                         "new_initial_state()")
    return history, seats


def result_of(state: Any) -> dict:
    """The result of the game at ``state`` as a record keeps it, the same for every game: its
    end reason in the words of its row, its turn, scores and winners."""
    terminal = state.is_terminal()
    return {"terminal": terminal,
            "end_reason": spec_of(state.game).end_name(state) if terminal else None,
            "turns": int(state.turn),
            "scores": [int(v) for v in state.scores()],
            "winners": state.winners() if terminal else []}

"""A toy game added the way docs/adding_a_game.md says, in the tests folder only: its rules,
its records codec, its own agent kinds and ladder, and its row, registered by hand (it is not
installed). ``tests/test_toy_game.py`` plays it through every tool with no other edit.

**Nim** (the subtraction game): a pile of ``stones`` (an option, 15 by default); a chance
node draws who starts; then the players take 1, 2 or 3 stones in turn, and whoever takes the
last stone wins (the others share last place). Scores are the stones each player took. Actions:
0, 1, 2 take 1, 2, 3 stones; chance outcomes 10 + seat.
"""

from __future__ import annotations

import json
import random
from typing import NamedTuple

import numpy as np

from meduris_rl.agents.arena.ladder.anchors import DATA, LadderGame
from meduris_rl.agents.base import Agent
from meduris_rl.agents.registry import AgentKind
from meduris_rl.kit.errors import IllegalActionError
from meduris_rl.kit.games import GameSpec, Option, register
from meduris_rl.kit.protocol import CHANCE, TERMINAL
from meduris_rl.kit.values import check_int

START = 10  # chance outcome START + seat: that seat moves first
END_NAMES = ("not over", "the last stone", "the turn limit")


class Event(NamedTuple):
    step: int
    kind: str
    data: dict

    def describe(self) -> str:
        if self.kind == "start":
            return f"seat {self.data['seat']} starts"
        return f"seat {self.data['seat']} takes {self.data['stones']}"


class NimGame:
    def __init__(self, num_players: int = 2, stones: int = 15, max_turns: int | None = 100):
        self.num_players = check_int("num_players", num_players, 2, 4)
        self.stones = check_int("stones", stones, 1, 1000)
        self.max_turns = 0 if max_turns is None else check_int("max_turns", max_turns, 0, 10**6)

    def new_initial_state(self) -> NimState:
        return NimState(self)

    def num_distinct_actions(self) -> int:
        return 3

    def params(self) -> dict:
        return {"num_players": self.num_players, "stones": self.stones,
                "max_turns": self.max_turns}

    def __eq__(self, other) -> bool:
        return isinstance(other, NimGame) and other.params() == self.params()


class NimState:
    def __init__(self, game: NimGame):
        self.game = game
        self.left = game.stones
        self.to_move = CHANCE
        self.taken = [0] * game.num_players
        self.turn = 0
        self.end_reason = 0
        self.log: list[int] = []
        self.log_events: list[Event] = []

    # --- the kit's State protocol ----------------------------------------------------------
    def current_player(self) -> int:
        return self.to_move

    def legal_actions(self) -> list[int]:
        if self.to_move == CHANCE:
            return [START + s for s in range(self.game.num_players)]
        if self.to_move == TERMINAL:
            return []
        return list(range(min(3, self.left)))

    def legal_action_mask(self) -> np.ndarray:
        mask = np.zeros(3, dtype=np.int8)
        if self.to_move >= 0:
            mask[self.legal_actions()] = 1
        return mask

    def sample_chance(self, rng: random.Random) -> int:
        return START + rng.randrange(self.game.num_players)

    def apply_action(self, action: int, player: int | None = None) -> None:
        if action not in self.legal_actions() or (player is not None and player != self.to_move):
            raise IllegalActionError(f"{self.action_to_string(action)} is not legal now")
        step = len(self.log)
        self.log.append(action)
        if self.to_move == CHANCE:
            self.to_move = action - START
            self.log_events.append(Event(step, "start", {"seat": self.to_move}))
            return
        seat, stones = self.to_move, action + 1
        self.left -= stones
        self.taken[seat] += stones
        self.turn += 1
        self.log_events.append(Event(step, "take", {"seat": seat, "stones": stones}))
        if self.left == 0:
            self.winner, self.to_move, self.end_reason = seat, TERMINAL, 1
        elif self.game.max_turns and self.turn >= self.game.max_turns:
            self.winner, self.to_move, self.end_reason = None, TERMINAL, 2
        else:
            self.to_move = (seat + 1) % self.game.num_players

    def is_terminal(self) -> bool:
        return self.to_move == TERMINAL

    def scores(self) -> list[int]:
        return list(self.taken)

    def winners(self) -> list[int]:
        return [self.winner] if self.is_terminal() and self.winner is not None else []

    def ranks(self) -> list[int]:
        won = self.winners()
        return [1 if s in won or not won else 2 for s in range(self.game.num_players)]

    def returns(self) -> list[float]:
        won = self.winners()
        return [1.0 if s in won else -1.0 for s in range(self.game.num_players)] if won else \
            [0.0] * self.game.num_players

    def history(self) -> list[int]:
        return list(self.log)

    def events(self) -> list[Event]:
        return list(self.log_events)

    def action_to_string(self, action: int) -> str:
        return action_text(action)

    def pending_decision(self) -> dict:
        return {"kind": "take", "left": self.left}

    def clone(self) -> NimState:
        other = NimState(self.game)
        for a in self.log:
            other.apply_action(a)
        return other

    def to_json(self) -> str:
        return json.dumps({"left": self.left, "to_move": self.to_move, "taken": self.taken})

    def __eq__(self, other) -> bool:
        return isinstance(other, NimState) and other.game == self.game and other.log == self.log

    def __str__(self) -> str:
        return f"{self.left} stones left; taken {self.taken}"


def action_text(action: int) -> str:
    if 0 <= action < 3:
        return f"take {action + 1}"
    return f"seat {action - START} starts" if action >= START else f"action {action}"


# --- the records codec ---------------------------------------------------------------------------
class NimRecords:
    name = "nim"

    @staticmethod
    def game_to_dict(game: NimGame) -> dict:
        return {"name": "nim", **game.params()}

    @staticmethod
    def game_from_dict(doc: dict, error):
        try:
            return NimGame(**{k: v for k, v in doc.items() if k != "name"})
        except (TypeError, ValueError) as err:
            raise error(f"record: game: {err}") from None

    action_text = staticmethod(action_text)

    @staticmethod
    def event_to_dict(event: Event) -> dict:
        return {"step": event.step, "kind": event.kind, **event.data}

    @staticmethod
    def event_from_dict(row, i: int, error) -> Event:
        if not isinstance(row, dict) or row.get("kind") not in ("start", "take"):
            raise error(f"record: events[{i}] is not a Nim event")
        return Event(row["step"], row["kind"],
                     {k: v for k, v in row.items() if k not in ("step", "kind")})


# --- its agents: a greedy kind (the winning move when there is one), a ladder ------------------
class NimGreedy(Agent):
    """Leaves a multiple of 4 stones when it can (the 2-player winning strategy)."""

    def act(self, observation, state) -> int:
        want = state.left % 4
        legal = state.legal_actions()
        return want - 1 if want and want - 1 in legal else legal[self.rng.randrange(len(legal))]


class TakeOne(Agent):
    """Takes one stone, always (an entrant for the ladder)."""

    def act(self, observation, state) -> int:
        return 0


def _greedy(spec) -> Agent:
    return NimGreedy(str(spec))


def _take_one(spec) -> Agent:
    return TakeOne(str(spec))


KINDS = (AgentKind("greedy", "leaves a multiple of 4 stones when it can", _greedy,
                   games=("nim",)),
         AgentKind("take1", "takes one stone, always", _take_one, games=("nim",)))
LADDER = LadderGame("nim", {2: ("random", "greedy")}, ("random", "greedy"),
                    DATA / "ladder_anchors_nim.sqlite", "ladder_nim.sqlite")


# --- its row --------------------------------------------------------------------------------------
def new_game(num_players: int, **options) -> NimGame:
    return NimGame(num_players, **options)


def observe(state: NimState, seat: int) -> dict:
    return {"observation": np.array([state.left, seat], dtype=np.float32),
            "action_mask": state.legal_action_mask() if seat == state.to_move
            else np.zeros(3, dtype=np.int8)}


def end_name(state: NimState) -> str:
    return END_NAMES[state.end_reason]


def seat_view(state: NimState, seat: int) -> str:
    return state.to_json()


def game_fields(game: NimGame) -> dict:
    return {"stones": game.stones}


def check_stones(what: str, value) -> int:
    return check_int(what, value, 1, 1000)


def check_max_turns(what: str, value) -> int | None:
    return None if value is None else check_int(what, value, 0, 10**6)


ROW = register(GameSpec(
    name="nim", title="Nim", summary="Nim: take 1-3 stones, the last stone wins (a toy)",
    player_counts=(2, 3), players_rule="N1", new_game=new_game, game_class=NimGame,
    observe=observe, end_name=end_name, score_unit="stones", num_actions=3,
    records=NimRecords(), seat_view=seat_view, game_fields=game_fields,
    options=(Option("stones", 15, check_stones, "the stones in the pile"),
             Option("max_turns", 100, check_max_turns, "the turn limit")),
    default_agents=("random", "greedy"), default_opponent="greedy",
    parts=(("agent_kinds", "toy_game:KINDS"), ("ladder", "toy_game:LADDER"))))

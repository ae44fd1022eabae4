"""What the kit and the tools ask of a game: the Game/State protocol (OpenSpiel's shape), and
the special values of ``current_player()``.

A game package provides a game object and its states; the tools never look inside them, they
call these names only (the one play loop :mod:`meduris_rl.kit.loop`, the arena, the records, the
environment cores). Meduris (``meduris_env.MedurisGame``) and Druids (``druids_env.DruidsGame``)
are games of this shape, and so is the toy game of the tests (``tests/toy_game.py``): adding a
game is writing these methods and a row of :mod:`meduris_rl.kit.games`.

``current_player()`` is a seat ``0 .. num_players - 1``, :data:`CHANCE` at a chance node (the
caller draws an outcome: ``sample_chance(rng)`` or ``chance_outcomes()``) or :data:`TERMINAL`
once the game is over (OpenSpiel's values). An illegal action raises
:class:`meduris_rl.kit.errors.IllegalActionError` (or a subclass) and leaves the state as it was.
"""

from __future__ import annotations

import random
from typing import Any, Protocol, runtime_checkable

#: ``current_player()`` at a chance node and at the end of the game (OpenSpiel's values)
CHANCE = -1
TERMINAL = -4


@runtime_checkable
class State(Protocol):
    """A position of a game (see the module docstring)."""

    game: Any

    def current_player(self) -> int: ...

    def legal_actions(self) -> list[int]: ...

    def apply_action(self, action: int, player: int | None = None) -> None: ...

    def sample_chance(self, rng: random.Random) -> int: ...

    def is_terminal(self) -> bool: ...

    def scores(self) -> list[int]: ...

    def ranks(self) -> list[int]: ...

    def winners(self) -> list[int]: ...

    def returns(self) -> list[float]: ...

    def history(self) -> list[int]: ...

    def clone(self) -> State: ...

    def to_json(self) -> str: ...


@runtime_checkable
class Game(Protocol):
    """A game with its settings (players, options): it makes initial states."""

    num_players: int

    def new_initial_state(self) -> State: ...

    def num_distinct_actions(self) -> int: ...


class TurnState:
    """The OpenSpiel-style core every game's state shares (a base class a game's State takes
    instead of writing it again): the state keeps the seat to move, ``CHANCE`` or ``TERMINAL``
    in its attribute ``to_move``, and its ``end_reason`` is the class's ``TRUNCATED_END`` when
    the game ended on the turn limit. Attribute reads, not calls: these are a game loop's hot
    path (the engine's Python-driven throughput, docs/benchmarks.md)."""

    __slots__ = ()
    TRUNCATED_END: int
    to_move: int

    def current_player(self) -> int:
        """The seat to decide, ``CHANCE`` (-1) at a chance node or ``TERMINAL`` (-4)."""
        return self.to_move

    def is_chance_node(self) -> bool:
        return self.to_move == CHANCE

    def is_terminal(self) -> bool:
        return self.to_move == TERMINAL

    def is_truncated(self) -> bool:
        """True when the game ended on the turn limit (``max_turns``), not by the rules."""
        return self.to_move == TERMINAL and self.end_reason == self.TRUNCATED_END

    def step(self, action: int):
        """``apply_action`` on a clone; returns the new state (the original is unchanged)."""
        child = self.clone()
        child.apply_action(action)
        return child


def shared_returns(winners: list[int], players: int) -> list[float]:
    """The project's returns of a finished game: the winners share +1 and the others share -1
    (all level: all 0), so they sum to 0."""
    if len(winners) == players:
        return [0.0] * players
    return [1.0 / len(winners) if s in winners else -1.0 / (players - len(winners))
            for s in range(players)]


class ZeroSumState:
    """``returns`` for a state whose game scores as the project's games do
    (:func:`shared_returns` once it is over, zeros before; a game ended on its turn limit is
    scored on its standings, ``winners``): a base class beside :class:`TurnState`."""

    __slots__ = ()

    def returns(self) -> list[float]:
        n = self.game.num_players
        return shared_returns(self.winners(), n) if self.is_terminal() else [0.0] * n


class ZeroSumGame:
    """OpenSpiel's utility bounds of a game scored by :func:`shared_returns`: -1 .. +1, sum 0
    (a base class beside :class:`TableGame`)."""

    __slots__ = ()
    utility = "zero_sum"

    @staticmethod
    def min_utility() -> float:
        return -1.0

    @staticmethod
    def max_utility() -> float:
        return 1.0

    @staticmethod
    def utility_sum() -> float:
        return 0.0


class ChanceTurnGame:
    """OpenSpiel's ``GameType`` as data of a game played in turns with explicit chance nodes
    and rewards at the end only, which provides the information state and the observation as
    strings and tensors (a base class beside :class:`TableGame`; the game says its
    ``information``)."""

    __slots__ = ()
    dynamics = "sequential"
    chance_mode = "explicit_stochastic"
    reward_model = "terminal"
    provides_information_state_string = provides_information_state_tensor = True
    provides_observation_string = provides_observation_tensor = True


class TableGame:
    """A game's sizes as data (OpenSpiel's ``Game`` properties), for a game class that takes it
    as its base: the class attributes ``DISTINCT_ACTIONS`` (player actions) and
    ``CHANCE_OUTCOMES``."""

    __slots__ = ()
    DISTINCT_ACTIONS: int
    CHANCE_OUTCOMES: int

    @classmethod
    def num_distinct_actions(cls) -> int:
        return cls.DISTINCT_ACTIONS

    @classmethod
    def max_chance_outcomes(cls) -> int:
        return cls.CHANCE_OUTCOMES


class ParamsGame:
    """Equality, hash and repr of a game made by its options (a base class beside
    :class:`TableGame`): ``params()`` (the game's method: its options, a dict of plain values,
    in its constructor's order) and ``same_parts(other)`` (what else makes the game, such as a
    board or a tile table: none unless the game says so). Two games are equal when they are
    of one class with equal params and the same parts; ``repr`` is the constructor's call."""

    __slots__ = ()

    def same_parts(self, other) -> bool:
        return True

    def __eq__(self, other: object) -> bool:
        return isinstance(other, type(self)) and other.params() == self.params() and \
            self.same_parts(other)

    def __hash__(self) -> int:
        return hash(tuple(sorted(self.params().items())))

    def __repr__(self) -> str:
        options = ", ".join(f"{k}={v!r}" for k, v in self.params().items())
        return f"{type(self).__name__}({options})"

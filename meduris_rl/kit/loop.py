"""The one loop that plays a game: chance sampled from a seeded stream, decisions asked of a
``decide(state, seat)`` function, until the game is over or the caller's stop condition holds.

Everything that advances a game uses it: tournament and evaluation games
(:func:`meduris_rl.agents.arena.match.play_game`), the opponents' turns of the single-agent
environment, the seats the AEC environment plays for truncated agents, and chance resolution between
decisions (:func:`~meduris_env.engine.chance.resolve_chance`).

It serves every game (Meduris and Druids alike): a state provides ``current_player()``,
``apply_action(action, seat)``, ``legal_actions()`` and ``sample_chance(rng)`` (Meduris's wraps
:func:`meduris_env.engine.chance.sample_chance`, so its games are those of before), and raises
:class:`~meduris_env.engine.errors.IllegalActionError` (or a subclass) for an illegal action.
The loop imports no game's state, so a game's engine may import it.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import TYPE_CHECKING

from meduris_rl.kit.errors import IllegalActionError
from meduris_rl.kit.protocol import CHANCE, TERMINAL

if TYPE_CHECKING:
    from meduris_rl.kit.protocol import State

Decide = Callable[["State", int], int]  # (state at a decision node, seat to move) -> action id
Observer = Callable[["State", int, int], None]  # (state after, seat or CHANCE, action) -> None
Stop = Callable[["State"], bool]  # at a decision node: return True to stop before it


def play(state: State, decide: Decide | None, rng: random.Random, *, until: Stop | None = None,
         observer: Observer | None = None, who: Callable[[int], str] | None = None) -> int:
    """Advance ``state`` in place and return the number of decisions made.

    Chance outcomes are drawn from ``rng`` with the rules' probabilities (R4, R6, R7). At a
    decision node the loop stops if ``until(state)`` is true, else applies
    ``decide(state, seat)``. It stops at the end of the game. ``observer`` sees every applied
    action. An illegal decision raises :class:`IllegalActionError` naming ``who(seat)`` (default
    ``"seat N"``), with the state as it was before that action."""
    made = 0
    while True:
        cur = state.current_player()
        if cur == TERMINAL:
            return made
        if cur == CHANCE:
            action = state.sample_chance(rng)
            state.apply_action(action)
        else:
            if until is not None and until(state):
                return made
            if decide is None:
                raise ValueError(f"seat {cur} must decide, but no decide function was given")
            action = decide(state, cur)
            try:
                state.apply_action(action, cur)
            except IllegalActionError as err:
                name = who(cur) if who is not None else f"seat {cur}"
                raise type(err)(f"{name}: {err}") from None
            made += 1
        if observer is not None:
            observer(state, cur, action)


def random_decide(rng: random.Random) -> Decide:
    """A decide function choosing uniformly among the legal actions with ``rng`` (any game)."""
    def decide(state: State, seat: int) -> int:
        legal = state.legal_actions()
        return legal[rng.randrange(len(legal))]
    return decide


def resolve_chance(state: State, rng: random.Random) -> None:
    """Apply sampled chance outcomes until a player must decide or the game is over."""
    play(state, None, rng, until=_always)


def _always(state: State) -> bool:
    return True

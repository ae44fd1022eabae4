"""Playing a Druids game: chance sampled from a seeded stream, decisions asked of a
``decide(state, seat)`` function (the signature of :func:`meduris_env.engine.loop.play`, so the
shared play loop can take this game's states once it samples chance through
``chance_outcomes()``, as :func:`sample_chance` does here).
"""

from __future__ import annotations

import random
from collections.abc import Callable

from meduris_env.engine.constants import CHANCE, TERMINAL

from .errors import IllegalActionError

Decide = Callable[[object, int], int]
Observer = Callable[[object, int, int], None]
Stop = Callable[[object], bool]


def sample_chance(state, rng: random.Random) -> int:
    """One outcome id of the chance node ``state``, drawn with the rules' probabilities (each
    card left equally likely: one ``randrange``)."""
    ids = state.legal_actions()
    return ids[rng.randrange(len(ids))]


def random_decide(rng: random.Random) -> Decide:
    """A decide function choosing uniformly among the legal actions with ``rng``."""
    def decide(state, seat: int) -> int:
        legal = state.legal_actions()
        return legal[rng.randrange(len(legal))]
    return decide


def play(state, decide: Decide | None, rng: random.Random, *, until: Stop | None = None,
         observer: Observer | None = None, who: Callable[[int], str] | None = None) -> int:
    """Advance ``state`` in place and return the number of decisions made (as Meduris's
    ``play``): chance from ``rng``, decisions from ``decide``, until the end or ``until``."""
    made = 0
    while True:
        cur = state.current_player()
        if cur == TERMINAL:
            return made
        if cur == CHANCE:
            action = sample_chance(state, rng)
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
                raise IllegalActionError(f"{name}: {err}") from None
            made += 1
        if observer is not None:
            observer(state, cur, action)


def resolve_chance(state, rng: random.Random) -> None:
    """Apply sampled chance outcomes until a player must decide or the game is over."""
    play(state, None, rng, until=lambda s: True)

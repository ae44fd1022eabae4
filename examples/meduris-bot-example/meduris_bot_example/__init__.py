"""An example Meduris agent package for meduris-rl's entry-point group ``meduris_rl.agents``.

It imports nothing from the project: a plug-in only needs ``act(observation, state)`` (an
object) or ``f(observation)`` (a policy function); meduris-rl wraps it in an Agent, gives it
its name and seeds it with ``reset(seed)`` before every game.

* ``cautious[:<level>]`` (:class:`Cautious`): a seeded random player that plays the lowest
  legal action id with probability ``level``/10 (``level`` 0..10, default 3).
* ``first-legal`` (:func:`first_legal`): a policy function, the lowest legal action id of the
  observation's mask.

Both read only the legal ids, so they play every game of meduris-rl (Meduris, and Druids with
``--game druids``). A plug-in for some games only says so with an attribute ``games`` on the
class or function, e.g. ``games = ("druids",)``. Both say ``instant = True``: a decision takes
well under a millisecond, so ``meduris serve`` plays them in its own process rather than
queueing them behind searches.
"""

from __future__ import annotations

import random

__all__ = ["Cautious", "first_legal"]


class Cautious:
    """A seeded random player with a bias towards the lowest legal id: with probability
    ``level``/10 it plays the lowest legal id, otherwise a random legal one. ``level`` is the
    agent name's parameter (``cautious:7``), 0..10, default 3."""

    uses_observation = False  # it reads the state's legal actions only
    instant = True  # a decision in well under a millisecond (meduris serve)

    def __init__(self, level: str = "3"):
        if not level.isdigit() or not 0 <= int(level) <= 10:
            raise ValueError(f"cautious:<level>: a whole number 0..10, got {level!r}")
        self.level = int(level)
        self.rng = random.Random(0)

    def reset(self, seed: int | None = None) -> None:
        self.rng = random.Random(seed)

    def act(self, observation, state) -> int:
        legal = state.legal_actions()
        if self.rng.random() < self.level / 10:
            return min(legal)
        return self.rng.choice(legal)


def first_legal(observation) -> int:
    """The lowest legal action id of the observation dict's ``action_mask`` (PettingZoo
    style: a function of the observation)."""
    mask = observation["action_mask"]
    return next(i for i, allowed in enumerate(mask) if allowed)


first_legal.instant = True  # a decision in well under a millisecond (meduris serve)

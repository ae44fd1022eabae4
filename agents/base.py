"""The one interface every agent implements.

An agent is asked for an action whenever its seat must decide:
``act(observation, state) -> int``, where ``observation`` is the seat's environment observation
(``{"observation": vector, "action_mask": int8 mask}``, see :mod:`meduris_env.envs.observation`) or
``None`` when the agent says it does not need one (``uses_observation = False``), and ``state``
is the live engine :class:`~meduris_env.engine.state.State` (read it or ``clone()`` it; never change
it). ``reset(seed)`` starts a new game with a seeded random stream, so the same seed gives the
same choices. ``name`` is the registry name that built the agent (``"mcts:200"``).
"""

from __future__ import annotations

import contextvars
import random
from abc import ABC, abstractmethod

from meduris_rl.kit.errors import InputError

#: the game being played in this thread, as :func:`meduris_rl.agents.arena.match.play_game` sets
#: it for its agents: ``{"seed": the game's seed, "game": its number in the run (games.csv), or
#: None}`` (a ``cmd:`` bot's log heads each game's section with them); None outside a game
CURRENT_GAME: contextvars.ContextVar[dict | None] = contextvars.ContextVar("meduris_game",
                                                                         default=None)


class Agent(ABC):
    """Base class: a name, a seeded ``rng`` and ``act``."""

    uses_observation = False  # True: act() needs the observation vector (e.g. a policy network)

    def __init__(self, name: str = ""):
        # (a plug-in's is set to the name it was built by: meduris_rl.agents.plugins.load)
        self.name = name
        self.rng = random.Random(0)

    def reset(self, seed: int | None = None) -> None:
        self.rng = random.Random(seed)

    @abstractmethod
    def act(self, observation, state) -> int:
        """The action (an id of the 241-action space) for the seat to move in ``state``."""

    def game_over(self, result) -> None:
        """Told once when a game it played in :func:`meduris_rl.agents.arena.match.play_game` has
        ended (``result``: the :class:`~meduris_rl.agents.arena.match.GameResult`, forfeits
        included); nothing by default (a subprocess agent passes it on to its bot)."""
        return None

    def __repr__(self) -> str:
        return f"<agent {self.name}>"


class GameAbandoned(Exception):
    """Raised by an agent's ``act`` to end the game unfinished (a player quit)."""


class Forfeit(GameAbandoned):
    """Raised by an agent's ``act`` when it breaks the rules of play rather than quitting: a
    bot that crashed, hung past its time limit, answered malformed text or an illegal action
    (:mod:`meduris_rl.agents.plugins.external`). The game ends there and that seat loses it: it
    ranks last, the others keep their R26 order of the position
    (:func:`meduris_rl.agents.arena.match.play_game`).

    A subclass of :class:`GameAbandoned`, so code that stops a game when a player quits also
    stops it on a forfeit; not a ``InputError``: it is an outcome of a game, not bad input.
    ``reason`` is one line (``timeout: no answer within 0.5 s``), written to games.csv."""

    def __init__(self, reason: str):
        self.reason = " ".join(str(reason).split())  # one line
        super().__init__(self.reason)


class UnknownAgentError(InputError, ValueError):
    """An agent name that the registry cannot build, or a model file it cannot load."""


def ordinal(n: int) -> str:
    """``n`` as an English ordinal: 1st, 2nd, 3rd, 4th, 11th, 12th, 21st ..."""
    suffix = "th" if n % 100 in (11, 12, 13) else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def check_names(names: list[str], what: str, error: type[Exception], example: str
                ) -> list[str]:
    """The agent names of a comma-separated list (``what``: the flag or setting, for the
    message), stripped; none at all, or an empty one (``random,,greedy``: the 2nd), is one line
    of ``error`` naming its place and ending with ``example``."""
    names = [n.strip() for n in names]
    if not any(names):
        raise error(f"{what} needs a comma-separated list of agent names, e.g. {example}")
    for i, name in enumerate(names):
        if not name:
            raise error(f"{what}: the {ordinal(i + 1)} agent name is empty (of {len(names)}); "
                        f"write names separated by single commas, e.g. {example}")
    return names

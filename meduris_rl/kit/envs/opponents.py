"""What an environment accepts as an opponent: the two protocols, in one place.

Environments never look agents up by name (that is the agents layer's table); they take
objects, checked here before any game starts:

* **one game at a time** (:class:`~meduris_env.envs.single_agent.MedurisSingleAgentEnv`):
  ``"random"`` (built in, uniform over the legal actions from the environment's seeded stream),
  an :class:`Opponent` (an object with ``act(observation, state)``, e.g. any agent of
  :mod:`meduris_rl.agents`), or a callable ``f(observation, state) -> action``;
* **a batch at a time** (:class:`~meduris_env.envs.vector.MedurisVectorEnv`): ``"random"``
  (built in, inside the kernels: the fastest), a :class:`BatchOpponent` (an object with
  ``act_batch(decisions)`` taking :class:`Decisions`), or a callable ``f(obs, mask) ->
  actions`` over the rows (e.g. a policy network).

``observation`` is the opponent's own env observation (``{"observation", "action_mask"}``, or
``None`` for an object whose ``uses_observation`` is false) and ``state`` the live engine state
(read it or ``clone()`` it, do not change it).

Anything else is an :class:`OpponentError` (a ``InputError``, also a ``ValueError`` and a
``TypeError``) in one line: a name other than ``'random'`` says to build the agent with
``meduris_rl.agents.make_agent``, which knows every name (and says what a misspelt one may mean); a
slip of ``'random'`` itself gets a did-you-mean here (``'randm'``).
"""

from __future__ import annotations

import difflib
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Literal, NamedTuple, Protocol, runtime_checkable

import numpy as np

from meduris_rl.kit.errors import InputError
from meduris_rl.kit.values import excerpt

if TYPE_CHECKING:
    from meduris_rl.kit.protocol import Game, State


@runtime_checkable
class Opponent(Protocol):
    """Decides for one seat of one game."""

    def act(self, observation: dict[str, np.ndarray] | None, state: State) -> int: ...


class Decisions(NamedTuple):
    """What an opponent acting in batch is shown: one row per game where it must decide."""

    obs: np.ndarray  # (k, OBS_SIZE) float32, each from the deciding seat's view
    mask: np.ndarray  # (k, NUM_ACTIONS) int8, the legal actions
    states: np.ndarray  # (k, STATE_SIZE) int32 copies of the games' states
    seeds: np.ndarray  # (k,) int64, one per decision from each game's own stream
    game: Game


@runtime_checkable
class BatchOpponent(Protocol):
    """Decides for many games at once: one action per row of ``decisions``."""

    def act_batch(self, decisions: Decisions) -> np.ndarray: ...


OpponentSpec = Literal["random"] | Opponent | Callable[[Any, "State"], int]
BatchOpponentSpec = Literal["random"] | BatchOpponent | Callable[[np.ndarray, np.ndarray],
                                                                   np.ndarray]


def _did_you_mean(spec: str) -> str:
    """`` (did you mean 'random'?)`` for a slip of the one name environments build."""
    close = difflib.get_close_matches(spec.split(":", 1)[0][:40], ["random"], n=1)
    return f" (did you mean {close[0]!r}?)" if close else ""


class OpponentError(InputError, ValueError, TypeError):
    """An opponent an environment cannot use: a name other than ``'random'`` (environments
    build no agents by name), or neither an object of the protocol nor a callable."""


def _check(spec: Any, protocol: type, what: str, forms: str, build: str) -> Any:
    if isinstance(spec, str):
        if spec == "random":
            return spec
        raise OpponentError(f"opponent {excerpt(spec)}{_did_you_mean(spec)}: {what} takes "
                            f"{forms}, not names "
                            f"(only 'random' is built in); build this one with "
                            f"{build}({excerpt(spec)})")
    if isinstance(spec, protocol) or callable(spec):
        return spec
    raise OpponentError(f"an opponent is 'random', {forms} ({what}); got {excerpt(spec)}")


def opponent_count(count: int) -> str:
    """``1 opponent``, ``2 opponents`` (for a message)."""
    return f"{count} opponent{'' if count == 1 else 's'}"


def check_opponent(spec: Any) -> OpponentSpec:
    """``spec`` if an environment playing one game can use it, else a clear error."""
    return _check(spec, Opponent, "an environment",
                  "an object with act(observation, state) or a callable f(observation, state)",
                  "agents.make_agent")


def check_batch_opponent(spec: Any) -> BatchOpponentSpec:
    """``spec`` if a vector environment can use it, else a clear error."""
    return _check(spec, BatchOpponent, "a vector environment",
                  "an object with act_batch(decisions) or a callable f(obs, mask) -> actions",
                  "meduris_rl.agents.meduris.batch.make_batch_opponent")


def opponent_label(opponent: Any) -> str:
    """How records and errors name an opponent: its ``name``, else its type."""
    if isinstance(opponent, str):
        return opponent
    return str(getattr(opponent, "name", type(opponent).__name__))

"""The game-neutral kit: what every game of the project is built on and every tool relies on,
owned by no game (it imports none).

* :mod:`~meduris_rl.kit.protocol`: the Game/State protocol the tools call, ``CHANCE`` and
  ``TERMINAL``;
* :mod:`~meduris_rl.kit.errors`: the one error family (:class:`InputError`, the illegal action);
* :mod:`~meduris_rl.kit.values`: the one strict checker of user-given numbers;
* :mod:`~meduris_rl.kit.jsonfile`: the one bounded JSON reader (size, depth, integers, keys);
* :mod:`~meduris_rl.kit.atomic`: files written to a temporary file and renamed;
* :mod:`~meduris_rl.kit.seeding`: the one seed scheme (:func:`derive_seed`);
* :mod:`~meduris_rl.kit.loop`: the one loop that plays a game.

Games (``meduris_env``, ``druids_env``) import the kit and never each other; the agents, the
trainers and the command sit above them (docs/adding_a_game.md#one-import-root).
"""

from meduris_rl.kit.errors import IllegalActionError, InputError
from meduris_rl.kit.protocol import CHANCE, TERMINAL, Game, State

__all__ = ["CHANCE", "TERMINAL", "Game", "IllegalActionError", "InputError", "State"]

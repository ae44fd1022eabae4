"""The one error family: :class:`InputError` is the base of every error the project raises for
bad input, in every game and every tool.

Contract: whatever a user can get wrong (a board, state or record file, an action, a policy
file, a configuration, a command line, a web request) raises a subclass of :class:`InputError`
whose message is one clear line naming the problem (and, where there is one, the fix). The CLI
catches :class:`InputError` in one place and prints ``meduris: error: <message>`` without a
traceback; anything else that escapes is a bug.

Each subclass keeps its older base as well (``class BoardError(InputError, ValueError)``), so
code that catches ``ValueError`` keeps working. Control flow that is not an error of input
(``meduris_rl.agents.base.GameAbandoned``: a player quit) is deliberately outside the family.
Meduris's name for the base, ``meduris_env.MedurisError``, is this class (kept for code written
before the kit). It lives in the kit, the lowest layer, so every game and tool derives from it;
it imports nothing.
"""

from __future__ import annotations


class InputError(Exception):
    """The base of every error the project raises for bad input; the CLI catches it in one
    place and prints ``meduris: error: <message>``."""


class IllegalActionError(InputError, ValueError):
    """An action that is not legal in this state (the state is left unchanged). Every game's
    engine raises it or a subclass of it, so the one play loop (:mod:`meduris_rl.kit.loop`)
    names the agent for any game."""

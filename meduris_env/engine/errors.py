"""The one error family: :class:`MedurisError` is the base of every error the project raises
for bad input.

Contract: whatever a user can get wrong (a board, state or record file, an action, a policy
file, a configuration, a command line, a web request) raises a subclass of
:class:`MedurisError` whose message is one clear line naming the problem (and, where there is
one, the fix). The CLI catches :class:`MedurisError` in one place and prints
``meduris: error: <message>`` without a traceback; anything else that escapes is a bug.

Each subclass keeps its older base as well (``class BoardError(MedurisError, ValueError)``), so
code that catches ``ValueError`` keeps working. Control flow that is not an error of input
(``meduris_rl.agents.base.GameAbandoned``: a player quit) is deliberately outside the family.

It lives in the lowest layer (the engine) so every layer above can derive from it; it imports
nothing.
"""

from __future__ import annotations


class MedurisError(Exception):
    """The base of every error the project raises for bad input; the CLI catches it in one
    place and prints ``meduris: error: <message>``."""


class IllegalActionError(MedurisError, ValueError):
    """An action that is not legal in this state (the state is left unchanged). Every game's
    engine raises it or a subclass (Druids': ``druids_env.engine.errors.IllegalActionError``),
    so the one play loop (:mod:`meduris_env.engine.loop`) names the agent for any game."""

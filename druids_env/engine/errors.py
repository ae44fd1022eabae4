"""The errors of the Druids engine, in the project's one error family
(:class:`meduris_env.engine.errors.MedurisError`): each message is one line."""

from __future__ import annotations

from meduris_env.engine.errors import MedurisError


class DruidsError(MedurisError, ValueError):
    """Bad input to the Druids engine (a state file, a parameter)."""


class IllegalActionError(DruidsError):
    """An action that is not legal in this state (the state is left unchanged)."""


class StateFileError(DruidsError):
    """A Druids state in JSON that cannot be read back."""

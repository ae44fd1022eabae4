"""The errors of the Druids engine, in the project's one error family
(:class:`meduris_rl.kit.errors.InputError`): each message is one line."""

from __future__ import annotations

from meduris_rl.kit.errors import IllegalActionError as BaseIllegalActionError
from meduris_rl.kit.errors import InputError


class DruidsError(InputError, ValueError):
    """Bad input to the Druids engine (a state file, a parameter)."""


class IllegalActionError(DruidsError, BaseIllegalActionError):
    """An action that is not legal in this state (the state is left unchanged); the project's
    one :class:`meduris_rl.kit.errors.IllegalActionError`, so the shared play loop and
    every tool catch it as they catch Meduris's."""


class StateFileError(DruidsError):
    """A Druids state in JSON that cannot be read back."""

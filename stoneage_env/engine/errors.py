"""The errors of the Stone Age engine, in the project's one error family
(:class:`meduris_rl.kit.errors.InputError`): each message is one line."""

from __future__ import annotations

from meduris_rl.kit.errors import IllegalActionError as BaseIllegalActionError
from meduris_rl.kit.errors import InputError


class StoneAgeError(InputError, ValueError):
    """Bad input to the Stone Age engine (a parameter, a state file, a tile set)."""


class IllegalActionError(StoneAgeError, BaseIllegalActionError):
    """An action that is not legal in this state (the state is left unchanged); the project's
    one :class:`meduris_rl.kit.errors.IllegalActionError`, so the shared play loop and every
    tool catch it as they catch the other games'."""


class StateFileError(StoneAgeError):
    """A Stone Age state in JSON that cannot be read back."""


class ComponentsError(StoneAgeError):
    """A Mammoth tile set (or another components file) that cannot be used."""

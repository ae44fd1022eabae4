"""Meduris's errors are the kit's family (:mod:`meduris_rl.kit.errors`): its illegal action is
the kit's, and ``MedurisError``, the base's name before the kit, is the kit's
:class:`~meduris_rl.kit.errors.InputError` itself (so ``except MedurisError`` catches every
game's and every tool's input errors, as it did)."""

from __future__ import annotations

from meduris_rl.kit.errors import IllegalActionError, InputError

MedurisError = InputError

__all__ = ["IllegalActionError", "InputError", "MedurisError"]

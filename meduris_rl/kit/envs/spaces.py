"""An action space whose ``sample()`` plays legal moves.

Generic tools sample actions without a mask: gymnasium's and stable-baselines3's ``check_env``,
PettingZoo's ``max_cycles_test``, quick user loops. In Meduris most of the 241 action ids are
illegal at any moment and the environments raise on illegal actions, so a plain ``Discrete``
would make those tools crash. :class:`LegalActionSpace` *is* a ``Discrete(241)`` (``contains``,
``n``, equality and pickling are unchanged) whose ``sample()`` without a mask draws from the
actions legal now for the agent it belongs to. An explicit ``mask`` or ``probability`` is used as
given, exactly as in gymnasium.

:class:`LegalMultiDiscrete` is the same for a batch of games (the vector env's
``action_space``, a ``MultiDiscrete([241] * B)``): ``sample()`` draws, from the space's own
seeded generator, one action per game uniformly among that game's legal actions, and raises
:class:`NoLegalActionError` (one line naming the game) when a game has none.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from gymnasium import spaces

from meduris_rl.kit.errors import InputError


class NoLegalActionError(InputError, RuntimeError):
    """``sample()`` was asked for a legal action of a game that has none now."""


class _LinkedSpace:
    """A space linked to a live environment by the callable in its attribute named
    ``LINK``: the link is not part of the space's description, so it is not pickled."""

    LINK: str

    def __getstate__(self):
        state = dict(self.__dict__)
        state[self.LINK] = None
        return state


class LegalActionSpace(_LinkedSpace, spaces.Discrete):
    """``Discrete(n)``; ``sample()`` with no mask samples among ``legal_mask()``'s actions.

    ``legal_mask`` returns the current int8 mask, or ``None`` when its agent has no decision now
    (then the whole space is sampled, as ``Discrete`` would).
    """

    LINK = "_legal_mask"

    def __init__(self, n: int, legal_mask: Callable[[], np.ndarray | None], seed=None):
        super().__init__(n, seed=seed)
        self._legal_mask = legal_mask

    def sample(self, mask=None, probability=None):
        if mask is None and probability is None and self._legal_mask is not None:
            legal = self._legal_mask()
            if legal is not None and legal.any():
                mask = legal
        return super().sample(mask=mask, probability=probability)

    def __repr__(self) -> str:
        return f"LegalActionSpace({self.n})"


class LegalMultiDiscrete(_LinkedSpace, spaces.MultiDiscrete):
    """``MultiDiscrete(nvec)`` (a batch of ``Discrete`` choices); ``sample()`` with no mask
    draws, for every row ``j``, an action uniformly among the nonzero entries of row ``j`` of
    ``legal_masks()`` (a (B, n) array; ``None``: sample the whole space, as ``MultiDiscrete``
    would), from the space's generator (``seed()`` makes it deterministic). A row without a
    legal action raises :class:`NoLegalActionError`; ``legal_masks`` itself may raise one (e.g.
    before the games exist)."""

    LINK = "_legal_masks"

    def __init__(self, nvec, legal_masks: Callable[[], np.ndarray | None], seed=None):
        super().__init__(nvec, dtype=np.int64, seed=seed)
        self._legal_masks = legal_masks

    def sample(self, mask=None, probability=None):
        if mask is not None or probability is not None or self._legal_masks is None:
            return super().sample(mask=mask, probability=probability)
        masks = self._legal_masks()
        if masks is None:
            return super().sample()
        legal = np.asarray(masks) != 0
        counts = legal.sum(axis=1)
        if not counts.all():
            j = int(np.flatnonzero(counts == 0)[0])
            raise NoLegalActionError(f"game {j} has no legal action to sample now")
        pick = (self.np_random.random(len(counts)) * counts).astype(np.int64)  # < counts
        # the pick-th legal action of each row: the columns before it hold pick legal ones
        return (np.cumsum(legal, axis=1) <= pick[:, None]).sum(axis=1).astype(self.dtype)

    def __repr__(self) -> str:
        return f"LegalMultiDiscrete({self.nvec.tolist()[:3]}{'...' if len(self.nvec) > 3 else ''})"

"""An action space whose ``sample()`` plays legal moves.

Generic tools sample actions without a mask: gymnasium's and stable-baselines3's ``check_env``,
PettingZoo's ``max_cycles_test``, quick user loops. In Meduris most of the 241 action ids are
illegal at any moment and the environments raise on illegal actions, so a plain ``Discrete``
would make those tools crash. :class:`LegalActionSpace` *is* a ``Discrete(241)`` (``contains``,
``n``, equality and pickling are unchanged) whose ``sample()`` without a mask draws from the
actions legal now for the agent it belongs to. An explicit ``mask`` or ``probability`` is used as
given, exactly as in gymnasium.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from gymnasium import spaces


class LegalActionSpace(spaces.Discrete):
    """``Discrete(n)``; ``sample()`` with no mask samples among ``legal_mask()``'s actions.

    ``legal_mask`` returns the current int8 mask, or ``None`` when its agent has no decision now
    (then the whole space is sampled, as ``Discrete`` would).
    """

    def __init__(self, n: int, legal_mask: Callable[[], np.ndarray | None], seed=None):
        super().__init__(n, seed=seed)
        self._legal_mask = legal_mask

    def sample(self, mask=None, probability=None):
        if mask is None and probability is None and self._legal_mask is not None:
            legal = self._legal_mask()
            if legal is not None and legal.any():
                mask = legal
        return super().sample(mask=mask, probability=probability)

    def __getstate__(self):
        # the link to a live environment is not part of the space's description
        state = dict(self.__dict__)
        state["_legal_mask"] = None
        return state

    def __repr__(self) -> str:
        return f"LegalActionSpace({self.n})"

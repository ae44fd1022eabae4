"""What the games' State classes share beyond the protocol (:mod:`meduris_rl.kit.protocol`):
the checks of ``apply_action``'s arguments, the words of an illegal action, and the dunders
(copy, equality) of a state declared by a class attribute.

Contract: :func:`checked_action` is the one check of what ``apply_action`` was given (the seat,
the type, the id's range), in that order, with one line a problem; :func:`illegal_reason` is
the one wording of why a well-formed id is not legal now. A game calls them on its slow path
only (an exact ``int`` in range by the seat to move skips both: ``apply_action`` is a game
loop's hot path). :class:`StateDunders` makes ``deepcopy`` a ``clone()`` and compares two
states by the attributes it names; each game pickles its states as their ``to_json()`` text (a
few kB, checked on the way back) and prints them with its own text view.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from meduris_rl.kit.errors import IllegalActionError
from meduris_rl.kit.protocol import CHANCE, TERMINAL
from meduris_rl.kit.values import excerpt, unwrap_action


def checked_action(action: object, player: int | None, to_move: int, num_ids: int | None,
                   error: type[Exception] = IllegalActionError) -> int:
    """``action`` as an int id, or ``error`` (one line): when ``player`` is given and is not
    ``to_move``; when ``action`` is not an integer (a 0-d integer array, what
    Stable-Baselines3's ``predict`` returns, is one; bools are not); when it is not an id
    ``0 .. num_ids - 1`` (``num_ids`` None: any int, the game checks it)."""
    if player is not None and player != to_move:
        who = {CHANCE: "chance", TERMINAL: "nobody (the game is over)"}.get(
            to_move, f"seat {to_move}")
        raise error(f"seat {player} is not to move: {who} is")
    if type(action) is not int:
        action = unwrap_action(action)
        if isinstance(action, (bool, np.bool_)) or not isinstance(action, (int, np.integer)):
            raise error(f"an action is an int id, got {excerpt(action)}")
    a = int(action)
    if num_ids is not None and not 0 <= a < num_ids:  # (kernels take 64-bit numbers only)
        shown = a if a.bit_length() <= 64 else excerpt(a)
        raise error(f"action {shown} is not an action id (0..{num_ids - 1})")
    return a


def illegal_reason(state, a: int, kind: str, decision: str, num_actions: int,
                   to_string: Callable[[int], str], shown: int = 8) -> str:
    """Why the id ``a`` (``0 .. NUM_IDS - 1``; chance outcomes from ``num_actions`` on) is not
    legal in ``state`` now, in one line: the game is over; at a chance node (``kind`` names
    it), a player action or an impossible outcome; at a decision node (``decision``: who must
    decide what), a chance outcome or an action not legal now, with the first ``shown`` legal
    ones."""
    what = f"action {a} ({to_string(a)})"
    if state.to_move == TERMINAL:
        return f"{what}: the game is over"
    if state.to_move == CHANCE:
        if a < num_actions:
            return f"{what}: this is a chance node ({kind}); apply one of chance_outcomes()"
        return f"{what} is not a possible outcome of this chance node ({kind})"
    if a >= num_actions:
        return f"{what} is a chance outcome, but this is a decision node: {decision}"
    legal = ", ".join(to_string(x) for x in state.legal_actions()[:shown])
    return f"{what} is not legal now; {decision}; legal actions include: {legal}"


class StateDunders:
    """The dunders a game's state shares with every other (a base class beside
    :class:`~meduris_rl.kit.protocol.TurnState`), from its class attribute ``SAME``: the
    attributes two equal states of one game share (numpy arrays compared by value): ``==``.
    States are mutable, so unhashable.

    ``copy.deepcopy`` is ``clone()``: the logs are immutable and shared, and copying them link
    by link would recurse once per action (OpenSpiel clones python states with deepcopy).

    (``__reduce__``, pickling a state as its ``to_json()`` text, and ``__str__``, the state in
    words, are the game's own: each names its reader and its text view, so that the import
    contracts see those edges.)"""

    __slots__ = ()
    SAME: tuple[str, ...]

    def __deepcopy__(self, memo):
        return self.clone()

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, type(self)) or other.game != self.game:
            return False
        for name in self.SAME:
            mine, theirs = getattr(self, name), getattr(other, name)
            if not (np.array_equal(mine, theirs) if isinstance(mine, np.ndarray)
                    else mine == theirs):
                return False
        return True

    __hash__ = None  # type: ignore[assignment]


def seat_observation(state, seat: int, observation: Callable) -> dict[str, np.ndarray]:
    """``{"observation": observation(state, seat), "action_mask": ...}``: what ``seat`` sees
    and its int8 mask over the game's player actions, zero unless it is to move (the tools'
    and the environments' one observation of a game with one vector a seat)."""
    if state.current_player() == seat:
        mask = state.legal_action_mask()
    else:
        mask = np.zeros(state.game.num_distinct_actions(), dtype=np.int8)
    return {"observation": observation(state, seat), "action_mask": mask}

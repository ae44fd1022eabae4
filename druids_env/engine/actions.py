"""The flat action space of Druids: ids, their texts in the game's words, and the way back.

Player actions (decisions), the same ids for every player count:

==========  =====  ===========================================================================
ids         count  meaning
==========  =====  ===========================================================================
0           1      collect nothing                                              (D4)
1-6         6      collect place ``s`` (row slot ``s = id - 1``, shown 1-6)     (D4-D7)
7-330       324    play gem ``g`` above slot ``s``: ``7 + g * 6 + s``           (D8)
331-366     36     play own servant of value ``v`` under slot ``s``:
                   ``331 + (v - 1) * 6 + s``                                    (D8)
367         1      discard nothing                                              (D9)
368-421     54     discard gem ``g``: ``368 + g``                               (D9)
422, 423    2      draw from the gem deck, from the own servant set             (D10)
==========  =====  ===========================================================================

Chance outcomes have ids of their own after the player actions (OpenSpiel style):

==========  =====  ===========================================================================
424-435     12     place ``p`` revealed into the row (D3, D7)
436-489     54     gem ``g`` dealt or drawn (D3, D10)
490-495     6      servant of value ``v`` drawn from the set of the player concerned (D3, D10)
==========  =====  ===========================================================================

Texts (``action_to_string``) are those of the game: ``"collect place 3"``, ``"play red 7 above
place 2"``, ``"play servant 4 under place 5"``, ``"discard blue 1"``, ``"draw a gem"``,
``"place revealed: green II"``, ``"gem: white 9"``, ``"servant: 6"``. :func:`string_to_action`
reads them back (case and spacing ignored); it is the one decoder of texts.
"""

from __future__ import annotations

from .cards import (
    GEM_COLOURS,
    NUM_GEMS,
    NUM_PLACES,
    ROW_SIZE,
    SERVANT_VALUES,
    gem_name,
    place_colour,
    place_series,
)
from .errors import IllegalActionError

A_NO_COLLECT = 0
A_COLLECT = 1
A_PLAY_GEM = A_COLLECT + ROW_SIZE  # 7
A_PLAY_SERVANT = A_PLAY_GEM + NUM_GEMS * ROW_SIZE  # 331
A_NO_DISCARD = A_PLAY_SERVANT + SERVANT_VALUES * ROW_SIZE  # 367
A_DISCARD = A_NO_DISCARD + 1  # 368
A_DRAW_GEM = A_DISCARD + NUM_GEMS  # 422
A_DRAW_SERVANT = A_DRAW_GEM + 1  # 423
NUM_ACTIONS = A_DRAW_SERVANT + 1  # 424

C_PLACE = NUM_ACTIONS  # 424
C_GEM = C_PLACE + NUM_PLACES  # 436
C_SERVANT = C_GEM + NUM_GEMS  # 490
NUM_IDS = C_SERVANT + SERVANT_VALUES  # 496
NUM_CHANCE_OUTCOMES = NUM_IDS - NUM_ACTIONS  # 72


def collect_action(slot: int) -> int:
    return A_COLLECT + slot


def play_gem_action(card: int, slot: int) -> int:
    return A_PLAY_GEM + card * ROW_SIZE + slot


def play_servant_action(value: int, slot: int) -> int:
    return A_PLAY_SERVANT + (value - 1) * ROW_SIZE + slot


def discard_action(card: int) -> int:
    return A_DISCARD + card


def decode_play(action: int) -> tuple[bool, int, int]:
    """``(is_gem, gem id or servant value, slot)`` of a play action (D8)."""
    if action < A_PLAY_SERVANT:
        card, slot = divmod(action - A_PLAY_GEM, ROW_SIZE)
        return True, card, slot
    value, slot = divmod(action - A_PLAY_SERVANT, ROW_SIZE)
    return False, value + 1, slot


def _text(a: int) -> str:
    if a == A_NO_COLLECT:
        return "collect nothing"
    if a < A_PLAY_GEM:
        return f"collect place {a - A_COLLECT + 1}"
    if a < A_NO_DISCARD:
        is_gem, what, slot = decode_play(a)
        if is_gem:
            return f"play {gem_name(what)} above place {slot + 1}"
        return f"play servant {what} under place {slot + 1}"
    if a == A_NO_DISCARD:
        return "discard nothing"
    if a < A_DRAW_GEM:
        return f"discard {gem_name(a - A_DISCARD)}"
    if a == A_DRAW_GEM:
        return "draw a gem"
    if a == A_DRAW_SERVANT:
        return "draw a servant"
    if a < C_GEM:
        p = a - C_PLACE
        return f"place revealed: {GEM_COLOURS[place_colour(p)]} {'I' * (place_series(p) + 1)}"
    if a < C_SERVANT:
        return f"gem: {gem_name(a - C_GEM)}"
    return f"servant: {a - C_SERVANT + 1}"


TEXTS = tuple(_text(a) for a in range(NUM_IDS))
_BY_TEXT = {t.lower(): a for a, t in enumerate(TEXTS)}
assert len(_BY_TEXT) == NUM_IDS


def action_to_string(action: int) -> str:
    """The text of a player action or chance outcome id; ``"no such action"`` outside them."""
    return TEXTS[action] if 0 <= action < NUM_IDS else f"no such action ({action})"


def string_to_action(text: str) -> int:
    """The id whose text is ``text`` (case and spacing ignored); IllegalActionError if none."""
    key = " ".join(str(text).lower().split())
    if key.isdigit() and int(key) < NUM_IDS:
        return int(key)
    try:
        return _BY_TEXT[key]
    except KeyError:
        raise IllegalActionError(f"no Druids action reads {text!r} (e.g. 'collect place 2', "
                                 "'play red 7 above place 1', 'draw a gem')") from None

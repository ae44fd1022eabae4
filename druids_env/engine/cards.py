"""The cards of Druids (D1) and their integer encoding.

One id space for every card, so hands, piles and columns are plain lists of ints:

==========  =====  ===========================================================================
ids         count  card
==========  =====  ===========================================================================
0-53        54     gem: colour ``id // 9`` (:data:`GEM_COLOURS`), value ``id % 9 + 1`` (D1)
54-77       24     servant: owner (player colour) ``(id - 54) // 6``, value ``(id - 54) % 6 + 1``
==========  =====  ===========================================================================

Places (the 12 mystic places, D1) have ids of their own, 0-11: series ``id // 6`` (0 or 1) and
gem colour ``id % 6``. The gem colour names are this project's labels (the rulebook names only
black gems); the player colours are the rulebook's red, blue, black and green, seat ``s`` plays
``PLAYER_COLOURS[s]``.
"""

from __future__ import annotations

GEM_COLOURS = ("yellow", "red", "blue", "green", "black", "white")
PLAYER_COLOURS = ("red", "blue", "black", "green")
NUM_GEM_COLOURS = 6
GEM_VALUES = 9
NUM_GEMS = NUM_GEM_COLOURS * GEM_VALUES  # 54
SERVANT_VALUES = 6
MAX_PLAYERS = 4
NUM_SERVANTS = MAX_PLAYERS * SERVANT_VALUES  # 24 cards, 6 per colour in play
SERVANT_BASE = NUM_GEMS  # the id of the first servant card
NUM_CARDS = NUM_GEMS + NUM_SERVANTS  # 78
NUM_PLACES = 12
ROW_SIZE = 6  # places face up (D3)
HAND_LIMIT = 7  # D10
START_GEMS = 4  # D3
START_SERVANTS = 3  # D3
SCORING_CARDS = 6  # the column (D1, D12)
LAST_COLLECTION = NUM_PLACES - 1  # D11: eleven collections of twelve places


def is_gem(card: int) -> bool:
    return card < NUM_GEMS


def gem(colour: int, value: int) -> int:
    """The id of the gem of ``colour`` (0-5) and ``value`` (1-9)."""
    return colour * GEM_VALUES + value - 1


def gem_colour(card: int) -> int:
    return card // GEM_VALUES


def gem_value(card: int) -> int:
    return card % GEM_VALUES + 1


def servant(owner: int, value: int) -> int:
    """The id of ``owner``'s servant of ``value`` (1-6)."""
    return SERVANT_BASE + owner * SERVANT_VALUES + value - 1


def servant_owner(card: int) -> int:
    return (card - SERVANT_BASE) // SERVANT_VALUES


def servant_value(card: int) -> int:
    return (card - SERVANT_BASE) % SERVANT_VALUES + 1


def place_colour(place: int) -> int:
    return place % NUM_GEM_COLOURS


def place_series(place: int) -> int:
    return place // NUM_GEM_COLOURS


def gem_name(card: int) -> str:
    """``"red 7"``."""
    return f"{GEM_COLOURS[gem_colour(card)]} {gem_value(card)}"


def servant_name(card: int) -> str:
    """``"blue servant 4"`` (the owner's colour)."""
    return f"{PLAYER_COLOURS[servant_owner(card)]} servant {servant_value(card)}"


def card_name(card: int) -> str:
    return gem_name(card) if is_gem(card) else servant_name(card)


def place_name(place: int) -> str:
    """``"the red place (series II)"``."""
    return f"the {GEM_COLOURS[place_colour(place)]} place ({'I' * (place_series(place) + 1)})"

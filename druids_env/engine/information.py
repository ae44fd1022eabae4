"""What each player knows (D14): observations, perfect-recall information states, and the
determinisation an information-set search needs.

* :func:`observation_tensor` / :func:`observation_string`: a fixed-length float32 vector and a
  text of the position as ``seat`` knows it now. They read only what D14 makes public or private
  to ``seat``: never another hand, a face-down card ``seat`` did not play, a deck's or a
  servant set's order (the engine keeps no order: draws are chance nodes).
* :func:`information_state_string` / :func:`information_state_tensor`: everything ``seat`` has
  seen and done, in order (the event log with the fields hidden from ``seat`` blanked).
* :func:`resample_hidden`: a state consistent with all that ``seat`` knows, the hidden cards
  dealt again at random (see its docstring for what is exact and what is approximate).

Public by this project's reading of D14 (card backs): how many gems and how many servants each
hand holds, and which source each card was drawn from.
"""

from __future__ import annotations

import functools
import itertools
import random

import numpy as np

from .cards import (
    GEM_COLOURS,
    MAX_PLAYERS,
    NUM_GEMS,
    NUM_PLACES,
    PLAYER_COLOURS,
    ROW_SIZE,
    SERVANT_VALUES,
    card_name,
    is_gem,
    place_colour,
    place_name,
    place_series,
    servant,
    servant_owner,
    servant_value,
)
from .errors import DruidsError
from .events import KINDS, Event
from .rules import CHANCE, PHASE_NAMES, TERMINAL

SERVANT_ORDER = 8  # the owners of the first 8 servants under a place, in play order
_SLOT = 6 + 1 + 1 + 1 + NUM_GEMS + MAX_PLAYERS + SERVANT_VALUES + SERVANT_ORDER * MAX_PLAYERS
OBS_FIELDS = (  # (name, size), in order
    ("seat", MAX_PLAYERS), ("to_move", MAX_PLAYERS + 2), ("phase", len(PHASE_NAMES)),
    ("hand_gems", NUM_GEMS), ("hand_servants", SERVANT_VALUES), ("places", ROW_SIZE * _SLOT),
    ("hand_sizes", 4 * MAX_PLAYERS), ("decks", 4), ("scores", MAX_PLAYERS),
    ("own_discards", NUM_GEMS), ("removed", NUM_GEMS), ("collected", NUM_PLACES),
    ("turn", 2),
)
OBS_SIZE = sum(n for _, n in OBS_FIELDS)
INFO_WIDTH = 5  # an information-state row: kind + 1, then up to 4 fields (-1: hidden or none)
_FIELDS = {"place_revealed": ("slot", "place"), "gem_dealt": ("seat", "card"),
           "servant_dealt": ("seat", "card"), "turn": ("seat", "turn"),
           "collect_nothing": ("seat",), "collect": ("seat", "slot", "place"),
           "gem_revealed": ("slot", "card", "amulet"), "amulets": ("slot", "amulets"),
           "servant_revealed": ("slot", "card"), "share": ("seat", "card", "amulets", "score"),
           "column_moved": ("bottom", "top"), "place_removed": ("slot", "place"),
           "play_gem": ("seat", "slot", "card"), "play_servant": ("seat", "slot", "card"),
           "discard_nothing": ("seat",), "discard": ("seat", "card"),
           "draw_gem": ("seat", "card"), "draw_servant": ("seat", "card"), "game_end": ()}
_KIND_INDEX = {k: i for i, k in enumerate(KINDS)}


# --- observations ------------------------------------------------------------------------------
def _slot_features(st, seat: int, s: int) -> list[float]:
    out = [0.0] * _SLOT
    place = st.row[s]
    if place < 0:
        out[6] = 1.0
    else:
        out[place_colour(place)] = 1.0
        out[7] = float(place_series(place))
    out[8] = len(st.above[s]) / 10.0
    for card, who in st.above[s]:
        if who == seat:
            out[9 + card] = 1.0
    base = 9 + NUM_GEMS
    for k, card in enumerate(st.under[s]):
        owner = servant_owner(card)
        out[base + owner] += 1.0
        if owner == seat:
            out[base + MAX_PLAYERS + servant_value(card) - 1] = 1.0
        if k < SERVANT_ORDER:
            out[base + MAX_PLAYERS + SERVANT_VALUES + k * MAX_PLAYERS + owner] = 1.0
    return out


def observation_tensor(st, seat: int) -> np.ndarray:
    """The position as ``seat`` knows it (D14), a float32 vector of :data:`OBS_SIZE`
    (layout :data:`OBS_FIELDS`)."""
    n = st.game.num_players
    parts = []
    parts.append([float(s == seat) for s in range(MAX_PLAYERS)])
    cur = st.to_move
    parts.append([float(s == cur) for s in range(MAX_PLAYERS)] + [float(cur == CHANCE),
                                                                   float(cur == TERMINAL)])
    parts.append([float(st.phase == k) for k in range(len(PHASE_NAMES))])
    hand = st.hands[seat]
    gems = [0.0] * NUM_GEMS
    servants = [0.0] * SERVANT_VALUES
    for c in hand:
        if is_gem(c):
            gems[c] = 1.0
        else:
            servants[servant_value(c) - 1] = 1.0
    parts += [gems, servants]
    for s in range(ROW_SIZE):
        parts.append(_slot_features(st, seat, s))
    sizes = [0.0] * (4 * MAX_PLAYERS)
    for q in range(n):
        g = sum(1 for c in st.hands[q] if is_gem(c))
        sizes[q] = len(st.hands[q]) / 7.0
        sizes[MAX_PLAYERS + q] = g / 7.0
        sizes[2 * MAX_PLAYERS + q] = (len(st.hands[q]) - g) / 7.0
        sizes[3 * MAX_PLAYERS + q] = len(st.servant_sets[q]) / 6.0
    parts.append(sizes)
    parts.append([len(st.gem_deck) / NUM_GEMS, len(st.place_deck) / 6.0,
                  st.collections / 11.0, st.base / 30.0])
    parts.append([st.score[q] / 50.0 if q < n else 0.0 for q in range(MAX_PLAYERS)])
    own = [0.0] * NUM_GEMS
    for card, who in st.discards:
        if who == seat:
            own[card] = 1.0
    removed = [0.0] * NUM_GEMS
    for card in st.removed:
        removed[card] = 1.0
    collected = [0.0] * NUM_PLACES
    for p in st.collected:
        collected[p] = 1.0
    parts += [own, removed, collected, [st.turn / 100.0, st.idle / 4.0]]
    return np.fromiter(itertools.chain.from_iterable(parts), dtype=np.float32, count=OBS_SIZE)


def observation_string(st, seat: int) -> str:
    """The position in words as ``seat`` knows it (D14)."""
    n = st.game.num_players
    lines = [f"you are {PLAYER_COLOURS[seat]} (seat {seat}); turn {st.turn}, "
             f"{PHASE_NAMES[st.phase]}; to move: {_mover(st)}",
             "scores: " + ", ".join(f"{PLAYER_COLOURS[q]} {st.score[q]}" for q in range(n))
             + f"; the column runs from {st.base + 1} to {st.base + 6 * st.game.circles}",
             f"gem deck {len(st.gem_deck)}, place deck {len(st.place_deck)}, collections "
             f"{st.collections}"]
    for s in range(ROW_SIZE):
        lines.append(_slot_line(st, s, seat))
    for q in range(n):
        hand = st.hands[q]
        if q == seat:
            shown = ", ".join(card_name(c) for c in sorted(hand)) or "nothing"
        else:
            g = sum(1 for c in hand if is_gem(c))
            shown = f"{g} gems, {len(hand) - g} servants"
        lines.append(f"{PLAYER_COLOURS[q]} hand: {shown}; set {len(st.servant_sets[q])}")
    mine = [card_name(c) for c, who in st.discards if who == seat]
    lines.append(f"your discards: {', '.join(mine) or 'none'}")
    return "\n".join(lines)


def _mover(st) -> str:
    cur = st.to_move
    return {CHANCE: "chance", TERMINAL: "nobody (game over)"}.get(cur, PLAYER_COLOURS[cur]
                                                                  if cur >= 0 else "?")


def _slot_line(st, s: int, seat: int | None) -> str:
    if st.row[s] < 0:
        return f"place {s + 1}: empty"
    gems = [card_name(c) if seat is None or who == seat else f"{PLAYER_COLOURS[who]} gem ?"
            for c, who in st.above[s]]
    servants = [card_name(c) if seat is None or servant_owner(c) == seat
                else f"{PLAYER_COLOURS[servant_owner(c)]} servant ?" for c in st.under[s]]
    return (f"place {s + 1}: {place_name(st.row[s])}; above: {', '.join(gems) or '-'}; "
            f"under: {', '.join(servants) or '-'}")


def render(st) -> str:
    """The whole position in words (every card shown: for tools and tests, not for a
    player)."""
    n = st.game.num_players
    lines = [repr(st), "scores: " + ", ".join(str(x) for x in st.score)]
    lines += [_slot_line(st, s, None) for s in range(ROW_SIZE)]
    lines += [f"{PLAYER_COLOURS[q]} hand: " + ", ".join(card_name(c) for c in st.hands[q])
              for q in range(n)]
    return "\n".join(lines)


# --- information states ------------------------------------------------------------------------
def information_state_string(st, seat: int) -> str:
    """Everything ``seat`` has seen and done, in order, one event a line (D14)."""
    head = f"{PLAYER_COLOURS[seat]} (seat {seat}) of {st.game.num_players}"
    return "\n".join([head] + [ev.describe(seat) for ev in st.log_events])


def information_state_rows(st, seat: int) -> np.ndarray:
    """The events ``seat`` saw as an int array of rows (kind index + 1, then the fields in a
    fixed order per kind; -1 for a field hidden from ``seat`` or unused)."""
    out = np.full((len(st.log_events), INFO_WIDTH), -1, dtype=np.int32)
    for i, ev in enumerate(st.log_events):
        d = ev.seen_by(seat)
        out[i, 0] = _KIND_INDEX[ev.kind] + 1
        for j, name in enumerate(_FIELDS[ev.kind]):
            v = d.get(name)
            if v is not None:
                out[i, 1 + j] = v
    return out


def information_state_tensor(st, seat: int) -> np.ndarray:
    """:func:`information_state_rows` as a flat float32 vector, zero-padded to
    ``max_info_rows(game)`` rows when the game has a turn limit (the fixed length OpenSpiel
    wants; a row of zeros is padding since every real row has kind >= 1)."""
    rows = information_state_rows(st, seat).astype(np.float32)
    limit = max_info_rows(st.game)
    if limit > 0:
        pad = np.zeros((limit, INFO_WIDTH), dtype=np.float32)
        pad[:len(rows)] = rows
        rows = pad
    return rows.reshape(-1)


def max_info_rows(game) -> int:
    """A bound on the events of a game with a turn limit (-1 without one): the setup, then per
    turn at most 19 (a turn marker, a collection, its place removed, amulets, replacement, two
    plays, a discard, seven draws, and for each of the two cards played one reveal and one
    share), the column's moves (at most one per card's circles of all the gems' value) and the
    end."""
    if not game.max_turns:
        return -1
    n = game.num_players
    return ROW_SIZE + 7 * n + 19 * game.max_turns + 270 // game.circles + 1


# --- determinisation ---------------------------------------------------------------------------
def resample_hidden(st, seat: int, rng: random.Random, *, rewrite_log: bool = True):
    """A copy of ``st`` with every card ``seat`` cannot know dealt again at random,
    consistently with all that ``seat`` knows (D14): ``seat``'s observation and information
    state are the same in the copy, every public fact and every invariant hold, play goes on.

    Gems: the gems ``seat`` has not seen (other hands, others' face-down gems above the places
    and their discards, the gem deck) are shuffled among those positions: exactly uniform
    among the consistent deals (policies aside). Servants: for each other seat, the values of
    its servants in hand and under the places are drawn uniformly among the assignments that
    agree with every servant of it revealed since each card was drawn (a card drawn before a
    reveal cannot be one of the revealed cards). Which physical card was drawn when is kept
    from ``st`` (an approximation: the search samples among the deals with the true timing of
    those draws). The event log is rewritten to match, so the other seats' information
    states in the copy describe their own (new) cards. With ``rewrite_log=False`` the log is
    left as it is (its hidden fields then name the old cards; the same random numbers are
    drawn, so the position is the same): for a search that never reads the log, such as
    the IS-MCTS agent, which saves a third of the time here."""
    new = st.clone()
    gems = _resample_gems(new, seat, rng)
    at = {}  # event index -> the servant card that event now names
    for q in range(st.game.num_players):
        if q != seat:
            at.update(_resample_servants(new, q, rng))
    if rewrite_log:
        new.log_events = [_renamed(i, ev, gems, at) if ev.hidden else ev
                          for i, ev in enumerate(new.log_events)]
    return new


def _resample_gems(st, seat: int, rng: random.Random) -> dict:
    spots = []  # (list, index, seat or None) holding a gem unknown to `seat`
    for q, hand in enumerate(st.hands):
        if q != seat:
            spots += [(hand, i, None) for i, c in enumerate(hand) if is_gem(c)]
    for pile in st.above:
        spots += [(pile, i, who) for i, (_, who) in enumerate(pile) if who != seat]
    spots += [(st.discards, i, who) for i, (_, who) in enumerate(st.discards) if who != seat]
    old = [where[i] if who is None else where[i][0] for where, i, who in spots]
    pool = old + st.gem_deck
    rng.shuffle(pool)
    for (where, i, who), card in zip(spots, pool, strict=False):
        where[i] = card if who is None else (card, who)
    st.gem_deck = sorted(pool[len(spots):])
    return dict(zip(old, pool, strict=False))


def _resample_servants(st, q: int, rng: random.Random) -> dict:
    return relabel_servants(st, q, rng.randrange)


def relabel_servants(st, q: int, picker) -> dict:
    """Seat ``q``'s servants in hand and under the places, in place, given the values of one
    assignment that agrees with every reveal of ``q``'s servants since each card was drawn (D6,
    D14: a card drawn before a reveal cannot be one of the revealed cards); their draw and play
    times move with them, ``q``'s servant set holds the values left. The consistent assignments
    are the value tuples (one value per card: the cards in hand in hand order, then those under
    the places in row and play order) in lexicographic order, as
    ``itertools.permutations(range(1, 7), len(cards))`` lists them; ``picker(n)`` chooses the
    index of the one to take among the ``n`` (``rng.randrange``: uniform, what
    :func:`resample_hidden` uses; ``lambda n: 0``: the first, the IS-MCTS agent's canonical
    deal). Each is found by counting, without listing the ``n``. Returns, for the events of
    each card's present stay in hand and in play, event index -> the card it now names."""
    cards = [c for c in st.hands[q] if not is_gem(c)]
    cards += [c for pile in st.under for c in pile if servant_owner(c) == q]
    if not cards:
        return {}
    shown = [(i, servant_value(c)) for i, c in st.reveals if servant_owner(c) == q]
    allowed = []  # per card, a bit mask of the values it may have (bit v - 1)
    for c in cards:
        banned = 0
        for i, v in shown:
            if i > st.drawn_at[c]:
                banned |= 1 << (v - 1)
        allowed.append(0b111111 & ~banned)
    pick = _nth_assignment(allowed, picker)
    rename = {c: servant(q, v) for c, v in zip(cards, pick, strict=True)}
    drawn = {rename[c]: st.drawn_at[c] for c in cards}
    played = {rename[c]: st.played_at[c] for c in cards}
    for v in range(1, 7):
        c = servant(q, v)
        st.drawn_at[c] = drawn.get(c, -1)
        st.played_at[c] = played.get(c, -1)
    st.hands[q] = [rename.get(c, c) for c in st.hands[q]]
    st.under = [[rename.get(c, c) for c in pile] for pile in st.under]
    st.servant_sets[q] = [servant(q, v) for v in range(1, 7) if servant(q, v) not in drawn]
    out = {}
    for new in rename.values():  # the events of the card's present stay in hand or play
        out[drawn[new]] = new
        if played[new] >= 0:
            out[played[new]] = new
    return out


_BITS = [[1 << b for b in range(6) if mask >> b & 1] for mask in range(64)]  # ascending


def _nth_assignment(allowed: list[int], picker) -> list[int]:
    """Distinct values 1-6, the value of position ``k`` in the bit mask ``allowed[k]`` (bit
    ``v - 1``): the assignment of index ``picker(n)`` among the ``n`` in lexicographic order,
    found from the counts of the completions of each prefix (:func:`_completions`)."""
    k = len(allowed)
    ways = _completions(tuple(allowed))
    total = ways[0]
    if not total:
        raise DruidsError("no values of a seat's servants agree with the servants revealed "
                          "(a position edited by hand?)")
    index = picker(total)
    if not 0 <= index < total:
        raise DruidsError(f"picker chose assignment {index} of {total}")
    values, used = [], 0
    for pos in range(k):
        for bit in _BITS[allowed[pos] & ~used]:
            w = ways[used | bit] if pos + 1 < k else 1
            if index < w:
                values.append(bit.bit_length())
                used |= bit
                break
            index -= w
    return values


@functools.lru_cache(maxsize=4096)
def _completions(allowed: tuple[int, ...]) -> dict[int, int]:
    """For each set of values used by a prefix of the positions (a bit mask; its size says how
    many positions are filled, so at most 64 entries), the number of ways to complete it, each
    position ``k`` taking an unused value of ``allowed[k]``; ``[0]`` is the number of
    assignments. Cached: a search determinises the same position again and again. Read
    only."""
    k = len(allowed)
    memo: dict[int, int] = {}

    def ways(used: int, pos: int) -> int:
        if pos == k:
            return 1
        n = memo.get(used)
        if n is None:
            n = 0
            for bit in _BITS[allowed[pos] & ~used]:
                n += ways(used | bit, pos + 1)
            memo[used] = n
        return n

    ways(0, 0)
    return memo


_PRIVATE_GEM = frozenset(("gem_dealt", "draw_gem", "play_gem", "discard"))


def _renamed(i: int, ev: Event, gems: dict, servants: dict) -> Event:
    """The event ``i`` naming the card it names after a redeal: a gem by the gem's new
    identity (a gem has one story), a servant by the event index (a servant drawn again after a
    reveal has several; only the present one is redealt)."""
    if not ev.hidden:
        return ev
    card = ev.data["card"]
    new = gems.get(card, card) if ev.kind in _PRIVATE_GEM else servants.get(i, card)
    return ev if new == card else ev._replace(data={**ev.data, "card": new})


assert GEM_COLOURS


# --- a seat's position as JSON (what a cmd: bot is sent) ---------------------------------------
#: the fields of a Druids position that every seat knows (D14), as ``DruidsState.to_json``
#: names them
PUBLIC_FIELDS = ("phase", "seat", "turn", "setup_i", "replace_slot", "played",
                 "servant_played", "acted", "idle", "base", "collections", "end_reason", "row",
                 "removed", "collected", "score", "reveals")


def seat_state(st, seat: int) -> dict:
    """A Druids position as ``seat`` knows it (D14), for a ``cmd:`` bot
    (:mod:`meduris_rl.agents.plugins.external`): ``DruidsState.to_json`` with every card hidden from
    ``seat`` left out. The public fields as they are (:data:`PUBLIC_FIELDS`); ``above`` and
    ``under`` per place as ``[card, seat]`` pairs, the card ``null`` unless it is ``seat``'s (the
    owners are public); ``seat``'s own ``hand``, ``servant_set`` and ``discards``; of every seat the
    counts of gems and servants in hand, of its servant set and discards; the decks' sizes; the
    events with the fields hidden from ``seat`` null
    (:meth:`~druids_env.engine.events.Event.seen_by`). Never another hand, a face-down card of
    another seat, a deck, the history of action ids (a chance outcome names the card drawn) or the
    times cards were drawn."""
    n = st.game.num_players
    position = {key: getattr(st, key) for key in PUBLIC_FIELDS}
    position.update(
        above=[[[card if who == seat else None, who] for card, who in pile] for pile in st.above],
        under=[[[card if servant_owner(card) == seat else None, servant_owner(card)]
                for card in pile] for pile in st.under],
        hand=list(st.hands[seat]), servant_set=list(st.servant_sets[seat]),
        discards=[card for card, who in st.discards if who == seat],
        hand_gems=[sum(1 for c in st.hands[q] if is_gem(c)) for q in range(n)],
        hand_servants=[sum(1 for c in st.hands[q] if not is_gem(c)) for q in range(n)],
        servant_set_sizes=[len(st.servant_sets[q]) for q in range(n)],
        discard_counts=[sum(1 for _, who in st.discards if who == q) for q in range(n)],
        gem_deck_size=len(st.gem_deck), place_deck_size=len(st.place_deck))
    return {"game": "druids", "params": st.game.params(), "viewer": seat,
            "to_move": st.to_move, "position": position,
            "events": [[e.step, e.kind, e.seen_by(seat), e.owner, list(e.hidden)]
                       for e in st.log_events]}

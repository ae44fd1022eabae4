"""The one reader of Druids state files (``DruidsState.to_json`` text): every field checked, so
an impossible position is a :class:`~druids_env.engine.errors.StateFileError` of one line naming
the first problem, never a state that crashes later (issue 46, "every reader strict").

:func:`read_state` checks, in order:

* the text: parsed by :func:`meduris_rl.kit.jsonfile.parse_json` (size, nesting depth and
  64-bit integers bounded; NaN, Infinity and a key given twice refused);
* the keys: exactly those ``to_json`` writes, in the file and in its ``position``; the game's
  parameters (D2, the D12 ruling's circles, the turn limit);
* each field's type and range: integers are JSON integers (not booleans, not floats), flags are
  booleans, card ids are of the kind the field holds (gems above the places, servants under
  them, places in the row), a hand holds at most 7 cards (D10), decks and servant sets sorted
  (their order is hidden), the event log's kinds, fields and owners (:func:`event_problem`, also
  the check of the events of a game record), the history's action ids;
* conservation: each of the 54 gems and of the players' servants is in exactly one place (a
  hand, a pile above or under a place, the discards, the removed gems, the gem deck, its
  owner's set), each of the 12 places too (the row, the place deck, collected);
* the log and the position agree: each action of the history begins the events of its step,
  the turns follow each other clockwise, each collection reveals, shares out (D5, D6) and
  removes at its place, scores and the column (D12) add up, and the last turn's seat, flags
  and plays, the row, piles, discards, removed gems, places collected and revealed servants
  are what the log tells;
* the turn: the setup's cards as its schedule deals them (D3), the phase, seat, plays and flags
  of a turn consistent; then every invariant of :func:`druids_env.engine.invariants.check`
  (the last word); a chance node with a card to deal, ``to_move`` the seat, chance or nobody
  as the phase says, and nothing left that the engine takes by itself (a forced decision, an
  ended turn).

A position built by hand (tests, tools: the attributes set, then ``resettle()``) reads back as
long as it keeps all of this: its log tells only what happened since (its history need not
lead to it). What the log cannot check is left to it: the hidden cards it names (those dealt,
drawn, played face down and discarded, and the chance outcomes of the history that named
them) and the draw times of servants may be a redeal's
(:func:`~druids_env.engine.information.resample_hidden`), and a hand's order is no rule's.
"""

from __future__ import annotations

import functools
from typing import Any

from meduris_rl.kit.jsonfile import parse_json
from meduris_rl.kit.protocol import CHANCE, TERMINAL
from meduris_rl.kit.values import excerpt

from . import actions as A
from . import rules
from .actions import NUM_IDS
from .cards import (
    GEM_VALUES,
    HAND_LIMIT,
    LAST_COLLECTION,
    NUM_CARDS,
    NUM_GEMS,
    NUM_PLACES,
    ROW_SIZE,
    SCORING_CARDS,
    SERVANT_BASE,
    SERVANT_VALUES,
    START_GEMS,
    START_SERVANTS,
    card_name,
    gem_colour,
    gem_value,
    is_gem,
    place_colour,
    place_name,
    servant_owner,
    servant_value,
)
from .errors import StateFileError
from .events import PUBLIC, Event
from .invariants import check
from .state import POSITION, DruidsState

WHAT = "state file"
DOC_KEYS = ("game", "params", "to_move", "position", "history", "events")
PARAMS = ("num_players", "circles", "max_turns")
MAX_SCORE = sum(gem_value(g) for g in range(NUM_GEMS))  # 270: every gem's value an amulet
MAX_AMULETS = sum(range(1, GEM_VALUES + 1))  # 45: the gems of one colour at one place
#: the turns of a game with no turn limit, a bound (DruidsGame's MAX_TURNS_LIMIT: the game
#: module imports this one, not the other way round)
MAX_TURN = 100_000

#: kind -> {data field: what it holds} of each event (:mod:`druids_env.engine.events`)
EVENT_FIELDS = {
    "place_revealed": {"slot": "slot", "place": "place"},
    "gem_dealt": {"seat": "seat", "card": "gem"},
    "servant_dealt": {"seat": "seat", "card": "own servant"},
    "turn": {"seat": "seat", "turn": "turn"},
    "collect_nothing": {"seat": "seat"},
    "collect": {"seat": "seat", "slot": "slot", "place": "place"},
    "gem_revealed": {"slot": "slot", "card": "gem", "amulet": "flag"},
    "amulets": {"slot": "slot", "amulets": "amulets"},
    "servant_revealed": {"slot": "slot", "card": "servant"},
    "share": {"seat": "seat", "card": "own servant", "amulets": "amulets", "score": "score"},
    "column_moved": {"bottom": "circle", "top": "circle"},
    "place_removed": {"slot": "slot", "place": "place"},
    "play_gem": {"seat": "seat", "slot": "slot", "card": "gem"},
    "play_servant": {"seat": "seat", "slot": "slot", "card": "own servant"},
    "discard_nothing": {"seat": "seat"},
    "discard": {"seat": "seat", "card": "gem"},
    "draw_gem": {"seat": "seat", "card": "gem"},
    "draw_servant": {"seat": "seat", "card": "own servant"},
    "game_end": {"reason": "reason"},
}
#: the kinds whose card only their seat knows (D14): owner the seat, hidden ("card",)
PRIVATE = frozenset(("gem_dealt", "servant_dealt", "play_gem", "play_servant", "discard",
                     "draw_gem", "draw_servant"))
SETUP_PHASES = (rules.P_SETUP_PLACE, rules.P_DEAL_GEM, rules.P_DEAL_SERVANT)


def _fail(msg: str) -> None:
    raise StateFileError(f"{WHAT}: {msg}")


def _int(v: Any, where: str, low: int, high: int) -> int:
    """``v`` if it is a JSON integer (not a bool) in ``low..high``, else a StateFileError."""
    if type(v) is not int or not low <= v <= high:
        _fail(f"{where} must be an integer {low}..{high}, got {excerpt(v)}")
    return v


def _flag(v: Any, where: str) -> bool:
    if type(v) is not bool:
        _fail(f"{where} must be true or false, got {excerpt(v)}")
    return v


def _list(v: Any, where: str, length: int | None = None) -> list:
    if not isinstance(v, list):
        _fail(f"{where} must be a list, got {excerpt(v)}")
    if length is not None and len(v) != length:
        _fail(f"{where} must list {length} items, got {len(v)}")
    return v


def _ints(v: Any, where: str, low: int, high: int, length: int | None = None) -> list[int]:
    return [_int(x, f"{where}[{i}]", low, high) for i, x in enumerate(_list(v, where, length))]


def _keys(doc: Any, keys: tuple, where: str) -> dict:
    """``doc`` if it is an object of exactly ``keys``."""
    if not isinstance(doc, dict):
        _fail(f"{where} must be an object, got {excerpt(doc)}")
    missing = [k for k in keys if k not in doc]
    if missing:
        _fail(f"{where}: missing key(s) {missing}")
    extra = sorted(excerpt(k) for k in doc if k not in keys)
    if extra:
        _fail(f"{where}: unknown key(s) {', '.join(extra[:5])} (not written by to_json)")
    return doc


# --- the file ------------------------------------------------------------------------------------
def read_state(text: str | bytes, game=None, new_game=None) -> DruidsState:
    """The state ``DruidsState.to_json`` wrote as ``text``, for ``game`` (its parameters must be
    the file's) or, if None, for the game ``new_game(**params)`` makes of the file's parameters
    (``DruidsGame``); StateFileError (one line naming the first problem) for anything else."""
    doc = parse_json(text, StateFileError, WHAT)
    if not isinstance(doc, dict) or doc.get("game") != "druids":
        _fail("not a Druids state (a JSON object with \"game\": \"druids\", as "
              "DruidsState.to_json writes)")
    _keys(doc, DOC_KEYS, "the file")
    params = _keys(doc["params"], PARAMS, "params")
    for key in PARAMS:
        _int(params[key], f"params: {key}", 0, MAX_TURN)
    if game is None:
        try:
            game = new_game(**params)
        except ValueError as err:
            _fail(f"params: {err}")
    elif params != game.params():
        _fail(f"a state of Druids {params} cannot load into {game!r}")
    st = DruidsState(game)
    history = _ints(doc["history"], "history", 0, NUM_IDS - 1)
    bound = game.max_game_length()
    if 0 <= bound < len(history):
        _fail(f"history: {len(history)} actions, more than the {bound} a game of "
              f"{game.max_turns} turns can have")
    st.log_actions = history
    st.log_events = _events(doc["events"], game, len(history))
    _read_position(st, _keys(doc["position"], POSITION, "position"))
    _census(st)
    _servant_times(st)
    _log_steps(st)
    _log_tallies(st)
    _log_collections(st)
    _log_turns(st)
    _log_table(st)
    _turn(st)
    problems = check(st)  # (the engine's invariants: the last word on the position)
    if problems:
        _fail(f"position: {problems[0]}")
    _to_move(st, _int(doc["to_move"], "to_move", TERMINAL, game.num_players - 1))
    return st


def _events(rows: Any, game, steps: int) -> list[Event]:
    out = []
    last = -1
    for i, row in enumerate(_list(rows, "events")):
        if not isinstance(row, list) or len(row) != 5:
            _fail(f"events[{i}] must be [step, kind, data, owner, hidden], got {excerpt(row)}")
        step, kind, data, owner, hidden = row
        _int(step, f"events[{i}]: step", last, steps - 1)  # (in order: steps never go back)
        last = step
        problem = event_problem(kind, data, owner, hidden, game.num_players, game.circles)
        if problem:
            _fail(f"events[{i}]: {problem}")
        out.append(Event(step, kind, data, owner, tuple(hidden)))
    return out


def event_problem(kind: Any, data: Any, owner: Any, hidden: Any, n: int = 4,
                  circles: int = 100) -> str | None:
    """What is wrong with an event (``kind``, ``data``, ``owner``, ``hidden`` as read from
    JSON; ``hidden`` a list) of a game of ``n`` players, or None: its kind, the data fields of
    that kind with values in range, a servant's owner, and who knows it (D14). The check of the
    events of state files and of game records (:mod:`druids_env.records`)."""
    fields = EVENT_FIELDS.get(kind) if isinstance(kind, str) else None
    if fields is None:
        return f"unknown kind {excerpt(kind)}"
    if not isinstance(data, dict) or set(data) != set(fields):
        return f"{kind} needs the data fields {sorted(fields)}, got {excerpt(data)}"
    ranges = _ranges(n, circles)
    for name, what in fields.items():
        v = data[name]
        if what == "reason":
            if v not in rules.END_NAMES[1:]:
                return f"{kind}: reason must be one of {list(rules.END_NAMES[1:])}, " \
                       f"got {excerpt(v)}"
            continue
        low, high = ranges[what]
        if type(v) is not int or not low <= v <= high:
            return f"{kind}: {name} must be an integer {low}..{high}, got {excerpt(v)}"
    if fields.get("card") == "own servant" and servant_owner(data["card"]) != data["seat"]:
        return f"{kind}: {card_name(data['card'])} is not seat {data['seat']}'s servant"
    want = (data["seat"], ["card"]) if kind in PRIVATE else (PUBLIC, [])
    if type(owner) is not int or owner != want[0]:
        return f"{kind}: owner must be {want[0]} (the seat that knows it, -1: everyone), " \
               f"got {excerpt(owner)}"
    if hidden != want[1]:
        return f"{kind}: hidden must be {want[1]}, got {excerpt(hidden)}"
    return None


@functools.lru_cache(maxsize=64)
def _ranges(n: int, circles: int) -> dict[str, tuple[int, int]]:
    """What each kind of event field may hold, in a game of ``n`` players and ``circles``."""
    servants = (SERVANT_BASE, SERVANT_BASE + SERVANT_VALUES * n - 1)
    return {"seat": (0, n - 1), "slot": (0, ROW_SIZE - 1), "place": (0, NUM_PLACES - 1),
            "gem": (0, NUM_GEMS - 1), "servant": servants, "own servant": servants,
            "turn": (1, MAX_TURN), "flag": (0, 1), "amulets": (0, MAX_AMULETS),
            "score": (0, MAX_SCORE), "circle": (0, MAX_SCORE + SCORING_CARDS * circles)}


# --- the position's fields ---------------------------------------------------------------------
def _read_position(st: DruidsState, pos: dict) -> None:
    """Each field of ``pos`` checked by type and range, then set on ``st``."""
    game, n = st.game, st.game.num_players
    limits = {"phase": (0, rules.P_END), "seat": (0, n - 1),
              "turn": (0, game.max_turns or MAX_TURN), "setup_i": (0, len(st.schedule)),
              "replace_slot": (-1, ROW_SIZE - 1), "played": (0, 2), "idle": (0, n),
              "base": (0, MAX_SCORE), "collections": (0, LAST_COLLECTION),
              "end_reason": (0, len(rules.END_NAMES) - 1)}
    for name, (low, high) in limits.items():
        setattr(st, name, _int(pos[name], f"position: {name}", low, high))
    for name in ("servant_played", "acted"):
        setattr(st, name, _flag(pos[name], f"position: {name}"))
    if st.base % game.circles:
        _fail(f"position: base {st.base} is not on a scoring card's edge (D12 ruling: a "
              f"multiple of its {game.circles} circles)")
    top = SERVANT_BASE + SERVANT_VALUES * n - 1  # the last servant in play
    gems, servants, places, seats = (0, NUM_GEMS - 1), (SERVANT_BASE, top), \
        (0, NUM_PLACES - 1), (0, n - 1)
    st.row = _ints(pos["row"], "position: row", -1, NUM_PLACES - 1, ROW_SIZE)
    st.above = [_pairs(p, f"position: above[{s}]", gems, seats)
                for s, p in enumerate(_list(pos["above"], "position: above", ROW_SIZE))]
    st.under = [_ints(p, f"position: under[{s}]", *servants)
                for s, p in enumerate(_list(pos["under"], "position: under", ROW_SIZE))]
    st.hands = [_ints(h, f"position: hands[{q}]", 0, top)
                for q, h in enumerate(_list(pos["hands"], "position: hands", n))]
    for q, hand in enumerate(st.hands):
        if len(hand) > HAND_LIMIT:
            _fail(f"position: hands[{q}] holds {len(hand)} cards, more than the hand limit "
                  f"of {HAND_LIMIT} (D10)")
    st.servant_sets = [_ints(s, f"position: servant_sets[{q}]", *servants) for q, s in
                       enumerate(_list(pos["servant_sets"], "position: servant_sets", n))]
    st.gem_deck = _ints(pos["gem_deck"], "position: gem_deck", *gems)
    st.place_deck = _ints(pos["place_deck"], "position: place_deck", *places)
    for name, cards in [("gem_deck", st.gem_deck), ("place_deck", st.place_deck)] + [
            (f"servant_sets[{q}]", s) for q, s in enumerate(st.servant_sets)]:
        if cards != sorted(cards):
            _fail(f"position: {name} must be sorted (its order is hidden: a draw is a chance "
                  "node)")
    st.discards = _pairs(pos["discards"], "position: discards", gems, seats)
    st.removed = _ints(pos["removed"], "position: removed", *gems)
    st.collected = _ints(pos["collected"], "position: collected", *places)
    st.score = _ints(pos["score"], "position: score", 0, MAX_SCORE, n)
    _read_times(st, pos)


def _pairs(v: Any, where: str, first: tuple[int, int], second: tuple[int, int]) -> list:
    out = []
    for i, pair in enumerate(_list(v, where)):
        if not isinstance(pair, list) or len(pair) != 2:
            _fail(f"{where}[{i}] must be a pair of integers, got {excerpt(pair)}")
        out.append((_int(pair[0], f"{where}[{i}][0]", *first),
                    _int(pair[1], f"{where}[{i}][1]", *second)))
    return out


def _read_times(st: DruidsState, pos: dict) -> None:
    """``drawn_at``, ``played_at`` (per card: -1 or the event that drew or played that servant)
    and ``reveals`` (the servant_revealed events and their cards)."""
    events = st.log_events
    last = len(events) - 1
    for name, kinds in (("drawn_at", ("servant_dealt", "draw_servant")),
                        ("played_at", ("play_servant",))):
        times = _ints(pos[name], f"position: {name}", -1, last, NUM_CARDS)
        for card, at in enumerate(times):
            if at < 0:
                continue
            ev = events[at]
            if is_gem(card) or ev.kind not in kinds or servant_owner(card) != ev.data["seat"]:
                _fail(f"position: {name}[{card}] = {at}, but event {at} is not a "
                      f"{' or '.join(kinds)} of {card_name(card)}'s owner")
        setattr(st, name, times)
    st.reveals = _pairs(pos["reveals"], "position: reveals", (0, last),
                        (SERVANT_BASE, NUM_CARDS - 1))
    logged = [(i, ev.data["card"]) for i, ev in enumerate(events)
              if ev.kind == "servant_revealed"]
    if st.reveals != logged:
        pairs = enumerate(zip(st.reveals, logged, strict=False))
        at = next((i for i, (a, b) in pairs if a != b), min(len(logged), len(st.reveals)))
        _fail(f"position: reveals[{at}] is not servant_revealed event number {at + 1} of the "
              f"log ({len(logged)} servants revealed, {len(st.reveals)} listed)")


# --- conservation --------------------------------------------------------------------------------
def _census(st: DruidsState) -> None:
    """Every card in exactly one place (D1: 54 gems, 6 servants per player, 12 places), and a
    player's servants only in their hand or set (or under a place)."""
    n = st.game.num_players
    spots = [(f"hands[{q}]", h) for q, h in enumerate(st.hands)]
    spots += [(f"above[{s}]", [c for c, _ in p]) for s, p in enumerate(st.above)]
    spots += [(f"under[{s}]", p) for s, p in enumerate(st.under)]
    spots += [("discards", [c for c, _ in st.discards]), ("removed", st.removed),
              ("gem_deck", st.gem_deck)]
    spots += [(f"servant_sets[{q}]", s) for q, s in enumerate(st.servant_sets)]
    _once(spots, list(range(SERVANT_BASE + SERVANT_VALUES * n)), card_name, "card",
          "hands, above or under the places, discards, removed, gem_deck, servant_sets")
    _once([("row", [p for p in st.row if p >= 0]), ("place_deck", st.place_deck),
           ("collected", st.collected)], list(range(NUM_PLACES)), place_name, "place",
          "row, place_deck, collected")
    for name, lists in (("hands", st.hands), ("servant_sets", st.servant_sets)):
        for q, cards in enumerate(lists):
            other = next((c for c in cards if not is_gem(c) and servant_owner(c) != q), None)
            if other is not None:
                _fail(f"position: {name}[{q}] holds {card_name(other)}, another player's "
                      "servant")


def _once(spots: list, every: list[int], name, noun: str, fields: str) -> None:
    where: dict[int, str] = {}
    for spot, cards in spots:
        for c in cards:
            if c in where:
                again = f"twice in {spot}" if where[c] == spot else \
                    f"in {where[c]} and in {spot}"
                _fail(f"position: {name(c)} ({noun} {c}) is {again}: each {noun} is in one "
                      "place only")
            where[c] = spot
    lost = [c for c in every if c not in where]
    if lost:
        _fail(f"position: {name(lost[0])} ({noun} {lost[0]}) is missing: each {noun} is in "
              f"one of {fields}")


# --- the log and the position ------------------------------------------------------------------
def _servant_times(st: DruidsState) -> None:
    """A servant in a hand or under a place was drawn after it was last revealed (revealed, it
    went back to its owner's set, D7 ruling: to be in play again it was drawn again; what
    :func:`~druids_env.engine.information.resample_hidden` relies on), and one in a hand is
    not played."""
    shown = {}
    for at, card in st.reveals:
        shown[card] = at
    for where, cards in [(f"hands[{q}]", h) for q, h in enumerate(st.hands)] + [
            (f"under[{s}]", p) for s, p in enumerate(st.under)]:
        for c in cards:
            if not is_gem(c) and shown.get(c, -1) > st.drawn_at[c]:
                _fail(f"position: drawn_at[{c}]: {card_name(c)} in {where} was revealed (event "
                      f"{shown[c]}) after it was drawn (event {st.drawn_at[c]})")
            if where.startswith("hands") and not is_gem(c) and st.played_at[c] >= 0:
                _fail(f"position: played_at[{c}]: {card_name(c)} is in {where}, not played")


#: the kinds the first event of an action or outcome may have, by the lowest id of its range
#: (highest first; none: the choice of a draw's source, D10)
FIRST_KINDS = ((A.C_SERVANT, ("servant_dealt", "draw_servant")),
               (A.C_GEM, ("gem_dealt", "draw_gem")), (A.C_PLACE, ("place_revealed",)),
               (A.A_DRAW_GEM, ()), (A.A_DISCARD, ("discard",)),
               (A.A_NO_DISCARD, ("discard_nothing",)), (A.A_PLAY_SERVANT, ("play_servant",)),
               (A.A_PLAY_GEM, ("play_gem",)), (A.A_COLLECT, ("collect",)),
               (A.A_NO_COLLECT, ("collect_nothing",)))


def _first_kinds(a: int) -> tuple[str, ...]:
    return next(kinds for low, kinds in FIRST_KINDS if a >= low)


def _log_steps(st: DruidsState) -> None:
    """Each action of the history caused the events logged at its step: the first of them of
    its kind, at its place (public fields; the cards may be a redeal's,
    :func:`~druids_env.engine.information.resample_hidden`)."""
    first: dict[int, Event] = {}
    for ev in st.log_events:
        first.setdefault(ev.step, ev)
    for k, a in enumerate(st.log_actions):
        kinds, ev = _first_kinds(a), first.get(k)
        text = f"history[{k}] ({A.action_to_string(a)})"
        if ev is None or not kinds:
            if (ev is None) != (not kinds):
                _fail(f"{text} " + ("logs no event" if ev is None else f"logs '{ev.kind}'"))
            after = first.get(k + 1)
            source = "draw_gem" if a == A.A_DRAW_GEM else "draw_servant"
            if after is not None and after.kind != source:
                _fail(f"{text} is followed by '{after.kind}' (D10: a card of the source chosen)")
            continue
        if ev.kind not in kinds:
            _fail(f"{text} does not match its first event '{ev.kind}'")
        want = {"place_revealed": ("place", a - A.C_PLACE), "collect": ("slot", a - A.A_COLLECT),
                "play_gem": ("slot", (a - A.A_PLAY_GEM) % ROW_SIZE),
                "play_servant": ("slot", (a - A.A_PLAY_SERVANT) % ROW_SIZE)}.get(ev.kind)
        if want and ev.data[want[0]] != want[1]:
            _fail(f"{text} does not match its first event '{ev.kind}' ({want[0]} "
                  f"{ev.data[want[0]]})")


def _log_tallies(st: DruidsState) -> None:
    """The position agrees with the log where the log tells it (a position built by hand may
    tell less, :func:`_log_turns` and :func:`_log_table` too): each share's score the sum of
    the shares (D6), the column's moves one card at a time (D12) and its last one."""
    running = [0] * st.game.num_players
    c, base = st.game.circles, None
    for i, ev in enumerate(st.log_events):
        d = ev.data
        if ev.kind == "share":
            running[d["seat"]] += d["amulets"]
            if d["score"] != running[d["seat"]]:
                _fail(f"events[{i}]: share: score {d['score']}, not the {running[d['seat']]} "
                      f"amulets shared out to seat {d['seat']} (D6)")
        elif ev.kind == "column_moved":
            if (d["bottom"] - 1) % c or d["top"] != d["bottom"] - 1 + SCORING_CARDS * c or \
                    base is not None and d["bottom"] - 1 != base + c:
                _fail(f"events[{i}]: column_moved: the column cannot move to {d['bottom']}.."
                      f"{d['top']} (D12: one card of {c} circles at a time)")
            base = d["bottom"] - 1
    if base is not None and base != st.base:
        _fail(f"position: base {st.base}, but the column last moved to {base + 1} (D12)")


def _log_collections(st: DruidsState) -> None:
    """Each collection of the log at its place (D5-D7): the gems revealed there, each an amulet
    when of the place's colour, the servants revealed there sharing in their order (lowest
    value first, equal values in play order, D6; the moving column may end it early, D12), the
    place removed from its slot, and the place laid next at that slot (D7)."""
    at = None  # (slot, place) of the collection being read
    emptied = None  # the slot last emptied: a place laid in a turn goes there
    for i, ev in enumerate(st.log_events):
        d, kind = ev.data, ev.kind
        if kind == "collect":
            at, servants, shares = (d["slot"], d["place"]), [], []
            continue
        if kind == "place_revealed" and emptied is not None:
            if d["slot"] != emptied:
                _fail(f"events[{i}]: place_revealed at slot {d['slot']}, not at slot {emptied} "
                      "emptied by the collection (D7)")
            emptied = None
        if at is None or kind not in ("gem_revealed", "amulets", "servant_revealed", "share",
                                      "place_removed"):
            continue
        if kind == "share":
            shares.append(d["card"])
            order = sorted(servants, key=lambda c: (servant_value(c), servants.index(c)))
            if shares != order[:len(shares)]:
                _fail(f"events[{i}]: share of {card_name(d['card'])} out of the order of the "
                      "servants revealed (D6: lowest value first)")
            continue
        if d["slot"] != at[0] or kind == "place_removed" and d["place"] != at[1]:
            _fail(f"events[{i}]: {kind} at slot {d['slot']} in the collection of slot {at[0]}")
        if kind == "gem_revealed" and d["amulet"] != (gem_colour(d["card"]) ==
                                                      place_colour(at[1])):
            _fail(f"events[{i}]: gem_revealed: amulet {d['amulet']}, but {card_name(d['card'])} "
                  f"is {'not ' if d['amulet'] else ''}of the place's colour (D5)")
        elif kind == "servant_revealed":
            servants.append(d["card"])
        elif kind == "place_removed":
            at, emptied = None, d["slot"]


TURN_KINDS = frozenset(("collect_nothing", "collect", "play_gem", "play_servant",
                        "discard_nothing", "discard", "draw_gem", "draw_servant"))
ACTS = frozenset(("collect", "play_gem", "play_servant", "draw_gem", "draw_servant"))


def _log_turns(st: DruidsState) -> None:
    """The turns of the log: each the next seat's (D3: clockwise) and numbered on, its
    decisions the seat's own; the last one's seat and turn, what it did (``acted``,
    ``played``, ``servant_played``), the rounds without play (``idle``, D11b), the end."""
    n = st.game.num_players
    seat = turn = idle = None
    acts = plays = servants = 0
    ends = []
    for i, ev in enumerate(st.log_events):
        d = ev.data
        if ev.kind == "turn":
            if turn is not None and (d["turn"], d["seat"]) != (turn + 1, (seat + 1) % n):
                _fail(f"events[{i}]: turn {d['turn']} of seat {d['seat']} does not follow turn "
                      f"{turn} of seat {seat} (D3: clockwise)")
            idle = 0 if d["turn"] == 1 else None if idle is None else 0 if acts else idle + 1
            seat, turn, acts, plays, servants = d["seat"], d["turn"], 0, 0, 0
        elif ev.kind == "game_end":
            ends.append(d["reason"])
        elif ev.kind in TURN_KINDS and seat is not None:
            if d["seat"] != seat:
                _fail(f"events[{i}]: {ev.kind} of seat {d['seat']} in seat {seat}'s turn")
            acts += ev.kind in ACTS
            plays += ev.kind in ("play_gem", "play_servant")
            servants += ev.kind == "play_servant"
    if ends and (len(ends) > 1 or ends[0] != rules.END_NAMES[st.end_reason]):
        _fail(f"position: end_reason {st.end_reason} ({rules.END_NAMES[st.end_reason]}), but "
              f"the log ends the game {len(ends)} time(s): {ends[-1]}")
    if turn is None:
        return
    if idle is not None and st.phase == rules.P_END and \
            st.end_reason in (rules.END_STALL, rules.END_TRUNCATED):
        idle = 0 if acts else idle + 1  # (the last turn ended, then the game)
    tally = {"seat": (st.seat, seat), "turn": (st.turn, turn), "acted": (st.acted, acts > 0),
             "played": (st.played, plays), "servant_played": (st.servant_played, servants > 0),
             "idle": (st.idle, st.idle if idle is None else idle)}
    for name, (got, logged) in tally.items():
        if got != logged:
            _fail(f"position: {name} is {got}, the log of turn {turn} tells {logged}")


def _log_table(st: DruidsState) -> None:
    """The table as the log tells it: the place of each slot of the row laid or removed, the
    cards played to each place since it was last collected (their seats: the cards may be a
    redeal's), the places collected, the gems revealed and the discards' seats (D7-D9), the
    slot last replaced. A log from the setup on (the engine's) tells all of it; a position
    built by hand tells the end of each."""
    row: dict[int, int] = {}
    piles: dict[str, dict[int, list[int]]] = {"above": {}, "under": {}}
    laid, collected, revealed, discards, replaced = [], [], [], [], None
    started = False  # (a turn began: a place laid now replaces one, D7)
    complete = st.setup_i < len(st.schedule)
    for ev in st.log_events:
        d, kind = ev.data, ev.kind
        if kind in ("place_revealed", "place_removed"):
            row[d["slot"]] = d["place"] if kind == "place_revealed" else -1
            piles["above"][d["slot"]], piles["under"][d["slot"]] = [], []
            replaced = d["slot"] if kind == "place_revealed" and started else replaced
            laid += [d["slot"]] if kind == "place_revealed" and not started else []
        elif kind in ("play_gem", "play_servant"):
            pile = piles["above" if kind == "play_gem" else "under"]
            pile.setdefault(d["slot"], []).append(d["seat"])
        started |= kind == "turn"
        complete |= kind == "turn" and d["turn"] == 1
        collected += [d["place"]] if kind == "collect" else []
        revealed += [d["card"]] if kind == "gem_revealed" else []
        discards += [d["seat"]] if kind == "discard" else []

    def told(have: list, logged: list) -> bool:
        return have == logged if complete else have[len(have) - len(logged):] == logged

    seats = {"above": [[who for _, who in p] for p in st.above],
             "under": [[servant_owner(c) for c in p] for p in st.under]}
    for name, logged in piles.items():
        for slot in range(ROW_SIZE):
            if (complete or slot in logged) and not told(seats[name][slot], logged.get(slot, [])):
                _fail(f"position: {name}[{slot}] is not as the log tells the cards played there")
    if st.phase == rules.P_REPLACE and st.log_events:
        last = st.log_events[-1]
        replaced = last.data["slot"] if last.kind == "place_removed" else -2  # (none)
    if complete and replaced is None:
        replaced = -1
    checks = [(laid == list(range(len(laid))) or not complete, "row", "the setup (D3)"),
              (all(st.row[s] == row.get(s, -1 if complete else st.row[s])
                   for s in range(ROW_SIZE)), "row", "the places laid out"),
              (told(st.collected, collected), "collected", "the places collected"),
              (told(st.removed, revealed), "removed", "the gems revealed"),
              (told([w for _, w in st.discards], discards), "discards",
               "the seats that discarded"),
              (replaced is None or replaced == st.replace_slot, "replace_slot",
               "the slot last replaced")]
    for ok, field, what in checks:
        if not ok:
            _fail(f"position: {field} is not as the log tells {what}")


# --- the turn ----------------------------------------------------------------------------------
def _turn(st: DruidsState) -> None:
    """The phase, seat, counters and flags as a turn has them (D3-D11)."""
    n = st.game.num_players
    if st.setup_i < len(st.schedule):
        _setup(st)
        return
    name = rules.PHASE_NAMES[st.phase]
    if st.phase in SETUP_PHASES:
        _fail(f"position: phase {st.phase} ({name}) after the setup (setup_i {st.setup_i})")
    over = st.phase == rules.P_END
    rule = [
        (st.turn >= 1, "turn", "turn 0 after the setup: the first turn is 1"),
        (over == (st.end_reason != rules.END_NONE), "end_reason",
         f"end_reason {st.end_reason} in phase '{name}'"),
        ((st.idle == n) == (st.end_reason == rules.END_STALL), "idle",
         f"idle {st.idle}: a round of {n} turns without play ends the game (D11b), and only "
         "that"),
        (st.collections <= st.turn, "collections",
         f"{st.collections} collections in {st.turn} turns (one a turn at most, D4)"),
        (st.played >= 1 or not st.servant_played, "servant_played",
         "servant_played with no card played"),
        (st.phase not in (rules.P_COLLECT, rules.P_REPLACE) or st.played == 0, "played",
         f"{st.played} cards played before the collection (D4: it comes first)"),
        (st.phase != rules.P_COLLECT or not st.acted, "acted", "acted before the collection"),
        (st.phase != rules.P_PLAY or st.played < 2, "played", "two cards played, still to play"),
    ]
    for ok, field, words in rule:
        if not ok:
            _fail(f"position: {field}: {words}")
    empty = [s for s in range(ROW_SIZE) if st.row[s] < 0]
    if st.phase == rules.P_REPLACE and (st.replace_slot < 0 or st.row[st.replace_slot] >= 0):
        _fail(f"position: replace_slot {st.replace_slot} is not an empty slot of the row to "
              "lay a place at (D7)")
    allowed = [st.replace_slot] if st.phase == rules.P_REPLACE else empty if over else []
    if st.place_deck and (empty != allowed or len(empty) > 1):
        _fail(f"position: row: slot(s) {empty} empty while the place deck has cards (D7: an "
              "emptied place is replaced at once)")


def _setup(st: DruidsState) -> None:
    """D3: the places, gems and servants dealt so far by the schedule, nothing else done."""
    n, i = st.game.num_players, st.setup_i
    phase = st.schedule[i][0]
    fixed = {"phase": phase, "seat": 0, "turn": 0, "replace_slot": -1, "played": 0,
             "servant_played": False, "acted": False, "idle": 0, "base": 0, "collections": 0,
             "end_reason": rules.END_NONE}
    for name, value in fixed.items():
        if getattr(st, name) != value:
            _fail(f"position: {name} is {getattr(st, name)} at setup step {i} (D3: must be "
                  f"{value})")
    for name in ("above", "under"):
        if any(getattr(st, name)):
            _fail(f"position: {name}: a card on the table during the setup (D3)")
    for name in ("discards", "removed", "collected"):
        if getattr(st, name):
            _fail(f"position: {name} is not empty during the setup (D3)")
    for s in range(ROW_SIZE):
        if (st.row[s] >= 0) != (s < i):
            _fail(f"position: row: {i} setup steps lay out {min(i, ROW_SIZE)} places, slot "
                  f"{s} is {'empty' if st.row[s] < 0 else 'laid'}")
    for q, hand in enumerate(st.hands):
        gems = min(max(i - ROW_SIZE - START_GEMS * q, 0), START_GEMS)
        servants = min(max(i - ROW_SIZE - START_GEMS * n - START_SERVANTS * q, 0),
                       START_SERVANTS)
        got = sum(1 for c in hand if is_gem(c))
        if (got, len(hand) - got) != (gems, servants):
            _fail(f"position: hands[{q}] holds {got} gems and {len(hand) - got} servants at "
                  f"setup step {i} (D3: {gems} and {servants})")


def _to_move(st: DruidsState, to_move: int) -> None:
    """``to_move`` as the phase says; a chance node with cards to deal; nothing left undone
    that the engine does by itself (a state as ``apply_action`` leaves it)."""
    phase = st.phase
    who = TERMINAL if phase == rules.P_END else CHANCE if phase in rules.CHANCE_PHASES \
        else st.seat
    if to_move != who:
        words = {CHANCE: "chance", TERMINAL: "nobody"}.get(who, f"seat {who}")
        _fail(f"to_move is {to_move}, but in phase '{rules.PHASE_NAMES[phase]}' {words} is to "
              f"move ({who})")
    if phase in (rules.P_DRAW_GEM, rules.P_DRAW_SERVANT) and \
            len(st.hands[st.seat]) >= HAND_LIMIT:
        _fail(f"position: hands[{st.seat}] is full ({HAND_LIMIT} cards, D10) but draws a card")
    if phase in rules.CHANCE_PHASES and not rules.chance_ids(st):
        _fail(f"position: nothing left to deal at the chance node "
              f"'{rules.PHASE_NAMES[phase]}' (an empty deck or servant set)")
    st.to_move = to_move
    probe = st.clone()
    probe.to_move = rules.advance(probe)
    if probe != st:
        _fail(f"position: phase '{rules.PHASE_NAMES[phase]}' of seat {st.seat} is not a "
              "decision left to take: the engine takes it by itself (a forced decision or an "
              "ended turn)")

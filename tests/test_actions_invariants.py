"""One action decoder and one invariant checker (issue 26, items 4 and 6).

``decode_action`` is the only place an id is decoded by its range: every id decodes to a typed
:class:`Action` whose fields build the id again, the canonical strings are made from it, and the
view and the terminal player read it (they import no range constant). ``invariants`` is the only
position checker: every invariant can be planted and is caught, named in words, and a state file
that breaks it is refused with those words."""

import ast
import json
import random
from pathlib import Path

import numpy as np
import pytest
from helpers import new_game, random_action

from meduris_env import MedurisGame, StateFileError, load_state
from meduris_env.engine import invariants as inv
from meduris_env.engine.actions import (
    ACTION_STRINGS,
    KINDS,
    Action,
    action_to_string,
    big_yield_action,
    chip_outcome,
    decode_action,
    exchange_action,
)
from meduris_env.engine.constants import (
    HUT,
    HUTS,
    HUTS_BY_PLAYERS,
    MAX_PLAYERS,
    NUM_ACTIONS,
    NUM_IDS,
    PH_QUEUE,
    Q_OFFER,
    STAGE_SETUP,
    WORKERS,
    WORKERS_BY_PLAYERS,
)
from meduris_env.engine.layout import OFFSETS
from meduris_env.render.view import action_target

REPO = Path(__file__).resolve().parent.parent


# --- the action decoder --------------------------------------------------------------------------
def rebuilt(act: Action) -> int:
    """The id an action's fields name, built by the encoders (not by decode_action)."""
    k = act.kind
    simple = {"place": ("plain", 0), "take": ("material", 4), "return": ("material", 8),
              "hut": ("field", 60), "temple": ("field", 108), "offer": ("choice", 156),
              "roll": ("face", 241), "start": ("seat", 391)}
    if k in simple:
        name, first = simple[k]
        return first + getattr(act, name)
    if k == "move":
        return big_yield_action(act.plain, act.level, act.to)
    if k == "exchange":
        return exchange_action(act.give, act.material)
    assert k == "chip"
    return chip_outcome(act.field, act.chip)


def test_every_id_decodes_to_a_typed_action_that_builds_it_again():
    seen = []
    for a in range(NUM_IDS):
        act = decode_action(a)
        assert isinstance(act, Action) and act.id == a and act.kind in KINDS
        assert rebuilt(act) == a, act
        assert act.is_chance == (a >= NUM_ACTIONS)
        named = {f for f in Action._fields[2:] if getattr(act, f) is not None}
        assert named, act  # every kind names at least one number
        if not seen or seen[-1] != act.kind:
            seen.append(act.kind)
    assert tuple(seen) == KINDS  # each kind is one contiguous range, in id order
    counts = {k: sum(decode_action(a).kind == k for a in range(NUM_IDS)) for k in KINDS}
    assert counts == {"place": 4, "take": 4, "return": 4, "move": 48, "hut": 48, "temple": 48,
                      "offer": 5, "exchange": 80, "roll": 6, "chip": 144, "start": 4}


@pytest.mark.parametrize("a,kind,fields,text", [
    (2, "place", {"plain": 2}, "place worker on copper"),
    (7, "take", {"material": 3}, "take stone"),
    (8, "return", {"material": 0}, "return wood"),
    (12 + (1 * 3 + 2) * 4 + 3, "move", {"plain": 1, "level": 2, "to": 3},
     "move worker from wool level 2 to stone"),
    (67, "hut", {"field": 7}, "build hut on field 7"),
    (108 + 47, "temple", {"field": 47}, "build temple on field 47"),
    (160, "offer", {"choice": 4}, "offer druid chip"),
    (161 + 4 * 4 + 2, "exchange", {"give": (0, 1, 1), "material": 2},
     "exchange wood+wool+wool for copper"),
    (246, "roll", {"face": 5}, "roll -1"),
    (247 + 10 * 3 + 2, "chip", {"field": 10, "chip": 3}, "bonus chip druid on field 10"),
    (394, "start", {"seat": 3}, "start player 3"),
])
def test_decoded_fields_and_words(a, kind, fields, text):
    act = decode_action(np.int64(a))  # numpy ids too
    assert act.kind == kind and {f: getattr(act, f) for f in fields} == fields
    assert action_to_string(a) == ACTION_STRINGS[a] == text


def test_bad_ids_are_refused_in_one_line():
    for bad in (-1, NUM_IDS, 10**9):
        with pytest.raises(ValueError, match=rf"action id {bad} is outside 0\.\.{NUM_IDS - 1}"):
            decode_action(bad)
    with pytest.raises(TypeError, match="an action id is an int"):
        decode_action("hut")
    with pytest.raises(ValueError, match="not a player action"):
        action_target(NUM_ACTIONS)


def test_click_targets_come_from_the_decoded_action():
    for a in range(NUM_ACTIONS):
        act, target = decode_action(a), action_target(a)
        assert target["kind"] == act.kind
        for name, value in target.items():
            if name not in ("kind", "target"):
                assert getattr(act, name) == value, (a, name)
    assert action_target(12 + (2 * 3 + 1) * 4) == {"kind": "move", "target": "worker:2:1",
                                                   "plain": 2, "level": 1, "to": 0}


RANGE_NAMES = {"A_PLACE", "A_TAKE", "A_RETURN", "A_YIELD", "A_HUT", "A_TEMPLE", "A_OFFER",
               "A_EXCHANGE", "C_DIE", "C_CHIP", "C_START"}


@pytest.mark.parametrize("path", ["meduris_env/render/view.py", "agents/meduris/human.py"])
def test_the_view_and_the_terminal_decode_no_ranges_of_their_own(path):
    tree = ast.parse((REPO / path).read_text())
    used = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
    used |= {a.name for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) for a in n.names}
    assert not used & RANGE_NAMES, sorted(used & RANGE_NAMES)
    assert "decode_action" in used


def test_per_player_count_arrays_match_R1():
    for p in range(MAX_PLAYERS + 1):
        assert HUTS_BY_PLAYERS[p] == HUTS.get(p, 0) and WORKERS_BY_PLAYERS[p] == WORKERS.get(p, 0)


# --- the invariant checker -----------------------------------------------------------------------
def midgame():
    """A 3-player position in the middle of a turn, with a decision due and empty fields."""
    st = MedurisGame(3).new_initial_state()
    rng = random.Random(11)
    while not (st.turn >= 6 and st.phase == PH_QUEUE and st.stage != STAGE_SETUP
               and st.current_player() >= 0):
        st.apply_action(random_action(st, rng))
    return st


def _set(a, name, index, value):
    start, shape = OFFSETS[name]
    a[start + (int(np.ravel_multi_index(index, shape)) if shape else 0)] = value


def plants(st):
    """bit -> (a way to break exactly that invariant, words its message holds)."""
    occ = st.board_occupant[:st.num_fields]
    empty = int(np.flatnonzero(occ == 0)[0])
    plain = int(np.flatnonzero(st.stacks[:, 0] >= 0)[0])
    top = int(np.sum(st.stacks[plain] >= 0)) - 1
    head, length = int(st.queue_head), int(st.queue_len)
    seat = st.current_player()
    return {
        inv.PARAMS: (lambda a: _set(a, "num_players", (), 7), "num_players must be"),
        inv.HOLDINGS: (lambda a: _set(a, "materials", (1, 2), -1), "materials must be >= 0"),
        inv.SUPPLY_RANGE: (lambda a: _set(a, "supply", (0,), 19), "each supply in 0..18"),
        inv.IDLE_MATERIALS: (lambda a: _set(a, "materials", (3, 0), 1),
                             "seats beyond num_players"),
        inv.MATERIALS_CONSERVED: (lambda a: _set(a, "supply", (1,), st.supply[1] + 1
                                                 if st.supply[1] < 18 else 17), "not conserved"),
        inv.VP_FLOOR: (lambda a: _set(a, "vp", (1,), -1), "VP below 0"),
        inv.VP_RANGE: (lambda a: _set(a, "vp", (3,), 2), "VP for seats that do not play"),
        inv.OCCUPANTS: (lambda a: _set(a, "bonus_chip", (47,), 1), "board_occupant"),
        inv.OWNERS: (lambda a: _set(a, "board_owner", (empty,), 0), "board_owner"),
        inv.CHIP_PLACES: (lambda a: _set(a, "bonus_chip", (empty,), 4), "bonus chips"),
        inv.CHIP_COUNT: (lambda a: _set(a, "chips_to_place", (0,), 3), "more than 2 bonus"),
        inv.PIECES: (lambda a: _set(a, "huts_left", (2,), 9), "seat 2: huts/temples"),
        inv.STACKS: (lambda a: _set(a, "stacks", (3, 0), 5), "stack on plain 3"),
        inv.WORKERS_PLACED: (lambda a: _set(a, "stacks", (plain, top), -1),
                             f"seat {st.stacks[plain, top]} has 1 workers"),
        inv.RUNES: (lambda a: _set(a, "rune_holder", (0,), 3), "rune stone 'S' is held by"),
        inv.DRUID: (lambda a: _set(a, "druid_stone", (), 4), "druid position out of range"),
        inv.DRUID_RING: (lambda a: (_set(a, "druid_stone", (), 3),
                                    _set(a, "druid_field", (), empty)), "only at a hut"),
        inv.PHASE: (lambda a: _set(a, "stage", (), 7), "phase / stage"),
        inv.TURN: (lambda a: _set(a, "turn", (), -2), "turn -2 outside 0..max_turns"),
        inv.FLAGS: (lambda a: _set(a, "final_circuit", (), 2), "must be 0 or 1"),
        inv.CONSTRUCTIONS: (lambda a: _set(a, "constructions", (), st.constructions + 1),
                            "constructions must count"),
        inv.IDLE_TURNS: (lambda a: _set(a, "finale_turns_left", (), 3), "idle_turns"),
        inv.SEATS: (lambda a: _set(a, "start_player", (), 3), "roller / start_player"),
        inv.DIE: (lambda a: _set(a, "die_face", (), 6), "die_face / finale_seat"),
        inv.QUEUE_RANGE: (lambda a: _set(a, "queue_head", (), length + 1), "queue_head"),
        inv.QUEUE_ENTRY: (lambda a: _set(a, "queue", (head, 0), 9), "queue entry (9,"),
        inv.QUEUE_OFFER: (lambda a: [_set(a, "queue", (head, i), v) for i, v in
                                     enumerate((Q_OFFER, seat, empty, 1))],
                          f"queued offering at field {empty} is not a hut of seat {seat}"),
        inv.QUEUE_EMPTY: (lambda a: _set(a, "queue_head", (), length), "empty queue"),
    }


def test_every_invariant_is_caught_named_and_refused_in_state_files():
    st = midgame()
    fa = st.game.field_areas
    assert inv.violations(st.array, fa) == 0 and inv.first_problem(st) is None
    planted = plants(st)
    assert set(planted) == set(inv.NAMES) == set(inv.ORDER)  # none unplanted, none unnamed
    for bit, (plant, words) in planted.items():
        broken = st.clone()
        plant(broken.array)
        bits = inv.violations(broken.array, fa)
        assert bits & bit, inv.NAMES[bit]
        if bit == inv.PARAMS:
            continue  # a state file with another player count is refused as another game
        assert words in inv.first_problem(broken), (inv.NAMES[bit], inv.first_problem(broken))
        doc = json.loads(broken.to_json())
        with pytest.raises(StateFileError, match="^state file: ") as err:
            load_state(json.dumps(doc))
        assert words in str(err.value) and "\n" not in str(err.value)


def test_batch_rows_report_their_own_bits():
    st = midgame()
    rows = np.stack([st.array] * 3)
    _set(rows[1], "vp", (0,), -1)
    _set(rows[2], "druid_stone", (), 9)
    out = np.zeros(3, dtype=np.int64)
    assert inv.batch_violations(rows, st.game.field_areas, out) == 2
    assert out.tolist() == [0, inv.VP_FLOOR, inv.DRUID]
    assert inv.describe(int(out[1] | out[2])) == "VP >= 0 (R19), druid on his stones or the " \
                                                 "ring (R5, R17)"


def test_positions_of_real_games_keep_every_invariant_to_the_end():
    for players in (2, 3, 4):
        st = new_game(players) if players == 2 else MedurisGame(players).new_initial_state()
        rng = random.Random(players)
        while not st.is_terminal():
            st.apply_action(random_action(st, rng))
            assert inv.violations(st.array, st.game.field_areas) == 0, inv.first_problem(st)


def test_a_druid_at_a_hut_is_fine_and_elsewhere_is_not():
    st = midgame()
    huts = np.flatnonzero(st.board_occupant[:st.num_fields] == HUT)
    assert len(huts)
    a = st.array.copy()
    _set(a, "druid_stone", (), 3)
    _set(a, "druid_field", (), int(huts[0]))
    assert not inv.violations(a, st.game.field_areas) & (inv.DRUID | inv.DRUID_RING)

"""R12-R21 and E2, E3, E5, E6, E7: huts, temples, bonus chips, exchanges, the druid and rituals.

Board (2-3 players) fields used here, (first, second) material and rune area:
 0 wool,copper S | 1 stone,wood S | 5 wood,wool diamond | 7 wood,stone diamond |
10 copper,wood fountain | 11 copper,wool fountain | 12 stone,copper scales | 13 wool,wood scales |
15 stone,copper curl | 20 stone,wood wave | 21 stone,wool wave | 22 copper,wood cross |
24 stone,copper cross (druid chip) | 25 stone,wood hook | 29 stone,wool arrow |
30 copper,stone arrow | 31 stone,wool arrow.  Chips: 4 +2VP, 9 +2VP, 14 free, 19 free, 24/28 druid.
"""

import random

import numpy as np
import pytest
from helpers import (
    AREA,
    C,
    L,
    S,
    W,
    at_turn_action,
    decision,
    druid_position,
    e3_position,
    full_circuit_position,
    hut,
    new_game,
    offer,
    place,
    play_random,
    random_action,
    set_materials,
    temple,
)

from meduris_env import IllegalActionError, MedurisGame
from meduris_env.engine.actions import exchange_action
from meduris_env.engine.constants import EXCHANGE_GIVES
from meduris_env.engine.layout import OFFSETS


def offerings(st):
    return [(e.data["seat"], e.data["field"], e.data["choice"], e.data["vp"])
            for e in st.events() if e.kind == "offering"]


# --- R12, R16, E2: huts and settlements ---------------------------------------------------------
def test_R12_E2_third_hut_of_a_settlement_costs_three_of_each_and_takes_the_rune_stone():
    st = new_game()
    place(st, 11, "hut", 1)
    place(st, 12, "hut", 1)
    st.rune_holder[AREA["scales"]] = 1
    at_turn_action(st)
    set_materials(st, 0, wool=2, wood=3)
    assert hut(13) not in st.legal_actions()  # 2 wool and nothing to exchange: unaffordable
    set_materials(st, 0, wool=3, wood=3, copper=1)
    st.apply_action(hut(13))  # field 13 (wool, wood), 3rd hut of 11-12-13
    assert st.materials[0].tolist() == [0, 0, 1, 0]
    assert st.supply.tolist() == [18, 18, 17, 18]
    assert st.board_occupant[13] == 1 and st.board_owner[13] == 0 and st.huts_left[0] == 11
    assert st.rune_holder[AREA["scales"]] == 0  # taken from seat 1
    rune = [e.data for e in st.events() if e.kind == "rune_stone"]
    assert rune == [{"seat": 0, "area": AREA["scales"], "previous_holder": 1}]
    assert st.druid_stone == 1 and st.druid_field == -1  # R17: first construction
    assert st.is_chance_node() and st.roller == 1


def test_R12_R16_hut_closing_a_gap_pays_for_the_joined_settlement():
    st = new_game()
    for f, seat in [(5, 1), (6, 0), (8, 1)]:
        place(st, f, "hut", seat)
    at_turn_action(st)
    set_materials(st, 0, wood=4, stone=4)
    st.apply_action(hut(7))  # 5-6-7-8: the new hut is the 4th of the settlement
    assert st.materials[0].tolist() == [0, 0, 0, 0]
    assert [e.data for e in st.events() if e.kind == "build_hut"] == [
        {"seat": 0, "field": 7, "settlement_size": 4, "cost": 4}]


def test_R16_settlement_crosses_the_great_river():
    st = new_game()
    place(st, 31, "hut", 1)
    place(st, 0, "hut", 1)
    at_turn_action(st)
    set_materials(st, 0, stone=3, wood=3)
    st.apply_action(hut(1))  # 31-0-1
    assert st.materials[0].sum() == 0
    assert [e.data["settlement_size"] for e in st.events() if e.kind == "build_hut"] == [3]


def test_R16_temples_bound_a_settlement():
    st = new_game()
    place(st, 10, "hut", 1)
    place(st, 11, "temple", 1)
    place(st, 12, "hut", 1)
    at_turn_action(st)
    set_materials(st, 0, wool=2, wood=2)
    st.apply_action(hut(13))  # 12-13 only: the temple at 11 ends the settlement
    assert [e.data["settlement_size"] for e in st.events() if e.kind == "build_hut"] == [2]
    assert st.materials[0].sum() == 0


# --- R13: bonus chips ---------------------------------------------------------------------------
def test_R13_plus_two_chip_scores_and_leaves_the_game():
    st = new_game()
    at_turn_action(st)
    set_materials(st, 0, stone=1, wood=1)
    st.apply_action(hut(4))  # field 4 (stone, wood) holds a +2 VP chip
    assert st.vp[0] == 7 and st.bonus_chip[4] == 0 and st.materials[0].sum() == 0


def test_R13_free_hut_chip_costs_nothing():
    st = new_game()
    place(st, 13, "hut", 1)
    place(st, 15, "hut", 1)
    at_turn_action(st)
    assert hut(14) in st.legal_actions()  # no materials at all, settlement of 3
    st.apply_action(hut(14))
    assert st.materials.sum() == 0 and st.bonus_chip[14] == 0 and st.vp[0] == 5
    assert st.supply.tolist() == [18, 18, 18, 18]


def test_R13_druid_chip_stays_under_the_hut():
    st = new_game()
    at_turn_action(st)
    set_materials(st, 0, stone=1, copper=1)
    st.apply_action(hut(24))
    assert st.bonus_chip[24] == 3 and st.board_occupant[24] == 1 and st.vp[0] == 5


# --- R14: temples --------------------------------------------------------------------------------
def test_R14_temple_costs_one_of_each_whatever_is_next_to_it_and_takes_no_rune():
    st = new_game()
    place(st, 11, "hut", 1)
    place(st, 13, "hut", 1)
    at_turn_action(st)
    set_materials(st, 0, stone=1, copper=1, wood=1)
    assert temple(4) not in st.legal_actions()  # a bonus chip lies there
    st.apply_action(temple(12))
    assert st.materials[0].tolist() == [1, 0, 0, 0]
    assert st.temples_left[0] == 1 and (st.rune_holder == -1).all()
    assert st.druid_stone == 1


# --- R15: exchanges ------------------------------------------------------------------------------
def test_R15_manual_exchange_is_a_free_action_that_keeps_the_decision():
    st = new_game(exchange="manual")
    at_turn_action(st)
    set_materials(st, 0, wood=3)
    assert hut(1) not in st.legal_actions()  # (stone, wood): no stone, no automatic exchange
    st.apply_action(exchange_action((W, W, W), S))
    assert st.materials[0].tolist() == [0, 0, 0, 1] and st.supply.tolist() == [18, 18, 18, 17]
    assert decision(st) == ("turn action", 0, -1)
    with pytest.raises(IllegalActionError):
        st.apply_action(exchange_action((W, W, W), S))  # no wood left to give


def test_R15_auto_exchange_makes_a_build_legal_and_gives_the_largest_spare_chips():
    st = new_game()
    at_turn_action(st)
    set_materials(st, 0, wood=1, copper=3, stone=3)
    assert hut(13) in st.legal_actions()  # (wool, wood): 1 wool missing, 6 chips to spare
    st.apply_action(hut(13))
    ex = [e.data for e in st.events() if e.kind == "exchange"]
    assert ex == [{"seat": 0, "give": EXCHANGE_GIVES.index((C, C, S)), "take": L, "automatic": 1}]
    assert st.materials[0].tolist() == [0, 0, 1, 2]
    manual = new_game(exchange="manual")
    at_turn_action(manual)
    set_materials(manual, 0, wood=1, copper=3, stone=3)
    assert hut(13) not in manual.legal_actions()


def test_R15_auto_exchange_needs_stock_of_the_missing_material():
    st = new_game()
    at_turn_action(st)
    set_materials(st, 1, wool=18)
    set_materials(st, 0, wood=1, copper=9)
    assert hut(13) not in st.legal_actions()  # no wool left on the plain to exchange for


def test_R15_both_exchange_modes_give_the_same_game_without_exchanges():
    rng = random.Random(7)
    manual = MedurisGame(2, exchange="manual").new_initial_state()
    auto = MedurisGame(2, exchange="auto").new_initial_state()
    steps = 0
    while not manual.is_terminal():
        a = random_action(manual, rng, exchange_p=0.0)
        manual.apply_action(a)
        auto.apply_action(a)  # every manual action without exchange is legal in auto mode
        diff = np.flatnonzero(manual.array != auto.array)
        assert diff.tolist() == [OFFSETS["manual_exchange"][0]]  # only the mode flag differs
        steps += 1
    assert auto.is_terminal() and steps > 100


# --- R17, E5, E7: the druid's path ------------------------------------------------------------
def test_R17_first_three_constructions_move_the_druid_onto_his_stone_fields():
    st = new_game()
    place(st, 20, "hut", 1)
    stones = []
    for seat, action, mats in [(0, temple(1), dict(stone=1, wood=1)),
                               (1, temple(5), dict(wood=1, wool=1)),
                               (0, hut(10), dict(copper=1, wood=1))]:
        at_turn_action(st)
        set_materials(st, seat, **mats)
        st.apply_action(action)
        stones.append((st.druid_stone, st.druid_field))
        assert st.is_chance_node()  # no ritual: nothing else happens
    assert stones == [(1, -1), (2, -1), (3, -1)]
    assert offerings(st) == []


def test_E5_fourth_construction_sends_the_druid_to_the_first_hut_from_field_0():
    st = druid_position({5: 1, 20: 0})
    set_materials(st, 0, stone=1, copper=1)
    st.apply_action(temple(12))
    walk = [e.data for e in st.events() if e.kind == "druid_walk"]
    assert walk == [{"from_field": -1, "to_field": 5, "crossed_river": 0}]
    assert decision(st) == ("offering", 1, 5) and st.druid_field == 5
    assert not [e for e in st.events() if e.kind == "interim_scoring"]
    st.apply_action(offer("none"))
    assert st.vp.tolist()[:2] == [5, 4]
    assert st.druid_field == 5 and st.is_chance_node() and st.roller == 1


def test_R17_druid_walks_a_full_circuit_back_to_the_only_hut():
    st = full_circuit_position()  # seat 0 builds a temple on 20
    assert [e.data for e in st.events() if e.kind == "druid_walk"] == [
        {"from_field": 10, "to_field": 10, "crossed_river": 1}]
    assert st.vp[1] == 6  # interim scoring on the way (R21)
    assert decision(st) == ("offering", 1, 10)


def test_E7_four_temples_before_any_hut_leave_the_druid_on_his_stone_field():
    st = druid_position(temples={1: 0, 5: 1, 10: 1})
    set_materials(st, 0, stone=1, copper=1)
    st.apply_action(temple(15))
    assert [e.kind for e in st.events() if e.kind.startswith("druid")] == ["druid_waits"]
    assert st.druid_stone == 3 and st.druid_field == -1 and st.is_chance_node()
    at_turn_action(st)  # seat 1 builds the first hut: now the druid walks to it
    set_materials(st, 1, stone=1, wood=1)
    st.apply_action(hut(20))
    assert decision(st) == ("offering", 1, 20) and st.druid_field == 20


# --- R18, R19, E3: rituals and offerings ---------------------------------------------------------
def test_R18_E3_ritual_in_a_three_hut_settlement():
    st = e3_position()
    set_materials(st, 1, copper=1)
    st.apply_action(temple(15))  # druid walks from 10 to 20
    assert decision(st) == ("offering", 0, 20)
    assert st.pending_decision()["size"] == 3
    st.apply_action(offer("both"))  # stone + wood: +3 (settlement of 3)
    assert decision(st) == ("offering", 1, 21)
    assert st.legal_actions() == [offer("none")]  # seat 1 has no stone or wool
    st.apply_action(offer("none"))  # -1
    assert decision(st) == ("offering", 1, 22)
    st.apply_action(offer("first"))  # copper: +1
    assert offerings(st) == [(0, 20, 3, 3), (1, 21, 0, -1), (1, 22, 1, 1)]
    assert st.vp.tolist()[:2] == [8, 5]
    assert st.materials[:2].sum() == 0 and st.supply.tolist() == [18] * 4
    assert st.druid_field == 22 and st.is_chance_node() and st.roller == 1


def test_R18_ritual_can_start_in_the_middle_of_a_settlement():
    st = druid_position({10: 1, 11: 1, 13: 1}, druid=11)
    set_materials(st, 0, stone=5, copper=5)
    st.apply_action(hut(12))  # directly in front of the druid: settlement 10-13
    assert decision(st) == ("offering", 0, 12)
    assert st.pending_decision()["size"] == 4  # the whole settlement counts
    st.apply_action(offer("both"))
    assert decision(st) == ("offering", 1, 13)
    st.apply_action(offer("none"))
    assert offerings(st) == [(0, 12, 3, 4), (1, 13, 0, -1)]
    assert st.vp.tolist()[:2] == [9, 4] and st.druid_field == 13 and st.is_chance_node()


def test_R19_offering_nothing_never_takes_vp_below_zero():
    st = druid_position({10: 0, 20: 1}, druid=10)
    st.vp[1] = 0
    set_materials(st, 0, stone=1, copper=1)
    set_materials(st, 1, wood=1)
    st.apply_action(temple(15))
    assert decision(st) == ("offering", 1, 20)  # (stone, wood)
    assert st.legal_actions() == [offer("none"), offer("second")]
    st.apply_action(offer("none"))
    assert st.vp[1] == 0 and offerings(st) == [(1, 20, 0, 0)]


def test_R19_single_material_offering_scores_one():
    st = druid_position({10: 0, 20: 1}, druid=10)
    set_materials(st, 0, stone=1, copper=1)
    set_materials(st, 1, wood=1, stone=1)
    st.apply_action(temple(15))
    st.apply_action(offer("second"))  # wood
    assert st.vp[1] == 6 and st.materials[1].tolist() == [0, 0, 0, 1]


# --- R20: the druid chip ----------------------------------------------------------------------
def test_R20_druid_chip_can_be_kept_and_handed_in_at_a_later_ritual():
    st = druid_position({24: 1}, {"cross": 1}, druid=24)  # a hut on the druid chip
    set_materials(st, 0, stone=1, copper=1)
    st.apply_action(temple(15))  # full circuit back to 24: interim +1, then the ritual
    assert decision(st) == ("offering", 1, 24)
    assert offer("chip") in st.legal_actions()
    st.apply_action(offer("none"))  # keeps the chip
    assert st.bonus_chip[24] == 3 and st.vp[1] == 5
    at_turn_action(st)
    set_materials(st, 1, stone=1, wood=1)
    st.apply_action(temple(1))
    assert decision(st) == ("offering", 1, 24)
    st.apply_action(offer("chip"))  # counts as both materials: + settlement size (1)
    assert st.bonus_chip[24] == 0 and st.vp[1] == 7
    assert offerings(st)[-1] == (1, 24, 4, 1)


# --- R21, E6: rune interim scoring -----------------------------------------------------------
def test_E6_druid_walk_across_the_river_scores_runes_before_the_ritual():
    st = druid_position({29: 0, 7: 0, 3: 1}, {"arrow": 0, "diamond": 0, "S": 1}, druid=29)
    set_materials(st, 0, stone=1, wool=1)
    st.apply_action(temple(31))
    kinds = [e.kind for e in st.events()[-4:]]
    assert kinds == ["build_temple", "druid_walk", "interim_scoring", "interim_scoring"]
    assert st.vp.tolist()[:2] == [7, 6]
    assert decision(st) == ("offering", 1, 3)


def test_R21_ritual_crossing_the_river_in_mid_settlement_scores_runes_between_offerings():
    st = druid_position({30: 0, 31: 1, 0: 0, 20: 1}, {"arrow": 1, "S": 0, "wave": 1}, druid=20)
    set_materials(st, 0, stone=1, wood=1)
    st.apply_action(temple(25))
    seen = []
    while not st.is_chance_node():
        kind, seat, field = decision(st)
        seen.append((seat, field, st.vp[0], st.vp[1]))
        st.apply_action(offer("none"))
    # 30 and 31 at 5 VP each; crossing to 0 scores seat 0 +1, seat 1 +2 before hut 0 is asked
    assert seen == [(0, 30, 5, 5), (1, 31, 4, 5), (0, 0, 5, 6)]
    assert st.vp.tolist()[:2] == [4, 6] and st.druid_field == 0
    assert [e.kind for e in st.events()].count("interim_scoring") == 2  # one per player
    steps = [e.data for e in st.events() if e.kind == "druid_step"]
    assert steps == [{"from_field": 30, "to_field": 31, "crossed_river": 0},
                     {"from_field": 31, "to_field": 0, "crossed_river": 1}]


def test_R17_R18_in_random_games_the_druid_only_ever_stands_at_huts():
    for seed in range(20):
        st = MedurisGame(2).new_initial_state()
        rng = random.Random(seed)
        while not st.is_terminal():
            st.apply_action(random_action(st, rng))
            if st.druid_field >= 0:
                assert st.board_occupant[st.druid_field] == 1
        assert play_random(st, rng) == 0  # nothing left to play

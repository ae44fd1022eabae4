"""R22-R26, E1, E4: finale, final circuit, final scoring, winners; truncation."""

import numpy as np
import pytest
from helpers import (
    AREA,
    C,
    L,
    S,
    W,
    clear_materials,
    decision,
    finale_position,
    move,
    new_game,
    offer,
    place,
    roll,
    set_materials,
    temple,
)

from meduris_env import MedurisGame
from meduris_env.engine.constants import A_HUT, A_YIELD


def yield_turn(st, face="copper"):
    """A whole turn without construction: roll, then the first legal big yield."""
    roll(st, face)
    while decision(st)[0] != "turn action":
        st.apply_action(st.legal_actions()[0])
    st.apply_action(next(a for a in st.legal_actions() if A_YIELD <= a < A_HUT))


def test_E1_big_yield_onto_two_workers_pays_three_two_one():
    st = new_game()
    # wood: red; wool: green, green; copper: red; stone: red (bottom), green
    st.stacks[:] = [[0, -1, -1], [1, 1, -1], [0, -1, -1], [0, 1, -1]]
    roll(st, "wool")
    clear_materials(st)
    st.apply_action(move(C, 0, S))  # red puts a worker on top of the stone stack
    assert st.materials[0, S] == 4 and st.materials[1, S] == 2  # 3 + 1 and 2
    assert st.supply[S] == 12 and st.stacks[S].tolist() == [0, 1, 0]


def test_R22_R23_R24_R25_finale_extra_turn_final_circuit_and_final_scoring():
    st = finale_position()  # seat 0's last piece, a temple on 14; druid walks 23 -> 0
    assert st.vp.tolist()[:2] == [9, 7]  # interim scoring: 4 and 2 rune stones
    for f in range(6):
        assert decision(st) == ("offering", 0, f)
        st.apply_action(offer("none"))
    assert st.vp[0] == 3 and st.druid_field == 5
    assert st.finale_seat == 0 and st.finale_turns_left == 1
    # R22: seat 1 gets exactly one more turn
    assert st.is_chance_node() and st.roller == 1
    roll(st, "wool")
    st.apply_action(move(S, 0, C))
    assert st.final_circuit == 1
    circuit = []
    plan = {20: "none", 21: "second", 23: "first", 2: "chip"}
    while not st.is_terminal():
        kind, seat, field = decision(st)
        assert kind == "offering"
        circuit.append(field)
        st.apply_action(offer(plan.get(field, "none")))
    # R23: from the marked position (5) round the ring, every hut exactly once, ending at 0-5
    assert circuit == [8, 9, 10, 11, 12, 13, 20, 21, 23, 0, 1, 2, 3, 4, 5]
    after = [e for e in st.events() if e.step >= [x.step for x in st.events()
                                                   if x.kind == "final_circuit"][0]]
    assert "interim_scoring" not in [e.kind for e in after]  # R23: none in the final circuit
    temples = {(e.data["seat"], e.data["field"]): e.data["vp"] for e in after
               if e.kind == "temple_scoring"}
    assert temples == {(0, 14): 6, (0, 15): 0, (1, 22): 3}  # R24: temple next to temple adds 0
    runes = {e.data["seat"]: (e.data["rune_stones"], e.data["vp"]) for e in after
             if e.kind == "rune_scoring"}
    assert runes == {0: (4, 10), 1: (2, 3)}  # R25
    assert st.scores().tolist() == [19, 14]
    assert st.winners() == [0] and st.returns().tolist() == [1.0, -1.0]
    assert st.materials[:2].tolist() == [[0, 0, 1, 0], [0, 0, 2, 0]]
    assert not st.is_truncated() and st.end_reason == 1


def test_R22_finale_gives_every_other_player_one_turn_and_R23_circuit_starts_at_field_0():
    chips = [(10, "vp"), (14, "vp"), (18, "free"), (22, "free"), (26, "druid"), (30, "druid")]
    st = new_game(num_players=3, chips=chips)
    for f in range(8):
        place(st, f, "hut", 1)
    place(st, 9, "temple", 1)
    st.druid_stone = 2
    yield_turn(st)  # seat 0
    roll(st, "copper")
    set_materials(st, 1, stone=1, copper=1)
    st.apply_action(temple(8))  # seat 1 completes: huts and temples all built
    assert st.druid_stone == 3 and st.druid_field == -1
    assert st.finale_seat == 1 and st.finale_turns_left == 2
    rollers = []
    while st.is_chance_node():
        rollers.append(st.roller)
        yield_turn(st)
    assert rollers == [2, 0]  # exactly one more turn each, clockwise
    circuit = [e.data for e in st.events() if e.kind == "final_circuit"]
    assert circuit == [{"first_field": 0, "huts": 8, "reason": 1}]
    fields = []
    while not st.is_terminal():
        fields.append(decision(st)[2])
        st.apply_action(offer("none"))
    assert fields == list(range(8))
    assert [e.data["vp"] for e in st.events() if e.kind == "temple_scoring"] == [8, 0]


def test_R22_ruling_empty_supply_and_a_round_without_construction_ends_the_game_E4():
    st = new_game()
    for f, area in [(0, "S"), (5, "diamond"), (8, "fountain"), (12, "scales"), (15, "curl")]:
        place(st, f, "hut", 0)
        st.rune_holder[AREA[area]] = 0
    clear_materials(st)
    set_materials(st, 0, wood=18, wool=18)
    set_materials(st, 1, copper=18, stone=18)
    assert st.supply.sum() == 0
    yield_turn(st, "wood")
    assert st.idle_turns == 1 and st.is_chance_node()
    yield_turn(st, "+1")  # "+1" with an empty supply: both take nothing
    assert [e.kind for e in st.events()].count("take_nothing") == 2
    assert st.final_circuit == 1 and st.end_reason == 2
    while not st.is_terminal():
        st.apply_action(offer("none"))
    runes = [e.data for e in st.events() if e.kind == "rune_scoring"]
    assert runes[0] == {"seat": 0, "rune_stones": 5, "vp": 15}  # E4: 1+2+3+4+5
    assert st.scores().tolist() == [15, 5]


def test_R22_a_construction_resets_the_no_construction_count():
    st = new_game()
    clear_materials(st)
    set_materials(st, 0, wood=17, wool=18)
    set_materials(st, 1, copper=18, stone=18, wood=1)  # supply empty, seat 1 can build
    assert st.supply.sum() == 0
    yield_turn(st, "wood")
    assert st.idle_turns == 1
    roll(st, "wood")
    st.apply_action(temple(22))  # seat 1: temple on 22 (copper, wood)
    assert st.idle_turns == 0 and st.final_circuit == 0 and st.is_chance_node()


def test_turn_limit_truncates_without_final_scoring():
    st = new_game(max_turns=2)
    yield_turn(st)
    yield_turn(st)
    assert st.is_terminal() and st.is_truncated()
    kinds = [e.kind for e in st.events()]
    assert "final_circuit" not in kinds and kinds[-1] == "game_end"
    assert st.returns().sum() == 0


def test_R26_winner_ties_broken_by_buildings_then_materials_then_shared():
    st = new_game(max_turns=1)
    yield_turn(st)
    assert st.is_terminal()
    st.vp[:2] = [10, 8]
    assert st.winners() == [0]
    st.vp[:2] = [10, 10]
    place(st, 3, "hut", 1)
    assert st.winners() == [1]  # more buildings
    place(st, 20, "temple", 0)
    set_materials(st, 0, wood=2)
    set_materials(st, 1, wood=1)
    assert st.winners() == [0]  # same buildings, more materials left
    set_materials(st, 1, stone=2)
    assert st.winners() == [0, 1]  # the will of the gods
    assert st.returns().tolist() == [0.0, 0.0]


@pytest.mark.parametrize("zero_sum,expect", [(True, [0.5, 0.5, -1.0]), (False, [0.5, 0.5, 0.0])])
def test_R26_returns_share_the_win(zero_sum, expect):
    game = MedurisGame(3, max_turns=1, zero_sum=zero_sum)
    st = game.new_initial_state(bonus_chips=[(0, "vp"), (4, "vp"), (8, "free"), (12, "free"),
                                             (16, "druid"), (20, "druid")])
    for p in [W, L, C, S, W, L]:
        st.apply_action(p)
    yield_turn(st)
    clear_materials(st)
    st.vp[:3] = [7, 7, 3]
    assert st.returns().tolist() == expect
    assert np.isclose(st.returns().sum(), 0.0) == zero_sum

"""R1-R11: components, setup, the die and the big yield; each test builds a concrete position."""

import numpy as np
import pytest
from helpers import C, L, S, W, decision, move, new_game, roll, set_materials

from meduris_env import CHANCE, IllegalActionError, MedurisGame
from meduris_env.engine.constants import C_DIE, C_START, CHIP_MIN_DISTANCE


@pytest.mark.parametrize("n,workers,huts,fields", [(2, 3, 12, 32), (3, 2, 8, 32), (4, 2, 8, 40)])
def test_R1_players_start_with_5_vp_one_of_each_material_and_their_pieces(n, workers, huts, fields):
    game = MedurisGame(n)
    st = game.new_initial_state()
    assert game.num_fields == fields
    assert st.vp[:n].tolist() == [5] * n
    assert st.materials[:n].tolist() == [[1, 1, 1, 1]] * n
    assert st.huts_left[:n].tolist() == [huts] * n and st.temples_left[:n].tolist() == [2] * n
    assert st.supply.tolist() == [18 - n] * 4  # R2: the supply holds the rest
    assert game.workers == workers


@pytest.mark.parametrize("bad", [1, 5, 0, "2", 2.0, True])
def test_R1_wrong_player_count_is_refused(bad):
    with pytest.raises(ValueError, match="2, 3 or 4"):
        MedurisGame(bad)


def test_R2_paying_returns_materials_to_the_supply():
    st = new_game()
    roll(st, "+1")
    st.apply_action(4 + S)  # seat 0 takes stone
    assert st.supply[S] == 15 and st.materials[0, S] == 2
    st.apply_action(4 + S)  # seat 1 takes stone
    set_materials(st, 0, wood=1, stone=1)
    st.apply_action(108 + 1)  # temple on field 1 (stone, wood)
    assert st.materials[0].tolist() == [0, 0, 0, 0]
    assert st.supply.tolist() == [17, 17, 17, 16]  # 18 minus seat 1's chips


def test_R5_druid_starts_on_his_temple():
    st = MedurisGame(2).new_initial_state()
    assert st.druid_stone == 0 and st.druid_field == -1


def test_R6_setup_places_one_worker_at_a_time_clockwise_and_yields_nothing():
    game = MedurisGame(2)
    st = game.new_initial_state(bonus_chips=[(4, "vp"), (9, "vp"), (14, "free"), (19, "free"),
                                             (24, "druid"), (28, "druid")])
    seats = []
    for plain in [S, S, S]:
        seats.append(st.current_player())
        st.apply_action(plain)
    # the stone plain is full (R6: at most 3): nobody may place there now
    assert S not in st.legal_actions()
    with pytest.raises(IllegalActionError):
        st.apply_action(S)
    for plain in [W, L, C]:
        seats.append(st.current_player())
        st.apply_action(plain)
    assert seats == [0, 1, 0, 1, 0, 1]
    assert st.stacks[S].tolist() == [0, 1, 0]  # placed worker goes on top
    assert st.materials[:2].tolist() == [[1, 1, 1, 1]] * 2  # placement yields nothing
    assert st.is_chance_node() and st.roller == 0  # seat 0 rolls first


def test_R6_random_starting_player_is_a_chance_event():
    game = MedurisGame(3, random_start_player=True)
    st = game.new_initial_state(bonus_chips=[(0, "vp"), (4, "vp"), (8, "free"), (12, "free"),
                                             (16, "druid"), (20, "druid")])
    assert st.is_chance_node()
    outs = st.chance_outcomes()
    assert [a for a, _ in outs] == [C_START, C_START + 1, C_START + 2]
    assert all(p == pytest.approx(1 / 3) for _, p in outs)
    st.apply_action(C_START + 2)
    order = []
    for plain in [W, L, C, S, W, L]:
        order.append(st.current_player())
        st.apply_action(plain)
    assert order == [2, 0, 1, 2, 0, 1]
    assert st.roller == 2


def test_R4_chip_chance_outcomes_keep_spacing_and_sum_to_one():
    rng = np.random.default_rng(0)
    for n in (2, 4):
        game = MedurisGame(n)
        nf = game.num_fields
        for _ in range(60):
            st = game.new_initial_state()
            while st.phase == 0:
                outs = st.chance_outcomes()
                assert sum(p for _, p in outs) == pytest.approx(1.0)
                ids = [a for a, _ in outs]
                st.apply_action(ids[rng.choice(len(ids), p=[p for _, p in outs])])
            fields = np.flatnonzero(st.bonus_chip[:nf])
            assert len(fields) == 6
            assert sorted(st.bonus_chip[fields].tolist()) == [1, 1, 2, 2, 3, 3]
            for i in fields:
                for j in fields:
                    if i != j:
                        d = abs(int(i) - int(j))
                        assert min(d, nf - d) >= CHIP_MIN_DISTANCE


def test_R4_explicit_chip_layout_breaking_the_spacing_is_refused():
    with pytest.raises(ValueError, match="spacing"):
        MedurisGame(2).new_initial_state(bonus_chips=[(0, "vp"), (3, "vp"), (8, "free"),
                                                      (12, "free"), (16, "druid"), (20, "druid")])


def test_R7_die_has_six_equally_likely_faces():
    st = new_game()
    assert st.current_player() == CHANCE
    outs = st.chance_outcomes()
    assert [a for a, _ in outs] == list(range(C_DIE, C_DIE + 6))
    assert all(p == pytest.approx(1 / 6) for _, p in outs)


def test_R8_material_face_yields_one_per_worker_top_first_while_supply_lasts():
    st = new_game()
    st.stacks[W] = [1, 0, 1]  # bottom seat 1, then seat 0, top seat 1
    set_materials(st, 0, wood=16)
    set_materials(st, 1, wood=0)  # supply: 2 wood left for three workers
    roll(st, "wood")
    assert st.materials[1, W] == 1 and st.materials[0, W] == 17  # top (1), middle (0)
    assert st.supply[W] == 0  # the bottom worker gets nothing: hierarchy (R8)
    ys = [e.data for e in st.events() if e.kind == "yield"]
    assert ys == [{"seat": 1, "material": W, "amount": 1, "level": 2},
                  {"seat": 0, "material": W, "amount": 1, "level": 1},
                  {"seat": 1, "material": W, "amount": 0, "level": 0}]
    assert decision(st) == ("turn action", 0, -1)


def test_R9_plus_one_every_player_takes_in_order_from_the_roller_compulsory():
    st = new_game()
    st.apply_action(C_DIE + 2)  # seat 0: copper
    st.apply_action(move(C, 0, S))  # seat 0's turn ends with a big yield
    roll(st, "+1")  # seat 1 rolls
    assert decision(st) == ("take (+1)", 1, -1)
    assert st.legal_actions() == [4, 5, 6, 7]  # no "take nothing" while stock exists
    st.apply_action(4 + L)
    assert decision(st) == ("take (+1)", 0, -1)
    st.apply_action(4 + W)
    assert decision(st) == ("turn action", 1, -1)


def test_R9_plus_one_with_a_nearly_empty_supply_skips_who_cannot_take():
    st = new_game()
    set_materials(st, 1)
    set_materials(st, 0, wood=18, wool=18, copper=18, stone=17)  # supply now: 1 stone only
    assert st.supply.tolist() == [0, 0, 0, 1]
    roll(st, "+1")
    assert st.legal_actions() == [4 + S]
    st.apply_action(4 + S)
    # seat 1 takes nothing (R9 ruling) and the roller's turn action follows
    assert decision(st) == ("turn action", 0, -1)
    assert [e.data["seat"] for e in st.events() if e.kind == "take_nothing"] == [1]


def test_R10_minus_one_every_player_holding_material_returns_one():
    st = new_game()
    set_materials(st, 0, wool=2, stone=1)
    set_materials(st, 1)
    roll(st, "-1")
    assert decision(st) == ("return (-1)", 0, -1)
    assert st.legal_actions() == [8 + L, 8 + S]
    st.apply_action(8 + S)
    assert st.materials[0].tolist() == [0, 2, 0, 0] and st.supply[S] == 18
    assert decision(st) == ("turn action", 0, -1)  # seat 1 holds nothing: skipped
    assert [e.data["seat"] for e in st.events() if e.kind == "return_nothing"] == [1]


def test_R11_big_yield_from_any_level_to_a_different_plain_with_room():
    st = new_game()  # stacks: wood [0, 0], wool [1, 1], copper [0], stone [1]
    roll(st, "stone")  # seat 1 gets 1 stone
    legal = st.legal_actions()
    assert move(W, 0, W) not in legal  # R11: must change plain
    assert move(L, 0, C) not in legal  # not seat 0's worker
    st.stacks[S] = [1, 1, 1]  # a full plain takes nobody
    assert move(W, 0, S) not in st.legal_actions()
    st.stacks[S] = [1, -1, -1]
    set_materials(st, 0)
    set_materials(st, 1)
    st.apply_action(move(W, 0, L))  # the bottom worker of the wood stack
    assert st.stacks[W].tolist() == [0, -1, -1]  # the one above drops down
    assert st.stacks[L].tolist() == [1, 1, 0]
    # 3 workers: the mover (top) yields 3, the next 2, the bottom 1
    assert st.materials[0, L] == 3 and st.materials[1, L] == 3
    assert st.supply[L] == 12
    assert st.is_chance_node() and st.roller == 1  # turn over


def test_R11_big_yield_with_a_short_supply_pays_top_down():
    st = new_game()
    roll(st, "stone")
    st.stacks[S] = [1, -1, -1]
    set_materials(st, 0)
    set_materials(st, 1, stone=16)  # 2 stone left
    st.apply_action(move(C, 0, S))  # seat 0 on top of seat 1: would yield 2 + 1
    assert st.materials[0, S] == 2 and st.materials[1, S] == 16 and st.supply[S] == 0

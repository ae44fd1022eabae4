"""Bad input gets a clear error and leaves everything unchanged; boards and state files (R3)."""

import json
import random

import pytest
from helpers import clear_materials, decision, hut, new_game, offer, random_action, roll

from meduris_env import (
    BoardError,
    IllegalActionError,
    MedurisGame,
    StateFileError,
    load_board,
    load_state,
)
from meduris_env.engine.constants import C_DIE, NUM_ACTIONS, NUM_IDS


# --- boards (R3) ---------------------------------------------------------------------------------
def test_R3_builtin_boards():
    small, big = load_board("2-3"), load_board("4")
    assert small.num_fields == 32 and big.num_fields == 40
    assert not small.reconstructed and big.reconstructed  # documented as a reconstruction
    assert len(small.rune_areas) == len(big.rune_areas) == 9
    assert MedurisGame(4).board == big and MedurisGame(3).board == small


def board_dict():
    return json.loads(json.dumps(load_board("2-3").source))


@pytest.mark.parametrize("edit,message", [
    (lambda b: b["fields"][3].update(materials=["wood", "gold"]), "unknown material 'gold'"),
    (lambda b: b["fields"][5].update(materials=["wool", "wool"]), "field 5: shows 'wool' twice"),
    (lambda b: b.update(rune_areas=b["rune_areas"][:8]), "exactly 9 distinct rune areas"),
    (lambda b: b["fields"][0].update(rune_area="moon"), "unknown rune area 'moon'"),
    (lambda b: b["fields"].pop(), "'num_fields' says 32 but 31"),
    (lambda b: b["fields"][2].update(materials=["wool"]), "exactly two materials"),
])
def test_R3_malformed_board_is_rejected_naming_the_problem(edit, message):
    b = board_dict()
    edit(b)
    with pytest.raises(BoardError, match=message):
        MedurisGame(2, board=b)


def test_R3_board_with_fewer_fields_than_the_buildings_is_rejected():
    with pytest.raises(BoardError, match="fewer than the 40 huts and temples 4 players"):
        MedurisGame(4, board="2-3")


def test_board_files(tmp_path):
    good = tmp_path / "b.json"
    good.write_text(json.dumps(board_dict()))
    assert MedurisGame(2, board=str(good)).num_fields == 32
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(BoardError, match="cannot be read as JSON"):
        load_board(str(bad))
    with pytest.raises(BoardError, match="no such file"):
        load_board(str(tmp_path / "missing.json"))


def test_wrong_options_are_refused():
    with pytest.raises(ValueError, match="exchange"):
        MedurisGame(2, exchange="sometimes")
    with pytest.raises(ValueError, match="max_turns"):
        MedurisGame(2, max_turns=-1)


# --- illegal actions -------------------------------------------------------------------------
def test_illegal_action_raises_and_leaves_the_state_unchanged():
    st = new_game()
    roll(st, "copper")
    clear_materials(st)
    before = st.to_json()
    with pytest.raises(IllegalActionError, match=r"build hut on field 3\) is not legal now; "
                                                r"seat 0 must decide: turn action"):
        st.apply_action(hut(3))
    with pytest.raises(IllegalActionError, match="is a chance outcome"):
        st.apply_action(C_DIE + 1)
    with pytest.raises(IllegalActionError, match="seat 1 is not to move: seat 0 is"):
        st.apply_action(st.legal_actions()[0], player=1)
    for junk in ("hut", 3.5, None, -1, NUM_IDS, 10**12):
        with pytest.raises(IllegalActionError):
            st.apply_action(junk)
    assert st.to_json() == before


def test_player_action_at_a_chance_node_and_after_the_end():
    st = new_game()
    with pytest.raises(IllegalActionError, match="chance node"):
        st.apply_action(offer("none"))
    game = MedurisGame(2, max_turns=1)
    st = game.new_initial_state()
    rng = random.Random(0)
    while not st.is_terminal():
        st.apply_action(random_action(st, rng))
    with pytest.raises(IllegalActionError, match="game is over"):
        st.apply_action(C_DIE)
    assert st.legal_actions() == [] and st.legal_action_mask().sum() == 0


def test_mask_and_legal_actions_agree_and_mask_has_the_full_size():
    st = new_game()
    roll(st, "+1")
    mask = st.legal_action_mask()
    assert mask.shape == (NUM_ACTIONS,) and mask.dtype.name == "int8"
    assert mask.nonzero()[0].tolist() == st.legal_actions()
    assert decision(st) == ("take (+1)", 0, -1)


def test_action_strings_round_trip():
    game = MedurisGame(2)
    for a in range(NUM_IDS):
        assert game.string_to_action(game.action_to_string(a)) == a
    assert game.string_to_action("  Build HUT on field 7 ") == 67
    with pytest.raises(ValueError, match="is not an action"):
        game.string_to_action("build a castle")


# --- state files ---------------------------------------------------------------------------------
def mid_game_json():
    st = new_game()
    rng = random.Random(5)
    for _ in range(60):
        st.apply_action(random_action(st, rng))
    return st, json.loads(st.to_json())


@pytest.mark.parametrize("edit,message", [
    (lambda d: d.update(format="chess"), "'format' must be"),
    (lambda d: d.update(version=99), "version 99"),
    (lambda d: d["arrays"]["supply"].__setitem__(0, (d["arrays"]["supply"][0] + 1) % 19),
     "not conserved"),
    (lambda d: d["arrays"]["vp"].__setitem__(0, -3), "VP below 0"),
    (lambda d: d["arrays"]["huts_left"].__setitem__(0, 3), "huts/temples on the board"),
    (lambda d: d["arrays"]["stacks"][0].__setitem__(2, 0), "workers|stack"),
    (lambda d: d["arrays"].pop("stacks"), "'stacks' is missing"),
    (lambda d: d["arrays"].update(supply=[1, 2]), "shape"),
    (lambda d: d["game"].update(num_players=7), "num_players must be 2, 3 or 4"),
    (lambda d: d["arrays"].update(druid_field=40), "druid"),
])
def test_inconsistent_state_file_is_rejected(edit, message):
    _, doc = mid_game_json()
    edit(doc)
    with pytest.raises(StateFileError, match=message):
        load_state(json.dumps(doc))


def test_rune_stone_without_a_hut_in_its_area_is_rejected():
    doc = json.loads(new_game().to_json())
    doc["arrays"]["rune_holder"][0] = 1
    with pytest.raises(StateFileError, match="rune stone 'S' is held by seat 1"):
        load_state(json.dumps(doc))


def test_unparseable_state_file_is_rejected():
    with pytest.raises(StateFileError, match="not JSON"):
        load_state("{")
    with pytest.raises(StateFileError, match="format"):
        load_state("[]")


def test_state_file_for_another_game_is_refused():
    st, _ = mid_game_json()
    with pytest.raises(ValueError, match="not MedurisGame"):
        MedurisGame(3).state_from_json(st.to_json())
    assert MedurisGame(2).state_from_json(st.to_json()) == st

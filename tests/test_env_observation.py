"""The observation vector: every slice decodes back to the position's numbers, seen from the
observer's seat (observer first, then clockwise)."""

import numpy as np
import pytest
from helpers import (
    C,
    L,
    S,
    W,
    clear_materials,
    druid_on_ring,
    new_game,
    place,
    roll,
    set_materials,
    temple,
)

import meduris_env
from meduris_env.envs.observation import OBS_FIELDS, OBS_SIZE, decode_observation


def ritual_position():
    """3 players: seat 0 builds a temple on 15, the druid walks from 10 to the settlement on
    20-22 and asks seat 2 (hut on 20) for an offering first (R17, R18)."""
    st = new_game(num_players=3, placements=[W, L, C, S, W, W])
    place(st, 10, "hut", 0)
    for f, seat in [(20, 2), (21, 1), (22, 1)]:
        place(st, f, "hut", seat)
    druid_on_ring(st, 10)
    st.rune_holder[5] = 2
    roll(st, "+1")  # all three take one material first (R9)
    clear_materials(st)
    return st


def observe(state, seat, hidden=False):
    e = meduris_env.raw_env(num_players=state.game.num_players, hidden_materials=hidden)
    e.reset(seed=0, options={"state": state})
    return e.observe(f"player_{seat}")


def test_observation_table_covers_the_vector_exactly():
    sizes = [int(np.prod(shape)) if shape else 1 for _, shape, _, _ in OBS_FIELDS]
    assert sum(sizes) == OBS_SIZE == 1470
    assert len({name for name, *_ in OBS_FIELDS}) == len(OBS_FIELDS)


def test_decoded_board_stacks_and_players_from_two_seats():
    st = ritual_position()
    # the +1 face asks seat 0, 1, 2 in turn (R9): take wood, wool, stone
    for action in ("take wood", "take wool", "take stone"):
        st.apply_action(st.string_to_action(action))
    set_materials(st, 0, stone=2, copper=1, wood=1)
    st.vp[:3] = [7, 5, 9]
    st.apply_action(temple(15))
    assert st.pending_decision() == {"kind": "offering", "seat": 2, "field": 20, "size": 3}

    d = decode_observation(observe(st, 1))
    assert d["field_present"].sum() == 32 and d["field_present"][31] == 1
    assert d["field_present"][32] == 0
    assert d["field_hut"][20].tolist() == [0, 1, 0, 0]  # seat 2 is one seat clockwise of 1
    assert d["field_hut"][21].tolist() == [1, 0, 0, 0]
    assert d["field_hut"][10].tolist() == [0, 0, 1, 0]  # seat 0 is two seats on
    assert d["field_temple"][15].tolist() == [0, 0, 1, 0]
    assert d["field_druid"].nonzero()[0].tolist() == [20] and d["druid_on_ring"] == 1
    assert d["field_offering"].nonzero()[0].tolist() == [20]
    assert d["offering_settlement_size"] == 3
    assert d["decision_kind"].tolist() == [0, 0, 0, 0, 1]  # offering
    assert d["decision_seat"].tolist() == [0, 1, 0, 0]
    assert d["die_face"].tolist() == [0, 0, 0, 0, 1, 0]  # "+1"
    assert d["player_vp"].tolist() == [5, 9, 7, 0]
    assert d["player_present"].tolist() == [1, 1, 1, 0]
    assert d["player_materials"][0].tolist() == [0, 1, 0, 0]  # seat 1 took wool
    assert d["player_materials"][1].tolist() == [0, 0, 0, 1]  # seat 2 took stone
    assert d["player_materials"][2].tolist() == st.materials[0].tolist()
    assert d["supply"].tolist() == st.supply.tolist()
    assert d["player_huts_left"].tolist() == [6, 7, 7, 0]  # 8 each in 3 players (R1)
    assert d["player_temples_left"].tolist() == [2, 2, 1, 0]
    assert d["rune_stone_holder"][5].tolist() == [0, 1, 0, 0]
    assert d["player_rune_stones"].tolist() == [0, 1, 0, 0]
    assert d["player_is_roller"].tolist() == [0, 0, 1, 0]
    assert d["player_is_start"].tolist() == [0, 0, 1, 0]
    assert d["constructions"] == st.constructions
    # stacks: placements W, L, C, S, W, W -> wood holds seats 0, 1, 2 bottom to top
    assert d["stack_owner"][0].tolist() == [[0, 0, 1, 0], [1, 0, 0, 0], [0, 1, 0, 0]]
    assert d["turns_left"] == 1000 - st.turn and d["turn"] == st.turn
    assert d["field_bonus_chip"][24].tolist() == [0, 0, 1]  # druid chip
    assert d["field_materials"][0].tolist() == [0, 1, 1, 0]  # wool, copper
    assert d["field_rune_area"][0].argmax() == 0

    mine = decode_observation(observe(st, 2))
    assert mine["decision_seat"].tolist() == [1, 0, 0, 0]
    assert mine["player_vp"].tolist() == [9, 7, 5, 0]
    assert mine["field_hut"][20].tolist() == [1, 0, 0, 0]
    assert observe(st, 2)["action_mask"].any() and not observe(st, 1)["action_mask"].any()


def test_hidden_materials_show_only_totals_of_opponents():
    st = ritual_position()
    set_materials(st, 0, wood=3, stone=1)
    set_materials(st, 1, wool=2)
    set_materials(st, 2, copper=1)
    d = decode_observation(observe(st, 1, hidden=True))
    assert d["player_materials"].tolist()[:3] == [[0, 2, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0]]
    assert d["player_material_total"].tolist() == [2, 1, 4, 0]
    assert d["player_materials_hidden"].tolist() == [0, 1, 1, 0]
    shown = decode_observation(observe(st, 1, hidden=False))
    assert shown["player_materials"][2].tolist() == [3, 0, 0, 1]
    assert shown["player_materials_hidden"].tolist() == [0, 0, 0, 0]


def test_finale_flags_and_observation_bounds():
    e = meduris_env.raw_env(num_players=4, exchange="manual", max_turns=500)
    space = e.observation_space("player_0")
    e.reset(seed=2)
    rng = np.random.default_rng(2)
    saw_finale = False
    while not e.state.is_terminal():
        obs = e.observe(e.agent_selection)
        assert space.contains(obs)
        d = decode_observation(obs)
        if e.state.finale_seat >= 0:
            saw_finale = True
            assert d["finale"] == 1 and d["player_triggered_finale"].sum() == 1
            assert d["finale_turns_left"] == e.state.finale_turns_left
        e.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    assert e.state.end_reason in (1, 2)
    assert saw_finale or e.state.end_reason == 2
    final = decode_observation(e.observe("player_0"))
    assert final["decision_kind"].sum() == 0 and final["decision_seat"].sum() == 0


def test_decode_refuses_a_wrong_shape():
    with pytest.raises(ValueError, match="shape"):
        decode_observation(np.zeros(10))


def test_readme_documents_every_observation_slice():
    from pathlib import Path
    readme = (Path(__file__).resolve().parent.parent / "docs" / "environments.md").read_text()
    for name, _shape, _, _ in OBS_FIELDS:
        assert f"| `{name}` |" in readme, name
    assert f"({OBS_SIZE},)" in readme

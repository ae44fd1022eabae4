"""The Mammoth Herd expansion M1-M12 (docs/stone_age.md), one test or more per rule. The
shipped tile set is the project's reconstruction (rules section 7); the engine takes any set
as data, and these tests use both."""

import json
import random

import pytest
from stone_age_positions import do, names, new, roll
from test_stone_age_rules import _finish_round, _last_round

import stoneage_env as SA
from stoneage_env.engine.components import RECONSTRUCTED_TILES, tile_set
from stoneage_env.engine.constants import (
    C_BACK,
    C_TILE,
    CLAY,
    FOOD,
    GOLD,
    SRC_MAJORITY,
    SRC_MAMMOTH_VP,
    STONE,
    WOOD,
)


def _tiles(*fronts, back="clay"):
    """A tile set of one tile per (one, all) pair, all with ``back``."""
    return tile_set({"tiles": [{"id": f"T{i}", "back": back, "one": one, "all": every}
                               for i, (one, every) in enumerate(fronts)]})


def test_M1_sixteen_tiles_loaded_from_data_and_marked_reconstructed(tmp_path):
    assert len(RECONSTRUCTED_TILES) == 16 and RECONSTRUCTED_TILES.reconstructed
    backs = RECONSTRUCTED_TILES.table[:, 0].tolist()
    assert sorted(backs) == [WOOD] * 4 + [CLAY] * 4 + [STONE] * 4 + [GOLD] * 4
    m06 = RECONSTRUCTED_TILES.ids.index("M06")  # the rulebook's tile: tool / 3 VP
    assert RECONSTRUCTED_TILES.table[m06].tolist() == [CLAY, 3, 1, 0, 6, 3, 0]
    path = tmp_path / "tiles.json"
    path.write_text(json.dumps({"tiles": [{"id": "X", "back": "gold", "one": {"type": "vp",
                                                                                "n": 9},
                                           "all": {"type": "vp", "n": 1}}]}))
    game = SA.StoneAgeGame(2, mammoth_herd=True, tiles=path)
    assert len(game.tiles) == 1 and not game.tiles.reconstructed
    for bad in ('{"tiles": []}', '{"tiles": [{"id": "X", "back": "food", "one": {"type": '
                '"vp", "n": 1}, "all": {"type": "vp", "n": 1}}]}', "[1, 2", '{"x": 1}'):
        path.write_text(bad)
        with pytest.raises(SA.ComponentsError) as e:
            SA.StoneAgeGame(2, mammoth_herd=True, tiles=path)
        assert "\n" not in str(e.value)


def test_M2_the_pile_is_stacked_backs_up_and_its_top_back_shows():
    g = SA.StoneAgeGame(2, mammoth_herd=True)
    s = g.new_initial_state()
    while s.decision() != "Mammoth back":
        s.apply_action(s.chance_outcomes()[0][0])
    assert s.chance_outcomes() == [(C_BACK + r, 0.25) for r in range(4)]
    s.apply_action(C_BACK + STONE - 1)
    assert s.back == STONE and s.decision() == "Mammoth tile turned"
    fronts = s.chance_outcomes()
    assert len(fronts) == 4 and all(g.tile_table[a - C_TILE, 0] == STONE for a, _ in fronts)


def test_M3_the_herd_goes_to_the_backs_site_and_an_empty_pile_ends_the_herd():
    s = new(2, mammoth=True, tile=5, next_back="gold")
    assert s.herd == CLAY and s.tile_now == 5 and s.back == GOLD
    assert s.tile_state[5] == 1
    tiles = _tiles(({"type": "vp", "n": 5}, {"type": "vp", "n": 1}))
    g = SA.StoneAgeGame(2, mammoth_herd=True, tiles=tiles)
    s = g.new_initial_state()
    while s.decision() != "placement":
        s.apply_action(s.chance_outcomes()[0][0])
    assert s.herd == CLAY and s.back == -1  # the only tile is out: no next back
    do(s, "place 5 on the hunting grounds", "place 5 on the hunting grounds")
    _finish_round(s)
    assert not s.is_terminal() and s.herd == -1 and s.tile_now == -1  # the base rules go on
    assert any(e.kind == "herd_gone" for e in s.events())


def test_M4_the_herds_site_takes_every_player():
    s = new(2, mammoth=True, tile=5)
    do(s, "place 1 on the clay pit")
    assert "place 1 on the clay pit" in names(s)  # S10b lifted for seat 1
    do(s, "place 1 on the clay pit", "place 1 on the quarry")
    assert not any(n.endswith("quarry") for n in names(s))  # still on the other sites
    assert not any(n.endswith("clay pit") for n in names(s))  # S11 (i) still holds


def test_M5_moving_figures_costs_food_or_resources_one_each():
    s = new(2, mammoth=True, tile=5)
    s.unplaced[0] = 3
    s.goods[0, FOOD] = 1
    s.goods[0, STONE] = 1
    do(s, "place 3 on the clay pit", "place 5 on the hunting grounds")
    roll(s, 1, 1, 1)
    assert sorted(names(s)) == ["move a figure paying 1 food", "move a figure paying 1 stone",
                                "move no more figures"]
    do(s, "move a figure paying 1 food")
    assert sorted(names(s)) == ["move a figure paying 1 stone", "move no more figures"]
    do(s, "move a figure paying 1 stone")  # nothing left to pay with: the third goes home
    assert s.on_tile[0] == 2 and s.goods[0, [FOOD, STONE]].tolist() == [0, 0]
    assert s.placed[CLAY, 0] == 0


def test_M6_taming_rolls_one_die_per_figure_without_tools():
    s = new(2, mammoth=True, tile=5)
    s.unplaced[0] = 2
    s.tiles[0] = [4, 4, 4]
    do(s, "place 2 on the clay pit", "place 5 on the hunting grounds")
    roll(s, 1, 1)
    do(s, "take the yield", "move a figure paying 1 food", "move a figure paying 1 food")
    roll(s, 1, 1, 1, 1, 1)  # seat 1's hunting
    if not s.is_chance_node():
        do(s, "take the yield")
    assert s.decision() == "taming die"
    roll(s, 2)
    assert s.decision() == "taming die"  # a second die, no tool decision between
    roll(s, 3)
    assert s.current_player() == 0 and s.decision() == "Mammoth reward"  # sole: the winner
    do(s, "take the '1' bonus")
    assert s.tame_dice.sum() == 0 and s.tiles_won[0] == 1


@pytest.mark.parametrize("red,blue,winner", [((6, 1), (6,), 0), ((6,), (6, 1), 1),
                                              ((5, 5), (6,), 1), ((4, 4), (4, 4), -1)])
def test_M7_dice_lists_compare_from_the_highest(red, blue, winner):
    s = new(2, mammoth=True, tile=5)
    s.unplaced[:2] = [len(red), len(blue)]
    do(s, f"place {len(red)} on the clay pit", f"place {len(blue)} on the clay pit")
    for figures in (red, blue):
        roll(s, *([1] * len(figures)))
        for _ in figures[:-1]:  # (the last move is forced: all figures moved or none left)
            do(s, "move a figure paying 1 food")
        if s.decision() == "Mammoth move":
            do(s, "move a figure paying 1 food")
    assert s.on_tile[:2].tolist() == [len(red), len(blue)]
    roll(s, *red)
    roll(s, *blue)
    taming = [e for e in s.events() if e.kind == "taming"][0]
    assert taming.data["seat"] == winner


def test_M8_the_winner_chooses_the_others_take_all_winner_first_then_clockwise():
    s = new(3, mammoth=True, tile=5)
    s.start_player = 0
    s.unplaced[:3] = [1, 1, 1]
    do(s, "place 1 on the clay pit", "place 1 on the clay pit", "place 1 on the clay pit")
    for _ in range(3):
        roll(s, 1)
        do(s, "move a figure paying 1 food")
    roll(s, 2)
    roll(s, 6)  # seat 1 wins
    roll(s, 3)
    assert s.current_player() == 1 and sorted(names(s)) == ["take the '1' bonus",
                                                            "take the 'all' bonus"]
    do(s, "take the 'all' bonus")  # the winner may take 'all' instead
    rewards = [(e.data["seat"], e.data["which"]) for e in s.events() if e.kind == "reward"]
    assert rewards == [(1, 2), (2, 2), (0, 2)]
    assert s.tiles_won.tolist()[:3] == [0, 1, 0]  # it keeps the tile anyway
    assert s.sources[:3, SRC_MAMMOTH_VP].tolist() == [3, 3, 3]
    s = new(2, mammoth=True, tile=5)
    do(s, "place 5 on the hunting grounds", "place 5 on the hunting grounds")
    _finish_round(s)
    assert s.tile_state[5] == 2 and s.tiles_won.sum() == 0  # nobody on it: it leaves


def test_M9_figures_go_home_and_moved_figures_are_fed():
    s = new(2, mammoth=True, tile=5)
    s.unplaced[0] = 2
    s.goods[0, FOOD] = 10
    do(s, "place 2 on the clay pit", "place 5 on the hunting grounds")
    roll(s, 1, 1)
    do(s, "move a figure paying 1 food", "move a figure paying 1 food")
    roll(s, 1, 1, 1, 1, 1)
    roll(s, 1, 1)
    do(s, "take the 'all' bonus")
    feed = [e for e in s.events() if e.kind == "feed" and e.data["seat"] == 0][0]
    assert feed.data["food"] == 5 and s.on_tile.sum() == 0  # 2 moved figures still eat


BONUSES = [({"type": "agriculture", "n": 1}, lambda s: s.agriculture[0]),
           ({"type": "resource", "kind": "gold", "n": 2}, lambda s: s.goods[0, GOLD]),
           ({"type": "civ_card"}, lambda s: s.secret[0].sum()),
           ({"type": "tool", "n": 1}, lambda s: s.tiles[0].sum()),
           ({"type": "any_resources", "n": 1}, lambda s: s.goods[0, 1:].sum()),
           ({"type": "figure", "n": 1}, lambda s: s.figures[0]),
           ({"type": "vp", "n": 6}, lambda s: s.score[0])]


@pytest.mark.parametrize("bonus,measure", BONUSES, ids=[b["type"] for b, _ in BONUSES])
def test_M10_each_kind_of_bonus(bonus, measure):
    tiles = _tiles((bonus, {"type": "vp", "n": 1}))
    g = SA.StoneAgeGame(2, mammoth_herd=True, tiles=tiles)
    s = g.new_initial_state()
    while s.decision() != "placement":
        s.apply_action(s.chance_outcomes()[0][0])
    s.unplaced[0] = 1
    do(s, "place 1 on the clay pit", "place 5 on the hunting grounds")
    roll(s, 1)
    do(s, "move a figure paying 1 food")
    roll(s, 1, 1, 1, 1, 1)
    roll(s, 1)
    before = float(measure(s))
    do(s, "take the '1' bonus")
    if s.is_chance_node():  # the civ card: drawn face down
        s.apply_action(s.chance_outcomes()[0][0])
    if s.decision() == "resource of choice":
        do(s, "take 1 stone")
    gain = float(measure(s)) - before
    n = bonus.get("n", 1)
    assert gain == (n if bonus["type"] != "resource" else 2)


def test_M11_the_most_tiles_score_10_ties_share_none_without_tiles():
    s = new(3, mammoth=True, tile=5)
    _last_round(s)
    s.tile_state[[0, 1, 2]] = [3, 4, 3]  # seat 0 won 2 tiles, seat 1 one
    s.tiles_won[:3] = [2, 1, 0]
    do(s, "place 5 on the hunting grounds", "place 5 on the hunting grounds",
       "place 5 on the hunting grounds")
    _finish_round(s)
    assert s.sources[:3, SRC_MAJORITY].tolist() == [10, 0, 0]
    s = new(2, mammoth=True, tile=5)
    _last_round(s)
    do(s, "place 5 on the hunting grounds", "place 5 on the hunting grounds")
    _finish_round(s)
    assert s.sources[:2, SRC_MAJORITY].tolist() == [0, 0]  # the ruling: a tile at least


def test_M12_won_tiles_are_public_and_the_piles_fronts_are_nobodys():
    g = SA.StoneAgeGame(3, mammoth_herd=True)
    s = g.new_initial_state()
    rng = random.Random(12)
    while s.round < 4:
        s.apply_action(s.sample_chance(rng) if s.is_chance_node()
                       else rng.choice(s.legal_actions()))
    # the tile states (won by whom, left, face up) are in every seat's view
    views = [SA.seat_state(s, q)["position"]["tile_state"] for q in range(3)]
    assert views[0] == views[1] == views[2] == s.tile_state.tolist()
    # the pile's order is in no state: a front is drawn when it is turned
    assert 0 in s.tile_state[:16].tolist()
    turned = [a for a, _ in s.chance_outcomes()] if s.decision() == "Mammoth tile turned" \
        else None
    assert turned is None or len(turned) > 1

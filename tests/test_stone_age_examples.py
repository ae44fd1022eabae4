"""The worked examples E1-E6 of docs/stone_age.md, each a test, played through the public API
from positions dealt by hand (tests/stone_age_positions.py)."""

import pytest
from stone_age_positions import building, card, do, names, new, roll
from test_stone_age_rules import _last_round

from stoneage_env.engine.constants import (
    CLAY,
    FOOD,
    GOLD,
    SRC_FARMERS,
    SRC_GREEN,
    SRC_HUT_BUILDERS,
    SRC_RESOURCES,
    SRC_SHAMANS,
    SRC_TOOL_MAKERS,
    STONE,
    WOOD,
)


def _hunting_with_tools():
    """E1's position: tiles 2, 1, 1 unused and an OUT 3 card; three figures hunt, 5 3 1."""
    s = new(2)
    s.unplaced[0] = 3
    s.tiles[0] = [2, 1, 1]
    s.one_use[0, 2] = 1  # OUT 3
    do(s, "place 3 on the hunting grounds", "place 5 on the forest")
    roll(s, 5, 3, 1)
    assert s.decision() == "tools" and s.current_player() == 0
    return s


@pytest.mark.parametrize("tools,food", [((), 4), (("add tool tile 1",), 5),
                                        (("add tool tile 2", "add tool tile 1"), 6),
                                        (("add tool tile 2", "add tool tile 1",
                                          "add tool tile 1"), 6),
                                        (("add tool tile 2", "add tool tile 1",
                                          "add tool tile 1", "add one-use tool 3"), 8)])
def test_E1_hunting_with_tools(tools, food):
    s = _hunting_with_tools()
    do(s, *tools)
    if s.decision() == "tools":
        do(s, "take the yield")
    assert s.goods[0, FOOD] - 12 == food


def test_E1_one_tile_used_leaves_the_others_for_later_this_round():
    s = _hunting_with_tools()
    do(s, "add tool tile 1", "take the yield")
    assert s.goods[0, FOOD] == 12 + 5
    used = {(int(v), int(u)) for v, u in zip(s.tiles[0], s.tile_used[0], strict=True)}
    assert used == {(2, 0), (1, 1), (1, 0)} and s.one_use[0, 2] == 1


def _payments(s) -> dict[tuple[int, ...], int]:
    """Every way to finish the building payment at ``s``: {(wood, clay, stone, gold): VP}."""
    out = {}
    for a in s.legal_actions():
        child = s.clone()
        child.apply_action(a)
        built = [e for e in child.last_events() if e.kind == "build"]
        if built:
            out[tuple(int(x) for x in child.paid[1:])] = built[0].data["vp"]
        elif child.decision() == "building payment":
            out.update(_payments(child))
    return out


def test_E2_every_legal_payment_of_a_flexible_building():
    s = new(2, tops=("B19", "B22"))
    s.goods[0, [WOOD, CLAY, GOLD]] = [4, 2, 2]
    s.unplaced[0] = 1
    do(s, "place on building stack 1", "place 5 on the hunting grounds")
    assert s.decision() == "building payment"
    assert _payments(s) == {(4, 1, 0, 0): 16, (3, 2, 0, 0): 17, (4, 0, 0, 1): 18,
                            (3, 0, 0, 2): 21}
    s = new(2, tops=("B01", "B22"))
    s.goods[0, [WOOD, CLAY, GOLD]] = [4, 2, 2]
    s.unplaced[0] = 1
    do(s, "place on building stack 2", "place 5 on the hunting grounds")
    best = max(_payments(s).items(), key=lambda kv: kv[1])
    assert best == ((3, 2, 0, 2), 29)  # at most 7 pieces: 2 gold, 2 clay and 3 wood


def _short():
    """E3's feeding: 7 figures, agriculture 2, 3 food, 1 wood and 2 stone."""
    s = new(2)
    s.figures[0] = 7
    s.unplaced[0] = 0  # (its figures stand idle: the feeding is what E3 is about)
    s.resettle()
    s.agriculture[0] = 2
    s.goods[0, [FOOD, WOOD, STONE]] = [3, 1, 2]
    do(s, "place 5 on the forest")
    roll(s, 1, 1, 1, 1, 1)
    return s


def test_E3_a_feeding_shortfall_paid_in_resources_or_with_the_penalty():
    s = _short()
    assert s.decision() == "feeding shortfall" and s.pay_need == 2 and s.goods[0, FOOD] == 0
    assert sorted(names(s)) == ["pay 1 stone", "pay 1 wood", "take the -10 penalty"]
    paid = s.clone()
    do(paid, "pay 1 wood")  # (then one stone: the only way on, the engine's)
    assert paid.goods[0, [FOOD, WOOD, STONE]].tolist() == [0, 0, 1] and paid.score[0] == 0
    penalty = s.clone()
    do(penalty, "take the -10 penalty")
    assert penalty.goods[0, [FOOD, WOOD, STONE]].tolist() == [0, 1, 2]
    assert penalty.score[0] == -10


def test_E3_with_a_single_resource_only_the_penalty_is_possible():
    s = new(2)
    s.figures[0] = 7
    s.unplaced[0] = 0
    s.resettle()
    s.agriculture[0] = 2
    s.goods[0, [FOOD, WOOD]] = [3, 1]
    do(s, "place 5 on the forest")
    roll(s, 1, 1, 1, 1, 1)
    assert s.score[0] == -10 and s.goods[0, WOOD] == 1
    assert [e.data for e in s.events() if e.kind == "shortfall"] == [
        {"seat": 0, "missing": 2, "penalty": 1}]


@pytest.mark.parametrize("agriculture", [0, 10])
def test_E4_dice_for_all_in_a_four_player_game(agriculture):
    s = new(4, display=("F1", "G3", "F3", "H1"))
    s.agriculture[0] = agriculture
    s.goods[0, WOOD] = 1
    s.unplaced[0] = 1
    do(s, "place on card slot 1")
    for _ in range(3):
        do(s, "place 5 on the hunting grounds")
    do(s, "pay 1 wood")  # (seat 0's only location resolves at once)
    roll(s, 6, 5, 1, 1)
    assert "pick the die showing 6" in names(s)  # at agriculture 10 too: a pick (X9)
    do(s, "pick the die showing 6")
    assert s.current_player() == 1
    do(s, "pick the die showing 5")
    # seats 2 and 3 are left two dice showing 1: nothing to choose, the engine picks
    assert s.agriculture[0] == min(agriculture + 1, 10) and s.tiles[1].sum() == 1
    assert s.goods[2, WOOD] == 1 and s.goods[3, WOOD] == 1


def test_E5_final_scoring():
    s = new(2)
    cards = ["G1", "G2", "G3", "G5", "G13", "G13", "G9", "F1", "F4", "T1", "T3", "H5", "S2"]
    for cid in cards:
        s.cards[0, card(cid)] += 1
        s.deck[card(cid)] -= 1
    for bid in ("B02", "B03", "B04", "B05", "B06"):
        s.built[0, building(bid)] = 1
        s.unseen[building(bid)] -= 1
    s.agriculture[0] = 6
    s.tiles[0] = [3, 2, 2]
    s.figures[0] = 8
    s.unplaced[0] = 0
    s.goods[0, [FOOD, WOOD, GOLD]] = [5, 2, 1]
    s.resettle()
    _last_round(s)
    do(s, "place 5 on the hunting grounds")
    roll(s, 1, 1, 1, 1, 1)
    assert s.is_terminal()
    src = s.sources[0]
    assert (src[SRC_GREEN], src[SRC_FARMERS], src[SRC_TOOL_MAKERS], src[SRC_HUT_BUILDERS],
            src[SRC_SHAMANS], src[SRC_RESOURCES]) == (29, 18, 21, 15, 8, 3)
    assert s.score[0] == 94 and s.tie_break()[0] == 21


def _taming(yellow_figures: int):
    """E6: the herd on the clay pit (tile M06: '1' a tool, 'all' 3 VP); red (seat 0) had 3
    figures there and moves 2 paying 2 food, blue (seat 1) moves 2, yellow (seat 2)
    ``yellow_figures``."""
    s = new(3, mammoth=True, tile=5)
    assert s.herd == CLAY
    s.unplaced[:3] = [3, 2, yellow_figures]
    do(s, "place 3 on the clay pit", "place 2 on the clay pit",
       f"place {yellow_figures} on the clay pit")
    roll(s, 4, 4, 4)  # red rolls for clay
    assert s.decision() == "Mammoth move"
    do(s, "move a figure paying 1 food", "move a figure paying 1 food", "move no more figures")
    roll(s, 3, 3)
    do(s, "move a figure paying 1 food", "move a figure paying 1 food")
    roll(s, *([2] * yellow_figures))
    for _ in range(yellow_figures):
        do(s, "move a figure paying 1 food")
    return s


def test_E6_mammoth_taming_the_longest_high_dice_win():
    s = _taming(1)
    assert s.on_tile[:3].tolist() == [2, 2, 1] and s.decision() == "taming die"
    roll(s, 6, 1)  # red
    roll(s, 5, 4)  # blue
    roll(s, 6)  # yellow
    assert s.current_player() == 0 and s.decision() == "Mammoth reward"
    tools, score = s.tiles[0].sum(), s.score[:3].tolist()
    do(s, "take the '1' bonus")
    assert s.tiles[0].sum() == tools + 1
    assert s.score[:3].tolist() == [score[0], score[1] + 3, score[2] + 3]
    assert s.tiles_won[0] == 1 and s.tile_state[5] == 3 + 0
    assert s.on_tile.sum() == 0


def test_E6_variant_tied_after_all_dice_no_winner_and_the_tile_leaves():
    s = _taming(2)
    roll(s, 6, 1)  # red
    roll(s, 5, 4)  # blue
    roll(s, 6, 1)  # yellow: the same dice as red
    assert s.tiles_won.sum() == 0 and s.tile_state[5] == 2
    assert [e.data["which"] for e in s.events() if e.kind == "reward"] == [2, 2, 2]
    assert [e.data["seat"] for e in s.events() if e.kind == "taming"] == [-1]

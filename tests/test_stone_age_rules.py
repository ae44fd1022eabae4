"""Stone Age's base rules S1-S32 (docs/stone_age.md), one test or more per rule, each named
after it; the rulings X1-X22 are tests/test_stone_age_rulings.py, the Mammoth Herd M1-M12 and
the worked examples E1-E6 their own files. Positions are dealt by hand
(tests/stone_age_positions.py) and played through the public API."""

import pytest
from stone_age_positions import building, card, deal, do, names, new, roll, turn

import stoneage_env as SA
from meduris_rl.kit.errors import InputError
from stoneage_env.engine.components import BUILDINGS, CARDS
from stoneage_env.engine.constants import (
    C_BUILDING,
    C_CARD,
    CLAY,
    FOOD,
    GOLD,
    STACK0,
    STONE,
    VALUE,
    WOOD,
)


def test_S1_two_to_four_players_in_seats_and_clockwise_order():
    for n in (2, 3, 4):
        s = new(n)
        assert s.current_player() == 0 and len(s.returns()) == n
        do(s, "place 1 on the hunting grounds")
        assert s.current_player() == 1  # next = seat + 1
    for bad in (1, 5, "2", True, 2.0):
        with pytest.raises(InputError, match="num_players"):
            SA.StoneAgeGame(bad)


def test_S2_goods_values_and_unlimited_supply():
    assert VALUE.tolist() == [2, 3, 4, 5, 6]  # food, wood, clay, stone, gold
    s = new(2)
    s.goods[0, WOOD] = 10_000  # no stock limit: a gain is never refused
    do(s, "place 3 on the forest", "place 5 on the hunting grounds", "place 2 on the quarry")
    do(s, "resolve the forest")
    roll(s, 6, 6, 6)
    assert s.goods[0, WOOD] == 10_006


def test_S3_the_start_of_every_player():
    s = new(4)
    n = 4
    assert s.goods[:n].tolist() == [[12, 0, 0, 0, 0]] * n
    assert s.figures[:n].tolist() == [5] * n and s.agriculture[:n].tolist() == [0] * n
    assert s.tiles[:n].sum() == 0 and s.cards.sum() == 0 and s.built.sum() == 0
    assert s.score[:n].tolist() == [0] * n


def test_S4_tracks_are_capped_and_the_score_is_not():
    s = new(2)
    s.figures[0], s.agriculture[0] = 10, 10
    s.tiles[0] = [4, 4, 4]
    # 2 players: tool maker and hut close the field (S10a)
    do(s, "place on the tool maker", "place 5 on the hunting grounds", "place 2 on the hut")
    do(s, "place 2 on the forest")  # (5 placeable figures this round: set at its start)
    do(s, "resolve the tool maker")
    assert s.tiles[0].tolist() == [4, 4, 4]
    ev = [e for e in s.events() if e.kind == "tool_step"][-1]
    assert ev.data["changed"] == 0
    do(s, "resolve the hut")
    assert s.figures[0] == 10
    s2 = new(2)
    s2.score[0] = -5
    s2.sources[0, 3] = -5
    assert SA.violations(s2) == []  # negative scores are scores


def test_S5_display_of_four_slots_dealt_from_slot_1_whatever_the_players():
    for n in (2, 4):
        s = new(n, display=("G13", "F1", "T1", "S2"))
        assert s.display.tolist() == [card("G13"), card("F1"), card("T1"), card("S2")]
        assert s.deck.sum() == 32
    s = new(2)
    names_now = names(s)
    for k in range(1, 5):
        assert f"place on card slot {k}" in names_now


def test_S6_one_stack_of_seven_per_player_tops_face_up():
    for n in (2, 3, 4):
        s = new(n)
        assert s.stack_size.tolist() == [7] * n + [0] * (4 - n)
        assert (s.stack_top[:n] >= 0).all() and (s.stack_top[n:] == -1).all()
        assert s.unseen.sum() == 28 - n  # the stacks left out stay unseen
        assert f"place on building stack {n}" in names(s)
        assert f"place on building stack {n + 1}" not in names(s)


def test_S7_seat_0_starts_and_the_start_player_passes_clockwise():
    s = new(3)
    assert s.start_player == 0
    for _seat in (0, 1, 2):
        do(s, "place 5 on the hunting grounds")
    for _ in range(3):
        roll(s, 1, 1, 1, 1, 1)  # 2 food each, then feeding (no shortfall decision: 12 food)
    assert s.round == 2 and s.start_player == 1 and s.current_player() == 1
    other = SA.StoneAgeGame(3, start_player=2).new_initial_state()
    assert other.start_player == 2


def test_S8_a_round_is_placement_actions_feeding_then_the_next_round():
    s = new(2)
    do(s, "place 5 on the hunting grounds", "place 5 on the clay pit")
    roll(s, 2, 2, 2, 2, 2)
    roll(s, 4, 4, 4, 4, 4)
    order = [e.kind for e in s.events()]
    i_place, i_resolve, i_feed = (order.index(k) for k in ("place", "yield", "feed"))
    assert i_place < i_resolve < i_feed
    assert s.round == 2 and s.decision() == "placement"


def test_S9_capacities_of_the_locations():
    s = new(4)
    do(s, "place 5 on the forest")
    assert "place 2 on the forest" in names(s) and "place 3 on the forest" not in names(s)
    do(s, "place 2 on the forest")
    assert not any(n.endswith("forest") for n in names(s))  # 7 in all
    do(s, "place 2 on the hut")
    assert "place 2 on the hut" not in names(s) and "place on the tool maker" in names(s)
    do(s, "place on the tool maker")
    assert "place on the tool maker" not in names(s)
    do(s, "place on card slot 1")
    assert "place on card slot 1" not in names(s)
    do(s, "place 3 on the hunting grounds", "place 4 on the hunting grounds")  # no limit
    assert s.placed[0].sum() == 7


def test_S10a_two_and_three_players_use_two_village_locations_at_most():
    for n in (2, 3):
        s = new(n)
        do(s, "place on the tool maker", "place on the field")
        assert "place 2 on the hut" not in names(s)
    s = new(4)
    do(s, "place on the tool maker", "place on the field")
    assert "place 2 on the hut" in names(s)


def test_S10b_a_resource_site_holds_one_player_in_two_and_two_in_three():
    s = new(2)
    do(s, "place 1 on the quarry")
    assert not any(n.endswith("quarry") for n in names(s))
    s = new(3)
    do(s, "place 1 on the quarry", "place 1 on the quarry")
    assert not any(n.endswith("quarry") for n in names(s))
    do(s, "place 1 on the hunting grounds")
    s = new(4)
    do(s, "place 1 on the quarry", "place 1 on the quarry", "place 1 on the quarry")
    assert "place 1 on the quarry" in names(s)


def test_S11_one_location_a_turn_never_one_already_used_and_no_passing():
    s = new(2)
    do(s, "place 2 on the forest")
    assert s.current_player() == 1
    do(s, "place 1 on the clay pit")
    assert not any(n.endswith("forest") for n in names(s))  # its own figures stand there
    assert all(n.startswith("place") for n in names(s))  # no passing
    do(s, "place 3 on the hunting grounds")
    assert s.current_player() == 1  # seat 0 has none left: skipped
    assert s.unplaced[0] == 0


def test_S12_placement_ends_when_nobody_can_place_and_unplaced_figures_are_fed():
    s = new(2)
    s.figures[0] = s.unplaced[0] = 10
    s.goods[0, FOOD] = 0
    s.agriculture[0] = 10
    do(s, "place 1 on the hunting grounds", "place 1 on the forest", "place 1 on the clay pit",
       "place 1 on the quarry", "place 1 on the river", "place on the tool maker",
       "place on the field", "place on card slot 1", "place on card slot 2",
       "place on card slot 3", "place on card slot 4", "place on building stack 1")
    # the last free location went to seat 0 by itself (its single legal placement); then
    # every location is taken or closed for it
    assert s.placed[STACK0 + 1, 0] == 1
    assert s.unplaced[0] == 2 and s.unplaced[1] == 0
    assert s.decision() == "location to resolve"
    while not any(e.kind == "feed" and e.data["seat"] == 0 for e in s.events()):
        if s.is_chance_node():
            roll(s, 1)
        else:
            legal = names(s)
            do(s, "decline" if "decline" in legal else legal[0])
    feed = [e for e in s.events() if e.kind == "feed" and e.data["seat"] == 0][0]
    assert feed.data == {"seat": 0, "food": 10, "agriculture": 10}  # the 3 unplaced eat too


def test_S13_each_seat_resolves_all_its_locations_in_its_order_then_the_next():
    s = new(2)
    do(s, "place 2 on the forest", "place 2 on the clay pit", "place 3 on the hunting grounds",
       "place 3 on the hunting grounds")
    assert s.current_player() == 0 and sorted(names(s)) == [
        "resolve the forest", "resolve the hunting grounds"]
    do(s, "resolve the hunting grounds")
    roll(s, 1, 1, 1)
    assert s.is_chance_node() and s.loc == 1  # the last location needs no choice
    roll(s, 1, 1)
    assert s.turn_seat == 1 and s.placed[:, 0].sum() == 0


@pytest.mark.parametrize("site,divisor", [(0, 2), (1, 3), (2, 4), (3, 5), (4, 6)])
def test_S14_a_roll_yields_the_pips_over_the_goods_value(site, divisor):
    s = new(4)
    s.unplaced[0] = 3  # (seat 0 places 3 figures only: its only location)
    spot = ["hunting grounds", "forest", "clay pit", "quarry", "river"][site]
    do(s, f"place 3 on the {spot}")
    for _ in range(3):
        do(s, "place 5 on the hunting grounds")
    before = int(s.goods[0, site])
    roll(s, 6, 5, 4)  # seat 0's only location resolves without a choice
    assert s.goods[0, site] - before == 15 // divisor
    assert [e.data for e in s.events() if e.kind == "yield"][0] == {
        "seat": 0, "goods": site, "amount": 15 // divisor, "pips": 15}


def test_S15_each_tile_once_a_round_any_subset_usable_again_next_round():
    s = new(2)
    s.tiles[0] = [2, 1, 0]
    do(s, "place 2 on the forest", "place 5 on the hunting grounds", "place 3 on the quarry")
    do(s, "resolve the forest")
    roll(s, 1, 1)
    assert sorted(names(s)) == ["add tool tile 1", "add tool tile 2", "take the yield"]
    do(s, "add tool tile 1")  # a subset: the 1 only (tiles go by falling value)
    assert s.goods[0, WOOD] == 1 and s.tile_used[0].tolist() == [0, 1, 0]
    roll(s, 2, 2, 2)
    assert names(s) == ["add tool tile 2", "take the yield"]  # the used 1 is gone
    do(s, "add tool tile 2")
    assert s.tile_used[0].tolist() == [1, 1, 0]
    while s.round == 1:
        roll(s, 1)
    assert s.tile_used[0].tolist() == [0, 0, 0]  # S29


TOOL_STEPS = ([1, 0, 0], [1, 1, 0], [1, 1, 1], [2, 1, 1], [2, 2, 1], [2, 2, 2], [3, 2, 2],
              [3, 3, 2], [3, 3, 3], [4, 3, 3], [4, 4, 3], [4, 4, 4], [4, 4, 4])


@pytest.mark.parametrize("step", range(1, 14))
def test_S16_the_tool_maker_adds_then_raises_tiles_evenly(step):
    s = new(4)
    s.tiles[0] = TOOL_STEPS[step - 2] if step > 1 else [0, 0, 0]
    do(s, "place on the tool maker")
    for _ in range(3):
        do(s, "place 5 on the hunting grounds")
    do(s, "place 4 on the hunting grounds")
    do(s, "resolve the tool maker")
    assert sorted(s.tiles[0].tolist(), reverse=True) == TOOL_STEPS[step - 1]
    assert [e for e in s.events() if e.kind == "tool_step"][-1].data["changed"] == int(
        step <= 12)


def _finish_round(s):
    r = s.round
    while s.round == r and not s.is_terminal():
        if s.is_chance_node():
            roll(s, 6)
        else:
            legal = names(s)
            pick = next((x for x in ("take the yield", "decline", "pay 1 wood") if x in legal),
                        legal[0])
            do(s, pick)


def test_S17_the_hut_adds_a_figure_fed_now_and_placed_next_round():
    s = new(4)
    do(s, "place 2 on the hut")
    for _ in range(3):
        do(s, "place 5 on the hunting grounds")
    do(s, "place 3 on the hunting grounds")
    assert s.figures[0] == 5
    do(s, "resolve the hut")
    assert s.figures[0] == 6 and s.unplaced[0] == 0
    _finish_round(s)
    feed = [e for e in s.events() if e.kind == "feed" and e.data["seat"] == 0][0]
    assert feed.data["food"] == 6
    assert s.unplaced[0] == 6


def _field_from(level: int):
    """A 4-player game in which seat 0, at agriculture ``level``, has resolved the field."""
    s = new(4)
    s.agriculture[0] = level
    do(s, "place on the field")
    for _ in range(3):
        do(s, "place 5 on the hunting grounds")
    do(s, "place 4 on the hunting grounds")
    do(s, "resolve the field")
    return s


def test_S18_the_field_raises_agriculture_to_ten_at_most():
    s = _field_from(9)
    assert s.agriculture[0] == 10
    step = [e for e in s.events() if e.kind == "agriculture"][-1]
    assert step.data == {"seat": 0, "level": 10, "changed": 1}
    s = _field_from(10)
    assert s.agriculture[0] == 10
    assert [e for e in s.events() if e.kind == "agriculture"][-1].data["changed"] == 0


def _others_hunt(s, placement: str):
    """Seat 0 places ``placement``; then the placement goes on with hunting (seat 0 places 4
    figures, the others 5) until it is over."""
    do(s, placement)
    while s.decision() == "placement":
        do(s, "place 5 on the hunting grounds" if s.current_player() else
           "place 4 on the hunting grounds")


def _to_place(s, location: str):
    """Seat 0 places on ``location`` (a card slot or a building stack), the others hunt; seat 0
    resolves it first when it is asked which location comes first."""
    _others_hunt(s, f"place on {location}")
    if s.decision() == "location to resolve":
        do(s, f"resolve the {location}")


def _at_slot_1_payment(cid: str):
    """A 2-player game with card ``cid`` in slot 1 that seat 0 (1 wood) has placed on and is
    now to pay for."""
    s = new(2, display=(cid, "G3", "G4", "G5"))
    s.goods[0, WOOD] = 1
    _to_place(s, "card slot 1")
    return s


def _to_slot(s, k: int, pay: dict[int, int]):
    """Seat 0 on card slot ``k`` with ``pay`` resources; the others hunt; seat 0 resolves the
    slot (its only location but the hunting of the rest)."""
    for g, amount in pay.items():
        s.goods[0, g] = amount
    _others_hunt(s, f"place on card slot {k}")
    while s.current_player() == 0 and f"resolve the card slot {k}" in names(s):
        do(s, f"resolve the card slot {k}")
        break
    if s.is_chance_node():  # the hunting first
        roll(s, 1, 1, 1, 1)
        if s.decision() == "location to resolve":
            do(s, f"resolve the card slot {k}")


def test_S19_a_card_costs_exactly_k_resources_or_is_declined_and_its_slot_stays_empty():
    s = new(2)
    _to_slot(s, 3, {WOOD: 2, GOLD: 2})
    assert s.decision() == "card payment"
    # paying goes wood, clay, stone, gold: gold first would leave no way to pay the rest
    assert sorted(names(s)) == ["decline", "pay 1 wood"]
    do(s, "pay 1 wood")
    assert sorted(names(s)) == ["pay 1 gold", "pay 1 wood"]
    do(s, "pay 1 gold")  # kinds go in order: gold then gold, the only way on (the engine's)
    assert s.cards[0, card("F3")] == 1 and s.display[2] == -1
    assert s.goods[0, WOOD] == 1 and s.goods[0, GOLD] == 0
    assert s.goods[0, STONE] == 1  # F3's top: RES 1 stone (S20)
    s = new(2)
    _to_slot(s, 4, {WOOD: 3})
    # 3 resources cannot pay slot 4 (food never pays): declining is all there is
    assert [e.data for e in s.events() if e.kind == "decline"] == [{"seat": 0, "location": 11}]
    assert s.display[3] == card("H1") and s.goods[0, WOOD] == 3


def test_S20_top_effects_apply_at_once():
    cases = {"G1": lambda s: s.goods[0, FOOD], "F3": lambda s: s.goods[0, STONE],
             "F2": lambda s: s.agriculture[0], "G9": lambda s: s.tiles[0].sum(),
             "G13": lambda s: s.score[0], "T2": lambda s: s.one_use[0, 2]}
    for cid, measure in cases.items():
        s = _at_slot_1_payment(cid)
        before = float(measure(s))
        do(s, "pay 1 wood")
        gain = float(measure(s)) - before
        top = CARDS[card(cid)]
        assert gain == {"G1": 7, "F3": 1, "F2": 1, "G9": 1, "G13": 3, "T2": 1}[cid], (cid, top)


def test_S21_dice_for_all_one_die_per_player_picked_from_the_buyer_clockwise():
    s = new(3, display=("F1", "G3", "G4", "G5"))
    s.goods[1, WOOD] = 1
    do(s, "place 5 on the hunting grounds", "place on card slot 1",
       "place 5 on the hunting grounds", "place 4 on the hunting grounds")
    roll(s, 1, 1, 1, 1, 1)  # seat 0 hunts first
    do(s, "resolve the card slot 1", "pay 1 wood")
    roll(s, 6, 5, 2)  # seat 1 bought F1: 3 dice
    assert s.current_player() == 1 and sorted(names(s)) == [
        "pick the die showing 2", "pick the die showing 5", "pick the die showing 6"]
    do(s, "pick the die showing 2")
    assert s.goods[1, CLAY] == 1 and s.current_player() == 2
    do(s, "pick the die showing 6")
    assert s.agriculture[2] == 1
    assert s.tiles[0].sum() == 1  # seat 0 took the last die (5: a tool step) itself


def test_S22_a_one_use_tool_joins_any_roll_once():
    s = new(2)
    s.one_use[0, 2] = 1  # OUT 3
    s.tiles[0] = [1, 0, 0]
    do(s, "place 2 on the forest", "place 5 on the hunting grounds", "place 3 on the quarry")
    do(s, "resolve the forest")
    roll(s, 1, 1)
    assert sorted(names(s)) == ["add one-use tool 3", "add tool tile 1", "take the yield"]
    do(s, "add tool tile 1", "add one-use tool 3")
    assert s.goods[0, WOOD] == 2 and s.one_use[0].sum() == 0  # 2 + 1 + 3 = 6


def test_S23_any2_takes_two_resources_of_any_kinds():
    s = _at_slot_1_payment("G8")
    do(s, "pay 1 wood")
    assert s.decision() == "ANY2 claim" and "keep the ANY2 card" in names(s)
    do(s, "take 1 gold", "take 1 gold")
    assert s.goods[0, GOLD] == 2 and s.any_unclaimed[0] == 0


def test_S24_an_extra_card_is_drawn_face_down_for_its_bottom_only():
    s = _at_slot_1_payment("G14")
    do(s, "pay 1 wood")
    assert s.is_chance_node() and s.decision() == "card drawn face down"
    food = int(s.goods[0, FOOD])
    deal(s, "G1")  # its top (FOOD 7) is ignored
    assert s.secret[0, card("G1")] == 1 and s.cards[0, card("G1")] == 1
    assert s.goods[0, FOOD] == food


def _to_stack(s, j: int, goods: dict[int, int]):
    for g, amount in goods.items():
        s.goods[0, g] = amount
    _to_place(s, f"building stack {j}")


def test_S25_a_building_scores_at_once_and_the_next_tile_turns():
    s = new(2, tops=("B10", "B01"))
    _to_stack(s, 1, {WOOD: 1, CLAY: 1, STONE: 1})
    assert sorted(names(s)) == ["decline", "take it"]
    do(s, "take it")
    assert s.score[0] == 12 and s.built[0, building("B10")] == 1
    assert s.goods[0, 1:].sum() == 0 and s.stack_size[0] == 6
    assert s.is_chance_node() and s.decision() == "building turned"
    turn(s, "B05")
    assert s.stack_top[0] == building("B05")


def test_S26_fixed_count_kinds_and_any_costs():
    s = new(2, tops=("B14", "B22"))
    _to_stack(s, 1, {WOOD: 4, CLAY: 3})
    # exactly 4 of exactly 1 kind: 4 wood only (3 clay are too few)
    assert sorted(names(s)) == ["decline", "pay 1 wood"]
    do(s, "pay 1 wood")  # the three other woods are then the only way on: the engine pays
    assert s.score[0] == 12 and s.goods[0, CLAY] == 3 and s.goods[0, WOOD] == 0
    s = new(2, tops=("B01", "B22"))
    _to_stack(s, 2, {GOLD: 2, STONE: 1})
    do(s, "pay 1 stone")
    assert "take it" in names(s)  # any: 1 to 7
    do(s, "pay 1 gold")
    assert "take it" in names(s) and "pay 1 gold" in names(s)
    do(s, "pay 1 gold")  # nothing left to pay: taking it is all that remains
    assert s.score[0] == 5 + 6 + 6 and s.decision() == "building turned"
    for row in BUILDINGS:
        if row[1] == 0:
            assert row[10] == int((row[2:6] * VALUE[1:]).sum())  # fixed VP = sum of values


def test_S27_feeding_takes_agriculture_then_one_food_per_figure():
    s = new(2)
    s.agriculture[0] = 3
    s.goods[0, FOOD] = 4
    do(s, "place 5 on the forest", "place 5 on the hunting grounds")
    roll(s, 1, 1, 1, 1, 1)
    roll(s, 6, 6, 6, 6, 6)
    feed = [e for e in s.events() if e.kind == "feed" and e.data["seat"] == 0][0]
    assert feed.data == {"seat": 0, "food": 5, "agriculture": 3}
    assert s.goods[0, FOOD] == 2  # 4 + 3 - 5: left for later


def test_S28_a_shortfall_costs_all_food_then_resources_or_10_points_once():
    s = new(2)
    s.goods[0, FOOD] = 0
    s.goods[0, STONE] = 6
    do(s, "place 5 on the hunting grounds", "place 5 on the forest")
    roll(s, 1, 1, 1, 1, 1)  # 5 pips: 2 food
    roll(s, 6, 6, 6, 6, 6)
    assert s.decision() == "feeding shortfall" and s.pay_need == 3
    assert s.goods[0, FOOD] == 0 and sorted(names(s)) == ["pay 1 stone", "take the -10 penalty"]
    keep = s.clone()
    do(s, "pay 1 stone")  # then the two others are forced
    assert s.goods[0, STONE] == 3 and s.score[0] == 0
    do(keep, "take the -10 penalty")
    assert keep.score[0] == -10 and keep.goods[0, STONE] == 6


def test_S29_the_display_slides_right_and_fills_from_slot_1():
    s = new(2, display=("G1", "G3", "F3", "H1"))
    s.goods[0, WOOD] = 1
    _others_hunt(s, "place on card slot 1")
    while not s.is_chance_node() or s.decision() != "card dealt":
        if s.is_chance_node():
            roll(s, 6)
        elif "pay 1 wood" in names(s):
            do(s, "pay 1 wood")
        else:
            do(s, names(s)[0])
    # G1 left slot 1; G3, F3, H1 slid to slots 1-3; slot 4 is dealt
    assert s.display.tolist() == [card("G3"), card("F3"), card("H1"), -1]
    deal(s, "S1")
    assert s.display[3] == card("S1")


def test_S30a_an_empty_stack_ends_the_game_after_the_round():
    s = new(2)
    s.stack_size[0] = 1
    s.unseen[building("B02")] -= 6  # (the six below left the stack: keep the 28 counted)
    s.built[1, building("B02")] = 6
    _to_stack(s, 1, {WOOD: 2, CLAY: 1})
    do(s, "take it")
    assert s.stack_size[0] == 0 and not s.is_terminal()
    _finish_round(s)
    assert s.is_terminal() and s.end_reason == 1 and s.round == 1


def test_S30b_a_deck_that_cannot_fill_the_display_ends_the_game_at_the_round_start():
    s = new(2)
    s.deck[:] = 0  # nothing left to deal
    s.goods[0, WOOD] = 1
    do(s, "place on card slot 1", "place 5 on the hunting grounds",
       "place 4 on the hunting grounds", "resolve the card slot 1", "pay 1 wood")
    assert s.display[0] == -1 and not s.is_terminal()
    _finish_round(s)
    assert s.is_terminal() and s.end_reason == 2
    assert any(e.kind == "final_score" for e in s.events())


def _last_round(s):
    """Stack 1 is empty: the game ends after this round (S30a)."""
    s.stack_size[0] = 0
    s.stack_top[0] = -1


def test_S31_final_scoring_adds_each_source():
    s = new(2)
    s.cards[0, card("G1")] = 1
    s.cards[0, card("G2")] = 1
    s.cards[0, card("G3")] = 1
    s.cards[0, card("F4")] = 1  # 2 farmers
    s.cards[0, card("S4")] = 1  # 2 shamans
    s.deck[[card("G1"), card("G2"), card("G3"), card("F4"), card("S4")]] -= 1
    s.agriculture[0] = 4
    s.goods[0, GOLD] = 3
    _last_round(s)
    do(s, "place 5 on the hunting grounds", "place 5 on the hunting grounds")
    _finish_round(s)
    assert s.is_terminal()
    src = dict(zip(["green", "farmers", "shamans", "resources"],
                   s.sources[0, [4, 5, 8, 9]].tolist(), strict=True))
    # pottery x2 and weaving: {pottery, weaving} 4 + {pottery} 1
    assert src == {"green": 5, "farmers": 8, "shamans": 10, "resources": 3}


def test_S32_the_highest_score_wins_ties_by_agriculture_tools_figures():
    s = new(2)
    _last_round(s)
    s.agriculture[1] = 1  # equal points at the end, seat 1 ahead on the tie-break
    s.goods[0, FOOD] = 30
    s.goods[1, FOOD] = 30
    do(s, "place 5 on the hunting grounds", "place 5 on the hunting grounds")
    _finish_round(s)
    assert s.scores() == [0, 0]
    assert s.ranks() == [2, 1] and s.winners() == [1] and s.returns() == [-1.0, 1.0]


def test_every_card_and_building_entry_is_used_once_per_copy():
    s = new(2)
    assert s.deck.sum() + 4 == 36 and CARDS[:, 0].sum() == 36
    assert s.unseen.sum() + 2 == 28
    assert {SA.action_to_string(C_CARD + card("G1")),
            SA.action_to_string(C_BUILDING + building("B22"))} == {"card G1 drawn",
                                                                   "building B22 turned"}

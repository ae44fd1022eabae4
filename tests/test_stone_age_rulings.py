"""Stone Age's rulings X1-X22 (docs/stone_age.md): where the texts are silent or disagree, the
ruling decides; one test or more per ruling, named after it."""

import random

import pytest
from stone_age_positions import building, card, do, names, new, roll
from test_stone_age_rules import _finish_round, _last_round, _to_slot, _to_stack

import stoneage_env as SA
from stoneage_env.engine.components import CARDS
from stoneage_env.engine.constants import (
    CLAY,
    FOOD,
    GOLD,
    SRC_RESOURCES,
    STONE,
    TOP_OUT,
    TOP_ROLL,
    WOOD,
)


def test_X1_seat_0_starts_unless_the_caller_chooses():
    assert new(2).start_player == 0 and new(2).current_player() == 0
    s = new(3, start_player=1)
    assert s.start_player == 1 and s.current_player() == 1
    with pytest.raises(SA.StoneAgeError.__mro__[1], match="start_player"):
        SA.StoneAgeGame(2, start_player=2)


def test_X2_hunting_once_per_round():
    s = new(2)
    do(s, "place 2 on the hunting grounds", "place 1 on the forest")
    assert not any(n.endswith("hunting grounds") for n in names(s))


def test_X3_a_slot_or_stack_may_be_taken_to_block_and_declined():
    s = new(2)
    assert s.goods[0, 1:].sum() == 0
    assert "place on card slot 4" in names(s) and "place on building stack 1" in names(s)
    do(s, "place on building stack 1", "place 5 on the hunting grounds",
       "place 4 on the hunting grounds", "resolve the building stack 1")
    # nothing to pay with: declining is all there is, taken by the engine
    assert any(e.kind == "decline" for e in s.events())
    assert s.stack_top[0] == building("B01") and s.stack_size[0] == 7


def test_X4_village_locations_at_their_caps_may_still_be_taken():
    s = new(4)
    s.figures[0] = 10
    s.agriculture[0] = 10
    s.tiles[0] = [4, 4, 4]
    legal = names(s)
    assert {"place 2 on the hut", "place on the field", "place on the tool maker"} <= set(legal)


def test_X5_the_hut_needs_two_unplaced_figures():
    s = new(4)
    s.unplaced[0] = 1
    assert "place 2 on the hut" not in names(s)


def test_X6_resolution_order_is_free_and_a_roll_is_not_optional():
    s = new(2)
    s.goods[0, WOOD] = 1
    do(s, "place 2 on the quarry", "place 5 on the hunting grounds", "place on card slot 1",
       "place 2 on the forest")
    assert sorted(names(s)) == ["resolve the card slot 1", "resolve the forest",
                                "resolve the quarry"]
    do(s, "resolve the quarry")
    assert s.is_chance_node()  # the dice roll: no "decline" for a site
    s2 = new(2, display=("G9", "G3", "F3", "H1"))  # a TOOL card before the quarry
    s2.goods[0, WOOD] = 1
    do(s2, "place 2 on the quarry", "place 5 on the hunting grounds", "place on card slot 1",
       "place 2 on the forest", "resolve the card slot 1", "pay 1 wood")
    assert s2.tiles[0].sum() == 1


def test_X7_tools_go_on_roll_cards_and_one_use_tools_combine():
    rolls = [c for c in range(len(CARDS)) if CARDS[c, 3] == TOP_ROLL]
    assert len(rolls) == 3
    s = new(2, display=("S3", "G3", "F3", "H1"))  # S3: ROLL stone
    s.goods[0, WOOD] = 1
    s.tiles[0] = [1, 0, 0]
    s.one_use[0, [1, 3]] = 1  # OUT 2 and OUT 4
    _to_slot(s, 1, {})
    do(s, "pay 1 wood")
    roll(s, 1, 2)
    assert sorted(names(s)) == ["add one-use tool 2", "add one-use tool 4", "add tool tile 1",
                                "take the yield"]
    do(s, "add tool tile 1", "add one-use tool 4", "add one-use tool 2")
    assert s.goods[0, STONE] == (3 + 1 + 4 + 2) // 5


@pytest.mark.parametrize("used,tiles,after", [([1, 1, 0], [1, 1, 2], [1, 1, 0]),
                                               ([1, 1, 1], [2, 1, 1], [1, 1, 1])])
def test_X8_a_tool_step_raises_an_unused_tile_first_and_keeps_used_ones_used(used, tiles, after):
    s = new(4)
    s.unplaced[0] = 1
    s.tiles[0] = [1, 1, 1]
    s.tile_used[0] = used
    do(s, "place on the tool maker")
    for _ in range(3):
        do(s, "place 5 on the hunting grounds")
    # seat 0's only location resolves at once
    assert s.tiles[0].tolist() == tiles and s.tile_used[0].tolist() == after


def test_X9_gains_beyond_a_cap_are_lost_and_a_pick_at_the_cap_is_still_a_pick():
    s = new(2, display=("F1", "G3", "F3", "H1"))
    s.agriculture[1] = 10
    s.goods[0, WOOD] = 1
    _to_slot(s, 1, {})
    do(s, "pay 1 wood")
    roll(s, 6, 6)  # two 6s: nothing to choose, both picks are the engine's
    assert s.agriculture[0] == 1 and s.agriculture[1] == 10  # both 6s: seat 1's gives nothing
    last = [e for e in s.events() if e.kind == "agriculture"][-1]
    assert last.data == {"seat": 1, "level": 10, "changed": 0}


def test_X10_dice_for_all_are_picked_by_face_value_at_once():
    s = new(3, display=("F1", "G3", "F3", "H1"))
    s.goods[0, WOOD] = 1
    do(s, "place on card slot 1", "place 5 on the hunting grounds",
       "place 5 on the hunting grounds", "place 4 on the hunting grounds",
       "resolve the card slot 1", "pay 1 wood")
    roll(s, 1, 1, 3)
    assert sorted(names(s)) == ["pick the die showing 1", "pick the die showing 3"]
    do(s, "pick the die showing 1")
    assert s.current_player() == 1 and sorted(names(s)) == [
        "pick the die showing 1", "pick the die showing 3"]
    do(s, "pick the die showing 3")
    assert s.goods[2, WOOD] == 1 and s.goods[1, STONE] == 1  # seat 2 had the last die


def test_X11_extra_card_from_an_empty_deck_gives_nothing():
    s = new(2, display=("G14", "G3", "F3", "H1"))
    s.deck[:] = 0
    s.goods[0, WOOD] = 1
    _to_slot(s, 1, {})
    do(s, "pay 1 wood")
    assert any(e.kind == "no_card" for e in s.events()) and s.cards[0].sum() == 1


def test_X12_the_game_goes_on_with_an_empty_deck_while_no_slot_needs_filling():
    s = new(2)
    s.deck[:] = 0
    do(s, "place 5 on the hunting grounds", "place 5 on the hunting grounds")
    _finish_round(s)
    assert not s.is_terminal() and s.round == 2


def test_X13_any2_can_be_kept_and_claimed_at_a_later_payment_or_scored_at_the_end():
    s = new(2, display=("G8", "G3", "G4", "H1"), tops=("B13", "B01"))
    s.goods[0, WOOD] = 1
    do(s, "place on card slot 1", "place 5 on the hunting grounds",
       "place on building stack 1", "place 3 on the hunting grounds",
       "resolve the card slot 1", "pay 1 wood", "keep the ANY2 card")
    assert s.any_unclaimed[0] == 1 and s.goods[0, 1:].sum() == 0
    s.goods[0, CLAY] = 1
    s.goods[0, STONE] = 1
    do(s, "resolve the building stack 1")  # B13: 1 clay, 1 stone, 1 gold
    assert "take 1 gold" in names(s) and "take it" not in names(s)
    do(s, "take 1 gold", "take 1 wood")
    assert "take it" in names(s)
    do(s, "take it")
    assert s.score[0] == 15 and s.goods[0, WOOD] == 1
    s = new(2, display=("G8", "G3", "G4", "H1"))
    s.goods[0, WOOD] = 1
    _last_round(s)
    do(s, "place on card slot 1", "place 5 on the hunting grounds",
       "place 4 on the hunting grounds", "resolve the card slot 1", "pay 1 wood",
       "keep the ANY2 card")
    _finish_round(s)
    assert s.is_terminal() and s.sources[0, SRC_RESOURCES] == 2  # claimed at the end: 2 VP


def test_X14_feeding_payment_is_all_or_nothing_and_the_penalty_is_always_allowed():
    s = new(2)
    s.goods[0, FOOD] = 0
    s.goods[0, WOOD] = 1
    do(s, "place 5 on the hunting grounds", "place 5 on the forest")
    roll(s, 1, 1, 1, 1, 1)  # 2 food: 3 missing, 1 wood cannot pay them
    roll(s, 1, 1, 1, 1, 1)
    assert s.score[0] == -10 and s.goods[0, WOOD] == 1  # the penalty, taken by the engine
    s = new(2)
    s.goods[0, FOOD] = 0
    s.goods[0, WOOD] = 5
    do(s, "place 5 on the hunting grounds", "place 5 on the forest")
    roll(s, 1, 1, 1, 1, 1)
    roll(s, 1, 1, 1, 1, 1)
    assert "take the -10 penalty" in names(s)  # chosen even though paying is possible
    do(s, "take the -10 penalty")
    assert s.score[0] == -10 and s.goods[0, WOOD] == 5


def test_X15_one_use_and_any2_bottoms_score_and_one_use_is_not_tool_value():
    s = new(2)
    t1 = card("T1")
    assert CARDS[t1, 3] == TOP_OUT
    s.cards[0, t1] = 1  # 1 tool maker, OUT 4 unused
    s.deck[t1] -= 1
    s.one_use[0, 3] = 1
    s.tiles[0] = [1, 1, 0]
    _last_round(s)
    do(s, "place 5 on the hunting grounds", "place 5 on the hunting grounds")
    _finish_round(s)
    assert s.sources[0, 6] == 2  # tool makers: 1 x tile value 2 (the OUT 4 does not count)
    assert s.tie_break()[0] == 0 + 2 + 5


def test_X16_players_tied_after_the_tie_break_share_the_win():
    s = new(3)
    _last_round(s)
    for seat in range(3):
        s.goods[seat, FOOD] = 20
    do(s, "place 5 on the hunting grounds", "place 5 on the hunting grounds",
       "place 5 on the hunting grounds")
    _finish_round(s)
    assert s.is_terminal() and s.scores() == [0, 0, 0] and s.winners() == [0, 1, 2]
    assert s.returns() == [0.0, 0.0, 0.0]


def test_X17_card_slots_cost_1_2_3_4_from_the_right():
    for k in range(1, 5):
        s = new(2)
        _to_slot(s, k, {WOOD: 4})
        do(s, "pay 1 wood")
        assert s.goods[0, WOOD] == 4 - k  # the rest of the payment is forced


def test_X18_the_deck_data_follows_the_majority():
    t3, g10 = CARDS[card("T3")], CARDS[card("G10")]
    assert (t3[1], t3[2], t3[3], t3[4]) == (2, 2, TOP_OUT, 2)  # 2 tool makers / OUT 2
    assert (g10[3], g10[4]) == (TOP_ROLL, GOLD)  # art / ROLL gold


def test_X19_count_kinds_means_exactly_that_many_kinds_and_any_needs_one():
    s = new(2, tops=("B16", "B22"))  # exactly 4 of exactly 3 kinds
    _to_stack(s, 1, {WOOD: 2, CLAY: 2, STONE: 2})
    # (payments go wood, clay, stone, gold: a clay first would leave clay and stone only)
    assert sorted(names(s)) == ["decline", "pay 1 wood"]
    do(s, "pay 1 wood")
    assert sorted(names(s)) == ["pay 1 clay", "pay 1 wood"]  # a stone now leaves 2 kinds
    do(s, "pay 1 wood")  # then 1 clay and 1 stone are the only way: the engine pays them
    assert s.score[0] == 3 + 3 + 4 + 5 and s.goods[0, 1:4].tolist() == [0, 1, 1]
    s = new(2, tops=("B16", "B22"))
    _to_stack(s, 1, {WOOD: 4})
    assert any(e.kind == "decline" for e in s.events())  # one kind cannot make three
    s = new(2, tops=("B01", "B22"))
    _to_stack(s, 2, {WOOD: 1})
    assert "take it" not in names(s)  # any: at least 1 paid


def test_X20_a_round_limit_truncates_without_final_scoring():
    s = new(2, max_rounds=1)
    s.goods[0, GOLD] = 3
    do(s, "place 5 on the hunting grounds", "place 5 on the hunting grounds")
    _finish_round(s)
    assert s.is_terminal() and s.is_truncated() and s.end_reason == 3
    assert not any(e.kind == "final_score" for e in s.events())
    assert s.score[0] == 0  # the 3 gold are not scored
    with pytest.raises(SA.StoneAgeError.__mro__[1], match="max_rounds"):
        SA.StoneAgeGame(2, max_rounds=-1)


def test_X21_supplies_are_unlimited_and_eight_hunters_roll_eight_dice():
    s = new(2)
    s.figures[0] = s.unplaced[0] = 8
    do(s, "place 8 on the hunting grounds", "place 5 on the forest")
    roll(s, 1, 1, 1, 1, 1, 1, 1, 1)
    assert s.goods[0, FOOD] == 12 + 4


def test_X22_new_figures_eat_at_once_and_count_for_shamans():
    s = new(4)
    _last_round(s)
    s.cards[0, card("S4")] = 1  # 2 shamans
    s.deck[card("S4")] -= 1
    do(s, "place 2 on the hut")
    for _ in range(3):
        do(s, "place 5 on the hunting grounds")
    do(s, "place 3 on the hunting grounds", "resolve the hut")
    _finish_round(s)
    feed = [e for e in s.events() if e.kind == "feed" and e.data["seat"] == 0][0]
    assert feed.data["food"] == 6 and s.sources[0, 8] == 2 * 6


def test_random_games_of_the_rulings_keep_every_invariant():
    game = SA.StoneAgeGame(3, mammoth_herd=True)
    rng = random.Random(22)
    for _ in range(3):
        s = game.new_initial_state()
        while not s.is_terminal():
            s.apply_action(s.sample_chance(rng) if s.is_chance_node()
                           else rng.choice(s.legal_actions()))
            assert SA.violations(s) == []
        assert s.end_reason in (1, 2)

"""Druids (docs/druids.md): one test at least per rule D1-D13 and per ruling, on positions
built by hand (:func:`position`), then random simulations with every invariant checked after
every step (card counts, scores = amulets shared out, JSON round trip, clone independence,
determinism)."""

import json
import random

import pytest

import druids_env as D
from druids_env.engine import actions as A
from druids_env.engine import rules
from druids_env.engine.cards import (
    NUM_GEMS,
    NUM_PLACES,
    gem,
    gem_colour,
    gem_value,
    place_colour,
    servant,
    servant_value,
)
from meduris_rl.kit.errors import InputError
from meduris_rl.kit.seeding import derive_seed

YELLOW, RED, BLUE, GREEN, BLACK, WHITE = range(6)  # gem colours (project labels)


def position(n=2, *, row=(0, 1, 2, 3, 4, 5), above=None, under=None, hands=None, score=None,
             seat=0, phase=rules.P_COLLECT, gem_deck=None, place_deck=None, collected=(),
             circles=5, base=0, played=0, servant_played=False):
    """A position built by hand, mid-game, with every card accounted for: gems not given are
    in the gem deck (unless ``gem_deck`` says which), servants not given are in their owners'
    sets, places not in the row nor collected are in the place deck. ``above`` / ``under``:
    {slot: [cards]} (gems above are played by ``seat``'s neighbour unless given as (card, who))."""
    game = D.DruidsGame(n, circles=circles)
    st = game.new_initial_state()
    st.setup_i = len(st.schedule)
    st.turn, st.seat, st.phase = 1, seat, phase
    st.played, st.servant_played, st.base = played, servant_played, base
    st.row = list(row) + [-1] * (6 - len(row))
    st.above = [[c if isinstance(c, tuple) else (c, (seat + 1) % n)
                 for c in (above or {}).get(s, [])] for s in range(6)]
    st.under = [list((under or {}).get(s, [])) for s in range(6)]
    st.hands = [list((hands or {}).get(q, [])) for q in range(n)]
    st.score = list(score or [0] * n)
    for q, points in enumerate(st.score):  # scored earlier: logged as shared out (D6)
        if points:
            st.emit("share", {"seat": q, "card": servant(q, 6), "amulets": points,
                              "score": points})
    st.collected = list(collected)
    st.collections = len(collected)
    used = {c for h in st.hands for c in h} | {c for p in st.above for c, _ in p} | {
        c for p in st.under for c in p}
    st.gem_deck = sorted(gem_deck) if gem_deck is not None else [
        g for g in range(NUM_GEMS) if g not in used]
    st.removed = [g for g in range(NUM_GEMS) if g not in used and g not in st.gem_deck]
    st.servant_sets = [[servant(q, v) for v in range(1, 7) if servant(q, v) not in used]
                       for q in range(n)]
    st.place_deck = sorted(place_deck) if place_deck is not None else [
        p for p in range(NUM_PLACES) if p not in st.row and p not in collected]
    st.collected += [p for p in range(NUM_PLACES) if p not in st.row and p not in
                     st.place_deck and p not in st.collected]
    st.collections = len(st.collected)
    st.resettle()
    assert not D.check(st), D.check(st)
    return st


def act(st, text):
    st.apply_action(st.string_to_action(text))


def kinds(st):
    return [e.kind for e in st.events()]


def shares(st):
    return [(e.data["card"], e.data["amulets"]) for e in st.events()
            if e.kind == "share" and e.step >= 0]  # (not the hand-built position's scores)


# --- D1, D2, D3 --------------------------------------------------------------------------------
def test_D1_cards_54_gems_6_colours_values_1_to_9_servants_1_to_6_12_places():
    gems = {(gem_colour(g), gem_value(g)) for g in range(NUM_GEMS)}
    assert len(gems) == 54 == len({(c, v) for c in range(6) for v in range(1, 10)})
    assert {servant_value(servant(q, v)) for q in range(4) for v in range(1, 7)} == set(
        range(1, 7)) and len({servant(q, v) for q in range(4) for v in range(1, 7)}) == 24
    assert sorted(place_colour(p) for p in range(12)) == sorted(list(range(6)) * 2)
    assert D.DruidsGame.cards() == {"gems": 54, "servants_per_colour": 6, "places": 12}


@pytest.mark.parametrize("bad", [1, 5, True, 2.0, "2"])
def test_D2_two_to_four_players_checked(bad):
    with pytest.raises(InputError):  # the project's one error family (check_int)
        D.DruidsGame(bad)


def test_D2_parameters_and_game_properties():
    g = D.DruidsGame(3, circles=4, max_turns=100)
    assert g.params() == {"num_players": 3, "circles": 4, "max_turns": 100}
    assert g.num_distinct_actions() == D.NUM_ACTIONS == 424
    assert g.max_chance_outcomes() == D.NUM_CHANCE_OUTCOMES == 72
    assert g.max_game_length() > 0 and D.DruidsGame(2, max_turns=0).max_game_length() == -1
    with pytest.raises(InputError):
        D.DruidsGame(2, circles=0)


@pytest.mark.parametrize("n", [2, 3, 4])
def test_D3_ruling_setup_is_explicit_chance_and_seat_0_starts(n):
    st = D.DruidsGame(n).new_initial_state()
    rng = random.Random(1)
    for _ in range(6):  # six places face up, each among the places left
        outs = st.chance_outcomes()
        assert all(A.C_PLACE <= a < A.C_GEM for a, _ in outs)
        assert sum(p for _, p in outs) == pytest.approx(1.0)
        st.apply_action(outs[rng.randrange(len(outs))][0])
    assert len(st.place_deck) == 6 and all(p >= 0 for p in st.row)
    for _ in range(4 * n):  # four gems to each player
        outs = st.chance_outcomes()
        assert len(outs) == NUM_GEMS - (54 - len(st.gem_deck))
        st.apply_action(outs[rng.randrange(len(outs))][0])
    D.resolve_chance(st, rng)
    assert st.current_player() == 0 and st.turn == 1  # ruling: seat 0 starts
    assert [sum(1 for c in h if c < 54) for h in st.hands] == [4] * n
    assert [sum(1 for c in h if c >= 54) for h in st.hands] == [3] * n
    assert len(st.gem_deck) == 54 - 4 * n


def test_D3_ruling_a_servant_draw_is_uniform_over_the_set():
    st = D.DruidsGame(2).new_initial_state()
    rng = random.Random(0)
    while not (st.phase == rules.P_DEAL_SERVANT and st.hands[0][-1] >= 54):
        st.apply_action(st.sample_chance(rng))
    outs = st.chance_outcomes()  # seat 0 drew one servant: five left in its set
    assert len(outs) == 5 and {p for _, p in outs} == {0.2}
    assert servant(0, outs[0][0] - A.C_SERVANT + 1) in st.servant_sets[0]


# --- D4 ----------------------------------------------------------------------------------------
def test_D4_a_place_is_collectable_with_3_cards_and_a_servant():
    st = position(above={0: [gem(YELLOW, 1), gem(RED, 2)], 1: [gem(RED, 3), gem(RED, 4),
                                                               gem(RED, 5)],
                         2: [gem(BLUE, 1)]},
                  under={0: [servant(1, 2)], 2: [servant(0, 1)]},
                  hands={0: [gem(WHITE, 1), gem(WHITE, 2)]})
    assert st.legal_actions() == [A.A_NO_COLLECT, A.A_COLLECT + 0]  # 3 gems, no servant: no


def test_D4_collecting_is_optional_and_at_most_one_place():
    st = position(above={0: [gem(YELLOW, 1), gem(RED, 2)], 1: [gem(BLUE, 3), gem(RED, 4)]},
                  under={0: [servant(1, 2)], 1: [servant(1, 3)]},
                  hands={0: [gem(WHITE, 1), gem(WHITE, 2)]})
    assert st.legal_actions() == [0, 1, 2]
    act(st, "collect place 1")
    assert st.phase == rules.P_REPLACE  # then the place is replaced and play goes on (D8)
    st.apply_action(st.legal_actions()[0])
    assert st.phase == rules.P_PLAY and all(a >= A.A_PLAY_GEM for a in st.legal_actions())


def test_D4_no_collectable_place_skips_the_choice():
    st = position(hands={0: [gem(WHITE, 1), gem(WHITE, 2)]})
    assert st.phase == rules.P_PLAY and "collect_nothing" in kinds(st)


# --- D5, D6 ------------------------------------------------------------------------------------
def test_D5_gems_of_the_places_colour_become_amulets_the_others_are_discarded():
    st = position(above={0: [gem(YELLOW, 4), gem(RED, 9), gem(YELLOW, 2)]},
                  under={0: [servant(1, 6)]}, hands={0: [gem(WHITE, 1)]})
    act(st, "collect place 1")  # place 0 is yellow
    amulets = [e.data["amulets"] for e in st.events() if e.kind == "amulets"]
    assert amulets == [6] and st.scores() == [0, 6]
    revealed = {e.data["card"]: e.data["amulet"] for e in st.events()
                if e.kind == "gem_revealed"}
    assert revealed == {gem(YELLOW, 4): 1, gem(RED, 9): 0, gem(YELLOW, 2): 1}


def collected_17():
    """Seat 0 collects place 1: 17 amulets above, servants of seats 1, 0, 1 (5, 2, 3) under."""
    st = position(above={0: [gem(YELLOW, 9), gem(YELLOW, 8)]},  # 17 amulets
                  under={0: [servant(1, 5), servant(0, 2), servant(1, 3)]},
                  hands={0: [gem(WHITE, 1)]})
    act(st, "collect place 1")
    return st


def test_D6_lowest_servant_first_and_the_last_takes_all():
    st = collected_17()
    assert shares(st) == [(servant(0, 2), 2), (servant(1, 3), 3), (servant(1, 5), 12)]
    assert st.scores() == [2, 15]


def test_D6_the_checker_finds_amulets_not_shared_out_in_full():
    """The invariant checker reads each collection from the event log alone: the amulets of
    the revealed gems (D5) must all be shared out (D6). A share logged short, with the score
    lowered to match (so scores still equal the shares), is caught; so is a servant revealed
    but never served, and an amulets count that the gems do not give."""
    def collected():
        st = collected_17()
        assert not D.check(st)
        return st, [e for e in st.events() if e.kind == "share"]

    st, evs = collected()
    assert [e.data["amulets"] for e in evs] == [2, 3, 12]
    evs[-1].data["amulets"] -= 1  # the last servant takes one less than all that remain
    st.score[1] -= 1
    bad = D.check(st)
    assert len(bad) == 1 and "16 shared out to 3 of 3 servants" in bad[0], bad
    st, evs = collected()
    k = st.log_events.index(evs[0])
    st.log_events[k:k + 1] = []  # seat 0's servant revealed, its share (of 2) not logged
    st.score[0] -= 2
    assert D.check(st) and "15 shared out to 2 of 3" in D.check(st)[0]
    st, _ = collected()
    next(e for e in st.log_events if e.kind == "amulets").data["amulets"] = 18
    assert "17 amulets by the gems (logged 18)" in D.check(st)[0]


def test_D6_a_servant_finding_no_amulet_left_gets_nothing():
    st = position(above={0: [gem(YELLOW, 3), gem(RED, 9)]},  # 3 amulets
                  under={0: [servant(0, 2), servant(1, 4), servant(1, 6)]},
                  hands={0: [gem(WHITE, 1)]})
    act(st, "collect place 1")
    assert shares(st) == [(servant(0, 2), 2), (servant(1, 4), 1), (servant(1, 6), 0)]


def test_D6_equal_values_take_in_the_order_they_were_played():
    for first, second in ((0, 1), (1, 0)):
        st = position(above={0: [gem(YELLOW, 5), gem(RED, 1)]},  # 5 amulets
                      under={0: [servant(first, 3), servant(second, 3)]},
                      hands={0: [gem(WHITE, 1)]})
        act(st, "collect place 1")
        assert shares(st) == [(servant(first, 3), 3), (servant(second, 3), 2)]


def test_D6_the_only_servant_takes_all_even_more_than_its_value():
    st = position(above={0: [gem(YELLOW, 9), gem(YELLOW, 7)]},
                  under={0: [servant(1, 1)]}, hands={0: [gem(WHITE, 1)]})
    act(st, "collect place 1")
    assert shares(st) == [(servant(1, 1), 16)]


# --- D7 ----------------------------------------------------------------------------------------
def test_D7_ruling_servants_go_back_gems_leave_the_place_is_replaced():
    s0, s1 = servant(0, 4), servant(1, 2)
    st = position(above={2: [gem(BLUE, 3), gem(RED, 3)]}, under={2: [s0, s1]},
                  hands={0: [gem(WHITE, 1)]})
    act(st, "collect place 3")
    assert s0 in st.servant_sets[0] and s1 in st.servant_sets[1]  # ruling: back to the sets
    assert {gem(BLUE, 3), gem(RED, 3)} <= set(st.removed)  # ruling: the gems leave the game
    assert st.collected == [2] and st.row[2] == -1 and st.above[2] == [] == st.under[2]
    outs = st.chance_outcomes()
    assert sorted(a - A.C_PLACE for a, _ in outs) == st.place_deck == list(range(6, 12))
    st.apply_action(A.C_PLACE + 9)
    assert st.row[2] == 9 and st.phase == rules.P_PLAY and not D.check(st)


def test_D7_ruling_with_the_place_deck_empty_the_place_is_not_replaced():
    st = position(row=(6, 7, 8, 9, 10, 11), collected=(0, 1, 2, 3, 4), place_deck=[5],
                  above={0: [gem(YELLOW, 1), gem(RED, 1)]}, under={0: [servant(1, 1)]},
                  hands={0: [gem(WHITE, 1)]})
    st.place_deck = []  # the last deck place was collected as well
    st.collected.append(5)
    st.collections += 1
    act(st, "collect place 1")
    assert st.row[0] == -1 and st.phase == rules.P_PLAY and st.current_player() == 0
    assert not D.check(st)


# --- D8 ----------------------------------------------------------------------------------------
def test_D8_never_two_servants():
    st = position(hands={0: [servant(0, 1), servant(0, 2), gem(RED, 1)]})
    act(st, "play servant 1 under place 1")
    legal = st.legal_actions()
    assert legal and all(A.A_PLAY_GEM <= a < A.A_PLAY_SERVANT for a in legal)
    with pytest.raises(D.IllegalActionError):
        act(st, "play servant 2 under place 1")


def test_D8_a_gem_and_a_servant_or_two_gems():
    st = position(hands={0: [servant(0, 1), gem(RED, 1), gem(RED, 2)]})
    act(st, "play red 1 above place 2")
    assert A.play_servant_action(1, 0) in st.legal_actions()
    act(st, "play red 2 above place 2")  # no gem left to discard: D10 at once
    assert st.phase == rules.P_DRAW and "discard_nothing" in kinds(st)
    assert [c for c, _ in st.above[1]] == [gem(RED, 1), gem(RED, 2)]
    st = position(hands={0: [servant(0, 1), gem(RED, 1)]})
    act(st, "play red 1 above place 2")
    act(st, "play servant 1 under place 6")
    assert st.under[5] == [servant(0, 1)] and st.hands[0] == []


def test_D8_ruling_a_hand_of_servants_plays_one():
    st = position(hands={0: [servant(0, 1), servant(0, 2)]}, gem_deck=[])
    act(st, "play servant 2 under place 1")
    assert st.hands[0] == [servant(0, 1)] and st.phase != rules.P_PLAY


def test_D8_ruling_one_card_plays_one_and_an_empty_hand_plays_nothing():
    st = position(row=(0,), collected=tuple(range(1, 6)), place_deck=list(range(6, 12)),
                  hands={0: [gem(RED, 5)]})
    assert st.phase != rules.P_PLAY  # one card, one place: played at once (forced)
    assert st.above[0][-1] == (gem(RED, 5), 0)
    st = position(hands={0: []}, gem_deck=[])
    assert "play_gem" not in kinds(st) and "play_servant" not in kinds(st)


def test_D8_ruling_two_cards_must_be_played_when_the_hand_allows():
    st = position(hands={0: [gem(RED, 1), gem(RED, 2), gem(RED, 3)]})
    act(st, "play red 1 above place 1")
    assert st.phase == rules.P_PLAY and A.A_NO_DISCARD not in st.legal_actions()


def test_D8_ruling_nobody_plays_more_than_two():
    st = position(hands={0: [gem(RED, 1), gem(RED, 2), gem(RED, 3), gem(RED, 4)]})
    act(st, "play red 1 above place 1")
    act(st, "play red 2 above place 2")
    assert st.phase == rules.P_DISCARD  # two gems left in hand, none of them playable now
    assert all(not A.A_PLAY_GEM <= a < A.A_NO_DISCARD for a in st.legal_actions())
    with pytest.raises(D.IllegalActionError):
        act(st, "play red 3 above place 3")


# --- D9, D10 -----------------------------------------------------------------------------------
def test_D9_discard_one_gem_or_none():
    st = position(hands={0: [gem(RED, 1), gem(RED, 2), gem(RED, 3), servant(0, 1)]})
    act(st, "play red 1 above place 1")
    act(st, "play red 2 above place 1")
    assert st.legal_actions() == [A.A_NO_DISCARD, A.discard_action(gem(RED, 3))]
    act(st, "discard red 3")
    assert st.discards == [(gem(RED, 3), 0)] and st.phase == rules.P_DRAW


def test_D10_refill_to_seven_one_card_at_a_time_from_either_source():
    st = position(hands={0: [gem(RED, 1), gem(RED, 2)]})
    act(st, "play red 1 above place 1")
    act(st, "play red 2 above place 1")  # no gem left to discard: straight to D10
    for k in range(7):
        assert st.legal_actions() == [A.A_DRAW_GEM, A.A_DRAW_SERVANT]
        act(st, "draw a servant" if k < 2 else "draw a gem")
        assert st.is_chance_node()
        st.apply_action(st.legal_actions()[0])
    assert len(st.hands[0]) == 7 and st.current_player() == 1
    assert sum(1 for c in st.hands[0] if c >= 54) == 2


def test_D10_ruling_an_empty_source_cannot_be_chosen():
    st = position(hands={0: [gem(RED, 1), gem(RED, 2)]}, gem_deck=[])
    act(st, "play red 1 above place 1")
    act(st, "play red 2 above place 1")
    # the gem deck is empty: every draw is from the servant set, no choice asked
    assert st.is_chance_node() and all(a >= A.C_SERVANT for a in st.legal_actions())
    with pytest.raises(D.IllegalActionError):
        st.apply_action(A.A_DRAW_GEM)


def test_D10_ruling_both_sources_empty_the_hand_stays_short():
    hand = [servant(0, v) for v in range(1, 7)] + [gem(RED, 1)]
    st = position(hands={0: hand}, gem_deck=[])
    act(st, "play red 1 above place 1")
    act(st, "play servant 1 under place 1")
    assert len(st.hands[0]) == 5 and st.seat == 1  # nothing to draw from: next turn


# --- D11, D11b ---------------------------------------------------------------------------------
def test_D11_ruling_the_eleventh_collection_ends_the_game_at_once():
    st = position(row=(11, 10), collected=tuple(range(10)), place_deck=[],
                  above={0: [gem(WHITE, 5), gem(WHITE, 4)]}, under={0: [servant(1, 2)]},
                  hands={0: [gem(RED, 1)], 1: [gem(RED, 2)]})
    assert st.collections == 10
    act(st, "collect place 1")
    assert st.is_terminal() and st.end_reason == rules.END_LAST_PLACE
    assert st.scores() == [0, 9] and st.hands[0] == [gem(RED, 1)]  # no play after it
    assert st.returns() == [-1.0, 1.0] and st.winners() == [1]


def test_D11b_ruling_a_round_without_any_play_ends_the_game():
    # every servant on the table, no place collectable (2 cards each), no card anywhere else
    st = position(hands={0: [], 1: []}, gem_deck=[],
                  under={s: [servant(0, s + 1), servant(1, s + 1)] for s in range(6)})
    assert st.is_terminal() and st.end_reason == rules.END_STALL
    assert kinds(st).count("collect_nothing") == 2  # a whole round (2 turns) passed idle


def test_D11b_ruling_a_round_declining_a_collectable_place_ends_the_game_too():
    """Ruling (engine): D11b's condition is the round itself (no player collects, plays or
    draws), read literally; the parenthesis (decks and hands exhausted, no place collectable)
    is the usual case, not a second condition. Place 1 may be collected (3 cards, D4) but
    both seats decline, with nothing to play or draw: the game ends after that round."""
    rest = [servant(0, v) for v in range(3, 7)] + [servant(1, v) for v in range(2, 7)]
    under = {0: [servant(0, 1), servant(1, 1), servant(0, 2)]}
    under.update({s: rest[2 * (s - 1):2 * s] for s in range(1, 6)})
    st = position(hands={0: [], 1: []}, gem_deck=[], under=under)
    assert not st.is_terminal() and rules.collectable(st, 0)
    assert [rules.collectable(st, s) for s in range(1, 6)] == [False] * 5
    act(st, "collect nothing")
    assert not st.is_terminal() and st.current_player() == 1
    assert A.A_COLLECT + 0 in st.legal_actions()  # seat 1 may collect it too ...
    act(st, "collect nothing")  # ... and declines: a whole round without any play
    assert st.is_terminal() and st.end_reason == rules.END_STALL


def test_D11b_ruling_a_discard_alone_does_not_count():
    """Seat 1's last turn was idle; seat 0, at its discard (D9) without having collected,
    played or drawn, discards and can draw nothing: two idle turns, a whole round, so the game
    ends at the end of seat 0's turn. Were the discard counted as acting, seat 1 would get
    another turn first. (In play a discard follows a play of the same turn, since the row
    never empties before D11; the ruling is what the idle count does with it, so the position
    is built at the discard.)"""
    st = position(hands={0: [gem(RED, 1)], 1: []}, gem_deck=[], phase=rules.P_DISCARD,
                  under={s: [servant(0, s + 1), servant(1, s + 1)] for s in range(6)})
    st.idle = 1  # seat 1's turn before passed without a collection, a play or a draw
    assert st.current_player() == 0 and not st.acted
    before = len(st.events())
    act(st, "discard red 1")
    assert st.discards == [(gem(RED, 1), 0)]
    assert st.is_terminal() and st.end_reason == rules.END_STALL
    assert "turn" not in [e.kind for e in st.events()[before:]]  # seat 1 got no turn


def test_D11b_ruling_a_draw_counts_a_discard_after_it_changes_nothing():
    """The same position with one gem left in the deck: seat 0 discards, then draws it; the
    draw is acting (D10), so the round is not idle and seat 1 gets its turn."""
    st = position(hands={0: [gem(RED, 1)], 1: []}, gem_deck=[gem(BLUE, 9)],
                  phase=rules.P_DISCARD,
                  under={s: [servant(0, s + 1), servant(1, s + 1)] for s in range(6)})
    st.idle = 1
    before = len(st.events())
    act(st, "discard red 1")
    assert st.is_chance_node()  # the only source left: the gem deck's last card
    st.apply_action(st.legal_actions()[0])
    turns = [e.data["seat"] for e in st.events()[before:] if e.kind == "turn"]
    assert not st.is_terminal() and turns[:1] == [1] and st.hands[0] == [gem(BLUE, 9)]


def test_D11b_ruling_the_turn_limit_truncates():
    st = position(hands={0: [gem(RED, 1)]})
    st.game.max_turns = 1
    act(st, "play red 1 above place 1")
    while not st.is_terminal():
        st.apply_action(st.legal_actions()[0])
    assert st.is_truncated() and st.end_reason == rules.END_TRUNCATED


# --- D12 ---------------------------------------------------------------------------------------
def _column_position(score, *, base=0, gems=(9, 2), under=None):
    """Seat 0 to move, place 1 (yellow) holding yellow gems of ``gems`` values (their sum the
    amulets) and, by default, one blue servant 6 under it (blue takes them all, D6)."""
    return position(len(score), above={0: [gem(YELLOW, v) for v in gems]},
                    under={0: under or [servant(1, 6)]}, hands={0: [gem(RED, 1)]},
                    score=score, base=base)


def _moves(st):
    return [e.data for e in st.events() if e.kind == "column_moved"]


@pytest.mark.parametrize("n", [2, 3, 4])
def test_D12_ruling_markers_start_beside_the_bottom_card_at_0(n):
    """D3, D12 ruling: the markers start beside the bottom card, on no circle: after the setup
    every score is 0 and the column's bottom card is the first (``base`` 0: circles 1 .. 30)."""
    st = D.DruidsGame(n).new_initial_state()
    rng = random.Random(n)
    while st.is_chance_node():
        st.apply_action(st.sample_chance(rng))
    assert st.current_player() == 0 and st.scores() == [0] * n and st.base == 0
    assert not D.check(st)


def test_D12_ruling_30_circles_hold_scores_1_to_30_the_31st_point_passes_the_top():
    """6 cards of 5 circles: the 30th point is on the top card's highest circle (nothing
    moves), the 31st passes the top (the bottom card, free, moves to the top)."""
    st = _column_position([6, 25], gems=(3, 2))
    act(st, "collect place 1")
    assert st.scores() == [6, 30] and st.base == 0 and _moves(st) == [] and not st.is_terminal()
    st = _column_position([6, 25], gems=(4, 2))
    act(st, "collect place 1")
    assert st.scores() == [6, 31] and st.base == 5 and not st.is_terminal()
    assert _moves(st) == [{"bottom": 6, "top": 35}]


def test_D12_the_column_moves_when_a_marker_passes_the_top():
    st = _column_position([12, 20])
    act(st, "collect place 1")  # 11 amulets: 31 > 30, no marker on 1-5
    assert st.scores() == [12, 31] and st.base == 5 and not st.is_terminal()
    assert _moves(st) == [{"bottom": 6, "top": 35}]


def test_D12_ruling_a_marker_on_the_bottom_card_ends_the_game_and_the_top_wins():
    st = _column_position([3, 20])
    act(st, "collect place 1")
    assert st.is_terminal() and st.end_reason == rules.END_COLUMN and st.base == 0
    assert st.winners() == [1] and st.returns() == [-1.0, 1.0]


@pytest.mark.parametrize("n", [2, 3, 4])
def test_D12_ruling_a_lagging_marker_still_beside_the_bottom_card_at_0_blocks_the_column(n):
    """A marker that never scored stands beside the bottom card, which counts as on it: when
    blue passes the top, the column cannot move and the game ends at once (were a marker at 0
    below the column, it would move)."""
    lag = 0 if n == 2 else n - 1  # red, or the last seat
    score = [20] * n
    score[lag] = 0
    st = _column_position(score)
    act(st, "collect place 1")  # blue: 20 + 11 passes the top at 31
    assert st.is_terminal() and st.end_reason == rules.END_COLUMN and st.base == 0
    assert st.scores()[1] == 31 and st.scores()[lag] == 0 and _moves(st) == []
    assert st.winners() == [1] and not D.check(st)


@pytest.mark.parametrize("base, lag, blocks", [(0, 0, True), (0, 1, True), (0, 5, True),
                                               (0, 6, False), (5, 6, True), (5, 10, True),
                                               (5, 11, False)])
def test_D12_ruling_on_the_bottom_card_is_a_score_up_to_its_highest_circle(base, lag, blocks):
    """A marker blocks the column with a score up to the bottom card's highest circle
    (``base`` + 5), on its circles or beside it; one circle higher it does not."""
    st = _column_position([lag, base + 25], base=base, gems=(4, 2))
    act(st, "collect place 1")  # blue passes the top at base + 31
    assert st.scores() == [lag, base + 31]
    assert st.is_terminal() == blocks and st.base == (base if blocks else base + 5)
    assert (st.end_reason == rules.END_COLUMN) == blocks and not D.check(st)


def test_D12_ruling_no_marker_is_ever_below_the_column():
    """The column moves only when every marker is above its bottom card, so after a move every
    score is above ``base``; the checker refuses a position with a marker below the column,
    and allows one beside the bottom card at the start (0 with ``base`` 0)."""
    st = _column_position([6, 25], gems=(4, 2))
    act(st, "collect place 1")
    assert st.base == 5 and min(st.scores()) > st.base and not D.check(st)
    st = _column_position([3, 20])
    assert not D.check(st)
    st.base = 5  # red at 3 left below a bottom card that runs from 6
    assert any("below the column" in p for p in D.check(st)), D.check(st)


def test_D12_ruling_the_column_is_checked_amulet_by_amulet_and_moves_twice_in_a_share():
    """Blue's 11 amulets from 33 (column 6-35): the 36th circle passes the top, the bottom
    card (6-10) is free, it moves; the 41st passes again, 11-15 free, it moves again."""
    st = _column_position([17, 33], base=5)
    act(st, "collect place 1")
    assert not st.is_terminal() and st.scores() == [17, 44] and st.base == 15
    assert _moves(st) == [{"bottom": 11, "top": 40}, {"bottom": 16, "top": 45}]
    assert shares(st) == [(servant(1, 6), 11)] and not D.check(st)


def test_D12_ruling_a_move_then_an_occupied_bottom_card_in_one_share_ends_at_that_amulet():
    """Blue's 11 amulets from 33 (column 6-35), red on 12: the 36th circle moves the column
    (6-10 is free); the 41st passes the top again with red on the bottom card (11-15): the game
    ends there, blue at 41, the last 3 amulets of the share scored by no one (checked once per
    share, blue would end on 44)."""
    st = _column_position([12, 33], base=5)
    act(st, "collect place 1")
    assert st.is_terminal() and st.end_reason == rules.END_COLUMN
    assert st.scores() == [12, 41] and st.base == 10
    assert _moves(st) == [{"bottom": 11, "top": 40}] and shares(st) == [(servant(1, 6), 8)]
    assert kinds(st)[-4:-1] == ["share", "column_moved", "game_end"] and not D.check(st)


def test_D12_ruling_the_amulet_that_passes_the_top_ends_the_game_at_once():
    """Blue's servant 6 takes its 6 amulets from 27 with red on 3: the 4th, to 31, passes the
    top with the bottom card occupied; the game ends there (blue 31, not 33), and red's servant
    after it takes nothing."""
    st = _column_position([3, 27], gems=(9, 8), under=[servant(1, 6), servant(0, 6)])
    act(st, "collect place 1")
    assert st.is_terminal() and st.scores() == [3, 31] and shares(st) == [(servant(1, 6), 4)]
    assert "place_removed" in kinds(st)  # the collection is still cleared (D7)
    assert not D.check(st)  # 4 of 17 amulets shared out: the checker allows it after D12


def test_D12_ruling_the_player_who_passed_the_top_wins_the_rest_scores_nothing():
    """3 players: blue's servant 3 takes 2 of its amulets, 29 to 31, and passes the top with
    red on 3: blue wins alone (D13 does not apply), although black on 30, whose servant 6 was
    to take the other 8 amulets after blue, would have ended above it."""
    st = _column_position([3, 29, 30], under=[servant(1, 3), servant(2, 6)])
    act(st, "collect place 1")
    assert st.is_terminal() and st.end_reason == rules.END_COLUMN
    assert st.scores() == [3, 31, 30] and shares(st) == [(servant(1, 3), 2)]
    assert st.winners() == [1] and st.returns() == [-0.5, 1.0, -0.5] and not D.check(st)


def test_D12_ruling_circles_per_card_is_a_parameter():
    st = position(above={0: [gem(YELLOW, 5), (gem(RED, 3), 1)], 1: [gem(RED, 1)]},
                  under={0: [servant(1, 6)]}, hands={0: [gem(RED, 2)]}, score=[4, 20],
                  circles=4)
    act(st, "collect place 1")  # 25 > 24 = 6 cards x 4 circles; seat 0 at 4: on the bottom
    assert st.is_terminal() and st.end_reason == rules.END_COLUMN


# --- D13 ---------------------------------------------------------------------------------------
def test_D13_ruling_level_top_scores_share_the_victory():
    st = position(n=3, row=(11, 10), collected=tuple(range(10)), place_deck=[],
                  above={0: [gem(WHITE, 5), (gem(RED, 3), 1)], 1: [gem(RED, 1)]},
                  under={0: [servant(2, 6)]}, hands={0: [gem(RED, 2)]}, score=[5, 10, 5])
    act(st, "collect place 1")
    assert st.is_terminal() and st.scores() == [5, 10, 10]
    assert st.winners() == [1, 2] and st.ranks() == [3, 1, 1]
    assert st.returns() == [-1.0, 0.5, 0.5] and sum(st.returns()) == 0


def test_D13_all_level_returns_zero():
    st = position(hands={0: [], 1: []}, gem_deck=[], score=[4, 4],
                  under={s: [servant(0, s + 1), servant(1, s + 1)] for s in range(6)})
    assert st.is_terminal() and st.returns() == [0.0, 0.0]


# --- actions, texts, errors --------------------------------------------------------------------
def test_every_action_text_reads_back():
    for a in range(D.NUM_IDS):
        assert D.string_to_action(D.action_to_string(a)) == a
    assert D.string_to_action("  Play RED 7 above place 2 ") == A.play_gem_action(gem(RED, 7), 1)
    with pytest.raises(D.IllegalActionError):
        D.string_to_action("build a temple")


def test_an_illegal_action_is_one_line_and_leaves_the_state():
    st = position(hands={0: [gem(RED, 1), gem(RED, 2)]})
    before = st.to_json()
    for bad in (A.A_DRAW_GEM, 9999, "x", A.C_GEM):
        with pytest.raises(D.IllegalActionError) as err:
            st.apply_action(bad)
        assert "\n" not in str(err.value)
    with pytest.raises(D.IllegalActionError):
        st.apply_action(st.legal_actions()[0], player=1)
    assert st.to_json() == before


def test_events_describe_in_words():
    st = position(above={0: [gem(YELLOW, 9), gem(YELLOW, 2)]}, under={0: [servant(1, 6)]},
                  hands={0: [gem(RED, 1)]})
    act(st, "collect place 1")
    words = [e.describe() for e in st.last_events()]
    assert any("blue takes 11 amulets with blue servant 6" in w for w in words), words
    st.apply_action(st.legal_actions()[0])
    act(st, "play red 1 above place 2")
    assert st.last_events()[0].describe(1) == "red plays a gem above place 2"
    assert st.last_events()[0].describe(0) == "red plays red 1 above place 2"


# --- random simulation -------------------------------------------------------------------------
def _check_step(st, rng, game):
    bad = D.check(st)
    assert not bad, (bad, st.history())
    # D12 ruling: no marker below the column (a lagging marker blocks it: once it has moved,
    # every score is above its bottom card's first circle, base + 1)
    assert st.base == 0 or min(st.score) > st.base, (st.score, st.base, st.history())
    if rng.random() < 0.02:
        back = game.state_from_json(st.to_json())
        assert back == st and json.loads(back.to_json()) == json.loads(st.to_json())
        twin = st.clone()
        if not twin.is_terminal():
            twin.apply_action(twin.legal_actions()[0])
            assert back == st  # the clone is independent


@pytest.mark.parametrize("n", [2, 3, 4])
def test_random_simulation_every_invariant_after_every_step(n):
    game = D.DruidsGame(n)
    ends = set()
    for g in range(300):
        st = game.new_initial_state()
        rng = random.Random(derive_seed(g, n))
        D.play(st, D.random_decide(rng), rng,
               observer=lambda s, cur, a, rng=rng: _check_step(s, rng, game))
        assert st.is_terminal() and sum(st.returns()) == pytest.approx(0.0)
        if st.end_reason == rules.END_COLUMN:  # D12 ruling: the one who passed the top wins
            top = st.base + 6 * game.circles
            assert [s for s in st.score if s > top] == [top + 1] and len(st.winners()) == 1
        ends.add(st.end_reason)
    assert rules.END_LAST_PLACE in ends
    assert n == 4 or rules.END_COLUMN in ends  # (these seeds: 5 and 7 D12 ends in 2 and 3 players)


def test_determinism_the_same_seeds_give_the_same_game():
    game = D.DruidsGame(3)
    runs = []
    for _ in range(2):
        st = game.new_initial_state()
        rng = random.Random(7)
        D.play(st, D.random_decide(rng), rng)
        runs.append(st.to_json())
    assert runs[0] == runs[1]
    replay = game.new_initial_state()
    for a in json.loads(runs[0])["history"]:
        replay.apply_action(a)
    assert replay.to_json() == runs[0]


def test_the_state_protocol_of_meduris():
    import copy
    import pickle

    st = position(hands={0: [gem(RED, 1), servant(0, 2)]})
    mask = st.legal_action_mask()
    assert mask.shape == (D.NUM_ACTIONS,) and sorted(mask.nonzero()[0].tolist()) == \
        st.legal_actions()
    assert pickle.loads(pickle.dumps(st)) == st and copy.deepcopy(st) == st
    child = st.step(st.legal_actions()[0])
    assert child != st and len(child.history()) == 1 and st.history() == []
    assert st.current_player() == 0 and not st.is_chance_node() and not st.is_truncated()
    assert D.CHANCE == -1 and D.TERMINAL == -4 and st.returns() == [0.0, 0.0]

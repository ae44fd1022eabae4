"""meduris_env.score_breakdown: the VP of each seat by source (R1, R13, R19, R21, R24, R25).

Every source is checked on a hand-built position against the VP its rule gives, computed here
from the board (not from the engine's events); and for many whole and half-played games of 2,
3 and 4 players (random and greedy agents) the sources add up to ``state.scores()``."""

import random

import pytest
from helpers import (
    C,
    S,
    at_turn_action,
    decision,
    druid_position,
    finale_position,
    full_circuit_position,
    hut,
    move,
    new_game,
    offer,
    roll,
    set_materials,
    temple,
)

from meduris_env import MedurisGame, score_breakdown
from meduris_env.engine.constants import HUT, TEMPLE
from meduris_rl.agents.registry import make_agent
from meduris_rl.kit.loop import play

KEYS = ["start", "bonus", "offerings", "runes", "temples", "total"]


def test_R1_every_seat_opens_with_five_vp_from_the_start():
    st = MedurisGame(3).new_initial_state()
    assert score_breakdown(st) == [dict(start=5, bonus=0, offerings=0, runes=0, temples=0,
                                        total=5)] * 3


def test_R13_a_plus_two_chip_counts_as_bonus():
    st = new_game()
    at_turn_action(st)
    set_materials(st, 0, stone=1, wood=1)
    st.apply_action(hut(4))  # field 4 holds a +2 VP chip (helpers.CHIPS)
    seat0 = score_breakdown(st)[0]
    assert seat0["bonus"] == 2  # R13: "+2 VP: the builder gains 2 VP at once"
    assert seat0["total"] == int(st.scores()[0]) == 7


@pytest.mark.parametrize(("choice", "vp"), [("none", -1), ("second", +1)])
def test_R19_offerings_count_their_vp_change(choice, vp):
    st = druid_position({10: 0, 20: 1}, druid=10)
    set_materials(st, 0, stone=1, copper=1)
    set_materials(st, 1, wood=1)
    st.apply_action(temple(15))
    assert decision(st) == ("offering", 1, 20)  # a lone hut on (stone, wood)
    st.apply_action(offer(choice))
    # R19: nothing costs 1 VP, one of the field's materials gives 1 VP
    assert score_breakdown(st)[1]["offerings"] == vp
    assert [r["total"] for r in score_breakdown(st)] == st.scores().tolist()


def test_R21_interim_scoring_counts_as_runes():
    st = full_circuit_position()  # the druid walks round, across the river: interim scoring
    rows = score_breakdown(st)
    assert [r["runes"] for r in rows] == [0, 1]  # R21: 1 VP per rune stone held then


def run_size(occ, f):
    """R16, computed here: the huts in the unbroken run through field f."""
    n = len(occ)
    size, g = 1, (f - 1) % n
    while occ[g] == HUT and g != f:
        size, g = size + 1, (g - 1) % n
    h = (f + 1) % n
    while occ[h] == HUT and h != g:
        size, h = size + 1, (h + 1) % n
    return size


def temple_vp(st, seat):
    """R24, computed here: each temple scores the settlements directly left and right of it."""
    occ = st.board_occupant.tolist()
    n = len(occ)
    total = 0
    for f in range(n):
        if occ[f] == TEMPLE and st.board_owner[f] == seat:
            total += sum(run_size(occ, g) for g in ((f - 1) % n, (f + 1) % n) if occ[g] == HUT)
    return total


def finished_finale():
    """Seat 0 builds its last piece (R22), every offering answered "nothing", to the end."""
    st = finale_position()  # interim scoring: 4 and 2 rune stones (R21)
    while not st.is_chance_node():
        st.apply_action(offer("none"))
    roll(st, "wool")
    st.apply_action(move(S, 0, C))
    while not st.is_terminal():
        st.apply_action(offer("none"))
    return st


def test_R24_R25_final_scoring_counts_temples_and_rune_stones():
    st = finished_finale()
    rows = score_breakdown(st)
    for seat in (0, 1):
        assert rows[seat]["temples"] == temple_vp(st, seat) > 0  # R24
    held = [int((st.rune_holder == s).sum()) for s in (0, 1)]
    assert held == [4, 2]
    # R21 at the walk (4 and 2 stones) + R25 at the end (1 + 2 + ... + k)
    assert [r["runes"] for r in rows] == [k + k * (k + 1) // 2 for k in held]
    assert [r["total"] for r in rows] == st.scores().tolist()


def play_with(game, agents, seed, stop_after=None):
    """A game of ``agents`` from ``seed``; with ``stop_after``, stopped after that many
    decisions (an unfinished game)."""
    for seat, agent in enumerate(agents):
        agent.reset(seed * 10 + seat)
    st = game.new_initial_state()
    made = [0]

    def until(state):
        return stop_after is not None and made[0] >= stop_after

    def decide(state, seat):
        made[0] += 1
        return agents[seat].act(None, state)

    play(st, decide, random.Random(seed), until=until)
    return st, made[0]


@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("kind", ["random", "greedy"])
def test_sources_add_up_to_the_scores_in_whole_and_unfinished_games(players, kind):
    game = MedurisGame(players)
    seen = dict.fromkeys(KEYS[1:-1], False)
    for seed in range(6 if kind == "random" else 3):
        agents = [make_agent(kind) for _ in range(players)]
        whole, decisions = play_with(game, agents, seed)
        half, _ = play_with(game, agents, seed, stop_after=decisions // 2 + seed)
        assert whole.is_terminal() and not half.is_terminal()
        for st in (whole, half):
            rows = score_breakdown(st)
            assert [list(r) for r in rows] == [KEYS] * players
            assert [r["total"] for r in rows] == st.scores().tolist(), (players, kind, seed)
            for r in rows:
                assert sum(r[k] for k in KEYS[:-1]) == r["total"]
                for k in seen:
                    seen[k] = seen[k] or r[k] != 0
    assert seen["offerings"] and seen["runes"] and seen["temples"]  # the sources were exercised

"""Information-set MCTS for Druids (agents/druids/ismcts.py, issue 28): legal moves for 2, 3
and 4 players, the same seed gives the same moves, the search never reads what the searcher
cannot know (D14), it beats random clearly, and its budgets are bounded."""

from __future__ import annotations

import random
import statistics
import time

import pytest

from druids_env import DruidsGame, check, information_state_string, resample_hidden
from druids_env.engine.actions import A_PLAY_GEM, NUM_ACTIONS
from meduris_rl.agents.base import Agent
from meduris_rl.agents.druids.ismcts import DruidsISMCTSAgent, public_key
from meduris_rl.agents.registry import Budget
from meduris_rl.agents.simple import RandomAgent
from meduris_rl.kit.protocol import CHANCE, TERMINAL
from meduris_rl.kit.values import ValueCheckError


def play_game(game, agents: list[Agent], seed: int, *, until=None) -> object:
    """A Druids game (chance from ``seed``) with ``agents`` by seat; stops early when
    ``until(state)`` holds at a decision. Every decision is checked legal as it is made."""
    rng = random.Random(seed)
    for i, agent in enumerate(agents):
        agent.reset(seed * 10 + i)
    st = game.new_initial_state()
    while st.current_player() != TERMINAL:
        cur = st.current_player()
        if cur == CHANCE:
            ids = st.legal_actions()
            st.apply_action(ids[rng.randrange(len(ids))])
            continue
        if until is not None and until(st):
            break
        action = agents[cur].act(None, st)
        assert action in st.legal_actions()
        st.apply_action(action, cur)
    return st


def midgame(num_players: int, seed: int, turn: int = 5):
    return play_game(DruidsGame(num_players), [RandomAgent() for _ in range(num_players)],
                     seed, until=lambda s: s.turn >= turn)


@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_legal_moves_through_a_whole_game(num_players):
    agents = [DruidsISMCTSAgent("ismcts:8", iterations=8) for _ in range(num_players)]
    st = play_game(DruidsGame(num_players), agents, seed=num_players)
    assert st.is_terminal()
    check(st)
    assert all(0 <= a < NUM_ACTIONS for a in agents[0].last_visits or {})


def test_same_seed_same_moves():
    st = midgame(3, seed=7)
    moves = []
    for _ in range(2):
        agent = DruidsISMCTSAgent("ismcts:60", iterations=60)
        agent.reset(123)
        moves.append((agent.act(None, st), agent.last_visits))
    assert moves[0] == moves[1]
    assert sum(moves[0][1].values()) == 60


@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_it_never_reads_hidden_information(num_players):
    """Two states that differ only in what the searcher cannot know (other hands, others'
    face-down cards, the decks: resample_hidden) give the same search with the same seed."""
    rng = random.Random(num_players)
    differed = 0
    for k in range(4):
        st = midgame(num_players, seed=100 + k, turn=4 + k)
        me = st.current_player()
        other = resample_hidden(st, me, rng)
        assert information_state_string(other, me) == information_state_string(st, me)
        differed += other.hands != st.hands
        results = []
        for s in (st, other):
            agent = DruidsISMCTSAgent("ismcts:40", iterations=40)
            agent.reset(5)
            results.append((agent.act(None, s), agent.last_visits))
        assert results[0] == results[1]
    assert differed  # the pairs really differ in hidden cards


def views(st, seat: int) -> tuple:
    from druids_env import (
        information_state_tensor,
        observation_string,
        observation_tensor,
    )
    return (observation_tensor(st, seat).tolist(), observation_string(st, seat),
            information_state_string(st, seat), information_state_tensor(st, seat).tolist())


def timing_twin(st, q: int):
    """``st`` with seat ``q``'s servant in hand and one under a place trading which of ``q``'s
    draws brought them (their draw times and the hidden card of the two draw events): hidden
    from the other seats (D14), where that history is possible; else None."""
    from druids_env.engine.cards import is_gem, servant_owner

    hand = [c for c in st.hands[q] if not is_gem(c)]
    table = [c for pile in st.under for c in pile if servant_owner(c) == q]
    shown = [(i, c) for i, c in st.reveals if servant_owner(c) == q]
    for a in hand:
        for b in table:
            ta, tb = st.drawn_at[a], st.drawn_at[b]
            if ta == tb or st.played_at[b] < ta or any(
                    (i > ta and c == b) or (i > tb and c == a) for i, c in shown):
                continue
            twin = st.clone()
            twin.drawn_at[a], twin.drawn_at[b] = tb, ta
            ev = twin.log_events
            ev[ta] = ev[ta]._replace(data={**ev[ta].data, "card": b})
            ev[tb] = ev[tb]._replace(data={**ev[tb].data, "card": a})
            return twin
    return None


def test_the_search_reads_neither_which_draw_was_played_nor_the_hand_order():
    """D14: which of an opponent's servant draws is still in hand and which went under a place,
    and the order of the opponent's hand (which tells which card left it), are hidden. Twins
    differing only there have the same views for the searcher, and the same canonical deal and
    search (found by an audit: the canonical deal kept the true draw times, so 43 of 805 such
    twins searched differently)."""
    from meduris_rl.agents.druids.ismcts import canonical

    rng, twins, searched = random.Random(0), 0, 0
    for g in range(40):
        st = midgame(2, seed=500 + g, turn=6 + g % 10)
        me = st.current_player()
        q = 1 - me
        shuffled = st.clone()
        rng.shuffle(shuffled.hands[q])
        for twin in (timing_twin(st, q), shuffled):
            if twin is None or check(twin):
                continue
            assert views(twin, me) == views(st, me)
            a, b = canonical(st, me), canonical(twin, me)
            assert (a.hands, a.under, a.drawn_at) == (b.hands, b.under, b.drawn_at), g
            twins += 1
            if searched < 6 and len(st.legal_actions()) > 1:
                moves = []
                for s in (st, twin):
                    agent = DruidsISMCTSAgent("ismcts:30", iterations=30)
                    agent.reset(g)
                    moves.append((agent.act(None, s), agent.last_visits))
                assert moves[0] == moves[1]
                searched += 1
    assert twins >= 40 and searched == 6, (twins, searched)


def test_public_key_hides_which_gem():
    assert public_key(A_PLAY_GEM + 0 * 6 + 2) == public_key(A_PLAY_GEM + 53 * 6 + 2)
    assert public_key(A_PLAY_GEM + 0 * 6 + 2) != public_key(A_PLAY_GEM + 0 * 6 + 3)


def test_beats_random_clearly():
    game = DruidsGame(2)
    wins = 0.0
    games = 12
    for g in range(games):
        seat = g % 2  # seats rotated
        agents = [RandomAgent(), RandomAgent()]
        agents[seat] = DruidsISMCTSAgent("ismcts:40", iterations=40)
        st = play_game(game, agents, seed=1000 + g)
        ret = st.returns()[seat]
        wins += 1.0 if ret > 0 else 0.5 if ret == 0 else 0.0
    assert wins >= 10, wins


def test_budgets_bounded_and_parsed():
    budget = Budget("iterations", 200, seconds=True)
    assert budget.parse("ismcts:0.2s", "ismcts", "0.2s") == (0.2, "seconds")
    assert budget.parse("ismcts:200", "ismcts", "200") == (200, "iterations")
    assert DruidsISMCTSAgent("ismcts:0.2s", iterations=None, seconds=0.2).seconds == 0.2
    for bad in ({"iterations": 0}, {"iterations": 10**8}, {"iterations": None, "seconds": 0},
                {"iterations": None, "seconds": float("inf")},
                {"iterations": None, "seconds": float("nan")}):
        with pytest.raises(ValueCheckError) as err:
            DruidsISMCTSAgent("ismcts", **bad)
        assert "\n" not in str(err.value)
    with pytest.raises(ValueError):
        DruidsISMCTSAgent("ismcts", iterations=10, seconds=1.0)


def test_time_budget_stops_in_time():
    st = midgame(2, seed=3)
    agent = DruidsISMCTSAgent("ismcts:0.05s", iterations=None, seconds=0.05)
    agent.reset(0)
    t0 = time.perf_counter()
    assert agent.act(None, st) in st.legal_actions()
    assert time.perf_counter() - t0 < 0.5
    assert agent.last_iterations >= 1


class FakeClock:
    """A ``time`` module whose clock moves only when an iteration runs (by ``costs``, in
    turn), so the budget's arithmetic is tested exactly, free of the machine's load."""

    def __init__(self, costs):
        self.now, self.costs, self.k = 100.0, costs, 0

    def perf_counter(self):
        return self.now

    def spend(self):
        self.now += self.costs[self.k % len(self.costs)]
        self.k += 1


@pytest.mark.parametrize("costs", [(0.001,), (0.0007,), (0.0004, 0.0011, 0.0006)])
def test_time_budget_is_a_ceiling_with_a_steady_clock(monkeypatch, costs):
    """No iteration is started unless twice the mean iteration is left, so with iterations of
    steady cost the decision never passes its budget (the old check, between iterations only,
    passed it with every decision: 0.7 ms iterations end a 50 ms budget at 50.4 ms) and uses
    most of it."""
    import meduris_rl.agents.druids.ismcts as mod

    clock = FakeClock(costs)
    monkeypatch.setattr(mod, "time", clock)
    agent = DruidsISMCTSAgent("ismcts:0.05s", iterations=None, seconds=0.05)
    real = agent.iterate
    monkeypatch.setattr(agent, "iterate", lambda *a: (real(*a), clock.spend()))
    agent.reset(0)
    for k in range(3):
        st = midgame(2 + k, seed=30 + k)
        start = clock.now
        assert agent.act(None, st) in st.legal_actions()
        spent = clock.now - start
        assert 0.05 - 3 * max(costs) <= spent <= 0.05, spent
        assert agent.last_iterations == clock.k and sum(agent.last_visits.values()) >= 1
        clock.k = 0


def test_time_budget_is_respected_on_average_in_real_time():
    """At ``ismcts:0.05s`` the mean time of a decision over several positions stays within the
    budget (the old check overran every decision, so its median and mean were both above
    it). The median must be under the budget; the mean may pass it by 5 % at most, since on
    a shared machine one preempted iteration can overrun a single decision."""
    budget = 0.05
    spent = []
    for k in range(8):
        st = midgame(2 + k % 3, seed=40 + k, turn=2 + k)
        agent = DruidsISMCTSAgent("ismcts:0.05s", iterations=None, seconds=budget)
        agent.reset(k)
        t0 = time.perf_counter()
        agent.act(None, st)
        spent.append(time.perf_counter() - t0)
    assert statistics.median(spent) < budget, spent
    assert statistics.mean(spent) < 1.05 * budget, spent
    assert statistics.mean(spent) > 0.5 * budget, spent  # and the budget is used


# Recorded when the canonical deal stopped reading the opponents' true draw times and hand order
# (public_draw_times; the figures of commit 675d577 before it are in the history), to keep the
# search bit for bit as it is through later changes:
# (players, seed of the game, turn) -> (move, the root's visits), ismcts:60 seeded with `seed`.
RECORDED = {
    (2, 3, 9): (101, {42: 4, 101: 13, 230: 6, 232: 8, 333: 6, 351: 8, 361: 6, 363: 4, 366: 5}),
    (3, 7, 9): (191, {122: 6, 164: 7, 187: 4, 191: 11, 337: 8, 343: 3, 349: 8, 361: 8,
                      365: 5}),
    (4, 11, 9): (0, {0: 27, 1: 14, 4: 13, 6: 6}),
}


@pytest.mark.parametrize("key", sorted(RECORDED))
def test_moves_for_fixed_seeds_are_as_recorded(key):
    """The search is bit-for-bit what it was: the determinisations (resample_hidden, D14) and
    the canonical deal draw the same servant values from the same random numbers."""
    num_players, seed, turn = key
    st = midgame(num_players, seed=seed, turn=turn)
    agent = DruidsISMCTSAgent("ismcts:60", iterations=60)
    agent.reset(seed)
    assert (agent.act(None, st), agent.last_visits) == RECORDED[key]

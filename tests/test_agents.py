"""Agents: registry, legality over many games, the greedy strategy on concrete positions, and
MCTS determinism."""

import random
import time

import pytest
from helpers import (
    at_turn_action,
    e3_position,
    hut,
    new_game,
    offer,
    place,
    set_materials,
)

from meduris_env import MedurisGame
from meduris_rl.agents import Agent, UnknownAgentError, make_agent
from meduris_rl.agents.arena.match import play_game
from meduris_rl.agents.meduris.heuristics import action_values


class LegalityChecker(Agent):
    """Wraps an agent and fails the test on any illegal choice (before the engine would)."""

    def __init__(self, inner):
        super().__init__(inner.name)
        self.inner = inner
        self.uses_observation = inner.uses_observation
        self.moves = 0

    def reset(self, seed=None):
        self.inner.reset(seed)

    def act(self, observation, state):
        before = state.clone()
        action = self.inner.act(observation, state)
        assert state == before, f"{self.name} changed the state it was given"
        assert action in state.legal_actions(), f"{self.name} chose illegal {action}"
        if observation is not None:
            assert observation["action_mask"][action] == 1
        self.moves += 1
        return action


@pytest.mark.parametrize("num_players,exchange,games", [
    (2, "auto", 6), (2, "manual", 3), (3, "auto", 4), (4, "manual", 3)])
@pytest.mark.parametrize("name", ["random", "greedy", "mcts:15"])
def test_agents_play_only_legal_actions(name, num_players, exchange, games):
    game = MedurisGame(num_players, exchange=exchange)
    for seed in range(games):
        bots = [LegalityChecker(make_agent(name)) for _ in range(num_players - 1)]
        bots.append(LegalityChecker(make_agent("random")))
        result = play_game(game, bots, seed)
        if name != "random":  # uniform play in manual mode can exchange until the turn limit
            assert result.end_reason.startswith(("finale", "no construction"))
        assert all(b.moves > 0 for b in bots)


def test_registry_builds_agents_by_name_with_parameters():
    assert make_agent("mcts:400").iterations == 400
    timed = make_agent("mcts:0.25s")
    assert timed.seconds == 0.25 and timed.iterations is None
    assert make_agent("greedy").name == "greedy"


@pytest.mark.parametrize("spec,message", [
    ("gredy", "unknown agent 'gredy' (did you mean 'greedy'?); known agents: random, greedy"),
    ("mcts:lots", "write mcts:<iterations>"),
    ("mcts:-5", "a positive number"),
    ("random:3", "random takes no parameter"),
    ("", "non-empty"),
    ("ppo:/nonexistent/policy.pt", "no trained model at /nonexistent/policy.pt"),
    ("ppo:/nonexistent/model.zip", "model.zip is a full training checkpoint"),
])
def test_registry_errors_name_the_fix(spec, message):
    with pytest.raises(UnknownAgentError) as err:
        make_agent(spec)
    assert message in str(err.value)


def test_corrupt_ppo_model_is_a_clear_error(tmp_path):
    bad = tmp_path / "policy.pt"
    bad.write_bytes(b"not a zip file")
    with pytest.raises(UnknownAgentError, match="policy.pt is not a weights-only policy file"):
        make_agent(f"ppo:{bad}")


def greedy_choice(state, seed=0):
    bot = make_agent("greedy")
    bot.reset(seed)
    return bot.act(None, state)


def test_greedy_offers_both_materials_when_the_settlement_pays():
    st = e3_position()
    st.apply_action(108 + 15)  # temple on 15: the druid asks seat 0 for the hut on 20 (size 3)
    assert st.pending_decision()["kind"] == "offering"
    assert greedy_choice(st) == offer("both")


def test_greedy_takes_a_rune_stone_from_the_leader_rather_than_a_free_area():
    # chips only on fields seat 0 cannot afford (a +2 VP chip would beat the rune stone swing)
    st = new_game(chips=[(3, "vp"), (11, "vp"), (15, "free"), (19, "free"), (23, "druid"),
                         (27, "druid")])
    place(st, 5, "hut", 1)  # seat 1 holds the diamond rune stone (area of fields 5-7)
    st.rune_holder[1] = 1
    at_turn_action(st)
    set_materials(st, 0, wood=1, stone=1)
    # wood+stone fields: 7 in the diamond area (held by seat 1); 1, 18, 20, 25 in free areas
    vals = action_values(st.array, st.game.field_materials, st.game.field_areas)
    huts = [a for a in st.legal_actions() if hut(0) <= a <= hut(31)]
    # 4 would join seat 1's hut on 5 (cost 2 each); 15 and 19 are free-hut chips (R13)
    assert sorted(huts) == [hut(f) for f in (1, 7, 15, 18, 19, 20, 25)]
    paid = [hut(f) for f in (1, 7, 18, 20, 25)]
    assert max(paid, key=lambda a: vals[a]) == hut(7)
    # rune swing: +1 for seat 0 (k 0 -> 1) and -1 for seat 1 (k 1 -> 0), vs +1 elsewhere
    assert vals[hut(7)] - vals[hut(1)] == pytest.approx(1.0)
    st.apply_action(hut(7))
    assert st.rune_holder[1] == 0  # taken back from seat 1 (R12)


def test_greedy_and_mcts_are_deterministic_given_the_seed():
    game = MedurisGame(2)
    a = play_game(game, [make_agent("mcts:20"), make_agent("greedy")], seed=3, keep_history=True)
    b = play_game(game, [make_agent("mcts:20"), make_agent("greedy")], seed=3, keep_history=True)
    assert a.history == b.history and a.vp == b.vp


def test_mcts_time_budget_is_respected():
    st = new_game()
    at_turn_action(st)
    set_materials(st, 0, wood=3, wool=3, copper=3, stone=3)
    bot = make_agent("mcts:0.2s")
    bot.reset(0)
    t0 = time.perf_counter()
    action = bot.act(None, st)
    took = time.perf_counter() - t0
    assert action in st.legal_actions()
    assert 0.2 <= took < 0.6


def test_greedy_beats_random_in_most_games():
    game = MedurisGame(2)
    rng = random.Random(0)
    wins = 0
    for i in range(20):
        seats = [make_agent("greedy"), make_agent("random")]
        if i % 2:
            seats.reverse()
        r = play_game(game, seats, rng.getrandbits(31))
        greedy_seat = 0 if i % 2 == 0 else 1
        wins += greedy_seat in r.winners
    assert wins >= 18

"""The ``gumbel`` agent (agents/meduris/gumbel.py, issue 29): Gumbel AlphaZero search at play time
on the batched search and the position pool, guided by a policy file's networks."""

import random

import numpy as np
import pytest
from helpers import random_position

from meduris_env import MedurisGame
from meduris_rl.agents import UnknownAgentError, make_agent
from meduris_rl.agents.arena.match import play_game
from meduris_rl.agents.meduris.gumbel import DEFAULT_SIMULATIONS, MAX_SIMULATIONS, GumbelAgent
from meduris_rl.agents.registry import AgentSpec, kind_named
from meduris_rl.kit.loop import resolve_chance
from meduris_rl.kit.values import ValueCheckError


@pytest.mark.parametrize("players", [2, 3])
def test_whole_games_against_greedy_are_legal(players):
    # play_game raises IllegalActionError naming the agent on an illegal move
    agents = [make_agent("gumbel:8")] + [make_agent("greedy") for _ in range(players - 1)]
    result = play_game(MedurisGame(players), agents, seed=players)
    assert result.end_reason != "abandoned" and not result.forfeit
    assert result.decisions_per_seat[0] > 10
    last = agents[0].last_result
    assert last is not None and last.visits.sum() == 8


def test_the_same_seed_gives_the_same_moves():
    def history(seed):
        agents = [make_agent("gumbel:8"), make_agent("greedy")]
        return play_game(MedurisGame(2), agents, seed=seed, keep_history=True).history

    assert history(5) == history(5)


@pytest.mark.parametrize("name", ["gumbel:0", "gumbel:1e9", "gumbel:abc", "gumbel:-3",
                                  f"gumbel:{MAX_SIMULATIONS + 1}", "gumbel:0.5s"])
def test_bad_budgets_are_refused_in_one_line(name):
    with pytest.raises(UnknownAgentError) as err:
        AgentSpec.parse(name)
    assert "write gumbel:<count>" in str(err.value) and "\n" not in str(err.value)
    assert f"at most {MAX_SIMULATIONS}" in str(err.value)


def test_the_row_and_the_names():
    row = kind_named("gumbel")
    assert row.budget.default == DEFAULT_SIMULATIONS and row.budget.maximum == MAX_SIMULATIONS
    assert row.usage() == "gumbel[:<simulations>[:<policy.pt>]]"
    spec = AgentSpec.parse("gumbel")
    assert (spec.budget, spec.unit, spec.parameter) == (32, "simulations", None)
    spec = AgentSpec.parse("gumbel:16:agents/models/ppo_2p.pt")
    assert (spec.budget, spec.parameter) == (16, "agents/models/ppo_2p.pt")
    bot = spec.build()
    assert isinstance(bot, GumbelAgent) and bot.simulations == 16 and bot.name == str(spec)
    with pytest.raises(ValueCheckError):
        GumbelAgent("g", simulations=0)


def test_a_policy_of_another_player_count_or_game_is_refused_in_one_line():
    bot = make_agent("gumbel:8:agents/models/ppo_2p.pt")
    with pytest.raises(UnknownAgentError) as err:
        bot.check_players(3)
    assert "2-player policy" in str(err.value) and "\n" not in str(err.value)
    with pytest.raises(UnknownAgentError, match="2-player policy"):
        play_game(MedurisGame(3), [bot, make_agent("greedy"), make_agent("greedy")], seed=0)
    with pytest.raises(UnknownAgentError) as err:
        make_agent("gumbel:8:agents/models/druids_ppo_2p.pt")
    assert "Druids policy" in str(err.value) and "\n" not in str(err.value)


def decision(players=2, seed=0, moves=4):
    """A position where a player must decide, after a few random moves."""
    return random_position(players, seed, moves)


class Oracle(GumbelAgent):
    """A flat prior, and a value that says the move ``winning`` wins for the root's player:
    every position below it is worth +1 to that seat (-1 to the other), every other 0."""

    def __init__(self, winning: int, root_player: int, simulations: int = 32):
        super().__init__("oracle", simulations)
        self.winning, self.root_player = winning, root_player

    def inputs(self, game):
        def below_winning(pool, ids, obs):
            out = np.zeros((len(ids), 2), dtype=np.float32)
            for j, i in enumerate(ids.tolist()):
                while pool.parent([i])[0] > 0:  # up to the root's child (the root is row 0)
                    i = int(pool.parent([i])[0])
                out[j, 0] = i > 0 and pool.applied(i)[0] == self.winning
            out[:, 1] = pool.mover(ids)
            return out
        return below_winning

    def evaluator(self, game):
        def evaluate(x, mask):
            sign = np.where(x[:, 1] == self.root_player, 1.0, -1.0)
            return np.zeros(mask.shape), np.where(x[:, 0] > 0, sign, 0.0)
        return evaluate


def test_it_plays_the_move_its_value_says_wins():
    state = decision()
    legal = state.legal_actions()
    assert len(legal) > 2
    # a flat prior considers the lowest ids first: the winning move is the last considered,
    # the one the prior alone would play last
    winning = legal[min(16, len(legal)) - 1]
    oracle = Oracle(winning, state.current_player())
    oracle.reset(3)
    assert oracle.act(None, state) == winning
    assert oracle.last_result.visits[0, winning] == oracle.last_result.visits.max()
    oracle.winning = legal[0]
    assert oracle.act(None, state) == legal[0]


def test_a_forced_move_is_played_without_search(monkeypatch):
    bot = make_agent("gumbel:8")
    monkeypatch.setattr(bot, "_search", lambda *a: pytest.fail("searched a forced move"))
    rng = random.Random(0)
    state = MedurisGame(2).new_initial_state()
    resolve_chance(state, rng)
    while len(state.legal_actions()) != 1:
        state.apply_action(rng.choice(state.legal_actions()))
        resolve_chance(state, rng)
        assert not state.is_terminal(), "no forced move in this game"
    assert bot.act(None, state) == state.legal_actions()[0]

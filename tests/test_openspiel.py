"""Meduris as an OpenSpiel game (meduris_env.openspiel): OpenSpiel's own API test for every
player count and exchange mode, its MCTSBot playing whole games, observations from the project's
encoder, and openspiel-mcts entering a tournament."""

import numpy as np
import pyspiel  # the [bench] extra, which make test installs
import pytest

import meduris_env.openspiel  # noqa: F401  (registers python_meduris)
from meduris_env.engine.constants import C_DIE
from meduris_env.envs.observation import observation_vector


@pytest.mark.parametrize("exchange", ["auto", "manual"])
@pytest.mark.parametrize("players", [2, 3, 4])
def test_random_sim_test_passes(players, exchange):
    # uniform play in manual mode mostly exchanges: a turn limit keeps those games short
    turns = 1000 if exchange == "auto" else 150
    game = pyspiel.load_game(
        f"python_meduris(players={players},exchange={exchange},max_turns={turns})")
    assert game.num_players() == players and game.num_distinct_actions() == 241
    assert game.max_chance_outcomes() == 154 and game.get_type().short_name == "python_meduris"
    pyspiel.random_sim_test(game, num_sims=2, serialize=True, verbose=False)


def test_the_state_is_the_engines_state_with_openspiel_numbering():
    game = pyspiel.load_game("python_meduris(players=3)")
    state = game.new_initial_state()
    assert state.is_chance_node() and state.current_player() == pyspiel.PlayerId.CHANCE
    outcomes = state.chance_outcomes()
    assert all(0 <= a < 154 for a, _ in outcomes) and sum(p for _, p in outcomes) == \
        pytest.approx(1.0)
    rng = np.random.default_rng(0)
    while not state.is_terminal():
        if state.is_chance_node():
            acts, probs = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(int(rng.choice(acts, p=probs)))
        else:
            player = state.current_player()
            assert np.array_equal(np.asarray(state.observation_tensor(player)),
                                  observation_vector(state.state, player))
            state.apply_action(int(rng.choice(state.legal_actions())))
    assert state.returns() == state.state.returns().tolist() and sum(state.returns()) == \
        pytest.approx(0.0)
    # chance outcome k is the engine's C_DIE + k, in the history too
    assert all(a < 241 or a >= C_DIE for a in state.state.history())
    assert len(state.history()) == len(state.state.history())


def test_openspiel_mcts_bot_plays_whole_games_legally():
    from open_spiel.python.algorithms import mcts
    from open_spiel.python.bots import uniform_random

    for players in (2, 4):
        game = pyspiel.load_game(f"python_meduris(players={players})")
        rng = np.random.RandomState(players)
        bots = [mcts.MCTSBot(game, 2.0, 8, mcts.RandomRolloutEvaluator(1, rng), random_state=rng)]
        bots += [uniform_random.UniformRandomBot(p, rng) for p in range(1, players)]
        returns = pyspiel.evaluate_bots(game.new_initial_state(), bots, 0)
        assert len(returns) == players and sum(returns) == pytest.approx(0.0)


def test_openspiel_mcts_enters_a_tournament(tmp_path):
    from meduris_rl.cli import main

    out = tmp_path / "res"
    code = main(["tournament", "--agents", "openspiel-mcts:4,random", "--games", "2",
                 "--workers", "1", "--no-progress", "--out", str(out)])
    assert code == 0 and (out / "games.csv").read_text().count("openspiel-mcts:4") == 2

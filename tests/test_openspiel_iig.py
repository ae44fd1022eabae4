"""OpenSpiel's imperfect-information interface of python_meduris (meduris_env.envs.openspiel):
the game type's provides_* flags match what the state and observer give (every True flag works
through pyspiel's API, every False one raises), the observer honours iig_obs_type
(public_info / perfect_recall / private_info) the way OpenSpiel's own python games do, the game
takes hidden_materials (observed by the environments' one encoder) and pyspiel's random_sim_test
passes with serialisation for 2-4 players and both hidden_materials values."""

import numpy as np
import pyspiel
import pytest
from open_spiel.python.observation import INFO_STATE_OBS_TYPE, make_observation

import meduris_env.openspiel  # noqa: F401  (registers python_meduris)
from meduris_env.envs.observation import OBS_SIZE, decode_observation, observation_vector
from meduris_env.envs.openspiel import MedurisOpenSpielGame
from meduris_rl.kit.errors import InputError

PRIVATE = pyspiel.PrivateInfoType


def _game(players=3, hidden=False, max_turns=1000):
    return pyspiel.load_game("python_meduris", {"players": players, "hidden_materials": hidden,
                                                "max_turns": max_turns})


def _played(game, decisions=80, seed=0):
    """A state after some seeded random play, with every seat holding chips."""
    rng = np.random.default_rng(seed)
    state = game.new_initial_state()
    while decisions > 0 and not state.is_terminal():
        if state.is_chance_node():
            actions, probs = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(int(rng.choice(actions, p=probs)))
        else:
            state.apply_action(int(rng.choice(state.legal_actions())))
            decisions -= 1
    return state


@pytest.mark.parametrize("hidden", [False, True])
def test_every_provided_flag_works_and_every_missing_one_raises(hidden):
    game = _game(3, hidden)
    kind = game.get_type()
    state = _played(game)
    assert kind.provides_information_state_string and kind.provides_observation_string
    assert kind.provides_observation_tensor and not kind.provides_information_state_tensor
    for p in range(3):
        assert state.information_state_string(p) == state.history_str()
        assert len(state.observation_tensor(p)) == OBS_SIZE
        assert f"turn {state.state.turn}" in state.observation_string(p)
        with pytest.raises(pyspiel.SpielError, match="no information state tensor"):
            state.information_state_tensor(p)
    assert game.observation_tensor_shape() == [OBS_SIZE]
    with pytest.raises(pyspiel.SpielError, match="no information state tensor"):
        game.information_state_tensor_shape()


def test_information_type_and_parameter_follow_hidden_materials():
    plain, hidden = _game(3, False), _game(3, True)
    assert plain.get_type().information == pyspiel.GameType.Information.PERFECT_INFORMATION
    assert hidden.get_type().information == pyspiel.GameType.Information.IMPERFECT_INFORMATION
    assert plain.get_parameters()["hidden_materials"] is False
    assert hidden.get_parameters()["hidden_materials"] is True
    assert pyspiel.load_game("python_meduris").get_parameters()["hidden_materials"] is False
    by_string = pyspiel.load_game("python_meduris(players=4,hidden_materials=True)")
    assert by_string.num_players() == 4 and by_string.get_parameters()["hidden_materials"]


def test_bad_hidden_materials_is_one_clear_error():
    # pyspiel checks the declared bool type itself; the game checks a direct construction
    with pytest.raises(pyspiel.SpielError, match="hidden_materials"):
        pyspiel.load_game("python_meduris", {"hidden_materials": "yes"})
    with pytest.raises(InputError, match="hidden_materials must be True or False"):
        MedurisOpenSpielGame({"hidden_materials": "yes"})


@pytest.mark.parametrize("hidden", [False, True])
def test_default_observation_is_the_environments_vector(hidden):
    game = _game(3, hidden)
    state = _played(game)
    for p in range(3):
        expected = observation_vector(state.state, p, hidden)
        assert np.array_equal(np.asarray(state.observation_tensor(p), np.float32), expected)
        parts = decode_observation(np.asarray(state.observation_tensor(p)))
        assert parts["player_materials_hidden"][1:3].tolist() == ([1, 1] if hidden else [0, 0])
        assert parts["player_materials_hidden"][0] == 0


def test_opponents_splits_hidden_in_the_observation_string_only_when_hidden():
    for hidden in (False, True):
        state = _played(_game(2, hidden))
        text = state.observation_string(0)
        assert ("behind the screen" in text) is hidden
        assert text.count("wood=") == (1 if hidden else 2)


@pytest.mark.parametrize("hidden", [False, True])
def test_public_observer_private_info_kinds(hidden):
    game = _game(3, hidden)
    state = _played(game)
    shown = {}
    for kind in (PRIVATE.NONE, PRIVATE.SINGLE_PLAYER, PRIVATE.ALL_PLAYERS):
        obs = make_observation(game, pyspiel.IIGObservationType(
            public_info=True, perfect_recall=False, private_info=kind))
        obs.set_from(state, 1)
        shown[kind] = decode_observation(obs.tensor)["player_materials_hidden"][:3].tolist()
        assert obs.tensor.shape == (OBS_SIZE,)
        text = obs.string_from(state, 1)
        assert text.count("wood=") == 3 - sum(shown[kind])
    assert shown[PRIVATE.ALL_PLAYERS] == [0, 0, 0]
    if hidden:
        assert shown[PRIVATE.SINGLE_PLAYER] == [0, 1, 1]
        assert shown[PRIVATE.NONE] == [1, 1, 1]
    else:  # perfect information: every split is public, whatever the kind
        assert shown[PRIVATE.SINGLE_PLAYER] == shown[PRIVATE.NONE] == [0, 0, 0]


def test_private_only_observer_is_the_private_split_when_hidden():
    state = _played(_game(3, True))
    own = decode_observation(observation_vector(state.state, 2, False))["player_materials"]
    sizes = {}
    for kind in (PRIVATE.NONE, PRIVATE.SINGLE_PLAYER, PRIVATE.ALL_PLAYERS):
        obs = make_observation(state.get_game(), pyspiel.IIGObservationType(
            public_info=False, perfect_recall=False, private_info=kind))
        obs.set_from(state, 2)
        sizes[kind] = obs.tensor.size
        if kind == PRIVATE.SINGLE_PLAYER:
            assert obs.tensor.tolist() == own[0].tolist()
            assert obs.string_from(state, 2).startswith("p2:wood ")
        if kind == PRIVATE.ALL_PLAYERS:
            assert obs.tensor.reshape(4, 4)[:3].tolist() == own[:3].tolist()
    assert sizes == {PRIVATE.NONE: 0, PRIVATE.SINGLE_PLAYER: 4, PRIVATE.ALL_PLAYERS: 16}


def test_without_hidden_materials_nothing_is_private():
    state = _played(_game(3, False))
    for kind in (PRIVATE.NONE, PRIVATE.SINGLE_PLAYER, PRIVATE.ALL_PLAYERS):
        obs = make_observation(state.get_game(), pyspiel.IIGObservationType(
            public_info=False, perfect_recall=False, private_info=kind))
        obs.set_from(state, 0)
        assert obs.tensor.size == 0 and obs.string_from(state, 0) == ""


@pytest.mark.parametrize("hidden", [False, True])
def test_perfect_recall_is_the_public_history_like_openspiels_public_info_games(hidden):
    game = _game(2, hidden)
    state = _played(game)
    info = make_observation(game, INFO_STATE_OBS_TYPE)
    assert info.tensor is None
    assert info.string_from(state, 0) == info.string_from(state, 1) == state.history_str()
    private = make_observation(game, pyspiel.IIGObservationType(
        public_info=False, perfect_recall=True, private_info=PRIVATE.SINGLE_PLAYER))
    assert private.string_from(state, 0) == ""
    before = state.information_state_string(0)
    state.apply_action(state.legal_actions()[0])
    assert state.information_state_string(0).startswith(before)


def test_observers_refuse_parameters():
    with pytest.raises(ValueError, match="take no parameters"):
        make_observation(_game(2), None, {"x": 1})


@pytest.mark.parametrize("hidden", [False, True])
@pytest.mark.parametrize("players", [2, 3, 4])
def test_random_sim_test_passes_with_serialisation(players, hidden):
    game = _game(players, hidden, max_turns=25)
    pyspiel.random_sim_test(game, num_sims=2, serialize=True, verbose=False)
    state = _played(game, decisions=30, seed=players)
    game2, state2 = pyspiel.deserialize_game_and_state(
        pyspiel.serialize_game_and_state(game, state))
    assert game2.get_parameters()["hidden_materials"] is hidden
    assert np.array_equal(state2.observation_tensor(1), state.observation_tensor(1))

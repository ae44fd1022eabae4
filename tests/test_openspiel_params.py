"""The OpenSpiel game's parameters are checked before pyspiel sees the game (issue 31): a turn
limit whose game length OpenSpiel cannot hold (a 32-bit int) or a number that is not one is a
one-line ValueCheckError, not a pybind11 TypeError; the docstrings say how losers are paid."""

import pytest

pyspiel = pytest.importorskip("pyspiel")

import meduris_env.envs.openspiel as os_game  # noqa: E402
from meduris_rl.kit.values import ValueCheckError  # noqa: E402


@pytest.mark.parametrize("max_turns", [os_game.MAX_TURNS + 1, 2**31 - 1, -1, 10**12, 2.5, True])
def test_out_of_range_max_turns_is_one_line_before_openspiel(max_turns):
    with pytest.raises(ValueCheckError) as err:
        os_game.MedurisOpenSpielGame({"max_turns": max_turns})
    text = str(err.value)
    assert "\n" not in text and len(text) < 200 and text.startswith("max_turns"), text
    if isinstance(max_turns, int) and not isinstance(max_turns, bool) and max_turns < 2**31:
        with pytest.raises(ValueCheckError, match="max_turns"):  # through pyspiel, the same
            pyspiel.load_game("python_meduris", {"max_turns": max_turns})


def test_the_largest_turn_limit_and_no_limit_load():
    for max_turns in (os_game.MAX_TURNS, 0):
        game = pyspiel.load_game("python_meduris", {"max_turns": max_turns})
        assert 0 < game.max_game_length() < 2**31


def test_the_docstrings_say_losers_share_minus_one():
    import meduris_env.envs.rllib as rllib

    for module in (os_game, rllib):
        assert "losers -1" not in module.__doc__
        assert "losers share -1" in module.__doc__

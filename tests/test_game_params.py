"""Game parameters are given once (issue 26, item 7): every environment takes a ``MedurisGame``
(``game=``) or the game's options, never both, and player counts are checked in one place
(R1: 2, 3 or 4 players)."""

from __future__ import annotations

import numpy as np
import pytest

from meduris_env import MedurisGame
from meduris_env.engine.game import PLAYER_COUNTS, check_players, game_from
from meduris_env.envs import (
    MedurisBatch,
    MedurisSingleAgentEnv,
    MedurisVectorEnv,
    parallel_env,
    raw_env,
)

MAKERS = {
    "aec": lambda **kw: raw_env(**kw),
    "parallel": lambda **kw: parallel_env(**kw),
    "single_agent": lambda **kw: MedurisSingleAgentEnv(**kw),
    "batch": lambda **kw: MedurisBatch(4, **kw),
    "vector": lambda **kw: MedurisVectorEnv(4, **kw),
}


def _game_of(env) -> MedurisGame:
    return env.batch.game if hasattr(env, "batch") else getattr(env, "game", None) or \
        env.aec_env.game


@pytest.mark.parametrize("kind", MAKERS)
def test_every_env_plays_the_game_it_is_given(kind):
    game = MedurisGame(3, exchange="manual", max_turns=50)
    env = MAKERS[kind](game=game)
    assert _game_of(env) is game
    same = MAKERS[kind](num_players=3, exchange="manual", max_turns=50)
    assert _game_of(same) == game  # the options build an equal game


@pytest.mark.parametrize("kind", MAKERS)
def test_a_game_and_game_options_at_once_are_refused(kind):
    with pytest.raises(ValueError, match=r"either game= or the game options \(exchange\)"):
        MAKERS[kind](game=MedurisGame(2), exchange="manual")


@pytest.mark.parametrize("kind", MAKERS)
def test_r1_player_counts_are_checked_once_with_the_same_words(kind):
    with pytest.raises(ValueError, match=r"^num_players must be 2, 3 or 4 \(R1\), got 5$"):
        MAKERS[kind](num_players=5)


def test_check_players_accepts_numpy_ints_and_refuses_bools():
    assert PLAYER_COUNTS == (2, 3, 4)
    assert check_players(np.int64(4)) == 4 and type(check_players(np.int64(4))) is int
    for bad in (True, 1, 2.0, "2", None):
        with pytest.raises(ValueError, match="must be 2, 3 or 4"):
            check_players(bad)
    with pytest.raises(TypeError, match="game must be a MedurisGame"):
        game_from("meduris")

"""Behaviour kept when code moves: the same seeds give byte-identical tournaments (games.csv
and every game record, 2 and 4 players, greedy / mcts / ppo / az), batch games, vector and
training environments and the scalar environments as before the architecture pass; Druids
tournaments (games.csv and records), duels and ladders (stored games and fitted ratings) of both
games as before the game-neutral kit (issue 44). The digests were made by :mod:`digests` on the
code before those passes (``tests/data/game_digests.json``).

Issue 46 changed on purpose what agents are told: their seeds now come from a one-way function of
the run's seed (:func:`meduris_rl.kit.seeding.agent_seeds`), no longer from the game's, so the
tournaments, duels and ladders with seeded agents were digested again. Before that, the new code
was run with the agent seeds of before patched in (``derive_seed(game seed, seat + 1)``): every
stored digest matched, so the supervised workers, the bots' keeper and the plug-ins' state
copies changed nothing else. The Druids ruling of D12 (the moving column, issue 46) changes
Druids games on purpose: its tournaments and ladder were digested again after it."""

import json

import digests
import pytest

STORED = json.loads(digests.DATA.read_text())


@pytest.mark.parametrize("name", sorted(digests.TOURNAMENTS))
def test_a_tournament_gives_the_same_games_csv_and_records_as_before(name):
    assert digests.tournament(*digests.TOURNAMENTS[name]) == STORED[name]


def test_the_batch_engine_plays_and_replays_the_same_games_as_before():
    assert digests.batch_replay() == STORED["batch"]


def test_the_vector_env_against_a_league_and_in_self_play_is_unchanged():
    assert digests.vector_env_league() == STORED["vector_env"]


def test_the_training_env_with_snapshots_and_shaping_is_unchanged():
    assert digests.training_env() == STORED["training_env"]


def test_the_aec_and_single_agent_envs_are_unchanged():
    assert digests.scalar_envs() == STORED["scalar_envs"]


@pytest.mark.parametrize("name", sorted(digests.DUELS))
def test_a_duel_plays_the_same_games_and_says_the_same_as_before(name):
    assert digests.duel(*digests.DUELS[name]) == STORED[name]


@pytest.mark.parametrize("name", sorted(digests.LADDERS))
def test_a_ladder_stores_the_same_games_and_fits_the_same_ratings_as_before(name):
    assert digests.ladder(*digests.LADDERS[name]) == STORED[name]


def test_the_digests_see_a_change():
    """A digest is not a constant: another seed gives another one."""
    other = digests.tournament(2, "greedy,random", 2, 1)
    assert other["games_csv"] != STORED["tournament_2p"]["games_csv"]
    assert other["record_count"] == 2

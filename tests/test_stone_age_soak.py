"""Random Stone Age games keep every invariant (a small soak here; the 10,000-game soak per
configuration is benchmarks/stone_age_soak.py, its figures in docs/stone_age.md), and the
compiled check the soak uses agrees with the one in words."""

import random

import pytest
from helpers import load_benchmark

import stoneage_env as SA
from stoneage_env.engine.invariants import PROBLEMS, first_problem


@pytest.mark.parametrize("n,mammoth", [(2, False), (3, True), (4, True)])
def test_random_games_keep_every_invariant_and_end_by_a_rule(n, mammoth):
    game = SA.StoneAgeGame(n, mammoth_herd=mammoth)
    for seed in range(3):
        rng = random.Random(seed)
        s = game.new_initial_state()
        while not s.is_terminal():
            s.apply_action(s.sample_chance(rng) if s.is_chance_node()
                           else rng.choice(s.legal_actions()))
            assert first_problem(s) is None and SA.violations(s) == [], s.history()[-5:]
        assert s.end_reason in (1, 2) and not s.is_truncated()


PLANTED = [("figures", lambda s: s.figures.__setitem__(1, 11), "figures"),
           ("agriculture", lambda s: s.agriculture.__setitem__(0, 11), "agriculture"),
           ("tools", lambda s: s.tiles.__setitem__(0, [4, 1, 0]), "tool"),
           ("goods", lambda s: s.goods.__setitem__((1, 2), -1), "goods"),
           ("score", lambda s: s.score.__setitem__(0, 3), "sum of its sources"),
           ("cards", lambda s: s.deck.__setitem__(0, s.deck[0] + 1), "cards"),
           ("buildings", lambda s: s.unseen.__setitem__(0, s.unseen[0] + 1), "buildings"),
           ("site", lambda s: s.placed.__setitem__((1, 0), 8), "7")]


@pytest.mark.parametrize("what,plant,words", PLANTED, ids=[p[0] for p in PLANTED])
def test_a_planted_violation_is_caught_by_both_checks(what, plant, words):
    game = SA.StoneAgeGame(2)
    s = game.new_initial_state()
    rng = random.Random(1)
    while s.round < 3:
        s.apply_action(s.sample_chance(rng) if s.is_chance_node()
                       else rng.choice(s.legal_actions()))
    plant(s)
    assert first_problem(s) in PROBLEMS
    assert any(words in v for v in SA.violations(s)), SA.violations(s)


def test_the_soak_benchmark_runs_and_reports_no_violation(capsys):
    result = load_benchmark("stone_age_soak").main(["--games", "2", "--workers", "1"])
    assert result["violations"] == 0 and set(result) >= {"2p", "4p+mammoth"}
    assert all(result[k]["games"] == 2 and result[k]["truncated"] == 0
               for k in result if k != "violations")

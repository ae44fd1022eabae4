"""Stone Age's own agents (issue 45): the greedy strategy does what its docstring says; greedy
and both searches decide from what their seat knows only (the paired-state test: a twin that
differs in another seat's face-down card gets the same decision, with the same seed); the
rollout search improves on the strategy it rolls out with; the shipped ladder rates every
anchor in order and a gauntlet starts from it."""

from __future__ import annotations

import json
import random

import numpy as np
import pytest
from stone_age_positions import new, states_with_secrets, swap_secret

import stoneage_env as SA
from meduris_rl.agents.arena.ladder import fit_ratings, ladder_of, open_ladder
from meduris_rl.agents.arena.match import play_game
from meduris_rl.agents.registry import make_agent
from meduris_rl.agents.stone_age.search import StoneAgeRolloutAgent
from meduris_rl.cli.main import main
from meduris_rl.kit.values import ValueCheckError


def greedy_names(s) -> str:
    return SA.action_to_string(make_agent("greedy", "stone_age").act(None, s))


def test_greedy_hunts_first_when_the_feeding_falls_short():
    """Food security first (C1): with no food and no agriculture, 5 figures need
    ceil(5 / 1.75) = 3 hunters; with the 12 food of the start (S4) it does not hunt."""
    s = new(2).clone()
    assert "hunting" not in greedy_names(s)
    s.goods[0, 0] = 0
    assert greedy_names(s) == "place 3 on the hunting grounds"


def positions_with_a_secret_elsewhere(n: int):
    """(state, twin): the seat to move places figures, another seat holds a face-down card
    and the twin exchanged it for another card of the deck."""
    out = []
    for s in states_with_secrets(n, 30, 5):
        q = next(q for q in range(n) if s.secret[q].sum())
        if s.decision() != "placement" or s.current_player() == q:
            continue
        twin = swap_secret(s, q)
        if twin is not None:
            out.append((s, twin))
    return out


@pytest.mark.parametrize("kind", ["greedy", "rollout:20", "ismcts:30"])
def test_agents_decide_on_what_their_seat_knows_only(kind):
    pairs = positions_with_a_secret_elsewhere(3)[:6]
    assert len(pairs) >= 4
    for s, twin in pairs:
        moves = []
        for st in (s, twin):
            agent = make_agent(kind, "stone_age")
            agent.reset(17)
            moves.append(agent.act(None, st))
        assert moves[0] == moves[1] and moves[0] in s.legal_actions()


def test_rollout_budget_is_deterministic_and_checked():
    s = positions_with_a_secret_elsewhere(2)[0][0]
    picks = set()
    for _ in range(2):
        agent = StoneAgeRolloutAgent(iterations=25)
        agent.reset(3)
        picks.add(agent.act(None, s))
    assert len(picks) == 1
    for bad in ({"candidates": 0}, {"candidates": 2.5}, {"margin": 2.0}, {"iterations": 0}):
        with pytest.raises(ValueCheckError) as err:
            StoneAgeRolloutAgent(**bad)
        assert "\n" not in str(err.value)


def test_rollouts_improve_on_greedy():
    """Two games, seats swapped: the search at 60 playouts a placement scores more points than
    the greedy strategy it rolls out with, in each game (measured over 400 games in
    docs/stone_age.md)."""
    game = SA.StoneAgeGame(2)
    for seed, seats in ((1, ("rollout:60", "greedy")), (2, ("greedy", "rollout:60"))):
        agents = [make_agent(name, "stone_age") for name in seats]
        result = play_game(game, agents, seed)
        search = seats.index("rollout:60")
        assert result.vp[search] > result.vp[1 - search], (seats, result.vp)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_shipped_stone_age_ladder_rates_every_anchor_in_order(players):
    """The shipped anchors' file (``meduris ladder anchors --game stone_age``): random at 0,
    every anchor rated, greedy well above random and the searches above greedy, nothing but the
    file itself shipped (no journal beside it)."""
    ladder = ladder_of("stone_age")
    assert ladder.shipped.is_file(), "agents/data/ladder_anchors_stone_age.sqlite is missing"
    assert sorted(p.name for p in ladder.shipped.parent.glob(ladder.shipped.name + "*")) == \
        [ladder.shipped.name]
    with open_ladder(ladder.shipped, read_only=True, game="stone_age") as store:
        games = store.games(players)
        anchors = store.anchors(players)
    assert anchors == sorted(ladder.anchors[players]) and not any(g.forfeit for g in games)
    fit = fit_ratings([(g.agents, g.ranks) for g in games], players, anchors)
    elo = {r.name: r.elo for r in fit.ratings}
    assert elo["random"] == 0 and not fit.unconnected and elo["greedy"] > 300
    # as measured (docs/stone_age.md): from 30 playouts a move the search is rated above greedy
    # at every player count; between budgets of the search the intervals overlap (48 games a
    # pair), so their order is not asserted
    searches = [a for a in ladder.anchors[players] if a.startswith("rollout:")
                and int(a.split(":")[1]) >= 30]
    assert searches and all(elo[a] > elo["greedy"] + 100 for a in searches), elo


def test_a_stone_age_gauntlet_starts_from_the_shipped_anchors(tmp_path, capsys):
    db = tmp_path / "sa.sqlite"
    assert main(["ladder", "add", "rollout:5", "--game", "stone_age", "--db", str(db),
                 "--games", "2", "--workers", "1", "--no-progress"]) == 0
    capsys.readouterr()
    assert main(["ladder", "show", "--game", "stone_age", "--db", str(db), "--json"]) == 0
    two = next(t for t in json.loads(capsys.readouterr().out) if t["players"] == 2)
    names = {r["agent"] for r in two["ratings"]}
    assert "rollout:5" in names and set(ladder_of("stone_age").anchors[2]) <= names


def test_the_greedy_inputs_point_at_greedys_choice():
    """``obs+greedy`` (agents/stone_age/features.py): the first best of the greedy inputs is
    greedy's decision at every decision of random games (so a residual network starts as
    greedy), illegal actions are -1, and the squashed observation stays in [-1, 1]."""
    from meduris_rl.agents.stone_age.features import FEATURE_SETS, features

    greedy = make_agent("greedy", "stone_age")
    rng = random.Random(4)
    checked = 0
    for n in (2, 4):
        s = SA.StoneAgeGame(n, mammoth_herd=True).new_initial_state()
        while not s.is_terminal():
            if s.is_chance_node():
                s.apply_action(s.sample_chance(rng))
                continue
            x = features(s, s.current_player())
            assert x.shape == (FEATURE_SETS["obs+greedy"],) and np.abs(x).max() <= 1.0
            head = x[SA.OBS_SIZE:]
            assert int(np.argmax(head)) == greedy.act(None, s)
            assert set(np.flatnonzero(head > -1.0)) <= set(s.legal_actions())
            checked += 1
            s.apply_action(rng.choice(s.legal_actions()))
    assert checked > 500


def test_train_stone_age_end_to_end(tmp_path, capsys):
    """A tiny ``meduris train --game stone_age`` run (the shared trainer, the league of
    train/league.py) writes a Stone Age policy file that the tournament plays as ppo:<file>;
    Meduris-only settings are one line."""
    from meduris_rl.agents.policies.network import load_policy_file

    config = tmp_path / "tiny.yaml"
    config.write_text("net_arch: [16]\nthreads: 1\n")
    args = ["train", "--config", str(config), "--game", "stone_age", "--steps", "256", "--envs",
            "2", "--n-steps", "64", "--batch-size", "128", "--eval-every", "256",
            "--eval-games", "2", "--snapshot-every", "128", "--checkpoint-every", "256",
            "--no-progress"]
    assert main(args + ["--out", str(tmp_path / "run")]) == 0
    _, arch = load_policy_file(tmp_path / "run" / "policy.pt")
    assert arch["game"] == "stone_age" and arch["players"] == 2
    assert main(["tournament", "--game", "stone_age", "--agents",
                 f"ppo:{tmp_path / 'run' / 'policy.pt'},greedy", "--games", "2", "--workers",
                 "1", "--out", str(tmp_path / "t"), "--no-progress"]) == 0
    capsys.readouterr()
    assert main(args + ["--out", str(tmp_path / "x"), "--reward", "score"]) == 2
    err = capsys.readouterr().err
    assert "reward: 'score' is not a league run's" in err and "game 'stone_age'" in err
    assert len(err.strip().splitlines()) == 1


def test_the_shipped_stone_age_model_plays_2_players_and_beats_greedy():
    """``ppo`` in Stone Age is agents/models/stone_age_ppo_2p.pt (issue 45: >= 60 % against
    greedy over 400 games, docs/stone_age.md); 20 seeded games here, seats alternating, as a
    regression check, and a 3-player game without a shipped model is one line."""
    from meduris_rl.agents import UnknownAgentError
    from meduris_rl.agents.policies.network import load_policy_file
    from meduris_rl.agents.stone_age.ppo import STONE_AGE

    _, arch = load_policy_file(STONE_AGE.shipped_model(2))
    assert arch["game"] == "stone_age" and arch["players"] == 2
    game, wins = SA.StoneAgeGame(2), 0.0
    for g in range(20):
        agents = [make_agent("ppo", "stone_age"), make_agent("greedy", "stone_age")]
        seat = g % 2
        result = play_game(game, agents if seat == 0 else agents[::-1], 1000 + g)
        wins += (seat in result.winners) / len(result.winners)
    assert wins >= 12, wins
    agent = make_agent("ppo", "stone_age")
    with pytest.raises(UnknownAgentError, match="no shipped Stone Age model for 3 players"):
        agent.act(None, new(3))

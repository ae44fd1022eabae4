"""Training: a short run trains, checkpoints, resumes and its model plays legal games; the
shipped model loads and plays legally; bad checkpoints and configs give clear errors."""

import importlib.util
import json
import random
from pathlib import Path

import numpy as np
import pytest
from test_agents import LegalityChecker

from meduris_env import MedurisGame
from meduris_rl.agents import UnknownAgentError, make_agent
from meduris_rl.agents.meduris.heuristics import action_values
from meduris_rl.agents.meduris.ppo import DEFAULT_MODEL, shipped_model
from meduris_rl.train.config import ConfigError, load_config
from meduris_rl.train.run import CheckpointError, load_checkpoint, train


def meduris(*argv) -> int:
    """The ``meduris`` command in this process (value, distill: torch already imported)."""
    from meduris_rl.cli.main import main
    try:
        return main(list(argv))
    except SystemExit as stop:  # (argparse's usage errors, one line as well)
        return stop.code


def short_config(tmp_path, **kw):
    values = dict(steps=512, envs=16, n_steps=16, batch_size=64, n_epochs=1, eval_every=256,
                  eval_games=4, checkpoint_every=256, snapshot_every=256, bc_teacher="greedy",
                  bc_games=2, bc_epochs=1, out=str(tmp_path / "run"), net_arch=[32], threads=1)
    values.update(kw)
    return load_config(None, values)


def play_legal_games(agent_name, games=2, players=2):
    game = MedurisGame(players)
    for seed in range(games):
        seats = [LegalityChecker(make_agent(agent_name))] + [
            LegalityChecker(make_agent("greedy")) for _ in range(players - 1)]
        from meduris_rl.agents.arena.match import play_game
        result = play_game(game, seats, seed)
        assert seats[0].moves > 0 and result.turns > 0


def test_short_run_trains_checkpoints_resumes_and_plays_legally(tmp_path):
    cfg = short_config(tmp_path)
    state = train(cfg, progress=False)
    run = Path(cfg.out)
    assert state["timesteps"] >= 512
    assert (run / "model.zip").is_file() and (run / "learning_curve.png").is_file()
    assert (run / "policy.pt").stat().st_size < (run / "model.zip").stat().st_size
    meta = json.loads((run / "checkpoint.json").read_text())
    assert meta["timesteps"] == state["timesteps"] and meta["snapshots"]
    assert all(Path(p).is_file() for p in meta["snapshots"])
    evals = (run / "eval.csv").read_text().splitlines()
    assert evals[0] == "timesteps,phase,win_rate_vs_greedy"
    assert [e.split(",")[1] for e in evals[1:3]] == ["untrained", "warm start"]
    assert len(evals) >= 5  # + PPO evaluations at 256 and 512 steps
    ppo_evals = [e for e in state["evals"] if e["phase"] == "ppo"]
    best = max(ppo_evals, key=lambda e: e["win_rate_vs_greedy"])  # the first of the best
    assert state["best"] == {"timesteps": best["timesteps"],
                             "win_rate_vs_greedy": best["win_rate_vs_greedy"]}
    assert meta.get("best", state["best"]) == state["best"] and (run / "best.pt").is_file()
    assert not [p for p in run.iterdir() if p.name.startswith(".")]  # no temporary files left

    longer = short_config(tmp_path, steps=1024)
    resumed = train(longer, resume=str(run / "checkpoint.zip"), progress=False)
    assert resumed["timesteps"] >= 1024
    assert resumed["bc_losses"] == state["bc_losses"]  # carried over, not redone
    play_legal_games(f"ppo:{run / 'policy.pt'}")
    play_legal_games(f"ppo:{meta['snapshots'][-1]}")  # snapshots are policy files
    with pytest.raises(UnknownAgentError, match="2-player policy"):  # recording the count
        make_agent(f"ppo:{meta['snapshots'][-1]}").check_players(3)
    play_legal_games(f"az:20:{run / 'policy.pt'}")
    with pytest.raises(UnknownAgentError, match="full training checkpoint .* use the run's "
                       "policy.pt"):
        make_agent(f"ppo:{run / 'model.zip'}")


def test_missing_and_corrupt_checkpoints_are_clear_errors(tmp_path):
    with pytest.raises(CheckpointError, match="no checkpoint at"):
        load_checkpoint(tmp_path / "nothing.zip")
    bad = tmp_path / "checkpoint.zip"
    bad.write_bytes(b"garbage")
    with pytest.raises(CheckpointError, match="no checkpoint.json beside it"):
        load_checkpoint(bad)
    (tmp_path / "checkpoint.json").write_text("{}")
    with pytest.raises(CheckpointError, match="cannot load .* as a MaskablePPO checkpoint"):
        load_checkpoint(bad)


def test_cli_reports_a_bad_checkpoint_in_one_line(tmp_path, capsys):
    from meduris_rl.cli import main
    code = main(["train", "--resume", str(tmp_path / "missing.zip"), "--steps", "10",
                 "--envs", "1", "--out", str(tmp_path / "r"), "--no-progress"])
    err = capsys.readouterr().err.strip()
    assert code == 2 and err.startswith("meduris: error: no checkpoint at") and "\n" not in err


def test_config_errors_name_the_setting(tmp_path):
    with pytest.raises(ConfigError, match="unknown setting"):
        load_config(None, {"stepz": 3})
    with pytest.raises(ConfigError, match="players 5: Meduris is played by 2, 3 or 4"):
        load_config(None, {"players": 5})
    with pytest.raises(ConfigError, match="best_against: .*mcts:oops"):
        load_config(None, {"best_against": "mcts:oops"})
    with pytest.raises(ConfigError, match="best_against_games: 0; must be in 1.."):
        load_config(None, {"best_against_games": 0})
    yml = tmp_path / "c.yaml"
    yml.write_text("steps: 2000\nplayers: 3\n")
    cfg = load_config(yml, {"players": 2})
    assert cfg.steps == 2000 and cfg.players == 2  # flags win over the file
    yml.write_text("bc_teacher: mcts:50\n")
    assert load_config(yml, {}).bc_teacher == "mcts:50"
    assert load_config(yml, {"bc_teacher": "none"}).bc_teacher is None  # the flag is honoured
    yml.write_text("- just\n- a list\n")
    with pytest.raises(ConfigError, match="expected a mapping"):
        load_config(yml, {})


@pytest.mark.parametrize("text,setting,value", [
    ("learning_rate: 3e-4\n", "learning_rate", 3e-4),
    ("learning_rate: 3E-4\n", "learning_rate", 3e-4),
    ("ent_coef: 1e-2\n", "ent_coef", 0.01),
    ("gamma: 9.9e-1\n", "gamma", 0.99),
    ("clip_range: 2e+0\n", "clip_range", 2.0),
    ("shaping: .5e1\n", "shaping", 5.0),
    ("learning_rate: 0.0003\n", "learning_rate", 0.0003),
])
def test_a_config_reads_exponent_floats_as_the_docs_write_them(tmp_path, text, setting, value):
    """PyYAML (YAML 1.1) reads ``3e-4`` as text; the config reads it as YAML 1.2 does."""
    yml = tmp_path / "c.yaml"
    yml.write_text(text)
    got = getattr(load_config(yml, {}), setting)
    assert type(got) is float and got == pytest.approx(value)


@pytest.mark.parametrize("text,message", [
    ("learning_rate: '3e-4'\n", "learning_rate must be a finite number, got '3e-4' (str)"),
    ("learning_rate: 3e-4x\n", "learning_rate must be a finite number, got '3e-4x' (str)"),
    ("learning_rate: 3e400\n", "learning_rate must be a finite number, got inf"),
    ("learning_rate: -3e-4\n", "learning_rate"),
    ("steps: 1e6\n", "steps must be a whole number, got 1000000.0 (float)"),
])
def test_a_config_still_refuses_what_is_no_number_of_the_setting(tmp_path, capsys, text,
                                                                 message):
    yml = tmp_path / "c.yaml"
    yml.write_text(text)
    with pytest.raises(ConfigError) as err:
        load_config(yml, {})
    assert message in str(err.value) and "\n" not in str(err.value), str(err.value)
    out = tmp_path / "run"
    assert meduris("train", "--config", str(yml), "--out", str(out), "--no-progress") == 2
    assert capsys.readouterr().err.count("\n") == 1
    assert not out.exists()


@pytest.mark.parametrize("players", [2, 3, 4])
def test_every_shipped_model_plays_only_legal_moves(players):
    model = shipped_model(players)
    assert model.is_file() and model.stat().st_size < 5_000_000
    assert DEFAULT_MODEL == shipped_model(2)
    bot = make_agent("ppo")
    assert bot.feature_set in ("obs", "obs+greedy")
    play_legal_games("ppo", games=2, players=players)  # the model for the game's player count
    play_legal_games("az:10", games=1, players=players)  # the search guided by it


def test_play_against_ppo_with_four_players(monkeypatch, capsys, tmp_path):
    import io
    import sys

    from meduris_rl.cli import main
    monkeypatch.setattr(sys, "stdin", io.StringIO("1\n" * 2000))
    assert main(["play", "--players", "4", "--opponents", "ppo", "--seed", "2",
                 "--record", str(tmp_path / "game.json")]) == 0
    out = capsys.readouterr().out
    assert "seat 1 (ppo): " in out and "game over (" in out


def test_ppo_agent_reports_action_probabilities_over_legal_moves(tmp_path):
    cfg = short_config(tmp_path, steps=128, n_steps=64, bc_teacher=None, eval_every=10**6,
                       checkpoint_every=10**6, snapshot_every=10**6)
    train(cfg, progress=False)
    bot = make_agent(f"ppo:{cfg.out}/policy.pt")
    from helpers import at_turn_action, new_game

    from meduris_env.envs.observation import observe_state
    st = new_game()
    at_turn_action(st)
    obs = observe_state(st, 0)
    probs = bot.action_probabilities(obs, st)
    assert probs.shape == (241,) and probs.sum() == pytest.approx(1.0, abs=1e-5)
    assert np.all(probs[obs["action_mask"] == 0] == 0)
    with pytest.raises(UnknownAgentError, match="no trained model"):
        make_agent(f"ppo:{tmp_path}/none.pt")


class _RunsCode:
    """Unpickling this calls os.system: what a malicious model file would carry."""

    def __reduce__(self):
        import os
        return (os.system, ("touch pwned",))


def test_a_policy_file_carrying_code_is_refused_not_run(tmp_path, monkeypatch):
    import torch

    monkeypatch.chdir(tmp_path)
    evil = tmp_path / "evil.pt"
    torch.save({"format": "meduris-policy", "version": 1, "payload": _RunsCode()}, evil)
    with pytest.raises(UnknownAgentError, match="not a weights-only policy file"):
        make_agent(f"ppo:{evil}")
    assert not (tmp_path / "pwned").exists()
    other = tmp_path / "other.pt"
    torch.save({"weights": torch.zeros(3)}, other)
    with pytest.raises(UnknownAgentError, match="not a Meduris policy file"):
        make_agent(f"ppo:{other}")


def test_residual_policy_starts_out_playing_like_greedy():
    from sb3_contrib import MaskablePPO

    from meduris_env.engine.chance import sample_chance
    from meduris_env.envs.observation import observe_state
    from meduris_rl.agents.meduris.ppo import PPOAgent
    from meduris_rl.agents.policies.network import init_as_greedy, residual_policy_kwargs
    from meduris_rl.train.config import TrainConfig
    from meduris_rl.train.meduris.league import TrainingEnv

    model = MaskablePPO("MlpPolicy", TrainingEnv(TrainConfig(envs=4)),
                        policy_kwargs=residual_policy_kwargs(32), device="cpu", seed=0)
    init_as_greedy(model)
    ppo = PPOAgent("ppo", model=model)
    greedy = make_agent("greedy")
    rng = random.Random(4)
    state = MedurisGame(2).new_initial_state()
    agree = total = 0
    while not state.is_terminal() and total < 60:
        if state.is_chance_node():
            state.apply_action(sample_chance(state, rng))
            continue
        obs = observe_state(state, state.current_player())
        vals = action_values(state.array, state.game.field_materials, state.game.field_areas)
        best = vals[np.isfinite(vals)].max()
        choice = ppo.act(obs, state)
        agree += vals[choice] == pytest.approx(best)  # greedy's value (ties: any best action)
        total += 1
        state.apply_action(greedy.act(None, state))
    assert agree == total


@pytest.mark.parametrize("players", [3, 4])
def test_a_tiny_run_trains_checkpoints_resumes_and_plays_for_more_players(tmp_path, players):
    # best.pt chosen by a tournament (the 2-player model's run plays mcts:100 there)
    cfg = short_config(tmp_path, players=players, steps=256, bc_teacher=None, eval_every=128,
                       snapshot_every=128, checkpoint_every=128, best_against="random",
                       best_against_games=players)
    state = train(cfg, progress=False)
    run = Path(cfg.out)
    assert state["timesteps"] >= 256 and state["snapshots"]
    ppo_evals = [e for e in state["evals"] if e["phase"] == "ppo"]
    assert len(ppo_evals) == 2 and all(0 <= e["win_rate_vs_best_against"] <= 1
                                       for e in ppo_evals)
    best = max(ppo_evals, key=lambda e: e["win_rate_vs_best_against"])  # the first of the best
    assert state["best"] == {"timesteps": best["timesteps"], "best_against": "random",
                             "win_rate_vs_greedy": best["win_rate_vs_greedy"],
                             "win_rate_vs_best_against": best["win_rate_vs_best_against"]}
    rows = (run / "eval.csv").read_text().splitlines()
    assert rows[0] == "timesteps,phase,win_rate_vs_greedy,win_rate_vs_random"
    assert rows[1].endswith(",") and rows[-1].endswith(
        f",{ppo_evals[-1]['win_rate_vs_best_against']:.4f}")  # untrained: not played
    resumed = train(short_config(tmp_path, players=players, steps=512, bc_teacher=None),
                    resume=str(run / "checkpoint.zip"), progress=False)
    assert resumed["timesteps"] >= 512
    play_legal_games(f"ppo:{run / 'policy.pt'}", players=players)


def test_the_league_draws_snapshots_greedy_and_random_by_their_weights(tmp_path):
    from meduris_rl.train.config import TrainConfig
    from meduris_rl.train.meduris.league import TrainingEnv

    cfg = short_config(tmp_path, steps=128, bc_teacher=None, eval_every=10**6,
                       checkpoint_every=10**6, snapshot_every=64)
    state = train(cfg, progress=False)
    env = TrainingEnv(TrainConfig(envs=64, opponents={"greedy": 1, "random": 1, "snapshots": 2}))
    assert [name for name, _ in env.league()] == ["random", "greedy"]  # greedy stands in
    assert env.league()[1][1] == 3
    env.add_snapshot(state["snapshots"][-1])
    names = [name for name, _ in env.league()]
    assert names[:2] == ["random", "greedy"] and names[2].startswith("snapshot:")
    env.reset()
    seats = [env.vector.opponent_of(g, 1 - int(env.vector.batch.learner[g])) for g in range(64)]
    kinds = {"random" if s == "random" else s.name.split(":")[0] for s in seats}
    assert kinds == {"random", "greedy", "snapshot"}  # every kind drawn among 64 games
    obs = env.reset()
    assert obs.shape == (64, 1711) and obs.min() >= -1 and obs.max() <= 1


def test_reward_shaping_is_potential_based_and_sums_to_the_result_minus_the_first_potential():
    """Shaped rewards (meduris_rl.train.meduris.league, shaping > 0) with gamma 1: over each episode
    they sum to the game's result minus phi of the learner's first position, and every step's reward
    is the result (0 before the end) + phi(next) - phi(this) of the learner's evaluations."""
    from meduris_rl.agents.meduris.heuristics import evaluate
    from meduris_rl.train.config import TrainConfig
    from meduris_rl.train.meduris.league import SHAPING_SCALE, TrainingEnv

    def phi(env, g):
        batch = env.vector.batch
        return 0.5 * np.tanh(evaluate(batch.states[g], int(batch.learner[g])) / SHAPING_SCALE)

    envs = 8
    shaped = TrainingEnv(TrainConfig(envs=envs, shaping=0.5, gamma=1.0, seed=5,
                                     opponents={"greedy": 1.0}))
    plain = TrainingEnv(TrainConfig(envs=envs, shaping=0.0, gamma=1.0, seed=5,
                                    opponents={"greedy": 1.0}))
    shaped.reset(), plain.reset()
    first = np.array([phi(shaped, g) for g in range(envs)])
    sums, results, episodes = np.zeros(envs), np.zeros(envs), 0
    rng = np.random.default_rng(0)
    while episodes < 12:
        masks = shaped.action_masks()
        assert np.array_equal(masks, plain.action_masks())  # the same games
        acts = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
        before = np.array([phi(shaped, g) for g in range(envs)])
        shaped.step_async(acts), plain.step_async(acts)
        _, r, dones, _ = shaped.step_wait()
        _, r0, dones0, _ = plain.step_wait()
        assert np.array_equal(dones, dones0)
        after = np.array([0.0 if dones[g] else phi(shaped, g) for g in range(envs)])
        assert np.allclose(r, r0 + after - before, atol=1e-5)
        sums += r
        results += r0
        for g in np.flatnonzero(dones):
            assert abs(sums[g] - (results[g] - first[g])) < 1e-4
            assert results[g] != 0 or sums[g] == pytest.approx(-first[g], abs=1e-4)
            sums[g] = results[g] = 0.0
            first[g] = phi(shaped, g)  # the next episode's first position
            episodes += 1
    assert TrainingEnv(TrainConfig(envs=2, shaping=0.0))._potential().tolist() == [0.0, 0.0]


@pytest.mark.parametrize("kind,inputs,net_arch", [("residual", 1711, [32]),
                                                  ("mlp", 1470, [16, 16])])
def test_the_numpy_forward_pass_of_search_matches_the_network(kind, inputs, net_arch):
    import torch

    from meduris_rl.agents.policies.network import (
        NumpyForward,
        architecture,
        build_policy,
        policy_outputs,
    )

    torch.manual_seed(0)
    policy = build_policy(architecture(kind, inputs, net_arch))
    x = np.random.default_rng(0).uniform(-1, 1, (4, inputs)).astype(np.float32)
    logits, values = policy_outputs(policy, x)
    fast_logits, fast_values = NumpyForward(policy)(x)
    assert np.allclose(logits, fast_logits, atol=1e-4) and np.allclose(values, fast_values,
                                                                       atol=1e-5)


# --- the value network (meduris_rl.train.meduris.value) and the search it guides
# ---------------------------------
def test_a_value_network_is_fitted_to_self_play_and_guides_az(tmp_path, monkeypatch, capsys):
    import torch

    import meduris_rl.agents.meduris.az
    from meduris_rl.agents.policies.network import (
        PolicyFileError,
        load_policy_file,
        load_value_network,
    )
    from meduris_rl.train.meduris.value import collect_positions

    policy_file = tmp_path / "policy.pt"  # the shipped policy without a value network
    policy, arch = load_policy_file(shipped_model(2))
    from meduris_rl.agents.policies.network import save_policy
    save_policy(policy, arch, policy_file)
    assert load_value_network(policy_file) is None

    xs, ys, games = collect_positions(policy, 2, 300, keep=0.2, envs=16, seed=3)
    again = collect_positions(policy, 2, 300, keep=0.2, envs=16, seed=3)
    assert np.array_equal(xs, again[0]) and np.array_equal(ys, again[1]) and games == again[2]
    assert xs.shape == (300, policy.observation_space.shape[0]) and games >= 300 / 30
    assert set(np.unique(ys)) <= {-1.0, 0.0, 1.0} and (ys > 0).any() and (ys < 0).any()

    out = tmp_path / "with_value.pt"
    args = [str(policy_file), "--out", str(out), "--positions", "400", "--epochs", "1",
            "--envs", "16", "--hidden", "16,8", "--no-progress"]
    assert meduris("value", *args) == 0
    assert "held-out MSE" in capsys.readouterr().out
    net = load_value_network(out)
    assert net.architecture == {"inputs": policy.observation_space.shape[0], "hidden": [16, 8]}
    same, _ = load_policy_file(out)  # the policy rides along unchanged
    assert all(torch.equal(a, b) for a, b in zip(policy.state_dict().values(),
                                                 same.state_dict().values(), strict=True))
    assert meduris("value", *args) == 2 and "exists; add --force" in capsys.readouterr().err
    assert meduris("value", *args[:-1] + ["--hidden", "0"]) == 2

    rollouts = []
    monkeypatch.setattr(meduris_rl.agents.meduris.az, "rollout_values",
                        lambda st, fm, fa, depth, eps, seed, out: rollouts.append(1))
    play_legal_games(f"az:10:{out}", games=1)  # the value network scores the leaves
    assert not rollouts
    play_legal_games(f"az:10:{policy_file}", games=1)  # none: PPO's critic and rollouts
    assert rollouts

    doc = torch.load(out, weights_only=True)  # a value network that does not fit its shapes
    doc["value_network"]["architecture"]["hidden"] = [16, 9]
    bad = tmp_path / "bad.pt"
    torch.save(doc, bad)
    with pytest.raises(PolicyFileError, match="value network does not fit"):
        load_value_network(bad)
    with pytest.raises(UnknownAgentError, match="value network does not fit"):
        make_agent(f"az:10:{bad}")
    assert make_agent(f"ppo:{bad}").policy is not None  # the policy alone does not need it


def test_az_evaluates_a_batch_of_leaves_as_it_would_each_alone():
    """The search evaluates its new nodes in batches (one forward pass for up to leaf_batch
    leaves): each row must be what that leaf alone gives, and the shipped 2-player model
    carries the value network that scores them."""
    from meduris_rl.agents.meduris.az import AZAgent
    from meduris_rl.agents.policies.network import load_value_network
    from meduris_rl.kit.loop import resolve_chance

    assert load_value_network(shipped_model(2)) is not None
    az = AZAgent("az", iterations=16)
    game = MedurisGame(2)
    rng = random.Random(4)
    leaves = []
    state = game.new_initial_state()
    while len(leaves) < 5:
        resolve_chance(state, rng)
        if rng.random() < 0.3:
            leaves.append((state.clone(), state.current_player()))
        state.apply_action(rng.choice(state.legal_actions()))
    logits, values = az._evaluate(leaves, 2)
    assert logits.shape == (5, 241) and values.shape == (5, 2)
    assert np.allclose(values.sum(axis=1), 0.0)  # the mover's v, the other seat's -v
    for j, leaf in enumerate(leaves):
        alone_logits, alone_values = az._evaluate([leaf], 2)
        assert np.allclose(alone_logits[0], logits[j], atol=1e-4)
        assert np.allclose(alone_values[0], values[j], atol=1e-5)
    # and a whole search is the same for the same seed
    first, again = AZAgent("az", iterations=40), AZAgent("az", iterations=40)
    first.reset(9)
    again.reset(9)
    assert [first.act(None, s) for s, _ in leaves] == [again.act(None, s) for s, _ in leaves]


@pytest.mark.parametrize("budget", [1, 3, 8, 9])
def test_az_with_a_budget_below_its_leaf_batch_still_searches(budget):
    """The first batch's descents all stop at the root: a budget of at most ``leaf_batch``
    iterations leaves no root child (that used to fail), and the prior chooses; every later
    iteration passes a root child, and ``last_visits`` counts them."""
    from meduris_rl.agents.meduris.az import LEAF_BATCH, AZAgent
    from meduris_rl.kit.loop import resolve_chance

    az = AZAgent("az", iterations=budget)
    az.reset(1)
    state = MedurisGame(2).new_initial_state()
    rng = random.Random(2)
    searched = 0
    while not state.is_terminal() and searched < 3:
        resolve_chance(state, rng)
        action = az.act(None, state)
        assert state.legal_action_mask()[action]
        if az.last_visits is not None:
            assert sum(az.last_visits.values()) == max(0, budget - LEAF_BATCH)
            searched += 1
        state.apply_action(action)
    assert searched == 3


def test_search_distillation_learns_the_searchs_visits(tmp_path, capsys, monkeypatch):
    """meduris_rl.train.meduris.distill: teacher games record the search's move and the root's visit
    shares; the fit moves the policy towards the moves (or the shares); the result carries the
    input's value network and plays legally as ``ppo:``; the games file is resumed, refuses other
    settings and broken files; bad settings are one-line errors that write nothing."""
    import torch

    import meduris_rl.train.meduris.distill
    from meduris_rl.agents.meduris.features import feature_set_of_size
    from meduris_rl.agents.policies.network import load_policy_file, load_value_network
    from meduris_rl.train.meduris.distill import DistillError, _measure, collect, fit, teacher_name

    source = shipped_model(2)
    assert teacher_name("az:6", source) == f"az:6:{source}" and teacher_name("az", source) == \
        f"az:200:{source}"
    teacher = teacher_name("mcts:30", source)  # a teacher the policy often disagrees with
    assert teacher == "mcts:30"
    policy, arch = load_policy_file(source)
    feature_set = feature_set_of_size(arch["inputs"])
    data_file = tmp_path / "games.npz"
    data, games = collect(teacher, 2, feature_set, 2, seed=5, workers=1, data_path=data_file,
                          progress=False)
    x, masks, actions, results, shares = data
    assert games == 2 and data_file.is_file() and len(x) == len(shares) > 20
    assert np.allclose(shares.astype(np.float32).sum(axis=1), 1.0, atol=1e-2)
    assert not (shares[~masks] > 0).any()  # visits only on legal actions
    searched = shares.astype(np.float32).max(axis=1) < 1.0
    assert searched.any()  # (forced moves and unanimous searches are one-hots)
    assert set(np.unique(results)) <= {-1.0, 0.0, 1.0}
    again, games_again = collect(teacher, 2, feature_set, 2, seed=5, workers=1,
                                 data_path=data_file, progress=False)  # all there: no play
    assert games_again == 2 and all(np.array_equal(a, b) for a, b in zip(data, again,
                                                                         strict=True))
    with pytest.raises(DistillError, match="other settings"):
        collect(teacher, 2, feature_set, 2, seed=6, workers=1, data_path=data_file,
                progress=False)

    before = _measure(policy, data)  # the search's move (by default) or its visit shares
    report = fit(policy, data, epochs=4, lr=1e-3, holdout=0.0, seed=1, progress=False)
    assert report["decisions"] == len(x) and len(report["losses"]) == 4
    assert _measure(policy, data)["agreement"] > before["agreement"]
    policy, _ = load_policy_file(source)
    fit(policy, data, epochs=4, lr=1e-3, holdout=0.0, seed=1, progress=False, targets="visits")
    assert _measure(policy, data)["cross_entropy"] < before["cross_entropy"]
    with pytest.raises(DistillError, match="targets"):
        fit(policy, data, targets="votes")
    with pytest.raises(DistillError, match="targets 'value'"):  # the value network's: fit_value
        fit(policy, data, targets="value")
    broken = tmp_path / "broken.npz"
    broken.write_bytes(b"PK\x03\x04 not really a zip")
    with pytest.raises(DistillError, match="not a distillation data file"):
        collect(teacher, 2, feature_set, 2, data_path=broken, progress=False)

    out = tmp_path / "distilled.pt"
    args = [str(source), "--teacher", "mcts:30", "--games", "2", "--workers", "1", "--seed", "5",
            "--epochs", "1", "--holdout", "0.2", "--data", str(data_file), "--out", str(out),
            "--no-progress"]
    assert meduris("distill", *args) == 0
    assert "agreement with the search" in capsys.readouterr().out
    value_in, value_out = load_value_network(source), load_value_network(out)
    assert all(torch.equal(a, b) for a, b in zip(value_in.state_dict().values(),
                                                 value_out.state_dict().values(), strict=True))
    changed, _ = load_policy_file(out)
    assert not all(torch.equal(a, b) for a, b in zip(load_policy_file(source)[0].state_dict()
                                                     .values(), changed.state_dict().values(),
                                                     strict=True))
    play_legal_games(f"ppo:{out}", games=1)
    shares = tmp_path / "shares.pt"  # --targets takes effect: the same games, another fit
    assert meduris("distill", *args[:-3] + ["--targets", "visits", "--out", str(shares),
                                     "--no-progress"]) == 0
    assert not all(torch.equal(a, b) for a, b in zip(changed.state_dict().values(),
                                                     load_policy_file(shares)[0].state_dict()
                                                     .values(), strict=True))
    capsys.readouterr()
    saved = out.read_bytes()
    for bad, needle in ((["--force"][:0], "exists; add --force"),
                        (["--teacher", "nobody:3", "--force"], "nobody"),
                        (["--data", str(tmp_path / "games.csv"), "--force"], "a .npz file"),
                        (["--lr", "2", "--force"], "--lr 2"),
                        (["--workers", "500", "--force"], "--workers 500"),
                        (["--out", str(out / "x.pt"), "--force"], "cannot write")):
        assert meduris("distill", *args + bad) == 2
        err = capsys.readouterr().err
        assert needle in err and err.count("\n") == 1 and err.startswith("meduris: error:"), err
    assert out.read_bytes() == saved
    assert meduris("distill", str(source), "--out", str(source)) == 2
    assert "is the command's own input" in capsys.readouterr().err

    def interrupted(*args):  # Ctrl-C while the teacher games are played
        raise KeyboardInterrupt
    monkeypatch.setattr(meduris_rl.train.meduris.distill, "collect", interrupted)
    assert meduris("distill", *args + ["--force"]) == 130
    err = capsys.readouterr().err
    assert err == (f"meduris: interrupted; the teacher games saved so far are in {data_file}; "
                   "run the same command to continue\n")
    assert out.read_bytes() == saved


def test_distillation_of_the_value_network_fits_it_to_the_search_games_results(tmp_path,
                                                                                   capsys):
    """``--targets value``: the teacher (az-fast, searching with the file's own networks) plays
    itself; the file's value network goes on learning from those games' results (measured on
    the last games before and after); the policy is kept as it was."""
    import torch

    from meduris_rl.agents.policies.network import load_policy_file, load_value_network
    from meduris_rl.train.meduris.distill import fit_value, teacher_name

    source = shipped_model(2)
    assert teacher_name("az-fast:6", source) == f"az-fast:6:{source}"
    out = tmp_path / "valued.pt"
    args = [str(source), "--teacher", "az-fast:16", "--targets", "value", "--games", "2",
            "--workers", "1", "--seed", "3", "--epochs", "2", "--lr", "0.001", "--holdout",
            "0.3", "--out", str(out), "--no-progress"]
    assert meduris("distill", *args) == 0
    line = capsys.readouterr().out
    assert line.startswith("fitted the value network to the results of 2 games of az-fast:16")
    assert "held out: squared error" in line and " -> " in line, line
    policy_in, policy_out = load_policy_file(source)[0], load_policy_file(out)[0]
    assert all(torch.equal(a, b) for a, b in zip(policy_in.state_dict().values(),
                                                 policy_out.state_dict().values(), strict=True))
    value_in, value_out = load_value_network(source), load_value_network(out)
    assert not all(torch.equal(a, b) for a, b in zip(value_in.state_dict().values(),
                                                     value_out.state_dict().values(),
                                                     strict=True))
    play_legal_games(f"az-fast:8:{out}", games=1)
    # the fit itself: it lowers the squared error on the positions it learns
    rng = np.random.default_rng(0)
    x = np.zeros((400, 1711), dtype=np.float16)
    x[:, :20] = rng.random((400, 20))
    results = np.where(x[:, 0] > 0.5, 1.0, -1.0).astype(np.float32)  # learnable from input 0
    data = (x, None, None, results, None)
    net, report = fit_value(None, data, epochs=100, lr=3e-3, holdout=0.25, seed=1,
                            progress=False)
    assert report["decisions"] == 400 and report["held_out"] == 100 and "before" not in report
    assert report["after"]["correlation"] > 0.5, report
    again, report2 = fit_value(net, data, epochs=2, lr=1e-3, holdout=0.25, seed=1,
                               progress=False)
    assert again is net and report2["before"]["mse"] == pytest.approx(report["after"]["mse"],
                                                                      rel=1e-4)


# --- the training commands of the CLI (meduris value, distill, rllib-train) ---------------------
FLAG_CASES = {  # every flag of the command, and what the training function must receive
    "value": (["POLICY", "--out", "OUT", "--players", "3", "--positions", "500", "--keep", "0.5",
               "--epochs", "2", "--hidden", "8,4", "--envs", "7", "--seed", "9", "--force",
               "--no-progress", "--games-of", "OTHER", "--learning-rate", "0.01"],
              {"policy_file": "POLICY", "out": "OUT", "players": 3, "positions": 500,
               "keep": 0.5, "epochs": 2, "hidden": [8, 4], "envs": 7, "seed": 9,
               "progress": False, "games_of": "OTHER", "fine_tune": False,
               "learning_rate": 0.01}),
    "distill": (["POLICY", "--out", "OUT", "--teacher", "mcts:7", "--players", "4", "--games",
                 "3", "--data", "D.npz", "--targets", "visits", "--epochs", "5", "--lr", "0.01",
                 "--holdout", "0.1", "--workers", "3", "--seed", "8", "--force",
                 "--no-progress"],
                {"policy_file": "POLICY", "out": Path("OUT"), "teacher": "mcts:7",
                 "players": 4, "games": 3, "data_path": Path("D.npz"), "targets": "visits",
                 "epochs": 5, "lr": 0.01, "holdout": 0.1, "workers": 3, "seed": 8,
                 "progress": False}),
    "rllib-train": (["--players", "4", "--iterations", "6", "--out", "OUT", "--env-runners", "2",
                     "--address", "auto", "--resume", "OUT/checkpoint", "--force", "--per-seat",
                     "--seed", "5", "--train-batch", "300", "--minibatch", "100", "--epochs",
                     "2", "--lr", "0.002", "--max-turns", "50", "--json"],
                    {"players": 4, "iterations": 6, "out": "OUT", "num_env_runners": 2,
                     "address": "auto", "resume": "OUT/checkpoint", "force": True,
                     "shared": False, "seed": 5, "train_batch_size": 300, "minibatch_size": 100,
                     "num_epochs": 2, "lr": 0.002, "max_turns": 50}),
}

#: flags whose cases are tests of their own (tests/test_value_judges.py: --mean-of fits
#: nothing, the search's flags go with --games-of search, which refuses --keep)
ELSEWHERE = {"value": {"--mean-of", "--simulations", "--search-share", "--fine-tune"}}


def _flags(command: str) -> set[str]:
    from meduris_rl.cli.main import build_parser

    sub = next(a for a in build_parser()._actions if a.dest == "command")
    return {opt for a in sub.choices[command]._actions for opt in a.option_strings
            if opt not in ("-h", "--help")}


@pytest.mark.parametrize("command", sorted(FLAG_CASES))
def test_every_flag_of_a_training_command_reaches_its_function(command, monkeypatch, tmp_path,
                                                               capsys):
    """Each flag of ``meduris value`` / ``distill`` / ``rllib-train`` arrives, as given, at the
    training function of train/ (called with plain arguments), and the command prints its
    result; a flag without a case here fails the test."""
    import inspect

    import meduris_rl.train.meduris.distill
    import meduris_rl.train.meduris.judges
    import meduris_rl.train.meduris.rllib_ppo

    argv, expected = FLAG_CASES[command]
    assert _flags(command) == {a for a in argv if a.startswith("--")} | ELSEWHERE.get(command,
                                                                                    set())
    monkeypatch.chdir(tmp_path)  # (the checks look at OUT, D.npz: none exist)
    calls = []
    fake_report = {"value": {"positions": 500, "games": 9, "self_play_seconds": 1.0,
                             "fit_seconds": 2.0},
                   "distill": {"teacher": "mcts:7", "games": 3, "decisions": 40,
                               "play_seconds": 1.0, "fit_seconds": 2.0},
                   "rllib-train": {"iterations": 6, "env_steps_sampled": 10,
                                   "env_steps_per_s": 5.0, "env_runners": 2,
                                   "checkpoint": "OUT/checkpoint"}}[command]
    module, name = {"value": (meduris_rl.train.meduris.judges, "add_value_network"),
                    "distill": (meduris_rl.train.meduris.distill, "distill"),
                    "rllib-train": (meduris_rl.train.meduris.rllib_ppo, "train")}[command]
    real = getattr(module, name)

    def fake(*args, **kwargs):
        calls.append(inspect.signature(real).bind(*args, **kwargs).arguments)
        return fake_report
    monkeypatch.setattr(module, name, fake)
    assert meduris(command, *argv) == 0
    (got,) = calls
    got.pop("log", None)  # (rllib-train's printer of each iteration)
    assert got == expected
    out = capsys.readouterr().out
    assert {"value": "written to OUT", "distill": "distilled mcts:7 from 3 games",
            "rllib-train": '"env_steps_per_s": 5.0'}[command] in out


@pytest.mark.parametrize("command,bad,needle", [
    ("value", ["--positions", "99"], "--positions must be at least 100"),
    ("value", ["--epochs", "1001"], "--epochs 1..1000"),
    ("value", ["--keep", "0"], "--keep 0.0"),
    ("value", ["--seed", "-1"], "--seed: -1 is outside 0..9223372036854775807"),
    ("distill", ["--seed", "2e3"], "--seed: '2e3' is not a whole number"),
    ("rllib-train", ["--seed", str(2**63)], "--seed: 9223372036854775808 is outside"),
    ("distill", ["--holdout", "0.5"], "--holdout 0.5"),
    ("distill", ["--games", "0"], "--games and --epochs"),
    ("rllib-train", ["--iterations", "0"], "--iterations 0: use at least 1"),
    ("rllib-train", ["--env-runners", "-1"], "--env-runners -1"),
    ("rllib-train", ["--lr", "1"], "--lr 1.0"),
    ("rllib-train", ["--max-turns", "0"], "--max-turns 0"),
])
def test_a_training_commands_bad_numbers_are_one_line(command, bad, needle, tmp_path, capsys):
    first = [] if command == "rllib-train" else [str(shipped_model(2))]
    assert meduris(command, *first, "--out", str(tmp_path / "out"), *bad) == 2
    err = capsys.readouterr().err
    assert needle in err and err.count("\n") == 1 and err.startswith("meduris: error:"), err
    assert not (tmp_path / "out").exists()


@pytest.mark.skipif(importlib.util.find_spec("ray") is not None, reason="Ray is installed")
def test_rllib_train_without_ray_is_one_line_naming_the_fix(tmp_path, capsys):
    assert meduris("rllib-train", "--out", str(tmp_path / "run")) == 2
    err = capsys.readouterr().err
    assert err == ("meduris: error: RLlib training needs Ray: install the extra: "
                   "pip install -e '.[ray]'\n")
    assert not (tmp_path / "run").exists()


@pytest.mark.parametrize("module,command", [("meduris_rl.train.meduris.value", "value"),
                                            ("meduris_rl.train.meduris.distill", "distill"),
                                            ("meduris_rl.train.meduris.rllib_ppo", "rllib-train")])
def test_python_dash_m_of_a_training_module_is_the_meduris_command(module, command):
    import subprocess
    import sys

    run = subprocess.run([sys.executable, "-m", module, "--help"], capture_output=True,
                         text=True, timeout=300, cwd=Path(__file__).resolve().parent.parent)
    assert run.returncode == 0, run.stderr
    assert run.stdout.startswith(f"usage: meduris {command} ")


def test_distill_teachers_are_read_by_the_agent_table():
    """meduris_rl.train.meduris.distill parses the teacher with AgentSpec: an az or az-fast search
    without a network of its own gets the policy being distilled and, unless given, its kind's
    default budget from the agent table; the report names it without that file."""
    from meduris_rl.agents.base import UnknownAgentError
    from meduris_rl.agents.registry import kind_named
    from meduris_rl.train.meduris.distill import teacher_label, teacher_name

    assert teacher_name("az", "p.pt") == f"az:{kind_named('az').budget.default}:p.pt"
    assert teacher_name("az-fast:0.5s", "p.pt") == "az-fast:0.5s:p.pt"
    assert teacher_name("az:6:other.pt", "p.pt") == "az:6:other.pt"
    assert teacher_name("mcts:30", "p.pt") == "mcts:30"
    assert teacher_label("az:6:/runs/policy.pt") == "az:6" and teacher_label("mcts:7") == "mcts:7"
    with pytest.raises(UnknownAgentError, match="unknown agent 'nobody'"):
        teacher_name("nobody", "p.pt")


def test_the_cli_and_rllib_share_one_output_folder_check(tmp_path):
    """meduris_rl.cli.checks.output_folder and meduris_rl.train.meduris.rllib_ppo's run folder ask
    the same check (meduris_rl.kit.atomic.output_folder_problem), each naming its own fix."""
    from meduris_rl.cli.checks import UsageError, output_folder
    from meduris_rl.kit.atomic import earlier_results, output_folder_problem
    from meduris_rl.train.meduris.rllib_ppo import RUN_RESULTS

    (tmp_path / "file").write_text("x")
    with pytest.raises(UsageError, match="'.*file' is a file; give a folder"):
        output_folder(tmp_path / "file", "--out", False, RUN_RESULTS)
    run = tmp_path / "run"
    (run / "checkpoint").mkdir(parents=True)
    earlier = earlier_results(run, RUN_RESULTS)
    assert earlier == ["checkpoint"]
    with pytest.raises(UsageError, match=r"results \(checkpoint\); add --force to replace"):
        output_folder(run, "--out", False, RUN_RESULTS)
    problem = output_folder_problem(run, "--out", False, earlier, fix="add --resume X to go on")
    assert problem.endswith("results (checkpoint); add --resume X to go on, or choose another "
                            "folder")
    assert output_folder_problem(run, "--out", True, earlier) is None


# --- resume: the file to give is named; an edited checkpoint.json is refused (issue 31) -------
TINY_RESUME = dict(envs=4, n_steps=16, batch_size=64, n_epochs=1, eval_every=10**6,
                   eval_games=2, checkpoint_every=64, snapshot_every=10**6, bc_teacher=None,
                   net_arch=[8], threads=1)


@pytest.fixture(scope="module")
def tiny_resume_run(tmp_path_factory):
    run = tmp_path_factory.mktemp("resume") / "r3"
    train(load_config(None, dict(TINY_RESUME, steps=64, seed=0, out=str(run))), progress=False)
    return run


def resume_error(resume: str, capsys) -> str:
    code = meduris("train", "--resume", resume, "--no-progress")
    err = capsys.readouterr().err
    assert code == 2 and len(err.strip().splitlines()) == 1, err
    return err.strip()


def test_resume_from_the_wrong_file_names_the_right_one(tiny_resume_run, capsys):
    run = tiny_resume_run
    zip_, play = run / "checkpoint.zip", f"ppo:{run / 'policy.pt'}"
    cases = {str(run): ("is a run folder", play),
             str(run / "checkpoint.json"): ("is the run state beside a checkpoint", None),
             str(run / "model.zip"): ("is a run's final model", play),
             str(run / "policy.pt"): ("is a policy file", play)}
    for resume, (what, playable) in cases.items():
        err = resume_error(resume, capsys)
        assert what in err and f"resume from {zip_}" in err, err
        assert "has no model.json" not in err and f"play it as ppo:{resume}" not in err
        if playable:
            assert err.endswith(f"to play it: {playable}"), err


def test_resume_from_a_folder_that_is_no_run_says_it_holds_no_checkpoint(tmp_path, capsys):
    empty = tmp_path / "empty"
    empty.mkdir()
    policy_only = tmp_path / "policies"
    policy_only.mkdir()
    (policy_only / "policy.pt").write_bytes(b"")
    for folder in (empty, policy_only, tmp_path):
        before = sorted(p for p in tmp_path.rglob("*"))
        err = resume_error(str(folder), capsys)
        assert err == (f"meduris: error: {folder} is a folder that holds no checkpoint.zip: give "
                       "a run's checkpoint.zip (meduris train writes one in its --out folder)")
        assert sorted(p for p in tmp_path.rglob("*")) == before
    for name in ("policy.pt", "model.zip", "checkpoint.json"):  # such files, but no checkpoint
        (empty / name).write_bytes(b"")
        err = resume_error(str(empty / name), capsys)
        assert f"{empty} holds no checkpoint.zip to resume from" in err, err
        assert "resume from " + str(empty / "checkpoint.zip") not in err


@pytest.mark.parametrize("edit,needle", [
    (lambda s: s["config"].update(players=3), "its config says players 3, but checkpoint.zip "
     "was trained with players 2"),
    (lambda s: s.update(timesteps=True), '"timesteps" is True, but checkpoint.zip holds 64'),
    (lambda s: s.update(timesteps=63), '"timesteps" is 63'),
    (lambda s: s.update(timesteps="64"), '"timesteps" is \'64\''),
    (lambda s: s["config"].update(features="obs", policy="mlp"), "does not fit checkpoint.zip "
     "(1711 inputs, 241 actions)"),
])
def test_an_edited_checkpoint_json_is_refused_and_nothing_is_written(tiny_resume_run, tmp_path,
                                                                     capsys, edit, needle):
    import shutil
    run = tmp_path / "r"
    shutil.copytree(tiny_resume_run, run)
    state = json.loads((run / "checkpoint.json").read_text())
    edit(state)
    (run / "checkpoint.json").write_text(json.dumps(state))
    before = {p: p.read_bytes() for p in run.rglob("*") if p.is_file()}
    err = resume_error(str(run / "checkpoint.zip"), capsys)
    assert needle in err, err
    assert {p: p.read_bytes() for p in run.rglob("*") if p.is_file()} == before


def test_a_checkpoint_records_its_player_count_in_the_zip(tiny_resume_run):
    from meduris_rl.train.run import checkpoint_state, zip_data
    assert zip_data(tiny_resume_run / "checkpoint.zip")["meduris_run"] == {
        "game": "meduris", "players": 2, "options": {}}
    assert checkpoint_state(tiny_resume_run / "checkpoint.zip")["timesteps"] == 64

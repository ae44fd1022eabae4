"""``meduris az-train`` (train/meduris/az.py, issue 29): tiny Gumbel AlphaZero runs for 2, 3 and 4
players write a policy the ``ppo`` agent plays; one seed, one result; bad settings refused in one
line before any work; the stored targets are the search's improved policies and the games'
returns; resume continues the run."""

import json

import numpy as np
import pytest
import torch

from meduris_rl.cli.main import main
from meduris_rl.train.meduris.az import ReplayBuffer, SelfPlay, load_warm_start, make_config

TINY = {2: 500, 3: 600, 4: 800}  # moves (2 games at once): enough for a game to finish


def az(capsys, *args):
    """``meduris az-train`` in this process: (exit code, stdout, stderr)."""
    capsys.readouterr()
    try:
        code = main(["az-train", *map(str, args)])
    except SystemExit as stop:  # argparse's usage errors
        code = stop.code
    out, err = capsys.readouterr()
    return code, out, err


def tiny(out, players, moves=None, *extra):
    return ["--players", players, "--games", 2, "--simulations", 4, "--max-considered", 4,
            "--moves", moves or TINY[players], "--train-every", moves or TINY[players],
            "--buffer", 4000, "--batch-size", 64, "--epochs", 1, "--learning-rate", 0.001,
            "--eval-every", 10**6, "--eval-games", 2, "--seed", 3, "--threads", 1, "--out", out,
            "--no-progress", *extra]


@pytest.mark.parametrize("players", [2, 3, 4])
def test_tiny_run_writes_a_policy_the_ppo_agent_plays(tmp_path, capsys, players):
    from meduris_env import MedurisGame
    from meduris_rl.agents.arena.match import play_game
    from meduris_rl.agents.policies.network import load_policy_file
    from meduris_rl.agents.registry import make_agent

    out = tmp_path / "run"
    code, stdout, err = az(capsys, *tiny(out, players))
    assert code == 0, err
    state = json.loads((out / "checkpoint.json").read_text())
    assert state["moves"] == TINY[players] and state["updates"] == 1
    assert state["games_finished"] >= 1 and state["config"]["simulations"] == 4
    assert {k: state["config"][k] for k in ("players", "games", "max_considered", "buffer",
                                            "batch_size", "epochs", "learning_rate",
                                            "eval_every", "eval_games", "seed", "threads",
                                            "train_every", "warm_start")} == {
        "players": players, "games": 2, "max_considered": 4, "buffer": 4000, "batch_size": 64,
        "epochs": 1, "learning_rate": 0.001, "eval_every": 10**6, "eval_games": 2, "seed": 3,
        "threads": 1, "train_every": TINY[players], "warm_start": "shipped"}
    assert "on cpu" in err and "moves/s at 4 simulations per move" in err
    # the warm start's evaluation at 0 moves, then the last one
    assert (out / "eval.csv").read_text().count("\n") == 3 and any((out / "tb").iterdir())
    policy, arch = load_policy_file(out / "policy.pt")
    assert arch["players"] == players
    csv = (out / "eval.csv").read_text().splitlines()
    assert csv[0] == "moves,updates,win_rate_vs_greedy,win_rate_vs_ppo,elo,wall_seconds"
    assert [int(row.split(",")[0]) for row in csv[1:]] == [0, TINY[players]]
    elo = csv[1].split(",")[4]
    assert (elo != "") == (players == 2)  # the shipped ladder rates 2-player games only
    agents = [make_agent(f"ppo:{out}/policy.pt")] + [make_agent("random")
                                                     for _ in range(players - 1)]
    result = play_game(MedurisGame(players), agents, seed=1)
    assert result.forfeit == "" and result.end_reason != "abandoned"
    # the file carries the value network the searches score leaves with, as trained
    from meduris_rl.agents.policies.network import load_value_network

    value = load_value_network(out / "policy.pt")
    saved = torch.load(out / "checkpoint.pt", weights_only=True)["value"]
    assert value is not None and all(torch.equal(value.state_dict()[k], saved[k]) for k in saved)
    x = torch.from_numpy(np.random.default_rng(0).random((3, arch["inputs"]), dtype=np.float32))
    assert torch.all(value(x).abs() <= 1) and agents[0].value_network(players) is not None
    searcher = [make_agent(f"az:8:{out}/policy.pt")] + agents[1:]
    result = play_game(MedurisGame(players), searcher, seed=2)
    assert result.forfeit == "" and result.end_reason != "abandoned"


def test_same_seed_same_weights(tmp_path, capsys):
    runs = []
    for name in ("a", "b"):
        code, _, err = az(capsys, *tiny(tmp_path / name, 2, 400, "--warm-start", "none"))
        assert code == 0, err
        runs.append(torch.load(tmp_path / name / "policy.pt", weights_only=True)["state_dict"])
    assert runs[0].keys() == runs[1].keys()
    assert all(torch.equal(runs[0][k], runs[1][k]) for k in runs[0])
    start = load_warm_start(make_config({"warm_start": "none", "seed": 3})).policy.state_dict()
    assert not all(torch.equal(start[k], runs[0][k].to(start[k].dtype)) for k in start)


def test_bad_settings_refused_in_one_line(tmp_path, capsys):
    out = tmp_path / "run"
    policy_file = tmp_path / "p.pt"
    policy_file.write_text("not a checkpoint")
    for args, needle in ((["--players", 5], "players"),
                         (["--simulations", 0], "--simulations"),
                         (["--learning-rate", "nan"], "learning_rate"),
                         (["--min-span", 0], "min_span must be above 0"),
                         (["--min-span", 1.5], "min_span"),
                         (["--warm-start", tmp_path / "missing.pt"], "warm_start"),
                         (["--resume", policy_file], "is not an az-train checkpoint")):
        code, _, err = az(capsys, "--out", out, "--no-progress", *args)
        assert code == 2 and needle in err and err.count("\n") == 1, (args, err)
        assert not out.exists()


def test_a_checkpoint_torch_cannot_load_is_named_in_the_projects_words(tmp_path):
    """Not torch's own text ("list index out of range", a miniz error)."""
    from meduris_rl.train.meduris.az import CheckpointError, read_checkpoint

    text, empty, cut = tmp_path / "text.pt", tmp_path / "empty.pt", tmp_path / "cut.pt"
    text.write_text("root:x:0:0:root:/root:/bin/bash\n")
    empty.write_bytes(b"")
    torch.save({"format": "x", "t": torch.zeros(1000)}, cut)
    cut.write_bytes(cut.read_bytes()[:300])
    for path, reason in ((text, "not a torch file"), (empty, "an empty file"),
                         (cut, "a zip file, but not a whole torch file")):
        with pytest.raises(CheckpointError) as err:
            read_checkpoint(path)
        assert str(err.value).startswith(f"cannot load {path} as an az-train checkpoint "
                                         f"({reason}"), str(err.value)
        assert "index" not in str(err.value) and "miniz" not in str(err.value)


def test_targets_are_improved_policies_and_returns():
    cfg = make_config({"players": 2, "games": 2, "simulations": 4, "max_considered": 4,
                       "threads": 1, "seed": 5})
    net = load_warm_start(cfg)
    buffer = ReplayBuffer(1000, net.arch["inputs"], 241)
    play = SelfPlay.of_network(cfg, net, buffer=buffer)
    finished = []
    while not finished:
        result = play.step()
        assert np.allclose(result.policy.sum(axis=1), 1.0)
        finished = play.just_finished
    first = 0
    for _, returns, count in finished:  # the buffer holds the finished games' positions in order
        rows = slice(first, first + count)
        assert np.array_equal(buffer.z[rows], returns[buffer.seat[rows]].astype(np.float32))
        first += count
    assert buffer.size == first > 0 and set(np.unique(buffer.z)) <= {-1.0, 0.0, 1.0}
    # the trainer's default: noise is not stretched (meduris_rl.agents.search.gumbel)
    assert cfg.min_span == 1.0
    pi, mask = buffer.pi[:buffer.size], buffer.mask[:buffer.size]
    assert np.allclose(pi.sum(axis=1), 1.0, atol=1e-5) and not pi[~mask].any()
    assert (pi >= 0).all() and mask.any(axis=1).all()


def test_chance_and_noise_do_not_depend_on_the_number_of_games():
    actions = []
    for games in (1, 3):
        cfg = make_config({"games": games, "simulations": 4, "max_considered": 4, "seed": 7,
                           "threads": 1})
        net = load_warm_start(cfg)
        play = SelfPlay.of_network(cfg, net, buffer=ReplayBuffer(10, net.arch["inputs"], 241))
        actions.append([int(play.step().actions[0]) for _ in range(12)])
    assert actions[0] == actions[1]


def test_resume_continues_the_run(tmp_path, capsys):
    out = tmp_path / "run"
    args = tiny(out, 2, 400)
    args[args.index("--train-every") + 1] = 200
    code, _, err = az(capsys, *args)
    assert code == 0, err
    saved = {p.name: p.read_bytes() for p in out.iterdir() if p.is_file()}
    code, _, err = az(capsys, "--resume", out / "checkpoint.pt", "--games", 4, "--no-progress")
    assert code == 2 and "games: 4 given" in err and err.count("\n") == 1
    assert {p.name: p.read_bytes() for p in out.iterdir() if p.is_file()} == saved
    code, _, err = az(capsys, "--resume", out / "checkpoint.pt", "--moves", 600, "--threads", 1,
                      "--no-progress")
    assert code == 0, err
    state = json.loads((out / "checkpoint.json").read_text())
    assert state["moves"] == 600 and state["updates"] == 3 and state["generation"] == 1
    assert state["config"]["moves"] == 600 and state["config"]["games"] == 2
    code, _, err = az(capsys, *args)  # the run is there: refused without --force
    assert code == 2 and "--force" in err
    warm = tmp_path / "warm.pt"
    warm.write_bytes((out / "policy.pt").read_bytes())
    code, _, err = az(capsys, *args, "--force", "--warm-start", warm)  # from a policy file
    assert code == 0, err
    state = json.loads((out / "checkpoint.json").read_text())
    assert state["generation"] == 0 and state["config"]["warm_start"] == str(warm)


def test_a_run_stopped_between_the_checkpoints_two_writes_resumes(tmp_path, capsys):
    """save_checkpoint replaces checkpoint.pt, then checkpoint.json: stopped between them, the
    newer .pt carries its own run state and the run resumes from it; a .pt of another run beside
    the json is still refused."""
    from meduris_rl.train.meduris.az import CheckpointError, checkpoint_state

    out, other = tmp_path / "run", tmp_path / "other"
    for folder in (out, other):
        code, _, err = az(capsys, *tiny(folder, 2, 200))
        assert code == 0, err
    old_json = (out / "checkpoint.json").read_bytes()
    code, _, err = az(capsys, "--resume", out / "checkpoint.pt", "--moves", 400, "--threads", 1,
                      "--no-progress")
    assert code == 0, err
    (out / "checkpoint.json").write_bytes(old_json)  # as if stopped before the json's write
    state = checkpoint_state(out / "checkpoint.pt")
    assert state["moves"] == 400 and state["updates"] == 2 and state["generation"] == 1
    code, _, err = az(capsys, "--resume", out / "checkpoint.pt", "--moves", 600, "--threads", 1,
                      "--no-progress")
    assert code == 0, err
    assert json.loads((out / "checkpoint.json").read_text())["moves"] == 600
    (out / "checkpoint.pt").write_bytes((other / "checkpoint.pt").read_bytes())
    with pytest.raises(CheckpointError, match="another run's"):
        checkpoint_state(out / "checkpoint.pt")


@pytest.mark.parametrize("bare", [False, True])
def test_the_value_network_starts_from_the_warm_start_or_says_zero(tmp_path, bare):
    """A warm start carrying a value network (the shipped 4-player file, az-train's own) starts
    from it; a file without one (a PPO run's best.pt) gets a fresh one that says 0 everywhere
    (the first searches keep the prior)."""
    from meduris_rl.agents.meduris.ppo import shipped_model
    from meduris_rl.agents.policies.network import load_policy_file, load_value_network, save_policy

    start = shipped_model(4)
    if bare:
        policy, arch = load_policy_file(start)
        save_policy(policy, arch, tmp_path / "bare.pt")  # the policy alone
        start = tmp_path / "bare.pt"
    net = load_warm_start(make_config({"players": 4, "warm_start": str(start)}))
    x = torch.from_numpy(np.random.default_rng(1).random((5, net.arch["inputs"]),
                                                         dtype=np.float32))
    shipped = load_value_network(start)
    assert (shipped is None) == bare
    with torch.no_grad():
        got = net.value(x)[:, 0]
        if bare:
            assert torch.equal(got, torch.zeros(5))
        else:
            assert torch.equal(got, shipped(x)[:, 0]) and got.abs().max() > 0


def test_the_sparse_forward_pass_is_the_networks():
    """The search's CPU forward pass (first layers summed over the inputs off their base value)
    gives torch's logits and values, with a trained-looking value network too."""
    from meduris_env.envs.batch import MedurisBatch
    from meduris_rl.agents.meduris.features import batch_features
    from meduris_rl.train.meduris.az import SparseEvaluator

    net = load_warm_start(make_config({"players": 3}))
    torch.nn.init.normal_(list(net.value)[-2].weight, std=0.1)
    evaluate = SparseEvaluator(net)
    batch = MedurisBatch(16, 3, auto_reset=True, seed=2)
    batch.reset()
    pool = batch.position_pool(16)
    ids = pool.load(batch.rows(np.arange(16)))
    obs, mask = pool.observe(ids)
    x = batch_features(obs, pool.states[ids], pool.game.field_materials,
                       pool.game.field_areas, "obs+greedy", evaluate_high(pool))
    logits, values = evaluate(x, mask)
    with torch.no_grad():
        want_logits, want_values = net.heads(torch.from_numpy(x))
    assert np.allclose(logits, want_logits.numpy(), rtol=1e-5, atol=1e-4)
    assert np.allclose(values, want_values.numpy(), atol=1e-5) and np.ptp(values) > 0


def evaluate_high(pool):
    from meduris_env.envs.observation import observation_high

    return observation_high(pool.game.max_turns)


def test_greedy_share_seats_greedy_where_drawn():
    """--greedy-share 1: every episode has a seat played by greedy (its tie-breaks from the
    move's stream), the others by the search; 0: none."""
    from meduris_rl.agents.meduris.heuristics import greedy_action

    cfg = make_config({"games": 4, "simulations": 4, "max_considered": 4, "seed": 2,
                       "threads": 1, "greedy_share": 1.0})
    net = load_warm_start(cfg)
    play = SelfPlay.of_network(cfg, net, buffer=ReplayBuffer(4000, net.arch["inputs"], 241))
    assert ((play.greedy_seat >= 0) & (play.greedy_seat < 2)).all()
    played = []
    real_play = play.batch.play
    play.batch.play = lambda games, actions: (played.append(actions.copy()),
                                              real_play(games, actions))
    fm, fa = play.batch.game.field_materials, play.batch.game.field_areas
    greedy_turns = 0
    for _ in range(12):
        seats, states = play.batch.mover.copy(), play.batch.states.copy()
        _, seeds = play.noise()
        result = play.step()
        for g in range(4):
            if seats[g] == play.greedy_seat[g] and not play.just_finished:
                greedy_turns += 1
                assert played[-1][g] == greedy_action(states[g], fm, fa, seeds[g] % 2**31)
            elif seats[g] >= 0:
                assert played[-1][g] == result.actions[g]
    assert greedy_turns > 0
    none = SelfPlay(make_config({"games": 4, "seed": 2}), None, "obs+greedy",
                    ReplayBuffer(10, net.arch["inputs"], 241), 0)
    assert (none.greedy_seat == -1).all()


def test_eval_against_plays_search_anchors_in_tournaments(tmp_path, capsys):
    """--eval-against mcts:4: each evaluation also plays a tournament against it, a column of
    its own, and the ladder's rating of it counts in the Elo; names that are no agents, or
    the anchors always played, are refused in one line before any work."""
    out = tmp_path / "run"
    code, _, err = az(capsys, *tiny(out, 2, 400, "--eval-against", "mcts:4", "--greedy-share",
                                    0.5, "--min-span", 0.5))
    assert code == 0, err
    config = json.loads((out / "checkpoint.json").read_text())["config"]
    assert config["eval_against"] == "mcts:4" and config["greedy_share"] == 0.5
    assert config["min_span"] == 0.5
    head, start, row = (out / "eval.csv").read_text().splitlines()
    assert start.split(",")[0] == "0"
    assert head == ("moves,updates,win_rate_vs_greedy,win_rate_vs_ppo,win_rate_vs_mcts:4,elo,"
                    "wall_seconds")
    assert 0 <= float(row.split(",")[4]) <= 1 and row.split(",")[5] != ""
    assert "against mcts:4" in err
    for bad, needle in (("mcts:x", "eval_against"), ("greedy", "always played")):
        code, _, err = az(capsys, *tiny(tmp_path / "no", 2, 400, "--eval-against", bad))
        assert code == 2 and needle in err and err.count("\n") == 1, err
        assert not (tmp_path / "no").exists()


def test_eval_ppo_plays_the_given_file_as_the_ppo_anchor(tmp_path, capsys, monkeypatch):
    """--eval-ppo FILE: the evaluations' ppo column plays that file, not the shipped model (a
    rerun of a shipped recipe measures against the PPO run it started from), and the Elo then
    rests on the anchors the ladder rates (greedy), not on a file it has never seen; a file of
    another player count is refused in one line before any work."""
    import shutil

    import meduris_rl.train.meduris.evaluate
    from meduris_rl.agents.meduris.ppo import shipped_model
    from meduris_rl.train.meduris.az import anchor_elo

    played, original = [], meduris_rl.train.meduris.evaluate.evaluate

    def watched(policy, players, games, seed, opponent="greedy"):
        played.append(opponent)
        return original(policy, players, games, seed, opponent)

    monkeypatch.setattr(meduris_rl.train.meduris.evaluate, "evaluate", watched)
    pinned = tmp_path / "ppo_run_best.pt"
    shutil.copy(shipped_model(2), pinned)
    out = tmp_path / "run"
    code, _, err = az(capsys, *tiny(out, 2, 400, "--eval-ppo", pinned))
    assert code == 0, err
    assert json.loads((out / "checkpoint.json").read_text())["config"]["eval_ppo"] == str(pinned)
    assert played == ["greedy", f"ppo:{pinned}"] * 2  # the warm start's evaluation, the last
    head, *rows = (out / "eval.csv").read_text().splitlines()
    for row in rows:
        cells = dict(zip(head.split(","), row.split(","), strict=True))
        expected = anchor_elo(2, {"greedy": float(cells["win_rate_vs_greedy"])}, 2)
        assert float(cells["elo"]) == pytest.approx(expected, abs=0.05)
    code, _, err = az(capsys, *tiny(tmp_path / "no", 2, 400, "--eval-ppo", shipped_model(4)))
    assert code == 2 and "eval_ppo" in err and err.count("\n") == 1, err
    assert not (tmp_path / "no").exists()


def test_value_positions_fits_a_value_network_for_a_warm_start_without_one(tmp_path, capsys):
    """A warm start without a value network (a PPO run's best.pt; the 4-player model shipped
    until 2026-11-25): --value-positions fits one to its own games before self-play (the
    report in checkpoint.json), and the search's values are then not the fresh network's
    zeros; a warm start that has one is left as it is."""
    from meduris_rl.agents.meduris.ppo import shipped_model
    from meduris_rl.agents.policies.network import load_policy_file, load_value_network, save_policy

    policy, arch = load_policy_file(shipped_model(4))
    save_policy(policy, arch, tmp_path / "bare.pt")  # the policy alone
    out = tmp_path / "run"
    code, _, err = az(capsys, *tiny(out, 4, 400, "--value-positions", 600,
                                    "--warm-start", tmp_path / "bare.pt"))
    assert code == 0, err
    fitted = json.loads((out / "checkpoint.json").read_text())["value_network"]
    assert fitted["positions"] == 600 and fitted["games"] > 0
    assert "value network for the warm start: 600 positions" in err
    value = load_value_network(out / "policy.pt")
    x = torch.from_numpy(np.random.default_rng(0).random((8, value.architecture["inputs"]),
                                                         dtype=np.float32))
    with torch.no_grad():
        assert value(x).abs().max() > 0  # a fresh network's last layer is zero: 0 everywhere
    code, _, err = az(capsys, *tiny(tmp_path / "two", 2, 400, "--value-positions", 600))
    assert code == 0 and "value network for the warm start" not in err, err
    assert "value_network" not in json.loads((tmp_path / "two" / "checkpoint.json").read_text())


def test_best_pt_keeps_the_network_of_the_best_evaluation(tmp_path, capsys):
    """best.pt: the network of the evaluation with the highest score (3 players: no ladder
    Elo, so the sum of the win rates); checkpoint.json says which; it is policy.pt's network
    exactly when that evaluation is the last."""
    from meduris_rl.agents.policies.network import load_policy_file

    out = tmp_path / "run"
    args = tiny(out, 3, 600)
    args[args.index("--train-every") + 1] = 200
    args[args.index("--eval-every") + 1] = 200
    args[args.index("--eval-games") + 1] = 6
    code, _, err = az(capsys, *args)
    assert code == 0, err
    state = json.loads((out / "checkpoint.json").read_text())
    scores = {e["moves"]: e["win_rate_vs_greedy"] + e["win_rate_vs_ppo"] for e in state["evals"]}
    assert sorted(scores) == [0, 200, 400, 600] and state["best"]["score"] == max(scores.values())
    assert state["best"]["moves"] == min(m for m, s in scores.items() if s == max(scores.values()))
    best, arch = load_policy_file(out / "best.pt")
    final, _ = load_policy_file(out / "policy.pt")
    same = all(torch.equal(a, b) for a, b in zip(best.state_dict().values(),
                                                 final.state_dict().values(), strict=True))
    assert arch["players"] == 3 and same == (state["best"]["moves"] == state["moves"])


def test_min_span_reaches_the_self_play_search():
    """The same games with mctx's stretch (1e-8) and the trainer's min_span 1: the same first
    positions, other targets; with 1 the targets stay nearer the prior
    (meduris_rl.agents.search.gumbel)."""
    targets = {}
    for span in (1e-8, 1.0):
        cfg = make_config({"players": 2, "games": 4, "simulations": 8, "max_considered": 4,
                           "threads": 1, "seed": 5, "min_span": span})
        net = load_warm_start(cfg)
        play = SelfPlay.of_network(cfg, net, buffer=ReplayBuffer(100, net.arch["inputs"], 241))
        result = play.step()
        x, mask = play.pool.roots
        with torch.no_grad():
            logits, _ = net.heads(torch.from_numpy(x))
        prior = torch.softmax(logits.masked_fill(torch.from_numpy(mask == 0), -1e9), 1).numpy()
        targets[span] = (x.copy(), result.policy, prior)
    (x0, stretched, prior), (x1, kept, _) = targets[1e-8], targets[1.0]
    assert np.array_equal(x0, x1) and not np.allclose(stretched, kept)

    def distance(pi):  # KL(pi || prior) summed over the roots: it grows with sigma's scale
        return float(np.sum(np.where(pi > 0, pi * np.log(np.maximum(pi, 1e-300) /
                                                         np.maximum(prior, 1e-300)), 0.0)))

    assert distance(kept) < distance(stretched)


def test_evaluations_do_not_change_what_is_learnt(tmp_path, capsys):
    """The evaluations (the warm start's at 0 moves among them) draw from streams of their
    own: a run with them learns the same weights as one without, so a documented command gives
    its documented network whatever its --eval-games."""
    from meduris_rl.agents.policies.network import load_policy_file

    weights = []
    for games in (0, 4):
        out = tmp_path / f"eval{games}"
        args = tiny(out, 2, 400)
        args[args.index("--train-every") + 1] = 200
        args[args.index("--eval-every") + 1] = 200
        args[args.index("--eval-games") + 1] = games
        code, _, err = az(capsys, *args)
        assert code == 0, err
        weights.append(load_policy_file(out / "policy.pt")[0].state_dict())
    assert (tmp_path / "eval4" / "eval.csv").read_text().count("\n") == 4  # head, 0, 200, 400
    assert not (tmp_path / "eval0" / "eval.csv").exists()
    assert all(torch.equal(weights[0][k], weights[1][k]) for k in weights[0])


def test_the_device_is_cuda_when_torch_sees_one_and_is_named(monkeypatch):
    """Issue 29: the trainer uses CUDA when torch sees a device, and says which (its name);
    the CPU otherwise (the tested default: this machine has no GPU)."""
    from meduris_rl.train.meduris.az import device_words, pick_device

    assert pick_device().type == "cpu" and device_words(pick_device()) == "cpu"
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "get_device_name", lambda device=None: "Tiny GPU 9")
    assert pick_device() == torch.device("cuda")
    assert device_words(pick_device()) == "cuda (Tiny GPU 9)"

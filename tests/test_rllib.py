"""RLlib training (``meduris rllib-train``, train/meduris/rllib_ppo.py) and the rllib agent: the
multi-agent env (meduris_env/envs/rllib.py) passes RLlib's checker and plays whole games; a
short run on a local Ray (2 players with a shared policy, 4 with one policy per seat) trains,
checkpoints, resumes where it stopped, and its policy plays legal games; the errors a user can
fix are one line. Runs in the Ray environment only (``.venv-ray``: RLlib 2.60 pins gymnasium
1.2.2)."""

import json
import pickle
import socket
import sys

import numpy as np
import pytest
import ray
from ray.rllib.utils.pre_checks.env import check_multiagent_environments
from test_agents import LegalityChecker

from meduris_env import MedurisGame
from meduris_env.envs.rllib import MedurisMultiAgentEnv
from meduris_rl.agents import UnknownAgentError, make_agent
from meduris_rl.agents.arena.match import play_game
from meduris_rl.agents.meduris.rllib import RLlibAgent
from meduris_rl.train.meduris import rllib_ppo
from meduris_rl.train.meduris.rllib_ppo import train


def main(argv: list[str]) -> int:
    """``meduris rllib-train`` in this process (the module's Ray is running)."""
    from meduris_rl.cli.main import main as meduris
    return meduris(["rllib-train", *argv])


TINY = dict(train_batch_size=256, minibatch_size=128, num_epochs=1)


@pytest.fixture(scope="module")
def local_ray():
    """One local Ray for the module's runs (train() leaves a Ray it did not start running)."""
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, configure_logging=False)
    yield
    ray.shutdown()


def play_legal_games(checkpoint, players, games=2):
    """``games`` games of the checkpoint's policy against random, seats rotated; every action
    of every seat checked legal."""
    agent = RLlibAgent(f"rllib:{checkpoint}", checkpoint)
    game = MedurisGame(players)
    for seed in range(games):
        seats = [LegalityChecker(make_agent("random")) for _ in range(players)]
        mine = [s for s in range(players) if s % 2 == seed % 2]
        for s in mine:
            seats[s] = LegalityChecker(agent)
        result = play_game(game, seats, seed)
        assert result.end_reason != "abandoned" and result.turns > 0
        assert all(seats[s].moves > 0 for s in mine)


# --- the environment ---------------------------------------------------------------------------
@pytest.mark.parametrize("players", [2, 4])
def test_env_passes_rllibs_checker_and_plays_a_game_mover_only(players):
    env = MedurisMultiAgentEnv({"players": players, "seed": 3})
    check_multiagent_environments(env)
    obs, _ = env.reset(seed=5)
    rng = np.random.default_rng(0)
    steps, done = 0, False
    while not done:
        assert len(obs) == 1  # only the mover observes
        (agent, o), = obs.items()
        assert agent == f"player_{env.state.current_player()}"
        assert 0.0 <= o["observations"].min() and o["observations"].max() <= 1.0
        action = int(rng.choice(np.flatnonzero(o["action_mask"])))
        obs, rewards, terminated, truncated, infos = env.step({agent: action})
        steps += 1
        done = terminated["__all__"] or truncated["__all__"]
    assert terminated["__all__"] and not truncated["__all__"]
    assert set(obs) == set(rewards) == set(env.possible_agents)  # everyone sees the end
    assert abs(sum(rewards.values())) < 1e-9 and max(rewards.values()) > 0  # "win" scheme
    assert [rewards[a] > 0 for a in env.possible_agents] == [infos[a]["winner"]
                                                            for a in env.possible_agents]
    first, again = env.reset(seed=5)[0], env.reset(seed=5)[0]  # same seed, same game
    (agent, o), = first.items()
    assert np.array_equal(o["observations"], again[agent]["observations"])
    assert steps > 50


def test_the_env_class_is_one_class_wherever_it_is_reached():
    """Made on first use, the class is cached: meduris_rl.train.meduris.rllib_ppo's name is the same
    class, and it pickles by reference (RLlib's EnvRunner actors import it by name)."""
    from ray.rllib.env.multi_agent_env import MultiAgentEnv

    from meduris_env.envs import rllib as envs_rllib

    assert rllib_ppo.MedurisMultiAgentEnv is MedurisMultiAgentEnv
    assert envs_rllib.multi_agent_env_class() is MedurisMultiAgentEnv
    assert issubclass(MedurisMultiAgentEnv, (MultiAgentEnv, envs_rllib.MedurisMultiAgentCore))
    assert pickle.loads(pickle.dumps(MedurisMultiAgentEnv)) is MedurisMultiAgentEnv


def test_env_truncates_at_the_turn_limit_without_reward():
    env = MedurisMultiAgentEnv({"players": 2, "max_turns": 3})
    obs, _ = env.reset(seed=0)
    done = False
    while not done:
        (agent, o), = obs.items()
        obs, rewards, terminated, truncated, _ = env.step(
            {agent: int(np.flatnonzero(o["action_mask"])[0])})
        done = terminated["__all__"] or truncated["__all__"]
    assert truncated["__all__"] and not terminated["__all__"]
    assert set(obs) == {"player_0", "player_1"} and set(rewards.values()) == {0.0}


# --- training, checkpoints, resuming, playing --------------------------------------------------
def test_two_players_shared_policy_trains_checkpoints_resumes_and_plays(local_ray, tmp_path,
                                                                        capsys):
    out = tmp_path / "run"
    args = ["--players", "2", "--iterations", "2", "--out", str(out), "--env-runners", "1",
            "--train-batch", "256", "--minibatch", "128", "--epochs", "1", "--json"]
    assert main(args) == 0
    first = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert first["iterations"] == 2 and first["iterations_run"] == 2
    assert first["env_steps_sampled"] >= 512 and first["env_steps_per_s"] > 0
    ckpt = out / "checkpoint"
    assert first["checkpoint"] == str(ckpt)
    meta = json.loads((ckpt / "meduris.json").read_text())
    assert meta["iteration"] == 2 and meta["modules"] == {"player_0": "shared",
                                                          "player_1": "shared"}
    assert (ckpt / "learner_group" / "learner" / "rl_module" / "shared").is_dir()
    assert not [p for p in out.iterdir() if p.name.startswith(".")]  # no temporary folders
    assert len((out / "progress.jsonl").read_text().splitlines()) == 2

    args[args.index("--iterations") + 1] = "3"
    assert main(args + ["--resume", str(ckpt)]) == 0
    resumed = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert resumed["iterations"] == 3 and resumed["iterations_run"] == 1  # the count continues
    assert resumed["env_steps_sampled"] > first["env_steps_sampled"]
    assert json.loads((ckpt / "meduris.json").read_text())["iteration"] == 3
    play_legal_games(ckpt, players=2)
    play_legal_games(ckpt, players=3, games=1)  # a shared policy plays any player count
    tournament_through_the_cli(ckpt, ["random"], tmp_path / "t2")

    # one run per folder: a new run refuses it (unless --force), a resumed run stays in it
    saved = (out / "progress.jsonl").read_bytes()
    assert main(args) == 2
    assert "holds an earlier run's results" in one_error_line(capsys)
    assert main(args + ["--resume", str(ckpt), "--out", str(tmp_path / "elsewhere")]) == 2
    assert "continues in its own folder" in one_error_line(capsys)
    assert (out / "progress.jsonl").read_bytes() == saved
    assert not (tmp_path / "elsewhere").exists()


def tournament_through_the_cli(checkpoint, others: list[str], out):
    """``meduris tournament`` with the checkpoint's policy as ``rllib:<path>`` (in this
    process: the module's Ray is running), every game to its end."""
    from meduris_rl.cli import main as meduris

    name = f"rllib:{checkpoint}"
    players = 1 + len(others)
    assert meduris(["tournament", "--agents", ",".join([name, *others]), "--players",
                    str(players), "--games", str(players), "--workers", "1", "--out", str(out),
                    "--no-progress"]) == 0
    summary = json.loads((out / "summary.json").read_text())  # (every lineup played equally)
    assert summary["games"] >= players and name in summary["agents"]
    assert summary["agents"][name]["games"] == summary["games"]
    rows = (out / "games.csv").read_text().splitlines()
    assert len(rows) == 1 + summary["games"] and all(",abandoned," not in r for r in rows)


def test_four_players_one_policy_per_seat_trains_resumes_and_plays(local_ray, tmp_path):
    out = tmp_path / "run4"
    first = train(4, 1, out, num_env_runners=1, seed=1, shared=False, **TINY)
    ckpt = out / "checkpoint"
    assert first["iterations"] == 1 and first["env_steps_sampled"] >= 256
    modules = ckpt / "learner_group" / "learner" / "rl_module"
    assert sorted(p.name for p in modules.iterdir() if p.is_dir()) == [
        f"player_{s}" for s in range(4)]
    resumed = train(4, 2, out, num_env_runners=1, seed=1, shared=False, resume=ckpt, **TINY)
    assert resumed["iterations"] == 2 and resumed["iterations_run"] == 1
    play_legal_games(ckpt, players=4)
    tournament_through_the_cli(ckpt, ["random", "greedy", "random"], tmp_path / "t4")
    with pytest.raises(rllib_ppo.RLlibError, match="same --players and --per-seat"):
        train(4, 3, out, num_env_runners=1, shared=True, resume=ckpt, **TINY)
    agent = RLlibAgent("rllib", ckpt)
    with pytest.raises(UnknownAgentError, match="none for seat 4"):
        agent.module_for(4)


# --- errors the user can fix -------------------------------------------------------------------
def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def one_error_line(capsys) -> str:
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("meduris: error: "), err
    return err[0]


def test_an_unreachable_address_is_one_line_naming_the_fix(tmp_path, capsys):
    address = f"127.0.0.1:{closed_port()}"
    running = ray.is_initialized()
    assert main(["--iterations", "1", "--out", str(tmp_path), "--address", address]) == 2
    line = one_error_line(capsys)
    assert f"cannot reach a Ray cluster at {address}" in line and "ray start --head" in line
    assert main(["--out", str(tmp_path), "--address", "nowhere"]) == 2
    assert "host:port" in one_error_line(capsys)
    assert ray.is_initialized() == running  # the check comes before ray.init


def test_missing_ray_and_bad_checkpoints_are_one_line(tmp_path, capsys, monkeypatch):
    assert main(["--out", str(tmp_path), "--resume", str(tmp_path / "nope")]) == 2
    assert "no RLlib checkpoint at" in one_error_line(capsys)
    assert main(["--out", str(tmp_path), "--resume", str(tmp_path)]) == 2
    assert "not a checkpoint of meduris_rl.train.meduris.rllib_ppo" in one_error_line(capsys)
    with pytest.raises(UnknownAgentError, match="no RLlib checkpoint at"):
        RLlibAgent("rllib", tmp_path / "nope")
    with pytest.raises(UnknownAgentError, match="write rllib:<checkpoint folder"):
        RLlibAgent("rllib", "")
    monkeypatch.setitem(sys.modules, "ray.rllib", None)  # as if Ray were not installed
    assert main(["--out", str(tmp_path)]) == 2
    assert "pip install -e '.[ray]'" in one_error_line(capsys)


def test_rllib_multi_agent_env_on_ray_plays_a_cut_game_as_its_core_does():
    """A game cut at max_turns (tests/test_max_turns_scoring.py, issue 31): the Ray env plays
    the same game as the Ray-free core and reports it the same way (truncated, no reward)."""
    from helpers import play_cut_rllib_game

    from meduris_env.envs.rllib import MedurisMultiAgentCore, multi_agent_env_class

    config = {"players": 3, "max_turns": 5}
    ray_env, rewards, terminated, truncated, _ = play_cut_rllib_game(
        multi_agent_env_class()(config), seed=11)
    core, *_ = play_cut_rllib_game(MedurisMultiAgentCore(config), seed=11)
    assert core.state.is_truncated()
    assert ray_env.state.history() == core.state.history()
    assert truncated == {"__all__": True} and terminated == {"__all__": False}
    assert set(rewards.values()) == {0.0}

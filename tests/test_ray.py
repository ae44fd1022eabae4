"""Tournaments on Ray (runs in .venv-ray, where Ray is installed): the same games.csv as the
process backend for the same seed, on a local Ray the command starts and stops; an unreachable
cluster is a one-line error before any game."""

import subprocess
import sys
from pathlib import Path

import pytest
import ray  # noqa: F401  (this file runs where Ray is installed)

REPO = Path(__file__).resolve().parent.parent


def meduris(*args):
    return subprocess.run([sys.executable, "-m", "meduris_rl.cli", *args], cwd=REPO,
                          capture_output=True, text=True, timeout=600)


def test_the_ray_backend_plays_the_same_games_as_the_process_backend(tmp_path):
    common = ["tournament", "--agents", "greedy,random,mcts:10", "--players", "3", "--games",
              "12", "--seed", "5", "--no-progress", "--workers", "2"]
    by_process = meduris(*common, "--out", str(tmp_path / "p"))
    by_ray = meduris(*common, "--backend", "ray", "--out", str(tmp_path / "r"))
    assert by_process.returncode == 0, by_process.stderr
    assert by_ray.returncode == 0, by_ray.stderr
    assert (tmp_path / "p" / "games.csv").read_text() == (tmp_path / "r" / "games.csv").read_text()
    assert "greedy" in by_ray.stdout  # the leaderboard


@pytest.mark.parametrize("address,message", [
    ("127.0.0.1:9", "cannot reach a Ray cluster at 127.0.0.1:9"),
    ("nonsense", "write host:port"),
])
def test_an_unreachable_cluster_is_a_one_line_error_before_any_game(tmp_path, address, message):
    run = meduris("tournament", "--agents", "greedy,random", "--games", "2", "--backend", "ray",
                  "--address", address, "--out", str(tmp_path / "r"), "--no-progress")
    assert run.returncode == 2 and run.stderr.startswith("meduris: error: ")
    assert message in run.stderr and len(run.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "r" / "games.csv").exists()


def test_a_ray_actor_killed_mid_tournament_costs_only_its_games_played_again(tmp_path):
    """Issue 46: a killed actor (SIGKILL, as the out-of-memory killer does: the killer plug-in
    does it to its own process once) is replaced and its games played again with their seeds."""
    import os
    killer = str(REPO / "tests" / "data" / "bots" / "killer.py") + ":Killer"
    common = ["tournament", "--agents", f"{killer},greedy", "--games", "12", "--seed", "5",
              "--no-progress", "--workers", "2", "--backend", "ray"]
    marker = tmp_path / "killed"
    env = {**os.environ, "MEDURIS_KILL_MARKER": str(marker)}
    disturbed = subprocess.run([sys.executable, "-m", "meduris_rl.cli", *common, "--out",
                                str(tmp_path / "k")], cwd=REPO, capture_output=True, text=True,
                               timeout=600, env=env)
    assert disturbed.returncode == 0, disturbed.stderr
    assert marker.exists()  # an actor was killed
    calm = meduris(*common, "--out", str(tmp_path / "c"))
    assert calm.returncode == 0, calm.stderr
    assert (tmp_path / "k" / "games.csv").read_text() == (tmp_path / "c" / "games.csv").read_text()

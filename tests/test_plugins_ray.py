"""Plug-in agents on the Ray backend (runs in .venv-ray, where Ray and the example package
examples/meduris-bot-example are installed): a file plug-in named by a path relative to a
folder outside the project, a module found through PYTHONPATH and an installed entry point are
rebuilt by name inside the Ray actors and play the same games as on the process pool; a bad
plug-in is one line before Ray starts."""

import csv
import os
import subprocess
import sys
import uuid
from pathlib import Path

import ray  # noqa: F401  (this file runs where Ray is installed)
from test_plugins import BOTS as PLUGINS  # (tests/ is on the path: conftest)

REPO = Path(__file__).resolve().parent.parent

# the plug-ins of the process-pool tests (a class with a parameter, a policy function)
BOTS = HIGHEST = PLUGINS


def meduris(*args, cwd, pythonpath, env=None):
    env = {**os.environ, **(env or {}), "PYTHONPATH": str(pythonpath)}
    return subprocess.run([sys.executable, "-m", "meduris_rl.cli", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=600)


def test_plugins_play_the_same_games_on_ray_as_on_the_process_pool(tmp_path):
    (tmp_path / "bots").mkdir()
    (tmp_path / "bots" / "bots.py").write_text(BOTS)
    (tmp_path / "mods" / "p1ray").mkdir(parents=True)
    (tmp_path / "mods" / "p1ray" / "__init__.py").write_text("")
    (tmp_path / "mods" / "p1ray" / "policies.py").write_text(HIGHEST)
    agents = "bots/bots.py:Careful:3,p1ray.policies:highest,cautious:2"
    common = ["tournament", "--agents", agents, "--players", "2", "--games", "12", "--seed",
              "2", "--no-progress", "--workers", "2"]
    by_process = meduris(*common, "--out", str(tmp_path / "p"), cwd=tmp_path,
                         pythonpath=tmp_path / "mods")
    by_ray = meduris(*common, "--backend", "ray", "--out", str(tmp_path / "r"), cwd=tmp_path,
                     pythonpath=tmp_path / "mods")
    assert by_process.returncode == 0, by_process.stderr
    assert by_ray.returncode == 0, by_ray.stderr
    games = (tmp_path / "r" / "games.csv").read_text()
    assert games == (tmp_path / "p" / "games.csv").read_text()
    for label in agents.split(","):
        assert games.count(label) >= 8 and label in by_ray.stdout


def test_a_bad_plugin_is_one_line_before_ray_starts(tmp_path):
    run = meduris("tournament", "--agents", "greedy,nowhere_pkg.bots:X", "--games", "2",
                  "--backend", "ray", "--no-progress", "--out", str(tmp_path / "r"),
                  cwd=tmp_path, pythonpath=tmp_path)
    assert run.returncode == 2 and len(run.stderr.strip().splitlines()) == 1
    assert run.stderr.startswith("meduris: error: agent 'nowhere_pkg.bots:X': no module named")
    assert not (tmp_path / "r" / "games.csv").exists()


def test_ray_actors_get_the_parents_sys_path_and_folder(tmp_path, monkeypatch):
    # a module on this process's sys.path only (an API user's sys.path.insert, no PYTHONPATH)
    # and a file relative to this process's folder: local Ray's workers inherit neither the
    # path nor, on a cluster, the folder; init_worker's context gives them both
    from meduris_rl.agents.arena.tournament import TournamentConfig, run_tournament

    (tmp_path / "bots").mkdir()
    (tmp_path / "bots" / "bots.py").write_text(BOTS)
    (tmp_path / "only_here" / "p1ray_api").mkdir(parents=True)
    (tmp_path / "only_here" / "p1ray_api" / "__init__.py").write_text(HIGHEST)
    monkeypatch.syspath_prepend(str(tmp_path / "only_here"))
    monkeypatch.delenv("PYTHONPATH", raising=False)
    monkeypatch.chdir(tmp_path)
    names = ["bots/bots.py:Careful", "p1ray_api:highest"]
    cfg = TournamentConfig(names, games=2, workers=1, backend="ray")
    results, _ = run_tournament(cfg)
    assert sorted(r.agents for r in results) == [names, names[::-1]]


def test_cmd_bots_play_and_forfeit_the_same_games_on_ray_and_leave_no_process(tmp_path):
    """``cmd:`` agents started inside Ray actors: the same games (and the same forfeits, the
    reason in games.csv) as on the process pool, and no bot process left after the run."""
    from test_external import FAULTY, bots_left

    mark = uuid.uuid4().hex
    bot = f"cmd:{sys.executable} {REPO / 'examples/random_bot.py'}"
    crashing = f"{FAULTY} crash"
    common = ["tournament", "--agents", f"{bot},{crashing},random", "--players", "2",
              "--games", "6", "--seed", "4", "--no-progress", "--workers", "2",
              "--move-time", "5"]
    env = {"MEDURIS_BOT_MARK": mark}
    by_process = meduris(*common, "--out", str(tmp_path / "p"), cwd=tmp_path,
                         pythonpath=tmp_path, env=env)
    by_ray = meduris(*common, "--backend", "ray", "--out", str(tmp_path / "r"), cwd=tmp_path,
                     pythonpath=tmp_path, env=env)
    assert by_process.returncode == 0, by_process.stderr
    assert by_ray.returncode == 0, by_ray.stderr
    games = (tmp_path / "r" / "games.csv").read_text()
    assert games == (tmp_path / "p" / "games.csv").read_text()
    with open(tmp_path / "r" / "games.csv", newline="") as fh:
        rows = list(csv.DictReader(fh))
    crashed = [r for r in rows if r["seat1_agent"] == crashing]  # (it crashes at seat 1)
    assert len(crashed) == 2 and all(r["end_reason"] == "forfeit" and r["forfeit_seat"] == "1"
                                     and r["forfeit"].startswith("crashed") for r in crashed)
    assert all(r["forfeit"] == "" for r in rows if r not in crashed)
    assert bots_left(mark, within=10) == []

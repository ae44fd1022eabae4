"""One import root, proved on a wheel: the distribution built from the repository and installed
(not editable) into a fresh virtual environment together with ``openai-agents`` (which
installs a top-level ``agents``) leaves ``import agents`` to openai's, and everything of ours
works from that wheel in a folder that is not the repository: the commands (a tournament, the
shipped ladder, ``play --help``, ``serve --help``), the README's Python snippets, the shipped
models, board data, ladder databases and web files.

It needs the package index (PyPI: the machine's one registry) for the fresh environment; pip's
cache makes a second run take seconds."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
SHIPPED = ("meduris_rl/agents/models/ppo_2p.pt", "meduris_rl/agents/models/search_2p.pt",
           "meduris_rl/agents/models/druids_ppo_2p.pt",
           "meduris_rl/agents/models/stone_age_ppo_2p.pt",
           "meduris_rl/agents/data/ladder_anchors.sqlite",
           "meduris_rl/agents/data/ladder_anchors_druids.sqlite",
           "meduris_rl/agents/data/ladder_anchors_stone_age.sqlite",
           "meduris_rl/train/configs/ppo_2p.yaml",
           "meduris_env/engine/board_data/board-2-3-players.json",
           "stoneage_env/engine/data/components.json",
           "meduris_env/render/templates/board.js", "meduris_rl/cli/meduris/web/static/play.html")


def run(argv: list[str], cwd: Path, timeout: float = 600) -> subprocess.CompletedProcess:
    done = subprocess.run(argv, cwd=cwd, capture_output=True, text=True, timeout=timeout)
    assert done.returncode == 0, (argv, done.stdout[-2000:], done.stderr[-2000:])
    return done


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> tuple[Path, Path, Path]:
    """(the wheel, the fresh environment's bin folder, an empty working folder)."""
    base = tmp_path_factory.mktemp("wheel")
    # built from the repository's own files only (git's list: as a clean clone holds them, with
    # the working tree's edits), never from a build/ or egg-info a local install left behind
    listed = subprocess.run(["git", "ls-files", "-z"], cwd=REPO, capture_output=True,
                            check=True).stdout.decode().split("\0")
    source = base / "src"
    for name in filter(None, listed):
        if (REPO / name).is_file():
            (source / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(REPO / name, source / name)
    assert not (source / "build").exists()
    run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(base / "dist"),
         str(source)], base)
    wheel = next((base / "dist").glob("meduris_rl-*.whl"))
    run([sys.executable, "-m", "venv", str(base / "venv")], base)
    bin_ = base / "venv" / "bin"
    run([str(bin_ / "python"), "-m", "pip", "install", "-q", str(wheel), "openai-agents"], base)
    work = base / "work"
    work.mkdir()
    return wheel, bin_, work


def test_the_wheel_holds_one_root_beside_the_games_and_the_shipped_files(installed):
    wheel, _, _ = installed
    names = zipfile.ZipFile(wheel).namelist()
    tops = {n.split("/")[0] for n in names if not n.split("/")[0].endswith(".dist-info")}
    assert tops == {"meduris_rl", "meduris_env", "druids_env", "stoneage_env"}
    assert not [n for n in names if n.startswith(("agents/", "train/", "meduris_cli/"))]
    missing = [f for f in SHIPPED if f not in names]
    assert not missing, missing
    entry_points = next(n for n in names if n.endswith("entry_points.txt"))
    text = zipfile.ZipFile(wheel).read(entry_points).decode()
    assert "meduris = meduris_rl.cli:main" in text and "[meduris_rl.games]" in text


def test_import_agents_is_openai_s_and_ours_live_under_the_root(installed):
    _, bin_, work = installed
    code = ("import agents, meduris_rl.agents, meduris_env, druids_env; "
            "from meduris_rl.kit.games import game_names; "
            "print(agents.__file__); print(meduris_rl.agents.__file__); print(game_names())")
    out = run([str(bin_ / "python"), "-c", code], work).stdout.splitlines()
    assert "site-packages/agents/__init__.py" in out[0]  # openai-agents' own
    assert "site-packages/meduris_rl/agents/__init__.py" in out[1]
    # the installed games, found by their rows
    assert out[2] == "('meduris', 'druids', 'stone_age')"


def test_the_commands_work_from_the_wheel(installed):
    _, bin_, work = installed
    meduris = str(bin_ / "meduris")
    for command in (["play", "--help"], ["serve", "--help"], ["games"], ["agents"]):
        assert run([meduris, *command], work).stdout
    shown = run([meduris, "ladder", "show", "--players", "2"], work)
    assert "the shipped anchors' ladder" in shown.stderr and "search" in shown.stdout
    tour = run([meduris, "tournament", "--agents", "random,greedy", "--games", "4",
                "--workers", "1", "--no-progress", "--out", "results"], work)
    assert "4 games, 2 players" in tour.stdout and (work / "results" / "games.csv").is_file()
    druids = run([meduris, "tournament", "--game", "druids", "--agents", "random,greedy",
                  "--games", "2", "--workers", "1", "--no-progress", "--out", "d"], work)
    assert "amulets" in druids.stdout


def test_the_readme_snippets_run_from_the_wheel(installed):
    _, bin_, work = installed
    snippets = re.findall(r"```python\n(.*?)```", (REPO / "README.md").read_text(), re.S)
    assert len(snippets) >= 2
    for i, snippet in enumerate(snippets):
        (work / f"snippet_{i}.py").write_text(snippet)
        run([str(bin_ / "python"), f"snippet_{i}.py"], work)

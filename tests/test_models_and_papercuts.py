"""Issue 31, models and newcomer papercuts: policy files with non-finite weights and policies
used for another player count are refused with one line; the shipped policies still load;
`meduris play` with stdin closed saves its record; the messages point the right way; the demo
runs twice into the same folder."""

from __future__ import annotations

import json
import math
import re
import shlex
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest
import torch
from helpers import run_cli

from meduris_rl.agents import UnknownAgentError, make_agent
from meduris_rl.agents.meduris.ppo import shipped_model
from meduris_rl.agents.policies.network import (
    PolicyFileError,
    load_policy_file,
    load_value_network,
    save_policy,
)
from meduris_rl.cli.commands.train import interrupted_advice
from meduris_rl.kit.errors import InputError

REPO = Path(__file__).resolve().parent.parent


def one_line_error(err: str) -> str:
    assert "Traceback" not in err, err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    return lines[0]


def policy_copy(tmp_path: Path, name: str, players: int | None = None, poison=None,
                value_poison=None) -> Path:
    """A copy of the shipped 2-player policy at ``tmp_path/name``: with ``players`` recorded,
    ``poison`` (a float) written into one policy weight, ``value_poison`` into a value weight."""
    doc = torch.load(shipped_model(2), map_location="cpu", weights_only=True)
    doc["architecture"].pop("players", None)  # (the shipped file records 2 since issue 31)
    if players is not None:
        doc["architecture"]["players"] = players
    if poison is not None:
        key = sorted(doc["state_dict"])[-1]
        doc["state_dict"][key].view(-1)[0] = poison
    if value_poison is not None:
        key = sorted(doc["value_network"]["state_dict"])[0]
        doc["value_network"]["state_dict"][key].view(-1)[0] = value_poison
    path = tmp_path / name
    torch.save(doc, path)
    return path


# --- non-finite weights ----------------------------------------------------------------------
@pytest.mark.parametrize("kind, bad", [("ppo:{}", math.nan), ("ppo:{}", math.inf),
                                       ("az:5:{}", math.nan), ("az:5:{}", -math.inf)])
def test_non_finite_policy_weights_are_refused_at_load_naming_the_file(tmp_path, bad, kind):
    path = policy_copy(tmp_path, "poisoned.pt", poison=bad)
    with pytest.raises(UnknownAgentError) as err:
        make_agent(kind.format(path))
    message = str(err.value)
    assert "\n" not in message and str(path) in message and "not all finite" in message
    assert isinstance(err.value, InputError)


def test_non_finite_value_network_weights_are_refused_for_az(tmp_path):
    if "value_network" not in torch.load(shipped_model(2), weights_only=True):
        pytest.fail("the shipped 2-player policy is expected to carry a value network")
    path = policy_copy(tmp_path, "value_nan.pt", value_poison=math.nan)
    with pytest.raises(PolicyFileError, match="value network's weights are not all finite"):
        load_value_network(path)
    with pytest.raises(UnknownAgentError, match=re.escape(str(path))):
        make_agent(f"az:5:{path}")


def test_a_tournament_with_a_nan_policy_stops_before_any_game(tmp_path, capsys):
    path = policy_copy(tmp_path, "nan.pt", poison=math.nan)
    out = tmp_path / "out"
    code, _, err = run_cli(capsys, "tournament", "--agents", f"ppo:{path},random", "--games",
                           "2", "--no-progress", "--out", str(out))
    assert code == 2 and "not all finite" in one_line_error(err)
    assert not out.exists()


# --- player counts ---------------------------------------------------------------------------
def test_training_records_the_player_count_in_every_policy_file(tmp_path):
    from meduris_rl.train.config import TrainConfig
    from meduris_rl.train.run import network_of

    arch = network_of(TrainConfig(players=3))
    assert arch["players"] == 3
    policy, _ = load_policy_file(shipped_model(2))
    save_policy(policy, arch, tmp_path / "p.pt")
    assert load_policy_file(tmp_path / "p.pt")[1]["players"] == 3
    assert make_agent(f"ppo:{tmp_path / 'p.pt'}").trained_players == 3


@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_shipped_policies_still_load_and_play_their_count(players):
    _, arch = load_policy_file(shipped_model(players))
    # every shipped file records its count (the 2-player one re-saved so, issue 31)
    assert arch.get("players") == players
    agent = make_agent(f"ppo:{shipped_model(players)}")
    assert agent.trained_players == players
    agent.check_players(players)  # no error
    from meduris_env import MedurisGame
    from meduris_rl.agents.arena.match import play_game
    result = play_game(MedurisGame(players, max_turns=2),
                       [agent] + [make_agent("random")] * (players - 1), seed=1)
    assert result is not None


@pytest.mark.parametrize("spec", ["ppo:{}", "az:5:{}"])
@pytest.mark.parametrize("recorded, name", [(4, "mine.pt"), (None, "ppo_4p.pt"),
                                            (3, "ppo_2p.pt")])
def test_a_policy_for_another_player_count_is_refused(tmp_path, capsys, spec, recorded, name):
    path = policy_copy(tmp_path, name, players=recorded)
    trained = recorded or 4
    agent = make_agent(spec.format(path))
    with pytest.raises(UnknownAgentError, match=f"{trained}-player policy: it cannot play a "
                                                "2-player game"):
        agent.check_players(2)
    out = tmp_path / "out"
    code, _, err = run_cli(capsys, "tournament", "--agents", f"{spec.format(path)},random",
                           "--players", "2", "--games", "2", "--no-progress", "--out", str(out))
    assert code == 2 and f"{trained}-player policy" in one_line_error(err)
    assert not out.exists()


def test_a_policy_of_unknown_count_plays_any_count(tmp_path):
    path = policy_copy(tmp_path, "old.pt")  # no players recorded, no telling name
    agent = make_agent(f"ppo:{path}")
    assert agent.trained_players is None
    for players in (2, 3, 4):
        agent.check_players(players)


def test_the_mismatch_is_refused_at_the_first_decision_too(tmp_path):
    """Interfaces that build agents without a tournament's check still refuse it in play."""
    from meduris_env import MedurisGame
    from meduris_rl.agents.arena.match import play_game

    path = policy_copy(tmp_path, "four.pt", players=4)
    with pytest.raises(UnknownAgentError, match="4-player policy"):
        play_game(MedurisGame(2), [make_agent(f"ppo:{path}"), make_agent("random")], seed=0)


@pytest.mark.parametrize("recorded, name", [(4, "mine.pt"), (None, "ppo_3p.pt")])
def test_a_batch_opponent_of_another_player_count_is_refused(tmp_path, recorded, name):
    """The vector env's and the league's batched opponents (``meduris_rl.agents.meduris.batch``)
    check too."""
    from meduris_rl.agents.meduris.batch import make_batch_opponent

    path = policy_copy(tmp_path, name, players=recorded)
    trained = recorded or 3
    with pytest.raises(UnknownAgentError, match=f"{trained}-player policy: it cannot play a "
                                                "2-player game"):
        make_batch_opponent(f"ppo:{path}", players=2)
    assert make_batch_opponent(f"ppo:{path}", players=trained).name == f"ppo:{path}"


# --- play with stdin closed ------------------------------------------------------------------
@pytest.mark.parametrize("how", ["devnull", "closed"])
def test_play_with_stdin_closed_saves_the_record_and_exits_1(tmp_path, how):
    record = tmp_path / "game.json"
    argv = [sys.executable, "-m", "meduris_rl.cli", "play", "--opponents", "random", "--seed",
            "3", "--record", str(record)]
    if how == "devnull":
        done = subprocess.run(argv, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                              cwd=REPO, timeout=120)
    else:  # the descriptor itself closed: Python's sys.stdin is None
        done = subprocess.run(["sh", "-c", shlex.join(argv) + " <&-"], capture_output=True,
                              text=True, cwd=REPO, timeout=120)
    assert done.returncode == 1, done.stderr
    assert "Traceback" not in done.stderr and done.stderr.strip() == ""
    assert "(input ended)" in done.stdout and f"record saved to {record}" in done.stdout
    assert record.is_file()
    from meduris_rl.kit.records import GameRecord
    GameRecord.load(record)


def test_human_read_line_takes_no_input_as_the_end_of_input():
    import io

    from meduris_rl.agents.meduris.human import HumanAgent

    assert HumanAgent(None, io.StringIO()).read_line() == ""
    closed = io.StringIO("3\n")
    closed.close()
    assert HumanAgent(closed, io.StringIO()).read_line() == ""
    assert HumanAgent(io.StringIO("3\n"), io.StringIO()).read_line() == "3\n"


# --- messages --------------------------------------------------------------------------------
def test_resume_from_a_policy_file_says_to_resume_from_a_checkpoint(tmp_path, capsys):
    policy = policy_copy(tmp_path, "policy.pt")
    code, _, err = run_cli(capsys, "train", "--resume", str(policy))
    line = one_line_error(err)
    assert code == 2
    # no checkpoint.zip beside it: said so, not pointed at (a run's folder holds one)
    assert f"{tmp_path} holds no checkpoint.zip to resume from" in line
    assert f"ppo:{policy}" in line and "beside it" not in line
    (tmp_path / "checkpoint.zip").write_bytes(b"PK")  # a run's folder: pointed at
    code, _, err = run_cli(capsys, "train", "--resume", str(policy))
    assert code == 2 and f"resume from {tmp_path / 'checkpoint.zip'}" in one_line_error(err)


def test_the_ctrl_c_advice_names_the_real_run_folder(tmp_path):
    args = SimpleNamespace(resume=None, out=None)
    cfg = SimpleNamespace(out=str(tmp_path / "run"))
    advice = interrupted_advice(args, cfg)
    assert "<out>" not in advice and str(tmp_path / "run") in advice and "no checkpoint" in advice
    (tmp_path / "run").mkdir()
    (tmp_path / "run" / "checkpoint.zip").write_bytes(b"")
    advice = interrupted_advice(args, cfg)
    assert advice.endswith(f"meduris train --resume {tmp_path / 'run' / 'checkpoint.zip'}")
    resumed = SimpleNamespace(resume=str(tmp_path / "run" / "checkpoint.zip"), out=None)
    assert str(tmp_path / "run" / "checkpoint.zip") in interrupted_advice(resumed, None)


def test_the_readme_says_losers_share_minus_one():
    text = (REPO / "README.md").read_text()
    assert "losers −1" not in text and "losers share −1" in text


# --- make demo, twice ------------------------------------------------------------------------
def demo_command() -> list[str]:
    """The Makefile's demo command (``make -n demo``), its exact flags."""
    lines = subprocess.run(["make", "-n", "demo"], cwd=REPO, capture_output=True, text=True,
                           check=True, timeout=60).stdout.splitlines()
    command = [line for line in lines if "meduris tournament" in line][-1]
    return shlex.split(command)


def test_the_demo_runs_twice_into_the_same_folder(tmp_path):
    """`make demo` itself, twice in a row into the same folder (issue 31: the second run once
    failed on the folder the first had made), small: 12 games (one per lineup) into a temp
    folder through the Makefile's DEMO_GAMES and DEMO_OUT; the flags are the demo's own."""
    argv = demo_command()
    assert "--force" in argv and argv[argv.index("--games") + 1] == "180"
    out = tmp_path / "demo"
    for run in (1, 2):
        done = subprocess.run(["make", "--no-print-directory", "demo", "DEMO_GAMES=12",
                               f"DEMO_OUT={out}"], cwd=REPO, capture_output=True, text=True,
                              timeout=600)
        assert done.returncode == 0, f"run {run}: {done.stdout[-2000:]} {done.stderr[-2000:]}"
        summary = json.loads((out / "summary.json").read_text())
        assert summary["games"] == 12, summary.keys()


@pytest.mark.parametrize("argv", [
    ["play", "--opponents", "ppo:agents/models/ppo_4p.pt", "--players", "2"],
    ["play", "--opponents", "az:5:agents/models/ppo_2p.pt", "--players", "3"],
    ["duel", "ppo:agents/models/ppo_3p.pt", "greedy"],
])
def test_play_and_duel_refuse_another_count_before_any_game(tmp_path, capsys, monkeypatch, argv):
    monkeypatch.chdir(REPO)
    record = tmp_path / "game.json"
    extra = ["--record", str(record)] if argv[0] == "play" else ["--max-games", "2"]
    code, out, err = run_cli(capsys, *argv, *extra)
    assert code == 2 and "-player policy: it cannot play a" in one_line_error(err)
    assert not record.exists() and out == ""

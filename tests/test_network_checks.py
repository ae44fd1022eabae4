"""Policy files checked at load and in play (issue 31): finite weights whose sums overflow are
refused in one line naming the file (at load, by a forward pass on fixed inputs, and in act()
rather than an illegal action); the shipped 2- and 4-player files record their player count; a
file that records none is played with one warning line on stderr, once."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch

from meduris_env import MedurisGame
from meduris_rl.agents.meduris.ppo import PPOAgent, shipped_model
from meduris_rl.agents.policies.network import (
    MAX_OUTPUT,
    PLAYER_WARNINGS,
    PolicyFileError,
    load_policy_file,
    load_value_network,
    save_policy,
)
from meduris_rl.agents.registry import make_agent
from meduris_rl.cli.main import main
from meduris_rl.kit.errors import InputError

REPO = Path(__file__).resolve().parent.parent


def scaled_copy(path: Path, factor: float, value_network: bool = False) -> Path:
    """A copy of the shipped 2-player file with its first layers (or its value network's
    first layer) multiplied by ``factor``: finite weights."""
    doc = torch.load(shipped_model(2), weights_only=True)
    part = doc["value_network"]["state_dict"] if value_network else doc["state_dict"]
    for key in [k for k in part if k.endswith("0.weight")]:
        part[key] = part[key] * factor
        assert torch.isfinite(part[key]).all()
    torch.save(doc, path)
    return path


@pytest.mark.parametrize("factor", [1e38, 1e20])
@pytest.mark.parametrize("agent", ["ppo", "az:20", "az-fast:20", "gumbel:8"])
def test_weights_that_overflow_are_refused_at_load_in_one_line(tmp_path, agent, factor,
                                                               capsys):
    """1e38 overflows to inf; 1e20 stays finite but so large that sb3's mask (-1e8) beats
    every legal logit: each played an illegal action or searched in silence before."""
    big = scaled_copy(tmp_path / "big.pt", factor)
    with pytest.raises(PolicyFileError, match="computes NaN, inf or numbers beyond"):
        load_policy_file(big)
    code = main(["tournament", "--agents", f"random,{agent}:{big}", "--games", "2",
                 "--workers", "1", "--out", str(tmp_path / "o"), "--no-progress"])
    err = capsys.readouterr().err
    assert code == 2 and len(err.strip().splitlines()) == 1, err
    assert str(big) in err and "overflow" in err
    assert not (tmp_path / "o" / "games.csv").exists()


def test_a_value_network_that_overflows_is_refused(tmp_path):
    big = scaled_copy(tmp_path / "v.pt", 1e38, value_network=True)
    load_policy_file(big)  # (the policy itself is sane)
    with pytest.raises(PolicyFileError, match=r"its value network computes NaN"):
        load_value_network(big)


def test_the_shipped_models_pass_the_check_well_within_its_bound():
    from meduris_rl.agents.policies.network import policy_outputs, probe_inputs
    for players in (2, 3, 4):
        policy, _ = load_policy_file(shipped_model(players))
        logits, values = policy_outputs(policy, probe_inputs(policy.observation_space.shape[0]))
        assert np.abs(logits).max() < MAX_OUTPUT / 1000 and np.abs(values).max() < 100


@pytest.mark.parametrize("factor", [1e38, 1e20])
def test_act_names_the_file_when_the_logits_overflow_in_play(factor):
    """A policy whose weights grow after load (a live model, a later edit) meets act()'s own
    guard: one line naming the file, not an illegal action."""
    agent = PPOAgent("ppo", str(shipped_model(2)))
    with torch.no_grad():
        for name, p in agent.policy.named_parameters():
            if name.endswith("mlp.0.weight"):
                p.mul_(factor)
    from meduris_env.envs.observation import observe_state
    state = MedurisGame(2).new_initial_state()
    observation = observe_state(state, state.current_player())
    with pytest.raises(InputError, match="computed NaN, inf or huge logits") as caught:
        agent.act(observation, state)
    assert str(shipped_model(2)) in str(caught.value) and "\n" not in str(caught.value)


@pytest.mark.parametrize("players", [2, 4])
def test_the_shipped_files_record_their_player_count(players, tmp_path, capsys):
    """Recognised by their architecture, not their name: a copy under another name is still
    refused in a game of another count."""
    _, arch = load_policy_file(shipped_model(players))
    assert arch["players"] == players
    mine = tmp_path / "mine.pt"
    mine.write_bytes(shipped_model(players).read_bytes())
    other = 3
    code = main(["tournament", "--agents", f"random,greedy,ppo:{mine}", "--players", str(other),
                 "--games", "1", "--workers", "1", "--out", str(tmp_path / "o"),
                 "--no-progress"])
    err = capsys.readouterr().err
    assert code == 2 and f"is a {players}-player policy" in err, err


def unknown_count_copy(path: Path) -> Path:
    policy, arch = load_policy_file(shipped_model(2))
    arch = {k: v for k, v in arch.items() if k != "players"}
    save_policy(policy, arch, path, value_network=load_value_network(shipped_model(2)))
    return path


def test_a_file_without_a_player_count_warns_once_and_plays(tmp_path):
    """Two entrants of the same file, two worker processes: one warning line on stderr (the
    workers stay quiet), and the games are played."""
    mine = unknown_count_copy(tmp_path / "mine.pt")
    run = subprocess.run(
        [sys.executable, "-m", "meduris_rl.cli", "tournament", "--agents",
         f"random,greedy,ppo:{mine},gumbel:4:{mine}", "--players", "4", "--games", "24",
         "--workers", "2", "--out", str(tmp_path / "o"), "--no-progress"],
        cwd=REPO, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    warnings = [line for line in run.stderr.splitlines() if "warning" in line]
    assert warnings == [f"meduris: warning: {mine} records no player count: nothing checks "
                        "that it was trained for 4 players (policy files of `meduris train` "
                        "record it)"], run.stderr
    assert (tmp_path / "o" / "games.csv").is_file()


def test_the_warning_is_once_per_file_and_absent_for_recorded_counts(tmp_path, capsys,
                                                                      monkeypatch):
    monkeypatch.setitem(PLAYER_WARNINGS, "warned", set())
    monkeypatch.setitem(PLAYER_WARNINGS, "quiet", False)  # (an earlier test of this process
    # may have run an arena worker's initializer here, which quiets it)
    mine = unknown_count_copy(tmp_path / "mine.pt")
    agent = make_agent(f"ppo:{mine}")
    for _ in range(3):
        agent.check_players(3)
    assert capsys.readouterr().err.count("records no player count") == 1
    make_agent(f"ppo:{shipped_model(2)}").check_players(2)
    assert capsys.readouterr().err == ""


# --- files that are no policy files: the reason in the project's words (not torch's) ---------
def not_policy_files(folder: Path) -> dict[str, tuple[Path, str]]:
    import json
    import zipfile

    files = {}
    text = folder / "notes.txt"
    text.write_text("root:x:0:0:root:/root:/bin/bash\n" * 3)
    files["text"] = (text, "not a torch file")
    empty = folder / "empty.pt"
    empty.write_bytes(b"")
    files["empty"] = (empty, "an empty file")
    bare_zip = folder / "bare.pt"
    with zipfile.ZipFile(bare_zip, "w") as zf:
        zf.writestr("readme.txt", "no data.pkl here")
    files["zip without data"] = (bare_zip, "a zip file, but not a whole torch file: damaged, "
                                           "cut short or another kind of zip")
    cut = folder / "cut.pt"
    cut.write_bytes(shipped_model(2).read_bytes()[:5000])
    files["cut short"] = (cut, "a zip file, but not a whole torch file: damaged, cut short or "
                               "another kind of zip")
    doc = folder / "policy.json"
    doc.write_text(json.dumps({"format": "meduris-policy", "version": 1}))
    files["json"] = (doc, "not a torch file")
    pickled = folder / "pickled.pt"
    import pickle
    pickled.write_bytes(pickle.dumps({"format": "meduris-policy"}, protocol=4))
    files["pickle"] = (pickled, "not a torch file")
    code = folder / "code.pt"
    torch.save({"format": "meduris-policy", "payload": ValueError("x")}, code)
    files["code"] = (code, "it holds objects other than tensors and plain values: refused, "
                           "not run")
    return files


@pytest.mark.parametrize("kind", ["text", "empty", "zip without data", "cut short", "json",
                                  "pickle", "code"])
def test_a_file_that_is_no_policy_file_says_why_in_one_line(kind, tmp_path, capsys):
    path, reason = not_policy_files(tmp_path)[kind]
    with pytest.raises(PolicyFileError) as caught:
        load_policy_file(path)
    assert str(caught.value) == f"{path} is not a weights-only policy file ({reason})"
    for name in (f"az:5:{path}", f"ppo:{path}"):
        with pytest.raises(InputError) as caught:
            make_agent(name)
        assert str(caught.value).endswith(f"({reason})") and "\n" not in str(caught.value)
    out = tmp_path / "o"
    code = main(["tournament", "--agents", f"az:5:{path},random", "--games", "1",
                 "--workers", "1", "--out", str(out), "--no-progress"])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and f"({reason})" in err, err
    for torch_words in ("list index out of range", "miniz", "Weights only", "\x1b", "Errno"):
        assert torch_words not in err
    assert not out.exists()


def test_etc_passwd_is_not_a_torch_file(capsys):
    passwd = Path("/etc/passwd")
    if not passwd.is_file():
        pytest.skip("no /etc/passwd here")
    with pytest.raises(InputError, match=r"/etc/passwd is not a weights-only policy file "
                                           r"\(not a torch file\)"):
        make_agent("az:5:/etc/passwd")


# --- distill: the student's player count is checked before any work --------------------------
@pytest.mark.parametrize("teacher", ["greedy", "az:5", "mcts:10"])
@pytest.mark.parametrize("trained,players", [(4, 2), (2, 4), (4, 3)])
def test_distill_refuses_a_student_of_another_player_count_before_any_game(
        teacher, trained, players, tmp_path, capsys, monkeypatch):
    import meduris_rl.train.meduris.distill

    def no_games(*args, **kwargs):
        raise AssertionError("teacher games were played")
    monkeypatch.setattr(meduris_rl.train.meduris.distill, "collect", no_games)
    student = tmp_path / "student.pt"
    student.write_bytes(shipped_model(trained).read_bytes())
    out = tmp_path / "out.pt"
    code = main(["distill", str(student), "--teacher", teacher, "--players", str(players),
                 "--games", "2", "--workers", "1", "--out", str(out), "--no-progress"])
    err = capsys.readouterr().err
    assert code == 2 and err == (f"meduris: error: {student} is a {trained}-player policy: it "
                                 f"cannot play a {players}-player game; use one trained for "
                                 f"{players} players (e.g. agents/models/ppo_{players}p.pt)\n")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["student.pt"]

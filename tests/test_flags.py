"""Every flag of every subcommand does what its help says: each reaches the run's recorded
configuration (summary.json, checkpoint.json, the game record's meta) or its output. A flag
without a case here fails the test, so a new flag comes with its test."""

import argparse
import importlib.util
import json
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from meduris_rl.cli.main import build_parser, main

REPO = Path(__file__).resolve().parent.parent


def meduris(*args, cwd=None, stdin=""):
    return subprocess.run([sys.executable, "-m", "meduris_rl.cli", *args], cwd=cwd or REPO,
                          capture_output=True, text=True, input=stdin, timeout=600)


def meduris_here(capsys, *args) -> subprocess.CompletedProcess:
    """:func:`meduris` in this process (the same ``main``, without a new interpreter importing
    torch again: the long training cases)."""
    capsys.readouterr()
    code = main(list(args))
    out, err = capsys.readouterr()
    return subprocess.CompletedProcess(args, code, out, err)


def flags_of(command: str) -> set[str]:
    sub = next(a for a in build_parser()._actions if a.dest == "command")
    return {opt for a in sub.choices[command]._actions for opt in a.option_strings
            if opt not in ("-h", "--help")} | {a.dest for a in sub.choices[command]._actions
                                               if not a.option_strings}


TESTED = {
    "tournament": {"--agents", "--players", "--games", "--seed", "--workers", "--option",
                   "--backend", "--address", "--out", "--force", "--no-progress",
                   "--save-records", "--move-time", "--game-time",  # (time: test_external.py)
                   "--game",  # (--game: tests/test_druids_tooling.py)
                   "--resume"},  # (its cases: tests/test_arena_faults.py)
    "play": {"--players", "--opponents", "--seat", "--seed", "--option", "--record",
             "--force", "--move-time", "--game-time",
             "--level",  # (its cases: tests/test_levels.py)
             "--game"},  # (--game: tests/test_play_druids.py)
    "replay": {"record", "--html", "--force", "--all"},
    "train": {"--config", "--game",  # (--game: tests/test_druids_ppo.py)
              "--option",  # (its cases: tests/test_train_options.py)
              "--players", "--steps", "--envs", "--threads", "--seed", "--features",
              "--reward", "--shaping", "--bc-teacher", "--bc-games", "--eval-every",
              "--eval-games",
              "--best-against", "--best-against-games", "--checkpoint-every",
              "--snapshot-every", "--n-steps", "--batch-size", "--n-epochs", "--learning-rate",
              "--value-positions", "--value-epochs", "--out", "--force", "--resume",
              "--no-progress"},
    "serve": {"--host", "--port", "--db",
              "--max-running",  # (its cases: tests/test_web_hardening.py)
              "--thinkers",  # (its cases: tests/test_web_live.py)
              "--allow-host",  # (its cases: tests/test_web_round_two.py)
              "--game"},  # (its cases: tests/test_toy_game.py)
    "agents": {"--json", "--game"},  # (--game: tests/test_druids_tooling.py)
    "az-train": {"--players", "--games", "--simulations", "--max-considered", "--moves",
                 "--buffer", "--batch-size", "--learning-rate", "--train-every", "--epochs",
                 "--warm-start", "--eval-every", "--eval-games", "--seed", "--threads", "--out",
                 "--force", "--resume", "--no-progress", "--greedy-share", "--eval-against",
                 "--eval-ppo", "--min-span", "--value-positions"},
    # (its cases: tests/test_az_train.py)
    "duel": {"a", "b", "--elo0", "--elo1", "--alpha", "--beta", "--max-games", "--workers",
             "--seed", "--players", "--option", "--move-time", "--game-time", "--json",
             "--no-progress",
             "--game"},  # (its cases: tests/test_duel.py; --game: tests/test_druids_tooling.py)
}

# meduris ladder's subcommands (their cases: tests/test_ladder.py; --game:
# tests/test_ladder_druids.py; show's --png and --force: below)
LADDER = {
    "add": {"agent", "--db", "--game", "--games", "--players", "--workers", "--seed",
            "--move-time", "--game-time", "--no-progress"},
    "anchors": {"--db", "--game", "--games", "--players", "--workers", "--seed", "--anchors",
                "--move-time", "--game-time", "--no-progress"},
    "show": {"--db", "--game", "--players", "--free-anchors", "--json", "--png", "--force"},
    "list": {"--db", "--game"},
    "remove": {"agent", "--db", "--game", "--players"},
}


def ladder_parsers() -> dict[str, argparse.ArgumentParser]:
    sub = next(a for a in build_parser()._actions if a.dest == "command")
    return next(a for a in sub.choices["ladder"]._actions
                if a.dest == "ladder_command").choices


@pytest.mark.parametrize("command", sorted(TESTED))
def test_every_flag_has_a_case_here(command):
    assert flags_of(command) == TESTED[command]


@pytest.mark.parametrize("command", sorted(LADDER))
def test_every_ladder_flag_has_a_case_here(command):
    parser = ladder_parsers()[command]
    assert {opt for a in parser._actions for opt in a.option_strings
            if opt not in ("-h", "--help")} | {a.dest for a in parser._actions
                                               if not a.option_strings} == LADDER[command]


@pytest.mark.parametrize("command", sorted(TESTED) + [f"ladder {c}" for c in sorted(LADDER)])
def test_help_shows_every_default(command):
    """Every option that has a default shows it in --help (train's are its configuration's)."""
    from meduris_rl.train.config import TrainConfig

    sub = next(a for a in build_parser()._actions if a.dest == "command")
    parser = (ladder_parsers()[command.split()[1]] if command.startswith("ladder ") else
              sub.choices[command])
    text = " ".join(parser.format_help().split())
    shown = 0
    for action in parser._actions:
        if not action.option_strings or action.help == argparse.SUPPRESS:
            continue
        default = action.default
        if command == "train" and default is None and action.dest != "config" and hasattr(
                TrainConfig, action.dest):
            default = getattr(TrainConfig(), action.dest)
            default = "none" if default is None else default
        if default in (None, False, argparse.SUPPRESS):
            continue
        help_text = " ".join(action.help.split())
        assert help_text[:40] in text and "default" in text[text.index(help_text[:40]):][
            :len(help_text) + 60], (command, action.option_strings)
        shown += 1
    assert shown >= {"train": 17, "tournament": 5, "replay": 0, "agents": 0,
                     "ladder show": 0, "ladder list": 0}.get(command, 1)


def test_version():
    from importlib.metadata import version

    run = meduris("--version")
    assert run.returncode == 0 and run.stdout.strip() == f"meduris {version('meduris-rl')}"


def test_tournament_flags(tmp_path):
    out = tmp_path / "t"
    run = meduris("tournament", "--agents", "random,greedy,mcts:5", "--players", "3", "--games",
                  "7", "--seed", "11", "--workers", "1", "--option", "exchange=manual", "--backend",
                  "process", "--out", str(out), "--no-progress", "--save-records", "0,2")
    assert run.returncode == 0, run.stderr
    cfg = json.loads((out / "summary.json").read_text())["config"]
    assert cfg["agents"] == ["random", "greedy", "mcts:5"] and cfg["players"] == 3
    assert cfg["seed"] == 11 and cfg["workers"] == 1 and cfg["options"] == {"exchange": "manual"}
    assert cfg["backend"] == "process" and cfg["save_records"] == "0,2"
    assert json.loads((out / "summary.json").read_text())["games"] == 12  # 7: 2 x 6 lineups
    assert sorted(p.name for p in (out / "records").iterdir()) == ["game-00000.json",
                                                                   "game-00002.json"]
    assert "games:" not in run.stderr  # --no-progress: no bar
    with_bar = meduris("tournament", "--agents", "random,greedy", "--games", "2", "--out",
                       str(out), "--force", "--workers", "1")
    assert with_bar.returncode == 0 and "games:" in with_bar.stderr  # the bar, and --force
    assert not (out / "records").exists()  # the earlier run's records went with --force
    capped = meduris("tournament", "--agents", "random,greedy", "--games", "2", "--out",
                     str(tmp_path / "c"), "--workers", "64", "--no-progress")
    assert "--workers 64 capped to" in capped.stderr
    assert json.loads((tmp_path / "c" / "summary.json").read_text())["config"]["workers"] <= 2
    ray = meduris("tournament", "--agents", "random,greedy", "--games", "2", "--out",
                  str(tmp_path / "r"), "--backend", "ray", "--address", "127.0.0.1:9")
    line, = ray.stderr.strip().splitlines()  # one line, naming the fix
    assert ray.returncode == 2 and line.startswith("meduris: error: ")
    if importlib.util.find_spec("ray") is None:  # (this environment has no Ray)
        assert "needs Ray: install the extra with pip install -e '.[ray]'" in line
    else:
        assert "cannot reach a Ray cluster at 127.0.0.1:9" in line and "ray start" in line
    assert not (tmp_path / "r").exists()
    lone = meduris("tournament", "--agents", "random,greedy", "--address", "127.0.0.1:9",
                   "--out", str(tmp_path / "r"))
    assert lone.returncode == 2 and "--address" in lone.stderr and "--backend ray" in lone.stderr


def test_play_flags(tmp_path):
    record = tmp_path / "me.json"
    run = meduris("play", "--players", "3", "--opponents", "random,greedy", "--seat", "1",
                  "--seed", "9", "--option", "exchange=manual", "--record", str(record),
                  "--option", "open_screens=true", stdin="quit\n")
    assert run.returncode == 0, run.stderr
    doc = json.loads(record.read_text())
    assert doc["agents"] == ["random", "human", "greedy"] and doc["meta"]["run_seed"] == 9
    assert doc["game"]["num_players"] == 3 and doc["game"]["exchange"] == "manual"
    assert doc["meta"]["human_seat"] == 1 and doc["meta"]["open_screens"] is True
    assert "behind the screen" not in run.stdout.split("The screens are lifted")[0]
    again = meduris("play", "--opponents", "random", "--record", str(record), stdin="quit\n")
    assert again.returncode == 2 and "add --force" in again.stderr
    forced = meduris("play", "--opponents", "random", "--record", str(record), "--force",
                     "--seed", "3", stdin="quit\n")
    assert forced.returncode == 0 and json.loads(record.read_text())["meta"]["run_seed"] == 3
    hidden = meduris("play", "--opponents", "random", "--record", str(tmp_path / "h.json"),
                     stdin="quit\n")
    assert "behind the screen" in hidden.stdout  # without --open-screens


def test_replay_flags(tmp_path):
    record = tmp_path / "g.json"
    assert meduris("play", "--opponents", "random", "--record", str(record),
                   stdin="quit\n").returncode == 0
    whole = meduris("replay", str(record), "--all")
    assert whole.returncode == 0 and "replayed exactly" in whole.stdout
    page = tmp_path / "g.html"
    assert meduris("replay", str(record), "--html", str(page)).returncode == 0
    assert "MedurisBoard" in page.read_text()
    assert meduris("replay", str(record), "--html", str(page)).returncode == 2
    assert meduris("replay", str(record), "--html", str(page), "--force").returncode == 0


def test_train_flags(tmp_path, capsys):
    out = tmp_path / "run"
    config = tmp_path / "c.yaml"
    config.write_text("max_snapshots: 3\nnet_arch: [16]\nthreads: 2\n")
    args = ["train", "--config", str(config), "--players", "3", "--steps", "96", "--envs", "8",
            "--threads", "1", "--seed", "4", "--features", "obs", "--reward", "dense",
            "--shaping", "0.5",
            "--bc-teacher", "random", "--bc-games", "1", "--eval-every", "48", "--eval-games",
            "3", "--best-against", "greedy", "--best-against-games", "5",
            "--checkpoint-every", "48", "--snapshot-every", "48", "--n-steps", "6",
            "--batch-size", "24", "--n-epochs", "1", "--learning-rate", "0.0003",
            "--value-positions", "150", "--value-epochs", "2", "--out", str(out),
            "--no-progress"]
    run = meduris_here(capsys, *args, "--config", str(config))
    assert run.returncode == 2 and "policy 'residual'" in run.stderr  # obs needs policy mlp
    config.write_text("max_snapshots: 3\nnet_arch: [16]\nthreads: 2\npolicy: mlp\n")
    run = meduris_here(capsys, *args)
    assert run.returncode == 0, run.stderr
    cfg = json.loads((out / "checkpoint.json").read_text())["config"]
    expect = {"players": 3, "envs": 8, "threads": 1, "seed": 4, "features": "obs",
              "reward": "dense", "shaping": 0.5, "bc_teacher": "random", "bc_games": 1,
              "eval_every": 48,
              "eval_games": 3, "checkpoint_every": 48, "snapshot_every": 48, "n_steps": 6,
              "batch_size": 24, "n_epochs": 1, "learning_rate": 0.0003, "out": str(out),
              "max_snapshots": 3, "net_arch": [16], "policy": "mlp", "steps": 96,
              "value_positions": 150, "value_epochs": 2, "best_against": "greedy",
              "best_against_games": 5}
    assert {k: cfg[k] for k in expect} == expect  # flags win over the file, the file fills in
    assert "evaluation at 48 steps" in run.stderr and "PPO steps" not in run.stderr
    assert f"play it: meduris tournament --agents ppo:{out}/policy.pt,greedy" in run.stdout
    from meduris_rl.agents.policies.network import load_value_network
    run_state = json.loads((out / "checkpoint.json").read_text())
    assert run_state["value_network"]["epochs"] == 2  # --value-epochs reached the fit
    assert run_state["value_network"]["positions"] == 150 and "value network for best.pt" in \
        run.stderr and load_value_network(out / "best.pt") is not None
    assert meduris_here(capsys, *args).returncode == 2  # the run is there: refused, no --force
    # --resume: the run's own settings, in its own folder; only RESUMABLE ones may change,
    # another value of any other is refused before anything is written
    ckpt = str(out / "checkpoint.zip")
    saved = {p.name: p.read_bytes() for p in out.iterdir() if p.is_file()}
    for flags, needle in ((["--learning-rate", "0.001"], "learning_rate: 0.001 given"),
                          (["--players", "2"], "players: 2 given"),
                          (["--config", str(config), "--n-steps", "7"], "n_steps: 7 given"),
                          (["--out", str(tmp_path / "elsewhere")], "stays in its own folder")):
        code = main(["train", "--steps", "144", *flags, "--resume", ckpt, "--no-progress"])
        err = capsys.readouterr().err
        assert code == 2 and needle in err and err.count("\n") == 1, err
        assert not (tmp_path / "elsewhere").exists()
        assert {p.name: p.read_bytes() for p in out.iterdir() if p.is_file()} == saved
    longer = meduris_here(capsys, "train", "--steps", "144", "--eval-every", "24", "--config",
                          str(config), "--players", "3", "--resume", ckpt, "--no-progress")
    assert longer.returncode == 0, longer.stderr
    resumed = json.loads((out / "checkpoint.json").read_text())
    assert resumed["timesteps"] >= 144
    # (threads is one of the settings a resumed run may change: the file's 2 applies now)
    assert {k: resumed["config"][k] for k in expect} == {**expect, "steps": 144, "eval_every": 24,
                                                         "threads": 2}
    assert "evaluation at 120 steps" in longer.stderr  # 96 + 24: the new interval took effect
    forced = meduris_here(capsys, *args, "--force")
    assert forced.returncode == 0 and json.loads(
        (out / "checkpoint.json").read_text())["timesteps"] < 144


def test_agents_flags():
    from meduris_rl.agents.registry import kinds

    text = meduris("agents")
    assert text.returncode == 0 and text.stdout.splitlines()[0].startswith("agent")
    as_json = meduris("agents", "--json")
    assert as_json.returncode == 0
    assert [r["name"] for r in json.loads(as_json.stdout)["agents"]] == [k.name for k in kinds()]


def test_serve_flags(tmp_path):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    db = tmp_path / "games.sqlite"
    server = subprocess.Popen([sys.executable, "-m", "meduris_rl.cli", "serve", "--host",
                               "127.0.0.1", "--port", str(port), "--db", str(db)], cwd=REPO,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        # (the page answers at once, its thinking workers warming meanwhile: issue 47; the
        # bound of 180 s is for a loaded machine's start)
        deadline = time.monotonic() + 180
        while time.monotonic() < deadline and server.poll() is None:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=2) as page:
                    assert page.status == 200
                    break
            except OSError:
                time.sleep(0.2)
        else:
            raise AssertionError(server.stderr.read().decode() if server.poll() else "no answer")
        assert db.exists()
    finally:
        server.terminate()
        server.wait(timeout=30)


def test_ladder_show_png_and_force(tmp_path, capsys):
    from meduris_rl.agents.arena.ladder import ladder_of
    SHIPPED = ladder_of().shipped

    png = tmp_path / "ladder.png"
    args = ["ladder", "show", "--db", str(SHIPPED), "--png", str(png)]
    assert meduris_here(capsys, *args).returncode == 0 and png.read_bytes()[:4] == b"\x89PNG"
    png.write_bytes(b"mine")
    again = meduris_here(capsys, *args)
    assert again.returncode == 2 and "--force" in again.stderr and png.read_bytes() == b"mine"
    assert meduris_here(capsys, *args, "--force").returncode == 0
    assert png.read_bytes()[:4] == b"\x89PNG"

"""The trainers take the game's own options (issue 44): ``meduris train --option NAME=VALUE``
(or ``options:`` in the YAML file) reaches every game of the run, the learner's, the
evaluations' and the warm start's, through the game's row; a resumed run keeps its own; a bad
option is one line. Tiny runs only (the trainers' learning is tested elsewhere)."""

import json

import pytest
from helpers import run_cli

from meduris_rl.kit.games import GameSpec
from meduris_rl.train.config import ConfigError, TrainConfig, load_config

TINY = ("--players", "2", "--steps", "256", "--envs", "2", "--n-steps", "64", "--batch-size",
        "128", "--eval-every", "256", "--eval-games", "2", "--snapshot-every", "128",
        "--checkpoint-every", "256", "--no-progress")


def tiny_run(capsys, tmp_path, name, *extra):
    config = tmp_path / "tiny.yaml"
    config.write_text("net_arch: [16]\nthreads: 1\n")
    out = tmp_path / name
    code, stdout, stderr = run_cli(capsys, "train", "--config", str(config), *TINY,
                                   "--out", str(out), *extra)
    return code, stdout, stderr, out


def test_a_druids_run_plays_every_game_with_its_options(capsys, tmp_path, monkeypatch):
    """Every Druids game the run makes (the learner's vector, the evaluations) is made by the
    row with the given options; the run state and the printed command keep them."""
    made = []
    make = GameSpec.make

    def spy(self, players, options=None):
        made.append((self.name, dict(options or {})))
        return make(self, players, options)

    monkeypatch.setattr(GameSpec, "make", spy)
    code, stdout, stderr, out = tiny_run(capsys, tmp_path, "a", "--game", "druids",
                                         "--option", "circles=3", "--option", "max_turns=400")
    assert code == 0, stderr[-2000:]
    druids = [options for name, options in made if name == "druids"]
    assert len(druids) >= 3  # the 2 learner games, the evaluation's game
    assert all(options == {"circles": 3, "max_turns": 400} for options in druids), druids
    state = json.loads((out / "checkpoint.json").read_text())
    assert state["config"]["options"] == {"circles": 3, "max_turns": 400}
    assert "--game druids --option circles=3 --option max_turns=400 --agents ppo:" in stdout
    # a resumed run keeps its own options: another value is refused before any work
    code, _, err = run_cli(capsys, "train", "--resume", str(out / "checkpoint.zip"),
                           "--option", "circles=4", "--steps", "512", "--no-progress")
    assert code == 2 and "options:" in err and "a resumed run keeps its own" in err
    assert len(err.strip().splitlines()) == 1
    # and the zip records them: an edited run state is refused
    state["config"]["options"] = {"circles": 5}
    (out / "checkpoint.json").write_text(json.dumps(state))
    code, _, err = run_cli(capsys, "train", "--resume", str(out / "checkpoint.zip"),
                           "--steps", "512", "--no-progress")
    assert code == 2 and "was trained with options" in err, err


def test_the_meduris_batch_trainer_and_its_warm_start_play_the_options():
    """Meduris's batch engine (the learner's games) and the warm start's teacher games take the
    options: manual exchanges (R15) and a turn limit."""
    from meduris_rl.train.meduris.league import TrainingEnv
    from meduris_rl.train.meduris.warm_start import teacher_game

    cfg = TrainConfig(game="meduris", envs=2, options={"exchange": "manual",
                                                       "max_turns": 300}).validate()
    env = TrainingEnv(cfg)
    assert env.vector.batch.game.exchange == "manual"
    assert env.vector.batch.game.max_turns == 300
    env.close()
    short = teacher_game(("greedy", 2, "obs", 5, {"max_turns": 6}))
    whole = teacher_game(("greedy", 2, "obs", 5, {}))
    assert 0 < len(short[2]) < len(whole[2])  # the limit cut the teacher's game short


def test_a_stone_age_run_learns_the_mammoth_herd_when_asked():
    from meduris_rl.train.stone_age.league import StoneAgeTrainingEnv

    cfg = TrainConfig(game="stone_age", envs=2, net_arch=[16], options={"mammoth_herd": "on"})
    env = StoneAgeTrainingEnv(cfg.validate())
    assert cfg.options == {"mammoth_herd": True}
    assert all(e.inner.game.mammoth_herd for e in env.envs)
    plain = StoneAgeTrainingEnv(TrainConfig(game="stone_age", envs=1, net_arch=[16]).validate())
    assert not plain.envs[0].inner.game.mammoth_herd


def test_options_in_the_yaml_file_join_the_flags(tmp_path):
    config = tmp_path / "c.yaml"
    config.write_text("game: druids\noptions:\n  circles: 4\n  max_turns: 300\n")
    cfg = load_config(config, {"options": {"max_turns": "200"}})
    assert cfg.options == {"circles": 4, "max_turns": 200}


@pytest.mark.parametrize("extra, says", [
    (("--option", "circles"), "--option 'circles': write --option NAME=VALUE"),
    (("--option", "circles=3", "--option", "circles=4"), "--option circles is given twice"),
    (("--option", "exchange=manual"), "option 'exchange': Druids has no such option"),
    (("--option", "circles=many"), "option circles must be a whole number"),
    (("--option", "circles=0"), "option circles"),
])
def test_a_bad_option_is_one_line_before_any_work(capsys, tmp_path, extra, says):
    code, _, err, out = tiny_run(capsys, tmp_path, "x", "--game", "druids", *extra)
    assert code == 2 and says in err, err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert not (out / "checkpoint.zip").exists()


@pytest.mark.parametrize("game, example", [
    ("stone_age", "(e.g. mammoth_herd=False)"), ("meduris", "(e.g. exchange=auto)"),
])
def test_a_malformed_option_shows_an_option_of_the_run_s_game(capsys, tmp_path, game, example):
    code, _, err, _ = tiny_run(capsys, tmp_path, "x", "--game", game, "--option", "oops")
    assert code == 2 and err.strip() == f"meduris: error: --option 'oops': write --option " \
                                        f"NAME=VALUE {example}", err


def test_one_reader_reads_the_command_line_s_and_the_file_s_option_texts():
    """``GameSpec.read_options`` is the one reader: ``--option`` pairs (parse_options) and the
    YAML file's texts (the trainer) give the same values and the same refusals."""
    from meduris_rl.kit.games import game_spec
    row = game_spec("stone_age")
    assert row.parse_options(["mammoth_herd=on", "max_rounds=40"]) == row.read_options(
        {"mammoth_herd": "on", "max_rounds": "40"}) == {"mammoth_herd": True, "max_rounds": 40}
    assert row.read_options({"mammoth_herd": True}) == {"mammoth_herd": True}  # (not a text)
    with pytest.raises(ConfigError, match="^--x mammoth_herd: option mammoth_herd"):
        row.read_options({"mammoth_herd": "maybe"}, ConfigError, flag="--x")


def test_a_seat_option_and_a_value_network_with_options_are_refused():
    with pytest.raises(ConfigError, match="open_screens: it is the person's seat's"):
        load_config(None, {"options": {"open_screens": "true"}})
    with pytest.raises(ConfigError, match="value_positions: 10 fits a value network to games "
                                          "of the default options"):
        load_config(None, {"options": {"exchange": "manual"}, "value_positions": 10})
    with pytest.raises(ConfigError, match="options: \\[1\\] is not dict"):
        load_config(None, {"options": [1]})

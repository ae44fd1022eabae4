"""Training settings that pass every range check but cannot run on this machine (issue 46:
65,536 games x 100,000 steps of rollout, 5.75 TiB; 250 layers of 4,096 units) are refused
before anything is allocated, in one line naming what is too big and the fix."""

from pathlib import Path

from meduris_rl.cli import main
from meduris_rl.train.config import MEMORY_SHARE, TrainConfig, check_memory, machine_memory


def test_a_rollout_buffer_beyond_the_machines_memory_is_refused_in_one_line(tmp_path, capsys):
    code = main(["train", "--envs", "65536", "--n-steps", "100000", "--out",
                 str(tmp_path / "run"), "--no-progress"])
    err = capsys.readouterr().err
    assert code == 2 and len(err.strip().splitlines()) == 1
    assert "most for the rollout buffer (envs 65536 x n_steps 100000)" in err and "TiB" in err
    assert not (tmp_path / "run").exists()


def test_a_network_beyond_the_machines_memory_is_refused(tmp_path, capsys):
    yaml = tmp_path / "big.yaml"
    yaml.write_text("policy: mlp\nfeatures: obs\nnet_arch: [" + ", ".join(["4096"] * 250) + "]\n")
    code = main(["train", "--config", str(yaml), "--out", str(tmp_path / "run"),
                 "--no-progress"])
    err = capsys.readouterr().err
    assert code == 2 and "most for the network (net_arch, " in err


def test_the_shipped_settings_fit_and_the_bound_is_the_machines():
    check_memory(TrainConfig(), 1711, 241)  # (the defaults: a few hundred MB)
    fits = int(MEMORY_SHARE * machine_memory() / (4 * (1711 + 241) + 64) / 64 * 0.9)
    check_memory(TrainConfig(envs=max(1, fits), n_steps=64, net_arch=[16]), 1711, 241)


def test_az_train_warm_started_from_another_games_policy_is_refused(tmp_path, capsys):
    druids = Path(__file__).resolve().parent.parent / "agents" / "models" / "druids_ppo_2p.pt"
    code = main(["az-train", "--warm-start", str(druids), "--out",
                 str(tmp_path / "az"), "--no-progress"])
    err = capsys.readouterr().err
    assert code == 2 and len(err.strip().splitlines()) == 1
    assert "is a policy of druids (1281 inputs, 424 actions), not of Meduris" in err


def test_az_train_settings_beyond_the_machines_memory_are_refused_in_one_line(tmp_path, capsys,
                                                                               monkeypatch):
    """az-train's replay buffer and search positions (issue 46's audit: 10,000,000 positions
    and 65,536 games of 1,024 simulations passed the range checks, then ran out of memory).
    (On a machine of 24 GiB, as the project's: a larger one would fit the first.)"""
    import meduris_rl.train.meduris.az as az
    monkeypatch.setattr(az, "machine_memory", lambda: 24 << 30)
    for flags, most in ((["--buffer", "10000000", "--batch-size", "256"], "the replay buffer"),
                        (["--games", "65536", "--simulations", "1024"], "the search's positions")):
        out = tmp_path / "az"
        code = main(["az-train", *flags, "--warm-start", "none", "--out", str(out),
                     "--no-progress"])
        err = capsys.readouterr().err
        assert code == 2 and len(err.strip().splitlines()) == 1, err
        assert f"most for {most}" in err and "this machine has" in err
        assert not out.exists()
    from meduris_rl.train.meduris.az import AZConfig
    AZConfig().check_memory()  # the shipped recipe's settings fit

"""Training resume: a checkpoint.zip is resumed only with the checkpoint.json written with it.

Each mismatch (another run's json, a zip of the same run at another step, a cut-short zip, an
old-style json whose step count disagrees) is one line on stderr, exit status 2, and every file
of the run folder is left byte for byte as it was. And ``--steps`` not a whole number of
rollouts is said, rounded up, before training, with the progress bar sized to the rounded total.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from meduris_rl.cli.main import main
from meduris_rl.train.config import load_config
from meduris_rl.train.run import (
    CheckpointError,
    checkpoint_state,
    planned_steps,
    rounding_note,
    train,
)

# 4 games x 16 steps: a rollout of 64 steps; tiny everything else
TINY = dict(envs=4, n_steps=16, batch_size=64, n_epochs=1, eval_every=10**6, eval_games=2,
            checkpoint_every=64, snapshot_every=10**6, bc_teacher=None, net_arch=[8], threads=1)


def tiny_run(folder: Path, steps: int, seed: int = 0, resume: str | None = None) -> Path:
    cfg = load_config(None, dict(TINY, steps=steps, seed=seed, out=str(folder)))
    train(cfg, resume=resume, progress=False)
    return folder


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """Run A at 64 steps (its pair kept), A resumed to 128, run B (another seed) at 64."""
    base = tmp_path_factory.mktemp("runs")
    a = tiny_run(base / "a", 64)
    shutil.copytree(a, base / "a64")
    tiny_run(a, 128, resume=str(a / "checkpoint.zip"))
    b = tiny_run(base / "b", 64, seed=1)
    return {"a64": base / "a64", "a128": a, "b": b}


def snapshot(folder: Path) -> dict:
    return {p.relative_to(folder): (p.read_bytes() if p.is_file() else None)
            for p in sorted(folder.rglob("*"))}


def resume_in_cli(folder: Path, capsys) -> tuple[int, str]:
    code = main(["train", "--resume", str(folder / "checkpoint.zip"), "--no-progress"])
    return code, capsys.readouterr().err


def mixed(tmp_path: Path, zip_from: Path, json_from: Path) -> Path:
    folder = tmp_path / "mixed"
    shutil.copytree(json_from, folder)
    shutil.copy(zip_from / "checkpoint.zip", folder / "checkpoint.zip")
    return folder


def test_a_whole_pair_names_its_zip_and_is_accepted(runs):
    for name in runs:
        meta = checkpoint_state(runs[name] / "checkpoint.zip")
        assert meta["checkpoint"]["timesteps"] == meta["timesteps"]
    assert checkpoint_state(runs["a128"] / "checkpoint.zip")["timesteps"] == 128


@pytest.mark.parametrize("zip_from,json_from,needle", [
    ("b", "a64", "is not the checkpoint checkpoint.json was written with (that one: 64 steps; "
     "this one: 64)"),
    ("a64", "a128", "(that one: 128 steps; this one: 64)"),
    ("a128", "a64", "(that one: 64 steps; this one: 128)"),
])
def test_a_zip_from_another_run_or_step_is_refused_in_one_line_changing_nothing(
        runs, tmp_path, capsys, zip_from, json_from, needle):
    folder = mixed(tmp_path, runs[zip_from], runs[json_from])
    before = snapshot(folder)
    code, err = resume_in_cli(folder, capsys)
    assert code == 2 and err.startswith("meduris: error: ") and err.count("\n") == 1
    assert needle in err and "Traceback" not in err
    assert snapshot(folder) == before


@pytest.mark.parametrize("keep", [0, 100, 0.5, -10])
def test_a_cut_short_zip_is_refused_in_one_line_changing_nothing(runs, tmp_path, capsys, keep):
    folder = tmp_path / "cut"
    shutil.copytree(runs["a64"], folder)
    data = (folder / "checkpoint.zip").read_bytes()
    end = int(len(data) * keep) if isinstance(keep, float) else keep % len(data)
    (folder / "checkpoint.zip").write_bytes(data[:end])
    before = snapshot(folder)
    code, err = resume_in_cli(folder, capsys)
    assert code == 2 and err.count("\n") == 1 and "Traceback" not in err
    assert "as a MaskablePPO checkpoint (not a whole zip file" in err
    assert snapshot(folder) == before


def test_an_old_json_without_the_field_is_checked_by_its_step_count(runs, tmp_path, capsys):
    """Decided: a checkpoint.json of before the field is accepted when its step count is the
    zip's (sb3's own, read from the zip's data without unpickling), else refused."""
    folder = tmp_path / "old"
    shutil.copytree(runs["a64"], folder)
    meta = json.loads((folder / "checkpoint.json").read_text())
    del meta["checkpoint"]
    (folder / "checkpoint.json").write_text(json.dumps(meta))
    assert checkpoint_state(folder / "checkpoint.zip")["timesteps"] == 64
    shutil.copy(runs["a128"] / "checkpoint.zip", folder / "checkpoint.zip")
    before = snapshot(folder)
    code, err = resume_in_cli(folder, capsys)
    assert code == 2 and err.count("\n") == 1
    assert "holds 128 steps but checkpoint.json says 64" in err
    assert snapshot(folder) == before


@pytest.mark.parametrize("field", [[], "x", {"sha256": 5}, {"timesteps": 64}])
def test_a_malformed_checkpoint_field_is_one_line(runs, tmp_path, field):
    folder = tmp_path / "bad"
    shutil.copytree(runs["a64"], folder)
    meta = json.loads((folder / "checkpoint.json").read_text())
    meta["checkpoint"] = field
    (folder / "checkpoint.json").write_text(json.dumps(meta))
    with pytest.raises(CheckpointError, match="is not a digest and a step count") as err:
        checkpoint_state(folder / "checkpoint.zip")
    assert "\n" not in str(err.value)


@pytest.mark.parametrize("steps,envs,n_steps,done,total", [
    (2048, 16, 1024, 0, 16384), (100, 4, 16, 0, 128), (128, 4, 16, 0, 128),
    (1, 1, 1, 0, 1), (200, 4, 16, 128, 256), (100, 4, 16, 128, 128)])
def test_planned_steps_are_whole_rollouts(steps, envs, n_steps, done, total):
    cfg = load_config(None, dict(steps=steps, envs=envs, n_steps=n_steps, batch_size=1))
    assert planned_steps(cfg, done) == total
    note = rounding_note(cfg, done)
    assert (note is None) == (total <= max(steps, done))
    if steps == 2048:
        assert note == ("note: 2048 steps rounded up to 16384 (whole rollouts of 16 envs x "
                        "1024 steps)")


def test_the_rounding_is_said_before_training_and_the_bar_counts_to_it(tmp_path, capsys,
                                                                       monkeypatch):
    import meduris_rl.train.run as run_module
    bars = []

    def recording_bar(total, desc, enabled, notice=None):
        made = real_bar(total, desc, enabled, notice)
        bars.append((made, notice))
        return made

    real_bar = run_module.bar
    monkeypatch.setattr(run_module, "bar", recording_bar)
    config = tmp_path / "tiny.yaml"
    config.write_text("".join(f"{k}: {json.dumps(v)}\n" for k, v in TINY.items()))
    code = main(["train", "--config", str(config), "--steps", "100",
                 "--out", str(tmp_path / "run")])
    err = capsys.readouterr().err
    assert code == 0
    lines = [line for line in err.replace("\r", "\n").splitlines() if line.strip()]
    assert lines[0] == "note: 100 steps rounded up to 128 (whole rollouts of 4 envs x 16 steps)"
    ppo = [b for b, _ in bars if b.desc == "PPO steps"]
    assert len(ppo) == 1 and ppo[0].total == 128 and ppo[0].n == 128
    # (the shared trainer's bar says the game's own compile notice: the row's, not Meduris's)
    from meduris_rl.kit.games import game_spec
    assert [n for b, n in bars if b.desc == "PPO steps"] == [game_spec(None).compile_notice]
    assert "128/128" in err and "/100" not in err
    assert json.loads((tmp_path / "run" / "checkpoint.json").read_text())["timesteps"] == 128

"""Ctrl-C: a command stops with exit status 130 and one line saying what was kept, its worker
processes stop with it, and nothing it was about to write is left half-made (an earlier result
in the same place stays byte-identical).

Ctrl-C in a terminal sends SIGINT to the whole foreground process group (the command and its
workers); the tests do the same with ``os.killpg`` on a command started in its own session."""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest

REPO = Path(__file__).resolve().parent.parent


def start(*args) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "meduris_rl.cli", *args], cwd=REPO,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)


def interrupt_when(proc: subprocess.Popen, ready, timeout: float = 240,
                   poll: float = 0.2) -> tuple[int, str, list]:
    """Wait until ``ready()`` (the command is at work), press Ctrl-C, and return the exit
    status, stderr and the command's child processes that were alive before the signal."""
    deadline = time.monotonic() + timeout
    while not ready():
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, "the command never got to work"
        time.sleep(poll)
    children = psutil.Process(proc.pid).children(recursive=True)
    os.killpg(proc.pid, signal.SIGINT)
    try:
        proc.stdout_text, err = proc.communicate(timeout=60)  # (stdout kept for the caller)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        pytest.fail("the command did not stop within 60 s of Ctrl-C")
    return proc.returncode, err, children


def assert_stopped(children: list) -> None:
    gone, alive = psutil.wait_procs(children, timeout=30)
    assert not alive, f"worker processes left running: {alive}"


@pytest.mark.parametrize("processes", [1, 3], ids=["while-workers-start", "while-playing"])
def test_ctrl_c_stops_a_tournament_and_its_workers_and_keeps_the_earlier_results(tmp_path,
                                                                                 processes):
    out = tmp_path / "results"
    out.mkdir()
    (out / "games.csv").write_text("an earlier tournament's games\n")
    (out / "summary.json").write_text('{"earlier": true}\n')
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    proc = start("tournament", "--agents", "mcts:300,mcts:300", "--games", "40", "--workers",
                 "2", "--out", str(out), "--force")

    # 1: the resource tracker is up and the pool is being made (the workers mid-start must not
    # print a traceback, nor the progress bar come back after the last line); 3: it and both
    # workers are up
    def playing() -> bool:
        return len(psutil.Process(proc.pid).children(recursive=True)) >= processes

    code, err, children = interrupt_when(proc, playing, poll=0.005)
    lines = err.strip().splitlines()
    assert code == 130, (code, err)
    assert lines[-1] == "meduris: interrupted; nothing was written", err
    assert "Traceback" not in err
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before
    assert_stopped(children)


def test_ctrl_c_stops_training_with_130_and_names_the_checkpoint(tmp_path):
    out = tmp_path / "run"
    proc = start("train", "--players", "2", "--steps", "100000000", "--envs", "16",
                 "--threads", "1", "--eval-every", "256", "--eval-games", "4",
                 "--checkpoint-every", "256", "--snapshot-every", "100000", "--n-steps", "16",
                 "--batch-size", "64", "--out", str(out), "--no-progress")
    code, err, children = interrupt_when(proc, lambda: (out / "checkpoint.json").exists())
    assert code == 130, err
    assert "Traceback" not in err
    last = err.strip().splitlines()[-1]
    resume = f"meduris train --resume {out / 'checkpoint.zip'}"
    assert last == f"meduris: interrupted; continue from the last checkpoint with: {resume}"
    assert (out / "checkpoint.zip").is_file()  # what it names is there
    assert not list(out.glob("*.tmp*")) and not list(out.glob(".*tmp*"))  # no half-written file
    assert_stopped(children)


def test_ctrl_c_while_a_file_is_written_is_taken_when_it_is_complete(tmp_path):
    """A SIGINT in the middle of an atomic write (here: between two chunks of torch.save, as
    when Ctrl-C met a training checkpoint and torch's zip writer turned the interrupt into a
    RuntimeError) is raised as KeyboardInterrupt after the file is whole and in place."""
    import torch

    from meduris_rl.kit.atomic import atomic_replace

    target = tmp_path / "checkpoint.pt"
    weights = {"w": torch.arange(100_000, dtype=torch.float32)}

    class Interrupting(dict):  # pickled by torch.save: the signal arrives mid-write
        def __reduce__(self):
            os.kill(os.getpid(), signal.SIGINT)
            return dict, (dict(self),)

    with pytest.raises(KeyboardInterrupt):
        atomic_replace(target, lambda tmp: torch.save({"a": weights, "b": Interrupting(x=1),
                                                       "c": weights}, tmp))
    doc = torch.load(target, weights_only=False)  # (this test's own file)
    assert torch.equal(doc["c"]["w"], weights["w"]) and doc["b"] == {"x": 1}
    assert not list(tmp_path.glob(".*tmp*"))
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler  # restored

"""The Ray address probe against Ray itself (runs in .venv-ray, where Ray is installed): a real
Ray head's GCS passes it, and ``tournament``/``rllib-train --address`` at a port where a silent
server listens stop within seconds with one line (the probe's other cases need no Ray:
tests/test_ray_address.py)."""

import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
import ray

from meduris_rl.agents.arena.tournament.backends import ray_address_problem

REPO = Path(__file__).resolve().parent.parent


def test_a_real_ray_head_passes_the_probe():
    ray.init(include_dashboard=False, log_to_driver=False, configure_logging=False, num_cpus=1)
    try:
        assert ray_address_problem(ray.get_runtime_context().gcs_address) is None
    finally:
        ray.shutdown()


@pytest.mark.parametrize("command", [
    ["tournament", "--agents", "greedy,random", "--games", "2", "--backend", "ray",
     "--no-progress"],
    ["rllib-train", "--iterations", "1"],
])
def test_a_silent_server_at_address_is_one_line_within_seconds(command, tmp_path):
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)  # accepts (the kernel's backlog) and never says a word
    address = f"127.0.0.1:{listener.getsockname()[1]}"
    try:
        t0 = time.monotonic()
        run = subprocess.run([sys.executable, "-m", "meduris_rl.cli", *command, "--address",
                              address, "--out", str(tmp_path / "r")],
                             cwd=REPO, capture_output=True, text=True, timeout=60)
        took = time.monotonic() - t0
    finally:
        listener.close()
    assert run.returncode == 2 and run.stderr.startswith("meduris: error: "), run.stderr
    assert len(run.stderr.strip().splitlines()) == 1
    # the probe itself takes at most 3 s (PROBE_SECONDS); the rest is starting Python and
    # importing Ray (and torch for rllib-train), 5-20 s on a busy 2-core machine; what this
    # guards against is Ray's own connection retries, which sit there for minutes
    assert "does not answer as a Ray cluster" in run.stderr and took < 45
    assert not (tmp_path / "r" / "games.csv").exists()

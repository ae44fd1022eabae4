"""Bad input, generated with hypothesis: every loader refuses malformed files with its own
one-line error (never another exception, never a traceback), at least 200 generated files per
loader; commands given them exit with status 2 and leave every file they found byte-identical;
environments refuse junk actions and change nothing.

Files are made malformed on purpose: a valid file mutated where any change is an error (a
number turned into text, a boolean, a float, a list or a number beyond 32 bits; a required key
removed; the text cut short; random bytes).
"""

import json
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from helpers import random_position
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from meduris_env import (
    BoardError,
    GameRecord,
    IllegalActionError,
    RecordError,
    StateFileError,
    load_state,
)
from meduris_env.engine.boards import load_board
from meduris_rl.agents import UnknownAgentError, make_agent

REPO = Path(__file__).resolve().parent.parent
FILES = 220  # malformed files per loader (each hypothesis example is one)
SETTINGS = settings(max_examples=FILES, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow,
                                           HealthCheck.function_scoped_fixture])

# values that are wrong wherever an integer, a string or an object is expected
NOT_AN_INT = st.one_of(st.text(max_size=5), st.floats(allow_nan=False, allow_infinity=False)
                       .filter(lambda x: x != int(x)), st.booleans(), st.none(),
                       st.lists(st.integers(), max_size=2), st.integers(min_value=2**40))


STATE = json.loads(random_position(3, seed=3, moves=60).to_json())
RECORD = GameRecord.from_state(random_position(2, seed=5, moves=40), ["greedy", "random"],
                               5).to_dict()
BOARD = json.loads((REPO / "meduris_env" / "engine" / "board_data" / "board-2-3-players.json")
                   .read_text())


def _paths(doc, prefix=(), into=None):
    """Every (path, value) of the integer leaves of a JSON document."""
    into = [] if into is None else into
    if isinstance(doc, dict):
        for k, v in doc.items():
            _paths(v, prefix + (k,), into)
    elif isinstance(doc, list):
        for i, v in enumerate(doc):
            _paths(v, prefix + (i,), into)
    elif type(doc) is int:
        into.append(prefix)
    return into


def _set(doc, path, value):
    doc = json.loads(json.dumps(doc))
    node = doc
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value
    return doc


def malformed(doc, int_paths, required):
    """Texts made malformed from ``doc``: an integer at one of ``int_paths`` made a non-integer,
    a required key removed, the text cut short, or random bytes."""
    text = json.dumps(doc)
    flip = st.tuples(st.sampled_from(int_paths), NOT_AN_INT).map(
        lambda pv: json.dumps(_set(doc, *pv)))
    drop = st.sampled_from(required).map(
        lambda k: json.dumps({key: v for key, v in doc.items() if key != k}))
    cut = st.integers(1, len(text) - 2).map(lambda n: text[:n])
    noise = st.binary(min_size=1, max_size=200).map(lambda b: b.decode("latin-1"))
    return st.one_of(flip, flip, drop, cut, noise)


def one_line(err: Exception) -> str:
    message = str(err)
    assert message and "\n" not in message and "Traceback" not in message, message
    return message


# --- loaders ------------------------------------------------------------------------------------
STATE_INTS = [p for p in _paths(STATE) if p[0] in ("arrays", "moves", "events")]


@SETTINGS
@given(malformed(STATE, STATE_INTS, ["format", "version", "game", "arrays", "moves"]))
def test_state_files(text):
    with pytest.raises(StateFileError) as err:
        load_state(text)
    one_line(err.value)


RECORD_INTS = [p for p in _paths(RECORD) if p[0] in ("actions", "events", "result")
               and p[-1] != "text"]


@SETTINGS
@given(malformed(RECORD, RECORD_INTS, ["format", "version", "game", "agents", "actions",
                                       "result"]))
def test_records(text):
    with pytest.raises(RecordError) as err:
        GameRecord.from_json(text).replay()
    one_line(err.value)


BOARD_VALUES = [("num_fields",), ("rune_areas",), ("fields",)] + [
    ("fields", i, key) for i in range(32) for key in ("materials", "rune_area", "index")]


@SETTINGS
@given(st.one_of(
    st.tuples(st.sampled_from(BOARD_VALUES), st.one_of(NOT_AN_INT, st.just("stone"),
                                                       st.just(["wood", "wood"]))).map(
        lambda pv: _set(BOARD, *pv)),
    st.sampled_from(["fields", "rune_areas"]).map(
        lambda k: {key: v for key, v in BOARD.items() if key != k}),
    st.text(min_size=1, max_size=8).filter(lambda k: k not in BOARD).map(
        lambda k: {**BOARD, k: 1})))
def test_boards(board):
    with pytest.raises(BoardError) as err:
        load_board(board)
    one_line(err.value)


CONFIG_KEYS = ["players", "steps", "envs", "threads", "seed", "n_steps", "batch_size",
               "n_epochs", "learning_rate", "gamma", "eval_games", "opponents", "net_arch",
               "features", "policy", "reward"]


@SETTINGS
@given(st.one_of(
    st.tuples(st.sampled_from(CONFIG_KEYS), st.one_of(
        st.text(max_size=4), st.lists(st.text(max_size=3), max_size=2),
        st.integers(max_value=-1), st.integers(min_value=2**63), st.booleans(),
        st.dictionaries(st.text(max_size=3), st.integers(), max_size=2))).map(
        lambda kv: json.dumps({kv[0]: kv[1]}).encode()),  # JSON is YAML too
    st.binary(min_size=1, max_size=100).map(lambda b: b + b": ["),
    st.text(min_size=1, max_size=8).filter(lambda k: k.isidentifier() and k not in
                                           CONFIG_KEYS + ["out", "opponents"]).map(
        lambda k: f"{k}: 1\n".encode())))
def test_training_configs(tmp_path_factory, data):
    from meduris_rl.train.config import ConfigError, load_config
    path = tmp_path_factory.mktemp("cfg") / "c.yaml"
    path.write_bytes(data)
    with pytest.raises(ConfigError) as err:
        load_config(path, {})
    one_line(err.value)


@SETTINGS
@given(st.binary(min_size=0, max_size=2000), st.booleans())
def test_checkpoints_and_policy_files(tmp_path_factory, data, with_meta):
    from meduris_rl.train.run import CheckpointError, load_checkpoint
    folder = tmp_path_factory.mktemp("ckpt")
    (folder / "checkpoint.zip").write_bytes(data)
    if with_meta:
        (folder / "checkpoint.json").write_text("{}")
    with pytest.raises(CheckpointError) as err:
        load_checkpoint(folder / "checkpoint.zip")
    one_line(err.value)
    (folder / "policy.pt").write_bytes(data)
    with pytest.raises(UnknownAgentError) as err:
        make_agent(f"ppo:{folder / 'policy.pt'}")
    one_line(err.value)


# --- environments -------------------------------------------------------------------------------
@settings(max_examples=FILES, deadline=None, derandomize=True)
@given(st.one_of(NOT_AN_INT, st.integers(min_value=241), st.integers(max_value=-1),
                 st.just(np.float32(3.0)), st.just(np.array([3]))))
def test_env_actions(action):
    import meduris_env
    env = meduris_env.env(num_players=2)
    env.reset(seed=1)
    before = env.unwrapped.state.to_json()
    with pytest.raises(IllegalActionError) as err:
        env.step(action)
    one_line(err.value)
    assert env.unwrapped.state.to_json() == before


# --- commands: exit 2, one line, files untouched --------------------------------------------------
def _run(*args, cwd):
    return subprocess.run([sys.executable, "-m", "meduris_rl.cli", *args], cwd=cwd,
                          capture_output=True, text=True, timeout=300)


def _snapshot(folder: Path) -> dict:
    return {p.relative_to(folder): p.read_bytes() for p in folder.rglob("*") if p.is_file()}


@pytest.mark.parametrize("content", [b"\x00\xff\xfe binary", b'{"format": "meduris-record"',
                                     json.dumps(_set(RECORD, ("actions", 0, "action"),
                                                     "x")).encode()])
def test_replay_refuses_malformed_records_and_touches_nothing(tmp_path, content):
    (tmp_path / "game.json").write_bytes(content)
    (tmp_path / "page.html").write_text("an earlier page")
    before = _snapshot(tmp_path)
    for args in (["replay", "game.json", "--all"],
                 ["replay", "game.json", "--html", "new.html"],
                 ["replay", "game.json", "--html", "page.html", "--force"]):
        run = _run(*args, cwd=tmp_path)
        assert run.returncode == 2 and run.stderr.startswith("meduris: error: "), run.stderr
        assert len(run.stderr.strip().splitlines()) == 1
        assert _snapshot(tmp_path) == before


@pytest.mark.parametrize("args,message", [
    (["tournament", "--seed", str(2**70)], "--seed"),
    (["tournament", "--games", "99999999999"], "--games"),
    (["tournament", "--players", "-1"], "--players -1"),
    (["tournament", "--out", "taken.txt"], "is a file"),
    (["play", "--record", "sub"], "is a folder"),
    (["play", "--record", "taken.txt"], "exists; add --force"),
    (["play", "--seat", "7"], "--seat 7"),
    (["replay", "taken.txt", "--html", "taken.txt", "--force"], "own input"),
    (["train", "--out", "taken.txt", "--steps", "10"], "is a file"),
    (["train", "--steps", "-5"], "--steps"),
    (["train", "--bc-teacher", "gredy", "--out", "r"], "unknown agent 'gredy'"),
    (["serve", "--port", "70000"], "--port"),
])
def test_commands_refuse_bad_flags_in_one_line_and_touch_nothing(tmp_path, args, message):
    (tmp_path / "taken.txt").write_text("mine")
    (tmp_path / "sub").mkdir()
    before = _snapshot(tmp_path)
    run = _run(*args, cwd=tmp_path)
    assert run.returncode == 2, run.stderr
    assert run.stderr.startswith("meduris: error: ") and message in run.stderr, run.stderr
    assert len(run.stderr.strip().splitlines()) == 1
    assert _snapshot(tmp_path) == before and sorted(p.name for p in tmp_path.iterdir()) == \
        ["sub", "taken.txt"]


def test_serve_whose_thinking_workers_do_not_start_says_so_and_plays_on(tmp_path, monkeypatch,
                                                                        caplog):
    """A worker whose warm-up fails (e.g. a shipped model that does not load) no longer stops
    the server (issue 47: the page answers while the workers warm): the page is told why the
    searching opponents cannot play, in one line (``/api/agents``: ``thinking.error``, those
    agents not ready), the log has that line and no traceback, and greedy games go on."""
    import logging
    import warnings

    from helpers import LOCAL

    from meduris_rl.cli.meduris.web import app

    def refuse(*args, **kwargs):
        raise RuntimeError("the thinking workers did not start (ValueError: a broken model)")
    monkeypatch.setattr(app, "Thinkers", refuse)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from fastapi.testclient import TestClient
    with caplog.at_level(logging.ERROR, logger="meduris.web"), \
            TestClient(app.create_app(tmp_path / "games.sqlite", thinkers=1),
                       base_url=LOCAL) as client:
        deadline = time.monotonic() + 30
        while (offer := client.get("/api/agents").json())["thinking"]["warming"]:
            assert time.monotonic() < deadline
            time.sleep(0.05)
        assert "a broken model" in offer["thinking"]["error"]
        ready = {a["name"]: a["ready"] for a in offer["agents"]}
        assert ready["greedy"] and ready["random"] and not ready["mcts"] and not ready["ppo"]
        g = client.post("/api/games", json={"players": 2, "opponents": "greedy", "seed": 3})
        assert g.status_code == 201
        legal = g.json()["view"]["legal"][0]["id"]
        r = client.post(f"/api/games/{g.json()['id']}/actions",
                        json={"action": legal, "step": g.json()["step"]})
        assert r.status_code == 200
    lines = [rec for rec in caplog.records if "did not start" in rec.getMessage()]
    assert len(lines) == 1 and lines[0].exc_info is None

"""Hostile files (issue 31, "runaway messages" and "deep or huge values"): training configs
with aliases ("billion laughs"), duplicate keys, loose types, oversized or not configs at all,
and JSON records and state files nested 100,000 deep or holding integers beyond 64 bits. Each is
refused quickly with one short line of its own error class (ConfigError, RecordError,
StateFileError), through the Python API and through the CLI (exit status 2, no traceback), the
file's content is never echoed, and no file is changed.
"""

import json
import random
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from helpers import LOCAL

from meduris_env import GameRecord, MedurisGame, RecordError, StateFileError, load_state
from meduris_rl.kit.jsonfile import parse_json
from meduris_rl.kit.loop import resolve_chance
from meduris_rl.train.config import MAX_CONFIG_BYTES, ConfigError, load_config


def _laughs(levels: int = 10) -> str:
    """The "billion laughs" YAML: each level an anchor of nine aliases of the one before."""
    lines = ['l0: &l0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for i in range(1, levels):
        lines.append(f"l{i}: &l{i} [" + ",".join([f"*l{i - 1}"] * 9) + "]")
    lines.append(f"steps: *l{levels - 1}")
    return "\n".join(lines) + "\n"


SECRET = "print(os.environ['SECRET_TOKEN_abcdef'])"
CONFIGS = {  # name: (content, words the one-line message must hold)
    "laughs.yaml": (_laughs(), "aliases"),
    "alias.yaml": ("seed: &s 3\nplayers: *s\n", "aliases"),
    "merge.yaml": ("base: &b {steps: 5}\n<<: *b\n", "aliases"),
    "dup.yaml": ("steps: 100\nenvs: 4\nsteps: 200\n", "'steps' is given twice"),
    "dup_nested.yaml": ("opponents: {greedy: 1, greedy: 2}\n", "'greedy' is given twice"),
    "float_steps.yaml": ("steps: 2048.7\n", "steps must be a whole number, got 2048.7 (float)"),
    "float_whole.yaml": ("envs: 4.0\n", "envs must be a whole number, got 4.0"),
    "bool_players.yaml": ("players: true\n", "players must be a whole number, got True"),
    "bool_rate.yaml": ("learning_rate: false\n", "learning_rate must be a finite number"),
    "inf_rate.yaml": ("gamma: .inf\n", "gamma must be a finite number"),
    "huge_int.yaml": ("steps: 1" + "0" * 5000 + "\n", "line 1: a number of 5,001 digits, more "
                      "than the 4000 a setting may have"),
    "huge_float.yaml": ("gamma: 0." + "9" * 5000 + "\n", "a number of 5,001 digits"),
    "big_int.yaml": ("steps: 1" + "0" * 1000 + "\n", "steps: an integer of 1001 digits"),
    "deep.yaml": ("steps: " + "[" * 100_000 + "\n", "nested more than 32 levels deep"),
    "deep_blocks.yaml": ("".join(" " * i + f"k{i}:\n" for i in range(200)),
                         "nested more than 32 levels deep"),
    "merge_inline.yaml": ("<<: {steps: 5}\n", "line 1: merge keys (<<) are not supported"),
    "merge_nested.yaml": ("opponents:\n  <<: {greedy: 1}\n", "line 2: merge keys (<<)"),
    "long_value.yaml": ("features: '" + "z" * 100_000 + "'\n", "features: 'zzz"),
    "long_list.yaml": ("net_arch: [" + ",".join(["0"] * 20_000) + "]\n", "net_arch: [0, 0, "),
    "script.py": (f"import os\n{SECRET}\nfor i in range(3): x = {{'a': 1}}\n", "not valid YAML"),
    "text.txt": ("just some words " * 50 + "\n", "expected a mapping of settings"),
    "keys.yaml": ("".join(f"{SECRET}_{i}: 1\n" for i in range(40)), "unknown setting(s)"),
}


@pytest.fixture
def folder(tmp_path):
    for name, (content, _) in CONFIGS.items():
        (tmp_path / name).write_text(content)
    (tmp_path / "binary.yaml").write_bytes(bytes(range(256)) * 8)
    (tmp_path / "big.yaml").write_text("# " + "x" * MAX_CONFIG_BYTES + "\nsteps: 5\n")
    return tmp_path


def _snapshot(folder: Path) -> dict:
    return {p.relative_to(folder): p.read_bytes() for p in folder.rglob("*") if p.is_file()}


def _short_and_clean(message: str) -> None:
    assert "\n" not in message.strip() and len(message) < 300, message[:400]
    assert "SECRET_TOKEN" not in message and "lol" not in message, message


@pytest.mark.parametrize("name", sorted(CONFIGS))
def test_hostile_config_is_refused_fast_with_one_short_line(folder, name):
    before = _snapshot(folder)
    start = time.perf_counter()
    with pytest.raises(ConfigError) as err:
        load_config(folder / name, {})
    assert time.perf_counter() - start < 2
    _short_and_clean(str(err.value))
    assert CONFIGS[name][1] in str(err.value)
    assert _snapshot(folder) == before


def test_binary_and_oversized_configs_are_refused_before_parsing(folder):
    with pytest.raises(ConfigError, match="not UTF-8"):
        load_config(folder / "binary.yaml", {})
    start = time.perf_counter()
    with pytest.raises(ConfigError, match="more than the 1,048,576 allowed for a config"):
        load_config(folder / "big.yaml", {})
    assert time.perf_counter() - start < 0.5


def test_config_values_share_one_strict_checker():
    assert load_config(None, {"steps": np.int64(4096), "players": np.int32(3),
                              "gamma": np.float32(0.5), "shaping": 1}).to_dict()["steps"] == 4096
    cfg = load_config(None, {"steps": np.int64(4096), "gamma": np.float64(0.25)})
    assert type(cfg.steps) is int and type(cfg.gamma) is float  # saved as plain JSON numbers
    assert type(load_config(None, {"shaping": 1}).shaping) is int  # as before: not made 1.0
    for bad, words in (({"steps": 2048.7}, "steps must be a whole number"),
                       ({"steps": np.float64(2048.0)}, "steps must be a whole number"),
                       ({"players": True}, "players must be a whole number"),
                       ({"players": np.bool_(True)}, "players must be a whole number"),
                       ({"learning_rate": float("nan")}, "finite"),
                       ({"seed": 10**4000}, "seed: an integer of thousands of digits; must be in"),
                       ({"out": ["x"] * 10**5}, "out: ")):
        with pytest.raises(ConfigError, match=words) as err:
            load_config(None, bad)
        _short_and_clean(str(err.value))


def _finished_state(players=2, seed=1):
    state = MedurisGame(players).new_initial_state()
    rng = random.Random(seed)
    resolve_chance(state, rng)
    while not state.is_terminal():
        state.apply_action(rng.choice(state.legal_actions()))
        resolve_chance(state, rng)
    return state


STATE = _finished_state()
RECORD = GameRecord.from_state(STATE, ["greedy", "random"], seed=1).to_json()
DEEP = "[" * 100_000 + "]" * 100_000


def _with(text: str, key: str, value: str) -> str:
    """``text`` (compact JSON) with the value of the first ``"key":`` replaced by raw JSON."""
    doc = json.loads(text)
    doc_text = json.dumps(doc, separators=(",", ":"))
    head, sep, tail = doc_text.partition(f'"{key}":')
    assert sep, key
    rest = json.JSONDecoder().raw_decode(tail)[1]
    return head + sep + value + tail[rest:]


HOSTILE_JSON = {  # name: (text of a record / of a state file, words the message must hold)
    "deep": (lambda t: t[:-1] + ',"x":' + DEEP + "}", "nested 100001 levels deep"),
    "deep_alone": (lambda t: DEEP, "nested 100000 levels deep"),
    "deep_objects": (lambda t: '{"a":' * 50_000 + "1" + "}" * 50_000, "levels deep"),
    "max_turns": (lambda t: _with(t, "max_turns", "1" + "0" * 100), "beyond 64 bits"),
    "max_turns_4300": (lambda t: _with(t, "max_turns", "9" * 5000), "(5000 digits)"),
    "max_turns_2_64": (lambda t: _with(t, "max_turns", str(2**64)), "beyond 64 bits"),
    "max_turns_2_62": (lambda t: _with(t, "max_turns", str(2**62)), "max_turns"),
    "negative": (lambda t: _with(t, "num_players", str(-(2**70))), "beyond 64 bits"),
    "nan": (lambda t: _with(t, "max_turns", "NaN"), "NaN is not a number"),
    "infinity": (lambda t: _with(t, "num_players", "-Infinity"), "-Infinity is not"),
}


@pytest.mark.parametrize("name", sorted(HOSTILE_JSON))
def test_hostile_records_and_state_files_are_one_line_errors(name):
    make, words = HOSTILE_JSON[name]
    for loader, error, text in ((GameRecord.from_json, RecordError, RECORD),
                                (load_state, StateFileError, STATE.to_json())):
        start = time.perf_counter()
        with pytest.raises(error, match=words) as err:
            loader(make(text))
        assert time.perf_counter() - start < 2
        assert "\n" not in str(err.value) and len(str(err.value)) < 300, str(err.value)[:400]
        assert str(err.value).startswith("record: " if error is RecordError else "state file: ")


def test_the_bounds_leave_every_valid_file_as_it_was():
    assert GameRecord.from_json(RECORD).to_json() == RECORD
    assert load_state(STATE.to_json()).to_json() == STATE.to_json()
    assert parse_json('{"a":[[[1]]],"b":"[[[[[[ not brackets {{{{","c":-9223372036854775808}',
                      RecordError, "x") == {"a": [[[1]]], "b": "[[[[[[ not brackets {{{{",
                                            "c": -(2**63)}


def _meduris(*args, cwd):
    return subprocess.run([sys.executable, "-m", "meduris_rl.cli", *args], cwd=cwd,
                          capture_output=True, text=True, timeout=120)


def _one_line_exit_2(run) -> None:
    assert run.returncode == 2, (run.returncode, run.stderr[-500:])
    assert run.stderr.startswith("meduris: error: ") and "Traceback" not in run.stderr
    assert len(run.stderr.strip().splitlines()) == 1 and len(run.stderr) < 300, run.stderr[:400]
    assert run.stdout == ""


@pytest.mark.parametrize("name", ["laughs.yaml", "dup.yaml", "float_steps.yaml", "script.py",
                                  "binary.yaml", "big.yaml", "keys.yaml"])
def test_cli_train_refuses_hostile_configs_in_one_line(folder, name):
    before = _snapshot(folder)
    start = time.perf_counter()
    run = _meduris("train", "--config", name, "--out", "run", cwd=folder)
    assert time.perf_counter() - start < 30  # the interpreter's start-up, not the file
    _one_line_exit_2(run)
    _short_and_clean(run.stderr)
    assert _snapshot(folder) == before and not (folder / "run").exists()


@pytest.mark.parametrize("name", ["deep", "max_turns", "max_turns_4300", "nan"])
def test_cli_replay_refuses_deep_and_huge_records_in_one_line(tmp_path, name):
    make, words = HOSTILE_JSON[name]
    (tmp_path / "game.json").write_text(make(RECORD))
    (tmp_path / "page.html").write_text("an earlier page")
    before = _snapshot(tmp_path)
    for args in (["replay", "game.json", "--all"],
                 ["replay", "game.json", "--html", "page.html", "--force"]):
        run = _meduris(*args, cwd=tmp_path)
        _one_line_exit_2(run)
        assert words in run.stderr
        assert _snapshot(tmp_path) == before


def test_every_other_json_the_project_reads_refuses_deep_nesting(tmp_path):
    from meduris_env import BoardError
    from meduris_env.engine.boards import load_board
    from meduris_rl.agents.plugins.external import Forfeit, check_hello, decode_answer

    deep = tmp_path / "board.json"
    deep.write_text(DEEP)
    with pytest.raises(BoardError, match="nested 100000 levels deep"):
        load_board(str(deep))
    huge = tmp_path / "huge.json"
    huge.write_text('{"fields": ' + "9" * 5000 + "}")
    with pytest.raises(BoardError, match="beyond 64 bits"):
        load_board(str(huge))
    for line in (DEEP.encode(), b'{"action": ' + b"[" * 100_000 + b"}"):
        with pytest.raises(Forfeit, match="malformed"):
            decode_answer(line, [3])
        with pytest.raises(Forfeit, match="handshake"):
            check_hello(line)


def test_a_deeply_nested_checkpoint_json_is_a_checkpoint_error(tmp_path):
    from meduris_rl.train.run import CheckpointError, checkpoint_state

    (tmp_path / "checkpoint.zip").write_bytes(b"PK")
    (tmp_path / "checkpoint.json").write_text(DEEP)
    with pytest.raises(CheckpointError, match="cannot read"):
        checkpoint_state(tmp_path / "checkpoint.zip")


# --- files that are not regular files, or bigger than they say (issue 31, item 1) ----------

def _not_regular_files(tmp_path):
    """(name, path, words) of a device, a FIFO and a folder, each refused before any read."""
    import os

    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    (tmp_path / "folder").mkdir()
    return [("/dev/zero", Path("/dev/zero"), "is a device, not a regular file"),
            ("pipe", fifo, "is a FIFO (named pipe), not a regular file"),
            ("folder", tmp_path / "folder", "is a folder, not a regular file")]


def _within(seconds, call):
    """``call()``'s exception (or None) if it ends within ``seconds``; else the test fails (a
    thread blocked opening a FIFO is released by opening the FIFO's other end)."""
    import os
    import threading

    box = {}

    def run():
        try:
            call()
        except Exception as err:  # noqa: BLE001 (the test inspects it)
            box["error"] = err

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    worker.join(seconds)
    if worker.is_alive():
        for fifo in Path(os.getcwd()).glob("pipe"):
            os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
        pytest.fail(f"still reading after {seconds}s: it hangs")
    return box.get("error")


def test_devices_fifos_and_folders_are_refused_before_reading(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for name, path, words in _not_regular_files(tmp_path):
        for call, error in ((lambda p=path: GameRecord.load(p), RecordError),
                            (lambda p=path: load_config(p, {}), ConfigError)):
            err = _within(10, call)
            assert isinstance(err, error), (name, err)
            _short_and_clean(str(err))
            assert words in str(err), str(err)


def test_a_file_bigger_than_it_says_is_read_no_further_than_the_bound(tmp_path):
    from meduris_rl.kit.jsonfile import read_bounded

    listing = Path("/proc/self/maps")  # a regular file whose reported size is 0
    if not listing.is_file() or listing.stat().st_size:
        pytest.skip("needs Linux's /proc")
    with pytest.raises(RecordError, match="has more than the 10 bytes allowed"):
        read_bounded(listing, RecordError, "record", max_bytes=10)
    small = tmp_path / "small.json"
    small.write_bytes(b"0123456789")
    assert read_bounded(small, RecordError, "record", max_bytes=10) == b"0123456789"


def test_cli_refuses_devices_fifos_folders_and_oversized_files(tmp_path):
    from meduris_rl.kit.jsonfile import MAX_BYTES

    cases = _not_regular_files(tmp_path)
    with open(tmp_path / "huge.json", "wb") as fh:  # sparse: nothing is written
        fh.truncate(MAX_BYTES + 1)
    (tmp_path / "huge.yaml").write_bytes(b"")
    with open(tmp_path / "huge.yaml", "r+b") as fh:
        fh.truncate(MAX_CONFIG_BYTES + 1)
    before = _snapshot(tmp_path)
    for name, _, words in cases:
        for args in (["replay", name, "--all"], ["train", "--config", name, "--out", "run"]):
            start = time.perf_counter()
            run = _meduris(*args, cwd=tmp_path)  # a hang is subprocess's TimeoutExpired
            assert time.perf_counter() - start < 60
            _one_line_exit_2(run)
            assert words in run.stderr, run.stderr
    for args in (["replay", "huge.json", "--all"], ["train", "--config", "huge.yaml"]):
        run = _meduris(*args, cwd=tmp_path)
        _one_line_exit_2(run)
        assert "more than the" in run.stderr, run.stderr
    assert _snapshot(tmp_path) == before and not (tmp_path / "run").exists()


# --- runaway labels (issue 31, item 4) -----------------------------------------------------

def test_a_record_with_a_huge_or_multi_line_label_is_refused_in_one_line(tmp_path):
    from meduris_rl.kit.records import MAX_LABEL

    for label, words in (("a" * 5_000_000, f"at most {MAX_LABEL} characters"),
                         ("two\nlines", "one line"), (7, "must be text")):
        doc = json.loads(RECORD)
        doc["agents"][1] = label
        (tmp_path / "game.json").write_text(json.dumps(doc))
        with pytest.raises(RecordError, match=words) as err:
            GameRecord.load(tmp_path / "game.json")
        _short_and_clean(str(err.value))
    run = _meduris("replay", "game.json", "--all", cwd=tmp_path)
    _one_line_exit_2(run)
    long_names = GameRecord.from_state(STATE, ["x" * 10_000, "y\nz"], seed=1)
    assert [len(a) for a in long_names.agents] == [MAX_LABEL, 3]  # written so it loads
    assert GameRecord.from_json(long_names.to_json()).agents == long_names.agents


def test_a_huge_game_id_is_not_echoed_by_the_web_server(tmp_path):
    import warnings

    from meduris_rl.cli.meduris.web.app import create_app

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from fastapi.testclient import TestClient
    client = TestClient(create_app(tmp_path / "games.sqlite"), raise_server_exceptions=False,
                        base_url=LOCAL)
    for path in ("/api/games/" + "a" * 60_000, "/api/games/" + "a" * 60_000 + "/events",
                 "/api/games/" + "b" * 60_000 + "/record"):
        reply = client.get(path)
        assert reply.status_code == 404 and len(reply.content) < 300, len(reply.content)
        assert reply.json()["error"].startswith("no game 'aaaa") or "not found" in \
            reply.json()["error"] or reply.json()["error"].startswith("no game 'bbbb")

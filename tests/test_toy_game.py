"""Adding a game is its package, its agents and one row (docs/adding_a_game.md): the toy game
of ``tests/toy_game.py`` (Nim, registered by hand, not installed) plays in a tournament (worker
processes too), a duel, the ladder, ``replay`` and ``meduris agents``/``games``, through the
tools as they are: no edit anywhere but its file."""

from __future__ import annotations

import contextlib
import csv
import io
import json
import sqlite3

import pytest
import toy_game

from meduris_rl.cli.main import main
from meduris_rl.kit.games import game_names, game_spec
from meduris_rl.kit.records import GameRecord


def run(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(argv)
    return code, out.getvalue(), err.getvalue()


def test_the_toy_game_is_a_row_of_the_table():
    assert "nim" in game_names() and game_spec("nim") is toy_game.ROW
    code, out, _ = run(["games"])
    assert code == 0 and "nim: Nim: take 1-3 stones" in out and "option stones=15" in out
    code, out, _ = run(["agents", "--game", "nim"])
    assert code == 0 and "greedy" in out and "random" in out and "mcts" not in out


@pytest.mark.parametrize("workers", [1, 2])
def test_a_tournament_of_the_toy_game_with_its_option_and_records(tmp_path, workers):
    out = tmp_path / "t"
    code, text, err = run(["tournament", "--game", "nim", "--agents", "random,greedy",
                           "--games", "8", "--workers", str(workers), "--option", "stones=9",
                           "--seed", "4", "--out", str(out), "--save-records", "all",
                           "--no-progress"])
    assert code == 0, err
    assert "stones mean" in text  # the row's score unit heads the leaderboard
    rows = list(csv.DictReader((out / "games.csv").open()))
    assert len(rows) == 8 and {r["end_reason"] for r in rows} == {"the last stone"}
    summary = json.loads((out / "summary.json").read_text())
    assert summary["config"]["game"] == "nim" and summary["config"]["options"] == {"stones": 9}
    record = GameRecord.load(out / "records" / "game-00000.json")
    assert record.game.stones == 9 and record.replay().is_terminal()
    # the same seed, the same games, whatever the workers
    assert (out / "games.csv").read_bytes() == _games_csv(tmp_path, 3 - workers)


def _games_csv(tmp_path, workers: int) -> bytes:
    out = tmp_path / f"again{workers}"
    code, _, err = run(["tournament", "--game", "nim", "--agents", "random,greedy", "--games",
                        "8", "--workers", str(workers), "--option", "stones=9", "--seed", "4",
                        "--out", str(out), "--no-progress"])
    assert code == 0, err
    return (out / "games.csv").read_bytes()


def test_a_duel_of_the_toy_game():
    code, text, err = run(["duel", "greedy", "random", "--game", "nim", "--max-games", "40",
                           "--json", "--no-progress", "--workers", "2"])
    assert code == 0, err
    doc = json.loads(text)
    assert doc["config"]["game"] == "nim" and doc["games"] >= 2 and doc["score"] > 0.5


def test_the_ladder_of_the_toy_game(tmp_path):
    db = tmp_path / "nim.sqlite"
    code, _, err = run(["ladder", "anchors", "--game", "nim", "--db", str(db), "--games", "20",
                        "--no-progress"])
    assert code == 0, err
    code, _, err = run(["ladder", "add", "take1", "--game", "nim", "--db", str(db),
                        "--games", "10", "--no-progress"])
    assert code == 0, err
    code, text, err = run(["ladder", "show", "--game", "nim", "--db", str(db), "--json"])
    assert code == 0, err
    ratings = {r["agent"]: r["rating"] for r in json.loads(text)[0]["ratings"]}
    assert ratings["random"] == 0 and ratings["greedy"] > 0 and "take1" in ratings
    with sqlite3.connect(db) as con:
        held = con.execute("SELECT value FROM ladder_meta WHERE key='game'").fetchone()[0]
    assert held == "nim"
    code, _, err = run(["ladder", "show", "--db", str(db)])  # (the default game's ladder)
    assert code == 2 and "is a nim ladder" in err and "--game nim" in err


def test_replay_of_the_toy_game(tmp_path):
    out = tmp_path / "t"
    assert run(["tournament", "--game", "nim", "--agents", "random,greedy", "--games", "2",
                "--workers", "1", "--out", str(out), "--save-records", "all",
                "--no-progress"])[0] == 0
    code, text, err = run(["replay", str(out / "records" / "game-00000.json"), "--all"])
    assert code == 0, err
    assert "stones left" in text and "(replayed exactly)" in text and "take " in text
    code, _, err = run(["replay", str(out / "records" / "game-00000.json"), "--html",
                        str(tmp_path / "x.html")])
    assert code == 2 and "Nim has no page of its own" in err
    code, _, err = run(["play", "--game", "nim", "--record", str(tmp_path / "p.json")])
    assert code == 2 and "Nim has no person's seat" in err
    code, _, err = run(["serve", "--game", "nim", "--db", str(tmp_path / "g.sqlite")])
    assert code == 2 and "Nim has no web page" in err


@pytest.mark.parametrize("argv,message", [
    (["tournament", "--game", "nim", "--option", "stones=0"], "option stones"),
    (["tournament", "--game", "nim", "--option", "circles=4"], "Nim has no such option"),
    (["tournament", "--game", "nim", "--agents", "mcts:5,random"], "does not play nim"),
    (["tournament", "--game", "nim", "--players", "4"], "Nim is played by 2 or 3 (N1)"),
])
def test_the_toy_game_s_bad_settings_are_one_line(tmp_path, argv, message):
    code, _, err = run([*argv, "--out", str(tmp_path / "o")])
    assert code == 2 and message in err and err.count("\n") == 1

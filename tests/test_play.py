"""``meduris play``: a person against agents, driven here by scripted input."""

import io
import random
import subprocess
import sys

import pytest

from meduris_env import MedurisGame
from meduris_env.engine.constants import A_OFFER
from meduris_rl.agents.meduris.human import describe_action, parse_choice
from meduris_rl.cli import main
from meduris_rl.cli.commands.play import PlayError, play
from meduris_rl.kit.loop import resolve_chance
from meduris_rl.kit.records import GameRecord

BAD_INPUT = "abc\n0\n999\ntake stone\n\nhelp\nboard\n"


def test_play_command_with_scripted_input(tmp_path):
    path = tmp_path / "games" / "me.json"
    script = BAD_INPUT + "1\n" * 600
    run = subprocess.run([sys.executable, "-m", "meduris_rl.cli", "play", "--players", "2",
                          "--opponents", "mcts:200", "--seed", "3", "--record", str(path)],
                         input=script, capture_output=True, text=True, timeout=300)
    out = run.stdout
    assert run.returncode == 0, run.stderr
    assert "seed 3: you are seat 0; seat 0: human, seat 1: mcts:200" in out
    # the board each turn, the decision and the numbered legal actions in the game's words
    assert "Your move, seat 0: place worker\n    1. place worker on wood\n" in out
    assert out.count("plain stone  supply") > 20
    assert "build hut on field" in out
    # bad input is refused with the reason, and asked again
    assert "not accepted: 'abc' is neither a number nor an action" in out
    assert "not accepted: 0 is not on the list (1-4)" in out
    assert "not accepted: 999 is not on the list (1-4)" in out
    assert "not accepted: 'take stone' is not legal now (place worker is due)" in out
    assert "not accepted: empty input" in out
    assert "'board' shows the board" in out  # help
    assert "seat 1 (mcts:200): " in out and "you: place worker on wood" in out
    # the opponent's materials are behind its screen (totals only) until the end
    during, after = out.split("The screens are lifted:")
    seat1 = [line for line in during.splitlines() if line.startswith("seat 1: VP")]
    assert len(seat1) > 20 and all("materials behind the screen" in line for line in seat1)
    assert all(" wood=" in line for line in during.splitlines() if line.startswith("seat 0: VP"))
    assert "materials behind the screen" not in after
    assert "game over (" in out and f"record saved to {path}" in out
    # the record replays exactly, and the person's actions are the ones typed
    record = GameRecord.load(path)
    assert record.agents == ["human", "mcts:200"] and record.meta["run_seed"] == 3
    assert record.meta == {"command": "play", "human_seat": 0, "players": 2,
                           "opponents": ["mcts:200"], "run_seed": 3, "exchange": "auto",
                           "open_screens": False}
    human_moves = 0
    for state, action, seat in zip(record.states(), record.actions, record.seats, strict=False):
        if seat == 0:
            assert action == state.legal_actions()[0]  # every accepted input was "1"
            human_moves += 1
    final = record.replay()
    assert final.is_terminal() and out.count("choose 1-") == human_moves + 7
    scores = ", ".join(f"seat {s} {v} VP" for s, v in enumerate(final.scores()))
    assert scores in out


def test_quitting_saves_the_unfinished_game(tmp_path, capsys, monkeypatch):
    path = tmp_path / "quit.json"
    monkeypatch.setattr(sys, "stdin", io.StringIO("1\n2\nquit\n"))
    assert main(["play", "--opponents", "greedy", "--seed", "5", "--record", str(path),
                 "--option", "open_screens=yes"]) == 0
    out = capsys.readouterr().out
    assert "game abandoned at turn 0" in out
    assert "behind the screen" not in out and "seat 1: VP   5  wood=1" in out
    record = GameRecord.load(path)
    assert not record.result["terminal"]
    assert record.seats.count(0) == 2 and record.replay().current_player() == 0


def test_input_ending_mid_game_saves_the_record_and_exits_1(tmp_path):
    path = tmp_path / "eof.json"
    out = io.StringIO()
    assert play(2, "random", 1, 8, path, io.StringIO("1\n"), out) == 1
    assert "(input ended)" in out.getvalue()
    record = GameRecord.load(path)
    assert record.agents == ["random", "human"] and record.seats.count(1) == 1


def test_same_seed_and_input_give_the_same_game(tmp_path):
    texts = []
    for name in ("a.json", "b.json"):
        inp = io.StringIO("2\n" * 400 + "1\n" * 800)
        assert play(3, "greedy,random", 1, 21, tmp_path / name, inp, io.StringIO()) == 0
        texts.append((tmp_path / name).read_text())
    assert texts[0] == texts[1]
    assert GameRecord.from_json(texts[0]).agents == ["greedy", "human", "random"]


@pytest.mark.parametrize("args,message", [
    (["--players", "5"], "--players 5: Meduris is played by 2, 3 or 4"),
    (["--opponents", "gredy"], "unknown agent 'gredy' (did you mean 'greedy'?)"),
    (["--opponents", "greedy,random"], "2 players means 1 opponent, but --opponents names 2"),
    (["--players", "4", "--opponents", "greedy,random"], "4 players means 3 opponents, but "
     "--opponents names 2"),
    (["--players", "4", "--opponents", "random,,greedy"], "--opponents: the 2nd agent name is "
     "empty (of 3); write names separated by single commas"),
    (["--players", "3", "--opponents", ",random"], "--opponents: the 1st agent name is empty"),
    (["--players", "3", "--opponents", "random, "], "--opponents: the 2nd agent name is empty"),
    (["--opponents", ","], "--opponents needs a comma-separated list of agent names"),
    (["--players", "3", "--seat", "3"], "--seat 3: seats are 0..2"),
    (["--opponents", "mcts:fast"], "write mcts:<iterations>"),
])
def test_play_setup_errors_are_one_line(args, message, capsys, tmp_path):
    assert main(["play", *args, "--record", str(tmp_path / "r.json")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("meduris: error: ") and message in err and err.count("\n") == 1
    assert list(tmp_path.iterdir()) == []  # no record written


def test_an_unwritable_record_path_is_refused_before_the_game(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("")
    out = io.StringIO()
    with pytest.raises(PlayError, match="cannot write the game record"):
        play(2, "random", 0, 1, blocker / "r.json", io.StringIO("1\n" * 500), out)
    assert out.getvalue() == ""  # no game was started


def _offering_position():
    rng = random.Random(4)
    state = MedurisGame(2).new_initial_state()
    while True:
        resolve_chance(state, rng)
        if state.pending_decision()["kind"] == "offering":
            return state
        state.apply_action(rng.choice(state.legal_actions()))


def test_offerings_are_described_with_the_huts_materials_and_value():
    state = _offering_position()
    d = state.pending_decision()
    a, b = ("wood", "wool", "copper", "stone")[state.game.board.field_materials[d["field"], 0]], \
        ("wood", "wool", "copper", "stone")[state.game.board.field_materials[d["field"], 1]]
    assert describe_action(state, A_OFFER) == "offer nothing (-1 VP, R19)"
    assert describe_action(state, A_OFFER + 1) == f"offer {a} only (+1 VP, R19)"
    assert describe_action(state, A_OFFER + 3) == \
        f"offer both {a} and {b} (+{d['size']} VP: the settlement's size, R19)"
    legal = state.legal_actions()
    # words work as well as numbers; an offering's words are the engine's
    assert parse_choice("offer nothing", legal, state) == (A_OFFER, "")
    assert parse_choice(str(legal.index(A_OFFER) + 1), legal, state) == (A_OFFER, "")

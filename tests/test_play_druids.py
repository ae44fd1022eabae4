"""``meduris play --game druids``: a person plays Druids against agents, driven here by scripted
input (as tests/test_play.py drives Meduris), seeing only what their seat knows (D14)."""

import io
import random
import re
import sys

import pytest

from druids_env import DruidsGame, resolve_chance
from druids_env.engine.cards import PLAYER_COLOURS, card_name, gem_name, is_gem, servant_owner
from druids_env.text_view import hand_text
from meduris_rl.agents.druids.human import DruidsHumanAgent
from meduris_rl.cli import main
from meduris_rl.cli.commands.play import play
from meduris_rl.kit.records import GameRecord

BAD_INPUT = "abc\n0\n999\ncollect place 9\ndraw a servant\n\nhelp\nboard\n"


def hidden_from(st, seat: int) -> set[int]:
    """The cards ``seat`` cannot know in ``st`` (D14): the other hands, the others' face-down
    gems, servants and discards, the gem deck."""
    cards = {c for q, hand in enumerate(st.hands) if q != seat for c in hand}
    cards |= {c for pile in st.above for c, who in pile if who != seat}
    cards |= {c for pile in st.under for c in pile if servant_owner(c) != seat}
    cards |= {c for c, who in st.discards if who != seat}
    return cards | set(st.gem_deck)


def shown(text: str, card: int) -> bool:
    """Whether ``card``'s name is in ``text`` ("red 1" is not in "red 12")."""
    name = gem_name(card) if is_gem(card) else card_name(card)
    return re.search(rf"(?<!\w){re.escape(name)}(?!\d)", text) is not None


def play_druids(tmp_path, players, opponents, seat, seed, script, name="d.json"):
    out = io.StringIO()
    path = tmp_path / name
    status = play(players, opponents, seat, seed, path, io.StringIO(script), out, game="druids")
    return status, out.getvalue(), GameRecord.load(path)


@pytest.mark.parametrize("players,opponents,seat,seed", [(2, "greedy", 0, 3),
                                                         (3, "greedy,random", 1, 11)])
def test_no_secret_of_another_seat_is_ever_printed(tmp_path, players, opponents, seat, seed):
    status, out, record = play_druids(tmp_path, players, opponents, seat, seed,
                                      BAD_INPUT + "1\n" * 600)
    assert status == 0 and isinstance(record.game, DruidsGame)
    states = list(record.states())
    final = states[-1]
    assert final.is_terminal() and "game over (" in out
    mine = [i for i, s in enumerate(record.seats) if s == seat]
    blocks = out.split("\nYour move, seat ")
    assert len(blocks) == len(mine) + 1  # one prompt per decision of the person
    bounds = [0, *mine, len(states) - 1]
    secrets_checked = 0
    for k, block in enumerate(blocks):
        # a card hidden from the seat all along, from the decision before this block's text to
        # the one it ends with (or the end of the game), is never named in that text (D14)
        span = states[bounds[k]:bounds[k + 1] + 1]
        secret = set.intersection(*(hidden_from(st, seat) for st in span))
        leaks = [card_name(c) for c in secret if shown(block, c)]
        assert not leaks, f"block {k} names hidden cards {leaks}"
        secrets_checked += len(secret)
        if k > 0:  # the person's own hand, gems and servants by value, is shown to them
            assert f"your hand: {hand_text(states[bounds[k + 1]].hands[seat])}" in block
    assert secrets_checked > 1000
    # another seat's private events are worded without the card; chance is never printed
    for ev in final.events():
        if ev.hidden and ev.owner != seat:
            assert ev.describe() not in out and ev.describe(seat) in out
    assert "gem: " not in out and "servant: " not in out
    other = PLAYER_COLOURS[(seat + 1) % players]
    assert f"{other} plays a gem above place" in out and f"a {other} gem" in out
    assert f"{other} is dealt a gem" in out and f"{other} draws a servant from their set" in out


def test_bad_input_is_refused_and_words_are_read(tmp_path):
    _, out, record = play_druids(tmp_path, 2, "greedy", 0, 3, BAD_INPUT + "1\n" * 600)
    assert "not accepted: 'abc' is neither a number nor an action" in out
    assert "not accepted: 0 is not on the list (1-42)" in out
    assert "not accepted: 'collect place 9' is neither a number nor an action" in out
    assert "not accepted: 'draw a servant' is not legal now (play a card face down" in out
    assert "not accepted: empty input" in out
    assert "'board' shows the table again" in out and "(D14)" in out  # help
    # 'board' shows the position again: the first decision's view twice
    assert out.count("turn 1, play (D8); you are red (seat 0)") == 3  # 2 decisions + board
    assert record.agents == ["human", "greedy"] and record.meta["run_seed"] == 3
    assert record.meta == {"command": "play", "human_seat": 0, "players": 2,
                           "opponents": ["greedy"], "run_seed": 3}
    for state, action, seat in zip(record.states(), record.actions, record.seats, strict=False):
        if seat == 0:  # every accepted input was "1"
            assert action == state.legal_actions()[0]
    scores = ", ".join(f"seat {s} {v} amulets" for s, v in enumerate(record.replay().scores()))
    assert scores in out and "The final position, as you know it:" in out


def test_an_action_in_words_is_played():
    state = DruidsGame(2).new_initial_state()
    resolve_chance(state, random.Random(1))
    agent = DruidsHumanAgent(io.StringIO(), io.StringIO(), 0)
    legal = state.legal_actions()
    text = state.action_to_string(legal[-1])
    assert agent.parse(text.upper(), legal, state) == (legal[-1], "")
    assert agent.parse("quit", legal, state) == (None, "quit")
    assert agent.parse(str(len(legal)), legal, state) == (legal[-1], "")


def test_quitting_saves_the_unfinished_game(tmp_path, capsys, monkeypatch):
    path = tmp_path / "quit.json"
    monkeypatch.setattr(sys, "stdin", io.StringIO("1\n2\nquit\n"))
    assert main(["play", "--game", "druids", "--opponents", "greedy", "--seed", "5",
                 "--record", str(path)]) == 0
    out = capsys.readouterr().out
    assert "Druids, 2 players, seed 5: you are seat 0 (red); seat 0: human, seat 1: greedy" in out
    assert "game abandoned at turn 1; standings: seat 0 0 amulets, seat 1 0 amulets" in out
    assert f"record saved to {path}" in out
    record = GameRecord.load(path)
    assert isinstance(record.game, DruidsGame) and not record.result["terminal"]
    assert record.seats.count(0) == 2 and record.replay().current_player() == 0


def test_input_ending_mid_game_saves_the_record_and_exits_1(tmp_path):
    status, out, record = play_druids(tmp_path, 3, "random", 2, 8, "1\n")
    assert status == 1 and "(input ended)" in out
    assert record.agents == ["random", "random", "human"] and record.seats.count(2) == 1


def test_same_seed_and_input_give_the_same_game(tmp_path):
    texts = []
    for name in ("a.json", "b.json"):
        play_druids(tmp_path, 2, "greedy", 1, 21, "2\n" * 300 + "1\n" * 300, name)
        texts.append((tmp_path / name).read_text())
    assert texts[0] == texts[1]


@pytest.mark.parametrize("args,message", [
    (["--opponents", "mcts:200"], "--opponents: agent 'mcts:200' does not play druids; druids "
                                  "agents: random, greedy"),
    (["--opponents", "gredy"], "did you mean 'greedy'?"),
    (["--option", "exchange=manual"], "option 'exchange': Druids has no such option; its "
                                      "options: circles, max_turns"),
    (["--option", "open_screens=true"], "option 'open_screens': Druids has no such option"),
    (["--option", "circles=0"], "--option circles: option circles (D12 ruling) must be"),
    (["--level", "2"], "--level: Druids has no levels; name its opponents (meduris agents "
                       "--game druids lists them)"),
    (["--players", "5"], "--players 5: Druids is played by 2, 3 or 4 (D2)"),
    (["--seat", "2"], "--seat 2: seats are 0..1 (seat 0 starts)"),
])
def test_druids_setup_errors_are_one_line(args, message, capsys, tmp_path, monkeypatch):
    monkeypatch.setattr(sys, "stdin", io.StringIO("1\n" * 50))
    path = tmp_path / "r.json"
    assert main(["play", "--game", "druids", *args, "--record", str(path)]) == 2
    captured = capsys.readouterr()
    err = captured.err
    assert err.startswith("meduris: error: ") and message in err and err.count("\n") == 1
    assert captured.out == "" and not path.exists()  # refused before the game


def test_the_default_druids_opponent_is_ismcts(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(sys, "stdin", io.StringIO("quit\n"))
    assert main(["play", "--game", "druids", "--players", "3", "--seed", "2", "--record",
                 str(tmp_path / "q.json")]) == 0
    assert "seat 0: human, seat 1: ismcts:200, seat 2: ismcts:200" in capsys.readouterr().out

"""Agents in any language (``cmd:``, :mod:`meduris_rl.agents.plugins.external`) and forfeits.

The example bots (Python and JavaScript, examples/) play 20 games each with only legal moves;
test bots (tests/data/bots/faulty_bot.py) that crash, hang past --move-time, use up
--game-time, print garbage or a runaway line, answer an illegal id, or fail the handshake
each forfeit with the right reason in games.csv, scored as a loss; the tournament completes
and no child process is left behind, also after Ctrl-C. The protocol's messages are checked
against its documentation with a bot that records what it receives.

Druids (the same protocol, ``"game": "druids"``): the example bots play it, a faulty bot
forfeits as in Meduris, and every message a Druids bot is sent holds only what its seat knows
(D14): it is the same for any deal of the cards hidden from the seat (``resample_hidden``), and
no gem hidden from the seat appears in it.

Child processes are found by a marker in their environment (``MEDURIS_BOT_MARK``), inherited
from the test through the tournament's workers to the bots: a bot orphaned by a dead worker
is found too.
"""

import csv
import json
import os
import random
import shlex
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from druids_env import DruidsGame, resample_hidden
from druids_env.engine.cards import gem_name, is_gem
from druids_env.engine.information import PUBLIC_FIELDS
from druids_env.row import observe as observe_druids
from meduris_env import MedurisGame
from meduris_env.engine.actions import action_to_string
from meduris_rl.agents.arena.match import forfeit_ranks, play_game
from meduris_rl.agents.base import Agent, Forfeit
from meduris_rl.agents.plugins.external import SubprocessAgent, close_agents, decide_message
from meduris_rl.agents.registry import make_agent
from meduris_rl.cli.main import main
from meduris_rl.kit.records import GameRecord
from meduris_rl.kit.seeding import agent_seeds

REPO = Path(__file__).resolve().parent.parent
PY = sys.executable
FAULTY = f"cmd:{PY} {REPO / 'tests/data/bots/faulty_bot.py'}"


@pytest.fixture
def mark(monkeypatch):
    """A marker in the environment that every bot started from here inherits."""
    value = uuid.uuid4().hex
    monkeypatch.setenv("MEDURIS_BOT_MARK", value)
    return value


def marked_processes(mark: str, bots_only: bool = True) -> list[int]:
    """Live processes (zombies are dead) whose environment holds the marker: the bots (a
    ``*_bot.py`` or ``*_bot.js`` on their command line), or all of them."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            environ = (entry / "environ").read_bytes()
            state = (entry / "stat").read_text().rpartition(")")[2].split()[0]
            argv = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        bot = any(arg.endswith((b"_bot.py", b"_bot.js")) for arg in argv) and not any(
            arg.endswith(b"reaper.py") for arg in argv)  # (a bot, not the keeper running it)
        if f"MEDURIS_BOT_MARK={mark}".encode() in environ.split(b"\0") and state != "Z" and (
                bot or not bots_only):
            found.append(int(entry.name))
    return found


def bots_left(mark: str, within: float = 10.0) -> list[int]:
    """The marked processes still there after ``within`` seconds (they may be dying)."""
    end = time.monotonic() + within
    while (left := marked_processes(mark)) and time.monotonic() < end:
        time.sleep(0.05)
    return left


def tournament(out: Path, agents: str, *flags: str, games: int = 4, workers: int = 1) -> dict:
    code = main(["tournament", "--agents", agents, "--games", str(games), "--seed", "3",
                 "--workers", str(workers), "--out", str(out), "--no-progress", *flags])
    assert code == 0
    with open(out / "games.csv", newline="") as fh:
        rows = list(csv.DictReader(fh))
    return {"rows": rows, "summary": json.loads((out / "summary.json").read_text())}


# --- the example bots --------------------------------------------------------------------------
@pytest.mark.parametrize("command", [f"{PY} examples/random_bot.py", "node examples/random_bot.js"])
def test_an_example_bot_plays_20_games_with_only_legal_moves(tmp_path, mark, command,
                                                             monkeypatch):
    monkeypatch.chdir(REPO)  # (the command's relative path, as a user would write it)
    agent = f"cmd:{command}"
    got = tournament(tmp_path, f"{agent},random", "--save-records", "0-3", games=20, workers=2)
    rows = got["rows"]
    assert len(rows) == 20
    assert all(r["forfeit"] == "" and r["forfeit_seat"] == "" for r in rows)
    assert all(r["end_reason"] not in ("forfeit", "abandoned") for r in rows)
    assert {r["seat0_agent"] for r in rows} == {agent, "random"}  # it played both seats
    assert got["summary"]["agents"][agent]["forfeits"] == 0
    assert got["summary"]["agents"][agent]["seconds_per_decision"] > 0
    for path in sorted((tmp_path / "records").glob("game-*.json")):
        GameRecord.load(path).replay()  # every move legal: the record replays
    logs = list((tmp_path / "logs").glob("*.log"))
    assert logs and "new game: seat" in "".join(p.read_text() for p in logs)  # its stderr
    assert bots_left(mark) == []


def test_a_bot_plays_the_same_games_whatever_the_workers(tmp_path, mark):
    agent = f"cmd:{PY} {REPO / 'examples/random_bot.py'}"
    one = tournament(tmp_path / "one", f"{agent},random", workers=1)["rows"]
    two = tournament(tmp_path / "two", f"{agent},random", workers=2)["rows"]
    assert one == two
    assert bots_left(mark) == []


# --- forfeits ----------------------------------------------------------------------------------
FAULTS = [
    ("hang", "timeout: no answer within 0.5 s (the move time)"),
    ("garbage", "malformed: 'I think I will build a hut' is not a JSON object with an integer "
                "action"),
    ("flood", "malformed: an answer line over 1048576 bytes"),
    ("illegal", "illegal: action 999 is not legal now"),
]


@pytest.mark.parametrize("mode,reason", FAULTS)
def test_a_faulty_bot_forfeits_every_game_with_its_reason_and_is_restarted(tmp_path, mark,
                                                                           mode, reason):
    agent = f"{FAULTY} {mode}"
    got = tournament(tmp_path, f"{agent},random", "--move-time", "0.5",
                     workers=2 if mode == "hang" else 1)
    rows = got["rows"]
    assert len(rows) == 4  # the tournament completed
    for r in rows:
        seat = 0 if r["seat0_agent"] == agent else 1
        assert r["end_reason"] == "forfeit" and r["forfeit_seat"] == str(seat)
        assert r["forfeit"].startswith(reason)
        assert r["winners"] == str(1 - seat)  # a loss: the other seat wins
    agents = got["summary"]["agents"]
    assert agents[agent]["forfeits"] == 4 and agents["random"]["forfeits"] == 0
    assert agents[agent]["wins"] == 0 and agents["random"]["wins"] == 4
    log = "".join(p.read_text() for p in (tmp_path / "logs").glob("*.log"))
    assert log.count("# meduris:") >= 4 and f"forfeit: {reason}" in log
    assert bots_left(mark) == []


@pytest.mark.parametrize("mode,reason", [
    ("handshake", "handshake: protocol 99; this side speaks protocol 1"),
    ("silent", "handshake: crashed: exit code 0"),
])
def test_a_bot_that_fails_its_trial_start_stops_the_run_before_any_game(tmp_path, mark, capsys,
                                                                         mode, reason):
    agent = f"{FAULTY} {mode}"
    code = main(["tournament", "--agents", f"{agent},random", "--games", "4", "--out",
                 str(tmp_path), "--no-progress", "--move-time", "0.5"])
    err = capsys.readouterr().err
    assert code == 2 and len(err.strip().splitlines()) == 1
    assert f"agent {agent!r} failed its trial start: {reason}" in err
    log = Path(err.rpartition("(its stderr: ")[2].rstrip(")\n"))
    assert "starting" in log.read_text()  # where its stderr is
    assert not (tmp_path / "games.csv").exists()
    assert bots_left(mark) == []


def test_a_program_that_cannot_start_or_never_says_hello_fails_its_trial_start_in_one_line(
        tmp_path, capsys, monkeypatch):
    """Issue 46: a script whose first line names a missing interpreter passed the pre-flight
    and forfeited every game with a misleading "No such file or directory"; a bot that never
    answers the hello cost the handshake's time per game with no hint. Now both fail the
    trial start, before any game, in one line saying why (a flush hint for the second)."""
    import meduris_rl.agents.plugins.external as external
    monkeypatch.setattr(external, "HANDSHAKE_TIME", 1.0)
    bad = tmp_path / "bad.sh"
    bad.write_text("#!/nonexistent/python3\nprint('hi')\n")
    bad.chmod(0o755)
    mute = tmp_path / "mute.py"
    mute.write_text("import time\ntime.sleep(60)\n")
    for agent, reason in ((f"cmd:{bad}", "its first line '#!/nonexistent/python3' names an "
                                         "interpreter that is not there"),
                          (f"cmd:{PY} {mute}", "(a bot flushes its output after each line")):
        out = tmp_path / "run"
        code = main(["tournament", "--agents", f"{agent},random", "--games", "2", "--out",
                     str(out), "--no-progress", "--move-time", "0.5"])
        err = capsys.readouterr().err
        assert code == 2 and len(err.strip().splitlines()) == 1, err
        assert f"agent {agent!r} failed its trial start: " in err and reason in err
        assert not (out / "games.csv").exists()


def test_a_crash_forfeits_that_game_only_and_the_bot_is_restarted_for_the_next(tmp_path, mark,
                                                                             capsys):
    agent = f"{FAULTY} crash"  # exits with code 3 at seat 1, plays at seat 0
    rows = tournament(tmp_path, f"{agent},random", games=6)["rows"]
    for r in rows:
        if r["seat0_agent"] == agent:  # the game after a crash: a new child played it out
            assert r["end_reason"] != "forfeit" and r["forfeit"] == ""
        else:
            assert (r["forfeit_seat"], r["forfeit"]) == ("1", "crashed: exit code 3")
    board = capsys.readouterr().out
    header, _, *rows = board.splitlines()[:4]
    assert header.endswith("ms/move  forfeits")
    assert {row[:6]: row.split()[-1] for row in rows} == {"random": "0", agent[:6]: "3"}
    assert "3 forfeit(s) (reasons in games.csv)" in board
    log = "".join(p.read_text() for p in (tmp_path / "logs").glob("*.log"))
    assert log.count("starting") == 3  # for game 0, then for the game after each crash
    assert "faulty bot: crashing on purpose" in log  # the child's stderr is kept
    assert bots_left(mark) == []


def test_a_bots_own_children_go_with_it(tmp_path, mark):
    """A bot started by a launcher that does not exec (sh running the program as its child, as
    scripts starting a Java or Node engine do): closing the bot ends its process group, the
    hanging program included, not only the launcher."""
    inner = f"{FAULTY[4:]} hang; true"  # ("; true": sh cannot exec the program in its place)
    agent = f"cmd:sh -c {shlex.quote(inner)}"
    rows = tournament(tmp_path, f"{agent},random", "--move-time", "0.5", games=2)["rows"]
    assert [r["forfeit"][:8] for r in rows] == ["timeout:"] * 2
    assert bots_left(mark) == []


@pytest.mark.parametrize("mode", ["escape", "launcher"])
def test_a_grandchild_that_leaves_the_bots_session_goes_with_it(tmp_path, mark, mode):
    """Issue 46: a grandchild that calls setsid left the bot's process group and session and
    outlived it. The bot's keeper (agents/plugins/reaper.py, a child subreaper) gets every
    orphan of the bot and kills them all when the bot ends: played out (escape) or dead after
    its first answer, its grandchild still running (launcher: a forfeit)."""
    agent = f"{FAULTY} {mode}"
    rows = tournament(tmp_path, f"{agent},random", games=2)["rows"]
    assert len(rows) == 2
    if mode == "launcher":
        assert all(r["forfeit"].startswith("crashed: exit code 0") for r in rows)
    end = time.monotonic() + 5
    while marked_processes(mark, bots_only=False) and time.monotonic() < end:
        time.sleep(0.05)
    assert marked_processes(mark, bots_only=False) == []  # no sleep 600 left anywhere


def test_the_game_time_limits_a_whole_game(tmp_path, mark):
    agent = f"{FAULTY} slow"  # 0.1 s a move, legal
    rows = tournament(tmp_path, f"{agent},random", "--move-time", "5", "--game-time", "0.5",
                      games=2)["rows"]
    assert [r["forfeit"] for r in rows] == ["timeout: no answer within the game time of "
                                            "0.5 s"] * 2
    assert all(5 <= int(r["decisions"]) <= 30 for r in rows)  # it played a few moves first
    cfg = json.loads((tmp_path / "summary.json").read_text())["config"]
    assert (cfg["move_time"], cfg["game_time"]) == (5.0, 0.5)
    assert cfg["log_dir"] == str((tmp_path / "logs").resolve())
    assert bots_left(mark) == []


def test_ctrl_c_leaves_no_bot_behind(tmp_path, mark):
    """SIGINT to the whole process group (what Ctrl-C does) mid-tournament on a pool."""
    run = subprocess.Popen(
        [PY, "-m", "meduris_rl.cli", "tournament", "--agents",
         f"cmd:{PY} examples/random_bot.py,random", "--games", "2000", "--workers", "2",
         "--out", str(tmp_path), "--no-progress"], cwd=REPO, start_new_session=True,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        end = time.monotonic() + 60
        while len(marked_processes(mark)) < 2 and time.monotonic() < end:  # a bot per worker
            time.sleep(0.1)
        assert len(marked_processes(mark)) == 2
        os.killpg(run.pid, signal.SIGINT)
        out, err = run.communicate(timeout=60)
    finally:
        if run.poll() is None:
            os.killpg(run.pid, signal.SIGKILL)
    assert run.returncode == 130, err
    assert err.strip().splitlines()[-1].startswith("meduris: interrupted")
    assert bots_left(mark, within=5) == []
    assert marked_processes(mark, bots_only=False) == []  # nor a worker


def test_a_bot_dies_with_its_killed_parent(mark):
    """SIGKILL leaves no time to clean up: the kernel kills the bot (PR_SET_PDEATHSIG), which
    is asleep in a decision (so the end of its input would not end it)."""
    script = ("import sys, time\n"
              "from meduris_rl.agents.plugins.external import SubprocessAgent\n"
              f"bot = SubprocessAgent('b', {FAULTY[4:] + ' hang'!r})\n"
              "bot.start()\n"
              "bot.channel.send({'type': 'decide', 'legal': [[0, 'x']]}, time.monotonic() + 5, "
              "'5 s')\n"
              "print('ready', flush=True)\n"
              "time.sleep(600)\n")
    parent = subprocess.Popen([PY, "-c", script], cwd=REPO, stdout=subprocess.PIPE, text=True)
    try:
        assert parent.stdout.readline().strip() == "ready"
        assert len(marked_processes(mark)) == 1
    finally:
        parent.kill()
        parent.wait()
    assert bots_left(mark) == []


# --- play, errors, the protocol ------------------------------------------------------------------
def test_play_limits_a_cmd_opponent_with_move_time_and_game_time(tmp_path, mark):
    record = tmp_path / "hang.json"
    t0 = time.monotonic()
    run = subprocess.run(
        [PY, "-m", "meduris_rl.cli", "play", "--opponents", f"{FAULTY} hang", "--seat", "1",
         "--seed", "5", "--move-time", "0.5", "--record", str(record)],
        input="quit\n", capture_output=True, text=True, timeout=120, cwd=REPO)
    assert run.returncode == 0, run.stderr
    assert time.monotonic() - t0 < 10  # not the default 10 s per move
    assert "game over (forfeit)" in run.stdout and "won by seat 1 (human)" in run.stdout
    assert "forfeits: timeout: no answer within 0.5 s (the move time)" in run.stdout  # why
    meta = GameRecord.load(record).meta
    assert meta["forfeit"] == "timeout: no answer within 0.5 s (the move time)"
    assert meta["forfeit_seat"] == 0
    slow = tmp_path / "slow.json"
    run = subprocess.run(
        [PY, "-m", "meduris_rl.cli", "play", "--opponents", f"{FAULTY} slow", "--seat", "1",
         "--seed", "5", "--game-time", "0.35", "--record", str(slow)],
        input="1\n" * 400, capture_output=True, text=True, timeout=120, cwd=REPO)
    assert run.returncode == 0, run.stderr
    assert GameRecord.load(slow).meta["forfeit"] == ("timeout: no answer within the game time "
                                                    "of 0.35 s")
    assert bots_left(mark) == []


@pytest.mark.parametrize("args,message", [
    (["--agents", "cmd:./no-such-bot --fast,random"],
     "agent 'cmd:./no-such-bot --fast': the program './no-such-bot' is not found"),
    (["--agents", "cmd:no-such-bot-anywhere,random"],
     "the program 'no-such-bot-anywhere' is not found on PATH"),
    (["--agents", "cmd:python 'unclosed,random"], "cannot split the command"),
    (["--agents", "random,greedy", "--move-time", "0"],
     "--move-time: 0 is not a positive number of seconds"),
    (["--agents", "random,greedy", "--game-time", "soon"],
     "--game-time: 'soon' is not a number of seconds"),
])
def test_a_bad_command_or_limit_is_one_line_before_any_game(tmp_path, capsys, args, message):
    try:
        code = main(["tournament", *args, "--out", str(tmp_path / "o"), "--no-progress"])
    except SystemExit as stop:  # (argparse's usage errors)
        code = stop.code
    assert code == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and message in err, err
    assert not (tmp_path / "o" / "games.csv").exists()


def test_the_messages_follow_the_documented_protocol(tmp_path):
    heard = tmp_path / "heard.jsonl"
    bot = SubprocessAgent("recorder", f"{PY} {REPO / 'tests/data/bots/recorder_bot.py'} {heard}",
                          log_dir=tmp_path)
    game = MedurisGame(2)
    try:
        result = play_game(game, [make_agent("greedy"), bot], seed=11)
        assert result.forfeit == "" and bot.bot_name == "recorder"
    finally:
        close_agents([bot])
    messages = [json.loads(line) for line in heard.read_text().splitlines()]
    hello, new, first = messages[:3]
    assert hello == {"type": "hello", "protocol": 1, "game": "meduris"}
    assert new == {"type": "new_game", "game": "meduris", "seat": 1, "players": 2,
                   "seed": agent_seeds(11, -1, 2)[1], "exchange": "auto", "max_turns": 1000,
                   "board": game.board.name, "move_time": 10.0, "game_time": None}
    assert first["type"] == "decide" and first["seat"] == 1 and first["time_left"] is None
    assert len(first["observation"]["observation"]) == 1470
    mask = first["observation"]["action_mask"]
    assert [a for a, _ in first["legal"]] == [i for i, m in enumerate(mask) if m]
    assert all(text == action_to_string(a) for a, text in first["legal"])
    state = game.state_from_json(json.dumps(first["state"]))
    assert state.current_player() == 1 and state.legal_actions() == [a for a, _ in
                                                                      first["legal"]]
    assert first["decision"] == state.pending_decision()
    decides = [m for m in messages if m["type"] == "decide"]
    assert len(decides) == result.decisions_per_seat[1]
    over = messages[-2]
    assert over == {"type": "game_over", "seat": 1, "vp": result.vp, "ranks": result.ranks,
                    "winners": result.winners, "end_reason": result.end_reason, "forfeit": "",
                    "forfeit_seat": None}
    assert messages[-1] == {"type": "quit"}  # close() asks it to leave


# --- Druids ------------------------------------------------------------------------------------
@pytest.mark.parametrize("command", [f"{PY} examples/random_bot.py", "node examples/random_bot.js"])
def test_an_example_bot_plays_druids(tmp_path, mark, command, monkeypatch):
    monkeypatch.chdir(REPO)
    agent = f"cmd:{command}"
    got = tournament(tmp_path, f"{agent},random", "--game", "druids", "--save-records", "0-1",
                     games=2)
    assert got["summary"]["config"]["game"] == "druids"
    assert [r["forfeit"] for r in got["rows"]] == ["", ""]
    assert {r["seat0_agent"] for r in got["rows"]} == {agent, "random"}
    for path in sorted((tmp_path / "records").glob("game-*.json")):
        assert GameRecord.load(path).replay().is_terminal()  # every move legal
    assert bots_left(mark) == []


DRUIDS_FAULTS = [("hang", "timeout: no answer within 0.5 s (the move time)"),
                 ("illegal", "illegal: action 999 is not legal now"),
                 ("crash", "crashed: exit code 3")]  # (crash: at seat 1 only)


@pytest.mark.parametrize("mode,reason", DRUIDS_FAULTS)
def test_a_faulty_druids_bot_forfeits_as_in_meduris(tmp_path, mark, mode, reason):
    agent = f"{FAULTY} {mode}"
    rows = tournament(tmp_path, f"{agent},random", "--game", "druids", "--move-time", "0.5",
                      games=2)["rows"]
    for r in rows:
        seat = 0 if r["seat0_agent"] == agent else 1
        if mode == "crash" and seat == 0:  # it plays the game out
            assert r["forfeit"] == "" and r["end_reason"] != "forfeit"
            continue
        assert r["end_reason"] == "forfeit" and r["forfeit_seat"] == str(seat)
        assert r["forfeit"].startswith(reason) and r["winners"] == str(1 - seat)
    assert bots_left(mark) == []


class Witness(SubprocessAgent):
    """A cmd: agent keeping a copy of each true state it was asked to decide in."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.states = []

    def act(self, observation, state) -> int:
        self.states.append(state.clone())
        return super().act(observation, state)


def hidden_gems(state, seat: int) -> set[int]:
    """The gems ``seat`` cannot know (D14): the other hands', the others' face-down gems above
    the places and their discards, the gem deck."""
    hidden = {c for q, hand in enumerate(state.hands) if q != seat for c in hand if is_gem(c)}
    hidden |= {c for pile in state.above for c, who in pile if who != seat}
    hidden |= {c for c, who in state.discards if who != seat}
    return hidden | set(state.gem_deck)


def cards_named(message: dict) -> set[int]:
    """Every card id the message's state names (hand, set, discards, cards on the table, gems
    revealed, the events' cards)."""
    pos = message["state"]["position"]
    named = set(pos["hand"]) | set(pos["servant_set"]) | set(pos["discards"])
    named |= set(pos["removed"]) | {c for _, c in pos["reveals"]}
    named |= {c for pile in pos["above"] + pos["under"] for c, _ in pile if c is not None}
    return named | {d["card"] for _, _, d, _, _ in message["state"]["events"]
                    if d.get("card") is not None}


def test_a_druids_bot_is_sent_only_what_its_seat_knows(tmp_path):
    heard = tmp_path / "heard.jsonl"
    bot = Witness("recorder", f"{PY} {REPO / 'tests/data/bots/recorder_bot.py'} {heard}",
                  log_dir=tmp_path)
    try:
        result = play_game(DruidsGame(3), [make_agent("random", "druids"), bot,
                                           make_agent("greedy", "druids")], seed=7)
    finally:
        close_agents([bot])
    assert result.forfeit == "" and bot.bot_name == "recorder"
    messages = [json.loads(line) for line in heard.read_text().splitlines()]
    assert messages[0] == {"type": "hello", "protocol": 1, "game": "druids"}
    assert messages[1] == {"type": "new_game", "game": "druids", "seat": 1, "players": 3,
                           "seed": agent_seeds(7, -1, 3)[1], "max_turns": 500, "circles": 5,
                           "move_time": 10.0, "game_time": None}
    decides = [m for m in messages if m["type"] == "decide"]
    assert len(decides) == len(bot.states) == result.decisions_per_seat[1] > 20
    rng, redealt = random.Random(0), 0
    for sent, state in zip(decides, bot.states, strict=True):
        legal = state.legal_actions()
        assert sent == json.loads(decide_message(state, 1, legal, observe_druids(state, 1),
                                                 None))
        assert len(sent["observation"]["observation"]) == 857
        other = resample_hidden(state, 1, rng)  # another deal of what seat 1 cannot see
        redealt += other.hands != state.hands
        assert sent == json.loads(decide_message(other, 1, legal, observe_druids(other, 1),
                                                 None))
        hidden = hidden_gems(state, 1)
        assert hidden and not hidden & cards_named(sent)
        assert not any(gem_name(c) in text for c in hidden for _, text in sent["legal"])
    assert redealt > len(decides) // 2  # the other deals differed: the test could fail
    view = decides[-1]["state"]  # no other field: never the history (chance outcomes name
    assert list(view) == ["game", "params", "viewer", "to_move", "position", "events"]  # cards)
    assert set(view["position"]) == {*PUBLIC_FIELDS, "above", "under", "hand", "servant_set",
                                     "discards", "hand_gems", "hand_servants",
                                     "servant_set_sizes", "discard_counts", "gem_deck_size",
                                     "place_deck_size"}
    assert not {"hands", "gem_deck", "servant_sets", "drawn_at", "played_at"} & set(
        PUBLIC_FIELDS)


def test_one_cmd_agent_playing_another_game_starts_a_child_for_it(tmp_path):
    heard = tmp_path / "heard.jsonl"
    bot = SubprocessAgent("recorder", f"{PY} {REPO / 'tests/data/bots/recorder_bot.py'} {heard}",
                          log_dir=tmp_path)
    try:
        for game in (DruidsGame(2), MedurisGame(2)):
            assert play_game(game, [bot, make_agent("random")], seed=1).forfeit == ""
    finally:
        close_agents([bot])
    messages = [json.loads(line) for line in heard.read_text().splitlines()]
    said = [(m["type"], m.get("game")) for m in messages if m["type"] in ("hello", "new_game")]
    assert said == [("hello", "druids"), ("new_game", "druids"), ("hello", "meduris"),
                    ("new_game", "meduris")]


# --- scoring a forfeit -------------------------------------------------------------------------
class Quitter(Agent):
    """Forfeits at its ``after``-th decision; remembers the results it is told."""

    def __init__(self, after: int):
        super().__init__("quitter")
        self.after, self.made, self.told = after, 0, []

    def act(self, observation, state) -> int:
        self.made += 1
        if self.made == self.after:
            raise Forfeit("timeout: made up\nover two lines")
        return state.legal_actions()[0]

    def game_over(self, result) -> None:
        self.told.append(result)


def test_a_forfeit_is_a_loss_the_others_keep_their_order():
    quitter, greedy = Quitter(after=12), make_agent("greedy")
    result = play_game(MedurisGame(3), [make_agent("random"), quitter, greedy], seed=2,
                       keep_record=True)
    assert result.end_reason == "forfeit" and result.forfeit_seat == 1
    assert result.forfeit == "timeout: made up over two lines"  # one line
    assert result.ranks[1] == 3 and sorted(result.ranks[s] for s in (0, 2)) in ([1, 2], [1, 1])
    assert result.winners == [s for s in (0, 2) if result.ranks[s] == 1]
    assert result.record["meta"] == {"forfeit": result.forfeit, "forfeit_seat": 1}
    assert quitter.told == [result]  # every agent is told the result


@pytest.mark.parametrize("ranks,seat,expected", [
    ([1, 2], 0, [2, 1]),
    ([2, 1], 1, [1, 2]),
    ([1, 2, 3], 0, [3, 1, 2]),
    ([2, 2, 1, 4], 2, [1, 1, 4, 3]),
    ([1, 1, 1], 1, [1, 3, 1]),
])
def test_forfeit_ranks(ranks, seat, expected):
    assert forfeit_ranks(ranks, seat) == expected


# --- time limits: finite, above 0, at most a day (issue 31) ------------------------------------
BOT = f"{PY} {REPO / 'examples/random_bot.py'}"
TOO_LONG = ["1e308", "3e6", "86401", "nan", "inf", "-1", "0"]


@pytest.mark.parametrize("command", [
    ["tournament", "--agents", f"cmd:{BOT},random", "--out", "{tmp}/o", "--no-progress"],
    ["duel", f"cmd:{BOT}", "random", "--no-progress"],
    ["play", "--agents", f"cmd:{BOT}", "--players", "2"],
    ["ladder", "add", f"cmd:{BOT}", "--db", "{tmp}/l.sqlite", "--no-progress"],
])
@pytest.mark.parametrize("flag", ["--move-time", "--game-time"])
def test_a_time_limit_beyond_a_day_or_not_finite_is_one_line(command, flag, tmp_path, capsys):
    """--move-time 1e308 was a 48-line OverflowError traceback (selectors.select): every
    command refuses each of these values in one usage line, exit 2, before any game."""
    for value in TOO_LONG:
        argv = [a.format(tmp=tmp_path) for a in command] + [f"{flag}={value}"]
        with pytest.raises(SystemExit) as stop:
            main(argv)
        err = capsys.readouterr().err
        assert stop.value.code == 2, (argv, err)
        assert len(err.strip().splitlines()) == 1 and flag in err, err
        assert "is not a positive number of seconds up to 86400" in err, err
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize("key,value", [
    ("move_time", float("nan")), ("move_time", 1e308), ("move_time", -1), ("move_time", 0),
    ("move_time", 86_400.5), ("move_time", True), ("move_time", "10"), ("game_time", 1e308),
    ("game_time", float("inf")), ("game_time", 0.0)])
def test_the_python_api_checks_the_limits(key, value):
    """SubprocessAgent(...), its set_limits and the module's set_limits refuse the same values
    (a ValueCheckError, one line naming the limit); a day is the most."""
    from meduris_rl.agents.plugins.external import MAX_SECONDS, set_limits
    from meduris_rl.kit.values import ValueCheckError
    with pytest.raises(ValueCheckError, match=key) as caught:
        SubprocessAgent("b", BOT, **{key: value})
    assert "\n" not in str(caught.value)
    bot = SubprocessAgent("b", BOT, move_time=MAX_SECONDS, game_time=MAX_SECONDS)
    with pytest.raises(ValueCheckError, match=key):
        bot.set_limits(**{key: value})
    with pytest.raises(ValueCheckError, match=key):
        set_limits([], **{key: value})  # (checked even with no subprocess agent)
    assert (bot.move_time, bot.game_time) == (MAX_SECONDS, MAX_SECONDS)
    bot.set_limits(0.25, 2.5)
    assert (bot.move_time, bot.game_time) == (0.25, 2.5)

"""A fair, unbreakable arena (issue 46): a worker process killed mid-run (SIGKILL, as the
out-of-memory killer does) costs only the game it was playing, played again with the same seed,
so a tournament, a duel and a ladder complete with every planned game once and the results of an
undisturbed run; nothing is left running. And agents are told nothing that leads to the game's
chance: their seeds come from a one-way function of the run's seed, not from the game's."""

import csv
import json
import multiprocessing
import os
import random
import sys
from pathlib import Path

import pytest

from meduris_rl.agents.arena.duel import DuelConfig, run_duel
from meduris_rl.agents.arena.ladder.gauntlet import play_gauntlet
from meduris_rl.agents.arena.ladder.store import open_ladder
from meduris_rl.agents.arena.match import play_game
from meduris_rl.agents.arena.tournament import TournamentConfig, games_csv, run_tournament
from meduris_rl.cli import main
from meduris_rl.kit.games import game_spec
from meduris_rl.kit.seeding import agent_seeds, derive_seed

REPO = Path(__file__).resolve().parent.parent
KILLER = str(Path(__file__).parent / "data" / "bots" / "killer.py") + ":Killer"


def semaphores() -> set[str]:
    """The POSIX semaphores this process has open (mapped from /dev/shm: multiprocessing's
    locks and queues; the supervised workers use pipes only)."""
    maps = Path("/proc/self/maps")
    if not maps.exists():
        return set()
    return {line.split()[-1] for line in maps.read_text().splitlines() if "/sem." in line}


@pytest.fixture
def kill_once(tmp_path, monkeypatch):
    """Arms the killer plug-in: the first worker to start its second game dies by SIGKILL."""
    marker = tmp_path / "killed"
    monkeypatch.setenv("MEDURIS_KILL_MARKER", str(marker))
    before = semaphores()
    yield marker
    assert multiprocessing.active_children() == []  # no worker left
    assert semaphores() <= before  # no semaphore left behind


def test_a_worker_killed_mid_tournament_costs_one_game_replayed_with_its_seed(kill_once):
    cfg = dict(agents=[KILLER, "greedy"], games=8, workers=2, seed=5)
    results, summary = run_tournament(TournamentConfig(**cfg))
    assert kill_once.exists()  # a worker was killed
    os.environ.pop("MEDURIS_KILL_MARKER")
    calm, _ = run_tournament(TournamentConfig(**cfg))
    assert summary["games"] == 8 and [r.seed for r in results] == [r.seed for r in calm]
    assert games_csv(results, 2) == games_csv(calm, 2)


def test_a_worker_killed_mid_duel_leaves_the_duel_of_an_undisturbed_run(kill_once):
    cfg = dict(a=KILLER, b="random", max_games=8, workers=2, seed=3, elo1=5)
    disturbed = run_duel(DuelConfig(**cfg)).to_dict()
    assert kill_once.exists()
    os.environ.pop("MEDURIS_KILL_MARKER")
    calm = run_duel(DuelConfig(**cfg)).to_dict()
    for key in ("result", "games", "pairs", "pentanomial", "llr"):
        assert disturbed[key] == calm[key], key


def test_a_worker_killed_mid_ladder_stores_every_game_once(kill_once, tmp_path):
    def gauntlet(db):
        with open_ladder(db) as store:
            from meduris_rl.agents.arena.ladder.anchors import ladder_of
            from meduris_rl.agents.arena.ladder.store import copy_anchors
            copy_anchors(ladder_of(None).shipped, store, 2)
            play_gauntlet(store, KILLER, 2, 6, 11, workers=2, say=lambda line: None)
            return sorted((g.key, g.ranks, g.vp) for g in store.games(2, KILLER))
    disturbed = gauntlet(tmp_path / "a.db")
    assert kill_once.exists()
    os.environ.pop("MEDURIS_KILL_MARKER")
    calm = gauntlet(tmp_path / "b.db")
    assert len(disturbed) == 6 and disturbed == calm


def test_an_agents_seed_does_not_lead_to_the_games_seed():
    """The attack of issue 46: a bot was told derive_seed(game seed, seat + 1), so a scan of the
    31-bit game seeds found the game's (its dice, the hidden cards). Now an agent's seed is a
    one-way function of the run's seed: the same scan over every game seed of a run, and over
    the small seeds people type, finds nothing."""
    run_seed, players = derive_seed(2026, 11, 28), 2  # (any seed the agents do not know)
    games = [derive_seed(run_seed, i) for i in range(200)]
    told = {s for i in range(200) for s in agent_seeds(run_seed, i, players)}
    old_scheme = {derive_seed(g, seat + 1) for g in games + list(range(5000))
                  for seat in range(players)}
    assert not told & old_scheme
    assert not told & set(games)
    # and the seeds are the run's, reproducibly, distinct per game and seat
    assert agent_seeds(run_seed, 7, 3) == agent_seeds(run_seed, 7, 3)
    assert len(told) == 400


@pytest.mark.parametrize("game", ["meduris", "druids"])
def test_a_bot_in_play_is_not_seeded_from_the_games_seed(tmp_path, game):
    """``meduris play`` (a person against bots, whose hidden cards a bot must not learn): the
    seed is the run's; the bots are reset with its agent seeds, never with anything derived
    from the game's chance seed (which they could scan for)."""
    import io

    from meduris_rl.agents import make_agent
    from meduris_rl.agents.arena.play import play_human
    from meduris_rl.kit.records import GameRecord

    told = []
    bot = make_agent("random", game=game)
    reset = bot.reset
    bot.reset = lambda seed: told.append(seed) or reset(seed)
    path = tmp_path / "p.json"
    assert play_human(2, [bot], 0, 4, path, io.StringIO("quit\n"), io.StringIO(), game) == 0
    record = GameRecord.load(path)
    assert record.meta["run_seed"] == 4 and told == [agent_seeds(4, 0, 2)[1]]
    chance = record.seed  # (what a bot must not learn: the game's chance seed)
    assert chance == derive_seed(4, 0)
    leaked = {*agent_seeds(chance, -1, 2), *(derive_seed(chance, s + 1) for s in range(2)),
              chance}
    assert told[0] not in leaked
    # no seed given: one drawn, of 63 bits, so that no scan finds it (fails once in 2**32)
    from meduris_rl.cli.commands.play import play
    assert play(2, "random", 0, None, tmp_path / "q.json", io.StringIO("quit\n"),
                io.StringIO(), game=game) == 0
    assert GameRecord.load(tmp_path / "q.json").meta["run_seed"].bit_length() > 31


def test_a_duel_without_a_seed_says_the_drawn_one_so_it_can_be_repeated():
    drawn = run_duel(DuelConfig(a="random", b="greedy", max_games=4))
    assert drawn.config.seed_drawn and drawn.config.seed.bit_length() > 31  # (1 in 2**32)
    assert f"seed {drawn.config.seed} (drawn: --seed repeats the duel)" in drawn.summary()
    again = run_duel(DuelConfig(a="random", b="greedy", max_games=4, seed=drawn.config.seed))
    assert again.summary().splitlines()[-1].endswith(f"seed {drawn.config.seed}")
    assert again.counts == drawn.counts


def test_a_tournament_without_a_seed_draws_one_and_records_it():
    a = TournamentConfig(agents=["random", "random"], games=2)
    b = TournamentConfig(agents=["random", "random"], games=2)
    assert a.seed != b.seed and a.seed_drawn and 0 <= a.seed < 2**63
    results, summary = run_tournament(a)
    assert summary["config"]["seed"] == a.seed and summary["config"]["seed_drawn"] is True
    again, _ = run_tournament(TournamentConfig(agents=["random", "random"], games=2,
                                               seed=a.seed))
    assert games_csv(results, 2) == games_csv(again, 2)  # reproducible from the record


class StateEditor:
    """A hostile in-process plug-in: it edits the state it is given (it tries to end the game
    at once), then plays its first legal action."""

    def act(self, observation, state):
        legal = state.legal_actions()
        try:
            state.apply_action(legal[-1])  # (on the live state this would move for it)
        except Exception:
            pass
        return legal[0]


def test_an_in_process_plug_in_gets_a_copy_of_the_state():
    from meduris_rl.agents.plugins.load import build
    from meduris_rl.agents.simple import RandomAgent
    game = game_spec(None).make(2, {})
    editor = build(StateEditor, "editor", None, "editor")
    result = play_game(game, [editor, RandomAgent("b")], 9, keep_history=True)
    replay, moves = game.new_initial_state(), 0
    for action in result.history:
        moves += replay.current_player() >= 0  # (not a chance outcome)
        replay.apply_action(action)
    # every action of the game was a decision of an agent or chance: the editor's own
    # apply_action never reached the game (on the live state it would have added moves)
    assert moves == result.decisions and replay.is_terminal()


# --- cmd: bots: what they say and when they die -------------------------------------------------
FAULTY = f"cmd:{sys.executable} {Path(__file__).parent / 'data' / 'bots' / 'faulty_bot.py'}"


def tournament_rows(out: Path, agents: str, *flags: str, games: int = 4) -> list[dict]:
    code = main(["tournament", "--agents", agents, "--games", str(games), "--seed", "3",
                 "--workers", "1", "--out", str(out), "--no-progress", *flags])
    assert code == 0
    with open(out / "games.csv", newline="", encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


@pytest.mark.parametrize("mode,reason", [
    ("percent", "malformed: '100% sure: %d %s %(x)s %' is not a JSON object with an integer "
                "action, e.g. {\"action\": "),
    ("bytes", "malformed: "),
    ("twice", "malformed: '{\"action\": "),
    ("ahead", "malformed: it sent '{\"action\": "),
    ("once", "crashed: exit code 0"),  # (dead before its next decision, or at it)
    ("killed", "crashed: killed by SIGKILL"),
])
def test_a_bots_bad_text_or_death_between_moves_forfeits_only_its_game(tmp_path, mode, reason):
    """Issue 46: a % in an answer crashed the run (the message applied % formatting to it);
    random bytes too. A bot that dies while the others move (killed, or exiting after each
    answer) forfeits that game, said so, instead of being restarted mid-game."""
    agent = f"{FAULTY} {mode}"
    rows = tournament_rows(tmp_path, f"{agent},mcts:30")
    assert len(rows) == 4
    for r in rows:
        seat = 0 if r["seat0_agent"] == agent else 1
        assert r["end_reason"] == "forfeit" and r["forfeit_seat"] == str(seat), r
        assert r["forfeit"].startswith(reason), r["forfeit"]
    log = "".join(p.read_text() for p in (tmp_path / "logs").glob("*.log"))
    # a new game is begun once per game: never a second new_game for the same game
    assert log.count("(seed ") == 4 and log.count("starting") == 4
    for r in rows:  # each log section names its games.csv row: the game and its seed
        assert f" game {r['game']} (seed {r['seed']}, the run's games.csv), " in log, r


def test_a_bot_dead_when_its_game_needs_it_again_forfeits_and_is_not_restarted(tmp_path):
    from meduris_rl.agents.base import Forfeit
    from meduris_rl.agents.plugins.external import SubprocessAgent
    bot = SubprocessAgent("b", f"{sys.executable} {REPO / 'examples' / 'random_bot.py'}",
                          log_dir=tmp_path)
    game = game_spec(None).make(2, {})
    state, rng = game.new_initial_state(), random.Random(1)
    bot.reset(5)
    while state.current_player() != 0:
        state.apply_action(state.sample_chance(rng))
    state.apply_action(bot.act(None, state))
    started = bot.proc.pid
    os.kill(started, 9)  # (its keeper: the bot and all it started go)
    bot.proc.wait()
    while state.current_player() != 0:
        legal = state.legal_actions()
        state.apply_action(state.sample_chance(rng) if state.is_chance_node() else legal[0])
    with pytest.raises(Forfeit, match=r"^crashed: killed by SIGKILL, while the other seats "
                                      r"moved \(after its answer at turn 0\)$"):
        bot.act(None, state)
    assert bot.proc is None  # closed, not restarted for this game
    log = next(tmp_path.glob("*.log")).read_text()
    assert log.count("starting") == 1 and log.count("(seed ") == 1  # one new_game only
    bot.close()


def test_a_hello_with_protocol_true_is_refused(tmp_path, capsys):
    code = main(["tournament", "--agents", f"{FAULTY} truthy,random", "--games", "2", "--out",
                 str(tmp_path), "--no-progress"])
    assert code == 2 and "handshake: protocol True; this side speaks protocol 1" in \
        capsys.readouterr().err


def test_a_50_mb_stderr_flood_leaves_at_most_the_cap_on_disk(tmp_path):
    from meduris_rl.agents.plugins.external import LOG_CAP
    rows = tournament_rows(tmp_path, f"{FAULTY} stderr,random", games=2)
    assert all(r["forfeit"] == "" for r in rows)  # it played on
    logs = list((tmp_path / "logs").glob("*.log"))
    assert logs and all(p.stat().st_size <= LOG_CAP + 200 for p in logs)
    assert "the log is cut here" in logs[0].read_text()


def test_an_answer_line_of_random_bytes_is_always_a_forfeit_never_an_error():
    from meduris_rl.agents.base import Forfeit
    from meduris_rl.agents.plugins.external import decode_answer
    rng = random.Random(46)
    for _ in range(2000):
        line = bytes(rng.randrange(256) for _ in range(rng.randrange(1, 80)))
        for text in (line, b'{"action": "' + line + b'"}', b"%" + line + b"%s%d"):
            try:
                decode_answer(text, [0, 1, 2])
            except Forfeit as err:
                assert "\n" not in err.reason
    assert decode_answer(b'{"action": 2}', [0, 1, 2]) == 2


# --- plug-ins in workers, names -----------------------------------------------------------------
@pytest.mark.parametrize("plugin,said", [
    ("Exits", "agent '{name}': act raised SystemExit: 3"),
    ("Unreadable", "agent '{name}': act raised Unreadable: (its message raised an exception "
                   "too)"),
    ("ResetRaises", "agent '{name}': reset raised ValueError: no"),
    ("BuiltInWorkersOnly", "worker"),
    ("ExitsProcess", "was lost with its worker process 3 times (the last: exit code 9)"),
])
def test_a_plug_in_failing_in_workers_ends_the_run_in_one_line(tmp_path, capsys, plugin, said):
    name = f"{Path(__file__).parent / 'data' / 'bots' / 'hostile.py'}:{plugin}"
    code = main(["tournament", "--agents", f"{name},random", "--games", "4", "--workers", "2",
                 "--out", str(tmp_path / "out"), "--no-progress"])
    err = capsys.readouterr().err
    assert code == 2 and len(err.strip().splitlines()) == 1, err
    assert said.format(name=name) in err
    assert multiprocessing.active_children() == []


def test_an_agent_name_that_is_not_text_is_refused_before_any_game(tmp_path, capsys):
    bad = "random\udcff"  # (an undecodable byte of the command line, as Python keeps it)
    code = main(["tournament", "--agents", f"{bad},greedy", "--out", str(tmp_path / "o"),
                 "--no-progress"])
    err = capsys.readouterr().err
    assert code == 2 and "a name is printable UTF-8 text" in err and "\\udcff" in err
    assert not (tmp_path / "o").exists()


# --- interrupted runs -----------------------------------------------------------------------------
@pytest.mark.parametrize("stop", ["SIGINT", "SIGTERM"])
def test_ctrl_c_writes_the_finished_games_and_resume_completes_the_same_run(tmp_path, stop):
    """Issue 46: Ctrl-C discarded every finished game and the folder then refused a rerun. Now
    the finished games are written, the summary says "interrupted after N of M", and --resume
    plays the rest: games.csv equals an uninterrupted run's, nothing played twice. SIGTERM (a
    service manager's stop, ``kill``) does as Ctrl-C (SIGINT) does."""
    import signal
    import subprocess
    import time
    flags = ["tournament", "--agents", "greedy,mcts:60", "--games", "40", "--seed", "9",
             "--workers", "2", "--no-progress"]
    cli = [sys.executable, "-m", "meduris_rl.cli"]
    run = subprocess.Popen([*cli, *flags, "--out", str(tmp_path / "cut")], cwd=REPO,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    journal = tmp_path / "cut" / "progress.jsonl"
    deadline = time.monotonic() + 240
    while (not journal.exists() or journal.read_text().count("\n") < 6) \
            and time.monotonic() < deadline and run.poll() is None:
        time.sleep(0.05)
    run.send_signal(getattr(signal, stop))
    _, err = run.communicate(timeout=120)
    assert run.returncode == 130, err
    played = journal.read_text().count("\n") - 1
    assert f"interrupted after {played} of 40 games" in err and "--resume" in err
    summary = json.loads((tmp_path / "cut" / "summary.json").read_text())
    assert summary["interrupted"] == f"after {played} of 40 games" and summary["games"] == played
    rows = (tmp_path / "cut" / "games.csv").read_text().splitlines()
    assert len(rows) == played + 1
    refused = subprocess.run([*cli, *flags, "--out", str(tmp_path / "cut")], cwd=REPO,
                             capture_output=True, text=True, timeout=120)
    assert refused.returncode == 2 and "finish it with --resume" in refused.stderr
    resumed = subprocess.run([*cli, "tournament", "--resume", "--out", str(tmp_path / "cut"),
                              "--no-progress"], cwd=REPO, capture_output=True, text=True,
                             timeout=600)
    assert resumed.returncode == 0, resumed.stderr
    assert f"{played} of 40 games were played" in resumed.stderr
    whole = subprocess.run([*cli, *flags, "--out", str(tmp_path / "whole")], cwd=REPO,
                           capture_output=True, text=True, timeout=600)
    assert whole.returncode == 0
    assert (tmp_path / "cut" / "games.csv").read_text() == \
        (tmp_path / "whole" / "games.csv").read_text()
    assert not journal.exists()  # the run is complete


def test_resume_takes_the_runs_own_settings_and_reads_its_journal_strictly(tmp_path, capsys):
    (tmp_path / "progress.jsonl").write_text('{"journal": 1, "config": {"agents": ["random", '
                                             '"random"], "games": 4, "seed": 1}}\n'
                                             '{"game": 99, "result": {}}\n')
    assert main(["tournament", "--resume", "--out", str(tmp_path), "--seed", "3"]) == 2
    assert "leave out --seed" in capsys.readouterr().err
    assert main(["tournament", "--resume", "--out", str(tmp_path), "--no-progress"]) == 2
    assert "line 2 is not a finished game of this run" in capsys.readouterr().err
    assert main(["tournament", "--resume", "--out", str(tmp_path / "none")]) == 2
    assert "holds no interrupted tournament" in capsys.readouterr().err

"""The rating ladder (``meduris ladder``, :mod:`meduris_rl.agents.arena.ladder`): the
maximum-likelihood fit recovers known ratings with random = 0, the gauntlet follows its estimate,
``show`` is reproducible from the stored games, the anchors' ratings increase with the MCTS budget
on a small real run, a SIGKILLed ``ladder add`` resumes with no game lost or duplicated, and bad
input is one line. Plug-ins of every form (entry point, a file outside the project, a module)
are placed by two worker processes; a ``cmd:`` bot over ``--move-time`` or ``--game-time``
forfeits; adding an agent never moves the anchors (``--free-anchors``: the joint fit does)."""

import json
import math
import os
import random
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import psutil
import pytest
from helpers import run_cli

from meduris_rl.agents.arena.ladder import (
    fit_ratings,
    ladder_of,
    open_ladder,
    play_anchors,
    play_gauntlet,
)
from meduris_rl.agents.arena.ladder.fit import orderings
from meduris_rl.agents.arena.ladder.gauntlet import gauntlet_rounds
from meduris_rl.agents.arena.ladder.report import NAME_WIDTH
from meduris_rl.agents.arena.ladder.store import ANCHORS, LadderError, game_key
from meduris_rl.agents.arena.match import GameResult
from meduris_rl.kit.values import printable

REPO = Path(__file__).resolve().parent.parent
SMALL = ["random", "mcts:5", "mcts:50"]  # small real anchors (random < mcts:5 < mcts:50)

SHIPPED = ladder_of("meduris").shipped


def synthetic(true: dict[str, float], players: int, games: int, seed: int = 1):
    """Plackett-Luce games between agents of known Elo ratings: (agents, ranks) pairs."""
    rng = random.Random(seed)
    names = sorted(true)
    out = []
    for _ in range(games):
        agents = rng.sample(names, players)
        rest, order = list(agents), []
        while rest:
            weights = [10 ** (true[a] / 400) for a in rest]
            pick = rng.choices(rest, weights)[0]
            order.append(pick)
            rest.remove(pick)
        out.append((agents, [order.index(a) + 1 for a in agents]))
    return out


def result(agents, ranks, seed=0) -> GameResult:
    n = len(agents)
    return GameResult(seed=seed, agents=list(agents), vp=[0] * n,
                      winners=[s for s in range(n) if ranks[s] == 1], ranks=list(ranks),
                      turns=1, decisions=n, end_reason="game_end", seconds_per_seat=[0.0] * n,
                      decisions_per_seat=[1] * n)


def store_games(path: Path, games, players: int, entrant: str = ANCHORS) -> None:
    with open_ladder(path) as store:
        for i, (agents, ranks) in enumerate(games):
            store.add(game_key(players, entrant, agents, i, 0), players, entrant,
                      result(agents, ranks))


# --- the fit -----------------------------------------------------------------------------------
@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_fit_recovers_known_ratings_with_random_at_zero(players):
    true = {"random": 0.0, "a": 250.0, "b": 500.0, "c": 700.0, "d": 900.0}
    fit = fit_ratings(synthetic(true, players, 3000), players)
    got = fit.by_name()
    assert got["random"].elo == 0.0 and got["random"].se == 0.0
    for name, elo in true.items():
        assert abs(got[name].elo - elo) <= max(60.0, 3 * got[name].se), (name, got[name])
        assert got[name].low <= got[name].elo <= got[name].high
    assert [r.name for r in fit.ratings] == ["d", "c", "b", "a", "random"]


def test_the_intervals_cover_the_true_rating_about_95_percent_of_the_time():
    true = {"random": 0.0, "a": 200.0, "b": 400.0}
    covered = total = 0
    for seed in range(40):
        got = fit_ratings(synthetic(true, 2, 300, seed), 2).by_name()
        for name in ("a", "b"):
            total += 1
            covered += got[name].low <= true[name] <= got[name].high
    assert 0.85 <= covered / total <= 1.0, covered / total


def test_a_shared_win_counts_half_a_point_each():
    assert orderings([1, 1]) == [((0, 1), 0.5), ((1, 0), 0.5)]
    assert orderings([2, 1, 2]) == [((1, 0, 2), 0.5), ((1, 2, 0), 0.5)]
    # a draws b 100 times: the same rating
    got = fit_ratings([(["random", "b"], [1, 1])] * 100, 2).by_name()
    assert abs(got["b"].elo) < 1e-6


def test_a_clean_sweep_stays_finite_and_unconnected_agents_are_listed():
    games = [(["random", "a"], [2, 1])] * 20 + [(["x", "y"], [1, 2])] * 4
    fit = fit_ratings(games, 2)
    assert 400 < fit.by_name()["a"].elo < 2000  # the prior's draw keeps it finite
    assert fit.unconnected == ["x", "y"] and fit.games == 20


def test_a_fit_without_random_names_the_command_that_plays_the_anchors():
    with pytest.raises(Exception, match="ladder anchors"):
        fit_ratings([(["a", "b"], [1, 2])], 2)


# --- the gauntlet ------------------------------------------------------------------------------
def test_the_gauntlet_starts_at_the_probes_then_plays_the_anchors_nearest_its_estimate(
        tmp_path):
    true = {"random": 0, "greedy": 300, "mcts:50": 500, "mcts:200": 700, "mcts:800": 900,
            "az:200": 1100}
    order = sorted(true, key=true.get)
    chain = [([order[i], order[i + 1]], ranks) for i in range(len(order) - 1)
             for ranks in ([1, 2], [2, 1], [2, 1], [2, 1], [2, 1])]  # the stronger wins 4 of 5
    db = tmp_path / "l.sqlite"
    store_games(db, chain, 2)
    with open_ladder(db) as store:
        rounds = list(win_every_game(store, gauntlet_rounds(store, "x", 2, 32, seed=3)))
    first = rounds[0]
    assert first.opponents == list(ladder_of("meduris").probes) == ["greedy", "mcts:200"]
    assert len(first.plan) == 8 and first.estimate is None
    assert {p.lineup for p in first.plan} == {("x", "greedy"), ("greedy", "x"),
                                              ("x", "mcts:200"), ("mcts:200", "x")}
    assert len(rounds) == 4 and sum(len(r.plan) for r in rounds) == 32  # rounds of 8 games
    estimates = [r.estimate for r in rounds[1:]]
    assert estimates == sorted(estimates) and estimates[0] > 573  # above mcts:200's rating
    assert rounds[-1].opponents == ["mcts:800", "az:200"]  # x wins all: it climbs to the top
    assert len({p.seed for p in first.plan}) == 2  # a seed per pair, the same for each anchor
    assert len({p.key for r in rounds for p in r.plan}) == 32


def win_every_game(store, rounds):
    """Play each planned round as if the entrant x won every game."""
    for rnd in rounds:
        for p in rnd.plan:
            store.add(p.key, 2, "x", result(p.lineup, [1 if a == "x" else 2 for a in p.lineup]))
        yield rnd


@pytest.fixture(scope="module")
def small_ladder(tmp_path_factory) -> Path:
    """The anchors random, mcts:5, mcts:50, 8 games per pair of neighbours, 2 players."""
    db = tmp_path_factory.mktemp("ladder") / "small.sqlite"
    with open_ladder(db) as store:
        assert play_anchors(store, SMALL, 2, 8, seed=0, workers=1) == 16
    return db


def test_the_anchors_ratings_increase_with_the_mcts_budget(small_ladder):
    with open_ladder(small_ladder) as store:
        fit = fit_ratings([(g.agents, g.ranks) for g in store.games(2)], 2, store.anchors(2))
        assert len(store.games(2)) == 16 and store.anchors(2) == sorted(SMALL)
        assert play_anchors(store, SMALL, 2, 8, seed=0, workers=1) == 0  # all stored: none
    got = fit.by_name()
    assert got["random"].elo == 0 < got["mcts:5"].elo < got["mcts:50"].elo
    assert all(r.anchor for r in fit.ratings)


def test_show_is_reproducible_from_the_stored_games(small_ladder, tmp_path, capsys):
    # the same games stored in another order give the same table, JSON and picture
    other = tmp_path / "shuffled.sqlite"
    with open_ladder(small_ladder) as store:
        games = store.games(2)
    with open_ladder(other) as copy:
        copy.add_stored(list(reversed(games)))
    outputs = []
    for db in (small_ladder, other, small_ladder):
        png = tmp_path / f"{len(outputs)}.png"
        code, text, _ = run_cli(capsys, "ladder", "show", "--db", str(db), "--png", str(png))
        code2, js, _ = run_cli(capsys, "ladder", "show", "--db", str(db), "--json")
        assert code == code2 == 0
        outputs.append((text, js, png.read_bytes()))
    assert outputs[0] == outputs[1] == outputs[2]
    rows = json.loads(outputs[0][1])[0]["ratings"]
    assert {r["agent"] for r in rows} == set(SMALL) and outputs[0][2][:4] == b"\x89PNG"


def test_a_three_player_ladder_rotates_the_seats_and_fits_plackett_luce(tmp_path, capsys):
    db = str(tmp_path / "three.sqlite")
    code, out, err = run_cli(capsys, "ladder", "anchors", "--players", "3", "--anchors",
                             "random,greedy,mcts:5,mcts:20", "--games", "3", "--db", db,
                             "--workers", "1", "--no-progress")
    assert code == 0, err
    code, out, err = run_cli(capsys, "ladder", "add", "mcts:10", "--players", "3", "--games",
                             "6", "--db", db, "--workers", "1", "--no-progress")
    assert code == 0, err
    with open_ladder(db) as store:
        anchors, mine = store.games(3, ANCHORS), store.games(3, "mcts:10")
    assert len(anchors) == 6 and len(mine) == 6  # 2 windows of 3 anchors x 3 rotations; 2 x 3
    units: dict = {}
    for g in anchors + mine:  # a unit: the same agents and seed, in the 3 rotations of seats
        units.setdefault((frozenset(g.agents), g.seed), []).append(g.agents)
    assert len(units) == 4 and all(len(set(seats)) == 3 for seats in units.values())
    for seats in units.values():
        first = seats[0]
        assert sorted(seats) == sorted(first[r:] + first[:r] for r in range(3))
    code, out, _ = run_cli(capsys, "ladder", "show", "--db", db, "--json")
    (table,) = json.loads(out)
    assert table["players"] == 3 and table["model"] == "Plackett-Luce" and table["games"] == 12
    assert {r["agent"] for r in table["ratings"]} == {"random", "greedy", "mcts:5", "mcts:20",
                                                      "mcts:10"}


# --- a killed run ------------------------------------------------------------------------------
def test_sigkill_during_ladder_add_then_a_rerun_loses_and_duplicates_no_game(small_ladder,
                                                                              tmp_path):
    killed, calm = tmp_path / "killed.sqlite", tmp_path / "calm.sqlite"
    shutil.copy(small_ladder, killed)
    shutil.copy(small_ladder, calm)
    args = [sys.executable, "-m", "meduris_rl.cli", "ladder", "add", "greedy", "--games", "12",
            "--db", str(killed), "--workers", "2", "--no-progress", "--seed", "5"]
    proc = subprocess.Popen(args, cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            start_new_session=True)

    def stored() -> int:
        with sqlite3.connect(killed, timeout=30) as con:
            return con.execute("SELECT COUNT(*) FROM games WHERE entrant='greedy'").fetchone()[0]

    deadline = time.monotonic() + 120
    while stored() < 3:
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, "no game stored within 120 s"
        time.sleep(0.02)
    children = psutil.Process(proc.pid).children(recursive=True)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait(timeout=30)
    psutil.wait_procs(children, timeout=30)
    at_kill = stored()
    assert 3 <= at_kill < 12, at_kill  # killed mid-run
    rerun = subprocess.run(args, cwd=REPO, capture_output=True, text=True, timeout=300)
    assert rerun.returncode == 0, rerun.stderr
    assert f"{12 - at_kill} games played ({at_kill} stored before)" in rerun.stdout
    with open_ladder(calm) as store:
        assert play_gauntlet(store, "greedy", 2, 12, seed=5, workers=1, say=lambda _: None) == 12
        expected = [g.outcome() for g in store.games(2)]
    with open_ladder(killed) as store:
        got = [g.outcome() for g in store.games(2)]
    assert got == expected and len({g[0] for g in got}) == len(got) == 16 + 12


def test_ladder_add_on_a_new_file_starts_from_the_shipped_anchors_games(tmp_path, capsys):
    assert SHIPPED.is_file(), "agents/data/ladder_anchors.sqlite is missing"
    with open_ladder(SHIPPED, read_only=True) as shipped:
        anchors = shipped.games(2, ANCHORS)
    db = tmp_path / "mine.sqlite"
    code, out, err = run_cli(capsys, "ladder", "add", "random", "--games", "2", "--db", str(db),
                             "--workers", "1", "--no-progress")
    assert code == 0, err
    assert f"started from the shipped ladder ({len(anchors)} anchors' games" in err
    with open_ladder(db) as store:
        assert [g.outcome() for g in store.games(2, ANCHORS)] == [g.outcome() for g in anchors]
        mine = store.games(2, "random")
    assert len(mine) == 2 and {g.agents for g in mine} == {("random", "greedy"),
                                                           ("greedy", "random")}
    # the shipped scale and the entrant's 2 games
    assert "mcts:1600" in out and f"2 players: {len(anchors) + 2} games" in out


def test_the_shipped_ladder_is_a_rollback_journal_file_so_reading_leaves_nothing_beside_it():
    """A WAL file makes every reader create ``-wal``/``-shm`` files next to it, in the source
    tree (the file header's read/write versions are 2 for WAL, 1 for a rollback journal)."""
    assert SHIPPED.read_bytes()[18:20] == b"\x01\x01"
    with open_ladder(SHIPPED, read_only=True) as store:
        assert store.games(2)
    assert sorted(p.name for p in SHIPPED.parent.glob(SHIPPED.name + "*")) == [SHIPPED.name]


def test_the_shipped_ladders_anchors_climb_with_the_mcts_budget_from_its_games():
    """The issue's "the anchors' ratings increase with the MCTS budget", on the shipped file:
    refitted here from its stored games (``ladder show`` is reproducible from them)."""
    with open_ladder(SHIPPED, read_only=True) as store:
        fit = fit_ratings([(g.agents, g.ranks) for g in store.games(2)], 2, store.anchors(2))
    elo = {r.name: r.elo for r in fit.ratings}
    order = ["random", "greedy", "mcts:50", "mcts:100", "mcts:200", "mcts:400", "mcts:800",
             "mcts:1600"]
    assert [elo[a] for a in order] == sorted(elo[a] for a in order), elo
    assert elo["random"] == 0 and elo["search"] == max(elo.values())  # the shipped search
    assert elo["az:200"] == max(v for k, v in elo.items() if k != "search")


def test_list_names_the_entrants_and_remove_deletes_their_games_only(small_ladder, tmp_path,
                                                                      capsys):
    db = tmp_path / "l.sqlite"
    shutil.copy(small_ladder, db)
    store_games(db, [(["x", "mcts:5"], [1, 2]), (["mcts:5", "x"], [1, 2])], 2, entrant="x")
    code, out, _ = run_cli(capsys, "ladder", "list", "--db", str(db))
    assert code == 0 and "2 players: anchors mcts:5, mcts:50, random (16 games)" in out
    assert "  x: 2 games" in out
    code, out, _ = run_cli(capsys, "ladder", "remove", "x", "--db", str(db))
    assert code == 0 and "removed 2 games of x" in out
    with open_ladder(db) as store:
        assert store.entrants(2) == {} and len(store.games(2)) == 16
    code, out, err = run_cli(capsys, "ladder", "remove", "mcts:5", "--db", str(db))
    assert code == 2 and "'mcts:5' has no 2-player gauntlet" in err  # anchors stay


# Plug-ins (tests/test_plugins.py has the forms): a factory whose policy writes the pid of the
# process it plays in to $P27_PIDS once, so a test sees where the games were played
RECORDER = """
import os


def make(level="0"):
    played = []

    def first_legal(observation):
        if not played:
            played.append(os.getpid())
            with open(os.environ["P27_PIDS"], "a") as fh:
                fh.write(f"{os.getpid()}\\n")
        return int(observation["action_mask"].nonzero()[0][0])
    return first_legal
"""


def outside_folder(tmp_path_factory, monkeypatch) -> Path:
    """A folder outside the project holding a plug-in file (bots/p27file.py) and a module
    (mods/p27mod.py, importable once mods/ is on sys.path, which spawned workers inherit);
    P27_PIDS, the file the pids of the processes that play them are written to."""
    root = tmp_path_factory.mktemp("outside")
    assert REPO not in root.parents
    for folder, name in (("bots", "p27file.py"), ("mods", "p27mod.py")):
        (root / folder).mkdir()
        (root / folder / name).write_text(RECORDER)
    monkeypatch.syspath_prepend(str(root / "mods"))
    monkeypatch.setenv("P27_PIDS", str(root / "pids.txt"))
    return root


@pytest.fixture
def outside(tmp_path_factory, monkeypatch) -> Path:
    return outside_folder(tmp_path_factory, monkeypatch)


def played_in(root: Path) -> set[int]:
    """The pids of the processes a recording plug-in played in."""
    pids = root / "pids.txt"
    return {int(line) for line in pids.read_text().split()} if pids.exists() else set()


@pytest.mark.parametrize("form", ["entry point", "file outside the project", "module"])
def test_plug_ins_of_every_form_are_placed_on_the_ladder_by_two_workers(form, outside,
                                                                        small_ladder, tmp_path,
                                                                        capsys):
    """An installed entry point, a file from outside the project and a module on the path
    each take a gauntlet, built and played inside the worker processes (not this one)."""
    agent = {"entry point": "cautious:2", "file outside the project":
             f"{outside / 'bots' / 'p27file.py'}:make", "module": "p27mod:make:1"}[form]
    db = tmp_path / "plugins.sqlite"
    shutil.copy(small_ladder, db)
    code, out, err = run_cli(capsys, "ladder", "add", agent, "--games", "2", "--db", str(db),
                             "--workers", "2", "--no-progress")
    assert code == 0, err
    with open_ladder(db) as store:
        assert store.entrants(2) == {agent: 2}
        assert {g.agents for g in store.games(2, agent)} == {(agent, "mcts:5"), ("mcts:5", agent)}
    # the closing table rates it (its name cut to the table's column: a file's path is long)
    assert printable(agent, NAME_WIDTH) in out and "entrant" in out
    if form != "entry point" and (os.cpu_count() or 1) >= 2:
        pids = played_in(outside)
        assert pids and os.getpid() not in pids, pids  # played in the workers only


FAULTY = f"cmd:{sys.executable} {REPO / 'tests' / 'data' / 'bots' / 'faulty_bot.py'}"


def test_ladder_add_and_anchors_limit_a_cmd_bot_by_move_time_and_game_time(small_ladder,
                                                                             tmp_path, capsys):
    """A bot that hangs past --move-time, one that uses up --game-time: each forfeits every
    game of its gauntlet (a loss, the reason stored), and the gauntlet completes."""
    db = tmp_path / "limits.sqlite"
    shutil.copy(small_ladder, db)
    cases = {f"{FAULTY} hang": (["--move-time", "0.3"],
                                "timeout: no answer within 0.3 s (the move time)"),
             f"{FAULTY} slow": (["--move-time", "5", "--game-time", "0.4"],
                                "timeout: no answer within the game time of 0.4 s")}
    for agent, (flags, _) in cases.items():
        code, out, err = run_cli(capsys, "ladder", "add", agent, "--games", "2", "--db",
                                 str(db), "--workers", "1", "--no-progress", *flags)
        assert code == 0, err
        assert "2 games played" in out
    code, _, err = run_cli(capsys, "ladder", "anchors", "--anchors", f"random,{FAULTY} hang",
                           "--games", "2", "--db", str(db), "--workers", "1", "--no-progress",
                           "--move-time", "0.3")
    assert code == 0, err
    with open_ladder(db) as store:
        games = store.games(2)
    for agent, (_, reason) in cases.items():
        mine = [g for g in games if agent in g.agents]
        assert len(mine) == {"hang": 4, "slow": 2}[agent[-4:]]  # gauntlet (+ the anchors' link)
        for g in mine:
            seat = g.agents.index(agent)
            assert g.end_reason == "forfeit" and g.forfeit.startswith(reason), g.forfeit
            assert g.ranks[seat] == 2 and g.ranks[1 - seat] == 1  # a loss
    # ladder show says who forfeited how often and why (a broken bot is not merely weak)
    code, out, err = run_cli(capsys, "ladder", "show", "--db", str(db))
    assert code == 0, err
    for agent, (_, reason) in cases.items():
        count = {"hang": 4, "slow": 2}[agent[-4:]]
        assert f"{agent} forfeited {count} game(s) (lost, rated as losses), the first: " \
               f"{reason}" in out
    code, out, err = run_cli(capsys, "ladder", "show", "--db", str(db), "--json")
    forfeits = json.loads(out)[0]["forfeits"]
    assert {a: f["games"] for a, f in forfeits.items()} == {
        f"{FAULTY} hang": 4, f"{FAULTY} slow": 2}


# --- bad input ---------------------------------------------------------------------------------
@pytest.mark.parametrize("argv,message", [
    (["add", "gredy"], "unknown agent 'gredy' (did you mean 'greedy'?)"),
    (["add", "greedy", "--games", "0"], "--games: 0 is outside 1..100000"),
    (["add", "greedy", "--games", "1000000000"], "is outside 1..100000"),
    (["add", "greedy", "--workers", "0"], "--workers: 0 is outside 1..1024"),
    (["add", "greedy", "--players", "5"], "--players 5: Meduris is played by 2, 3 or 4 (R1)"),
    (["add", "greedy", "--seed", "-1"], "--seed: -1 is outside"),
    (["add", "greedy", "--move-time", "0"], "--move-time: 0 is not a positive number of seconds"),
    (["anchors", "--game-time", "inf"], "--game-time: inf is not a positive number"),
    (["anchors", "--anchors", "greedy,mcts:5"], "must include random"),
    (["anchors", "--anchors", "random,random"], "distinct agent names"),
    (["anchors", "--anchors", "random,,greedy"], "--anchors: the 2nd agent name is empty (of 3)"),
    (["anchors", "--anchors", "random,greedy,"], "--anchors: the 3rd agent name is empty"),
    (["show", "--db", "{tmp}/missing.sqlite"], "no ladder at"),
    (["remove", "nobody", "--db", "{small}"], "'nobody' has no 2-player gauntlet"),
    (["show", "--db", "{tmp}"], "is a folder"),
    (["add", "greedy", "--db", "{tmp}/no/such/folder/l.sqlite"], "does not exist"),
])
def test_bad_input_is_one_line(argv, message, tmp_path, small_ladder, capsys):
    argv = [a.format(tmp=tmp_path, small=small_ladder) for a in argv]
    if "--db" not in argv:
        argv += ["--db", str(tmp_path / "l.sqlite")]
    if argv[0] in ("add", "anchors"):
        argv.append("--no-progress")
    code, out, err = run_cli(capsys, "ladder", *argv)
    assert code == 2 and message in err, err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert not (tmp_path / "l.sqlite").exists()  # nothing created by a refused command


def test_anchors_without_random_add_games_to_links_of_a_ladder_that_has_random(small_ladder,
                                                                               tmp_path, capsys):
    """More games for some links (e.g. the strongest anchors') need not repeat random's."""
    db = tmp_path / "copy.sqlite"
    db.write_bytes(small_ladder.read_bytes())
    code, out, err = run_cli(capsys, "ladder", "anchors", "--anchors", "mcts:5,mcts:50",
                             "--games", "10", "--db", str(db), "--workers", "1", "--no-progress",
                             "--seed", "0")  # (the small ladder's: the ladder's own is fresh)
    assert code == 0, err
    assert "2 games played (8 stored before" in out
    with open_ladder(db, read_only=True) as store:
        games = store.games(2)
    assert len(games) == 18
    assert sum(set(g.agents) == {"mcts:5", "mcts:50"} for g in games) == 10


def test_a_db_that_is_another_sqlite_file_or_not_sqlite_is_refused_and_left_alone(tmp_path,
                                                                                  capsys):
    other = tmp_path / "other.sqlite"
    with sqlite3.connect(other) as con:
        con.execute("CREATE TABLE people (name TEXT)")
    text = tmp_path / "notes.txt"
    text.write_text("not a database, just some text that is long enough to have a header\n")
    for path, message in ((other, "is an SQLite file but not a ladder (tables: people)"),
                          (text, "is not a ladder file")):
        before = path.read_bytes()
        for argv in (["add", "greedy", "--no-progress"], ["show"], ["list"]):
            code, _, err = run_cli(capsys, "ladder", *argv, "--db", str(path))
            assert code == 2 and message in err and len(err.strip().splitlines()) == 1, err
        assert path.read_bytes() == before


def test_rating_against_fixed_anchors_is_the_likelihoods_maximum():
    """az-train's quick Elo: level results give the anchor's rating, sweeps stay finite (the
    virtual draw), conflicting sweeps land between the anchors, more points rate higher."""
    from meduris_rl.agents.arena.ladder.fit import ELO, PRIOR_GAMES, rating_against

    ratings = {"greedy": 478.0, "ppo": 1447.0}
    assert rating_against({"greedy": (100, 50)}, ratings) == pytest.approx(478.0, abs=1e-6)
    sweep = rating_against({"ppo": (100, 100)}, ratings)
    expected = 1.0 / (1.0 + math.exp((1447.0 - sweep) / ELO))
    assert (100 + PRIOR_GAMES) * expected == pytest.approx(100 + PRIOR_GAMES / 2, rel=1e-9)
    torn = rating_against({"greedy": (200, 0), "ppo": (200, 200)}, ratings)
    assert 478 < torn < 1447
    rates = [rating_against({"greedy": (50, k), "ppo": (50, k / 2)}, ratings)
             for k in range(0, 51, 10)]
    assert rates == sorted(rates) and len(set(rates)) == len(rates)
    with pytest.raises(LadderError, match="need ratings"):
        rating_against({"mcts:50": (10, 5)}, ratings)


def test_rating_against_lineups_counts_first_places_as_plackett_luce_does():
    """With 3 or 4 players (az-train's curves): the first places against a lineup are
    Bradley-Terry against the lineup's summed strength, so a fair share against equals is
    their rating, the estimate sets the likelihood's slope to zero, and an unrated member of a
    lineup is refused in one line."""
    from meduris_rl.agents.arena.ladder.fit import ELO, PRIOR_GAMES, rating_against

    ratings = {"greedy": 317.0, "ppo": 661.0}
    assert rating_against({("ppo", "ppo"): (10**7, 10**7 / 3)}, ratings) == \
        pytest.approx(661.0, abs=0.1)
    assert rating_against({("greedy",) * 3: (10**7, 10**7 / 4)}, ratings) == \
        pytest.approx(317.0, abs=0.1)
    games, wins = 150, 60
    mixed = rating_against({("ppo", "greedy"): (games, wins)}, ratings) / ELO
    strength = np.exp(np.array([661.0, 317.0]) / ELO).sum()
    chance = np.exp(mixed) / (np.exp(mixed) + strength)
    assert (games + PRIOR_GAMES) * chance == pytest.approx(wins + PRIOR_GAMES / 2, rel=1e-9)
    assert rating_against({("ppo", "ppo"): (150, 60)}, ratings) > mixed * ELO
    with pytest.raises(LadderError, match="need ratings"):
        rating_against({("ppo", "mcts:50"): (10, 5)}, ratings)


# --- a scale that stays put --------------------------------------------------------------------
def test_adding_an_agent_never_moves_the_anchors_unless_asked(small_ladder, tmp_path, capsys):
    """``ladder show`` (and ``ladder add``'s closing table) holds the anchors at the ratings of
    their own games; ``--free-anchors`` fits everything together, and the entrant's games then
    pull the anchors."""
    db = tmp_path / "held.sqlite"
    shutil.copy(small_ladder, db)

    def show(*flags) -> dict:
        code, out, err = run_cli(capsys, "ladder", "show", "--db", str(db), "--json", *flags)
        assert code == 0, err
        (fitted,) = json.loads(out)
        return fitted

    def anchors(fitted: dict) -> dict:
        return {r["agent"]: (r["rating"], r["low"], r["high"]) for r in fitted["ratings"]
                if r["anchor"]}

    before = show()
    code, out, err = run_cli(capsys, "ladder", "add", "mcts:20", "--games", "4", "--db",
                             str(db), "--workers", "1", "--no-progress")
    assert code == 0, err
    after, free = show(), show("--free-anchors")
    assert set(anchors(before)) == set(SMALL) and anchors(after) == anchors(before)
    assert after["anchors_held"] and not free["anchors_held"] and after["games"] == 16 + 4
    assert anchors(free) != anchors(before)  # the joint fit moved them
    entrant = {r["agent"]: r for r in after["ratings"]}["mcts:20"]
    assert not entrant["anchor"] and entrant["games"] == 4
    assert "anchors held at the ratings of their own games" in out
    closing = {line.split()[1]: int(line.split()[2]) for line in out.splitlines()
               if line.endswith("anchor")}
    assert closing == {name: round(r[0]) for name, r in anchors(before).items()}


def test_an_entrant_rated_with_the_anchors_held_carries_their_uncertainty():
    """The held fit of a 2-player entrant is ``rating_against`` the anchors' ratings; its
    interval adds the anchors' uncertainty (the delta method) to its own; the anchors are
    exactly the fit of their own games, with 3 players too."""
    from meduris_rl.agents.arena.ladder.fit import ELO, PRIOR_GAMES, fit_on_anchors, rating_against

    true = {"random": 0.0, "a": 300.0, "b": 600.0}
    anchor_games = synthetic(true, 2, 400, seed=3)
    base = fit_ratings(anchor_games, 2).by_name()
    entrant = []  # x wins 30 of 40 against a, 12 of 40 against b, seats alternating
    for opp, wins in (("a", 30), ("b", 12)):
        for i in range(40):
            lineup = ("x", opp) if i % 2 else (opp, "x")
            entrant.append((lineup, [1 if (a == "x") == (i < wins) else 2 for a in lineup]))
    held = fit_on_anchors(anchor_games, entrant, 2, list(true)).by_name()
    assert all((held[n].elo, held[n].se) == (base[n].elo, base[n].se) for n in true)
    expected = rating_against({"a": (40, 30), "b": (40, 12)}, {n: base[n].elo for n in true})
    assert held["x"].elo == pytest.approx(expected, abs=1e-6) and not held["x"].anchor
    assert fit_ratings(anchor_games + entrant, 2).by_name()["a"].elo != base["a"].elo
    # 20,000 draws against a: y is rated a, and its se is a's and its own (tiny) combined
    y = fit_on_anchors(anchor_games, [(("y", "a"), (1, 1))] * 20_000, 2).by_name()["y"]
    own = ELO / math.sqrt((20_000 + PRIOR_GAMES) / 4)
    assert y.elo == pytest.approx(base["a"].elo, abs=1e-6)
    assert y.se == pytest.approx(math.hypot(base["a"].se, own), rel=1e-6)
    games3 = synthetic({**true, "x": 450.0}, 3, 900, seed=4)
    mine = [g for g in games3 if "x" in g[0]]
    base3 = fit_ratings([g for g in games3 if "x" not in g[0]], 3).by_name()
    held3 = fit_on_anchors([g for g in games3 if "x" not in g[0]], mine, 3).by_name()
    assert all(held3[n].elo == base3[n].elo for n in true)
    assert abs(held3["x"].elo - 450.0) <= max(80.0, 3 * held3["x"].se)


def test_an_entrant_far_above_zero_that_sweeps_its_anchors_is_placed_not_a_crash():
    """An entrant held against anchors far from ``random`` (the shipped ladder's mcts:400 at
    1,223) that wins 15 of 16: Newton's method from 0 met a curvature of 0 there (a singular
    Hessian: ``ladder add`` of the shipped 2-player search crashed in round 3). It starts near
    the anchors it met and caps its steps, and lands where ``rating_against`` says."""
    from meduris_rl.agents.arena.ladder.fit import fit_on_anchors, rating_against

    true = {"random": 0.0, "a": 700.0, "b": 1400.0, "c": 2100.0}
    anchor_games = synthetic(true, 2, 600, seed=5)
    base = fit_ratings(anchor_games, 2).by_name()
    entrant = []  # x wins 8 of 8 against b, 7 of 8 against c
    for opp, wins in (("b", 8), ("c", 7)):
        for i in range(8):
            lineup = ("x", opp) if i % 2 else (opp, "x")
            entrant.append((lineup, [1 if (a == "x") == (i < wins) else 2 for a in lineup]))
    x = fit_on_anchors(anchor_games, entrant, 2).by_name()["x"]
    expected = rating_against({"b": (8, 8), "c": (8, 7)}, {n: base[n].elo for n in true})
    assert math.isfinite(x.se) and x.elo == pytest.approx(expected, abs=1e-6)
    assert x.elo > base["c"].elo


@pytest.mark.parametrize("players", [3, 4])
def test_the_shipped_ladder_rates_the_3_and_4_player_anchors(players):
    """The shipped file holds a table per player count: every anchor of LADDERS rated from its
    windows' games (random = 0, greedy above it, the searches above greedy); az-train's Elo
    stays 2-player (a win rate against a lineup is no pairwise result)."""
    from meduris_rl.agents.arena.ladder.fit import shipped_ratings
    from meduris_rl.train.meduris.az import anchor_elo

    with open_ladder(SHIPPED, read_only=True) as store:
        games = store.games(players, ANCHORS)
        fit = fit_ratings([(g.agents, g.ranks) for g in games], players, store.anchors(players))
    elo = {r.name: r.elo for r in fit.ratings}
    assert set(elo) == set(ladder_of("meduris").anchors[players]) and len(games) >= 72
    assert elo["random"] == 0 < elo["greedy"] < min(elo["mcts:50"], elo["mcts:800"], elo["ppo"])
    assert all(len(set(g.agents)) == players for g in games)
    assert {n: r.elo for n, r in shipped_ratings(players).items()} == elo
    assert anchor_elo(players, {"greedy": 0.5, "ppo": 0.3}, 100) is None

"""Issue 46 on the ladder (``meduris ladder``, :mod:`meduris_rl.agents.arena.ladder`): every
reader strict, and one name per agent.

* A ladder file tampered with in any way (its schema, ``ladder_meta``, any column of a stored
  game: not JSON, ``null`` agents, NaN, wrong lengths, ranks out of range, a key that is not its
  row's ...) is refused by every subcommand in one line naming the file, the row and the
  column, exit 2, and left byte-identical; an empty file is refused by the readers and started
  as a new ladder by ``add``.
* A refused ``ladder remove`` leaves the file byte-identical (it used to switch the journal
  mode first).
* Names are canonical: `` greedy `` is ``greedy``, ``mcts:05`` is ``mcts:5``; the CLI says so
  once; ``remove`` finds an entrant under an old spelling.
* An entrant that lost (forfeited) every game is rated below every anchor, ``random`` too.
* Tables escape and cut names (10,000 characters, terminal escapes); JSON keeps them whole.
* ``ladder add`` says where a ``cmd:`` bot's logs are when it forfeited games.
"""

import json
import math
import shutil
import sqlite3
import sys
from contextlib import closing
from pathlib import Path

import pytest
from helpers import run_cli

from meduris_rl.agents.arena.ladder import canonical_name, fit_on_anchors, fit_ratings, open_ladder
from meduris_rl.agents.arena.ladder.fit import rating_against
from meduris_rl.agents.arena.ladder.names import spellings
from meduris_rl.agents.arena.ladder.store import ANCHORS, game_key
from meduris_rl.agents.arena.match import GameResult
from meduris_rl.agents.registry import AgentSpec

REPO = Path(__file__).resolve().parent.parent
FAULTY = f"cmd:{sys.executable} {REPO / 'tests' / 'data' / 'bots' / 'faulty_bot.py'}"
CHAIN = ["random", "greedy", "mcts:200"]  # real agents: ladder add can play against them


def result(agents, ranks, forfeit: str = "") -> GameResult:
    n = len(agents)
    return GameResult(seed=0, agents=list(agents), vp=[0] * n,
                      winners=[s for s in range(n) if ranks[s] == 1], ranks=list(ranks),
                      turns=1, decisions=n, end_reason="forfeit" if forfeit else "game_end",
                      seconds_per_seat=[0.0] * n, decisions_per_seat=[1] * n, forfeit=forfeit)


def store_games(path: Path, games, players: int = 2, entrant: str = ANCHORS,
                forfeit: str = "") -> None:
    with open_ladder(path) as store:
        for i, (agents, ranks) in enumerate(games):
            store.add(game_key(players, entrant, agents, i, 0), players, entrant,
                      result(agents, ranks, forfeit))


def chain_games(names=CHAIN, per: int = 6) -> list:
    """Neighbours of ``names`` (weakest first) in seat-swapped pairs, the stronger winning 2
    of 3."""
    games = []
    for weak, strong in zip(names, names[1:], strict=False):
        for j in range(per):
            lineup = (weak, strong) if j % 2 else (strong, weak)
            wins = j % 3 != 0
            games.append((lineup, [1 if (a == strong) == wins else 2 for a in lineup]))
    return games


@pytest.fixture
def ladder(tmp_path) -> Path:
    """A ladder of the anchors random < greedy < mcts:200 (synthetic games) and an entrant x
    (2 games), at rest (one rollback-journal file)."""
    db = tmp_path / "ladder.sqlite"
    store_games(db, chain_games())
    store_games(db, [(("x", "greedy"), [1, 2]), (("greedy", "x"), [1, 2])], entrant="x")
    return db


def one_line(code: int, err: str) -> str:
    assert code == 2, err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err, err
    return err


def refused_by_every_command(capsys, db: Path, message: str) -> None:
    """show, list, add and remove each refuse ``db`` in one line with ``message``; the file
    stays byte-identical and nothing is created beside it."""
    before = db.read_bytes()
    for argv in (["show"], ["show", "--json"], ["list"], ["remove", "x"],
                 ["add", "greedy", "--games", "2", "--no-progress", "--workers", "1"]):
        code, out, err = run_cli(capsys, "ladder", *argv, "--db", str(db))
        assert message in one_line(code, err), (argv, err)
        assert out == ""
    assert db.read_bytes() == before
    assert sorted(p.name for p in db.parent.iterdir()) == [db.name]


# --- every stored game checked --------------------------------------------------------------
ROW_TAMPERING = [  # (column, SQL value, what the message says)
    ("ranks", "'[1, 2'", "is not JSON"),
    ("ranks", "'not json at all'", "is not JSON"),
    ("ranks", "'null'", "is not a list of 2 ranks in 1..2"),
    ("ranks", "'[1, 3]'", "is not a list of 2 ranks in 1..2"),
    ("ranks", "'[0, 1]'", "is not a list of 2 ranks in 1..2"),
    ("ranks", "'[1]'", "is not a list of 2 ranks"),
    ("ranks", "'[true, 2]'", "is not a list of 2 ranks"),
    ("ranks", "'[1.0, 2]'", "is not a list of 2 ranks"),
    ("ranks", "'[2, 2]'", "has no first place"),
    ("ranks", "'{\"a\": 1}'", "is not a list of 2 ranks"),
    ("ranks", "X'5B312C325D'", "is not JSON text"),  # a blob
    ("ranks", "'" + "[" * 100_000 + "'", "is not JSON"),  # (too deep for the parser)
    ("agents", "'null'", "is not a list of 2 different non-empty agent names"),
    ("agents", "'[null, \"greedy\"]'", "is not a list of 2 different"),
    ("agents", "'[\"greedy\"]'", "is not a list of 2 different"),
    ("agents", "'[\"greedy\", \"greedy\"]'", "is not a list of 2 different"),
    ("agents", "'[\"\", \"greedy\"]'", "is not a list of 2 different"),
    ("agents", "'[1, 2]'", "is not a list of 2 different"),
    ("vp", "'[NaN, 3]'", "is not a list of 2 whole numbers"),
    ("vp", "'[1e999, 3]'", "is not a list of 2 whole numbers"),
    ("vp", "'[" + "9" * 30 + ", 3]'", "is not a list of 2 whole numbers"),
    ("seconds", "'[NaN, 0.1]'", "is not a list of 2 finite numbers >= 0"),
    ("seconds", "'[Infinity, 0.1]'", "is not a list of 2 finite numbers"),
    ("seconds", "'[-1, 0.1]'", "is not a list of 2 finite numbers"),
    ("decisions", "'[-1, 3]'", "is not a list of 2 whole numbers >= 0"),
    ("decisions", "'[1, 2, 3]'", "is not a list of 2 whole numbers"),
    ("players", "5", "is not a player count of the game (2, 3, 4)"),
    ("players", "'two'", "is not a player count"),
    ("seed", "-1", "is not a whole number in 0.."),
    ("seed", "2.5", "is not a whole number in 0.."),
    ("seed", "'seven'", "is not a whole number"),
    ("turns", "'x'", "is not a whole number"),
    ("turns", "NULL", None),  # (NOT NULL refuses it: the tampering fails, see below)
    ("entrant", "'nobody'", "is not one of the game's agents"),
    ("entrant", "X'00'", "is not text"),
    ("end_reason", "7", None),  # (TEXT affinity stores '7': a text, fine)
    ("forfeit", "X'00'", "is not text"),
    ("key", "'[2,\"\",[\"random\",\"greedy\"],0]'", "is not the key of the row's game"),
    ("key", "'[3,\"\",[\"random\",\"greedy\"],0,0]'", "is not the key of the row's game"),
    ("key", "'[2, \"\", [\"random\", \"greedy\"], 0, 0]'", "is not the key"),  # spaced
    ("key", "'garbage'", "is not the key of the row's game"),
]


@pytest.mark.parametrize("column,value,message", ROW_TAMPERING,
                         ids=[f"{c}={v[:20]}" for c, v, _ in ROW_TAMPERING])
def test_a_tampered_game_is_refused_in_one_line_naming_row_and_column(column, value, message,
                                                                      ladder, capsys):
    with closing(sqlite3.connect(ladder)) as con, con:
        rowid = con.execute("SELECT rowid FROM games WHERE entrant='' ORDER BY rowid "
                            "LIMIT 1 OFFSET 2").fetchone()[0]
        try:
            con.execute(f"UPDATE games SET {column}={value} WHERE rowid=?", (rowid,))
        except sqlite3.IntegrityError:
            assert message is None  # (the schema itself refuses it)
            return
    if message is None:  # a harmless change: still a ladder
        code, _, err = run_cli(capsys, "ladder", "show", "--db", str(ladder))
        assert code == 0, err
        return
    refused_by_every_command(
        capsys, ladder, f"is a damaged ladder: games row {rowid}, column {column}: ")
    code, _, err = run_cli(capsys, "ladder", "show", "--db", str(ladder))
    assert message in err and "restore it from a copy, or give another --db" in err
    assert len(err) < 600  # (a huge value is excerpted, never echoed)


def test_a_forfeit_whose_forfeiter_is_not_last_alone_and_an_entrants_game_are_checked(ladder,
                                                                                   capsys):
    with closing(sqlite3.connect(ladder)) as con, con:
        con.execute("UPDATE games SET forfeit='crashed', ranks='[1, 1]' WHERE entrant='x' "
                    "AND rowid=(SELECT MAX(rowid) FROM games)")
        rowid = con.execute("SELECT MAX(rowid) FROM games").fetchone()[0]
    refused_by_every_command(capsys, ladder, f"games row {rowid}, column ranks: [1, 1]: a "
                             "forfeited game has its forfeiter last alone")


SCHEMA_TAMPERING = [  # (SQL, what the message says)
    ("ALTER TABLE games ADD COLUMN extra TEXT", "the table 'games': not as this version"),
    ("ALTER TABLE games DROP COLUMN decisions", "the table 'games': not as this version"),
    ("ALTER TABLE games RENAME COLUMN vp TO points", "the table 'games': not as this version"),
    ("CREATE INDEX other ON games (players)", "the index 'other': not part of a ladder"),
    ("CREATE UNIQUE INDEX one_per_count ON games (players, key)", "the index 'one_per_count'"),
    ("CREATE VIEW v AS SELECT 1", "the view 'v': not part of a ladder"),
    ("CREATE TRIGGER t AFTER DELETE ON games BEGIN SELECT 1; END",
     "the trigger 't': not part of a ladder"),
    ("DROP TABLE games", "its tables: ladder_meta, not games, ladder_meta"),
    ("DROP INDEX games_by_players; CREATE INDEX games_by_players ON games (entrant)",
     "the index 'games_by_players': not as this version makes it"),
    ("INSERT INTO ladder_meta VALUES ('owner', 'me')",
     "ladder_meta: an entry 'owner' this version does not know"),
    ("UPDATE ladder_meta SET value=X'01' WHERE key='game'", "ladder_meta 'game': b'\\x01' is "
     "not text"),
    ("UPDATE ladder_meta SET value='' WHERE key='game'", "ladder_meta 'game': empty"),
    ("UPDATE ladder_meta SET value='chess' WHERE key='game'",
     "is a ladder of the game 'chess', which is not installed here"),
    ("UPDATE ladder_meta SET value='2' WHERE key='schema'", "is a ladder of another version (2"),
    ("DELETE FROM ladder_meta WHERE key='schema'", "is a ladder of another version (unknown"),
]


@pytest.mark.parametrize("sql,message", SCHEMA_TAMPERING, ids=[s[:30] for s, _ in SCHEMA_TAMPERING])
def test_a_tampered_schema_or_meta_is_refused_in_one_line(sql, message, ladder, capsys):
    with closing(sqlite3.connect(ladder)) as con:
        con.executescript(sql)
    refused_by_every_command(capsys, ladder, message)


def test_a_ladder_without_the_optional_index_is_a_ladder(ladder, capsys):
    """The shipped Meduris file was made without ``games_by_players``: still a ladder."""
    with closing(sqlite3.connect(ladder)) as con, con:
        con.execute("DROP INDEX games_by_players")
    code, out, err = run_cli(capsys, "ladder", "list", "--db", str(ladder))
    assert code == 0 and "  x: 2 games" in out, err


def test_the_shipped_ladders_pass_every_check():
    from meduris_rl.agents.arena.ladder import ladder_of
    for game in ("meduris", "druids"):
        shipped = ladder_of(game).shipped
        with open_ladder(shipped, read_only=True, game=game) as store:
            assert sum(len(store.games(n)) for n in store.player_counts()) == store.count()


@pytest.mark.parametrize("blank", ["zero bytes", "an SQLite file with nothing in it"])
def test_an_empty_file_is_refused_by_the_readers_and_started_by_add(blank, tmp_path, capsys):
    db = tmp_path / "empty.sqlite"
    if blank == "zero bytes":
        db.write_bytes(b"")
    else:
        with closing(sqlite3.connect(db)) as con:
            con.execute("PRAGMA user_version=7")  # (writes the header: a 1-page file)
        assert db.stat().st_size > 0
    before = db.read_bytes()
    for argv in (["show"], ["list"], ["remove", "x"]):
        code, _, err = run_cli(capsys, "ladder", *argv, "--db", str(db))
        assert "is empty, not a ladder yet: `meduris ladder add AGENT --db" in one_line(code, err)
    assert db.read_bytes() == before
    code, out, err = run_cli(capsys, "ladder", "anchors", "--anchors", "greedy,mcts:2",
                             "--db", str(db), "--no-progress")  # (random: rated_zero reads it)
    assert "must include random" in one_line(code, err)
    code, out, err = run_cli(capsys, "ladder", "add", "mcts:2", "--games", "2", "--db",
                             str(db), "--workers", "1", "--no-progress")
    assert code == 0 and "started from the shipped ladder" in err, err
    with open_ladder(db, read_only=True) as store:
        assert store.entrants(2) == {"mcts:2": 2}


# --- remove checks before it writes ---------------------------------------------------------
def test_a_refused_remove_leaves_the_file_byte_identical(ladder, capsys):
    before = ladder.read_bytes()
    for argv in (["nobody"], ["greedy"], ["x", "--players", "3"], [""]):
        code, _, err = run_cli(capsys, "ladder", "remove", *argv, "--db", str(ladder))
        assert "gauntlet in" in one_line(code, err), err
        assert ladder.read_bytes() == before
    code, _, err = run_cli(capsys, "ladder", "remove", "x", "--players", "5", "--db",
                           str(ladder))
    assert "--players 5" in one_line(code, err) and ladder.read_bytes() == before
    code, out, err = run_cli(capsys, "ladder", "remove", "x", "--db", str(ladder))
    assert code == 0 and "removed 2 games of x (2 players)" in out and err == ""
    assert ladder.read_bytes()[18:20] == b"\x01\x01"  # (back to the rollback journal)


# --- canonical names ------------------------------------------------------------------------
@pytest.mark.parametrize("given,canonical,game", [
    (" greedy ", "greedy", None),
    ("greedy", "greedy", None),
    ("mcts:05", "mcts:5", None),
    ("mcts:5", "mcts:5", None),
    ("mcts", "mcts", None),  # (no budget written: kept so, like the anchor 'search')
    ("mcts:200", "mcts:200", None),
    ("mcts:0.50s", "mcts:0.5s", None),
    ("mcts:5.s", "mcts:5s", None),
    ("mcts:0005.000s", "mcts:5s", None),
    ("mcts:.25s", "mcts:0.25s", None),
    ("az:010:best.pt", "az:10:best.pt", None),
    ("az:010:", "az:10", None),
    ("az::best.pt", "az::best.pt", None),
    ("gumbel:032", "gumbel:32", None),
    ("ppo:./a.pt", "ppo:./a.pt", None),
    ("ismcts:007", "ismcts:7", "druids"),
    ("mcts:007", "mcts:007", "druids"),  # (not a Druids agent: only stripped)
    ("cmd:  ./bot --fast ", "cmd:./bot --fast", None),
    ("mcts:+5", "mcts:+5", None),  # (does not parse: kept)
    ("no.such.module:Bot:05", "no.such.module:Bot:05", None),  # (never imported)
])
def test_canonical_names(given, canonical, game):
    assert canonical_name(given, game) == canonical
    assert canonical_name(canonical, game) == canonical
    try:
        spec = AgentSpec.parse_name(given, game)
    except Exception:
        return
    again = AgentSpec.parse_name(canonical, game)
    assert (again.kind, again.budget, again.unit, again.parameter) == (
        spec.kind, spec.budget, spec.unit, spec.parameter)


def test_spellings_finds_an_agent_under_every_spelling():
    assert spellings("mcts:5", ["mcts:05", "mcts:5", "mcts:50", " mcts:005"]) == \
        ["mcts:05", "mcts:5", " mcts:005"]


def test_ladder_add_stores_and_finds_an_agent_by_its_canonical_name(ladder, capsys):
    code, out, err = run_cli(capsys, "ladder", "add", " mcts:02 ", "--games", "2", "--db",
                             str(ladder), "--workers", "1", "--no-progress")
    assert code == 0, err
    assert err.count("note: the agent ' mcts:02 ' is stored and looked up as 'mcts:2' (its "
                     "canonical name)") == 1
    with open_ladder(ladder, read_only=True) as store:
        assert store.entrants(2) == {"mcts:2": 2, "x": 2}
    for spelling in ("mcts:2", "mcts:002"):  # the same entrant: nothing left to play
        code, out, err = run_cli(capsys, "ladder", "add", spelling, "--games", "2", "--db",
                                 str(ladder), "--workers", "1", "--no-progress")
        assert code == 0 and "0 games played (2 stored before)" in out, err
        assert ("note:" in err) == (spelling != "mcts:2")
    code, out, err = run_cli(capsys, "ladder", "anchors", "--anchors", "random,greedy,greedy ",
                             "--db", str(ladder), "--no-progress")
    assert "distinct agent names" in one_line(code, err)
    code, out, err = run_cli(capsys, "ladder", "anchors", "--anchors", "mcts:200,mcts:0200",
                             "--db", str(ladder), "--no-progress")
    assert "mcts:05 is mcts:5" in one_line(code, err)


def test_remove_finds_an_entrant_stored_under_an_old_spelling(ladder, capsys):
    """A ladder written before names were canonical may hold ``mcts:05`` and ``mcts:5``: both
    are the agent ``mcts:5``."""
    for name in ("mcts:05", "mcts:5"):
        store_games(ladder, [((name, "greedy"), [2, 1])], entrant=name)
    code, out, err = run_cli(capsys, "ladder", "remove", " mcts:005", "--db", str(ladder))
    assert code == 0, err
    assert "removed 2 games of mcts:5 (stored as mcts:05, mcts:5) (2 players)" in out
    assert "note: the agent ' mcts:005' is stored and looked up as 'mcts:5'" in err
    with open_ladder(ladder, read_only=True) as store:
        assert store.entrants(2) == {"x": 2}


# --- an entrant that lost every game --------------------------------------------------------
def forfeits(entrant: str, opponents, games: int) -> list:
    """``games`` 2-player games the entrant lost, alternating opponents and seats."""
    out = []
    for i in range(games):
        opp = opponents[i % len(opponents)]
        lineup = (entrant, opp) if i % 2 else (opp, entrant)
        out.append((lineup, [2 if a == entrant else 1 for a in lineup]))
    return out


def test_an_entrant_that_lost_every_game_is_rated_below_every_anchor_random_too():
    """8 games lost to the anchors greedy and mcts:200 (the gauntlet's first round) rated an
    entrant 225, above random, which it never met: it is now rated as if it had lost them all to
    the bottom anchor; ties between such entrants by name, all below the bottom anchor."""
    anchors = chain_games(["random", "greedy", "mcts:200"], per=30)
    lost = forfeits("x", ["greedy", "mcts:200"], 8) + forfeits("aaa", ["greedy", "mcts:200"], 8)
    fit = fit_on_anchors(anchors, lost, 2, ["random", "greedy", "mcts:200"])
    got = fit.by_name()
    assert [r.name for r in fit.ratings[-3:]] == ["random", "aaa", "x"]
    assert got["x"].elo == got["aaa"].elo < 0 == got["random"].elo
    assert got["x"].elo == pytest.approx(rating_against({"random": (8, 0)}, {"random": 0.0}),
                                         abs=1e-6)
    assert got["x"].elo == pytest.approx(-400 * math.log10(17))
    assert math.isfinite(got["x"].se) and got["x"].high < got["greedy"].elo
    # the free fit too; more lost games, lower; a point scored: fitted as before
    free = fit_ratings(anchors + lost, 2, ["random", "greedy", "mcts:200"]).by_name()
    assert free["x"].elo < min(r.elo for r in free.values() if r.anchor)
    more = fit_on_anchors(anchors, forfeits("x", ["greedy"], 40), 2, ["random", "greedy"])
    assert more.by_name()["x"].elo < got["x"].elo
    drew = lost[:7] + [(("x", "greedy"), [1, 1])]
    plain = fit_on_anchors(anchors, drew, 2).by_name()["x"]  # (no anchors named: no cap)
    assert fit_on_anchors(anchors, drew, 2, ["random", "greedy"]).by_name()["x"] == plain
    assert plain.elo > got["x"].elo  # (above the entrants that scored nothing)


def test_a_three_player_entrant_last_in_every_game_is_rated_below_the_anchors():
    names = ["random", "greedy", "mcts:200", "mcts:800"]
    anchors = []
    for i in range(24):
        trio = names[i % 2:i % 2 + 3]
        anchors.append((trio, [3, 2, 1] if i % 3 else [2, 3, 1]))
    lost = [(("x", "greedy", "mcts:200"), [3, 1, 2]), (("mcts:200", "x", "greedy"), [1, 3, 2])]
    got = fit_on_anchors(anchors, lost, 3, names).by_name()
    assert got["x"].elo < min(got[n].elo for n in names)


def test_ladder_show_rates_an_all_forfeit_entrant_below_random(ladder, capsys):
    bot = "cmd:./broken_bot"
    store_games(ladder, forfeits(bot, ["greedy", "mcts:200"], 8), entrant=bot,
                forfeit="crashed: exit code 3")
    code, out, err = run_cli(capsys, "ladder", "show", "--db", str(ladder), "--json")
    assert code == 0, err
    ratings = json.loads(out)[0]["ratings"]
    assert ratings[-1]["agent"] == bot and ratings[-1]["rating"] < 0
    assert json.loads(out)[0]["forfeits"] == {bot: {"games": 8,
                                                    "first": "crashed: exit code 3"}}
    code, out, err = run_cli(capsys, "ladder", "show", "--db", str(ladder))
    assert out.splitlines()[-2].split()[1] == bot
    assert f"{bot} forfeited 8 game(s) (lost, rated as losses)" in out


# --- names in tables ------------------------------------------------------------------------
def test_tables_escape_and_cut_names_and_json_keeps_them_whole(ladder, capsys):
    long, red = "L" * 10_000, "\x1b[31mred\x1b[0m\nsecond line"
    for name in (long, red):
        store_games(ladder, [((name, "greedy"), [2, 1]), (("greedy", name), [1, 2])],
                    entrant=name, forfeit="said \x1b[2J" + "z" * 5000)
    code, out, err = run_cli(capsys, "ladder", "show", "--db", str(ladder))
    assert code == 0, err
    assert "\x1b" not in out and long not in out
    assert "\\x1b[31mred\\x1b[0m\\nsecond line" in out
    assert "L" * 37 + "..." in out and "L" * 41 not in out.split("forfeited")[0]
    assert max(len(line) for line in out.splitlines()) < 400
    assert "said \\x1b[2J" in out
    code, out, err = run_cli(capsys, "ladder", "show", "--db", str(ladder), "--json")
    assert code == 0 and {r["agent"] for r in json.loads(out)[0]["ratings"]} >= {long, red}
    code, out, err = run_cli(capsys, "ladder", "list", "--db", str(ladder))
    assert code == 0 and "\x1b" not in out and len(out) < 1000, err
    assert "  " + "L" * 97 + "...: 2 games" in out and "\\x1b[31mred" in out
    # remove finds the whole name and says it cut
    code, out, err = run_cli(capsys, "ladder", "remove", long, "--db", str(ladder))
    assert code == 0 and "removed 2 games of " + "L" * 97 + "..." in out and len(out) < 300
    code, out, err = run_cli(capsys, "ladder", "remove", "M" * 10_000, "--db", str(ladder))
    assert len(one_line(code, err)) < 1000


# --- the bots' logs --------------------------------------------------------------------------
def test_ladder_add_says_where_the_logs_of_a_bot_that_forfeited_are(ladder, capsys):
    agent = f"{FAULTY} garbage"
    code, out, err = run_cli(capsys, "ladder", "add", agent, "--games", "2", "--db",
                             str(ladder), "--workers", "1", "--no-progress")
    assert code == 0, err
    line = next(ln for ln in err.splitlines() if "forfeited 2 of the 2 game(s) played" in ln)
    assert line.startswith(agent) and "the cmd: bots' logs (their stderr) are in " in line
    folder = Path(line.rsplit(" are in ", 1)[1])
    assert folder.is_dir() and any(folder.glob("*.log"))
    # an agent that forfeited nothing: no such line
    code, out, err = run_cli(capsys, "ladder", "add", "mcts:2", "--games", "2", "--db",
                             str(ladder), "--workers", "1", "--no-progress")
    assert code == 0 and "forfeited" not in err, err


def test_the_copied_shipped_ladder_is_still_a_ladder_after_add(tmp_path, capsys):
    """(a guard: the files ladder add writes pass every check it reads with)"""
    from meduris_rl.agents.arena.ladder import ladder_of
    db = tmp_path / "copy.sqlite"
    shutil.copy(ladder_of().shipped, db)
    code, out, err = run_cli(capsys, "ladder", "add", "mcts:2", "--games", "2", "--db",
                             str(db), "--workers", "1", "--no-progress")
    assert code == 0, err
    code, out, err = run_cli(capsys, "ladder", "list", "--db", str(db))
    assert code == 0 and "  mcts:2: 2 games" in out, err

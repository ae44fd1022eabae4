"""The ladder's games in one SQLite file: every game of every player count, each under a unique
key, committed as it ends.

Contract:

* :func:`open_ladder` opens (or creates) a ladder file in WAL mode and checks that it is one:
  a file that is not SQLite, or an SQLite file of something else (another ``application_id``
  or other tables), is refused with one line (:class:`LadderError`) and left untouched.
* **Every reader is strict.** Before anything is written (the journal mode included),
  :func:`open_ladder` checks the whole file: the schema exactly as :data:`SCHEMA` makes it (the
  tables ``ladder_meta`` and ``games`` as written there, the index ``games_by_players`` or none:
  no other table, index, view or trigger), the entries of ``ladder_meta`` (``schema`` this
  version, ``game`` the name of a game, ``seed``; no other), and every stored game
  (:func:`stored_game`: its columns of their types; ``agents`` a JSON list of the row's
  ``players`` different non-empty names; ``ranks`` a list of as many ints in 1..players, one of
  them 1, a forfeited game's forfeiter last alone; ``vp`` and ``decisions`` lists of ints,
  ``seconds`` of finite numbers >= 0 (those two may be ``[]``: not measured); ``players`` a count
  the game is played by; the entrant one of the agents or ``""``; the key the :func:`game_key` of
  the row's own columns). A file that fails is refused in one line naming the file, the row (its
  ``rowid``) and the column, and is left byte-identical; :meth:`LadderStore.games` checks every
  row it reads the same way (so do the readers built on it: keys, entrants, anchors), and
  :meth:`LadderStore.player_counts` the counts. Never a traceback.
* **An empty file** (0 bytes, or an SQLite file with nothing in it, e.g. made by ``touch``):
  a writer (``ladder add``, ``ladder anchors``: ``create`` and not ``read_only``) makes it a
  new ladder, as it would a missing file; a reader (``read_only``, or not ``create``: ``ladder
  show``, ``list``, ``remove``) refuses it in one line naming the command that starts one.
* A ladder holds the games of one game (of the table of games), recorded in its
  ``ladder_meta`` (``game``) when it is created; a file without that entry (made before Druids
  had a ladder) is the default game's (Meduris's). Opening a ladder of one game for another is
  refused in one line naming the ``--game`` that fits it.
* A writer returns the file to the rollback journal when it closes (best effort: not while
  another connection has it open), so a ladder at rest is one file: the shipped anchors' files
  are made by ``meduris ladder anchors`` itself, and reading them leaves no ``-wal``/``-shm``
  beside them.
* :meth:`LadderStore.add` stores one game and commits before it returns; a key already stored
  is ignored (``INSERT OR IGNORE``), so a run killed at any point and run again stores every
  game exactly once. A game's key names everything that makes it that game (the player count,
  whose game it is, the seats' agents, its index and its seed: :func:`game_key`).
* :meth:`LadderStore.games` returns the stored games of a player count sorted by key, so
  everything computed from them (the fit, ``meduris ladder show``) depends on the set of
  games only, never on the order they were played or stored in.
* The anchors' games (``entrant`` ``""``) place the fixed scale; an entrant's games are the
  games of its gauntlet (:mod:`.gauntlet`), stored under its canonical name (:mod:`.names`).
  :meth:`LadderStore.remove` deletes entrants' games, never the anchors'.
* :func:`copy_anchors` copies the anchors' games of a player count from another ladder (the
  game's shipped one, :attr:`~.anchors.LadderGame.shipped`), keys and all.
"""

from __future__ import annotations

import json
import math
import sqlite3
from collections import Counter
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from meduris_rl.agents.arena.ladder.anchors import game_flag, ladder_of
from meduris_rl.agents.arena.match import GameResult
from meduris_rl.kit.errors import InputError
from meduris_rl.kit.games import game_names, game_spec
from meduris_rl.kit.seeding import fresh_seed
from meduris_rl.kit.values import SEED_MAX, excerpt, printable

APPLICATION_ID = 0x4D4C4144  # "MLAD": this file is a Meduris ladder
SCHEMA_VERSION = 1
ANCHORS = ""  # the entrant of the anchors' games

SCHEMA = """
CREATE TABLE IF NOT EXISTS ladder_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS games (
    key TEXT PRIMARY KEY,
    players INTEGER NOT NULL,
    entrant TEXT NOT NULL,
    seed INTEGER NOT NULL,
    agents TEXT NOT NULL,
    ranks TEXT NOT NULL,
    vp TEXT NOT NULL,
    turns INTEGER NOT NULL,
    end_reason TEXT NOT NULL,
    forfeit TEXT NOT NULL,
    seconds TEXT NOT NULL,
    decisions TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS games_by_players ON games (players, entrant);
"""
TABLES = {"ladder_meta", "games"}
META = ("schema", "game", "seed")  # the entries of ladder_meta
COLUMNS = ("key", "players", "entrant", "seed", "agents", "ranks", "vp", "turns", "end_reason",
           "forfeit", "seconds", "decisions")
INT64 = 2**63 - 1


class LadderError(InputError, ValueError):
    """A ladder that cannot be used as asked (the message names the fix)."""


class BadValue(LadderError):
    """One stored value that is not what its column holds (the message says what it is; never
    raised out of this module: :func:`stored_game` makes it a :func:`damaged` line)."""


@dataclass(frozen=True)
class StoredGame:
    """One stored game: the agents per seat and their ranks (1 = best, ties share)."""

    key: str
    players: int
    entrant: str
    seed: int
    agents: tuple[str, ...]
    ranks: tuple[int, ...]
    vp: tuple[int, ...]
    turns: int
    end_reason: str
    forfeit: str
    seconds: tuple[float, ...]  # per seat (machine-dependent, never part of a comparison)
    decisions: tuple[int, ...]

    def outcome(self) -> tuple:
        """Everything but the timings: what two runs of the same games must agree on."""
        return (self.key, self.players, self.entrant, self.seed, self.agents, self.ranks,
                self.vp, self.turns, self.end_reason, self.forfeit, self.decisions)


def game_key(players: int, entrant: str, lineup: list[str] | tuple[str, ...], index: int,
             seed: int) -> str:
    """The unique key of a game: player count, entrant (``""`` for the anchors' games), the
    agents per seat, the game's index in its series and the series' seed."""
    return ENCODE_KEY([players, entrant, list(lineup), index, seed])


ENCODE_KEY = json.JSONEncoder(separators=(",", ":")).encode  # (json.dumps made one per call)


def damaged(path: Path, where: str, what: str) -> LadderError:
    """The one line refusing a ladder file that is not as this version writes it."""
    return LadderError(f"{str(path)!r} is a damaged ladder: {where}: {what}; restore it from a "
                       "copy, or give another --db")


def open_ladder(path: str | Path, create: bool = True, read_only: bool = False,
                game: str | None = None) -> LadderStore:
    """The ladder of ``game`` (None: the default game) in ``path`` (created if missing and
    ``create``, also from an empty file; opened for reading only if ``read_only``, e.g. the
    shipped one), checked to be a ladder of ``game``, every stored game checked (see the module
    docstring) before anything is written."""
    game = ladder_of(game).game
    path = Path(path)
    if path.is_dir():
        raise LadderError(f"--db {str(path)!r} is a folder; give a ladder file, e.g. "
                          "ladder.sqlite")
    starts = (f"`meduris ladder add AGENT{game_flag(game)} --db {path}` starts one from the "
              "shipped anchors' games")
    if not path.exists() and (read_only or not create):
        raise LadderError(f"no ladder at {str(path)!r}: {starts}")
    if not path.exists() and not path.parent.is_dir():
        raise LadderError(f"cannot create {str(path)!r}: the folder {str(path.parent)!r} "
                          "does not exist")
    try:
        con = (sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True, timeout=30,
                               isolation_level=None) if read_only else
               sqlite3.connect(path, timeout=30, isolation_level=None))
    except sqlite3.Error as err:
        raise LadderError(f"cannot open {str(path)!r} as a ladder ({err})") from None
    try:  # (every check before prepare: a refused file is left untouched)
        if not check_ladder(con, path) and (read_only or not create):
            raise LadderError(f"{str(path)!r} is empty, not a ladder yet: {starts}")
        check_held_game(con, path, game)
        check_games(con, path, game)
        if not read_only:
            prepare(con, game)
    except sqlite3.OperationalError as err:  # (read-only file or folder, locked, disk full)
        con.close()
        raise LadderError(f"cannot use the ladder {str(path)!r} ({err})") from None
    except sqlite3.DatabaseError as err:
        con.close()
        raise LadderError(f"{str(path)!r} is not a ladder file ({err}); give another --db") \
            from None
    except LadderError:
        con.close()
        raise
    return LadderStore(con, path, game, read_only)


def is_empty(path: str | Path) -> bool:
    """Whether ``path`` is an empty file, one :func:`open_ladder` starts as a new ladder (and
    a reader refuses): 0 bytes, or SQLite with nothing in it. (Read only; anything else,
    errors included, is False: :func:`open_ladder` says what it is.)"""
    path = Path(path)
    try:
        if not path.is_file() or path.stat().st_size == 0:
            return path.is_file()
        con = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True, timeout=30)
        try:
            return con.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()[0] == 0
        finally:
            con.close()
    except (OSError, sqlite3.Error):
        return False


def prepare(con: sqlite3.Connection, game: str) -> None:
    """WAL mode, and the tables of a new ladder (of ``game``)."""
    con.execute("PRAGMA journal_mode=WAL")
    con.execute("PRAGMA synchronous=NORMAL")  # WAL: a commit survives a killed process
    if not con.execute("SELECT 1 FROM sqlite_master WHERE name='games'").fetchone():
        con.execute("BEGIN IMMEDIATE")
        con.execute(f"PRAGMA application_id={APPLICATION_ID}")
        for statement in SCHEMA.split(";"):
            if statement.strip():
                con.execute(statement)
        con.execute("INSERT OR IGNORE INTO ladder_meta VALUES ('schema', ?)",
                    (str(SCHEMA_VERSION),))
        con.execute("INSERT OR IGNORE INTO ladder_meta VALUES ('game', ?)", (game,))
        con.execute("COMMIT")


def held_game(con: sqlite3.Connection) -> str | None:
    """The game a ladder holds: its ``game`` entry; the default game without one (a file made
    before ladders named their game: they were all the default game's); None: no tables."""
    if not con.execute("SELECT 1 FROM sqlite_master WHERE name='ladder_meta'").fetchone():
        return None
    row = con.execute("SELECT value FROM ladder_meta WHERE key='game'").fetchone()
    return game_spec(None).name if row is None else row[0]


def check_held_game(con: sqlite3.Connection, path: Path, game: str) -> None:
    """Refuse a ladder of another game than ``game``, naming the flag that opens it."""
    held = held_game(con)
    if held is not None and held != game:
        if held not in game_names():
            raise LadderError(f"{str(path)!r} is a ladder of the game {excerpt(held, 60)}, "
                              f"which is not installed here (games: {', '.join(game_names())})")
        flag = game_flag(held).strip() or f"--game {held} (the default)"
        raise LadderError(f"{str(path)!r} is a {held} ladder, not a {game} one: use {flag}, "
                          f"or another --db for {game}")


@cache
def schema_objects() -> dict[str, tuple[str, str]]:
    """{name: (type, SQL with its blanks collapsed)} of the tables and index :data:`SCHEMA`
    makes, as SQLite keeps them."""
    con = sqlite3.connect(":memory:")
    try:
        con.executescript(SCHEMA)
        return {name: (kind, " ".join(sql.split())) for kind, name, sql in con.execute(
            "SELECT type, name, sql FROM sqlite_master WHERE sql IS NOT NULL")}
    finally:
        con.close()


def check_ladder(con: sqlite3.Connection, path: Path) -> bool:
    """Refuse an SQLite file of something else (its application id or tables), a file that is
    not SQLite at all (sqlite3 raises DatabaseError on the first read), a ladder whose schema
    or ``ladder_meta`` is not as this version makes them; False for an empty file (nothing in
    it yet)."""
    app = con.execute("PRAGMA application_id").fetchone()[0]
    objects = [row for row in con.execute("SELECT type, name, sql FROM sqlite_master")
               if not str(row[1]).startswith("sqlite_")]  # (SQLite's own: autoindex, stat)
    tables = {name for kind, name, _ in objects if kind == "table"}
    if app not in (0, APPLICATION_ID) or (tables and not tables <= TABLES) or (
            app == 0 and objects):
        shown = ", ".join(sorted(tables)[:5]) or "none"
        raise LadderError(f"{str(path)!r} is an SQLite file but not a ladder (tables: "
                          f"{shown}); give another --db")
    if not objects:
        return False
    if tables != TABLES:
        raise damaged(path, "its tables", f"{', '.join(sorted(tables)) or 'none'}, not "
                      f"{', '.join(sorted(TABLES))}")
    want = schema_objects()  # (the tables required; the index not: the shipped Meduris file
    for kind, name, sql in objects:  # was made without it)
        made = want.get(name)
        if made is None or made != (kind, " ".join(str(sql).split())):
            what = ("not part of a ladder (this version makes no such object)" if made is None
                    else "not as this version makes it (its columns or constraints differ)")
            raise damaged(path, f"the {kind} {excerpt(name, 60)}", what)
    check_meta(con, path)
    return True


def check_meta(con: sqlite3.Connection, path: Path) -> None:
    """``ladder_meta``: its keys of :data:`META`, text values, this schema version, a game's
    name (the seed is checked where it is used, :meth:`LadderStore.seed`)."""
    meta = {}
    for key, value in con.execute("SELECT key, value FROM ladder_meta"):
        if key not in META:
            raise damaged(path, "ladder_meta", f"an entry {excerpt(key, 60)} this version does "
                          f"not know (it knows {', '.join(META)})")
        if not isinstance(value, str):
            raise damaged(path, f"ladder_meta {key!r}", f"{excerpt(value, 60)} is not text")
        meta[key] = value
    if meta.get("schema") != str(SCHEMA_VERSION):
        shown = printable(meta["schema"], 40) if "schema" in meta else "unknown"
        raise LadderError(f"{str(path)!r} is a ladder of another version ({shown}; this is "
                          f"{SCHEMA_VERSION})")
    if "game" in meta and not meta["game"].strip():
        raise damaged(path, "ladder_meta 'game'", "empty, not the name of a game")


def check_games(con: sqlite3.Connection, path: Path, game: str) -> None:
    """Every stored game checked (:func:`stored_game`): the first bad one refused in one line."""
    if not con.execute("SELECT 1 FROM sqlite_master WHERE name='games'").fetchone():
        return
    counts = game_spec(game).player_counts
    for row in con.execute(f"SELECT rowid, {', '.join(COLUMNS)} FROM games"):
        stored_game(row, path, counts)


DECODE = json.JSONDecoder().decode  # (json.loads without its per-call checks)
INT = frozenset({int})
NUMBER = frozenset({int, float})
STRINGS = frozenset({str})


def json_list(value: object, n: int, what: str, types: frozenset = INT,
              low: float | None = None, high: float | None = None) -> tuple:
    """The JSON list ``value`` of ``n`` items of ``types``, each in ``low..high`` when given
    (finite) and ``-2**63..2**63-1`` (else BadValue)."""
    if not isinstance(value, str):
        raise BadValue(f"{excerpt(value, 60)} is not JSON text")
    try:
        items = DECODE(value)
    except (ValueError, RecursionError):
        raise BadValue(f"{excerpt(value, 60)} is not JSON") from None
    if type(items) is not list or len(items) != n or not set(map(type, items)) <= types or (
            types is not STRINGS and not (
                (-INT64 - 1 if low is None else low) <= min(items)
                and max(items) <= (INT64 if high is None else high)
                and (types is INT or all(map(math.isfinite, items))))):
        raise BadValue(f"{excerpt(value, 60)} is not a list of {n} {what}")
    return tuple(items)


def whole(value: object, low: int, high: int) -> int:
    """``value`` if it is an int in ``low..high`` (else BadValue)."""
    if type(value) is not int or not low <= value <= high:
        raise BadValue(f"{excerpt(value, 60)} is not a whole number in {low}..{high}")
    return value


def text(value: object) -> str:
    if type(value) is not str:
        raise BadValue(f"{excerpt(value, 60)} is not text")
    return value


def stored_game(row: tuple, path: Path, counts: tuple[int, ...]) -> StoredGame:
    """The game of a ``games`` row (``rowid``, then :data:`COLUMNS`), every column checked (see
    the module docstring); a bad one is :func:`damaged`, naming the row and the column."""
    rowid, key, n, entrant, seed, agents, ranks, vp, turns, end, forfeit, seconds, decisions \
        = row
    column = "players"
    try:
        if type(n) is not int or n not in counts:
            raise BadValue(f"{excerpt(n, 60)} is not a player count of the game "
                           f"({', '.join(map(str, counts))})")
        for name, value in (("entrant", entrant), ("end_reason", end), ("forfeit", forfeit)):
            column = name
            text(value)
        column = "seed"
        whole(seed, 0, SEED_MAX)
        column = "turns"
        whole(turns, 0, INT64)
        column = "agents"
        names = json_list(agents, n, "different non-empty agent names", STRINGS)
        if "" in names or len(set(names)) != n:
            raise BadValue(f"{excerpt(agents, 60)} is not a list of {n} different non-empty "
                           "agent names")
        column = "ranks"
        places = json_list(ranks, n, f"ranks in 1..{n}", INT, 1, n)
        check_ranks(places, forfeit)
        column = "vp"
        points = json_list(vp, n, "whole numbers")
        # (the seconds and decisions per seat may be unmeasured: [], as GameResult's default)
        column = "decisions"
        made = () if decisions == "[]" else json_list(decisions, n, "whole numbers >= 0", INT, 0)
        column = "seconds"
        took = () if seconds == "[]" else json_list(seconds, n, "finite numbers >= 0", NUMBER, 0)
        column = "entrant"
        if entrant != ANCHORS and entrant not in names:
            raise BadValue(f"{excerpt(entrant, 60)} is not one of the game's agents")
        column = "key"
        check_key(key, n, entrant, names)
    except BadValue as bad:
        raise damaged(path, f"games row {rowid}, column {column}", str(bad)) from None
    return StoredGame(key, n, entrant, seed, names, places, points, turns, end, forfeit, took,
                      made)


def check_ranks(ranks: tuple[int, ...], forfeit: str) -> None:
    """A winner (rank 1); in a forfeited game one seat last alone (the forfeiter)."""
    if 1 not in ranks:
        raise BadValue(f"{list(ranks)} has no first place (rank 1)")
    if forfeit and ranks.count(len(ranks)) != 1:
        raise BadValue(f"{list(ranks)}: a forfeited game has its forfeiter last alone")


def check_key(key: object, players: int, entrant: str, agents: tuple[str, ...]) -> None:
    """Refuse a ``key`` that is not the :func:`game_key` of the row's own columns."""
    try:
        parts = DECODE(key) if type(key) is str else None
    except (ValueError, RecursionError):
        parts = None
    if not (type(parts) is list and len(parts) == 5 and type(parts[3]) is int
            and type(parts[4]) is int and 0 <= parts[3] <= INT64 and 0 <= parts[4] <= SEED_MAX
            and type(parts[0]) is int and parts[:3] == [players, entrant, list(agents)]
            and key == game_key(*parts)):
        raise BadValue(f"{excerpt(key, 60)} is not the key of the row's game ([players, "
                       "entrant, agents, index, seed] as the row's columns have them)")


class LadderStore:
    """An open ladder file (see the module docstring); close it, or use it in ``with``."""

    def __init__(self, con: sqlite3.Connection, path: Path, game: str,
                 read_only: bool = False):
        self.con = con
        self.path = path
        self.game = game  # the name of the game whose games it holds
        self.read_only = read_only
        self.counts = game_spec(game).player_counts

    def __enter__(self) -> LadderStore:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        """Close; a writer first returns the file to the rollback journal (one file at rest),
        unless another connection has it open (then it stays in WAL mode, as good)."""
        if not self.read_only:
            try:
                self.con.execute("PRAGMA busy_timeout=200")
                self.con.execute("PRAGMA journal_mode=DELETE").fetchall()
            except sqlite3.Error:
                pass
        self.con.close()

    def seed(self) -> int:
        """The ladder's own seed, the series' seed of its games when none is given: drawn from
        the operating system (:func:`~meduris_rl.kit.seeding.fresh_seed`, so no bot can guess
        the dice of its gauntlet) the first time it is needed, and kept in ``ladder_meta``
        (a killed run, run again, plays the same games)."""
        find = "SELECT value FROM ladder_meta WHERE key='seed'"
        row = self.con.execute(find).fetchone()
        if row is None and not self.read_only:
            with self.con:  # (commits: the seed is stored before any game is played with it)
                self.con.execute("INSERT OR IGNORE INTO ladder_meta VALUES ('seed', ?)",
                                 (str(fresh_seed()),))
            row = self.con.execute(find).fetchone()
        value = None if row is None else row[0]
        if isinstance(value, str) and value.isascii() and value.isdigit() \
                and int(value) <= SEED_MAX:
            return int(value)
        raise LadderError(f"{str(self.path)!r} holds no seed of its own "
                          f"({'opened to read' if row is None else 'a broken one'}); "
                          "give --seed")

    def keys(self, players: int) -> set[str]:
        return {g.key for g in self.games(players)}

    def add(self, key: str, players: int, entrant: str, result: GameResult) -> bool:
        """Store one game and commit; False if its key was stored already."""
        row = (key, players, entrant, result.seed, json.dumps(result.agents),
               json.dumps(result.ranks), json.dumps(result.vp), result.turns, result.end_reason,
               result.forfeit, json.dumps([round(s, 6) for s in result.seconds_per_seat]),
               json.dumps(result.decisions_per_seat))
        try:
            cur = self.con.execute("INSERT OR IGNORE INTO games VALUES "
                                   "(?,?,?,?,?,?,?,?,?,?,?,?)", row)
        except sqlite3.Error as err:  # (disk full, locked by another writer for 30 s)
            raise LadderError(f"cannot store a game in {str(self.path)!r} ({err}); the games "
                              "stored so far are kept: run the command again") from None
        return cur.rowcount == 1  # (isolation_level None: each statement commits itself)

    def add_stored(self, games: list[StoredGame]) -> int:
        """Store games read from another ladder (one transaction); how many were new."""
        before = self.count()
        with self.con:
            self.con.execute("BEGIN")
            self.con.executemany(
                "INSERT OR IGNORE INTO games VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
                [(g.key, g.players, g.entrant, g.seed, json.dumps(list(g.agents)),
                  json.dumps(list(g.ranks)), json.dumps(list(g.vp)), g.turns, g.end_reason,
                  g.forfeit, json.dumps(list(g.seconds)), json.dumps(list(g.decisions)))
                 for g in games])
        return self.count() - before

    def count(self) -> int:
        return self.con.execute("SELECT COUNT(*) FROM games").fetchone()[0]

    def games(self, players: int, entrant: str | None = None) -> list[StoredGame]:
        """The stored games of ``players`` (of one entrant, if given), sorted by key, each row
        checked (:func:`stored_game`: a bad one is one line naming it)."""
        sql, args = f"SELECT rowid, {', '.join(COLUMNS)} FROM games WHERE players=?", [players]
        if entrant is not None:
            sql, args = sql + " AND entrant=?", [players, entrant]
        try:
            rows = self.con.execute(sql + " ORDER BY key", args).fetchall()
        except sqlite3.Error as err:
            raise LadderError(f"cannot read the ladder {str(self.path)!r} ({err})") from None
        return [stored_game(row, self.path, self.counts) for row in rows]

    def player_counts(self) -> list[int]:
        """The player counts of the stored games (each one the game is played by)."""
        found = self.con.execute("SELECT players, MIN(rowid) FROM games GROUP BY players")
        out = []
        for players, rowid in found.fetchall():
            if type(players) is not int or players not in self.counts:
                raise damaged(self.path, f"games row {rowid}, column players",
                              f"{excerpt(players, 60)} is not a player count of the game "
                              f"({', '.join(map(str, self.counts))})")
            out.append(players)
        return sorted(out)

    def anchors(self, players: int) -> list[str]:
        """The agents of the anchors' games of ``players``, sorted by name."""
        names: set[str] = set()
        for g in self.games(players, ANCHORS):
            names.update(g.agents)
        return sorted(names)

    def entrants(self, players: int) -> dict[str, int]:
        """{entrant: games stored} of ``players``, sorted by name."""
        counted = Counter(g.entrant for g in self.games(players) if g.entrant != ANCHORS)
        return dict(sorted(counted.items()))

    def remove(self, players: int, *entrants: str) -> int:
        """Delete the games of ``players`` of the ``entrants`` (never the anchors'), in one
        transaction; how many went."""
        names = [e for e in entrants if e != ANCHORS]
        if not names:
            return 0
        with self.con:
            self.con.execute("BEGIN")
            cur = self.con.execute(
                f"DELETE FROM games WHERE players=? AND entrant IN "
                f"({', '.join('?' * len(names))})", (players, *names))
        return cur.rowcount


def copy_anchors(source: Path, store: LadderStore, players: int) -> int:
    """Copy the anchors' games of ``players`` from the ladder ``source``; how many were new."""
    if not Path(source).is_file():
        return 0
    with open_ladder(source, read_only=True, game=store.game) as shipped:
        games = shipped.games(players, ANCHORS)
    return store.add_stored(games) if games else 0

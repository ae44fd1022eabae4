"""The ladder's games in one SQLite file: every game of every player count, each under a unique
key, committed as it ends.

Contract:

* :func:`open_ladder` opens (or creates) a ladder file in WAL mode and checks that it is one:
  a file that is not SQLite, or an SQLite file of something else (another ``application_id``
  or other tables), is refused with one line (:class:`LadderError`) and left untouched.
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
  games of its gauntlet (:mod:`.gauntlet`). :meth:`LadderStore.remove` deletes an entrant's
  games, never the anchors'.
* :func:`copy_anchors` copies the anchors' games of a player count from another ladder (the
  game's shipped one, :attr:`~.anchors.LadderGame.shipped`), keys and all.
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass
from pathlib import Path

from meduris_rl.agents.arena.ladder.anchors import game_flag, ladder_of
from meduris_rl.agents.arena.match import GameResult
from meduris_rl.kit.errors import InputError
from meduris_rl.kit.games import game_spec

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


class LadderError(InputError, ValueError):
    """A ladder that cannot be used as asked (the message names the fix)."""


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
    return json.dumps([players, entrant, list(lineup), index, seed], separators=(",", ":"))


def open_ladder(path: str | Path, create: bool = True, read_only: bool = False,
                game: str | None = None) -> LadderStore:
    """The ladder of ``game`` (None: the default game) in ``path`` (created if missing and
    ``create``; opened for reading only if ``read_only``, e.g. the shipped one), checked to be
    a ladder of ``game``."""
    game = ladder_of(game).game
    path = Path(path)
    if path.is_dir():
        raise LadderError(f"--db {str(path)!r} is a folder; give a ladder file, e.g. "
                          "ladder.sqlite")
    if not path.exists() and (read_only or not create):
        raise LadderError(f"no ladder at {str(path)!r}: `meduris ladder add AGENT"
                          f"{game_flag(game)} --db {path}` starts one from the shipped anchors' "
                          "games")
    if not path.exists() and not path.parent.is_dir():
        raise LadderError(f"cannot create {str(path)!r}: the folder {str(path.parent)!r} "
                          "does not exist")
    try:
        con = (sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True, timeout=30,
                               isolation_level=None) if read_only else
               sqlite3.connect(path, timeout=30, isolation_level=None))
    except sqlite3.Error as err:
        raise LadderError(f"cannot open {str(path)!r} as a ladder ({err})") from None
    try:
        check_ladder(con, path)
        check_held_game(con, path, game)  # (before prepare: a refused file is left untouched)
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
        flag = game_flag(held).strip() or f"--game {held} (the default)"
        raise LadderError(f"{str(path)!r} is a {held} ladder, not a {game} one: use {flag}, "
                          f"or another --db for {game}")


def check_ladder(con: sqlite3.Connection, path: Path) -> None:
    """Refuse an SQLite file of something else (its application id or tables), or a file that
    is not SQLite at all (sqlite3 raises DatabaseError on the first read)."""
    app = con.execute("PRAGMA application_id").fetchone()[0]
    tables = {row[0] for row in con.execute(
        "SELECT name FROM sqlite_master WHERE type='table'")}
    if app not in (0, APPLICATION_ID) or (tables and not tables <= TABLES) or (
            app == 0 and tables):
        shown = ", ".join(sorted(tables)[:5]) or "none"
        raise LadderError(f"{str(path)!r} is an SQLite file but not a ladder (tables: "
                          f"{shown}); give another --db")
    if tables:
        row = con.execute("SELECT value FROM ladder_meta WHERE key='schema'").fetchone()
        if row is None or row[0] != str(SCHEMA_VERSION):
            raise LadderError(f"{str(path)!r} is a ladder of another version "
                              f"({row[0] if row else 'unknown'}; this is {SCHEMA_VERSION})")


class LadderStore:
    """An open ladder file (see the module docstring); close it, or use it in ``with``."""

    def __init__(self, con: sqlite3.Connection, path: Path, game: str,
                 read_only: bool = False):
        self.con = con
        self.path = path
        self.game = game  # the name of the game whose games it holds
        self.read_only = read_only

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

    def keys(self, players: int) -> set[str]:
        return {row[0] for row in self.con.execute(
            "SELECT key FROM games WHERE players=?", (players,))}

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
        """The stored games of ``players`` (of one entrant, if given), sorted by key."""
        sql, args = "SELECT * FROM games WHERE players=?", [players]
        if entrant is not None:
            sql, args = sql + " AND entrant=?", [players, entrant]
        rows = self.con.execute(sql + " ORDER BY key", args).fetchall()
        return [StoredGame(key, n, ent, seed, tuple(json.loads(agents)),
                           tuple(json.loads(ranks)), tuple(json.loads(vp)), turns, end, forfeit,
                           tuple(json.loads(seconds)), tuple(json.loads(decisions)))
                for key, n, ent, seed, agents, ranks, vp, turns, end, forfeit, seconds,
                decisions in rows]

    def player_counts(self) -> list[int]:
        return [row[0] for row in self.con.execute(
            "SELECT DISTINCT players FROM games ORDER BY players")]

    def anchors(self, players: int) -> list[str]:
        """The agents of the anchors' games of ``players``, sorted by name."""
        names: set[str] = set()
        for g in self.games(players, ANCHORS):
            names.update(g.agents)
        return sorted(names)

    def entrants(self, players: int) -> dict[str, int]:
        """{entrant: games stored} of ``players``."""
        return dict(self.con.execute(
            "SELECT entrant, COUNT(*) FROM games WHERE players=? AND entrant!='' "
            "GROUP BY entrant ORDER BY entrant", (players,)).fetchall())

    def remove(self, players: int, entrant: str) -> int:
        """Delete an entrant's games of ``players``; how many went."""
        with self.con:
            self.con.execute("BEGIN")
            cur = self.con.execute("DELETE FROM games WHERE players=? AND entrant=?",
                                   (players, entrant))
        return cur.rowcount


def copy_anchors(source: Path, store: LadderStore, players: int) -> int:
    """Copy the anchors' games of ``players`` from the ladder ``source``; how many were new."""
    if not Path(source).is_file():
        return 0
    with open_ladder(source, read_only=True, game=store.game) as shipped:
        games = shipped.games(players, ANCHORS)
    return store.add_stored(games) if games else 0

"""``meduris serve`` hardened (issue 31, web): an alien ``--db`` refused at start with the file
unchanged, every error response the documented JSON, tampered stored games reported (409) while
the others keep working, and the bound on running games (``--max-running``)."""

from __future__ import annotations

import logging
import socket
import sqlite3
import warnings

import pytest
from helpers import LOCAL

from meduris_rl.cli.main import main
from meduris_rl.cli.meduris.web.app import create_app
from meduris_rl.cli.meduris.web.store import (
    APPLICATION_ID,
    MAX_RUNNING,
    SCHEMA,
    SCHEMA_VERSION,
    DatabaseRefused,
    Store,
)

with warnings.catch_warnings():  # starlette would rather have httpx2; httpx works
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient

JSON = {"content-type": "application/json"}


def client_for(db, **kw) -> TestClient:
    return TestClient(create_app(db, **kw), raise_server_exceptions=False, base_url=LOCAL)


def new_game(client, **kw):
    return client.post("/api/games", json={"players": 2, "opponents": "greedy", "seat": 0,
                                           "seed": 1, **kw})


def assert_json_error(r, status, *words):
    """A response is the documented error: that status, JSON ``{"error", "status"}``, one short
    line holding ``words``."""
    assert r.status_code == status, r.text
    assert r.headers["content-type"] == "application/json", r.headers
    body = r.json()
    # a 409 of a move carries the game too (the contract of issue 30: the page refreshes)
    assert set(body) - {"game"} == {"error", "status"} and body["status"] == status
    assert "\n" not in body["error"] and len(body["error"]) < 400, body
    for w in words:
        assert w in body["error"], (w, body)
    return body["error"]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# --- an alien --db is refused at start, the file unchanged ---------------------------------
def make_db(path, sql):
    con = sqlite3.connect(path)
    con.executescript(sql)
    con.commit()
    con.close()
    return path


ALIENS = [
    ("other_columns", "CREATE TABLE games (id INTEGER, name TEXT);", "has other columns"),
    ("other_tables", "CREATE TABLE users (id INTEGER); INSERT INTO users VALUES (1);",
     "its tables are 'users'"),
    ("extra_table", SCHEMA + "CREATE TABLE notes (x);", "'notes'"),
    ("extra_index", SCHEMA + "CREATE INDEX by_status ON games(status);", "indexes"),
    ("wal_other", "PRAGMA journal_mode=WAL; CREATE TABLE games (id, name);", "other columns"),
    ("newer", SCHEMA + f"PRAGMA application_id={APPLICATION_ID}; PRAGMA user_version="
     f"{SCHEMA_VERSION + 1};", "newer than version 1"),
    ("other_app", SCHEMA + "PRAGMA application_id=42;", "another application"),
    ("other_version", "PRAGMA user_version=7; CREATE TABLE t (x);", "user_version 7"),
]


@pytest.mark.parametrize("name,sql,reason", ALIENS, ids=[a[0] for a in ALIENS])
def test_an_alien_sqlite_database_is_refused_at_start_and_left_unchanged(tmp_path, capsys,
                                                                         name, sql, reason):
    db = make_db(tmp_path / f"{name}.sqlite", sql)
    before, files = db.read_bytes(), sorted(p.name for p in tmp_path.iterdir())
    assert main(["serve", "--port", str(free_port()), "--db", str(db)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert err.startswith(f"meduris: error: --db {str(db)!r} is not a games database (")
    assert reason in err and "choose another file" in err
    assert db.read_bytes() == before  # byte-identical
    assert sorted(p.name for p in tmp_path.iterdir()) == files  # no -wal or -shm left beside


@pytest.mark.parametrize("content,reason", [
    (b"hello\n" * 100, "not an SQLite database"),
    (b"\x00\xff" * 300, "not an SQLite database"),
    (b"SQLite format 3\x00" + b"\x00" * 300, "SQLite cannot read it"),
], ids=["text", "binary", "broken_header"])
def test_a_file_that_is_not_sqlite_is_refused_and_left_unchanged(tmp_path, capsys, content,
                                                                 reason):
    db = tmp_path / "x.sqlite"
    db.write_bytes(content)
    assert main(["serve", "--port", str(free_port()), "--db", str(db)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and reason in err and str(db) in err
    assert db.read_bytes() == content
    with pytest.raises(DatabaseRefused):
        create_app(db)  # the app refuses it too, not only the command


def test_our_databases_are_marked_and_unmarked_ones_of_our_schema_adopted(tmp_path):
    fresh = tmp_path / "fresh.sqlite"
    client = client_for(fresh)
    assert new_game(client).status_code == 201
    client.app.state.store.close()
    legacy = make_db(tmp_path / "legacy.sqlite", SCHEMA)  # as the code before the mark wrote
    for db in (fresh, legacy, tmp_path / "empty.sqlite"):
        if not db.exists():
            db.write_bytes(b"")
        Store(db).close()
        with sqlite3.connect(db) as con:
            assert con.execute("PRAGMA application_id").fetchone()[0] == APPLICATION_ID
            assert con.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    again = client_for(fresh)  # the marked file opens again with its game
    assert len(again.get("/api/games").json()["games"]) == 1


# --- every error is the documented JSON -----------------------------------------------------
@pytest.fixture
def client(tmp_path):
    return client_for(tmp_path / "games.sqlite")


def test_unknown_routes_and_wrong_methods_answer_json(client):
    for path in ("/nothing", "/api", "/api/games/0123456789abcdef/undo", "/%2e%2e/x"):
        assert_json_error(client.get(path), 404, "not found")
    for method, path in (("delete", "/api/games"), ("put", "/api/games"),
                         ("get", "/api/games/0123456789abcdef/actions"), ("post", "/")):
        assert_json_error(client.request(method.upper(), path), 405, "method not allowed")


@pytest.mark.parametrize("path", ["/api/games", "/api/games/0123456789abcdef/actions"])
def test_malformed_wrong_typed_or_oversized_bodies_answer_json(client, path):
    bad = [
        (b"not json", JSON, 422, "not JSON"),
        (b"{\"players\": 2", JSON, 422, "not JSON"),
        (b"", JSON, 422, "not JSON"),
        (b"\xff\xfe", JSON, 422, "not UTF-8"),
        (b"[" * 100 + b"]" * 100, JSON, 422, "nested 100 levels"),
        (b'{"seed": ' + b"9" * 5000 + b"}", JSON, 422, "beyond 64 bits"),
        (b'{"action": NaN}', JSON, 422, "NaN"),
        (b'{"action": Infinity}', JSON, 422, "Infinity"),
        (b'{"' + b"k" * 3000 + b'": 1}', JSON, 422, ""),  # the key shown cut short
        (b'{"players": 2}', {"content-type": "text/plain"}, 415, "application/json"),
        (b'{"players": 2}', {"content-type": "application/x-www-form-urlencoded"}, 415, ""),
        (b'{"players": 2}', {}, 415, "Content-Type"),
        (b"x" * 20000, JSON, 413, "over 16384 bytes"),
    ]
    for raw, headers, status, word in bad:
        assert_json_error(client.post(path, content=raw, headers=headers), status, word)
    assert client.get("/api/games").json() == {"games": []}


def test_long_or_odd_values_are_echoed_as_short_excerpts(client):
    for body in ({"players": "x" * 10000}, {"players": 2, "opponents": ["y" * 9000]},
                 {"players": 2, "seat": [[1] * 3000]}, {"players": 2, "seed": "z" * 9000},
                 {"players": 2, "opponents": [{"a": "b" * 9000}]}):
        r = new_game(client, **body)
        assert_json_error(r, 400)
    g = new_game(client).json()
    for body in ({"action": "a" * 10000}, {"action": 0, "step": [0] * 4000},
                 {"action": 2**63 - 1}, {"action": 0, "step": -(2**63)}):
        r = client.post(f"/api/games/{g['id']}/actions", json=body)
        assert r.status_code in (400, 409, 422)
        assert_json_error(r, r.status_code)


def test_an_internal_error_is_logged_and_answered_as_500_json(client, monkeypatch, caplog):
    g = new_game(client).json()
    games = client.app.state.games

    def broken(*args, **kwargs):
        raise KeyError("a bug")
    monkeypatch.setattr(games, "move", broken)
    with caplog.at_level(logging.ERROR, logger="meduris.web"):
        r = client.post(f"/api/games/{g['id']}/actions", json={"action": 0})
    assert_json_error(r, 500, "internal error (KeyError)", "log")
    assert "a bug" not in r.text  # the details go to the log only
    assert any(rec.exc_info and "a bug" in str(rec.exc_info[1]) for rec in caplog.records)
    assert r.headers["x-content-type-options"] == "nosniff"
    monkeypatch.undo()
    assert client.get(f"/api/games/{g['id']}").status_code == 200  # the server goes on


# --- tampered stored games: 409 with the reason, the others keep working --------------------
TAMPERS = [
    ("UPDATE moves SET action = 200 WHERE game = :id AND step = 2", "do not replay"),
    ("UPDATE moves SET seat = 1 - seat WHERE game = :id AND step = (SELECT MIN(step) FROM "
     "moves WHERE game = :id AND seat >= 0)", "do not replay"),  # the other seat's move
    ("UPDATE moves SET seat = 0 WHERE game = :id AND step = (SELECT MIN(step) FROM "
     "moves WHERE game = :id AND seat < 0)", "do not replay"),  # chance's outcome as a seat's
    ("UPDATE moves SET action = 'x' WHERE game = :id AND step = 0", "its move 0"),
    ("DELETE FROM moves WHERE game = :id AND step = 3", "moves stored"),
    ("UPDATE moves SET action = 99999999999 WHERE game = :id AND step = 0", "its move 0"),
    ("UPDATE games SET config = '{not json' WHERE id = :id", "its config: not JSON"),
    ("UPDATE games SET config = '[' || printf('%.*c', 200, '[') WHERE id = :id", "nested"),
    ("UPDATE games SET config = json_set(config, '$.players', 9) WHERE id = :id", "players"),
    ("UPDATE games SET config = json_set(config, '$.seat', 5) WHERE id = :id", "seat"),
    ("UPDATE games SET config = json_set(config, '$.seed', 'x') WHERE id = :id", "seed"),
    ("UPDATE games SET config = json_set(config, '$.opponents', json('[1]')) WHERE id = :id",
     "opponents"),
    ("UPDATE games SET config = x'00ff' WHERE id = :id", "its config"),
]


def played_games(tmp_path, n=2):
    db = tmp_path / "games.sqlite"
    client = client_for(db)
    ids = [new_game(client, seed=s, seat=1).json()["id"] for s in range(n)]  # seat 0 moved
    client.app.state.store.close()
    return db, ids


@pytest.mark.parametrize("sql,reason", TAMPERS, ids=[f"t{i}" for i in range(len(TAMPERS))])
def test_a_tampered_game_is_reported_and_the_others_keep_working(tmp_path, sql, reason):
    db, (bad, good) = played_games(tmp_path)
    with sqlite3.connect(db) as con:
        con.execute("PRAGMA foreign_keys=OFF")
        assert con.execute(sql, {"id": bad}).rowcount == 1
    client = client_for(db)
    for r in (client.get(f"/api/games/{bad}"),
              client.post(f"/api/games/{bad}/actions", json={"action": 0}),
              client.get(f"/api/games/{bad}/record")):
        assert_json_error(r, 409, f"game {bad} is damaged in the store", reason)
    assert client.get(f"/api/games/{good}").status_code == 200
    listed = client.get("/api/games")
    assert listed.status_code == 200 and {g["id"] for g in listed.json()["games"]} == {bad, good}
    assert new_game(client, seed=7).status_code == 201


@pytest.mark.parametrize("name,reason", [
    ("nosuchagent", "unknown agent"), ("ppo:/etc/passwd", "never a file"),
    ("mcts:1e308s", "whole number of iterations"),
])
def test_a_tampered_opponent_name_is_checked_before_an_agent_is_built(tmp_path, name, reason):
    db, (gid, _) = played_games(tmp_path)
    with sqlite3.connect(db) as con:
        con.execute("UPDATE games SET config = json_set(config, '$.opponents[0]', ?) "
                    "WHERE id = ?", (name, gid))
    client = client_for(db)
    g = client.get(f"/api/games/{gid}")  # waiting for the human: shown without the agent
    assert g.status_code == 200
    legal = g.json()["view"]["legal"][0]["id"]
    r = client.post(f"/api/games/{gid}/actions", json={"action": legal,
                                                      "step": g.json()["step"]})
    assert_json_error(r, 409, "the opponent at seat 0 cannot play", reason)
    assert client.get(f"/api/games/{gid}").json()["step"] == g.json()["step"]  # nothing stored


def test_a_listed_game_with_a_garbage_row_is_marked_damaged(tmp_path):
    db, (bad, good) = played_games(tmp_path)
    with sqlite3.connect(db) as con:
        con.execute("UPDATE games SET config = 'garbage', result = x'01' WHERE id = ?", (bad,))
        con.execute("UPDATE games SET created = 1e999 WHERE id = ?", (good,))  # inf
    listed = {g["id"]: g for g in client_for(db).get("/api/games").json()["games"]}
    assert listed[bad]["config"] is None and "its config" in listed[bad]["damaged"]
    assert listed[good]["created"] is None and "created" in listed[good]["damaged"]


# --- running games are bounded --------------------------------------------------------------
def test_running_games_beyond_max_running_are_refused_with_503(tmp_path):
    db = tmp_path / "games.sqlite"
    client = client_for(db, max_running=2)
    assert new_game(client, seed=1).status_code == new_game(client, seed=2).status_code == 201
    for _ in range(2):
        assert_json_error(new_game(client, seed=3), 503, "2 games are running",
                          "--max-running 2", "larger --max-running")
    with sqlite3.connect(db) as con:
        assert con.execute("SELECT COUNT(*) FROM games").fetchone()[0] == 2
        con.execute("UPDATE games SET status = 'finished' WHERE rowid = 1")  # one finished
    assert new_game(client, seed=4).status_code == 201  # finished games do not count
    assert_json_error(new_game(client, seed=5), 503)


def test_max_running_is_an_option_of_serve_with_the_documented_default(capsys):
    from meduris_rl.cli.main import build_parser
    args = build_parser().parse_args(["serve"])
    assert args.max_running == MAX_RUNNING == 1000
    assert build_parser().parse_args(["serve", "--max-running", "5"]).max_running == 5
    with pytest.raises(SystemExit) as exit_:
        main(["serve", "--max-running", "0"])
    assert exit_.value.code == 2 and "--max-running: 0 is outside" in capsys.readouterr().err

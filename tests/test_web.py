"""``meduris serve``: the web API (FastAPI's TestClient, no browser), its SQLite store and the
JSON view the page draws. The browser scenarios are in test_web_browser.py."""

from __future__ import annotations

import json
import random
import socket
import sqlite3
import threading
import time
import warnings

import pytest
from helpers import LOCAL

from meduris_env import GameRecord, MedurisGame
from meduris_env.render.view import apply_patch, state_view, view_patch
from meduris_rl.cli.main import main
from meduris_rl.cli.meduris.web.app import create_app

with warnings.catch_warnings():  # starlette would rather have httpx2; httpx works
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient


OPEN: list[TestClient] = []  # clients started by client_for, stopped after each test


def client_for(db) -> TestClient:
    """A client of a new app on ``db``, started (its lifespan and event loop kept for the
    test, as a server's are: the opponents' drivers run on it) until the test ends."""
    client = TestClient(create_app(db), base_url=LOCAL)
    client.__enter__()
    OPEN.append(client)
    return client


@pytest.fixture(autouse=True)
def stop_clients():
    yield
    while OPEN:
        OPEN.pop().__exit__(None, None, None)


@pytest.fixture
def client(tmp_path):
    return client_for(tmp_path / "games.sqlite")


def settled(client, game: dict, timeout: float = 60.0) -> dict:
    """``game`` once no opponent is thinking (their moves arrive after the answer, as the
    contract says): polled with GET."""
    deadline = time.monotonic() + timeout
    while game.get("thinking"):
        assert time.monotonic() < deadline, "the opponents did not move in time"
        time.sleep(0.02)
        game = client.get(f"/api/games/{game['id']}").json()
    return game


def new_game(client, **kw) -> dict:
    body = {"players": 2, "opponents": "greedy", "seat": 0, "seed": 1, **kw}
    r = client.post("/api/games", json=body)
    assert r.status_code == 201, r.text
    return settled(client, r.json())


def move(client, game_id, action, step=None):
    body = {"action": action} if step is None else {"action": action, "step": step}
    return client.post(f"/api/games/{game_id}/actions", json=body)


def play_moves(client, game: dict, rng: random.Random, limit: int | None = None,
               chosen: list | None = None) -> dict:
    """Make random legal moves (or the ``chosen`` ones, in order) until the game ends or
    ``limit`` moves were made; the game's latest payload."""
    made = 0
    game = settled(client, game)
    while game["status"] == "running" and (limit is None or made < limit):
        legal = [a["id"] for a in game["view"]["legal"]]
        assert legal, "the human must have a choice whenever the game waits"
        action = chosen.pop(0) if chosen else rng.choice(legal)
        r = move(client, game["id"], action, game["step"])
        assert r.status_code == 200, r.text
        game = settled(client, {**game, **r.json()})
        made += 1
    return game


def moves_stored(db, game_id) -> int:
    with sqlite3.connect(db) as con:
        return con.execute("SELECT COUNT(*) FROM moves WHERE game = ?", (game_id,)).fetchone()[0]


# --- the view ---------------------------------------------------------------------------------
def test_the_view_hides_the_opponents_screens_and_lists_clickable_legal_actions(client):
    g = new_game(client, players=3, opponents=["greedy", "random"], seat=1, seed=4)
    v = g["view"]
    assert g["status"] == "running" and v["to_move"] == 1 and v["viewer"] == 1
    assert [s["materials"] is None for s in v["seats"]] == [True, False, True]
    assert all(s["total"] == 4 for s in v["seats"])  # everyone starts with one of each (R1)
    assert [s["label"] for s in v["seats"]] == ["greedy", "human", "random"]
    # seat 0 (greedy) placed its worker before the human's first decision
    assert any(e["who"] == "seat 0 (greedy)" for e in g["log"])
    assert {a["kind"] for a in v["legal"]} == {"place"}
    assert {a["target"] for a in v["legal"]} <= {f"plain:{p}" for p in range(4)}
    assert all(a["words"].startswith("place worker on ") for a in v["legal"])
    assert v["board"]["fields"] == 32 and len(v["occupant"]) == 32
    json.dumps(v)  # plain JSON


def test_view_patches_rebuild_every_frame_and_targets_cover_every_kind():
    from meduris_rl.agents.arena.match import play_game
    from meduris_rl.agents.registry import make_agent
    game = MedurisGame(2)
    result = play_game(game, [make_agent("greedy"), make_agent("greedy")], 3, keep_record=True)
    record = GameRecord.from_dict(result.record)
    views, kinds = [], set()
    for st in record.states():
        views.append(state_view(st, labels=record.agents))
        if st.current_player() >= 0:
            legal = state_view(st, viewer=st.current_player())["legal"]
            kinds |= {a["kind"] for a in legal}
            for a in legal:
                assert a["target"].split(":")[0] in (
                    "plain", "supply", "mat", "worker", "field", "offer", "exchange")
    assert {"place", "move", "hut", "offer"} <= kinds
    cur = json.loads(json.dumps(views[0]))
    for a, b in zip(views, views[1:], strict=False):
        cur = apply_patch(cur, json.loads(json.dumps(view_patch(a, b))))
        assert cur == b
    assert views[-1]["terminal"] and views[-1]["winners"] == result.winners


# --- bad input: a 4xx JSON error with the reason, and nothing changes ---------------------------
BAD_MOVES = [
    ({"action": 200}, 400, "illegal action"),  # a real action id, not legal now
    ({"action": 5000}, 400, "not an action id"),
    ({"action": -1}, 400, "not an action id"),
    ({"action": "build hut on field 3"}, 422, "action must be an action id"),
    ({"action": 1.5}, 422, "action must be an action id"),
    ({"action": True}, 422, "action must be an action id"),
    ({"action": None}, 422, "action must be an action id"),
    ({}, 422, "action: Field required"),
    ({"action": 0, "extra": 1}, 422, "extra: Extra inputs are not permitted"),
    ({"action": 0, "step": "x"}, 422, "step must be an integer"),
    ({"action": 0, "step": 3}, 409, "out of turn"),  # a move made for another step
    ({"action": 0, "step": None}, 422, "step is required"),  # (a retry would play it twice)
]


def test_bad_moves_are_refused_with_the_reason_and_change_nothing(tmp_path):
    db = tmp_path / "games.sqlite"
    client = client_for(db)
    g = new_game(client)
    before, stored = client.get(f"/api/games/{g['id']}").json(), moves_stored(db, g["id"])
    for body, status, reason in BAD_MOVES:  # (at the game's step, unless the body says)
        r = client.post(f"/api/games/{g['id']}/actions", json={"step": g["step"], **body})
        assert r.status_code == status, (body, r.text)
        assert r.headers["content-type"] == "application/json"
        assert reason in r.json()["error"], (body, r.json())
    for raw in (b"not json", b"[1, 2]", b"{\"action\": 1", b""):
        r = client.post(f"/api/games/{g['id']}/actions", content=raw,
                        headers={"content-type": "application/json"})
        assert r.status_code == 422 and r.json()["error"], raw
    assert client.get(f"/api/games/{g['id']}").json() == before
    assert moves_stored(db, g["id"]) == stored == g["step"]


def test_unknown_game_ids_and_unknown_paths_are_404(client):
    for gid in ("0123456789abcdef", "nope", "0123456789ABCDEF", "1" * 17):
        r = client.get(f"/api/games/{gid}")
        assert r.status_code == 404 and "no game" in r.json()["error"]
        assert move(client, gid, 0).status_code == 404
    assert client.get("/api/nothing").json() == {"error": "not found", "status": 404}
    assert client.delete("/api/games").status_code == 405


def test_oversized_bodies_are_refused_before_they_are_read(tmp_path):
    db = tmp_path / "games.sqlite"
    client = client_for(db)
    g = new_game(client)
    big = json.dumps({"action": 0, "pad": "x" * 20000})
    r = client.post(f"/api/games/{g['id']}/actions", content=big,
                    headers={"content-type": "application/json"})
    assert r.status_code == 413 and "over 16384 bytes" in r.json()["error"]

    def chunks():  # no Content-Length: counted while it arrives
        for _ in range(40):
            yield b" " * 1000
    r = client.post(f"/api/games/{g['id']}/actions", content=chunks(),
                    headers={"content-type": "application/json"})
    assert r.status_code == 413
    assert client.post("/api/games", content=big,
                       headers={"content-type": "application/json"}).status_code == 413
    assert moves_stored(db, g["id"]) == g["step"]
    with sqlite3.connect(db) as con:
        assert con.execute("SELECT COUNT(*) FROM games").fetchone()[0] == 1


def test_moves_after_the_end_or_for_a_stale_step_are_out_of_turn(client):
    g = new_game(client, seed=8)
    first = g["view"]["legal"][0]["id"]
    assert move(client, g["id"], first, g["step"]).status_code == 200
    stale = move(client, g["id"], first, g["step"])  # a second tab, one move behind
    assert stale.status_code == 409 and "out of turn" in stale.json()["error"]
    g = play_moves(client, client.get(f"/api/games/{g['id']}").json(), random.Random(1))
    assert g["status"] == "finished" and g["view"]["legal"] == []
    r = move(client, g["id"], 0, g["step"])
    assert r.status_code == 409 and "the game is over" in r.json()["error"]


@pytest.mark.parametrize("body, reason", [
    ({"opponents": "ppo:/etc/passwd"}, "never a file"),
    ({"opponents": "ppo:agents/models/ppo_2p.pt"}, "never a file"),
    ({"opponents": "az:100:/tmp/policy.pt"}, "whole number of iterations"),
    ({"opponents": "mcts:0.5s"}, "whole number of iterations"),
    ({"opponents": "mcts:0"}, "whole number of iterations"),
    ({"opponents": "mcts:100000"}, "whole number of iterations"),
    ({"opponents": "greedy:3"}, "takes no parameter"),
    ({"opponents": "gredy"}, "did you mean 'greedy'"),
    ({"opponents": "/bin/sh"}, "unknown agent"),
    ({"opponents": ""}, "an opponent is an agent name"),
    ({"opponents": 3}, "one agent name, or a list"),
    ({"opponents": ["greedy", "greedy"]}, "2 players means 1 opponents, got 2"),
    ({"players": 5}, "played by 2, 3 or 4"),
    ({"players": "2"}, "played by 2, 3 or 4"),
    ({"seat": 2}, "seats are 0..1"),
    ({"seed": -1}, "seed -1"),
    ({"seed": "x"}, "seed 'x'"),
    ({"colour": "red"}, "Extra inputs are not permitted"),
])
def test_opponents_are_built_in_agents_and_shipped_models_only(client, body, reason):
    r = client.post("/api/games", json={"players": 2, "opponents": "greedy", **body})
    assert r.status_code in (400, 422), r.text
    assert reason in r.json()["error"]
    assert client.get("/api/games").json()["games"] == []


def test_a_missing_shipped_model_is_refused_and_budgets_are_accepted(client, monkeypatch,
                                                                     tmp_path):
    import meduris_rl.agents.policies.ppo
    kinds = {a["name"]: a for a in client.get("/api/agents").json()["agents"]}
    assert {"random", "greedy", "mcts", "ppo", "az", "search"} <= set(kinds)
    assert kinds["greedy"]["players"] == [2, 3, 4]
    assert kinds["ppo"]["players"] == [2, 3, 4]  # a shipped model for every player count
    assert kinds["search"]["players"] == [2]
    from meduris_rl.cli.meduris.web.store import available_agents
    # a checkout without ppo_4p.pt and search_2p.pt
    for shipped in meduris_rl.agents.policies.ppo.MODELS.iterdir():
        if shipped.name not in ("ppo_4p.pt", "search_2p.pt"):
            (tmp_path / shipped.name).symlink_to(shipped)
    monkeypatch.setattr(meduris_rl.agents.policies.ppo, "MODELS", tmp_path)
    offered = {a["name"]: a["players"] for a in available_agents()}
    assert offered["ppo"] == offered["az"] == [2, 3] and "search" not in offered
    r = client.post("/api/games", json={"players": 4, "opponents": "ppo"})
    assert r.status_code == 400 and "(agents/models/ppo_4p.pt) is missing" in r.json()["error"]
    r = client.post("/api/games", json={"players": 2, "opponents": "search"})
    assert r.status_code == 400 and "(agents/models/search_2p.pt) is missing" in r.json()["error"]
    monkeypatch.undo()
    g = new_game(client, players=4, opponents=["mcts:20", "greedy", "random"], seat=2)
    assert g["config"]["labels"] == ["mcts:20", "greedy", "human", "random"]
    g = play_moves(client, g, random.Random(2), limit=6)
    assert g["status"] == "running" and g["view"]["to_move"] == 2


# --- storage, restarts, records -------------------------------------------------------------
def test_games_are_stored_in_sqlite_wal_with_every_action(tmp_path):
    db = tmp_path / "games.sqlite"
    client = client_for(db)
    g = play_moves(client, new_game(client, seed=5), random.Random(5), limit=5)
    assert client.app.state.store.journal_mode() == "wal"
    with sqlite3.connect(db) as con:
        assert con.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        steps, status = con.execute("SELECT steps, status FROM games WHERE id = ?",
                                    (g["id"],)).fetchone()
    assert steps == g["step"] == moves_stored(db, g["id"]) and status == "running"


def test_a_restarted_server_resumes_every_game_exactly(tmp_path):
    """Game A is played start to finish in one server. The same game (same seed, same human
    actions) is played in a second server that is restarted twice along the way (a new app on
    the same file each time): every position and the final record are identical. The opponent
    searches (mcts), so its random stream must be rebuilt exactly too."""
    rng = random.Random(11)
    one = client_for(tmp_path / "one.sqlite")
    a = new_game(one, seed=21, seat=1, opponents="mcts:10")
    chosen = []
    while a["status"] == "running":
        action = rng.choice([x["id"] for x in a["view"]["legal"]])
        chosen.append(action)
        a = play_moves(one, a, rng, limit=1, chosen=[action])
    db = tmp_path / "two.sqlite"
    two = client_for(db)
    b = new_game(two, seed=21, seat=1, opponents="mcts:10")
    todo = list(chosen)
    for cut in (len(todo) // 3, len(todo) // 3):
        b = play_moves(two, b, rng, limit=cut, chosen=todo)
        two = client_for(db)  # the restart: nothing in memory, everything from the file
        resumed = two.get(f"/api/games/{b['id']}").json()
        assert resumed["view"] == b["view"] and resumed["step"] == b["step"]
        assert [e["step"] for e in resumed["log"]] == list(range(b["step"]))
        assert resumed["log"][-1] == (b.get("moves") or b["log"])[-1]
        b = resumed
    b = play_moves(two, b, rng, chosen=todo)
    assert b["status"] == "finished" and not todo
    assert b["view"] == a["view"] and b["result"] == a["result"]
    ra = one.get(a["record_url"]).json()
    rb = two.get(b["record_url"]).json()
    assert ra["actions"] == rb["actions"] and ra["events"] == rb["events"]


def test_a_finished_game_exports_a_record_that_replays_to_its_scores(client):
    g = new_game(client, seed=3)
    assert client.get(f"/api/games/{g['id']}/record").status_code == 409
    assert client.get(f"/games/{g['id']}/replay").status_code == 409
    g = play_moves(client, g, random.Random(3))
    assert g["status"] == "finished"
    v = g["view"]
    assert v["viewer"] is None and all(s["materials"] is not None for s in v["seats"])
    r = client.get(g["record_url"])
    assert r.status_code == 200 and "attachment" in r.headers["content-disposition"]
    record = GameRecord.from_dict(r.json())
    final = record.replay()
    assert final.scores().tolist() == g["result"]["scores"] == [s["vp"] for s in v["seats"]]
    assert record.agents == ["human", "greedy"] and record.seed == 3
    assert record.meta["game"] == g["id"]
    page = client.get(g["replay_url"])
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    assert "MedurisBoard" in page.text and "data:image/png" not in page.text
    listed = client.get("/api/games").json()["games"]
    assert listed[0]["id"] == g["id"] and listed[0]["status"] == "finished"


def test_games_in_several_threads_at_once_stay_apart(tmp_path):
    app = create_app(tmp_path / "games.sqlite")
    results, errors = {}, []

    def run(k: int) -> None:
        try:
            c = TestClient(app, base_url=LOCAL)
            g = new_game(c, seed=100 + k)
            results[k] = play_moves(c, g, random.Random(k))
        except Exception as err:  # pragma: no cover - reported below
            errors.append(repr(err))
    threads = [threading.Thread(target=run, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    c = TestClient(app, base_url=LOCAL)
    for g in results.values():
        record = GameRecord.from_dict(c.get(g["record_url"]).json())
        assert record.replay().scores().tolist() == g["result"]["scores"]
    assert len({g["id"] for g in results.values()}) == 4


# --- the files it serves ------------------------------------------------------------------------
def test_only_the_page_and_its_two_files_are_served(client):
    r = client.get("/")
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/html")
    assert '<script src="/board.js">' in r.text
    assert r.headers["x-content-type-options"] == "nosniff"
    assert "default-src 'self'" in r.headers["content-security-policy"]
    js = client.get("/board.js")
    assert js.status_code == 200 and "MedurisBoard" in js.text
    assert js.headers["content-type"].startswith("text/javascript")
    assert client.get("/play.css").status_code == 200
    for path in ("/../pyproject.toml", "/%2e%2e/pyproject.toml", "/board.js/../pyproject.toml",
                 "/static/..%2f..%2fpyproject.toml", "/templates/board.js",
                 "/meduris_cli/meduris/web/app.py", "/etc/passwd", "/..%2f..%2fetc%2fpasswd",
                 "/api/games/..%2f..%2fpyproject.toml"):
        r = client.get(path)
        assert r.status_code == 404, path
        assert "[tool" not in r.text and "root:" not in r.text


# --- meduris serve ------------------------------------------------------------------------------
def test_serve_errors_are_one_line_with_status_2(tmp_path, capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["serve", "--port", "70000"])
    assert exit_.value.code == 2
    assert capsys.readouterr().err.strip() == \
        "meduris: error: serve: argument --port: 70000 is outside 1..65535"
    assert main(["serve", "--db", str(tmp_path)]) == 2
    assert "is a folder" in capsys.readouterr().err
    blocker = tmp_path / "file"
    blocker.write_text("x")
    assert main(["serve", "--db", str(blocker / "games.sqlite")]) == 2
    assert "cannot write the games database" in capsys.readouterr().err
    junk = tmp_path / "junk.sqlite"
    junk.write_bytes(b"this is not a database, but long enough to look like a file" * 40)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        port = s.getsockname()[1]
        assert main(["serve", "--port", str(port), "--db", str(tmp_path / "g.sqlite")]) == 2
        assert "cannot listen on 127.0.0.1:" in capsys.readouterr().err
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        free = s.getsockname()[1]
    assert main(["serve", "--port", str(free), "--db", str(junk)]) == 2
    assert "is not a games database" in capsys.readouterr().err


def test_meduris_serve_serves_the_page_on_localhost(tmp_path):
    import subprocess
    import sys
    import time
    import urllib.request
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    db = tmp_path / "served.sqlite"
    proc = subprocess.Popen([sys.executable, "-m", "meduris_rl.cli", "serve", "--port", str(port),
                             "--db", str(db)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    try:
        deadline = time.monotonic() + 30  # (the workers warm up meanwhile: issue 47)
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=2) as r:
                    page = r.read().decode()
                break
            except OSError:
                assert proc.poll() is None, proc.communicate()
                assert time.monotonic() < deadline, "meduris serve did not answer"
                time.sleep(0.2)
        assert "<title>Meduris</title>" in page
        assert db.is_file()
    finally:
        proc.terminate()
        out, err = proc.communicate(timeout=30)
    assert f"open http://127.0.0.1:{port}/" in out


def test_the_load_benchmark_runs_and_reports_its_figures():
    from helpers import load_benchmark
    bench = load_benchmark("web")
    out = bench.main(["--games", "3", "--think", "0", "--json"])
    assert out["games"] == out["finished"] == 3 and out["errors"] == 0
    assert out["moves"] > 30 and 0 < out["p50_ms"] <= out["p95_ms"] <= out["max_ms"]


def test_the_live_load_benchmark_runs_and_reports_its_figures():
    """The live load of issue 30, bounded (10 games against mcts:200 for 10 s, one worker):
    the keys it reports, no error, every stored game consistent (the real figures: docs)."""
    from helpers import load_benchmark
    bench = load_benchmark("web")
    out = bench.main(["--live", "--games", "10", "--seconds", "10", "--thinkers", "1",
                      "--json"])
    assert out["errors"] == 0, out["error_list"]
    assert out["stalled"] == 0, out["stalled_list"]
    assert out["games_consistent"] is True and out["games_played"] >= 10
    assert out["opponent_moves_per_s"] > 0 and out["probe_moves"] >= 5
    assert 0 < out["probe_move_p95_ms"] < 1000 and 0 < out["get_root_p95_ms"] < 1000


def test_the_live_load_counts_a_failed_opponent_and_a_stalled_game():
    """The live load's client: a ``failed`` message is an error (and its game stalls: nobody
    thinks, the human cannot move); a game is stalled when it is neither at the human's
    decision nor with an opponent thinking that was heard of lately."""
    from helpers import load_benchmark
    bench = load_benchmark("web")
    seen = bench.LoadState()
    game = {"id": "g1", "step": 4, "status": "running", "thinking": {"seat": 1},
            "view": {"legal": []}}
    seen.saw(game)  # the answer to the human's move: the opponent thinks
    now = time.monotonic()
    assert seen.stalled(now) == [] and seen.stalled(now + bench.PATIENCE + 1) == ["g1"]
    assert seen.took(game, None, None) and seen.took(game, "thinking",
                                                     {"thinking": {"seat": 1}, "step": 4})
    assert seen.took(game, "move", {"moves": [{"seat": 1}], "step": 5, "thinking": None,
                                    "view": {"legal": [{"id": 3}]}, "status": "running"})
    assert seen.opponent_moves == 1 and seen.stalled(now + 1000) == []  # the human's turn
    game.update(step=6, thinking={"seat": 1}, view={"legal": []})
    seen.saw(game)
    assert seen.took(game, "failed", {"error": "mcts:50 (seat 1) could not move", "step": 6,
                                      "thinking": None}) is False
    assert seen.errors == ["failed: game g1: mcts:50 (seat 1) could not move"]
    assert seen.stalled(time.monotonic()) == ["g1"]
    game.update(status="finished")
    seen.saw(game)
    assert seen.stalled(time.monotonic()) == []
